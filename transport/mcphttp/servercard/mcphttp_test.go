package servercard_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport/mcphttp"
	"github.com/gomcp/sdk/transport/mcphttp/servercard"
)

// The card served through mcphttp's option names the endpoint it sits
// beside, and a client that starts from the card reaches that server.
func TestMCPHTTPServesCard(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "io.github.gomcp/demo", Version: "1.0.0", Description: "Demo."}, nil)
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	defer ts.Close()
	card, err := servercard.Handler(srv, servercard.Options{URL: ts.URL + "/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	h := mcphttp.NewHandler(srv, &mcphttp.HandlerOptions{ServerCard: card})
	defer h.Close()
	mux.Handle("/mcp", h)
	mux.Handle("/mcp"+servercard.Suffix, h)

	// A browser page of another origin may read it.
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/mcp/server-card", nil)
	req.Header.Set("Origin", "https://elsewhere.example")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("status %d, headers %v", resp.StatusCode, resp.Header)
	}

	ctx := context.Background()
	doc, err := servercard.Fetch(ctx, nil, ts.URL+"/mcp/server-card")
	if err != nil {
		t.Fatal(err)
	}
	ep, err := doc.Card.Endpoint()
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, mcphttp.NewClientStream(ep.URL, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ServerInfo; got.Name != doc.Card.Name || got.Version != doc.Card.Version {
		t.Errorf("serverInfo %+v, card %s %s", got, doc.Card.Name, doc.Card.Version)
	}
}
