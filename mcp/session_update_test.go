package mcp

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp/shared"
	"github.com/gomcp/sdk/transport"
)

// pairedLoads is a shared.SessionUpdater whose Load waits until two Loads are in
// progress (or a moment has passed), so that two read-change-save cycles
// interleave: the schedule in which the later save undoes the earlier.
type pairedLoads struct {
	*shared.MemorySessionStore
	mu      sync.Mutex
	waiting int
	both    chan struct{}
}

func (p *pairedLoads) Load(ctx context.Context, id string) (*shared.SessionState, error) {
	st, err := p.MemorySessionStore.Load(ctx, id)
	p.mu.Lock()
	if p.waiting++; p.waiting == 2 {
		close(p.both)
	}
	p.mu.Unlock()
	select {
	case <-p.both:
	case <-time.After(200 * time.Millisecond):
	}
	return st, err
}

// TestSessionUpdateConcurrent: two processes (two Servers, each with its
// copy of one session) subscribe the session to a resource each at the
// same moment. With a shared.SessionUpdater store both subscriptions are kept;
// read-change-save would lose one.
func TestSessionUpdateConcurrent(t *testing.T) {
	ctx := context.Background()
	store := &pairedLoads{MemorySessionStore: shared.NewMemorySessionStore(nil), both: make(chan struct{})}
	st := &shared.SessionState{ID: "s", ProtocolVersion: Version20251125, Initialized: true}
	if err := store.Save(ctx, st); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, uri := range []string{"test://a", "test://b"} {
		ss := &ServerSession{server: NewServer(nil, nil), id: "s", store: store}
		ss.restore(st)
		wg.Go(func() {
			if err := ss.update(ctx, func(ss *ServerSession) {
				if ss.subs == nil {
					ss.subs = map[string]struct{}{}
				}
				ss.subs[uri] = struct{}{}
			}); err != nil {
				t.Error(err)
			}
			if !slices.Contains(ss.State().Subscriptions, uri) {
				t.Errorf("%s: the session's own copy lost its subscription", uri)
			}
		})
	}
	wg.Wait()
	got, err := store.MemorySessionStore.Load(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"test://a", "test://b"}; !slices.Equal(got.Subscriptions, want) {
		t.Errorf("stored subscriptions %v, want %v", got.Subscriptions, want)
	}
}

// TestSessionStateRoundTrip: the state a session saves (client info and
// capabilities as JSON, the level by name) rebuilds the same session in
// another process, through a store that encodes it; what does not decode
// is left out rather than trusted.
func TestSessionStateRoundTrip(t *testing.T) {
	ss := &ServerSession{server: NewServer(nil, nil), id: "s"}
	ss.state = sessionFields{
		ProtocolVersion:    Version20251125,
		ClientInfo:         &Implementation{Name: "c", Version: "1"},
		ClientCapabilities: &ClientCapabilities{Roots: &RootCapabilities{ListChanged: true}},
		Principal:          "alice",
		LogLevel:           LevelWarning,
		Initialized:        true,
	}
	ss.subs = map[string]struct{}{"test://b": {}, "test://a": {}}
	b, err := json.Marshal(ss.State())
	if err != nil {
		t.Fatal(err)
	}
	var st shared.SessionState
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	other := &ServerSession{server: NewServer(nil, nil), id: "s"}
	other.restore(&st)
	f := other.state
	if f.ProtocolVersion != Version20251125 || f.ClientInfo == nil || f.ClientInfo.Name != "c" ||
		f.ClientCapabilities == nil || f.ClientCapabilities.Roots == nil || !f.ClientCapabilities.Roots.ListChanged ||
		f.Principal != "alice" || f.LogLevel != LevelWarning || !f.Initialized || !other.initDone ||
		!other.subscribed("test://a") || !other.subscribed("test://b") {
		t.Errorf("rebuilt %+v (subs %v) from %s", f, other.subs, b)
	}
	if got := other.State(); string(got.ClientInfo) != string(st.ClientInfo) || got.LogLevel != "warning" {
		t.Errorf("state of the rebuilt session %+v, saved %+v", got, st)
	}

	bad := &ServerSession{server: NewServer(nil, nil), id: "s"}
	bad.restore(&shared.SessionState{ID: "s", ProtocolVersion: Version20251125,
		ClientInfo: json.RawMessage(`"not an object"`), ClientCapabilities: json.RawMessage(`[1]`), LogLevel: "loud"})
	if f := bad.state; f.ClientInfo != nil || f.ClientCapabilities != nil || f.LogLevel != levelUnset {
		t.Errorf("undecodable state restored as %+v", f)
	}
	if got := bad.State(); got.ClientInfo != nil || got.ClientCapabilities != nil || got.LogLevel != "" {
		t.Errorf("undecodable state saved again as %+v", got)
	}
}

// TestSessionInitializeAfterRestore: a session rebuilt from a state saved
// before its handshake saves what the client declares in initialize, not
// the encoding it was rebuilt with.
func TestSessionInitializeAfterRestore(t *testing.T) {
	ctx := context.Background()
	store := shared.NewMemorySessionStore(nil)
	s := NewServer(nil, nil)
	a, b := transport.Pipe()
	ss := s.Connect(b, &SessionOptions{ID: "s", Store: store, State: &shared.SessionState{
		ID: "s", ClientInfo: json.RawMessage(`{"name":"before","version":"0"}`),
	}})
	defer ss.Wait()
	defer ss.Close()
	cs, err := NewClient(&Implementation{Name: "after", Version: "1"}, &ClientOptions{ProtocolVersion: Version20251125}).Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	st, err := store.Load(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	var info Implementation
	if err := json.Unmarshal(st.ClientInfo, &info); err != nil || info.Name != "after" || len(st.ClientCapabilities) == 0 {
		t.Errorf("saved client info %s (%v), capabilities %s; want the client's of initialize", st.ClientInfo, err, st.ClientCapabilities)
	}
}
