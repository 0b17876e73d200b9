package mcp_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

// lockedBuffer is a log destination the server's goroutines may share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A registration refused and dropped unread stops the server from serving,
// naming it; one whose error was looked at, or that was fixed by a later
// Add of the same feature, does not.
func TestDroppedRegistrationError(t *testing.T) {
	badSchema := &mcp.Tool{Name: "weather", InputSchema: []byte(`{"type":"string"}`)}
	tests := []struct {
		name    string
		add     func(s *mcp.Server)
		refused string // what the refusal names; "" if the server serves
	}{
		{"dropped", func(s *mcp.Server) {
			_ = s.AddTool(&mcp.Tool{Name: "get weather"}, noTool) // go-sdk's everything server has such names
		}, `tool "get weather": name has ' ' at byte 3`},
		{"dropped prompt and template", func(s *mcp.Server) {
			_ = s.AddPrompt(&mcp.Prompt{}, nil)
			_ = s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "x://{", Name: "x"}, nil)
		}, `2 feature registration(s) failed`},
		{"printed", func(s *mcp.Server) {
			if err := s.AddTool(&mcp.Tool{Name: "get weather"}, noTool); err != nil {
				_ = fmt.Sprintf("skipping: %v", err)
			}
		}, ""},
		{"left out on purpose", func(s *mcp.Server) {
			if err := mcp.AddTool(s, &mcp.Tool{Name: "get weather"}, func(context.Context, *mcp.CallToolRequest, struct{}) (string, error) { return "", nil }); errors.Is(err, mcp.ErrInvalidFeature) {
				return
			}
		}, ""},
		{"checked and dropped", func(s *mcp.Server) {
			if err := s.AddTool(badSchema, noTool); err != nil {
				return // err != nil alone does not look at it
			}
		}, `tool "weather": input schema: schema root must have "type": "object"`},
		{"fixed", func(s *mcp.Server) {
			_ = s.AddTool(badSchema, noTool)
			if err := s.AddTool(&mcp.Tool{Name: "weather"}, noTool); err != nil {
				panic(err)
			}
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Run refuses before serving anything.
			s := mcp.NewServer(serverImpl, nil)
			tt.add(s)
			a, b := transport.Pipe()
			defer a.Close()
			ctx, cancel := context.WithCancel(testCtx(t))
			done := make(chan error, 1)
			go func() { done <- s.Run(ctx, b) }()
			if tt.refused != "" {
				err := <-done
				if !errors.Is(err, mcp.ErrInvalidFeature) || !strings.Contains(err.Error(), tt.refused) || !strings.Contains(err.Error(), "errors.Is(err, mcp.ErrInvalidFeature)") {
					t.Errorf("Run: %v, want an error naming %q", err, tt.refused)
				}
			}

			// Connect (and so every transport) answers every request with
			// the refusal; the log says it once.
			var log lockedBuffer
			s2 := mcp.NewServer(serverImpl, &mcp.ServerOptions{Logger: slog.New(slog.NewTextHandler(&log, nil))})
			tt.add(s2)
			c := mcp.NewClient(clientImpl, &mcp.ClientOptions{ProtocolVersion: mcp.LatestStatefulVersion})
			a2, b2 := transport.Pipe()
			ss := s2.Connect(b2, nil)
			defer func() { ss.Close(); ss.Wait() }()
			cs, err := c.Connect(testCtx(t), a2)
			if tt.refused == "" {
				if err != nil {
					t.Fatalf("Connect: %v", err)
				}
				cs.Close()
				cancel()
				if err := <-done; !errors.Is(err, context.Canceled) {
					t.Errorf("Run: %v", err)
				}
				return
			}
			cancel()
			if err == nil {
				cs.Close()
				t.Fatal("a client connected to a server with a dropped registration error")
			}
			var je *jsonrpc.Error
			if !errors.As(err, &je) || je.Code != jsonrpc.CodeInternalError || !strings.Contains(je.Message, tt.refused) {
				t.Errorf("Connect: %v, want -32603 naming %q", err, tt.refused)
			}
			if got := log.String(); strings.Count(got, "refuses to serve") != 1 || !strings.Contains(got, "level=ERROR") {
				t.Errorf("log: %s", got)
			}
		})
	}
}

// A 2026-07-28 request, which has no session, is refused too.
func TestDroppedRegistrationErrorStateless(t *testing.T) {
	s := mcp.NewServer(serverImpl, nil)
	_ = s.AddTool(&mcp.Tool{Name: "a b"}, noTool)
	a, b := transport.Pipe()
	ss := s.Connect(b, nil)
	defer func() { ss.Close(); ss.Wait() }()
	_, err := mcp.NewClient(clientImpl, nil).Connect(testCtx(t), a)
	if err == nil || !strings.Contains(err.Error(), `tool "a b"`) {
		t.Errorf("Connect: %v, want the refusal", err)
	}
}

// Once the server serves, a refused Add returns its error and is logged;
// the server goes on serving.
func TestRegistrationErrorWhileServing(t *testing.T) {
	var log lockedBuffer
	s := mcp.NewServer(serverImpl, &mcp.ServerOptions{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err := s.AddTool(&mcp.Tool{Name: "ok"}, noTool); err != nil {
		t.Fatal(err)
	}
	e := connect(t, mcp.LatestStatefulVersion, s, nil)
	_ = s.AddTool(&mcp.Tool{Name: "not ok"}, noTool)
	if _, err := e.callTool(testCtx(t), "ok", ""); err != nil {
		t.Errorf("the server stopped serving: %v", err)
	}
	if got := log.String(); !strings.Contains(got, "level=WARN") || !strings.Contains(got, `not ok`) {
		t.Errorf("log: %s", got)
	}
	// A second session is served too.
	e2 := connect(t, mcp.LatestStatefulVersion, s, nil)
	if _, err := e2.callTool(testCtx(t), "ok", ""); err != nil {
		t.Errorf("a new session was refused: %v", err)
	}
}
