package main

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gomcp/sdk/apps"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcptest"
	"github.com/gomcp/sdk/transport/mcphttp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestCounter drives the example at both lifecycles, as a host that
// renders views and as one that does not.
func TestCounter(t *testing.T) {
	for _, rev := range []string{mcp.Version20251125, mcp.Version20260728} {
		for _, ui := range []bool{true, false} {
			var count atomic.Int64
			s, err := newServer(&count)
			if err != nil {
				t.Fatal(err)
			}
			caps := &mcp.ClientCapabilities{}
			if ui {
				apps.DeclareClient(caps)
			}
			cs := mcptest.Connect(t, s, &mcptest.Options{ProtocolVersion: rev, Client: &mcp.ClientOptions{Capabilities: caps}})
			ctx := t.Context()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "counter", Arguments: json.RawMessage(`{"by":2}`)})
			if err != nil {
				t.Fatal(err)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			if !strings.HasPrefix(text, "The count is 2.") || strings.Contains(text, "view") != ui {
				t.Errorf("%s ui=%v: %q", rev, ui, text)
			}
			// The view's tool exists only for hosts that render the view.
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "increment"}); (err == nil) != ui {
				t.Errorf("%s ui=%v: increment: %v", rev, ui, err)
			}
			if want := map[bool]int64{true: 3, false: 2}[ui]; count.Load() != want {
				t.Errorf("%s ui=%v: the count is %d, want %d", rev, ui, count.Load(), want)
			}
			read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: ViewURI})
			if err != nil {
				t.Fatal(err)
			}
			page := read.Contents[0].(*mcp.TextResourceContents)
			if page.MIMEType != apps.MIMEType || !strings.Contains(page.Text, `"ui/initialize"`) {
				t.Errorf("the view: %s %.80q", page.MIMEType, page.Text)
			}
		}
	}
}

// TestBadIncrement refuses a step out of the schema's bounds.
func TestBadIncrement(t *testing.T) {
	var count atomic.Int64
	s, err := newServer(&count)
	if err != nil {
		t.Fatal(err)
	}
	cs := mcptest.Connect(t, s, nil)
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "counter", Arguments: json.RawMessage(`{"by":1000000}`)})
	if err != nil || !res.IsError || count.Load() != 0 {
		t.Errorf("by 1000000: %+v, %v, count %d", res, err, count.Load())
	}
}

// TestHTTP serves the example over Streamable HTTP on loopback, as -http
// does, and refuses other addresses.
func TestHTTP(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "192.0.2.1:80", "example.com:80", "no-port"} {
		if l, err := listen(addr); err == nil {
			l.Close()
			t.Errorf("listen(%q) succeeded", addr)
		}
	}
	var count atomic.Int64
	s, err := newServer(&count)
	if err != nil {
		t.Fatal(err)
	}
	l, err := listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- serveHTTP(ctx, s, l) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).
		Connect(t.Context(), mcphttp.NewClientStream("http://"+l.Addr().String()+"/mcp", nil))
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "counter", Arguments: json.RawMessage(`{"by":5}`)})
	if err != nil || res.IsError || count.Load() != 5 {
		t.Errorf("counter over HTTP: %+v, %v", res, err)
	}
	if err := cs.Close(); err != nil {
		t.Error(err)
	}
	cancel()
	if err := <-served; err != nil {
		t.Errorf("serveHTTP: %v", err)
	}
}
