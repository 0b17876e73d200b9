package mcp_test

import (
	"context"
	"slices"
	"testing"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

// TestSessionChangesThroughTwoProcesses: one session served by two
// processes sharing only a session store (their notices never meet), the
// client's requests alternating between them. Each change is made on the
// state in the store, not on the process's possibly stale copy, so that no
// process undoes what the other saved.
func TestSessionChangesThroughTwoProcesses(t *testing.T) {
	ctx := testCtx(t)
	store := mcp.NewMemorySessionStore(nil)
	const id = "s1"
	newProcess := func() *mcp.Server {
		s := mcp.NewServer(serverImpl, nil) // a Notifier of its own
		for _, uri := range []string{"test://a", "test://b", "test://c"} {
			s.AddResource(&mcp.Resource{URI: uri, Name: uri}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{}, nil
			})
		}
		return s
	}
	// serve connects a raw client to srv's copy of the session.
	serve := func(srv *mcp.Server, state *mcp.SessionState) jsonrpc.Stream {
		a, b := transport.Pipe()
		ss := srv.Connect(b, &mcp.SessionOptions{ID: id, Store: store, State: state})
		t.Cleanup(func() {
			a.Close()
			_ = ss.Wait()
		})
		return a
	}
	call := func(s jsonrpc.Stream, n int64, method, params string) {
		t.Helper()
		if err := s.Write(ctx, jsonrpc.NewRequest(jsonrpc.Int64ID(n), method, []byte(params))); err != nil {
			t.Fatal(err)
		}
		for {
			m, err := s.Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if m.IsNotification() {
				continue
			}
			if m.Error != nil {
				t.Fatalf("%s: %v", method, m.Error)
			}
			return
		}
	}
	one := serve(newProcess(), nil)
	call(one, 1, "initialize", initParams)
	if err := one.Write(ctx, jsonrpc.NewNotification("notifications/initialized", nil)); err != nil {
		t.Fatal(err)
	}
	state, err := store.Load(ctx, id)
	for err == nil && !state.Initialized {
		state, err = store.Load(ctx, id)
	}
	if err != nil {
		t.Fatal(err)
	}
	// The second process rebuilds the session now, before any change.
	two := serve(newProcess(), state)

	call(one, 2, "resources/subscribe", `{"uri":"test://a"}`)
	call(two, 3, "resources/subscribe", `{"uri":"test://b"}`)
	call(one, 4, "resources/subscribe", `{"uri":"test://c"}`)
	call(two, 5, "logging/setLevel", `{"level":"error"}`)
	call(one, 6, "resources/unsubscribe", `{"uri":"test://b"}`)

	got, err := store.Load(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	subs := slices.Sorted(slices.Values(got.Subscriptions))
	if want := []string{"test://a", "test://c"}; !slices.Equal(subs, want) {
		t.Errorf("subscriptions in the store = %v, want %v", subs, want)
	}
	if got.LogLevel != mcp.LevelError {
		t.Errorf("log level in the store = %v, want error", got.LogLevel)
	}
}
