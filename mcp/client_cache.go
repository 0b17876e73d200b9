package mcp

import (
	"encoding/json"
	"sync"
	"time"
)

// The client honours the caching hints of 2026-07-28 results (SEP-2549): a
// complete result of server/discover, a list method or resources/read with
// ttlMs > 0 is reused until it expires, without asking the server again. A
// list_changed notification drops the cached pages of that list, and a
// resources/updated notification the cached read of that resource.
//
// Entries are keyed by method and the params that select the result (the
// cursor, the URI), never by input-required retries, which are not cached.

type resultCache struct {
	mu      sync.Mutex
	entries map[string]cacheEntry
}

type cacheEntry struct {
	raw     json.RawMessage
	expires time.Time
	method  string
	uri     string
}

func cacheable(method string) bool {
	switch method {
	case MethodServerDiscover, MethodToolsList, MethodPromptsList, MethodResourcesList, MethodResourcesTemplatesList, MethodResourcesRead:
		return true
	}
	return false
}

// cacheKey names the result params select. ok is false for requests that
// must not be cached.
func cacheKey(method string, params any) (key, uri string, ok bool) {
	switch p := params.(type) {
	case *ListToolsParams:
		return method + "\x00" + p.Cursor, "", true
	case *ListPromptsParams:
		return method + "\x00" + p.Cursor, "", true
	case *ListResourcesParams:
		return method + "\x00" + p.Cursor, "", true
	case *ListResourceTemplatesParams:
		return method + "\x00" + p.Cursor, "", true
	case *ReadResourceParams:
		if p.InputResponses != nil || p.RequestState != "" {
			return "", "", false
		}
		return method + "\x00" + p.URI, p.URI, true
	case *DiscoverParams:
		return method, "", true
	}
	return "", "", false
}

func (c *resultCache) get(key string) (json.RawMessage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		return nil, false
	}
	if time.Now().After(e.expires) {
		delete(c.entries, key)
		return nil, false
	}
	return e.raw, true
}

// put stores a complete result whose hints allow reuse.
func (c *resultCache) put(key, method, uri string, raw json.RawMessage) {
	var hints struct {
		ResultType ResultType `json:"resultType"`
		CacheHints
	}
	if json.Unmarshal(raw, &hints) != nil || hints.TTLMs == nil || *hints.TTLMs <= 0 ||
		(hints.ResultType != "" && hints.ResultType != ResultTypeComplete) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = make(map[string]cacheEntry)
	}
	c.entries[key] = cacheEntry{raw: raw, expires: time.Now().Add(time.Duration(*hints.TTLMs) * time.Millisecond), method: method, uri: uri}
}

// invalidate drops the entries a notification makes stale.
func (c *resultCache) invalidate(notification, uri string) {
	var method string
	switch notification {
	case NotificationToolListChanged:
		method = MethodToolsList
	case NotificationPromptListChanged:
		method = MethodPromptsList
	case NotificationResourceListChanged:
		method = MethodResourcesList
	case NotificationResourceUpdated:
		method = MethodResourcesRead
	default:
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.entries {
		if e.method == method || (method == MethodResourcesList && e.method == MethodResourcesTemplatesList) {
			if method != MethodResourcesRead || e.uri == uri {
				delete(c.entries, k)
			}
		}
	}
}
