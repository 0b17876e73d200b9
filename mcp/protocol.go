package mcp

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/gomcp/sdk/jsonrpc"
)

// Methods, in every revision that has them. The comment on each says which
// revisions those are; "stateful revisions" means 2024-11-05 to 2025-11-25,
// whose clients open a session with initialize.
const (
	MethodInitialize             = "initialize"               // stateful revisions
	MethodPing                   = "ping"                     // stateful revisions
	MethodToolsList              = "tools/list"               // all
	MethodToolsCall              = "tools/call"               // all
	MethodResourcesList          = "resources/list"           // all
	MethodResourcesTemplatesList = "resources/templates/list" // all
	MethodResourcesRead          = "resources/read"           // all
	MethodResourcesSubscribe     = "resources/subscribe"      // stateful revisions
	MethodResourcesUnsubscribe   = "resources/unsubscribe"    // stateful revisions
	MethodPromptsList            = "prompts/list"             // all
	MethodPromptsGet             = "prompts/get"              // all
	MethodCompletionComplete     = "completion/complete"      // all
	MethodLoggingSetLevel        = "logging/setLevel"         // stateful revisions
	MethodSamplingCreateMessage  = "sampling/createMessage"   // all; 2026 only inside inputRequests
	MethodElicitationCreate      = "elicitation/create"       // 2025-06-18+; 2026 only inside inputRequests
	MethodRootsList              = "roots/list"               // all; 2026 only inside inputRequests
	MethodServerDiscover         = "server/discover"          // 2026-07-28
	MethodSubscriptionsListen    = "subscriptions/listen"     // 2026-07-28
)

// Notifications, in every revision that has them.
const (
	NotificationInitialized               = "notifications/initialized"                // stateful revisions
	NotificationCancelled                 = "notifications/cancelled"                  // all
	NotificationProgress                  = "notifications/progress"                   // all
	NotificationMessage                   = "notifications/message"                    // all (logging)
	NotificationResourceUpdated           = "notifications/resources/updated"          // all; 2026 only on a listen stream
	NotificationResourceListChanged       = "notifications/resources/list_changed"     // all; 2026 only on a listen stream
	NotificationToolListChanged           = "notifications/tools/list_changed"         // all; 2026 only on a listen stream
	NotificationPromptListChanged         = "notifications/prompts/list_changed"       // all; 2026 only on a listen stream
	NotificationRootsListChanged          = "notifications/roots/list_changed"         // stateful revisions
	NotificationElicitationComplete       = "notifications/elicitation/complete"       // 2025-11-25
	NotificationSubscriptionsAcknowledged = "notifications/subscriptions/acknowledged" // 2026-07-28
)

// Role is the sender or recipient of messages and data in a conversation.
type Role string

// The two roles.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// ResultType says how to read a 2026-07-28 result. Earlier revisions have no
// resultType; an absent value means ResultTypeComplete.
type ResultType string

// Result types defined by the core protocol. Extensions may define more
// (ResultTypeTask is the tasks extension's).
const (
	ResultTypeComplete      ResultType = "complete"
	ResultTypeInputRequired ResultType = "input_required"
	ResultTypeTask          ResultType = "task"
)

// CacheScope says who may share a cached 2026-07-28 result.
type CacheScope string

// Cache scopes.
const (
	// CacheScopePublic results may be shared between users.
	CacheScopePublic CacheScope = "public"
	// CacheScopePrivate results are scoped to one authorization context.
	CacheScopePrivate CacheScope = "private"
)

// CacheHints are the caching fields (SEP-2549) that 2026-07-28 requires on
// complete results of server/discover, tools/list, prompts/list,
// resources/list, resources/templates/list and resources/read. They are
// embedded in those result types and left out of earlier revisions.
type CacheHints struct {
	// TTLMs is how long, in milliseconds, the result stays fresh. It is a
	// pointer because 0 ("do not cache") must still be written; nil leaves
	// the field out. A receiver treats absent or negative values as 0.
	TTLMs *int64 `json:"ttlMs,omitempty"`
	// CacheScope is who may share the cached result.
	CacheScope CacheScope `json:"cacheScope,omitempty"`
}

// ProgressToken identifies the request a progress notification is about: a
// string or an integer, chosen by the requester.
type ProgressToken = jsonrpc.ID

// Implementation names and describes an MCP client or server.
type Implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Title is a display name (2025-06-18+).
	Title string `json:"title,omitempty"`
	// Description, WebsiteURL and Icons are 2025-11-25+.
	Description string `json:"description,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
	Icons       []Icon `json:"icons,omitempty"`
}

// Icon is an image a client may display for an implementation, tool,
// resource or prompt (2025-11-25+). Src is an https: or data: URI.
type Icon struct {
	Src      string `json:"src"`
	MIMEType string `json:"mimeType,omitempty"`
	// Sizes lists sizes such as "48x48", or "any" for scalable images.
	Sizes []string `json:"sizes,omitempty"`
	// Theme is "", IconThemeLight or IconThemeDark: the background the
	// icon is designed for.
	Theme IconTheme `json:"theme,omitempty"`
}

// IconTheme is the background an icon is designed for.
type IconTheme string

// Icon themes.
const (
	IconThemeLight IconTheme = "light" // for a light background
	IconThemeDark  IconTheme = "dark"  // for a dark background
)

// Annotations tell the client how to use or display an object.
type Annotations struct {
	// Audience is who the object is meant for.
	Audience []Role `json:"audience,omitempty"`
	// Priority runs from 0 (least important) to 1 (most important). It is a
	// pointer because 0 is meaningful.
	Priority *float64 `json:"priority,omitempty"`
	// LastModified is an ISO 8601 timestamp (2025-06-18+).
	LastModified string `json:"lastModified,omitempty"`
}

// EmptyResult is the result of methods that return nothing: ping,
// resources/subscribe, resources/unsubscribe and logging/setLevel.
type EmptyResult struct {
	Meta *Meta `json:"_meta,omitempty"`
	// ResultType is required in 2026-07-28 and absent before.
	ResultType ResultType `json:"resultType,omitempty"`
}

// marshalJSONNoEscape is json.Marshal without HTML escaping, so that <, >
// and & inside raw schemas and text come out as they went in. The custom
// MarshalJSON methods of this package all encode through it. Encoders and
// their buffers are pooled; the result is a fresh slice.
func marshalJSONNoEscape(v any) ([]byte, error) {
	e := noEscapePool.Get().(*noEscapeEncoder)
	e.buf.Reset()
	var out []byte
	err := e.enc.Encode(v)
	if err == nil {
		b := e.buf.Bytes()
		out = append(make([]byte, 0, len(b)-1), b[:len(b)-1]...) // Encode appends a newline
	}
	if e.buf.Cap() <= maxPooledBuffer {
		noEscapePool.Put(e)
	}
	return out, err
}

// maxPooledBuffer keeps one huge message from pinning its buffer in the pool.
const maxPooledBuffer = 64 << 10

type noEscapeEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

var noEscapePool = sync.Pool{New: func() any {
	e := new(noEscapeEncoder)
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}}

// emptyJSONObject is the encoding of required objects left nil.
var emptyJSONObject = json.RawMessage("{}")

// nonNilSlice returns s, or an empty slice if s is nil, so that required
// arrays are written as [] rather than null.
func nonNilSlice[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
