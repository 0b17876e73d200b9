package cli

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/oauth"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// What mcp login obtains lives in the user's configuration directory
// ($XDG_CONFIG_HOME or ~/.config on Linux, ~/Library/Application Support
// on macOS, %AppData% on Windows), under gomcp/tokens/, one file per
// server: the SHA-256 of the server's URL, in hex, plus ".json". The
// directory is 0700 and each file 0600, written whole and renamed into
// place. Each file is an oauth.FileStore: the server's token (with its
// refresh token), the client's registration at the authorization server,
// how mcp login logged in (loginKey), and, for --client-id, the issuer
// those credentials were first used with (oauth pins pre-registered
// credentials to it), so that every later command for that URL refreshes
// or obtains tokens the same way through one oauth.Client, writes them
// back to the same file, and never gives the credentials to another
// authorization server the MCP server names later.

// loginKey is the entry of a server's file that records the login.
const loginKey = "mcp login"

// loginState is how mcp login logged in to a server.
type loginState struct {
	// URL is the MCP server's URL, as given to mcp login.
	URL string `json:"url"`
	// ClientID and ClientSecret are the pre-registered client given with
	// --client-id and --client-secret; with a secret, tokens come from the
	// client credentials grant, without a person.
	ClientID     string `json:"client_id,omitempty"`
	ClientSecret string `json:"client_secret,omitempty"`
	// DPoPKey is the private key (a JWK) that mcp login --dpop made to
	// bind the tokens to (RFC 9449). It is kept with them because a bound
	// token, and its refresh token, are worth nothing without it.
	DPoPKey *jose.JSONWebKey `json:"dpop_key,omitempty"`
}

// newDPoPKey gives st a fresh P-256 key for DPoP.
func (s *loginState) newDPoPKey() error {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	s.DPoPKey = &jose.JSONWebKey{Key: k, Algorithm: "ES256"}
	return nil
}

// config is the oauth configuration of the login, with store.
func (s *loginState) config(store oauth.TokenStore) (oauth.Config, error) {
	cfg := oauth.Config{Store: store, ClientName: "gomcp mcp command", ClientID: s.ClientID, ClientSecret: s.ClientSecret}
	if s.ClientID != "" && s.ClientSecret != "" {
		cfg.Grant = oauth.ClientCredentials
	}
	if s.DPoPKey != nil {
		k, ok := s.DPoPKey.Key.(crypto.Signer)
		if !ok || s.DPoPKey.IsPublic() {
			return cfg, errors.New("the stored DPoP key is not a private key")
		}
		cfg.DPoP, cfg.DPoPKey = true, k
	}
	return cfg, nil
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

// DeleteToken forgets what mcp login stored for the server at url; it
// reports whether there was anything.
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

// notLoggedIn is the error of a command whose server wants a login that
// only mcp login can do (a person in a browser).
type notLoggedIn struct{ url string }

func (e notLoggedIn) Error() string {
	return "the server wants a login: run mcp login " + e.url
}

// noLogin is the user agent of commands other than mcp login: they
// refresh tokens but do not open browsers.
type noLogin struct{ url string }

func (n noLogin) RedirectURL(context.Context) (string, error) { return "", notLoggedIn(n) }

func (n noLogin) Authorize(context.Context, string) (url.Values, error) {
	return nil, notLoggedIn(n)
}

// storedAuthorizer returns the authorizer of the server at url when mcp
// login has stored something for it, else nil.
func storedAuthorizer(dir, url string) (mcphttp.Authorizer, error) {
	if dir == "" {
		return nil, nil
	}
	path := tokenPath(dir, url)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	store := oauth.NewFileStore(path)
	b, err := store.Load(context.Background(), loginKey)
	if err != nil {
		return nil, err
	}
	var st loginState
	if b != nil {
		if err := json.Unmarshal(b, &st); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
	}
	cfg, err := st.config(store)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	cfg.UserAgent = noLogin{url}
	return oauth.New(url, &cfg)
}

// runLogin is mcp login [FLAGS] URL and mcp logout URL.
func runLogin(ctx context.Context, name string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var st loginState
	noBrowser := fs.Bool("no-browser", false, "")
	timeout := fs.Duration("timeout", 5*time.Minute, "")
	var dpop bool
	if name == "login" {
		fs.BoolVar(&dpop, "dpop", false, "")
		fs.StringVar(&st.ClientID, "client-id", "", "")
		fs.StringVar(&st.ClientSecret, "client-secret", "", "")
	}
	// Flags may come before or after the URL.
	var rest []string
	for {
		if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
			return help(stdout, stderr, []string{name})
		} else if err != nil {
			fmt.Fprintf(stderr, "mcp: %v (see mcp help %s)\n", err, name)
			return ExitUsage
		}
		if fs.NArg() == 0 {
			break
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(rest) != 1 || !strings.HasPrefix(rest[0], "http://") && !strings.HasPrefix(rest[0], "https://") ||
		st.ClientSecret != "" && st.ClientID == "" {
		fmt.Fprintf(stderr, "mcp: usage: mcp %s URL (see mcp help %s)\n", name, name)
		return ExitUsage
	}
	st.URL = rest[0]
	dir := TokenDir()
	if name == "logout" {
		had, err := DeleteToken(dir, st.URL)
		if err != nil {
			return report(ctx, stderr, err)
		}
		if had {
			fmt.Fprintf(stdout, "logged out of %s\n", st.URL)
		} else {
			fmt.Fprintf(stdout, "no token stored for %s\n", st.URL)
		}
		return ExitOK
	}
	if dpop {
		if err := st.newDPoPKey(); err != nil {
			return report(ctx, stderr, err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	logged, err := login(ctx, dir, &st, *noBrowser, stderr)
	if err != nil {
		_, _ = DeleteToken(dir, st.URL)
		return report(ctx, stderr, err)
	}
	if !logged {
		_, _ = DeleteToken(dir, st.URL)
		fmt.Fprintf(stdout, "%s did not ask for authorization: nothing stored\n", st.URL)
		return ExitOK
	}
	fmt.Fprintf(stdout, "logged in to %s\n", st.URL)
	return ExitOK
}

// login runs the OAuth flow for st.URL by opening a session, which the
// server refuses until the oauth client has a token, and stores what it
// obtains. It reports whether the server asked for authorization.
func login(ctx context.Context, dir string, st *loginState, noBrowser bool, stderr io.Writer) (bool, error) {
	if dir == "" {
		return false, errors.New("no configuration directory to keep the token in")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, err
	}
	// A login starts afresh: a new token, and a new registration.
	if _, err := DeleteToken(dir, st.URL); err != nil {
		return false, err
	}
	store := oauth.NewFileStore(tokenPath(dir, st.URL))
	b, _ := json.Marshal(st)
	if err := store.Save(ctx, loginKey, b); err != nil {
		return false, err
	}
	ua := &oauth.LoopbackUserAgent{Open: func(u string) error {
		if noBrowser {
			fmt.Fprintf(stderr, "To log in, open this URL in a browser on this machine:\n\n  %s\n\n", u)
			return nil
		}
		if err := oauth.OpenBrowser(u); err != nil {
			fmt.Fprintf(stderr, "Could not open a browser (%v). To log in, open this URL in a browser on this machine:\n\n  %s\n\n", err, u)
		} else {
			fmt.Fprintf(stderr, "Opened the browser to log in. If it did not show, open:\n\n  %s\n\n", u)
		}
		return nil
	}}
	defer ua.Close()
	cfg, err := st.config(store)
	if err != nil {
		return false, err
	}
	cfg.UserAgent = ua
	oc, err := oauth.New(st.URL, &cfg)
	if err != nil {
		return false, usageError{err}
	}
	stream := mcphttp.NewClientStream(st.URL, &mcphttp.ClientOptions{Authorizer: oc})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "mcp", Version: "login"}, nil).Connect(ctx, stream)
	if err != nil {
		return false, err
	}
	if err := cs.Close(); err != nil {
		return false, err
	}
	return oc.Token(ctx) != nil, nil
}
