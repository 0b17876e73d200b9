package mcp

// Root is a directory or file the server may work in.
type Root struct {
	Meta *Meta `json:"_meta,omitempty"`
	// URI is a file:// URI.
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// ListRootsParams are the params of roots/list.
type ListRootsParams struct {
	Meta *Meta `json:"_meta,omitempty"`
}

// ListRootsResult is the result of roots/list.
type ListRootsResult struct {
	Meta *Meta `json:"_meta,omitempty"`
	// Roots is written as [] when nil.
	Roots []*Root `json:"roots"`
}

// MarshalJSON writes a nil Roots as [].
func (r ListRootsResult) MarshalJSON() ([]byte, error) {
	type wire ListRootsResult
	r.Roots = nonNilSlice(r.Roots)
	return marshalJSONNoEscape(wire(r))
}

// rootsListChangedNotificationParams are the params of notifications/roots/list_changed
// (stateful revisions only).
type rootsListChangedNotificationParams struct {
	Meta *Meta `json:"_meta,omitempty"`
}
