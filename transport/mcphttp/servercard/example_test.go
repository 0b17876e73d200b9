package servercard_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport/mcphttp"
	"github.com/gomcp/sdk/transport/mcphttp/servercard"
)

// A server publishes its card beside its endpoint; a client reads the
// card, then connects to the endpoint it names.
func Example() {
	s := mcp.NewServer(&mcp.Implementation{Name: "io.github.owner/weather", Version: "1.0.0", Description: "Forecasts."}, nil)
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	defer ts.Close()
	card, err := servercard.Handler(s, servercard.Options{URL: ts.URL + "/mcp"})
	if err != nil {
		log.Fatal(err)
	}
	h := mcphttp.NewHandler(s, &mcphttp.HandlerOptions{ServerCard: card})
	defer h.Close()
	mux.Handle("/mcp", h)
	mux.Handle("/mcp"+servercard.Suffix, h)

	ctx := context.Background()
	doc, err := servercard.Fetch(ctx, nil, ts.URL+"/mcp/server-card")
	if err != nil {
		log.Fatal(err)
	}
	ep, err := doc.Card.Endpoint()
	if err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, nil).Connect(ctx, mcphttp.NewClientStream(ep.URL, nil))
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	fmt.Println(doc.Card.Name, doc.Card.Version, ep.Type)
	fmt.Println(cs.InitializeResult().ServerInfo.Name)
	// Output:
	// io.github.owner/weather 1.0.0 streamable-http
	// io.github.owner/weather
}
