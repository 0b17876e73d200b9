package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// The TaskStore is the source of truth for every task: the process that runs
// a task's handler writes its status, questions and result there, and any
// process answers tasks/get, tasks/update and tasks/cancel from it. Change
// notices travel on the server's shared.Notifier (NoticeTaskChanged), so a
// process waiting on a task (a handler waiting for input, a blocking
// tasks/result) re-reads the record when it changes elsewhere.

// Errors a TaskStore returns. Implementations wrap or return them as they
// are; callers test with errors.Is.
var (
	// ErrNotFound: no live task has this id (it never existed or expired).
	ErrNotFound = errors.New("tasks: task not found")
	// ErrExists: Create was given an id already in use.
	ErrExists = errors.New("tasks: task id already exists")
	// ErrFull: the store holds as many live tasks as it is allowed.
	ErrFull = errors.New("tasks: too many live tasks")
)

// NoticeTaskChanged is the shared.Notice method published after a task
// record changed; Notice.Data is the task id.
const NoticeTaskChanged = "tasks/changed"

// Record is a task as stored: plain data with a stable JSON form, so a store
// may keep it anywhere. The zero values of the optional fields mean "none".
type Record struct {
	// ID is the task id, unguessable (128 random bits).
	ID string `json:"id"`
	// Owner is who may read and drive the task: the authenticated principal,
	// or for a task of a stateful session without one, the session id.
	// Stores list tasks per owner.
	Owner string `json:"owner,omitempty"`
	// Session is the id of the stateful session that created the task
	// (2025-11-25 tasks), "" for a 2026-07-28 task.
	Session string `json:"session,omitempty"`
	// Status is the task's state.
	Status TaskStatus `json:"status"`
	// StatusMessage describes the state for people.
	StatusMessage string `json:"statusMessage,omitempty"`
	// CreatedAt and UpdatedAt are set by the Manager.
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	// TTL is how long the task is kept from its creation; 0 means until the
	// store's own bound evicts it.
	TTL time.Duration `json:"ttl,omitempty"`
	// ExpiresAt is CreatedAt+TTL (zero: no expiry). Stores must stop
	// returning the task after it (Redis: PEXPIREAT).
	ExpiresAt time.Time `json:"expiresAt,omitzero"`
	// PollInterval is the polling interval suggested to clients.
	PollInterval time.Duration `json:"pollInterval,omitempty"`
	// InputRequests are the outstanding questions, by key.
	InputRequests map[string]*mcp.InputRequest `json:"inputRequests,omitempty"`
	// InputResponses are answers received (tasks/update) and not yet
	// taken by the handler.
	InputResponses map[string]*mcp.InputResponse `json:"inputResponses,omitempty"`
	// Keys are every input key the task ever used, so that none is reused.
	Keys []string `json:"keys,omitempty"`
	// Result is the request's result once the task completed (the
	// CallToolResult, isError results included), as JSON.
	Result json.RawMessage `json:"result,omitempty"`
	// Error is the JSON-RPC error of a failed task.
	Error *jsonrpc.Error `json:"error,omitempty"`
	// CancelRequested is set by tasks/cancel; the runner cancels the
	// handler's context when it sees it.
	CancelRequested bool `json:"cancelRequested,omitempty"`
	// LeaseUntil is when the task is failed unless the process running its
	// handler renews it (Options.Lease); zero: never.
	LeaseUntil time.Time `json:"leaseUntil,omitzero"`
}

// clone returns a deep copy of r, through its JSON form (which is what a
// remote store would do too), so callers never share maps.
func (r *Record) clone() (*Record, error) {
	raw, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("tasks: encoding task %s: %w", r.ID, err)
	}
	var c Record
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("tasks: decoding task %s: %w", r.ID, err)
	}
	return &c, nil
}

// mustClone copies a record that was stored, and so encodes.
func (r *Record) mustClone() *Record {
	c, err := r.clone()
	if err != nil {
		panic(err) // unreachable: only records that encoded are stored
	}
	return c
}

// A TaskStore keeps task records. Implementations must be safe for
// concurrent use, and Update must be atomic: two Updates of one task never
// interleave (a Redis store runs it as WATCH/MULTI/EXEC with retries, or
// under a compare-and-set on a version). Records given to and returned by a
// store are copies: a store never keeps the caller's pointer.
type TaskStore interface {
	// Create stores a new record. It fails with ErrExists when the id is
	// taken and ErrFull when the store is at its bound. A store may evict
	// expired records to make room. When Create returns, Get finds the
	// record (in every process).
	Create(ctx context.Context, r *Record) error
	// Get returns the record, or ErrNotFound (also once it has expired).
	Get(ctx context.Context, id string) (*Record, error)
	// Update applies fn to the current record and stores the result,
	// atomically; fn may run more than once (on a conflict) and must not
	// have side effects. When fn returns an error, nothing is stored and
	// Update returns that error. Update returns the stored record, or
	// ErrNotFound. fn must not change ID or Owner.
	Update(ctx context.Context, id string, fn func(*Record) error) (*Record, error)
	// List returns the owner's live tasks, oldest first, at most limit
	// (a store may return fewer), and a cursor for the next page ("" at the
	// end). The cursor is opaque to callers; a bad one fails.
	List(ctx context.Context, owner, cursor string, limit int) ([]*Record, string, error)
	// Delete removes a record; deleting a missing one is not an error.
	Delete(ctx context.Context, id string) error
}

// MemoryStoreOptions configure a MemoryStore.
type MemoryStoreOptions struct {
	// MaxTasks bounds the live tasks held; Create fails with ErrFull beyond
	// it. 0 means 10000.
	MaxTasks int
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
}

// MemoryStore is the in-process TaskStore: tasks live as long as the
// process, up to their TTL, and at most MaxTasks at a time.
type MemoryStore struct {
	mu    sync.Mutex
	max   int
	now   func() time.Time
	recs  map[string]*Record
	order []string // ids in creation order, for List; pruned as records go
}

// NewMemoryStore returns an empty MemoryStore; opts may be nil.
func NewMemoryStore(opts *MemoryStoreOptions) *MemoryStore {
	m := &MemoryStore{max: 10000, now: time.Now, recs: make(map[string]*Record)}
	if opts != nil {
		if opts.MaxTasks > 0 {
			m.max = opts.MaxTasks
		}
		if opts.Now != nil {
			m.now = opts.Now
		}
	}
	return m
}

func (m *MemoryStore) expired(r *Record, now time.Time) bool {
	return !r.ExpiresAt.IsZero() && !now.Before(r.ExpiresAt)
}

// sweep drops expired records. m.mu is held.
func (m *MemoryStore) sweep() {
	now := m.now()
	kept := m.order[:0]
	for _, id := range m.order {
		r, ok := m.recs[id]
		if !ok {
			continue
		}
		if m.expired(r, now) {
			delete(m.recs, id)
			continue
		}
		kept = append(kept, id)
	}
	clear(m.order[len(kept):])
	m.order = kept
}

// Create implements TaskStore.
func (m *MemoryStore) Create(_ context.Context, r *Record) error {
	if r == nil || r.ID == "" {
		return errors.New("tasks: a record needs an id")
	}
	c, err := r.clone()
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.recs[c.ID]; ok && !m.expired(old, m.now()) {
		return ErrExists
	}
	if len(m.recs) >= m.max {
		m.sweep()
		if len(m.recs) >= m.max {
			return ErrFull
		}
	}
	if _, ok := m.recs[c.ID]; !ok {
		m.order = append(m.order, c.ID)
	}
	m.recs[c.ID] = c
	return nil
}

// get returns the live record. m.mu is held.
func (m *MemoryStore) get(id string) (*Record, error) {
	r, ok := m.recs[id]
	if !ok {
		return nil, ErrNotFound
	}
	if m.expired(r, m.now()) {
		delete(m.recs, id)
		return nil, ErrNotFound
	}
	return r, nil
}

// Get implements TaskStore.
func (m *MemoryStore) Get(_ context.Context, id string) (*Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.get(id)
	if err != nil {
		return nil, err
	}
	return r.mustClone(), nil
}

// Update implements TaskStore.
func (m *MemoryStore) Update(_ context.Context, id string, fn func(*Record) error) (*Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.get(id)
	if err != nil {
		return nil, err
	}
	c := r.mustClone()
	if err := fn(c); err != nil {
		return nil, err
	}
	c.ID, c.Owner = r.ID, r.Owner
	out, err := c.clone() // checks that the new record encodes
	if err != nil {
		return nil, err
	}
	m.recs[id] = c
	return out, nil
}

// List implements TaskStore. The cursor is the id of the last task of the
// previous page.
func (m *MemoryStore) List(_ context.Context, owner, cursor string, limit int) ([]*Record, string, error) {
	if limit <= 0 {
		limit = 50
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep()
	start := 0
	if cursor != "" {
		start = -1
		for j, id := range m.order {
			if id == cursor {
				start = j + 1
				break
			}
		}
		if start < 0 {
			return nil, "", errors.New("tasks: invalid cursor")
		}
	}
	var out []*Record
	for j := start; j < len(m.order); j++ {
		r := m.recs[m.order[j]]
		if r == nil || r.Owner != owner {
			continue
		}
		if len(out) == limit {
			return out, out[len(out)-1].ID, nil
		}
		out = append(out, r.mustClone())
	}
	return out, "", nil
}

var _ LeaseRenewer = (*MemoryStore)(nil)

// RenewLeases implements LeaseRenewer.
func (m *MemoryStore) RenewLeases(_ context.Context, ids []string, until time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, id := range ids {
		if r, err := m.get(id); err == nil && !r.Status.Terminal() {
			r.LeaseUntil = until
		}
	}
	return nil
}

// Delete implements TaskStore.
func (m *MemoryStore) Delete(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.recs, id)
	return nil
}
