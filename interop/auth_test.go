//go:build interop

package interop

import (
	"context"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gomcp/sdk/auth/authtest"
)

// TestTypeScriptClientOAuth runs ts/auth_client.mjs, the TypeScript SDK
// client's OAuth support, against the everything-server protected by
// package auth (-auth-issuer) and the authtest authorization server:
// authorization code with PKCE and dynamic registration, step-up on 403
// insufficient_scope, and client credentials.
func TestTypeScriptClientOAuth(t *testing.T) {
	env := requireEnv(t, "NODE22", "MCP_TS_SDK_DIR")
	as, err := authtest.Start(&authtest.Options{
		Scopes:  []string{"mcp:read", "mcp:admin"},
		Clients: []authtest.Client{{ID: "svc", Secret: "svc-secret"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer as.Close()
	server := buildEverythingServer(t)
	const tool = "test_simple_text"
	cmd := exec.Command(server, "-http", "127.0.0.1:0", "-auth-issuer", as.Issuer,
		"-auth-scopes", "mcp:read", "-auth-tool-scopes", tool+"=mcp:admin")
	sp, failure := startServerProcess(t, cmd, syscall.SIGTERM, func(stdout, _ string) (string, bool) {
		line, _, complete := strings.Cut(stdout, "\n")
		url, ok := strings.CutPrefix(line, "listening on ")
		return url, complete && ok
	})
	if sp == nil {
		t.Fatal(failure)
	}

	// Without a token: 401 naming the metadata and the scope.
	resp, err := http.Post(sp.url, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	want := `Bearer resource_metadata="` + strings.TrimSuffix(sp.url, "/mcp") + `/.well-known/oauth-protected-resource/mcp", scope="mcp:read"`
	if got := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != 401 || got != want {
		t.Errorf("an unauthenticated POST: %d %q, want 401 %q", resp.StatusCode, got, want)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	node := exec.CommandContext(ctx, env["NODE22"], "ts/auth_client.mjs", sp.url, as.Issuer, "svc", "svc-secret", tool)
	node.WaitDelay = 5 * time.Second
	out, err := node.CombinedOutput()
	t.Logf("TypeScript SDK OAuth client:\n%s\ntoken requests: %v", out, as.TokenRequests())
	if err != nil || !strings.Contains(string(out), "checks ok") {
		t.Fatalf("TypeScript SDK OAuth client against the protected everything-server: %v", err)
	}
	grants := strings.Join(as.TokenRequests(), ",")
	if grants != "authorization_code(),authorization_code(),client_credentials(mcp:read mcp:admin)" {
		t.Errorf("token requests %s, want two codes (first authorization, step-up) and one client credentials grant", grants)
	}
	if err := sp.shutdown(); err != nil {
		t.Errorf("everything-server after SIGTERM: %v", err)
	}
	if s := sp.stderr.String(); s != "" {
		t.Errorf("everything-server wrote to stderr:\n%s", s)
	}
}
