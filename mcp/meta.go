package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/gomcp/sdk/jsonrpc"
)

// Reserved _meta keys with a typed field in Meta.
const (
	metaKeyProgressToken          = "progressToken"
	metaKeyProtocolVersion        = "io.modelcontextprotocol/protocolVersion"          // 2026 request
	metaKeyClientCapabilities     = "io.modelcontextprotocol/clientCapabilities"       // 2026 request
	metaKeyClientInfo             = "io.modelcontextprotocol/clientInfo"               // 2026 request
	metaKeyLogLevel               = "io.modelcontextprotocol/logLevel"                 // 2026 request
	metaKeySubscriptionID         = "io.modelcontextprotocol/subscriptionId"           // 2026 listen notifications and result
	metaKeyServerInfo             = "io.modelcontextprotocol/serverInfo"               // 2026 result
	metaKeyRelatedTask            = "io.modelcontextprotocol/related-task"             // 2025-11-25 tasks
	metaKeyModelImmediateResponse = "io.modelcontextprotocol/model-immediate-response" // 2025-11-25 tasks.CreateTaskResult
	metaKeyTraceParent            = "traceparent"                                      // W3C trace context (SEP-414)
	metaKeyTraceState             = "tracestate"                                       // W3C trace context (SEP-414)
	metaKeyBaggage                = "baggage"                                          // W3C baggage (SEP-414)
)

// Meta is the _meta object that params, results and many protocol objects
// carry. The keys MCP reserves have typed fields; every other key is kept,
// raw, in Extra, so a message read and written again keeps all its metadata.
//
// A typed field that is zero is left out. A reserved key whose value has the
// wrong JSON type is a decoding error (for a request, invalid params), since
// a peer that sends it is broken.
type Meta struct {
	// ProgressToken asks the receiver for notifications/progress about this
	// request.
	ProgressToken ProgressToken

	// ProtocolVersion, ClientCapabilities, ClientInfo and LogLevel are the
	// per-request fields of a 2026-07-28 request. ClientCapabilities is a
	// pointer so that {} ("no optional capabilities") differs from absent.
	// LogLevel zero means absent: no logs for this request.
	ProtocolVersion    string
	ClientCapabilities *ClientCapabilities
	ClientInfo         *Implementation
	LogLevel           LoggingLevel

	// SubscriptionID tags every message of a 2026-07-28 subscriptions/listen
	// stream with the listen request's id.
	SubscriptionID jsonrpc.ID

	// ServerInfo identifies the server on a 2026-07-28 result.
	ServerInfo *Implementation

	// RelatedTask ties a message to a 2025-11-25 task.
	RelatedTask *RelatedTaskMetadata

	// ModelImmediateResponse is the text a host may hand the model at once
	// while a 2025-11-25 task runs (on tasks.CreateTaskResult).
	ModelImmediateResponse string

	// TraceParent, TraceState and Baggage propagate OpenTelemetry context.
	TraceParent string
	TraceState  string
	Baggage     string

	// Extra holds every other key, each value as raw JSON.
	Extra map[string]json.RawMessage

	// clientJSON, when set, is the encoding of the ClientCapabilities and
	// ClientInfo members, computed once per client (see requestMeta).
	clientJSON []byte
	// serverJSON, when set, is the encoding of the ServerInfo member,
	// computed once per server (see stampResult).
	serverJSON []byte
}

// MarshalJSON writes the typed fields that are set, in a fixed order, then
// Extra in key order, so the output is deterministic. An Extra entry is
// written only when no typed field claims its key.
func (m Meta) MarshalJSON() ([]byte, error) {
	return m.appendJSON(make([]byte, 0, 128))
}

// appendJSON appends what MarshalJSON writes to b.
func (m *Meta) appendJSON(b []byte) ([]byte, error) {
	w := metaWriter{b: append(b, '{')}
	if err := m.writeTyped(&w); err != nil {
		return nil, err
	}
	if err := m.writeExtra(&w); err != nil {
		return nil, err
	}
	return append(w.b, '}'), nil
}

// metaWriter builds the members of a _meta object. The first error of
// value is kept in err; nothing written after it matters.
type metaWriter struct {
	b   []byte
	err error
}

// key writes the separator, if needed, and the member name k.
func (w *metaWriter) key(k string) {
	w.sep()
	w.b = jsonrpc.AppendString(w.b, k, false)
	w.b = append(w.b, ':')
}

// sep writes the comma before a member that is not the first.
func (w *metaWriter) sep() {
	if w.b[len(w.b)-1] != '{' {
		w.b = append(w.b, ',')
	}
}

// value writes the member k with v encoded.
func (w *metaWriter) value(k string, v any) {
	if w.err != nil {
		return
	}
	raw, err := marshalJSONNoEscape(v)
	if err != nil {
		w.err = fmt.Errorf("mcp: _meta %q: %w", k, err)
		return
	}
	w.key(k)
	w.b = append(w.b, raw...)
}

// str writes the member k with the string v.
func (w *metaWriter) str(k, v string) {
	w.key(k)
	w.b = jsonrpc.AppendString(w.b, v, false)
}

// writeTyped writes the typed fields that are set, in a fixed order.
func (m *Meta) writeTyped(w *metaWriter) error {
	if !m.ProgressToken.IsZero() {
		w.key(metaKeyProgressToken)
		w.b = m.ProgressToken.AppendJSON(w.b)
	}
	if m.ProtocolVersion != "" {
		w.str(metaKeyProtocolVersion, m.ProtocolVersion)
	}
	if m.clientJSON != nil {
		w.sep()
		w.b = append(w.b, m.clientJSON...)
	} else {
		if m.ClientCapabilities != nil {
			w.value(metaKeyClientCapabilities, m.ClientCapabilities)
		}
		if m.ClientInfo != nil {
			w.value(metaKeyClientInfo, m.ClientInfo)
		}
	}
	if m.LogLevel != 0 {
		if !m.LogLevel.valid() {
			return fmt.Errorf("mcp: _meta %q: invalid logging level %d", metaKeyLogLevel, int8(m.LogLevel))
		}
		w.str(metaKeyLogLevel, levelNames[m.LogLevel])
	}
	if !m.SubscriptionID.IsZero() {
		w.key(metaKeySubscriptionID)
		w.b = m.SubscriptionID.AppendJSON(w.b)
	}
	if m.serverJSON != nil {
		w.sep()
		w.b = append(w.b, m.serverJSON...)
	} else if m.ServerInfo != nil {
		w.value(metaKeyServerInfo, m.ServerInfo)
	}
	if m.RelatedTask != nil {
		w.value(metaKeyRelatedTask, m.RelatedTask)
	}
	for _, f := range [...]struct{ k, v string }{
		{metaKeyModelImmediateResponse, m.ModelImmediateResponse},
		{metaKeyTraceParent, m.TraceParent},
		{metaKeyTraceState, m.TraceState},
		{metaKeyBaggage, m.Baggage},
	} {
		if f.v != "" {
			w.str(f.k, f.v)
		}
	}
	return w.err
}

// writeExtra writes the Extra entries no typed field claims, in key order.
func (m *Meta) writeExtra(w *metaWriter) error {
	if len(m.Extra) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m.Extra))
	for k := range m.Extra {
		if !m.claims(k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := m.Extra[k]
		if !json.Valid(v) {
			if len(v) != 0 {
				return fmt.Errorf("mcp: _meta %q: invalid JSON", k)
			}
			v = json.RawMessage("null")
		}
		w.key(k)
		w.b = append(w.b, v...)
	}
	return nil
}

// claims reports whether a set typed field is written under key.
func (m *Meta) claims(key string) bool {
	switch key {
	case metaKeyProgressToken:
		return !m.ProgressToken.IsZero()
	case metaKeyProtocolVersion:
		return m.ProtocolVersion != ""
	case metaKeyClientCapabilities:
		return m.ClientCapabilities != nil
	case metaKeyClientInfo:
		return m.ClientInfo != nil
	case metaKeyLogLevel:
		return m.LogLevel != 0
	case metaKeySubscriptionID:
		return !m.SubscriptionID.IsZero()
	case metaKeyServerInfo:
		return m.ServerInfo != nil
	case metaKeyRelatedTask:
		return m.RelatedTask != nil
	case metaKeyModelImmediateResponse:
		return m.ModelImmediateResponse != ""
	case metaKeyTraceParent:
		return m.TraceParent != ""
	case metaKeyTraceState:
		return m.TraceState != ""
	case metaKeyBaggage:
		return m.Baggage != ""
	}
	return false
}

var errMetaNotObject = errors.New("mcp: _meta must be an object")

// UnmarshalJSON reads the reserved keys into the typed fields and keeps the
// rest in Extra (nil when there are none). A JSON null for a reserved key
// leaves its field zero. It walks the object once, decoding only the values
// of reserved keys; Extra values are copies, so data may be reused.
func (m *Meta) UnmarshalJSON(data []byte) error { return m.decode(data, nil) }

// metaCache remembers the last client capabilities and client info a
// session decoded from request _meta, by their raw bytes: a 2026-07-28
// client sends the same ones with every request, and decoding them is most
// of the cost of reading _meta. The decoded values are shared, so they must
// be treated as read-only (as every received value is).
type metaCache struct {
	mu      sync.Mutex
	capsRaw []byte
	caps    *ClientCapabilities
	infoRaw []byte
	info    *Implementation
}

func (c *metaCache) clientCapabilities(raw []byte) (*ClientCapabilities, error) {
	c.mu.Lock()
	if c.caps != nil && bytes.Equal(c.capsRaw, raw) {
		v := c.caps
		c.mu.Unlock()
		return v, nil
	}
	c.mu.Unlock()
	v := new(ClientCapabilities)
	if err := json.Unmarshal(raw, v); err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.capsRaw, c.caps = bytes.Clone(raw), v
	c.mu.Unlock()
	return v, nil
}

func (c *metaCache) clientInfo(raw []byte) (*Implementation, error) {
	c.mu.Lock()
	if c.info != nil && bytes.Equal(c.infoRaw, raw) {
		v := c.info
		c.mu.Unlock()
		return v, nil
	}
	c.mu.Unlock()
	v, err := decodeImplementation(raw)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.infoRaw, c.info = bytes.Clone(raw), v
	c.mu.Unlock()
	return v, nil
}

// decodeImplementation decodes an Implementation, the serverInfo in the
// _meta of every 2026-07-28 result (a gateway decodes one per forwarded
// call) and the clientInfo of every request: without encoding/json's
// reflection when it has only its string members, without escapes, as it
// almost always has (Implementation.decodeFast, as initialize uses);
// anything else (icons, a member that is not a plain string, a key that
// matches only case-insensitively) through json.Unmarshal, whose result
// and errors it then has.
func decodeImplementation(raw []byte) (*Implementation, error) {
	v := new(Implementation)
	if v.decodeFast(raw) != nil {
		*v = Implementation{}
		if err := json.Unmarshal(raw, v); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// decode is UnmarshalJSON, taking client capabilities and info from c
// when it has them.
func (m *Meta) decode(data []byte, c *metaCache) error {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return errMetaNotObject
	}
	*m = Meta{}
	return eachMember(data, func(rawKey, v []byte) error {
		// Reserved keys never need unescaping; compare the raw bytes
		// so that no string is allocated per key.
		kb := rawKey[1 : len(rawKey)-1]
		if bytes.IndexByte(kb, '\\') >= 0 {
			s, ok := unquote(rawKey)
			if !ok {
				return errSyntax
			}
			kb = []byte(s)
		}
		if string(v) == "null" && m.reserved(string(kb)) {
			return nil
		}
		var err error
		switch string(kb) {
		case metaKeyProgressToken:
			err = m.ProgressToken.UnmarshalJSON(v)
		case metaKeyProtocolVersion:
			m.ProtocolVersion, err = metaString(v)
		case metaKeyClientCapabilities:
			if c != nil {
				m.ClientCapabilities, err = c.clientCapabilities(v)
				break
			}
			m.ClientCapabilities = new(ClientCapabilities)
			err = json.Unmarshal(v, m.ClientCapabilities)
		case metaKeyClientInfo:
			if c != nil {
				m.ClientInfo, err = c.clientInfo(v)
				break
			}
			m.ClientInfo, err = decodeImplementation(v)
		case metaKeyLogLevel:
			var name string
			if name, err = metaString(v); err == nil {
				err = m.LogLevel.UnmarshalText([]byte(name))
			}
		case metaKeySubscriptionID:
			err = m.SubscriptionID.UnmarshalJSON(v)
		case metaKeyServerInfo:
			m.ServerInfo, err = decodeImplementation(v)
		case metaKeyRelatedTask:
			m.RelatedTask = new(RelatedTaskMetadata)
			err = json.Unmarshal(v, m.RelatedTask)
		case metaKeyModelImmediateResponse:
			m.ModelImmediateResponse, err = metaString(v)
		case metaKeyTraceParent:
			m.TraceParent, err = metaString(v)
		case metaKeyTraceState:
			m.TraceState, err = metaString(v)
		case metaKeyBaggage:
			m.Baggage, err = metaString(v)
		default:
			if m.Extra == nil {
				m.Extra = make(map[string]json.RawMessage)
			}
			m.Extra[string(kb)] = bytes.Clone(v)
		}
		if err != nil {
			return fmt.Errorf("mcp: _meta %q: %w", kb, err)
		}
		return nil
	})
}

// reserved reports whether k is a key with a typed field.
func (m *Meta) reserved(k string) bool {
	switch k {
	case metaKeyProgressToken, metaKeyProtocolVersion, metaKeyClientCapabilities,
		metaKeyClientInfo, metaKeyLogLevel, metaKeySubscriptionID, metaKeyServerInfo,
		metaKeyRelatedTask, metaKeyModelImmediateResponse, metaKeyTraceParent,
		metaKeyTraceState, metaKeyBaggage:
		return true
	}
	return false
}

var errNotString = errors.New("must be a string")

func metaString(v []byte) (string, error) {
	s, ok := unquote(v)
	if !ok {
		return "", errNotString
	}
	return s, nil
}
