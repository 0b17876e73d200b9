package mcp

import "encoding/json"

// Resource describes a resource the server can read.
type Resource struct {
	Meta *Meta  `json:"_meta,omitempty"`
	URI  string `json:"uri"`
	Name string `json:"name"`
	// Title is a display name (2025-06-18+).
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	// Size is the size in bytes, if known; a pointer because 0 is a size.
	Size        *int64       `json:"size,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	// Icons are 2025-11-25+.
	Icons []Icon `json:"icons,omitempty"`
}

// ResourceTemplate describes a family of resources by an RFC 6570 URI
// template.
type ResourceTemplate struct {
	Meta        *Meta        `json:"_meta,omitempty"`
	URITemplate string       `json:"uriTemplate"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	MIMEType    string       `json:"mimeType,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Icons       []Icon       `json:"icons,omitempty"`
}

// ListResourcesParams are the params of resources/list.
type ListResourcesParams struct {
	Meta   *Meta  `json:"_meta,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

// ListResourcesResult is the result of resources/list.
type ListResourcesResult struct {
	Meta       *Meta      `json:"_meta,omitempty"`
	ResultType ResultType `json:"resultType,omitempty"`
	CacheHints
	Resources  []*Resource `json:"resources"`
	NextCursor string      `json:"nextCursor,omitempty"`
}

// MarshalJSON writes a nil Resources as [].
func (r ListResourcesResult) MarshalJSON() ([]byte, error) {
	type wire ListResourcesResult
	r.Resources = nonNilSlice(r.Resources)
	return marshalJSONNoEscape(wire(r))
}

// ListResourceTemplatesParams are the params of resources/templates/list.
type ListResourceTemplatesParams struct {
	Meta   *Meta  `json:"_meta,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

// ListResourceTemplatesResult is the result of resources/templates/list.
type ListResourceTemplatesResult struct {
	Meta       *Meta      `json:"_meta,omitempty"`
	ResultType ResultType `json:"resultType,omitempty"`
	CacheHints
	ResourceTemplates []*ResourceTemplate `json:"resourceTemplates"`
	NextCursor        string              `json:"nextCursor,omitempty"`
}

// MarshalJSON writes a nil ResourceTemplates as [].
func (r ListResourceTemplatesResult) MarshalJSON() ([]byte, error) {
	type wire ListResourceTemplatesResult
	r.ResourceTemplates = nonNilSlice(r.ResourceTemplates)
	return marshalJSONNoEscape(wire(r))
}

// ReadResourceParams are the params of resources/read.
type ReadResourceParams struct {
	Meta *Meta  `json:"_meta,omitempty"`
	URI  string `json:"uri"`
	// InputResponses and RequestState retry a read that returned an
	// InputRequiredResult (2026-07-28).
	InputResponses map[string]*InputResponse `json:"inputResponses,omitempty"`
	RequestState   string                    `json:"requestState,omitempty"`
}

// ReadResourceResult is the result of resources/read.
type ReadResourceResult struct {
	Meta       *Meta      `json:"_meta,omitempty"`
	ResultType ResultType `json:"resultType,omitempty"`
	CacheHints
	// Contents holds *TextResourceContents and *BlobResourceContents.
	Contents []ResourceContents `json:"contents"`
}

// MarshalJSON writes a nil Contents as [].
func (r ReadResourceResult) MarshalJSON() ([]byte, error) {
	type wire ReadResourceResult
	r.Contents = nonNilSlice(r.Contents)
	return marshalJSONNoEscape(wire(r))
}

// UnmarshalJSON decodes Contents polymorphically.
func (r *ReadResourceResult) UnmarshalJSON(data []byte) error {
	type wire ReadResourceResult
	var w struct {
		*wire
		Contents json.RawMessage `json:"contents"`
	}
	w.wire = (*wire)(r)
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	var err error
	r.Contents, err = unmarshalResourceContentsList(w.Contents)
	return err
}

// SubscribeParams are the params of resources/subscribe (stateful revisions only).
type SubscribeParams struct {
	Meta *Meta  `json:"_meta,omitempty"`
	URI  string `json:"uri"`
}

// UnsubscribeParams are the params of resources/unsubscribe (stateful revisions only).
type UnsubscribeParams struct {
	Meta *Meta  `json:"_meta,omitempty"`
	URI  string `json:"uri"`
}

// ResourceUpdatedNotificationParams are the params of
// notifications/resources/updated.
type ResourceUpdatedNotificationParams struct {
	Meta *Meta  `json:"_meta,omitempty"`
	URI  string `json:"uri"`
}

// resourceListChangedNotificationParams are the params of
// notifications/resources/list_changed.
type resourceListChangedNotificationParams struct {
	Meta *Meta `json:"_meta,omitempty"`
}
