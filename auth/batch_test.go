package auth_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/gomcp/sdk/auth"
	"github.com/gomcp/sdk/auth/authtest"
	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// TestBatchBeyondDecoderBound checks that a batch too large for the
// jsonrpc decoder's bound (which the middleware cannot read the methods
// of) is refused by the middleware, not let through on Scopes alone to a
// Handler whose MaxBatch would take it: its tools/call of a tool needing a
// scope must not run.
func TestBatchBeyondDecoderBound(t *testing.T) {
	as, err := authtest.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer as.Close()
	srv := mcp.NewServer(&mcp.Implementation{Name: "protected", Version: "1"}, nil)
	wiped := make(chan struct{}, 1)
	mcp.AddTool(srv, &mcp.Tool{Name: "wipe"}, func(context.Context, *mcp.CallToolRequest, struct{}) (string, error) {
		wiped <- struct{}{}
		return "wiped", nil
	})
	h := mcphttp.NewHandler(srv, &mcphttp.HandlerOptions{MaxBatch: 4 * jsonrpc.DefaultMaxBatch, JSONResponse: true})
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
	token, err := as.Mint(authtest.Token{Subject: "alice", Audience: []string{resource}})
	if err != nil {
		t.Fatal(err)
	}
	post := func(sid, body string) (int, string, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", resource, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", mcp.Version20250326)
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(b)
	}
	_, sid, body := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	if sid == "" {
		t.Fatalf("initialize: %s", body)
	}
	post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	var b strings.Builder
	b.WriteString(`[{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"wipe"}}`)
	for i := range jsonrpc.DefaultMaxBatch {
		b.WriteString(`,{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"ping"}`)
	}
	b.WriteString("]")
	status, _, body := post(sid, b.String())
	select {
	case <-wiped:
		t.Fatalf("a batch beyond the decoder's bound ran a tool without its scope (%d)", status)
	default:
	}
	if status != http.StatusBadRequest {
		t.Errorf("a batch beyond the decoder's bound: %d %.200s, want 400", status, body)
	}
}
