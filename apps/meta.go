package apps

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/gomcp/sdk/mcp"
)

// Names the extension defines.
const (
	// ExtensionID identifies the extension in capabilities.extensions, on
	// the client (which declares the MIME types it renders) and on the
	// server.
	ExtensionID = "io.modelcontextprotocol/ui"
	// MIMEType is the MIME type of an HTML view, the only kind the
	// 2026-01-26 specification defines.
	MIMEType = "text/html;profile=mcp-app"
	// Scheme is the URI scheme every UI resource uses: ui://...
	Scheme = "ui"
	// MetaKey is the _meta key, on tools and UI resources, that holds the
	// extension's metadata (ToolMeta, ResourceMeta).
	MetaKey = "ui"
	// LegacyResourceURIKey is the deprecated flat tool _meta key that named
	// the view before _meta.ui.resourceUri. Hosts still read it; servers
	// write it beside _meta.ui so that older hosts find the view.
	LegacyResourceURIKey = "ui/resourceUri"
)

// ErrInvalidMeta is wrapped by the errors of the functions that read the
// extension's metadata from a peer: the value is present but not what the
// specification allows.
var ErrInvalidMeta = errors.New("apps: invalid _meta.ui")

// CSP lists the origins a view needs beyond its own document. Each list
// empty or nil keeps the host's restrictive default for its directive.
type CSP struct {
	// ConnectDomains are origins for fetch, XHR and WebSocket
	// (connect-src).
	ConnectDomains []string `json:"connectDomains,omitempty"`
	// ResourceDomains are origins for images, scripts, stylesheets, fonts
	// and media (img-src, script-src, style-src, font-src, media-src);
	// wildcard subdomains such as https://*.example.com are allowed.
	ResourceDomains []string `json:"resourceDomains,omitempty"`
	// FrameDomains are origins for nested iframes (frame-src); none means
	// frame-src 'none'.
	FrameDomains []string `json:"frameDomains,omitempty"`
	// BaseURIDomains are the allowed base URIs of the document (base-uri);
	// none means base-uri 'self'.
	BaseURIDomains []string `json:"baseUriDomains,omitempty"`
}

// A Permission is requested by being present: on the wire it is {}.
type Permission struct{}

// Permissions are the browser features a view asks for. Hosts may grant
// them (the iframe's allow attribute); a view must not assume they do.
type Permissions struct {
	Camera         *Permission `json:"camera,omitempty"`
	Microphone     *Permission `json:"microphone,omitempty"`
	Geolocation    *Permission `json:"geolocation,omitempty"`
	ClipboardWrite *Permission `json:"clipboardWrite,omitempty"`
}

// ResourceMeta is the _meta.ui of a UI resource: on its resources/list
// entry (a default hosts can review before any call) and on its
// resources/read contents (which take precedence).
type ResourceMeta struct {
	// CSP lists the external origins the view needs; nil is the host's
	// restrictive default (no external origin at all).
	CSP *CSP `json:"csp,omitempty"`
	// Permissions are the browser features the view asks for.
	Permissions *Permissions `json:"permissions,omitempty"`
	// Domain asks for a dedicated sandbox origin; its format is the
	// host's to define.
	Domain string `json:"domain,omitempty"`
	// PrefersBorder asks the host for a visible border and background
	// (true) or none (false); nil lets the host decide.
	PrefersBorder *bool `json:"prefersBorder,omitempty"`
}

// Visibility says who may see and call a tool: the model, the app (the
// view of the same server), or both. It is a closed set: decoding any other
// value fails.
type Visibility string

// The visibilities the specification defines.
const (
	// VisibilityModel: the tool is in the model's tool list and the agent
	// may call it.
	VisibilityModel Visibility = "model"
	// VisibilityApp: the server's own views may call the tool.
	VisibilityApp Visibility = "app"
)

// UnmarshalJSON accepts "model" and "app" only.
func (v *Visibility) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	switch x := Visibility(s); x {
	case VisibilityModel, VisibilityApp:
		*v = x
		return nil
	}
	return fmt.Errorf("unknown visibility %q", s)
}

// ToolMeta is the _meta.ui of a tool: the view that renders its results
// and who may use it.
type ToolMeta struct {
	// ResourceURI is the ui:// resource that renders the tool's results;
	// empty for a tool without a view (an app-only helper, say).
	ResourceURI string `json:"resourceUri,omitempty"`
	// Visibility lists who may use the tool; empty means both the model
	// and the app, as the specification's default.
	Visibility []Visibility `json:"visibility,omitempty"`
}

// VisibleTo reports whether v may use the tool: true when Visibility is
// empty (the default) or lists v.
func (m *ToolMeta) VisibleTo(v Visibility) bool {
	return len(m.Visibility) == 0 || slices.Contains(m.Visibility, v)
}

// AppOnly reports whether the tool is for the app alone: hidden from the
// model.
func (m *ToolMeta) AppOnly() bool { return !m.VisibleTo(VisibilityModel) }

// ClientCapability is the client's extensions["io.modelcontextprotocol/ui"]
// value: the view MIME types the host renders.
type ClientCapability struct {
	// MIMETypes lists the view types the host renders; a host of HTML
	// views lists MIMEType.
	MIMETypes []string `json:"mimeTypes"`
}

// Renders reports whether the host renders views of MIME type mime.
func (c *ClientCapability) Renders(mime string) bool {
	return c != nil && slices.Contains(c.MIMETypes, mime)
}

// DeclareClient adds the extension to caps, saying that the client renders
// HTML views (MIMEType): what a host puts in ClientOptions.Capabilities.
// Other extensions in caps are kept.
func DeclareClient(caps *mcp.ClientCapabilities) {
	if caps.Extensions == nil {
		caps.Extensions = make(map[string]json.RawMessage)
	}
	caps.Extensions[ExtensionID] = json.RawMessage(`{"mimeTypes":["` + MIMEType + `"]}`)
}

// ToolUI reads the extension's metadata of a tool, as a host does with the
// tools of tools/list: _meta.ui, or, when that names no resource, the
// deprecated _meta["ui/resourceUri"]. It returns nil and no error for a
// tool without either, and an error wrapping ErrInvalidMeta for a value
// that is not what the specification allows (an unknown visibility, say).
// A resource URI found is a ui:// URI.
func ToolUI(t *mcp.Tool) (*ToolMeta, error) {
	if t == nil || t.Meta == nil {
		return nil, nil
	}
	var m *ToolMeta
	if raw, ok := t.Meta.Extra[MetaKey]; ok && !isNull(raw) {
		m = new(ToolMeta)
		if err := json.Unmarshal(raw, m); err != nil {
			return nil, fmt.Errorf("%w: tool %q: %v", ErrInvalidMeta, t.Name, err)
		}
	}
	if m == nil || m.ResourceURI == "" {
		if raw, ok := t.Meta.Extra[LegacyResourceURIKey]; ok && !isNull(raw) {
			var uri string
			if err := json.Unmarshal(raw, &uri); err != nil {
				return nil, fmt.Errorf("%w: tool %q: %s: %v", ErrInvalidMeta, t.Name, LegacyResourceURIKey, err)
			}
			if m == nil {
				m = new(ToolMeta)
			}
			m.ResourceURI = uri
		}
	}
	if m != nil && m.ResourceURI != "" && !IsUIURI(m.ResourceURI) {
		return nil, fmt.Errorf("%w: tool %q: resource %q is not a ui:// URI", ErrInvalidMeta, t.Name, m.ResourceURI)
	}
	return m, nil
}

// ResourceUI reads the _meta.ui of a UI resource from its _meta: that of a
// resources/list entry (mcp.Resource.Meta) or of resources/read contents
// (ContentsUI). It returns nil and no error when there is none, and an
// error wrapping ErrInvalidMeta for a malformed value.
func ResourceUI(meta *mcp.Meta) (*ResourceMeta, error) {
	if meta == nil {
		return nil, nil
	}
	raw, ok := meta.Extra[MetaKey]
	if !ok || isNull(raw) {
		return nil, nil
	}
	m := new(ResourceMeta)
	if err := json.Unmarshal(raw, m); err != nil {
		return nil, fmt.Errorf("%w: resource: %v", ErrInvalidMeta, err)
	}
	return m, nil
}

// ContentsUI reads the _meta.ui of one item of a resources/read result,
// text or blob; see ResourceUI. A host prefers it to the listed
// resource's.
func ContentsUI(c mcp.ResourceContents) (*ResourceMeta, error) {
	switch c := c.(type) {
	case *mcp.TextResourceContents:
		return ResourceUI(c.Meta)
	case *mcp.BlobResourceContents:
		return ResourceUI(c.Meta)
	}
	return nil, nil
}

// IsUIURI reports whether uri is in the ui:// scheme, as every UI resource
// must be.
func IsUIURI(uri string) bool {
	const prefix = Scheme + "://"
	return len(uri) > len(prefix) && uri[:len(prefix)] == prefix
}

func isNull(raw json.RawMessage) bool { return string(raw) == "null" }
