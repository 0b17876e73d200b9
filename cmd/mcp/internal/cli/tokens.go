package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Tokens from mcp login live in the user's configuration directory
// ($XDG_CONFIG_HOME or ~/.config on Linux, ~/Library/Application Support
// on macOS, %AppData% on Windows), under gomcp/tokens/, one file per
// server: the SHA-256 of the server's URL, in hex, plus ".json". The
// directory is 0700 and each file 0600, written whole and renamed into
// place. A file holds the OAuth token as JSON, with at least access_token
// and token_type (the shape of golang.org/x/oauth2's Token), plus the
// server's URL so that a listing can show it.

// StoredToken is one server's token file.
type StoredToken struct {
	// URL is the MCP server's URL, as given to mcp login.
	URL string `json:"url"`
	// Token is the OAuth token (access_token, token_type, refresh_token,
	// expiry, ...), kept as the oauth package wrote it.
	Token json.RawMessage `json:"token"`
}

// TokenDir returns the directory of the token files, "" if the user has
// no configuration directory.
func TokenDir() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "gomcp", "tokens")
}

// tokenPath returns the file of the server at url.
func tokenPath(dir, url string) string {
	sum := sha256.Sum256([]byte(strings.TrimRight(url, "/")))
	return filepath.Join(dir, hex.EncodeToString(sum[:])+".json")
}

// SaveToken stores the token of the server at url in dir.
func SaveToken(dir, url string, token json.RawMessage) error {
	if dir == "" {
		return errors.New("no configuration directory to keep the token in")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(StoredToken{URL: url, Token: token}, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".token-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), tokenPath(dir, url))
}

// LoadToken returns the stored token of the server at url, or nil.
func LoadToken(dir, url string) (*StoredToken, error) {
	if dir == "" {
		return nil, nil
	}
	b, err := os.ReadFile(tokenPath(dir, url))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var st StoredToken
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("%s: %v", tokenPath(dir, url), err)
	}
	return &st, nil
}

// DeleteToken forgets the token of the server at url; it reports whether
// there was one.
func DeleteToken(dir, url string) (bool, error) {
	if dir == "" {
		return false, nil
	}
	err := os.Remove(tokenPath(dir, url))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// Login, when set, runs the OAuth flow for the MCP server at url and
// returns the token to store (as JSON, the shape of oauth2.Token). It is
// the hook for the oauth package: mcp login reports that it is not
// available while Login is nil.
var Login func(ctx context.Context, url string) (json.RawMessage, error)

// bearer returns the Authorization header value of a stored token, or "".
func (st *StoredToken) bearer() string {
	if st == nil {
		return ""
	}
	var t struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
	}
	if json.Unmarshal(st.Token, &t) != nil || t.AccessToken == "" {
		return ""
	}
	if t.TokenType == "" || strings.EqualFold(t.TokenType, "bearer") {
		t.TokenType = "Bearer"
	}
	return t.TokenType + " " + t.AccessToken
}

// runLogin is mcp login URL and mcp logout URL.
func runLogin(ctx context.Context, name string, args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 || !isTargetStart(args[0]) || strings.HasPrefix(args[0], "@") {
		fmt.Fprintf(stderr, "mcp: usage: mcp %s URL\n", name)
		return ExitUsage
	}
	url, dir := args[0], TokenDir()
	if name == "logout" {
		had, err := DeleteToken(dir, url)
		if err != nil {
			return report(ctx, stderr, err)
		}
		if had {
			fmt.Fprintf(stdout, "logged out of %s\n", url)
		} else {
			fmt.Fprintf(stdout, "no token stored for %s\n", url)
		}
		return ExitOK
	}
	if Login == nil {
		fmt.Fprintln(stderr, "mcp: login is not available in this build yet (it needs the OAuth client)")
		return ExitUsage
	}
	tok, err := Login(ctx, url)
	if err == nil {
		err = SaveToken(dir, url, tok)
	}
	if err != nil {
		return report(ctx, stderr, err)
	}
	fmt.Fprintf(stdout, "logged in to %s\n", url)
	return ExitOK
}
