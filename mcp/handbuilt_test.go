package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"reflect"
	"testing"

	"github.com/gomcp/sdk/mcp"
)

// handBuilt are requests made without a session, as tests of handlers
// write them: zero values, and composite literals with params.
func handBuilt() map[string]any {
	return map[string]any{
		"zero CallToolRequest":      &mcp.CallToolRequest{},
		"new ReadResourceRequest":   new(mcp.ReadResourceRequest),
		"GetPromptRequest literal":  &mcp.GetPromptRequest{Params: &mcp.GetPromptParams{Name: "p"}},
		"CompleteRequest literal":   &mcp.CompleteRequest{Params: &mcp.CompleteParams{}},
		"CallToolRequest literal":   &mcp.CallToolRequest{Params: &mcp.CallToolParams{Name: "t", Arguments: json.RawMessage(`{"a":1}`)}},
		"ServerRequest of a string": &mcp.ServerRequest[string]{Params: "x"},
		"zero CreateMessageRequest": &mcp.CreateMessageRequest{},
		"zero ElicitRequest":        new(mcp.ElicitRequest),
	}
}

// TestHandBuiltRequestsNeverPanic calls every method of requests built by
// hand, with zero arguments (a background context), and fails on any
// panic: the methods a later change adds are covered too.
func TestHandBuiltRequestsNeverPanic(t *testing.T) {
	ctxType := reflect.TypeFor[context.Context]()
	for name, req := range handBuilt() {
		v := reflect.ValueOf(req)
		for i := range v.NumMethod() {
			m := v.Type().Method(i)
			t.Run(name+"/"+m.Name, func(t *testing.T) {
				defer func() {
					if p := recover(); p != nil {
						t.Errorf("%s panicked: %v", m.Name, p)
					}
				}()
				ft := m.Type
				args := make([]reflect.Value, ft.NumIn()-1)
				for j := range args {
					if at := ft.In(j + 1); at == ctxType {
						args[j] = reflect.ValueOf(context.Background())
					} else {
						args[j] = reflect.Zero(at)
					}
				}
				for _, out := range v.Method(i).Call(args) {
					if l, ok := out.Interface().(*slog.Logger); ok {
						l.Info("goes nowhere", "k", 1)
					}
					if h, ok := out.Interface().(slog.Handler); ok {
						_ = h.WithAttrs([]slog.Attr{slog.Int("k", 1)}).WithGroup("g").Enabled(context.Background(), slog.LevelError)
					}
				}
			})
		}
	}
}

// TestHandBuiltRequestBehaviour: a request built by hand behaves as one
// from a client that declared nothing, over no connection.
func TestHandBuiltRequestBehaviour(t *testing.T) {
	ctx := context.Background()
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParams{Name: "t", Meta: &mcp.Meta{ProgressToken: mcp.ProgressToken{}}}}
	if ss, ok := req.Session(); ss != nil || ok {
		t.Errorf("Session() = %v, %v", ss, ok)
	}
	if req.Stateless() || req.ProtocolVersion() != "" || req.Principal() != "" || req.LogLevel() != 0 {
		t.Errorf("Stateless %v, ProtocolVersion %q, Principal %q, LogLevel %v", req.Stateless(), req.ProtocolVersion(), req.Principal(), req.LogLevel())
	}
	if req.ClientInfo() == nil || req.ClientCapabilities() == nil {
		t.Errorf("ClientInfo %v, ClientCapabilities %v: documented never nil", req.ClientInfo(), req.ClientCapabilities())
	}
	if req.Meta() != req.Params.Meta {
		t.Errorf("Meta() = %v, want the params' _meta", req.Meta())
	}
	if err := req.Log(ctx, mcp.LevelError, "l", "x"); err != nil {
		t.Errorf("Log: %v", err)
	}
	if err := req.NotifyProgress(ctx, 1, 2, ""); err != nil {
		t.Errorf("NotifyProgress: %v", err)
	}
	if err := req.Notify(ctx, "example/x", nil); err != nil {
		t.Errorf("Notify: %v", err)
	}
	req.Logger().Error("nowhere")
	if _, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "?"}); !errors.Is(err, mcp.ErrCapability) {
		t.Errorf("Elicit: %v, want ErrCapability", err)
	}
	if _, err := req.CreateMessage(ctx, &mcp.CreateMessageParams{}); !errors.Is(err, mcp.ErrCapability) {
		t.Errorf("CreateMessage: %v, want ErrCapability", err)
	}
	if _, err := req.ListRoots(ctx); !errors.Is(err, mcp.ErrCapability) {
		t.Errorf("ListRoots: %v, want ErrCapability", err)
	}
	type form struct {
		Name string `json:"name"`
	}
	if _, _, err := mcp.ElicitFor[form](ctx, req, "?"); !errors.Is(err, mcp.ErrCapability) {
		t.Errorf("ElicitFor: %v, want ErrCapability", err)
	}
	// A context from WithInputFunc answers, as for any request.
	answer := func(context.Context, map[string]*mcp.InputRequest) (map[string]*mcp.InputResponse, error) {
		return map[string]*mcp.InputResponse{"roots": {ListRoots: &mcp.ListRootsResult{Roots: []*mcp.Root{{URI: "file:///r"}}}}}, nil
	}
	res, err := req.ListRoots(mcp.WithInputFunc(ctx, answer))
	if err != nil || len(res.Roots) != 1 {
		t.Errorf("ListRoots with an InputFunc: %v, %v", res, err)
	}
}
