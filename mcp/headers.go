package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/gomcp/sdk/jsonrpc"
)

// Standard headers (SEP-2243, 2026-07-28). Over HTTP a stateless request
// repeats parts of its body in headers, so that proxies and gateways can
// route and authorize without parsing JSON: MCP-Protocol-Version, Mcp-Method,
// Mcp-Name (the tool or prompt name, or the resource URI), and Mcp-Param-X
// for each tool argument whose schema carries "x-mcp-header": "X".
//
// The client computes them here, from the request and the tool schemas it
// has listed, and hands them to the transport through the context of the
// write (see HTTPHeaders); the server side checks them with ParamHeaders,
// EncodeHeaderValue and DecodeHeaderValue.

// Header names of SEP-2243.
const (
	HeaderProtocolVersion = "MCP-Protocol-Version"
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
	HeaderParamPrefix     = "Mcp-Param-"
)

// ParamHeader is one tool argument mirrored into a header.
type ParamHeader struct {
	// Name is the header name without the Mcp-Param- prefix.
	Name string
	// Path is the property path from the arguments object to the value.
	Path []string
	// Type is the property's JSON type: string, integer or boolean.
	Type string
}

// ParamHeaders returns the x-mcp-header annotations of a tool's input
// schema. An invalid annotation (empty or not an RFC 9110 token, on a type
// other than string, integer or boolean, a duplicate name ignoring case, or
// one not statically reachable: anywhere but at the end of a chain of
// "properties" keys from the root, such as under items, oneOf, $defs or
// if/then/else) is an error: clients drop such tools.
func ParamHeaders(inputSchema json.RawMessage) ([]ParamHeader, error) {
	if len(inputSchema) == 0 || !bytes.Contains(inputSchema, []byte("x-mcp-header")) {
		return nil, nil
	}
	var root map[string]any
	if err := json.Unmarshal(inputSchema, &root); err != nil {
		return nil, err
	}
	var out []ParamHeader
	seen := map[string]bool{}
	var walk func(schema map[string]any, path []string) error
	walk = func(schema map[string]any, path []string) error {
		for _, k := range sortedKeys(schema) {
			if k != "properties" && !dataKeyword[k] {
				if err := unreachableHeader(schema[k], path); err != nil {
					return err
				}
			}
		}
		props, _ := schema["properties"].(map[string]any)
		for _, name := range sortedKeys(props) {
			prop, ok := props[name].(map[string]any)
			if !ok {
				continue
			}
			p := append(append([]string(nil), path...), name)
			if raw, has := prop["x-mcp-header"]; has {
				h, ok := raw.(string)
				if !ok || !isToken(h) {
					return fmt.Errorf("property %q: x-mcp-header %q is not a valid header name", strings.Join(p, "."), raw)
				}
				typ, _ := prop["type"].(string)
				if typ != "string" && typ != "integer" && typ != "boolean" {
					return fmt.Errorf("property %q: x-mcp-header on a %v property (only string, integer and boolean)", strings.Join(p, "."), prop["type"])
				}
				key := strings.ToLower(h)
				if seen[key] {
					return fmt.Errorf("x-mcp-header %q is used twice", h)
				}
				seen[key] = true
				out = append(out, ParamHeader{Name: h, Path: p, Type: typ})
			}
			if err := walk(prop, p); err != nil {
				return err
			}
		}
		return nil
	}
	if _, has := root["x-mcp-header"]; has {
		return nil, fmt.Errorf("x-mcp-header on the schema root, not on a property")
	}
	if err := walk(root, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// dataKeyword names the JSON Schema keywords whose values are instances,
// not schemas: an "x-mcp-header" key inside them is data.
var dataKeyword = map[string]bool{"const": true, "default": true, "enum": true, "examples": true, "x-mcp-header": true}

// unreachableHeader reports an x-mcp-header annotation anywhere in v, a
// part of a schema that is not statically reachable (a keyword other than
// properties: items, oneOf, $defs, if/then/else, ...). path is where v
// hangs, for the message.
func unreachableHeader(v any, path []string) error {
	switch v := v.(type) {
	case map[string]any:
		if _, has := v["x-mcp-header"]; has {
			return fmt.Errorf("x-mcp-header under %q is not statically reachable (only a chain of properties keys is)", strings.Join(path, "."))
		}
		for _, k := range sortedKeys(v) {
			if dataKeyword[k] {
				continue
			}
			if err := unreachableHeader(v[k], path); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range v {
			if err := unreachableHeader(e, path); err != nil {
				return err
			}
		}
	}
	return nil
}

// isToken reports whether s is a non-empty RFC 9110 token.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return true
}

const (
	b64Prefix = "=?base64?"
	b64Suffix = "?="
)

// EncodeHeaderValue renders a value for a standard header: strings as they
// are, integers in decimal, booleans as true or false. A string with
// characters outside visible ASCII, leading or trailing white space, or that
// already looks like the wrapper is sent as =?base64?<base64 of UTF-8>?=.
// It reports false for values that have no header form (null, objects,
// arrays, non-integral numbers).
func EncodeHeaderValue(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return encodeHeaderString(v), true
	case bool:
		return strconv.FormatBool(v), true
	case json.Number:
		if n, err := v.Int64(); err == nil && n <= maxSafeInt && n >= -maxSafeInt {
			return strconv.FormatInt(n, 10), true
		}
		// An integer written with a fraction or exponent (42.0, 4.2e1).
		if f, err := v.Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) <= maxSafeInt {
			return strconv.FormatInt(int64(f), 10), true
		}
	case float64:
		if v == math.Trunc(v) && math.Abs(v) <= maxSafeInt {
			return strconv.FormatInt(int64(v), 10), true
		}
	case int:
		return strconv.Itoa(v), true
	case int64:
		return strconv.FormatInt(v, 10), true
	}
	return "", false
}

const maxSafeInt = 1<<53 - 1

func encodeHeaderString(s string) string {
	safe := !(strings.HasPrefix(s, b64Prefix) && strings.HasSuffix(s, b64Suffix)) &&
		strings.TrimSpace(s) == s
	for i := 0; safe && i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			safe = false
		}
	}
	if safe {
		return s
	}
	return b64Prefix + base64.StdEncoding.EncodeToString([]byte(s)) + b64Suffix
}

// DecodeHeaderValue undoes EncodeHeaderValue's wrapping. A value in the
// wrapper whose base64 is malformed is an error; anything else is literal.
// Surrounding white space, which HTTP does not preserve, is trimmed.
func DecodeHeaderValue(v string) (string, error) {
	v = strings.TrimSpace(v)
	if !strings.HasPrefix(v, b64Prefix) || !strings.HasSuffix(v, b64Suffix) || len(v) < len(b64Prefix)+len(b64Suffix) {
		return v, nil
	}
	b, err := base64.StdEncoding.Strict().DecodeString(v[len(b64Prefix) : len(v)-len(b64Suffix)])
	if err != nil {
		return "", fmt.Errorf("malformed base64 header value: %w", err)
	}
	return string(b), nil
}

// ArgumentAt returns the argument at path in a tool's arguments, and
// whether it is present and not null.
func ArgumentAt(args json.RawMessage, path []string) (any, bool) {
	if len(args) == 0 {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[p]; !ok {
			return nil, false
		}
	}
	return v, v != nil
}

type headersKey struct{}

// HTTPHeaders returns the standard headers the client computed for the
// request written with ctx (nil for requests of stateful sessions). A transport that
// carries headers sends them.
func HTTPHeaders(ctx context.Context) http.Header {
	if h, ok := ctx.Value(headersKey{}).(*headersCtx); ok {
		return h.cs.standardHeaders(h.version, h.method, h.params)
	}
	if h, ok := ctx.Value(givenHeadersKey{}).(http.Header); ok {
		return h
	}
	return nil
}

type givenHeadersKey struct{}

// WithHTTPHeaders returns a context under which a write sends h as the
// standard headers of a stateless request. It is for relays that forward
// requests they did not build (mcp proxy): a ClientSession computes its own.
func WithHTTPHeaders(ctx context.Context, h http.Header) context.Context {
	return context.WithValue(ctx, givenHeadersKey{}, h)
}

// headersCtx carries what the standard headers of a request are computed
// from, so that only transports that send headers pay for them. It is one
// allocation per request instead of a header map and a context value.
type headersCtx struct {
	context.Context
	cs      *ClientSession
	version string
	method  string
	params  any
}

func (h *headersCtx) Value(key any) any {
	if key == (headersKey{}) {
		return h
	}
	return h.Context.Value(key)
}

// standardHeaders computes the SEP-2243 headers of a stateless request.
func (cs *ClientSession) standardHeaders(version, method string, params any) http.Header {
	h := http.Header{}
	h.Set(HeaderProtocolVersion, version)
	h.Set(HeaderMethod, method)
	switch p := params.(type) {
	case *CallToolParams:
		h.Set(HeaderName, encodeHeaderString(p.Name))
		cs.mu.Lock()
		hdrs := cs.paramHeaders[p.Name]
		cs.mu.Unlock()
		for _, ph := range hdrs {
			if v, ok := ArgumentAt(p.Arguments, ph.Path); ok {
				if s, ok := EncodeHeaderValue(v); ok {
					h.Set(HeaderParamPrefix+ph.Name, s)
				}
			}
		}
	case *GetPromptParams:
		h.Set(HeaderName, encodeHeaderString(p.Name))
	case *ReadResourceParams:
		h.Set(HeaderName, encodeHeaderString(p.URI))
	case *GetTaskParams:
		h.Set(HeaderName, encodeHeaderString(p.TaskID))
	case *CancelTaskParams:
		h.Set(HeaderName, encodeHeaderString(p.TaskID))
	case *UpdateTaskParams:
		h.Set(HeaderName, encodeHeaderString(p.TaskID))
	}
	return h
}

// keepValidTools drops, with a warning, the tools whose x-mcp-header
// annotations are invalid (a stateless client must not call them), and
// remembers the headers of the others.
func (cs *ClientSession) keepValidTools(tools []*Tool) []*Tool {
	kept := tools[:0]
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.paramHeaders == nil {
		cs.paramHeaders = make(map[string][]ParamHeader)
	}
	for _, t := range tools {
		hdrs, err := ParamHeaders(t.InputSchema)
		if err != nil {
			cs.client.log.Warn("mcp: dropping tool with invalid x-mcp-header", "tool", t.Name, "err", err)
			delete(cs.paramHeaders, t.Name)
			continue
		}
		cs.paramHeaders[t.Name] = hdrs
		kept = append(kept, t)
	}
	return kept
}

// headerCarrier is implemented by transport information that carries HTTP
// headers (the Streamable HTTP transport's RequestInfo).
type headerCarrier interface{ HTTPHeader() http.Header }

// checkParamHeaders checks, for a 2026-07-28 request that came with HTTP
// headers, that every x-mcp-header argument was mirrored faithfully: a
// missing, malformed or different Mcp-Param header is a HeaderMismatch
// (-32020, HTTP 400). Integers compare numerically.
func checkParamHeaders(ctx context.Context, hdrs []ParamHeader, args json.RawMessage) error {
	hc, ok := jsonrpc.MessageInfo(ctx).(headerCarrier)
	if !ok {
		return nil // stdio and in-memory requests carry no headers
	}
	return CheckParamHeaders(hc.HTTPHeader(), hdrs, args)
}

// CheckParamHeaders checks that the headers h of a 2026-07-28 tools/call
// mirror every x-mcp-header argument of args faithfully, as a server does
// on its own. It is for relays that carry the request on to a server that
// never sees the headers (mcp proxy --http in front of a stdio server).
func CheckParamHeaders(h http.Header, hdrs []ParamHeader, args json.RawMessage) error {
	for _, ph := range hdrs {
		name := HeaderParamPrefix + ph.Name
		vals, sent := h[http.CanonicalHeaderKey(name)]
		v, has := ArgumentAt(args, ph.Path)
		switch {
		case !has && !sent:
			continue
		case !sent:
			return headerMismatch("missing %s header for argument %q", name, strings.Join(ph.Path, "."))
		case !has:
			return headerMismatch("%s header sent for an absent argument %q", name, strings.Join(ph.Path, "."))
		}
		got, err := DecodeHeaderValue(vals[0])
		if err != nil {
			return headerMismatch("%s: %v", name, err)
		}
		want, ok := EncodeHeaderValue(v)
		if ok {
			want, _ = DecodeHeaderValue(want)
		}
		if !ok || !sameHeaderValue(got, want, ph.Type) {
			return headerMismatch("%s header does not match argument %q", name, strings.Join(ph.Path, "."))
		}
	}
	return nil
}

// sameHeaderValue compares a decoded header value with the body's. Integers
// compare numerically (42.0 equals 42), within the safe integer range;
// anything else exactly, case included.
func sameHeaderValue(got, want, typ string) bool {
	if typ == "integer" {
		g, ok1 := safeInteger(got)
		w, ok2 := safeInteger(want)
		return ok1 && ok2 && g == w
	}
	return got == want
}

// safeInteger parses s as a number whose value is an integer within
// ±(2^53-1).
func safeInteger(s string) (int64, bool) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, n <= maxSafeInt && n >= -maxSafeInt
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > maxSafeInt {
		return 0, false
	}
	return int64(f), true
}

func headerMismatch(format string, args ...any) *jsonrpc.Error {
	return jsonrpc.Errorf(CodeHeaderMismatch, "Header mismatch: "+format, args...)
}
