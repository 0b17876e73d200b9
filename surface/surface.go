// Package surface records what a client can see of an MCP server, its
// surface, as a stable JSON snapshot, and tells which differences between
// two snapshots break the clients of the older one.
//
// A Snapshot holds the server's identity, the negotiated revision, its
// capabilities and extensions, its instructions, and every tool, prompt,
// resource and resource template (all pages of each list). Take records
// one from a client session; Parse reads one written by Marshal (the
// format of mcp snapshot and of mcptest.Surface's golden files). Diff
// compares two and classifies each Change as Breaking or Compatible, so
// that a CI job can refuse a release that renames a tool, adds a required
// argument or narrows an enum.
//
// A snapshot is normalized, so that the same surface always gives the same
// bytes and a diff shows only what changed:
//
//   - Object keys are sorted, and tools, prompts, resources and templates
//     are objects keyed by their name, URI or URI template, so their order
//     on the wire does not matter.
//   - Arrays whose order carries no meaning are sorted: a schema's
//     required, enum and type (and its anyOf, oneOf and allOf branches), a
//     prompt's arguments (by name), icons and their sizes, a resource's
//     audience.
//   - Volatile fields are dropped: serverInfo.version (a release changes it
//     without changing the surface), a resource's size, and the
//     lastModified annotation of resources and templates.
//
// Everything else is kept as the server sent it, _meta included; numbers
// are kept as written.
package surface

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// Format names the snapshot format, written in every snapshot's "format"
// field. Parse refuses another.
const Format = "gomcp-surface/1"

// Limits on what Take collects and Parse reads, against a server or a file
// that never ends.
const (
	// MaxItems bounds the tools, prompts, resources and templates Take
	// collects, each.
	MaxItems = 10000
	// MaxPages bounds the pages Take fetches of each list (a server may
	// send empty pages with a cursor forever).
	MaxPages = 1000
	// MaxSnapshotBytes bounds the size of a snapshot Parse reads.
	MaxSnapshotBytes = 64 << 20
)

// Snapshot is the surface of a server as a client sees it. Its maps hold
// JSON values as decoded by encoding/json with UseNumber: map[string]any,
// []any, string, json.Number, bool, nil. Take and Parse return normalized
// snapshots; Marshal normalizes a copy before writing.
type Snapshot struct {
	// Format is the snapshot format, Format.
	Format string `json:"format"`
	// ProtocolVersion is the revision the snapshot was taken at.
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	// ServerInfo is the server's Implementation without its version.
	ServerInfo map[string]any `json:"serverInfo"`
	// Capabilities are the server's capabilities, without extensions.
	Capabilities map[string]any `json:"capabilities"`
	// Extensions are the extensions the server declares in its
	// capabilities, by id, with their settings.
	Extensions map[string]any `json:"extensions,omitempty"`
	// Instructions are the server's instructions.
	Instructions string `json:"instructions,omitempty"`
	// Tools maps each tool's name to the tool without its name.
	Tools map[string]any `json:"tools"`
	// Prompts maps each prompt's name to the prompt without its name.
	Prompts map[string]any `json:"prompts"`
	// Resources maps each resource's URI to the resource without its URI.
	Resources map[string]any `json:"resources"`
	// ResourceTemplates maps each template's URI template to the template
	// without it.
	ResourceTemplates map[string]any `json:"resourceTemplates"`
}

// Take records the surface of the server at the other end of cs: what it
// said when the session began and every page of each list its capabilities
// offer. A list the server does not offer is empty; an error listing one
// it offers is returned, except that a server whose resources capability
// does not answer resources/templates/list (method not found) has no
// templates.
func Take(ctx context.Context, cs *mcp.ClientSession) (*Snapshot, error) {
	s := &Snapshot{Format: Format, ProtocolVersion: cs.ProtocolVersion()}
	ir := cs.InitializeResult()
	if ir != nil {
		s.Instructions = ir.Instructions
		if err := decodeInto(ir.ServerInfo, &s.ServerInfo); err != nil {
			return nil, fmt.Errorf("surface: serverInfo: %w", err)
		}
	}
	caps := cs.ServerCapabilities()
	if caps == nil {
		caps = &mcp.ServerCapabilities{}
	}
	if err := decodeInto(caps, &s.Capabilities); err != nil {
		return nil, fmt.Errorf("surface: capabilities: %w", err)
	}
	var err error
	if caps.Tools != nil {
		if s.Tools, err = list(ctx, "tools", func(c string) ([]*mcp.Tool, string, error) {
			r, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: c})
			if err != nil {
				return nil, "", err
			}
			return r.Tools, r.NextCursor, nil
		}, "name"); err != nil {
			return nil, err
		}
	}
	if caps.Prompts != nil {
		if s.Prompts, err = list(ctx, "prompts", func(c string) ([]*mcp.Prompt, string, error) {
			r, err := cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: c})
			if err != nil {
				return nil, "", err
			}
			return r.Prompts, r.NextCursor, nil
		}, "name"); err != nil {
			return nil, err
		}
	}
	if caps.Resources != nil {
		if s.Resources, err = list(ctx, "resources", func(c string) ([]*mcp.Resource, string, error) {
			r, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: c})
			if err != nil {
				return nil, "", err
			}
			return r.Resources, r.NextCursor, nil
		}, "uri"); err != nil {
			return nil, err
		}
		if s.ResourceTemplates, err = list(ctx, "resource templates", func(c string) ([]*mcp.ResourceTemplate, string, error) {
			r, err := cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: c})
			var je *jsonrpc.Error
			if c == "" && errors.As(err, &je) && je.Code == jsonrpc.CodeMethodNotFound {
				return nil, "", nil // resources without templates, as some servers have
			}
			if err != nil {
				return nil, "", err
			}
			return r.ResourceTemplates, r.NextCursor, nil
		}, "uriTemplate"); err != nil {
			return nil, err
		}
	}
	s.normalize()
	return s, nil
}

// list fetches every page of a list and keys its items by the field key
// (which is removed from each). An item seen twice keeps its last value.
func list[T any](ctx context.Context, what string, fetch func(cursor string) ([]T, string, error), key string) (map[string]any, error) {
	out := map[string]any{}
	n, cursor := 0, ""
	for page := 0; ; page++ {
		if page == MaxPages {
			return nil, fmt.Errorf("surface: %s: more than %d pages", what, MaxPages)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		items, next, err := fetch(cursor)
		if err != nil {
			return nil, fmt.Errorf("surface: listing %s: %w", what, err)
		}
		for _, it := range items {
			if n++; n > MaxItems {
				return nil, fmt.Errorf("surface: %s: more than %d", what, MaxItems)
			}
			var obj map[string]any
			if err := decodeInto(it, &obj); err != nil {
				return nil, fmt.Errorf("surface: %s: %w", what, err)
			}
			id, _ := obj[key].(string)
			delete(obj, key)
			out[id] = obj
		}
		if next == "" {
			return out, nil
		}
		cursor = next
	}
}

// decodeInto converts v to its generic JSON form in *out.
func decodeInto(v any, out *map[string]any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if string(b) == "null" {
		*out = map[string]any{}
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(out)
}

// Marshal writes s as normalized, indented JSON ending in a newline: the
// same surface always gives the same bytes. HTML characters are not
// escaped. s itself is not changed.
func Marshal(s *Snapshot) ([]byte, error) {
	c, err := s.clone()
	if err != nil {
		return nil, err
	}
	c.normalize()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(c); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// clone returns a deep copy of s, through its JSON.
func (s *Snapshot) clone() (*Snapshot, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return decode(b)
}

// Parse reads a snapshot written by Marshal (or by hand: it is normalized
// as it is read). It refuses a document over MaxSnapshotBytes, one of
// another format, and trailing data.
func Parse(data []byte) (*Snapshot, error) {
	if len(data) > MaxSnapshotBytes {
		return nil, fmt.Errorf("surface: snapshot larger than %d bytes", MaxSnapshotBytes)
	}
	s, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("surface: %w", err)
	}
	if s.Format != Format {
		return nil, fmt.Errorf("surface: format %q, want %q", s.Format, Format)
	}
	s.normalize()
	return s, nil
}

// Read reads a snapshot from r, as Parse does.
func Read(r io.Reader) (*Snapshot, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxSnapshotBytes+1))
	if err != nil {
		return nil, err
	}
	return Parse(b)
}

// decode decodes one JSON document into a Snapshot, numbers as written.
func decode(b []byte) (*Snapshot, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var s Snapshot
	if err := d.Decode(&s); err != nil {
		return nil, err
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("data after the snapshot")
	}
	return &s, nil
}
