package mcp_test

import (
	"context"
	"errors"
	"testing"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// TestPingAnsweredWhenQueueFull: ping does not queue behind requests, so a
// client can still tell a busy server from a dead one when every handler
// slot and queue place is taken.
func TestPingAnsweredWhenQueueFull(t *testing.T) {
	s := mcp.NewServer(serverImpl, &mcp.ServerOptions{MaxConcurrency: 1, MaxQueued: 1})
	started, release := make(chan struct{}, 3), make(chan struct{})
	mcp.AddTool(s, &mcp.Tool{Name: "block"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (string, error) {
		started <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return "ok", nil
	})
	e := connect(t, mcp.LatestStatefulVersion, s, statefulOpts)
	released := false
	defer func() {
		if !released { // a failure: let the handlers return so the session can end
			close(release)
		}
	}()
	ctx := testCtx(t)
	errs := make(chan error, 3)
	call := func() {
		_, err := e.callTool(ctx, "block", `{}`)
		errs <- err
	}
	go call()
	recv(t, started, "the first call running")
	go call()
	go call()
	// One of the two later calls is queued, the other refused: the queue
	// is full.
	var je *jsonrpc.Error
	if err := recv(t, errs, "a call refused"); !errors.As(err, &je) || je.Code != jsonrpc.CodeServerOverloaded {
		t.Fatalf("a call beyond the queue: %v", err)
	}
	if err := e.cs.Ping(ctx); err != nil {
		t.Fatalf("ping with the queue full: %v", err)
	}
	close(release)
	released = true
	for range 2 {
		if err := recv(t, errs, "a call answered"); err != nil {
			t.Errorf("call: %v", err)
		}
	}
}
