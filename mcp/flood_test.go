package mcp_test

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

// TestCancelLandsBehindNotificationFlood floods a server with
// notifications while its notification handler is stuck waiting (as a
// RootsListChangedHandler that asks the client for its roots would), then
// cancels a running tool call: the cancellation must reach the tool at
// once, and the flood must not grow memory past the lane's bound.
func TestCancelLandsBehindNotificationFlood(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	cancelled := make(chan time.Time, 1)
	s := mcp.NewServer(serverImpl, &mcp.ServerOptions{
		MaxQueuedNotifications: 64,
		RootsListChangedHandler: func(ctx context.Context, _ *mcp.ServerSession) {
			<-release // the lane is stuck until the test ends
		},
	})
	s.AddTool(&mcp.Tool{Name: "wait"}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		close(started)
		<-ctx.Done()
		cancelled <- time.Now()
		return nil, ctx.Err()
	})
	// A bare pipe, not the wire log of the other tests, which keeps every
	// message and would hide what the server keeps.
	a, b := transport.Pipe()
	ss := s.Connect(b, nil)
	defer func() {
		close(release)
		ss.Close() // ends the tool's ctx too, had the cancellation been lost
		a.Close()
		ss.Wait()
	}()
	ctx := testCtx(t)
	send := func(m *jsonrpc.Message) {
		t.Helper()
		if err := a.Write(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	send(jsonrpc.NewRequest(jsonrpc.Int64ID(1), mcp.MethodInitialize, json.RawMessage(initParams)))
	if m, err := a.Read(ctx); err != nil || m.Error != nil {
		t.Fatalf("initialize: %v %v", err, m)
	}
	send(jsonrpc.NewNotification(mcp.NotificationInitialized, nil))
	send(jsonrpc.NewRequest(jsonrpc.Int64ID(2), mcp.MethodToolsCall, json.RawMessage(`{"name":"wait"}`)))
	<-started

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	const flood = 20000
	for range flood {
		// Each notification is its own message with its own 1 KiB params,
		// as a peer's would be.
		params := json.RawMessage(`{"pad":"` + strings.Repeat("x", 1024) + `"}`)
		send(jsonrpc.NewNotification(mcp.NotificationRootsListChanged, params))
	}
	sent := time.Now()
	send(jsonrpc.NewNotification(mcp.NotificationCancelled, json.RawMessage(`{"requestId":2}`)))
	select {
	case at := <-cancelled:
		t.Logf("cancel applied %v after it was sent, behind %d notifications and a stuck handler", at.Sub(sent), flood)
	case <-time.After(10 * time.Second):
		t.Fatal("the cancellation never reached the tool: it waited behind the notification lane")
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("heap grew by %d bytes during a flood of %d notifications", grown, flood)
	// Unbounded, the lane would hold every notification (over 20 MB
	// here); bounded, it holds 64.
	if grown > 1<<20 {
		t.Errorf("heap grew by %d bytes under the flood; the lane is not bounded", grown)
	}
}
