package mcphttp

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/gomcp/sdk/mcp/shared"
)

// deafNotifier is a MemoryNotifier that loses the session-changed notices
// while deaf is set, as a Redis failover can (a notice written while the
// slot has no master).
type deafNotifier struct {
	*shared.MemoryNotifier
	deaf atomic.Bool
}

func (n *deafNotifier) Publish(c context.Context, nt *shared.Notice) error {
	if n.deaf.Load() && nt.Method == shared.NoticeSessionChanged {
		return nil
	}
	return n.MemoryNotifier.Publish(c, nt)
}

// TestTakeoverReadsSessionState: a Handler whose copy of a session missed
// a change (here a subscription whose announcement was lost) takes the
// session's GET stream over. It reads the session's state before it does,
// so the resource updates the stream must carry from then on reach the
// client: the copy that held the stream in TestReplicasRollingRestart's
// rare failure skipped them, and no other copy stores them.
func TestTakeoverReadsSessionState(t *testing.T) {
	notifier := &deafNotifier{MemoryNotifier: shared.NewMemoryNotifier()}
	srvs, urls := handlerPair(t, func(int) shared.Notifier { return notifier }, shared.NewMemorySessionStore(nil), NewMemoryEventStore(nil), "test://x", "test://y")
	sid := clusterSession(t, urls[0], "alice")
	if r := clusterPost(t, urls[0], "alice", sid, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://x"}}`); r.status != 200 {
		t.Fatalf("subscribe: %d %s", r.status, r.body)
	}
	if r := clusterPost(t, urls[1], "alice", sid, pingBody); r.status != 200 { // B's copy
		t.Fatalf("ping on B: %d %s", r.status, r.body)
	}
	notifier.deaf.Store(true) // B never hears of the next subscription
	if r := clusterPost(t, urls[0], "alice", sid, `{"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{"uri":"test://y"}}`); r.status != 200 {
		t.Fatalf("subscribe: %d %s", r.status, r.body)
	}
	notifier.deaf.Store(false)
	rdA, cutA := openGET(t, urls[0], "alice", sid, "")
	srvs[0].ResourceUpdated(ctx(t), "test://x")
	id1, _ := updated(t, rdA)
	cutA()
	rdB, _ := openGET(t, urls[1], "alice", sid, id1)
	srvs[1].ResourceUpdated(ctx(t), "test://y")
	srvs[1].ResourceUpdated(ctx(t), "test://x") // a second update, so that a stale copy sends something
	if _, uri := updated(t, rdB); uri != "test://y" {
		t.Fatalf("after the takeover the client got an update of %s first, want test://y (the copy taking the stream over missed the subscription)", uri)
	}
}
