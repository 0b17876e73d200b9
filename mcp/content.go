package mcp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
)

// Content is one content block: *TextContent, *ImageContent, *AudioContent,
// *ResourceLink or *EmbeddedResource (the ContentBlock of tools and prompts),
// or *ToolUseContent or *ToolResultContent (sampling, 2025-11-25+).
//
// Each type writes its "type" discriminator itself. The fields that hold
// content decode polymorphically; a block whose type is unknown, or not
// allowed where it appears, is a decoding error.
type Content interface {
	// Type returns the block's "type" discriminator, e.g. "text".
	Type() string
	isContent()
}

// Content type discriminators.
const (
	ContentTypeText         = "text"
	ContentTypeImage        = "image"
	ContentTypeAudio        = "audio"         // 2025-03-26+
	ContentTypeResourceLink = "resource_link" // 2025-06-18+
	ContentTypeResource     = "resource"      // embedded resource
	ContentTypeToolUse      = "tool_use"      // sampling, 2025-11-25+
	ContentTypeToolResult   = "tool_result"   // sampling, 2025-11-25+
)

// TextContent is text.
type TextContent struct {
	Meta        *Meta        `json:"_meta,omitempty"`
	Text        string       `json:"text"`
	Annotations *Annotations `json:"annotations,omitempty"`
}

// ImageContent is an image.
type ImageContent struct {
	Meta *Meta `json:"_meta,omitempty"`
	// Data is the image, base64-encoded. NewImageContent and DecodeData
	// convert from and to bytes.
	Data        string       `json:"data"`
	MIMEType    string       `json:"mimeType"`
	Annotations *Annotations `json:"annotations,omitempty"`
}

// AudioContent is audio (2025-03-26+).
type AudioContent struct {
	Meta *Meta `json:"_meta,omitempty"`
	// Data is the audio, base64-encoded.
	Data        string       `json:"data"`
	MIMEType    string       `json:"mimeType"`
	Annotations *Annotations `json:"annotations,omitempty"`
}

// ResourceLink points at a resource the client may read (2025-06-18+). It
// need not appear in resources/list.
type ResourceLink struct {
	Meta        *Meta        `json:"_meta,omitempty"`
	URI         string       `json:"uri"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	MIMEType    string       `json:"mimeType,omitempty"`
	Size        *int64       `json:"size,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Icons       []Icon       `json:"icons,omitempty"`
}

// EmbeddedResource is a resource's contents inlined in a message.
type EmbeddedResource struct {
	Meta *Meta `json:"_meta,omitempty"`
	// Resource is a *TextResourceContents or *BlobResourceContents.
	Resource    ResourceContents `json:"resource"`
	Annotations *Annotations     `json:"annotations,omitempty"`
}

// ToolUseContent is a model's request to call a tool, in sampling
// (2025-11-25+).
type ToolUseContent struct {
	Meta *Meta `json:"_meta,omitempty"`
	// ID identifies this call; the matching ToolResultContent names it.
	ID   string `json:"id"`
	Name string `json:"name"`
	// Input is the arguments object; nil is written as {}.
	Input json.RawMessage `json:"input"`
}

// ToolResultContent is the result of a ToolUseContent call, in sampling
// (2025-11-25+).
type ToolResultContent struct {
	Meta      *Meta  `json:"_meta,omitempty"`
	ToolUseID string `json:"toolUseId"`
	// Content holds ContentBlock types only (text, image, audio,
	// resource_link, resource). Nil is written as [].
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

// Type implements Content.
func (*TextContent) Type() string { return ContentTypeText }

// Type implements Content.
func (*ImageContent) Type() string { return ContentTypeImage }

// Type implements Content.
func (*AudioContent) Type() string { return ContentTypeAudio }

// Type implements Content.
func (*ResourceLink) Type() string { return ContentTypeResourceLink }

// Type implements Content.
func (*EmbeddedResource) Type() string { return ContentTypeResource }

// Type implements Content.
func (*ToolUseContent) Type() string { return ContentTypeToolUse }

// Type implements Content.
func (*ToolResultContent) Type() string { return ContentTypeToolResult }

func (*TextContent) isContent()       {}
func (*ImageContent) isContent()      {}
func (*AudioContent) isContent()      {}
func (*ResourceLink) isContent()      {}
func (*EmbeddedResource) isContent()  {}
func (*ToolUseContent) isContent()    {}
func (*ToolResultContent) isContent() {}

// NewTextContent returns a text block.
func NewTextContent(text string) *TextContent { return &TextContent{Text: text} }

// NewImageContent returns an image block holding data, base64-encoded.
func NewImageContent(data []byte, mimeType string) *ImageContent {
	return &ImageContent{Data: base64.StdEncoding.EncodeToString(data), MIMEType: mimeType}
}

// NewAudioContent returns an audio block holding data, base64-encoded.
func NewAudioContent(data []byte, mimeType string) *AudioContent {
	return &AudioContent{Data: base64.StdEncoding.EncodeToString(data), MIMEType: mimeType}
}

// NewEmbeddedResource returns a block embedding r, a *TextResourceContents or
// *BlobResourceContents.
func NewEmbeddedResource(r ResourceContents) *EmbeddedResource {
	return &EmbeddedResource{Resource: r}
}

// DecodeData returns the image bytes.
func (c *ImageContent) DecodeData() ([]byte, error) { return base64.StdEncoding.DecodeString(c.Data) }

// DecodeData returns the audio bytes.
func (c *AudioContent) DecodeData() ([]byte, error) { return base64.StdEncoding.DecodeString(c.Data) }

// The MarshalJSON methods add the "type" discriminator. They have value
// receivers so that content stored by value encodes correctly too.

// MarshalJSON implements json.Marshaler.
func (c TextContent) MarshalJSON() ([]byte, error) {
	type wire TextContent
	return marshalJSONNoEscape(struct {
		Type string `json:"type"`
		wire
	}{ContentTypeText, wire(c)})
}

// MarshalJSON implements json.Marshaler.
func (c ImageContent) MarshalJSON() ([]byte, error) {
	type wire ImageContent
	return marshalJSONNoEscape(struct {
		Type string `json:"type"`
		wire
	}{ContentTypeImage, wire(c)})
}

// MarshalJSON implements json.Marshaler.
func (c AudioContent) MarshalJSON() ([]byte, error) {
	type wire AudioContent
	return marshalJSONNoEscape(struct {
		Type string `json:"type"`
		wire
	}{ContentTypeAudio, wire(c)})
}

// MarshalJSON implements json.Marshaler.
func (c ResourceLink) MarshalJSON() ([]byte, error) {
	type wire ResourceLink
	return marshalJSONNoEscape(struct {
		Type string `json:"type"`
		wire
	}{ContentTypeResourceLink, wire(c)})
}

// MarshalJSON implements json.Marshaler. A nil Resource is an error.
func (c EmbeddedResource) MarshalJSON() ([]byte, error) {
	if c.Resource == nil {
		return nil, errors.New("mcp: EmbeddedResource.Resource is nil")
	}
	type wire EmbeddedResource
	return marshalJSONNoEscape(struct {
		Type string `json:"type"`
		wire
	}{ContentTypeResource, wire(c)})
}

// UnmarshalJSON decodes the embedded resource's contents polymorphically.
func (c *EmbeddedResource) UnmarshalJSON(data []byte) error {
	type wire EmbeddedResource
	var w struct {
		*wire
		Resource json.RawMessage `json:"resource"`
	}
	w.wire = (*wire)(c)
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	c.Resource = nil
	if isNullOrAbsent(w.Resource) {
		return errors.New("mcp: embedded resource has no contents")
	}
	rc, err := unmarshalResourceContents(w.Resource)
	if err != nil {
		return err
	}
	c.Resource = rc
	return nil
}

// MarshalJSON implements json.Marshaler.
func (c ToolUseContent) MarshalJSON() ([]byte, error) {
	type wire ToolUseContent
	if len(c.Input) == 0 {
		c.Input = emptyJSONObject
	}
	return marshalJSONNoEscape(struct {
		Type string `json:"type"`
		wire
	}{ContentTypeToolUse, wire(c)})
}

// MarshalJSON implements json.Marshaler.
func (c ToolResultContent) MarshalJSON() ([]byte, error) {
	type wire ToolResultContent
	c.Content = nonNilSlice(c.Content)
	return marshalJSONNoEscape(struct {
		Type string `json:"type"`
		wire
	}{ContentTypeToolResult, wire(c)})
}

// UnmarshalJSON decodes the result's content blocks polymorphically.
func (c *ToolResultContent) UnmarshalJSON(data []byte) error {
	type wire ToolResultContent
	var w struct {
		*wire
		Content json.RawMessage `json:"content"`
	}
	w.wire = (*wire)(c)
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	var err error
	c.Content, err = unmarshalContentList(w.Content, blockKinds)
	return err
}

// contentKinds is a set of content types allowed in some position.
type contentKinds uint8

const (
	kindText contentKinds = 1 << iota
	kindImage
	kindAudio
	kindResourceLink
	kindResource
	kindToolUse
	kindToolResult

	// blockKinds is the ContentBlock union (tools, prompts, tool results).
	blockKinds = kindText | kindImage | kindAudio | kindResourceLink | kindResource
	// samplingKinds is the SamplingMessageContentBlock union.
	samplingKinds = kindText | kindImage | kindAudio | kindToolUse | kindToolResult
)

func contentKindOf(typ string) contentKinds {
	switch typ {
	case ContentTypeText:
		return kindText
	case ContentTypeImage:
		return kindImage
	case ContentTypeAudio:
		return kindAudio
	case ContentTypeResourceLink:
		return kindResourceLink
	case ContentTypeResource:
		return kindResource
	case ContentTypeToolUse:
		return kindToolUse
	case ContentTypeToolResult:
		return kindToolResult
	}
	return 0
}

// errStopScan ends a member walk early; it never escapes.
var errStopScan = errors.New("stop")

// contentType returns the "type" member of a content block. It walks the
// object's members without decoding them.
func contentType(data []byte) (typ string, err error) {
	found := false
	err = eachMember(data, func(key, val []byte) error {
		if !keyIs(key, "type") {
			return nil
		}
		s, ok := unquote(val)
		if !ok {
			if string(val) == "null" {
				return errStopScan
			}
			return errors.New(`mcp: content block "type" must be a string`)
		}
		typ, found = s, true
		return errStopScan
	})
	switch {
	case err == errSyntax:
		return "", errors.New("mcp: content block must be an object")
	case err != nil && err != errStopScan:
		return "", err
	case !found:
		return "", errors.New(`mcp: content block has no "type"`)
	}
	return typ, nil
}

// unmarshalContent decodes one content block whose type is in allowed.
func unmarshalContent(data []byte, allowed contentKinds) (Content, error) {
	typ, err := contentType(data)
	if err != nil {
		return nil, err
	}
	kind := contentKindOf(typ)
	if kind == 0 {
		return nil, fmt.Errorf("mcp: unknown content type %q", typ)
	}
	if kind&allowed == 0 {
		return nil, fmt.Errorf("mcp: content type %q is not allowed here", typ)
	}
	if kind == kindText {
		if c, ok := decodeTextFast(data); ok {
			return c, nil
		}
	}
	var c Content
	switch kind {
	case kindText:
		c = new(TextContent)
	case kindImage:
		c = new(ImageContent)
	case kindAudio:
		c = new(AudioContent)
	case kindResourceLink:
		c = new(ResourceLink)
	case kindResource:
		c = new(EmbeddedResource)
	case kindToolUse:
		c = new(ToolUseContent)
	case kindToolResult:
		c = new(ToolResultContent)
	}
	if err := json.Unmarshal(data, c); err != nil {
		return nil, fmt.Errorf("mcp: %s content: %w", typ, err)
	}
	return c, nil
}

// unmarshalContentList decodes an array of content blocks. An absent or null
// value gives nil.
func unmarshalContentList(data []byte, allowed contentKinds) ([]Content, error) {
	if isNullOrAbsent(data) {
		return nil, nil
	}
	out := make([]Content, 0, 4)
	err := eachElement(data, func(el []byte) error {
		c, err := unmarshalContent(el, allowed)
		if err != nil {
			return err
		}
		out = append(out, c)
		return nil
	})
	if err == errSyntax {
		return nil, errors.New("mcp: content must be an array of content blocks")
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// marshalContentOneOrMany writes a one-element list as a single block and
// anything else as an array: the form every revision accepts for sampling
// content (arrays are 2025-11-25+).
func marshalContentOneOrMany(cs []Content) any {
	if len(cs) == 1 {
		return cs[0]
	}
	return nonNilSlice(cs)
}

// unmarshalContentOneOrMany reads sampling content: one block or an array.
func unmarshalContentOneOrMany(data []byte, allowed contentKinds) ([]Content, error) {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		return unmarshalContentList(data, allowed)
	}
	if isNullOrAbsent(data) {
		return nil, nil
	}
	c, err := unmarshalContent(data, allowed)
	if err != nil {
		return nil, err
	}
	return []Content{c}, nil
}

// isNullOrAbsent reports whether a raw member is missing or JSON null.
func isNullOrAbsent(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// decodeTextFast decodes the common text block, {"type":"text","text":...},
// in one pass. Anything else (annotations, _meta, escaped member names)
// reports false and goes through encoding/json.
func decodeTextFast(data []byte) (*TextContent, bool) {
	c := new(TextContent)
	hasText := false
	err := eachMember(data, func(k, v []byte) error {
		switch string(k) {
		case `"type"`:
			return nil
		case `"text"`:
			s, ok := unquote(v)
			if !ok {
				return errSyntax
			}
			c.Text, hasText = s, true
			return nil
		}
		return errSyntax
	})
	return c, err == nil && hasText
}
