// Package mcpheader is the standard headers of SEP-2243 (2026-07-28). Over
// HTTP a stateless request repeats parts of its body in headers, so that
// proxies and gateways can route and authorize without parsing JSON:
// MCP-Protocol-Version, Mcp-Method, Mcp-Name (the tool or prompt name, or
// the resource URI), and Mcp-Param-X for each tool argument whose schema
// carries "x-mcp-header": "X".
//
// The mcp client computes them from the request and the tool schemas it
// has listed, and hands them to the transport through the context of the
// write (HTTPHeaders); servers and relays check them with ParamHeaders,
// EncodeHeaderValue, DecodeHeaderValue and CheckParamHeaders. It is shared
// by mcp, transport/mcphttp and the mcp command, and is no part of the
// SDK's API: applications never handle these headers themselves.
package mcpheader

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

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
		for _, k := range slices.Sorted(maps.Keys(schema)) {
			if k != "properties" && !dataKeyword[k] {
				if err := unreachableHeader(schema[k], path); err != nil {
					return err
				}
			}
		}
		props, _ := schema["properties"].(map[string]any)
		for _, name := range slices.Sorted(maps.Keys(props)) {
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
		for _, k := range slices.Sorted(maps.Keys(v)) {
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

// CheckParamHeaders checks that the headers h of a 2026-07-28 tools/call
// mirror every x-mcp-header argument of args faithfully: a missing,
// malformed or different Mcp-Param header is an error, which a server
// answers as a HeaderMismatch (-32020, HTTP 400). Integers compare
// numerically. Relays use it too, for a server that never sees the headers
// (mcp proxy --http in front of a stdio server).
func CheckParamHeaders(h http.Header, hdrs []ParamHeader, args json.RawMessage) error {
	for _, ph := range hdrs {
		name := HeaderParamPrefix + ph.Name
		vals, sent := h[http.CanonicalHeaderKey(name)]
		v, has := ArgumentAt(args, ph.Path)
		switch {
		case !has && !sent:
			continue
		case !sent:
			return fmt.Errorf("missing %s header for argument %q", name, strings.Join(ph.Path, "."))
		case !has:
			return fmt.Errorf("%s header sent for an absent argument %q", name, strings.Join(ph.Path, "."))
		}
		got, err := DecodeHeaderValue(vals[0])
		if err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		want, ok := EncodeHeaderValue(v)
		if ok {
			want, _ = DecodeHeaderValue(want)
		}
		if !ok || !sameHeaderValue(got, want, ph.Type) {
			return fmt.Errorf("%s header does not match argument %q", name, strings.Join(ph.Path, "."))
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

// Key is the context key under which a request's writer puts its standard
// headers: an http.Header, or a Source that computes them.
type Key struct{}

// A Source computes a request's standard headers when a transport asks for
// them, so that only transports that send headers pay for them.
type Source interface{ Header() http.Header }

// HTTPHeaders returns the standard headers of the request written with ctx
// (nil for requests of stateful sessions). A transport that carries
// headers sends them.
func HTTPHeaders(ctx context.Context) http.Header {
	switch v := ctx.Value(Key{}).(type) {
	case Source:
		return v.Header()
	case http.Header:
		return v
	}
	return nil
}

// WithHTTPHeaders returns a context under which a write sends h as the
// standard headers of a stateless request. It is for relays that forward
// requests they did not build (mcp proxy): an mcp.ClientSession computes
// its own.
func WithHTTPHeaders(ctx context.Context, h http.Header) context.Context {
	return context.WithValue(ctx, Key{}, h)
}

// NamedByTaskID reports whether method is one of the tasks extension's
// (tasks/get, tasks/update, tasks/cancel) whose Mcp-Name is the params'
// taskId: told here, once, for the client that sends the header (package
// mcp) and the transport that checks it, neither of which imports package
// tasks, which defines the methods.
func NamedByTaskID(method string) bool {
	switch method {
	case "tasks/get", "tasks/update", "tasks/cancel":
		return true
	}
	return false
}
