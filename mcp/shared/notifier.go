package shared

import (
	"context"
	"sync"
)

// A Notice is one server-wide event that every process of a deployment must
// hear about: a resource changed, a feature list changed, or a session's
// state changed somewhere else. Notices carry no client data, only names.
type Notice struct {
	// ID names this notice in every process (Server gives each notice it
	// publishes a random one), so that a transport storing what a notice
	// caused for a session, in a store the processes share, stores it
	// once however many processes hear it (see mcp.NoticeID).
	ID string `json:"id,omitempty"`
	// Method is a notification method (mcp.NotificationResourceUpdated and
	// the list_changed notifications), NoticeSessionChanged, or a name of a
	// transport's own, which it should prefix with its package name
	// ("mcphttp/...").
	Method string `json:"method"`
	// URI is the resource of mcp.NotificationResourceUpdated.
	URI string `json:"uri,omitempty"`
	// Session is the session a session-scoped notice is about.
	Session string `json:"session,omitempty"`
	// Data is what a transport's own notices carry.
	Data string `json:"data,omitempty"`
	// Origin identifies the publisher (mcp.Server.InstanceID), so that a
	// subscriber can tell its own notices from others'.
	Origin string `json:"origin,omitempty"`
}

// NoticeSessionChanged says that the saved state of a session (Notice.Session)
// changed: processes holding a copy of that session reload it from the
// SessionStore.
const NoticeSessionChanged = "mcp/sessionChanged"

// A Notifier fans notices out to every subscriber in every process of a
// deployment, the publisher's own included. An mcp.Server publishes resource
// updates and list changes through it and delivers each notice it hears to
// the sessions and subscriptions/listen streams it holds, so a change made
// in one process reaches clients connected to any other.
//
// The default, NewMemoryNotifier, serves one process. A Notifier must be
// safe for concurrent use. Subscribers must return quickly: Publish may call
// them on its own goroutine.
//
// A Notifier serving several processes keeps one order: a notice published
// after this process's subscribers heard another (one of them published
// it, or anything that followed) reaches every other process after it.
// The HTTP transport's stream takeover relies on that. Such a Notifier's
// Publish may wait for this process's subscribers of an earlier notice to
// return: a subscriber must not wait for a Publish on another goroutine,
// nor for a lock held around one.
type Notifier interface {
	// Publish delivers n to every subscriber. It may return before remote
	// subscribers have received it, but not before its place in the order
	// is fixed: a notice published after it returned reaches every process
	// after it (a session's saved state, announced before the request
	// that changed it is answered, is heard before any change that
	// follows, wherever the client's next request lands).
	Publish(ctx context.Context, n *Notice) error
	// Subscribe calls fn for every notice published from now on, until the
	// returned function is called.
	Subscribe(fn func(*Notice)) (unsubscribe func())
}

// MemoryNotifier is the in-process Notifier: Publish calls every
// subscriber in turn, on the publisher's goroutine.
type MemoryNotifier struct {
	mu   sync.RWMutex
	next int
	subs map[int]func(*Notice)
}

// NewMemoryNotifier returns a Notifier for the servers of one process.
func NewMemoryNotifier() *MemoryNotifier {
	return &MemoryNotifier{subs: make(map[int]func(*Notice))}
}

// Publish implements Notifier.
func (m *MemoryNotifier) Publish(_ context.Context, n *Notice) error {
	m.mu.RLock()
	fns := make([]func(*Notice), 0, len(m.subs))
	for _, fn := range m.subs {
		fns = append(fns, fn)
	}
	m.mu.RUnlock()
	for _, fn := range fns {
		c := *n // each subscriber gets its own copy
		fn(&c)
	}
	return nil
}

// Subscribe implements Notifier.
func (m *MemoryNotifier) Subscribe(fn func(*Notice)) func() {
	m.mu.Lock()
	id := m.next
	m.next++
	m.subs[id] = fn
	m.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			m.mu.Lock()
			delete(m.subs, id)
			m.mu.Unlock()
		})
	}
}
