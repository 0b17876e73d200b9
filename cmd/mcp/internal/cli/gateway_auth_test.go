package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/auth"
	"github.com/gomcp/sdk/auth/authtest"
	"github.com/gomcp/sdk/gateway"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// writeFile writes text to name in a new temporary directory.
func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// refreshes counts the refresh requests the authorization server got.
func refreshes(as *authtest.Server) int {
	n := 0
	for _, r := range as.TokenRequests() {
		if strings.HasPrefix(r, "refresh_token") {
			n++
		}
	}
	return n
}

// TestGatewayAccessAndLogin runs mcp gateway --http --auth-issuer --access
// in front of an upstream protected by the resource-server middleware,
// which the gateway reaches with the login mcp login stored: callers need a
// token of the test authorization server, two principals with different
// scopes see different upstreams and cannot call what they do not see,
// the gateway refreshes its upstream token when it expires, and a
// caller's token never reaches the upstream.
func TestGatewayAccessAndLogin(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir()) // for the platforms that ignore XDG
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	as, err := authtest.Start(&authtest.Options{TokenTTL: time.Second, Scopes: []string{"mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	defer as.Close()
	upURL, lastAuth := protectedEverything(t, as)
	if code, out, errs := loginInBrowser(t, ctx, "login", upURL, "--no-browser"); code != ExitOK {
		t.Fatalf("login: exit %d, %q %q", code, out, errs)
	}

	file := writeGatewayConfig(t, map[string]any{"ev": map[string]any{"url": upURL, "auth": "oauth"}})
	alice := strconv.Quote(as.Issuer) + " sub " + strconv.Quote("alice")
	rules, err := json.Marshal(map[string]any{"access": []map[string]any{
		{"upstream": "ev", "scopes": []string{"ev:use"}},
		{"upstream": "prog", "principals": []string{alice}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	url := startGatewayHTTP(t, file, "--access", writeFile(t, "access.json", string(rules)), "--auth-issuer", as.Issuer)

	// Without a token: 401, with the challenge naming the metadata.
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "resource_metadata=") {
		t.Errorf("no token: %s, WWW-Authenticate %q", resp.Status, resp.Header.Get("WWW-Authenticate"))
	}
	if code, body := getProbe(t, url, "/.well-known/oauth-protected-resource/mcp"); code != http.StatusOK ||
		!strings.Contains(body, strconv.Quote(url)) || !strings.Contains(body, as.Issuer) {
		t.Errorf("protected-resource metadata: %d %s", code, body)
	}

	connect := func(who string, scopes ...string) *mcp.ClientSession {
		tok, err := as.Mint(authtest.Token{Subject: who, Audience: []string{url}, Scopes: scopes, Expiry: time.Now().Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: who, Version: "1"}, nil).Connect(ctx,
			mcphttp.NewClientStream(url, &mcphttp.ClientOptions{Header: http.Header{"Authorization": {"Bearer " + tok}}}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	prefixes := func(cs *mcp.ClientSession) []string {
		tools, err := collect(cs.Tools(ctx, nil))
		if err != nil {
			t.Fatal(err)
		}
		var ps []string
		for _, tl := range tools {
			p, _, _ := strings.Cut(tl.Name, "_")
			if !slices.Contains(ps, p) {
				ps = append(ps, p)
			}
		}
		slices.Sort(ps)
		return ps
	}
	callText := func(cs *mcp.ClientSession, tool, args string) (string, error) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
		if err != nil {
			return "", err
		}
		if res.IsError || len(res.Content) == 0 {
			return "", fmt.Errorf("%s: %+v", tool, res)
		}
		tc, _ := res.Content[0].(*mcp.TextContent)
		if tc == nil {
			return "", fmt.Errorf("%s: %+v", tool, res.Content[0])
		}
		return tc.Text, nil
	}
	aliceCS, bobCS := connect("alice"), connect("bob", "ev:use")
	if got := prefixes(aliceCS); !slices.Equal(got, []string{"prog"}) {
		t.Errorf("alice sees the tools of %v, want prog's only", got)
	}
	if got := prefixes(bobCS); !slices.Equal(got, []string{"ev"}) {
		t.Errorf("bob sees the tools of %v, want ev's only", got)
	}
	if _, err := callText(aliceCS, "ev_test_simple_text", `{}`); err == nil {
		t.Error("alice called ev_test_simple_text, which she does not see")
	}
	if _, err := callText(bobCS, "prog_tick", `{"delay_ms": 1}`); err == nil {
		t.Error("bob called prog_tick, which he does not see")
	}
	if got, err := callText(aliceCS, "prog_tick", `{"delay_ms": 1}`); err != nil || got != "done" {
		t.Errorf("alice calling prog_tick: %q %v", got, err)
	}
	if _, err := callText(bobCS, "ev_test_simple_text", `{}`); err != nil {
		t.Fatalf("bob calling ev_test_simple_text with the gateway's login: %v", err)
	}
	if a := lastAuth(); !strings.HasPrefix(a, "Bearer ") {
		t.Errorf("the upstream got Authorization %q, want the stored login's token", a)
	}

	// The upstream token lives a second: the gateway refreshes it.
	before := refreshes(as)
	time.Sleep(1100 * time.Millisecond)
	if _, err := callText(bobCS, "ev_test_simple_text", `{}`); err != nil {
		t.Fatalf("ev_test_simple_text once the upstream token expired: %v", err)
	}
	if refreshes(as) == before {
		t.Errorf("no refresh once the upstream token expired: %q", as.TokenRequests())
	}
	if code, body := getProbe(t, url, "/readyz"); code != http.StatusOK {
		t.Errorf("/readyz: %d %s", code, body)
	}
}

// TestGatewayAccessRefuses: a bad access file, a rule naming an upstream
// that is not configured, an OAuth upstream without a stored login and
// the --auth flags without what they go with are usage errors, before
// anything is served.
func TestGatewayAccessRefuses(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	good := writeGatewayConfig(t, nil)
	oauthCfg := writeFile(t, "oauth.json", `{"mcpServers": {"web": {"url": "http://127.0.0.1:1/mcp", "auth": "oauth"}}}`)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"gateway", "--access", writeFile(t, "a.json", "{\"access\": [\n{\"upstream\": \"ev\", \"scope\": [\"x\"]}]}"), good},
			[]string{"a.json", "rule 1 (line 2)", `unknown field "scope"`}},
		{[]string{"gateway", "--access", writeFile(t, "b.json", "{\"access\": [\n\n{\"upstream\": \"nope\"}]}"), good},
			[]string{`rule at line 3 names upstream "nope"`}},
		{[]string{"gateway", "--access", filepath.Join(t.TempDir(), "missing.json"), good}, []string{"missing.json"}},
		{[]string{"gateway", "--access", writeFile(t, "huge.json", `{"access": []}`+strings.Repeat(" ", gateway.MaxAccessSize)), good},
			[]string{"huge.json: larger than 1048576 bytes"}},
		{[]string{"gateway", oauthCfg}, []string{`"web"`, "run mcp login http://127.0.0.1:1/mcp"}},
		{[]string{"gateway", "--auth-issuer", "http://127.0.0.1:1", good}, []string{"--auth-issuer goes with --http"}},
		{[]string{"gateway", "--http", "127.0.0.1:0", "--auth-scopes", "a", good}, []string{"go with --auth-issuer"}},
		{[]string{"gateway", "--http", "0.0.0.0:0", "--auth-issuer", "http://127.0.0.1:1", good}, []string{"--allow-remote"}},
	} {
		code, _, errs := mcpRunInput(t, context.Background(), "", c.args...)
		if code != ExitUsage {
			t.Errorf("mcp %q: exit %d, want %d; stderr %q", c.args, code, ExitUsage, errs)
		}
		for _, w := range c.want {
			if !strings.Contains(errs, w) {
				t.Errorf("mcp %q: stderr %q lacks %q", c.args, errs, w)
			}
		}
	}
}

// authtest.Clock is the time of an authorization server and of the resource
// TestGatewayLoginAgain: when the gateway's login to an upstream can no
// longer be refreshed, the upstream is down and /readyz says to run mcp
// login; once mcp login has run again, the upstream comes back by itself.
func TestGatewayLoginAgain(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	clk := &authtest.Clock{}
	as, err := authtest.Start(&authtest.Options{Now: clk.Now, Scopes: []string{"mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	defer as.Close()
	upURL, _ := protectedEverything(t, as, func(o *auth.Options) {
		v, err := auth.NewJWTVerifier(auth.JWTOptions{Issuer: as.Issuer, Audience: o.Resource, JWKSURL: as.JWKSURL(),
			Now: clk.Now, Leeway: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		o.Verifier = v
	})
	if code, out, errs := loginInBrowser(t, ctx, "login", upURL, "--no-browser"); code != ExitOK {
		t.Fatalf("login: exit %d, %q %q", code, out, errs)
	}
	url := startGatewayHTTP(t, writeFile(t, "servers.json", `{"mcpServers": {"ev": {"url": "`+upURL+`", "auth": "oauth"}}}`))
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, mcphttp.NewClientStream(url, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	simple := func() error {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_simple_text", Arguments: json.RawMessage(`{}`)})
		if err == nil && res.IsError {
			err = fmt.Errorf("%+v", res.Content)
		}
		return err
	}
	if err := simple(); err != nil {
		t.Fatalf("with the stored login: %v", err)
	}
	ready := func() (int, string) {
		code, body := getProbe(t, url, "/readyz")
		var v struct {
			Upstreams []struct{ Error string }
		}
		if err := json.Unmarshal([]byte(body), &v); err != nil || len(v.Upstreams) != 1 {
			t.Fatalf("/readyz %q: %v", body, err)
		}
		return code, v.Upstreams[0].Error
	}

	clk.Advance(48 * time.Hour) // the token and its refresh token expire
	if err := simple(); err == nil {
		t.Fatal("a call succeeded with an expired login")
	}
	for code, msg := ready(); code != http.StatusServiceUnavailable || !strings.Contains(msg, "run mcp login "+upURL); code, msg = ready() {
		if ctx.Err() != nil {
			t.Fatalf("/readyz: %d %q, want 503 saying to run mcp login", code, msg)
		}
		time.Sleep(20 * time.Millisecond)
	}

	if code, out, errs := loginInBrowser(t, ctx, "login", upURL, "--no-browser"); code != ExitOK {
		t.Fatalf("login again: exit %d, %q %q", code, out, errs)
	}
	for code, msg := ready(); code != http.StatusOK; code, msg = ready() {
		if ctx.Err() != nil {
			t.Fatalf("/readyz after logging in again: %d %q", code, msg)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := simple(); err != nil {
		t.Errorf("after logging in again: %v", err)
	}
}
