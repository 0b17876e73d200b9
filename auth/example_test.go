package auth_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/gomcp/sdk/auth"
	"github.com/gomcp/sdk/auth/authtest"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// An MCP server behind the resource-server middleware, trusting the test
// authorization server: a request without a token is refused with the
// challenge that starts the client's OAuth flow, one with a token the
// authorization server issued for this server gets through.
func ExampleResourceServer_Wrap() {
	as, _ := authtest.Start(nil)
	defer as.Close()

	s := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "1.0.0"}, nil)
	h := mcphttp.NewHandler(s, nil) // behind rs.Wrap, sessions are bound to their caller
	defer h.Close()
	var protected http.Handler
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { protected.ServeHTTP(w, r) }))
	defer ts.Close()
	resource := ts.URL + "/mcp"

	v, err := auth.NewJWTVerifier(auth.JWTOptions{Issuer: as.Issuer, Audience: resource, JWKSURL: as.JWKSURL()})
	if err != nil {
		panic(err)
	}
	rs, err := auth.New(auth.Options{
		Resource:             resource,
		AuthorizationServers: []string{as.Issuer},
		Verifier:             v,
		Scopes:               []string{"notes"},
		ToolScopes:           map[string][]string{"delete_note": {"notes:admin"}},
	})
	if err != nil {
		panic(err)
	}
	protected = rs.Wrap(h)

	post := func(token string) *http.Response {
		req, _ := http.NewRequestWithContext(context.Background(), "POST", resource, strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
		return resp
	}
	resp := post("")
	fmt.Println(resp.StatusCode, strings.Replace(resp.Header.Get("WWW-Authenticate"), ts.URL, "http://HOST", 1))

	token, _ := as.Mint(authtest.Token{Subject: "alice", Audience: []string{resource}, Scopes: []string{"notes"}})
	fmt.Println(post(token).StatusCode)
	// Output:
	// 401 Bearer resource_metadata="http://HOST/.well-known/oauth-protected-resource/mcp", scope="notes"
	// 200
}
