package auth_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/auth"
	"github.com/gomcp/sdk/auth/authtest"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// TestProtectedMCPServer runs an MCP server behind the middleware: the
// verified token reaches the tool, sessions are bound to their caller
// with no option set, and the per-tool scope holds for both the stateful
// and the stateless revisions.
func TestProtectedMCPServer(t *testing.T) {
	as, err := authtest.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer as.Close()
	srv := mcp.NewServer(&mcp.Implementation{Name: "protected", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "whoami"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (string, error) {
		info := auth.TokenInfoFromContext(ctx)
		if info == nil {
			return "", errors.New("no token")
		}
		return info.Subject, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "wipe"}, func(context.Context, *mcp.CallToolRequest, struct{}) (string, error) {
		return "wiped", nil
	})
	h := mcphttp.NewHandler(srv, nil) // sessions are bound to the token's principal by default
	defer h.Close()
	var rs *auth.ResourceServer
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { rs.Wrap(h).ServeHTTP(w, r) }))
	defer ts.Close()
	resource := ts.URL + "/mcp"
	v, _ := auth.NewJWTVerifier(auth.JWTOptions{Issuer: as.Issuer, Audience: resource, JWKSURL: as.JWKSURL()})
	rs, err = auth.New(auth.Options{Resource: resource, AuthorizationServers: []string{as.Issuer}, Verifier: v,
		ToolScopes: map[string][]string{"wipe": {"admin"}}})
	if err != nil {
		t.Fatal(err)
	}
	token := func(sub string, scopes ...string) string {
		s, err := as.Mint(authtest.Token{Subject: sub, Audience: []string{resource}, Scopes: scopes})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	alice, bob := token("alice"), token("bob")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, version := range []string{mcp.LatestStatefulVersion, mcp.LatestVersion} {
		t.Run(version, func(t *testing.T) {
			stream := mcphttp.NewClientStream(resource, &mcphttp.ClientOptions{
				HTTPClient: ts.Client(), Header: http.Header{"Authorization": {"Bearer " + alice}}})
			c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: version})
			cs, err := c.Connect(ctx, stream)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami"})
			if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "alice" {
				t.Fatalf("whoami: %+v, %v", res, err)
			}
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wipe"}); err == nil || !strings.Contains(err.Error(), "403") {
				t.Errorf("wipe without the admin scope: %v, want a 403", err)
			}
			sid := stream.SessionID()
			if sid == "" {
				return // the stateless revision has no session to steal
			}
			req, _ := http.NewRequest("POST", resource, strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`))
			req.Header.Set("Authorization", "Bearer "+bob)
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", version)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("bob using alice's session: %d, want 403", resp.StatusCode)
			}
		})
	}
}
