package mcp

import (
	"encoding/base64"
	"encoding/json"
	"errors"
)

// ResourceContents is the contents of a resource: *TextResourceContents or
// *BlobResourceContents. On the wire the two are told apart by their "text"
// or "blob" member.
type ResourceContents interface {
	isResourceContents()
}

// TextResourceContents is a text resource.
type TextResourceContents struct {
	Meta     *Meta  `json:"_meta,omitempty"`
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text"`
}

// BlobResourceContents is a binary resource.
type BlobResourceContents struct {
	Meta     *Meta  `json:"_meta,omitempty"`
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	// Blob is the data, base64-encoded. NewBlobResourceContents and
	// DecodeData convert from and to bytes.
	Blob string `json:"blob"`
}

func (*TextResourceContents) isResourceContents() {}
func (*BlobResourceContents) isResourceContents() {}

// NewBlobResourceContents returns the contents of the binary resource uri,
// holding data base64-encoded.
func NewBlobResourceContents(uri, mimeType string, data []byte) *BlobResourceContents {
	return &BlobResourceContents{URI: uri, MIMEType: mimeType, Blob: base64.StdEncoding.EncodeToString(data)}
}

// DecodeData returns the resource bytes.
func (c *BlobResourceContents) DecodeData() ([]byte, error) {
	return base64.StdEncoding.DecodeString(c.Blob)
}

// unmarshalResourceContents decodes text or blob contents. An object with
// both "text" and "blob", or neither, is an error.
func unmarshalResourceContents(data []byte) (ResourceContents, error) {
	var hasText, hasBlob bool
	err := eachMember(data, func(key, _ []byte) error {
		switch {
		case keyIs(key, "text"):
			hasText = true
		case keyIs(key, "blob"):
			hasBlob = true
		}
		return nil
	})
	if err != nil {
		return nil, errors.New("mcp: resource contents must be an object")
	}
	var rc ResourceContents
	switch {
	case hasText && hasBlob:
		return nil, errors.New(`mcp: resource contents have both "text" and "blob"`)
	case hasText:
		rc = new(TextResourceContents)
	case hasBlob:
		rc = new(BlobResourceContents)
	default:
		return nil, errors.New(`mcp: resource contents have neither "text" nor "blob"`)
	}
	if err := json.Unmarshal(data, rc); err != nil {
		return nil, err
	}
	return rc, nil
}

// unmarshalResourceContentsList decodes an array of resource contents.
func unmarshalResourceContentsList(data []byte) ([]ResourceContents, error) {
	if isNullOrAbsent(data) {
		return nil, nil
	}
	out := make([]ResourceContents, 0, 2)
	err := eachElement(data, func(el []byte) error {
		rc, err := unmarshalResourceContents(el)
		if err != nil {
			return err
		}
		out = append(out, rc)
		return nil
	})
	if err == errSyntax {
		return nil, errors.New("mcp: contents must be an array")
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}
