package shared

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"time"
)

// SessionState is what a stateful session (protocol revisions 2024-11-05
// to 2025-11-25) has established, as plain data: everything another process
// needs to rebuild the session and go on serving it. A transport saves it in
// a SessionStore keyed by ID and rebuilds a session from it with
// mcp.Server.Connect and mcp.SessionOptions.State.
//
// It is encoded as JSON by stores that leave the process; the field names
// below are that encoding and stay stable. What the client declared is kept
// in its JSON encoding, as the mcp package writes and reads it, so that a
// store needs nothing of the protocol's types.
type SessionState struct {
	// ID is the session id the transport issued (Mcp-Session-Id).
	ID string `json:"id"`
	// ProtocolVersion is the negotiated revision.
	ProtocolVersion string `json:"protocolVersion"`
	// ClientInfo and ClientCapabilities are what the client declared in
	// initialize (an mcp.Implementation and mcp.ClientCapabilities, as
	// JSON).
	ClientInfo         json.RawMessage `json:"clientInfo,omitempty"`
	ClientCapabilities json.RawMessage `json:"clientCapabilities,omitempty"`
	// Initialized records that notifications/initialized arrived.
	Initialized bool `json:"initialized,omitempty"`
	// LogLevel is the level the client set with logging/setLevel, by its
	// wire name ("debug" ... "emergency"); "" (unset) sends every level.
	LogLevel string `json:"logLevel,omitempty"`
	// Subscriptions are the resource URIs the client subscribed to, sorted.
	Subscriptions []string `json:"subscriptions,omitempty"`
	// Principal names who created the session (see mcp.SessionOptions). A
	// transport refuses requests for the session from anyone else.
	Principal string `json:"principal,omitempty"`
}

// ErrNoSession is returned by SessionStore.Load for an id it does not hold.
var ErrNoSession = errors.New("shared: no such session")

// A SessionStore keeps the state of stateful sessions so that any process
// of a deployment can serve any session, and sessions survive a restart. A
// session saves its state when the handshake completes and after every
// change (logging/setLevel, resources/subscribe and unsubscribe), before
// the request that changed it is answered; a transport deletes it when the
// client ends the session.
//
// Implementations must be safe for concurrent use. The state passed to Save
// and returned by Load is not retained or modified by the caller afterwards.
type SessionStore interface {
	// Load returns the state saved under id, or an error wrapping
	// ErrNoSession.
	Load(ctx context.Context, id string) (*SessionState, error)
	// Save stores state under state.ID, replacing what was there.
	Save(ctx context.Context, state *SessionState) error
	// Delete forgets a session. Deleting an unknown id is not an error.
	Delete(ctx context.Context, id string) error
}

// A SessionUpdater is a SessionStore that changes a session's state in one
// step: Update loads the state saved under id, lets change modify it, and
// saves the result with no other Save or Update of that id in between (a
// lock, or a compare-and-set retried when another process got there
// first; change may then run more than once). With it, two processes that
// change one session at the same moment (a subscription through each) both
// keep their change; with a plain SessionStore the state is loaded,
// changed and saved, and the later save wins. Update returns the state
// saved, or an error wrapping ErrNoSession for an id the store does not
// hold. MemorySessionStore and redisstore.SessionStore implement it.
type SessionUpdater interface {
	SessionStore
	Update(ctx context.Context, id string, change func(*SessionState)) (*SessionState, error)
}

// MemorySessionStoreOptions bounds a MemorySessionStore. Zero values select
// the defaults.
type MemorySessionStoreOptions struct {
	// MaxSessions bounds how many sessions are kept; saving a new one
	// beyond it forgets the one saved least recently. Default 100000.
	MaxSessions int
	// TTL forgets a session not saved or loaded for this long. Default
	// one hour; negative means never.
	TTL time.Duration
}

// MemorySessionStore is the default SessionStore: bounded, in process
// memory. It serves one process; several processes share sessions through
// a store outside them (Redis, a database).
type MemorySessionStore struct {
	max int
	ttl time.Duration

	mu       sync.Mutex
	sessions map[string]*memState
}

// memState is one stored session: the state and when it was last used
// (unix nanoseconds), in one allocation.
type memState struct {
	state SessionState
	used  int64
}

// NewMemorySessionStore returns an empty store. opts may be nil.
func NewMemorySessionStore(opts *MemorySessionStoreOptions) *MemorySessionStore {
	s := &MemorySessionStore{max: 100000, ttl: time.Hour, sessions: make(map[string]*memState)}
	if opts != nil {
		if opts.MaxSessions > 0 {
			s.max = opts.MaxSessions
		}
		if opts.TTL != 0 {
			s.ttl = opts.TTL
		}
	}
	return s
}

// Load implements SessionStore.
func (s *MemorySessionStore) Load(_ context.Context, id string) (*SessionState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.sessions[id]
	now := time.Now()
	if e == nil || s.expired(e, now) {
		delete(s.sessions, id)
		return nil, ErrNoSession
	}
	e.used = now.UnixNano()
	return e.state.clone(), nil
}

// Save implements SessionStore.
func (s *MemorySessionStore) Save(_ context.Context, state *SessionState) error {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.sessions[state.ID]; !ok && len(s.sessions) >= s.max {
		s.evict(now)
	}
	// The caller gives the state up (see SessionStore), so it is kept as
	// it is; Load hands out copies.
	s.sessions[state.ID] = &memState{state: *state, used: now.UnixNano()}
	return nil
}

// Update implements SessionUpdater, under the store's lock.
func (s *MemorySessionStore) Update(_ context.Context, id string, change func(*SessionState)) (*SessionState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.sessions[id]
	now := time.Now()
	if e == nil || s.expired(e, now) {
		delete(s.sessions, id)
		return nil, ErrNoSession
	}
	st := e.state.clone()
	change(st)
	st.ID = id
	e.state, e.used = *st, now.UnixNano()
	return e.state.clone(), nil
}

// Touch renews a session's life without reading or rewriting it. An HTTP
// handler sharing this store calls it for the sessions it serves from its
// own copy, which it neither loads nor saves, so that one in use does not
// expire here while idle in the store. Touching an unknown id does
// nothing.
func (s *MemorySessionStore) Touch(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.sessions[id]; e != nil && !s.expired(e, time.Now()) {
		e.used = time.Now().UnixNano()
	}
	return nil
}

// Delete implements SessionStore.
func (s *MemorySessionStore) Delete(_ context.Context, id string) error {
	s.mu.Lock()
	delete(s.sessions, id)
	s.mu.Unlock()
	return nil
}

// Len reports how many sessions the store holds.
func (s *MemorySessionStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

func (s *MemorySessionStore) expired(e *memState, now time.Time) bool {
	return s.ttl > 0 && time.Duration(now.UnixNano()-e.used) > s.ttl
}

// evict makes room for one session: it drops the expired ones, or else the
// one used least recently. s.mu is held.
func (s *MemorySessionStore) evict(now time.Time) {
	var oldest string
	var oldestUsed int64
	for id, e := range s.sessions {
		if s.expired(e, now) {
			delete(s.sessions, id)
			continue
		}
		if oldest == "" || e.used < oldestUsed {
			oldest, oldestUsed = id, e.used
		}
	}
	if len(s.sessions) >= s.max {
		delete(s.sessions, oldest)
	}
}

// clone copies the state's own slices; the client's info and capabilities
// are read-only once received, so they are shared.
func (st *SessionState) clone() *SessionState {
	c := *st
	c.Subscriptions = slices.Clone(st.Subscriptions)
	return &c
}
