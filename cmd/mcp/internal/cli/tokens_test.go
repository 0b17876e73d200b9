package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomcp/sdk/auth"
	"github.com/gomcp/sdk/auth/authtest"
	"github.com/gomcp/sdk/conformance/everything"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/oauth"
)

// urlWriter is a stderr that hands over the first URL written to it.
type urlWriter struct {
	lockedBuffer
	urls chan string
}

var urlRE = regexp.MustCompile(`https?://\S+`)

func (w *urlWriter) Write(p []byte) (int, error) {
	n, err := w.lockedBuffer.Write(p)
	if u := urlRE.FindString(w.String()); u != "" {
		select {
		case w.urls <- u:
		default:
		}
	}
	return n, err
}

// protectedEverything serves the everything server behind the auth
// middleware, trusting as, and records the Authorization headers.
func protectedEverything(t *testing.T, as *authtest.Server, opts ...func(*auth.Options)) (url string, lastAuth func() string) {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	var rs *auth.ResourceServer
	url = serveHTTP(t, mustEverything(t), func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen = append(seen, r.Header.Get("Authorization"))
			mu.Unlock()
			rs.Wrap(h).ServeHTTP(w, r)
		})
	})
	v, err := auth.NewJWTVerifier(auth.JWTOptions{Issuer: as.Issuer, Audience: url, JWKSURL: as.JWKSURL(), Leeway: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	o := auth.Options{Resource: url, AuthorizationServers: []string{as.Issuer}, Verifier: v,
		Scopes: []string{"mcp"}, ScopesSupported: []string{"mcp"}}
	for _, f := range opts {
		f(&o)
	}
	rs, err = auth.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return url, func() string {
		mu.Lock()
		defer mu.Unlock()
		if len(seen) == 0 {
			return ""
		}
		return seen[len(seen)-1]
	}
}

// loginInBrowser runs mcp with args, a login with --no-browser, and plays
// the browser: it fetches the URL printed, which the authorization server
// (authtest approves at once) redirects to the loopback listener.
func loginInBrowser(t *testing.T, ctx context.Context, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	errw := &urlWriter{urls: make(chan string, 1)}
	var out bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- Run(ctx, args, strings.NewReader(""), &out, errw) }()
	browser := &http.Client{Transport: &http.Transport{}}
	defer browser.CloseIdleConnections()
	select {
	case u := <-errw.urls:
		resp, err := browser.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("the loopback callback answered %s", resp.Status)
		}
		code = <-done
	case code = <-done:
	}
	return code, out.String(), errw.String()
}

// TestLogin logs in to a protected everything server through the loopback
// flow (the test plays the browser) and with client credentials, then
// uses, refreshes and forgets the stored tokens.
func TestLogin(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir()) // for the platforms that ignore XDG
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	as, err := authtest.Start(&authtest.Options{TokenTTL: time.Second, Scopes: []string{"mcp"},
		Clients: []authtest.Client{{ID: "robot", Secret: "s3cret"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer as.Close()
	url, lastAuth := protectedEverything(t, as)

	if code, _, errs := mcpRun(t, ctx, "tools", url); code != ExitAuth {
		t.Fatalf("tools before login: exit %d, %s", code, errs)
	}

	// mcp login --no-browser prints the URL; the browser (here an
	// http.Client) follows it back to the loopback listener.
	if code, out, errs := loginInBrowser(t, ctx, "login", url, "--no-browser"); code != ExitOK || !strings.Contains(out, "logged in") {
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
	code, out, errs := mcpRun(t, ctx, "tools", url)
	if code != ExitOK || !strings.Contains(out, "test_error_handling") {
		t.Fatalf("tools after login: exit %d, %s %s", code, out, errs)
	}
	if got := lastAuth(); !strings.HasPrefix(got, "Bearer ") {
		t.Errorf("Authorization %q, want the stored token", got)
	}
	// The access token lives a second: the next command refreshes it.
	time.Sleep(1100 * time.Millisecond)
	if code, _, errs := mcpRun(t, ctx, "ping", url); code != ExitOK {
		t.Fatalf("ping after expiry: exit %d, %s", code, errs)
	}
	if reqs := as.TokenRequests(); !strings.HasPrefix(reqs[len(reqs)-1], "refresh_token") {
		t.Errorf("token requests %v, want a refresh", reqs)
	}
	if code, _, _ := mcpRun(t, ctx, "ping", "-H", "Authorization: Basic x", url); code != ExitAuth || lastAuth() != "Basic x" {
		t.Errorf("-H did not win over the stored token: exit %d, %q", code, lastAuth())
	}
	if code, out, _ := mcpRun(t, ctx, "logout", url); code != ExitOK || !strings.Contains(out, "logged out") {
		t.Errorf("logout: %d %q", code, out)
	}
	if _, err := os.Stat(tokenPath(dir, url)); !os.IsNotExist(err) {
		t.Errorf("the token file is still there: %v", err)
	}
	if code, out, _ := mcpRun(t, ctx, "logout", url); code != ExitOK || !strings.Contains(out, "no token") {
		t.Errorf("second logout: %d %q", code, out)
	}
	if code, _, _ := mcpRun(t, ctx, "ping", url); code != ExitAuth || lastAuth() != "" {
		t.Errorf("ping after logout: exit %d, Authorization %q", code, lastAuth())
	}

	// Client credentials: no browser, and later commands obtain a new
	// token the same way when it expires.
	if code, out, errs := mcpRun(t, ctx, "login", "--client-id", "robot", "--client-secret", "s3cret", url); code != ExitOK || !strings.Contains(out, "logged in") {
		t.Fatalf("login with client credentials: exit %d, %q %q", code, out, errs)
	}
	time.Sleep(1100 * time.Millisecond)
	n := len(as.TokenRequests())
	if code, _, errs := mcpRun(t, ctx, "ping", url); code != ExitOK {
		t.Fatalf("ping: exit %d, %s", code, errs)
	}
	// One grant, or more when the command outlives the one-second token
	// itself (a loaded machine): every one a client credentials grant.
	if reqs := as.TokenRequests(); len(reqs) == n || slices.ContainsFunc(reqs[n:], func(r string) bool { return !strings.HasPrefix(r, "client_credentials") }) {
		t.Errorf("token requests %v, want new client credentials grants only", reqs[n:])
	}
	if code, _, errs := mcpRun(t, ctx, "login", "--client-id", "robot", "--client-secret", "guess", url); code != ExitAuth && code != ExitProtocol ||
		!strings.Contains(errs, "invalid_client") {
		t.Errorf("login with a wrong secret: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(tokenPath(dir, url)); !os.IsNotExist(err) {
		t.Errorf("a failed login left a file: %v", err)
	}

	for _, args := range [][]string{{"login"}, {"logout", "notaurl"}, {"login", "@x"}, {"login", "--client-secret", "x", url}, {"login", url, url}, {"login", "--bogus", url}} {
		if code, _, _ := mcpRun(t, ctx, args...); code != ExitUsage {
			t.Errorf("%q: exit %d", args, code)
		}
	}
	if code, out, _ := mcpRun(t, ctx, "login", "-h"); code != ExitOK || !strings.Contains(out, "--client-secret") {
		t.Errorf("login -h: exit %d, %q", code, out)
	}
	// A corrupt file is an error, not a crash.
	if err := os.WriteFile(tokenPath(dir, url), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := mcpRun(t, ctx, "ping", url); code == ExitOK || !strings.Contains(errs, "token file") {
		t.Errorf("ping with a corrupt token file: exit %d, %s", code, errs)
	}
}

// TestNotLoggedIn: when the stored login cannot be refreshed, a command
// says to log in again rather than open a browser.
func TestNotLoggedIn(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	as, err := authtest.Start(&authtest.Options{Scopes: []string{"mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	defer as.Close()
	url, _ := protectedEverything(t, as)
	// A file with a login and nothing else: as if the refresh token had
	// been refused and forgotten.
	if err := os.MkdirAll(TokenDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tokenPath(TokenDir(), url), []byte(`{"mcp login":"eyJ1cmwiOiJ4In0="}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs := mcpRun(t, ctx, "tools", url)
	if code != ExitAuth || !strings.Contains(errs, "mcp login "+url) {
		t.Errorf("tools: exit %d, %s", code, errs)
	}
	if slices.ContainsFunc(as.TokenRequests(), func(s string) bool { return strings.HasPrefix(s, "authorization_code") }) {
		t.Error("a command logged in by itself")
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

// TestLoginEverythingServer logs in to the everything-server binary run
// with -auth-issuer, then lists and calls its tools with the stored token.
func TestLoginEverythingServer(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	as, err := authtest.Start(&authtest.Options{Clients: []authtest.Client{{ID: "robot", Secret: "s3cret"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer as.Close()
	cmd := exec.Command(everythingBin, "-http", "127.0.0.1:0", "-auth-issuer", as.Issuer, "-auth-scopes", "mcp")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if err != nil || !ok {
		t.Fatalf("everything-server said %q, %v", line, err)
	}
	if code, _, _ := mcpRun(t, ctx, "tools", url); code != ExitAuth {
		t.Fatalf("tools before login: exit %d", code)
	}
	if code, _, errs := mcpRun(t, ctx, "login", "--client-id", "robot", "--client-secret", "s3cret", url); code != ExitOK {
		t.Fatalf("login: exit %d, %s", code, errs)
	}
	if code, out, errs := mcpRun(t, ctx, "tools", url); code != ExitOK || !strings.Contains(out, "test_simple_text") {
		t.Fatalf("tools: exit %d, %s %s", code, out, errs)
	}
	if code, out, errs := mcpRun(t, ctx, "call", "test_simple_text", url); code != ExitOK || out == "" {
		t.Fatalf("call: exit %d, %s %s", code, out, errs)
	}
	if code, _, _ := mcpRun(t, ctx, "logout", url); code != ExitOK {
		t.Fatalf("logout: exit %d", code)
	}
	if code, _, _ := mcpRun(t, ctx, "ping", url); code != ExitAuth {
		t.Errorf("ping after logout: exit %d", code)
	}
}

// TestLoginPreRegistered logs in as a registered public client
// (--client-id), whose loopback redirect URI may take any port.
func TestLoginPreRegistered(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	as, err := authtest.Start(&authtest.Options{Scopes: []string{"mcp"},
		Clients: []authtest.Client{{ID: "cli", RedirectURIs: []string{"http://127.0.0.1/callback"}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer as.Close()
	url, _ := protectedEverything(t, as)
	if code, out, errs := loginInBrowser(t, ctx, "login", "--no-browser", "--client-id", "cli", url); code != ExitOK {
		t.Fatalf("login: exit %d, %q %q", code, out, errs)
	}
	if code, _, errs := mcpRun(t, ctx, "ping", url); code != ExitOK {
		t.Fatalf("ping: exit %d, %s", code, errs)
	}
}

// TestLoginDPoP: mcp login --dpop binds the tokens to a key it keeps in
// the token file (private, 0600), and later commands, each a new oauth
// client, present them with proofs from that key and refresh them with
// it; a file whose key is not private is an error, not a bearer fallback.
func TestLoginDPoP(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	as, err := authtest.Start(&authtest.Options{TokenTTL: time.Second, Scopes: []string{"mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	defer as.Close()
	url, lastAuth := protectedEverything(t, as, func(o *auth.Options) { o.DPoP = &auth.DPoPOptions{Required: true} })
	if code, out, errs := loginInBrowser(t, ctx, "login", "--no-browser", "--dpop", url); code != ExitOK {
		t.Fatalf("login: exit %d, %q %q", code, out, errs)
	}
	path := tokenPath(TokenDir(), url)
	store := oauth.NewFileStore(path)
	b, err := store.Load(ctx, loginKey)
	if err != nil {
		t.Fatal(err)
	}
	var st loginState
	if err := json.Unmarshal(b, &st); err != nil || st.DPoPKey == nil || st.DPoPKey.IsPublic() {
		t.Fatalf("stored login %s: %v", b, err)
	}
	if code, _, errs := mcpRun(t, ctx, "ping", url); code != ExitOK || !strings.HasPrefix(lastAuth(), "DPoP ") {
		t.Fatalf("ping: exit %d, Authorization %q, %s", code, lastAuth(), errs)
	}
	time.Sleep(1100 * time.Millisecond)
	n := len(as.TokenRequests())
	if code, _, errs := mcpRun(t, ctx, "ping", url); code != ExitOK || !strings.HasPrefix(lastAuth(), "DPoP ") {
		t.Fatalf("ping after expiry: exit %d, Authorization %q, %s", code, lastAuth(), errs)
	}
	// One refresh; a second only when the refreshed token (one second,
	// whole-second exp) ran out before its first use on a loaded machine.
	// Never a new login.
	if reqs := as.TokenRequests()[n:]; len(reqs) == 0 || len(reqs) > 2 ||
		slices.ContainsFunc(reqs, func(r string) bool { return !strings.HasPrefix(r, "refresh_token") }) {
		t.Errorf("token requests %v, want a refresh", reqs)
	}
	pub := st.DPoPKey.Public()
	st.DPoPKey = &pub
	b, _ = json.Marshal(&st)
	if err := store.Save(ctx, loginKey, b); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := mcpRun(t, ctx, "ping", url); code == ExitOK || !strings.Contains(errs, "DPoP key") {
		t.Errorf("ping with a public key stored: exit %d, %s", code, errs)
	}
}

// TestLoginCredentialsPinned: the client secret given to mcp login goes to
// the authorization server the login used and to no other. When the
// server later names another one, later commands fail rather than post
// the secret there.
func TestLoginCredentialsPinned(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	as1, err := authtest.Start(&authtest.Options{Scopes: []string{"mcp"}, Clients: []authtest.Client{{ID: "robot", Secret: "s3cret"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer as1.Close()
	as2, err := authtest.Start(&authtest.Options{Scopes: []string{"mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	defer as2.Close()
	var moved atomic.Bool
	var rs1, rs2 *auth.ResourceServer
	url := serveHTTP(t, mustEverything(t), func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rs := rs1
			if moved.Load() {
				rs = rs2
			}
			rs.Wrap(h).ServeHTTP(w, r)
		})
	})
	newRS := func(as *authtest.Server) *auth.ResourceServer {
		v, err := auth.NewJWTVerifier(auth.JWTOptions{Issuer: as.Issuer, Audience: url, JWKSURL: as.JWKSURL()})
		if err != nil {
			t.Fatal(err)
		}
		rs, err := auth.New(auth.Options{Resource: url, AuthorizationServers: []string{as.Issuer}, Verifier: v, Scopes: []string{"mcp"}, ScopesSupported: []string{"mcp"}})
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	rs1, rs2 = newRS(as1), newRS(as2)

	if code, _, errs := mcpRun(t, ctx, "login", "--client-id", "robot", "--client-secret", "s3cret", url); code != ExitOK {
		t.Fatalf("login: exit %d, %s", code, errs)
	}
	if code, _, errs := mcpRun(t, ctx, "ping", url); code != ExitOK {
		t.Fatalf("ping: exit %d, %s", code, errs)
	}
	moved.Store(true)
	if code, _, errs := mcpRun(t, ctx, "tools", url); code == ExitOK || !strings.Contains(errs, "pre-registered") {
		t.Errorf("tools after the move: exit %d, %s", code, errs)
	}
	if reqs := as2.TokenRequests(); len(reqs) != 0 {
		t.Errorf("the other authorization server got token requests %v", reqs)
	}
}
