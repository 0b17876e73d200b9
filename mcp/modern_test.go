package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

type nameIn struct{}

// modernServer has a tool that asks for input in two rounds, a prompt that
// asks once, and a tool that logs.
func modernServer(t *testing.T) *mcp.Server {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "modern", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "two_rounds"}, func(ctx context.Context, req *mcp.CallToolRequest, _ nameIn) (string, error) {
		a, err := req.Input(ctx, map[string]*mcp.InputRequest{"name": {Elicit: &mcp.ElicitParams{Message: "name?"}}})
		if err != nil {
			return "", err
		}
		b, err := req.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 5,
			Messages: []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{mcp.NewTextContent("hi")}}}})
		if err != nil {
			return "", err
		}
		return a["name"].Elicit.Content["name"].(string) + "/" + b.Model, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "logs"}, func(ctx context.Context, req *mcp.CallToolRequest, _ nameIn) (string, error) {
		_ = req.Log(ctx, mcp.LevelDebug, "t", "debug line")
		_ = req.Log(ctx, mcp.LevelWarning, "t", "warning line")
		return "logged", nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "ask"}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		roots, err := req.ListRoots(ctx)
		if err != nil {
			return nil, err
		}
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent(roots.Roots[0].URI)}}}, nil
	})
	return s
}

func TestModernClientAgainstOurServer(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var logs []string
	var elicited int
	c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			elicited++
			mu.Unlock()
			return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: map[string]any{"name": "Ada"}}, nil
		},
		CreateMessageHandler: func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m1", Content: []mcp.Content{mcp.NewTextContent("ok")}}, nil
		},
		Roots: []*mcp.Root{{URI: "file:///work", Name: "work"}},
		LoggingMessageHandler: func(ctx context.Context, cs *mcp.ClientSession, p *mcp.LoggingMessageNotificationParams) {
			mu.Lock()
			logs = append(logs, p.Level.String())
			mu.Unlock()
		},
	})
	a, b := transport.Pipe()
	ss := modernServer(t).Connect(b, nil)
	defer ss.Wait()
	cs, err := c.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if !cs.Stateless() || cs.ProtocolVersion() != mcp.Version20260728 {
		t.Fatalf("era = stateless %v, version %q; want the 2026-07-28 lifecycle", cs.Stateless(), cs.ProtocolVersion())
	}
	if got := cs.InitializeResult().ServerInfo.Name; got != "modern" {
		t.Errorf("server name from discover = %q, want modern", got)
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "two_rounds"})
	if err != nil {
		t.Fatal(err)
	}
	if txt := res.Content[0].(*mcp.TextContent).Text; txt != "Ada/m1" || res.ResultType != mcp.ResultTypeComplete {
		t.Errorf("two_rounds = %q (%s), want Ada/m1 (complete)", txt, res.ResultType)
	}
	// Round 1 asks the name; round 2 has it back from requestState and asks
	// for sampling; round 3 completes. So the user is asked once.
	if elicited != 1 {
		t.Errorf("elicitation handler ran %d times, want 1", elicited)
	}

	pr, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "ask"})
	if err != nil {
		t.Fatal(err)
	}
	if txt := pr.Messages[0].Content.(*mcp.TextContent).Text; txt != "file:///work" {
		t.Errorf("prompt = %q, want the client's root", txt)
	}

	// No logLevel in _meta: no logs. Then warning and above.
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "logs"}); err != nil {
		t.Fatal(err)
	}
	if err := cs.SetLoggingLevel(ctx, mcp.LevelWarning); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "logs"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		mu.Lock()
		got := strings.Join(logs, ",")
		mu.Unlock()
		if got == "warning" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("logs = %q, want exactly one warning", got)
		}
		time.Sleep(10 * time.Millisecond)
	}

	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "nope://x"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeMethodNotFound {
		// The server has no resources: resources/read is not offered.
		t.Errorf("read on a server without resources: %v, want -32601", err)
	}
	if err := cs.Ping(ctx); err != nil {
		t.Errorf("ping (discover) on a modern server: %v", err)
	}
}

// legacyPeer answers like a server that predates 2026-07-28: initialize and
// tools/list work, server/discover gets the given treatment.
func legacyPeer(t *testing.T, stream jsonrpc.Stream, discover string) *jsonrpc.Conn {
	return jsonrpc.NewConn(stream, jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, m *jsonrpc.Message) (any, error) {
		switch m.Method {
		case "server/discover":
			if discover == "silent" {
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "not initialized")
		case "initialize":
			var p mcp.InitializeParams
			if err := json.Unmarshal(m.Params, &p); err != nil {
				return nil, err
			}
			if p.Meta != nil && p.Meta.ProtocolVersion != "" {
				t.Errorf("initialize carried modern _meta")
			}
			return json.RawMessage(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"old","version":"1"}}`), nil
		case "tools/list":
			var p struct {
				Meta json.RawMessage `json:"_meta"`
			}
			_ = json.Unmarshal(m.Params, &p)
			if p.Meta != nil {
				t.Errorf("legacy request carried _meta %s", p.Meta)
			}
			return json.RawMessage(`{"tools":[]}`), nil
		case "notifications/initialized":
			return nil, nil
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "no")
	})})
}

func TestClientFallsBackToInitialize(t *testing.T) {
	for _, discover := range []string{"error", "silent"} {
		t.Run(discover, func(t *testing.T) {
			ctx := context.Background()
			a, b := transport.Pipe()
			peer := legacyPeer(t, b, discover)
			defer func() { peer.Close(); peer.Wait() }()
			c := mcp.NewClient(nil, &mcp.ClientOptions{ProbeTimeout: 200 * time.Millisecond})
			cs, err := c.Connect(ctx, a)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if cs.Stateless() || cs.ProtocolVersion() != mcp.Version20250618 {
				t.Fatalf("stateless %v, version %q; want the legacy handshake at 2025-06-18", cs.Stateless(), cs.ProtocolVersion())
			}
			if _, err := cs.ListTools(ctx, nil); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestModernClientHonoursCacheHints(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	lists := 0
	count := func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, r *mcp.Request) (any, error) {
			if r.Method == mcp.MethodToolsList {
				mu.Lock()
				lists++
				mu.Unlock()
			}
			return next(ctx, r)
		}
	}
	s := mcp.NewServer(nil, &mcp.ServerOptions{CacheTTL: time.Hour, Receiving: []mcp.Middleware{count}})
	mcp.AddTool(s, &mcp.Tool{Name: "a"}, func(context.Context, *mcp.CallToolRequest, nameIn) (string, error) { return "a", nil })
	changed := make(chan struct{}, 1)
	c := mcp.NewClient(nil, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ClientSession) { changed <- struct{}{} }})
	a, b := transport.Pipe()
	ss := s.Connect(b, nil)
	defer ss.Wait()
	cs, err := c.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	listed := func() int {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.TTLMs == nil || *res.TTLMs != time.Hour.Milliseconds() || res.CacheScope != mcp.CacheScopePrivate {
			t.Fatalf("cache hints = %v %q, want an hour, private", res.TTLMs, res.CacheScope)
		}
		mu.Lock()
		defer mu.Unlock()
		return lists
	}
	if n := listed(); n != 1 {
		t.Fatalf("first list reached the server %d times", n)
	}
	if n := listed(); n != 1 {
		t.Fatalf("a fresh cached list went to the server again (%d requests)", n)
	}
	// The listen stream Connect opened for the handler tells the client the
	// list changed; the next list asks again.
	mcp.AddTool(s, &mcp.Tool{Name: "b"}, func(context.Context, *mcp.CallToolRequest, nameIn) (string, error) { return "b", nil })
	select {
	case <-changed:
	case <-time.After(2 * time.Second):
		t.Fatal("no tools/list_changed on the listen stream")
	}
	if n := listed(); n != 2 {
		t.Fatalf("after list_changed the list was not fetched again (%d requests)", n)
	}
}
