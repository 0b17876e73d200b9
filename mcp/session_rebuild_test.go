package mcp

import (
	"context"
	"slices"
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
	ctx := context.Background()
	store := shared.NewMemorySessionStore(nil)
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
