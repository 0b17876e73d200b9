package mcp

import (
	"github.com/gomcp/sdk/jsonrpc"
)

// The initialize exchange without encoding/json, for the shapes clients and
// servers usually send. A process answers initialize once, right after it
// starts, where encoding/json's first look at these types (reflecting over
// InitializeParams, ClientCapabilities, Implementation and the result's
// types, a few hundred microseconds in a fresh process) is most of what
// separates a server's start from a hand-written one. Anything else goes to
// encoding/json, which decides what it means; the fast paths give up rather
// than differ from it (FuzzInitializeJSON).

// decodeFast decodes raw, the params of an initialize request (valid JSON:
// part of a decoded message), and reports whether it could. When it could
// not, p is left as it was.
func (p *InitializeParams) decodeFast(raw []byte) bool {
	var q InitializeParams
	err := eachMember(raw, func(key, val []byte) error {
		switch string(key) {
		case `"protocolVersion"`:
			v, ok := plainJSONString(val)
			if !ok {
				return errSyntax
			}
			q.ProtocolVersion = v
		case `"capabilities"`:
			// A repeated member is decoded into the same value, as
			// encoding/json does: the two merge.
			q.Capabilities = newIfNil(q.Capabilities)
			return q.Capabilities.decodeFast(val)
		case `"clientInfo"`:
			q.ClientInfo = newIfNil(q.ClientInfo)
			return q.ClientInfo.decodeFast(val)
		default: // _meta, and keys encoding/json matches without case
			return errSyntax
		}
		return nil
	})
	if err != nil {
		return false
	}
	*p = q
	return true
}

func (c *ClientCapabilities) decodeFast(raw []byte) error {
	return eachMember(raw, func(key, val []byte) error {
		switch string(key) {
		case `"roots"`:
			c.Roots = newIfNil(c.Roots)
			return eachMember(val, func(key, val []byte) error {
				if string(key) != `"listChanged"` {
					return errSyntax
				}
				return decodeBool(val, &c.Roots.ListChanged)
			})
		case `"sampling"`:
			c.Sampling = newIfNil(c.Sampling)
			return emptyMembers(val, `"context"`, &c.Sampling.Context, `"tools"`, &c.Sampling.Tools)
		case `"elicitation"`:
			c.Elicitation = newIfNil(c.Elicitation)
			return emptyMembers(val, `"form"`, &c.Elicitation.Form, `"url"`, &c.Elicitation.URL)
		}
		return errSyntax // experimental, extensions, tasks: encoding/json's
	})
}

func (m *Implementation) decodeFast(raw []byte) error {
	return eachMember(raw, func(key, val []byte) error {
		var dst *string
		switch string(key) {
		case `"name"`:
			dst = &m.Name
		case `"version"`:
			dst = &m.Version
		case `"title"`:
			dst = &m.Title
		case `"description"`:
			dst = &m.Description
		case `"websiteUrl"`:
			dst = &m.WebsiteURL
		default: // icons
			return errSyntax
		}
		v, ok := plainJSONString(val)
		if !ok {
			return errSyntax
		}
		*dst = v
		return nil
	})
}

func newIfNil[T any](p *T) *T {
	if p == nil {
		return new(T)
	}
	return p
}

// plainJSONString returns the string the JSON value raw holds when raw is a
// string without escapes.
func plainJSONString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' || !plainString(raw[1:len(raw)-1]) {
		return "", false
	}
	return string(raw[1 : len(raw)-1]), true
}

func decodeBool(raw []byte, dst *bool) error {
	switch string(raw) {
	case "true":
		*dst = true
	case "false":
		*dst = false
	default:
		return errSyntax
	}
	return nil
}

// emptyMembers decodes an object whose members, named a or b (quoted),
// are empty objects, setting *da and *db as encoding/json would.
func emptyMembers(raw []byte, a string, da **struct{}, b string, db **struct{}) error {
	return eachMember(raw, func(key, val []byte) error {
		switch string(key) {
		case a:
			return emptyStruct(val, da)
		case b:
			return emptyStruct(val, db)
		}
		return errSyntax
	})
}

// emptyStruct sets *dst for an empty JSON object, as encoding/json would.
func emptyStruct(raw []byte, dst **struct{}) error {
	if err := eachMember(raw, func(_, _ []byte) error { return errSyntax }); err != nil {
		return err
	}
	*dst = newIfNil(*dst)
	return nil
}

// AppendJSON appends r encoded as MarshalJSON encodes it, without
// encoding/json for the usual shapes: no _meta, no experimental,
// extensions or tasks capability, and a server without icons.
func (r *InitializeResult) AppendJSON(b []byte) ([]byte, error) {
	c := r.Capabilities
	if c == nil {
		c = &ServerCapabilities{}
	}
	if r.Meta != nil || c.Experimental != nil || c.Extensions != nil || c.Tasks != nil ||
		(r.ServerInfo != nil && r.ServerInfo.Icons != nil) {
		raw, err := r.MarshalJSON()
		return append(b, raw...), err
	}
	b = append(b, `{"protocolVersion":`...)
	b = jsonrpc.AppendString(b, r.ProtocolVersion, false)
	b = append(b, `,"capabilities":{`...)
	n := len(b)
	member := func(name string) {
		if len(b) > n {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, `":{`...)
	}
	flag := func(name string, on bool, first bool) {
		if on {
			if !first {
				b = append(b, ',')
			}
			b = append(b, '"')
			b = append(b, name...)
			b = append(b, `":true`...)
		}
	}
	if c.Logging != nil {
		member("logging")
		b = append(b, '}')
	}
	if c.Completions != nil {
		member("completions")
		b = append(b, '}')
	}
	if c.Prompts != nil {
		member("prompts")
		flag("listChanged", c.Prompts.ListChanged, true)
		b = append(b, '}')
	}
	if c.Resources != nil {
		member("resources")
		flag("subscribe", c.Resources.Subscribe, true)
		flag("listChanged", c.Resources.ListChanged, !c.Resources.Subscribe)
		b = append(b, '}')
	}
	if c.Tools != nil {
		member("tools")
		flag("listChanged", c.Tools.ListChanged, true)
		b = append(b, '}')
	}
	b = append(b, `},"serverInfo":`...)
	b = r.ServerInfo.appendJSON(b)
	if r.Instructions != "" {
		b = append(b, `,"instructions":`...)
		b = jsonrpc.AppendString(b, r.Instructions, false)
	}
	return append(b, '}'), nil
}

// appendJSON appends m, which has no icons, as encoding/json would.
func (m *Implementation) appendJSON(b []byte) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"name":`...)
	b = jsonrpc.AppendString(b, m.Name, false)
	b = append(b, `,"version":`...)
	b = jsonrpc.AppendString(b, m.Version, false)
	for _, f := range [...]struct{ name, v string }{{"title", m.Title}, {"description", m.Description}, {"websiteUrl", m.WebsiteURL}} {
		if f.v != "" {
			b = append(b, `,"`...)
			b = append(b, f.name...)
			b = append(b, `":`...)
			b = jsonrpc.AppendString(b, f.v, false)
		}
	}
	return append(b, '}')
}
