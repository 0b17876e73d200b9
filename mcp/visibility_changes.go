package mcp

import (
	"encoding/binary"
	"hash"
	"hash/fnv"
	"sync/atomic"
)

// list_changed notifications with per-request visibility: a client is told
// that a list changed only when what it sees of that list changed. Each
// stateful session and each subscriptions/listen stream keeps, once a
// visibility function is installed, a fingerprint of what it was last shown
// of each list: three numbers, whatever the number of features.

// VisibilityChanged says that what the installed visibility functions
// answer may have changed (a user was granted a role, say), for the kinds
// given (all when none are): the server re-evaluates the view of every
// client connected to this process and sends notifications/*/list_changed
// to those whose view changed, as it does when features are added or
// removed. Other processes of a deployment are not told: each process calls
// VisibilityChanged itself. It does nothing when no function is installed.
func (s *Server) VisibilityChanged(kinds ...FeatureKind) {
	if s.visibility() == nil {
		return
	}
	if len(kinds) == 0 {
		kinds = []FeatureKind{FeatureTool, FeaturePrompt, FeatureResource}
	}
	for _, k := range kinds {
		switch k {
		case FeatureTool:
			s.notifyListChanged(NotificationToolListChanged)
		case FeaturePrompt:
			s.notifyListChanged(NotificationPromptListChanged)
		case FeatureResource, FeatureResourceTemplate:
			s.notifyListChanged(NotificationResourceListChanged)
		}
	}
}

// listMethods are the list_changed notifications, in the order of
// viewPrints.
var listMethods = [...]string{NotificationToolListChanged, NotificationPromptListChanged, NotificationResourceListChanged}

// viewPrints are the fingerprints of what one client was last shown of each
// list (listMethods); 0 is unknown.
type viewPrints [len(listMethods)]atomic.Uint64

// remember records the current fingerprints of every list of w.
func (s *Server) remember(w view, p *viewPrints) {
	if w.fns == nil {
		return
	}
	for i := range listMethods {
		p[i].Store(s.fingerprint(w, i))
	}
}

// viewChanged reports whether the client of view w, whose fingerprints are
// p, must hear that the list of method changed: always when no function is
// installed, else when what it sees of that list differs from what it was
// last shown (which it records).
func (s *Server) viewChanged(w view, p *viewPrints, method string) bool {
	if w.fns == nil {
		return true
	}
	for i, m := range listMethods {
		if m == method {
			fp := s.fingerprint(w, i)
			return p[i].Swap(fp) != fp
		}
	}
	return true
}

// fingerprint hashes what w sees of list i: the generations of the visible
// entries, which change whenever an entry is added, replaced or removed.
func (s *Server) fingerprint(w view, i int) uint64 {
	h := fnv.New64a()
	switch listMethods[i] {
	case NotificationToolListChanged:
		hashView(h, w, &s.tools, toolFeature)
	case NotificationPromptListChanged:
		hashView(h, w, &s.prompts, promptFeature)
	case NotificationResourceListChanged:
		hashView(h, w, &s.resources, resourceFeature)
		h.Write([]byte{0}) // resources and templates number their entries apart
		hashView(h, w, &s.templates, templateFeature)
	}
	return h.Sum64() | 1
}

func hashView[T any](h hash.Hash64, w view, reg *registry[T], feature func(T) Feature) {
	snap := reg.load()
	var b [8]byte
	for _, k := range snap.keys {
		if w.sees(feature(snap.byKey[k])) {
			binary.LittleEndian.PutUint64(b[:], snap.gen[k])
			h.Write(b[:])
		}
	}
}

// readable reports whether the client of w may read uri: whether a
// notifications/resources/updated about it may reach that client.
func (s *Server) readable(w view, uri string) bool {
	return w.fns == nil || s.findResource(w, uri) != nil
}
