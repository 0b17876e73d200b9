package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gomcp/sdk/conformance/everything"
	"github.com/gomcp/sdk/mcp"
)

func TestTokenStore(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir()) // for the platforms that ignore XDG
	ctx := context.Background()

	// The server records the Authorization header it gets.
	var mu sync.Mutex
	var auth []string
	url := serveHTTP(t, mustEverything(t), func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			auth = append(auth, r.Header.Get("Authorization"))
			mu.Unlock()
			h.ServeHTTP(w, r)
		})
	})
	lastAuth := func() string {
		mu.Lock()
		defer mu.Unlock()
		return auth[len(auth)-1]
	}

	if code, _, errs := mcpRun(t, ctx, "login", url); code != ExitUsage || !strings.Contains(errs, "not available") {
		t.Errorf("login without the oauth hook: exit %d, %q", code, errs)
	}
	Login = func(ctx context.Context, u string) (json.RawMessage, error) {
		return json.RawMessage(`{"access_token":"t0k","token_type":"bearer"}`), nil
	}
	defer func() { Login = nil }()
	if code, out, errs := mcpRun(t, ctx, "login", url); code != ExitOK || !strings.Contains(out, "logged in") {
		t.Fatalf("login: exit %d, %q %q", code, out, errs)
	}
	dir := TokenDir()
	for path, want := range map[string]os.FileMode{dir: 0o700, tokenPath(dir, url): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", filepath.Base(path), fi.Mode().Perm(), want)
		}
	}
	if code, _, errs := mcpRun(t, ctx, "ping", url); code != ExitOK {
		t.Fatalf("ping: %d %s", code, errs)
	}
	if got := lastAuth(); got != "Bearer t0k" {
		t.Errorf("Authorization %q, want the stored token", got)
	}
	if code, _, _ := mcpRun(t, ctx, "ping", "-H", "Authorization: Basic x", url); code != ExitOK || lastAuth() != "Basic x" {
		t.Errorf("-H did not win over the stored token: %q", lastAuth())
	}
	if code, out, _ := mcpRun(t, ctx, "logout", url); code != ExitOK || !strings.Contains(out, "logged out") {
		t.Errorf("logout: %d %q", code, out)
	}
	if code, out, _ := mcpRun(t, ctx, "logout", url); code != ExitOK || !strings.Contains(out, "no token") {
		t.Errorf("second logout: %d %q", code, out)
	}
	mcpRun(t, ctx, "ping", url)
	if got := lastAuth(); got != "" {
		t.Errorf("Authorization %q after logout", got)
	}
	for _, args := range [][]string{{"login"}, {"logout", "notaurl"}, {"login", "@x"}} {
		if code, _, _ := mcpRun(t, ctx, args...); code != ExitUsage {
			t.Errorf("%q: exit %d", args, code)
		}
	}
	// A corrupt file is an error, not a crash.
	if err := SaveToken(dir, url, json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(tokenPath(dir, url), []byte("{"), 0o600)
	if _, err := LoadToken(dir, url); err == nil {
		t.Error("a corrupt token file was read")
	}
}

func mustEverything(t *testing.T) *mcp.Server {
	t.Helper()
	s, err := everything.NewServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
