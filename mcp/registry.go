package mcp

import (
	"encoding/base64"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gomcp/sdk/jsonrpc"
)

// registry holds one kind of feature (tools, prompts, resources, templates)
// keyed by name or URI. Readers take an immutable snapshot without locking,
// so a tools/call never contends with another; writers copy on write.
type registry[T any] struct {
	mu   sync.Mutex // serializes writers
	snap atomic.Pointer[snapshot[T]]
	seq  uint64 // the last generation given; guarded by mu
}

type snapshot[T any] struct {
	byKey map[string]T
	keys  []string       // insertion order: deterministic listing
	pos   map[string]int // key -> index in keys, for cursors
	// gen numbers each entry's registration, so that replacing an entry
	// changes a view's fingerprint (see fingerprint).
	gen map[string]uint64
}

func (r *registry[T]) load() *snapshot[T] {
	if s := r.snap.Load(); s != nil {
		return s
	}
	return &snapshot[T]{}
}

// put adds entries, or replaces them in place (keeping their position).
func (r *registry[T]) put(keys []string, vals []T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.load()
	next := &snapshot[T]{byKey: maps.Clone(old.byKey), keys: slices.Clone(old.keys), gen: maps.Clone(old.gen)}
	if next.byKey == nil {
		next.byKey = make(map[string]T, len(keys))
		next.gen = make(map[string]uint64, len(keys))
	}
	for i, k := range keys {
		if _, exists := next.byKey[k]; !exists {
			next.keys = append(next.keys, k)
		}
		next.byKey[k] = vals[i]
		r.seq++
		next.gen[k] = r.seq
	}
	next.index()
	r.snap.Store(next)
}

// remove deletes entries and reports whether any existed.
func (r *registry[T]) remove(keys ...string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.load()
	next := &snapshot[T]{byKey: maps.Clone(old.byKey), gen: maps.Clone(old.gen)}
	changed := false
	for _, k := range keys {
		if _, ok := next.byKey[k]; ok {
			delete(next.byKey, k)
			delete(next.gen, k)
			changed = true
		}
	}
	if !changed {
		return false
	}
	for _, k := range old.keys {
		if _, ok := next.byKey[k]; ok {
			next.keys = append(next.keys, k)
		}
	}
	next.index()
	r.snap.Store(next)
	return true
}

func (s *snapshot[T]) index() {
	s.pos = make(map[string]int, len(s.keys))
	for i, k := range s.keys {
		s.pos[k] = i
	}
}

func (r *registry[T]) get(key string) (T, bool) {
	v, ok := r.load().byKey[key]
	return v, ok
}

func (r *registry[T]) len() int { return len(r.load().keys) }

// page returns up to size entries after the entry the opaque cursor names,
// and the cursor of the next page ("" at the end). A cursor that page did not
// produce, or whose entry has since been removed, is refused with
// CodeInvalidParams (the client starts listing again).
//
// keep, if not nil, filters the entries (per-request visibility): only
// those it keeps are counted and returned, a page is filled from the entries
// after it, a cursor names only a kept entry (one naming any other is
// refused, as if its entry did not exist), and the next cursor is given only
// when a kept entry follows.
func (r *registry[T]) page(cursor string, size int, keep func(T) bool) ([]T, string, error) {
	s := r.load()
	start := 0
	if cursor != "" {
		after, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil || len(after) == 0 || after[0] != 'k' {
			return nil, "", invalidCursor()
		}
		i, ok := s.pos[string(after[1:])]
		if !ok || (keep != nil && !keep(s.byKey[s.keys[i]])) {
			return nil, "", invalidCursor()
		}
		start = i + 1
	}
	if keep != nil {
		return s.pageKept(start, size, keep)
	}
	end := len(s.keys)
	if size > 0 && start+size < end {
		end = start + size
	}
	out := make([]T, 0, end-start)
	for _, k := range s.keys[start:end] {
		out = append(out, s.byKey[k])
	}
	next := ""
	if end < len(s.keys) {
		next = cursorFor(s.keys[end-1])
	}
	return out, next, nil
}

// pageKept is page's filtered walk from index start.
func (s *snapshot[T]) pageKept(start, size int, keep func(T) bool) ([]T, string, error) {
	var out []T
	last := ""
	for _, k := range s.keys[start:] {
		v := s.byKey[k]
		if !keep(v) {
			continue
		}
		if size > 0 && len(out) == size {
			return out, cursorFor(last), nil // a kept entry follows
		}
		out = append(out, v)
		last = k
	}
	return out, "", nil
}

func invalidCursor() *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid cursor")
}

func cursorFor(key string) string { return base64.RawURLEncoding.EncodeToString([]byte("k" + key)) }

// all returns every entry in order.
func (r *registry[T]) all() []T {
	s := r.load()
	out := make([]T, 0, len(s.keys))
	for _, k := range s.keys {
		out = append(out, s.byKey[k])
	}
	return out
}
