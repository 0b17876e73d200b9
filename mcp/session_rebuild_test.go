package mcp

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp/shared"
	"github.com/gomcp/sdk/transport"
)

// TestConnectRebuiltSessionReadsLateChange: a process rebuilds a session
// from the state it loaded, while another process saves a subscription and
// announces it before the rebuilt copy is among the server's sessions (so
// the announcement finds no copy to reload). The rebuilt copy must still
// end up with the subscription: once lost, the session's resource updates
// never reach the client (seen in the Redis failover test, one session in
// about two dozen runs).
func TestConnectRebuiltSessionReadsLateChange(t *testing.T) {
	ctx := context.Background()
	store := shared.NewMemorySessionStore(nil)
	stale := &shared.SessionState{ID: "s", ProtocolVersion: Version20251125, Initialized: true}
	if err := store.Save(ctx, stale); err != nil {
		t.Fatal(err)
	}
	loaded, err := store.Load(ctx, "s") // what the rebuilding process read
	if err != nil {
		t.Fatal(err)
	}
	// Meanwhile the other process subscribes the session and saves it.
	if _, err := store.Update(ctx, "s", func(st *shared.SessionState) {
		st.Subscriptions = append(st.Subscriptions, "test://late")
	}); err != nil {
		t.Fatal(err)
	}
	srv := NewServer(&Implementation{Name: "rebuild", Version: "1"}, nil)
	a, b := transport.Pipe()
	defer b.Close()
	ss := srv.Connect(a, &SessionOptions{ID: "s", State: loaded, Store: store})
	defer ss.Close()
	if got := ss.State().Subscriptions; !slices.Contains(got, "test://late") {
		t.Fatalf("rebuilt session's subscriptions = %v, want the one saved after its state was loaded", got)
	}
}

// TestInitializedKeepsChangeMadeElsewhere: notifications/initialized is
// accepted (202) before it is handled, so the client's next request may
// subscribe through another process first. Marking the session
// initialized must not then save this copy's state over the stored one:
// the subscription was lost, and the resource's updates never reached the
// client (TestReplicasCluster's "subscription fires from another
// replica", on a loaded machine).
func TestInitializedKeepsChangeMadeElsewhere(t *testing.T) {
	ctx := context.Background()
	store := shared.NewMemorySessionStore(nil)
	if err := store.Save(ctx, &shared.SessionState{ID: "s", ProtocolVersion: Version20251125}); err != nil {
		t.Fatal(err)
	}
	loaded, err := store.Load(ctx, "s") // initialized elsewhere, this copy built for notifications/initialized
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(&Implementation{Name: "initialized", Version: "1"}, nil)
	a, b := transport.Pipe()
	defer b.Close()
	ss := srv.Connect(a, &SessionOptions{ID: "s", State: loaded, Store: store})
	defer ss.Close()
	// Another process subscribes the session before this one handles the
	// notification.
	if _, err := store.Update(ctx, "s", func(st *shared.SessionState) {
		st.Subscriptions = append(st.Subscriptions, "test://elsewhere")
	}); err != nil {
		t.Fatal(err)
	}
	if err := b.Write(ctx, (&jsonrpc.Decoder{}).Decode([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, err := store.Load(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		if st.Initialized {
			if !slices.Contains(st.Subscriptions, "test://elsewhere") {
				t.Fatalf("stored subscriptions = %v after initialized, want the one made elsewhere", st.Subscriptions)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the session was never stored as initialized")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestDeletedSessionStaysDeleted: a change that reaches a copy of a
// session after the client deleted it (through another process, whose
// notice is still on its way) must not save the copy again. It did: the
// late notifications/initialized of TestMultiProcess revived the session
// deleted through the other Handler, which then answered 200, not 404.
func TestDeletedSessionStaysDeleted(t *testing.T) {
	t.Run("updater", func(t *testing.T) { deletedStaysDeleted(t, shared.NewMemorySessionStore(nil)) })
	// A store with no Update: the copy reads, changes and saves.
	t.Run("plain", func(t *testing.T) {
		deletedStaysDeleted(t, struct{ shared.SessionStore }{shared.NewMemorySessionStore(nil)})
	})
}

func deletedStaysDeleted(t *testing.T, store shared.SessionStore) {
	ctx := context.Background()
	if err := store.Save(ctx, &shared.SessionState{ID: "s", ProtocolVersion: Version20251125}); err != nil {
		t.Fatal(err)
	}
	loaded, err := store.Load(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(&Implementation{Name: "deleted", Version: "1"}, &ServerOptions{
		Capabilities: &ServerCapabilities{Resources: &ResourceCapabilities{Subscribe: true}},
	})
	a, b := transport.Pipe()
	defer b.Close()
	ss := srv.Connect(a, &SessionOptions{ID: "s", State: loaded, Store: store})
	defer ss.Close()
	if err := store.Delete(ctx, "s"); err != nil { // the DELETE, through another process
		t.Fatal(err)
	}
	for _, m := range []string{
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"test://x"}}`,
	} {
		if err := b.Write(ctx, (&jsonrpc.Decoder{}).Decode([]byte(m))); err != nil {
			t.Fatal(err)
		}
	}
	reply, err := b.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if reply.Error == nil || reply.Error.Code != jsonrpc.CodeInvalidRequest {
		t.Errorf("subscribe to a deleted session: %+v, want an invalid-request error", reply)
	}
	if st, err := store.Load(ctx, "s"); err == nil {
		t.Errorf("the deleted session was saved again: %+v", st)
	}
}

// heldLoadStore is a SessionStore whose Load number hold (from 1), once it
// has read the state, waits for release before returning it: a process
// descheduled between reading a session's state and applying it.
type heldLoadStore struct {
	*shared.MemorySessionStore
	hold    int32
	loads   atomic.Int32
	read    chan struct{} // closed once the held Load read the state
	release chan struct{}
}

func (s *heldLoadStore) Load(ctx context.Context, id string) (*shared.SessionState, error) {
	n := s.loads.Add(1)
	st, err := s.MemorySessionStore.Load(ctx, id)
	if n == s.hold {
		close(s.read)
		<-s.release
	}
	return st, err
}

// TestRebuiltSessionKeepsChangeHeardDuringItsReload: a process rebuilding a
// session reads its state once more after the copy joins the server's
// sessions (see TestConnectRebuiltSessionReadsLateChange). If another
// process saves a subscription and announces it after that read but before
// the copy applies what it read, the copy hears the announcement and reads
// the new state; the older read, applied last, must not undo it: the copy
// would skip every update of the resource (TestReplicasRollingRestart lost
// them, about one run in fifty). An update published afterwards must reach
// the client through this copy.
func TestRebuiltSessionKeepsChangeHeardDuringItsReload(t *testing.T) {
	ctx := context.Background()
	store := &heldLoadStore{MemorySessionStore: shared.NewMemorySessionStore(nil), hold: 1, read: make(chan struct{}), release: make(chan struct{})}
	if err := store.Save(ctx, &shared.SessionState{ID: "s", ProtocolVersion: Version20251125, Initialized: true}); err != nil {
		t.Fatal(err)
	}
	loaded, err := store.MemorySessionStore.Load(ctx, "s") // what the rebuilding process read first
	if err != nil {
		t.Fatal(err)
	}
	notifier := shared.NewMemoryNotifier()
	srv := NewServer(&Implementation{Name: "rebuild", Version: "1"}, &ServerOptions{Notifier: notifier})
	a, b := transport.Pipe()
	defer b.Close()
	connected := make(chan *ServerSession)
	go func() { connected <- srv.Connect(a, &SessionOptions{ID: "s", State: loaded, Store: store}) }()
	<-store.read // Connect's second read has the state without the subscription
	// The other process subscribes the session, saves and announces it.
	if _, err := store.Update(ctx, "s", func(st *shared.SessionState) {
		st.Subscriptions = append(st.Subscriptions, "test://late")
	}); err != nil {
		t.Fatal(err)
	}
	announced := make(chan error, 1)
	go func() {
		announced <- notifier.Publish(ctx, &shared.Notice{Method: shared.NoticeSessionChanged, Session: "s", Origin: "another process"})
	}()
	select {
	case <-announced: // heard and applied before the older read is: the race
		announced <- nil
	case <-time.After(200 * time.Millisecond): // or it waits for the older read
	}
	close(store.release)
	ss := <-connected
	defer ss.Close()
	if err := <-announced; err != nil {
		t.Fatal(err)
	}
	if got := ss.State().Subscriptions; !slices.Contains(got, "test://late") {
		t.Errorf("rebuilt session's subscriptions = %v, want the one announced while it read its state", got)
	}
	srv.ResourceUpdated(ctx, "test://late")
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	m, err := b.Read(rctx)
	if err != nil {
		t.Fatalf("no resource update reached the client: %v", err)
	}
	if m.Method != NotificationResourceUpdated || !strings.Contains(string(m.Params), "test://late") {
		t.Fatalf("client got %s %s, want the resource update", m.Method, m.Params)
	}
}
