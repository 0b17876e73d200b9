package skills

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gomcp/sdk/mcp"
)

// A File is one file of a skill with the digest and size of its bytes.
type File struct {
	// URI is the file's resource URI.
	URI string `json:"uri"`
	// Digest is "sha256:" and the 64 lowercase hex digits of the SHA-256
	// of the file's raw bytes.
	Digest string `json:"digest"`
	// Size is the number of raw bytes.
	Size int64 `json:"size"`
}

// Frontmatter is a SKILL.md's YAML frontmatter as a JSON object: name and
// description, and every other field the author wrote, unchanged.
type Frontmatter map[string]any

// Name returns the frontmatter's name, or "" if it has no string name.
func (f Frontmatter) Name() string { s, _ := f["name"].(string); return s }

// Description returns the frontmatter's description, or "" if it has no
// string description.
func (f Frontmatter) Description() string { s, _ := f["description"].(string); return s }

// A Skill is the entry of one skill, as skills/list and skills/get return
// it.
type Skill struct {
	// URI is the URI of the skill's SKILL.md.
	URI string
	// Frontmatter is the SKILL.md's frontmatter, verbatim.
	Frontmatter Frontmatter
	// Resources lists every file of the skill, SKILL.md included, each
	// once. It is nil when Dynamic is set.
	Resources []File
	// Dynamic says the skill's content is generated, so no stable digests
	// exist: on the wire, "resources":"dynamic".
	Dynamic bool
	// resourcesSet records whether the JSON had a valid resources member.
	resourcesSet bool
}

// errNoResources is reported for an entry without a valid resources member.
var errNoResources = errors.New(`resources is missing or neither an array nor "dynamic"`)

type skillWire struct {
	URI         string          `json:"uri"`
	Frontmatter Frontmatter     `json:"frontmatter"`
	Resources   json.RawMessage `json:"resources"`
}

// MarshalJSON writes resources as the array, or as "dynamic".
func (s Skill) MarshalJSON() ([]byte, error) {
	w := skillWire{URI: s.URI, Frontmatter: s.Frontmatter}
	if w.Frontmatter == nil {
		w.Frontmatter = Frontmatter{}
	}
	if s.Dynamic {
		w.Resources = json.RawMessage(`"dynamic"`)
	} else {
		files := s.Resources
		if files == nil {
			files = []File{}
		}
		raw, err := json.Marshal(files)
		if err != nil {
			return nil, err
		}
		w.Resources = raw
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads an entry. A missing or malformed resources member is
// not an error here (an entry may be listed, just not loaded); Valid
// reports it.
func (s *Skill) UnmarshalJSON(data []byte) error {
	var w skillWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*s = Skill{URI: w.URI, Frontmatter: w.Frontmatter}
	r := bytes.TrimSpace(w.Resources)
	switch {
	case bytes.Equal(r, []byte(`"dynamic"`)):
		s.Dynamic, s.resourcesSet = true, true
	case len(r) > 0 && r[0] == '[':
		if err := json.Unmarshal(r, &s.Resources); err == nil {
			s.resourcesSet = true
		}
	}
	return nil
}

// Valid reports why a host must not load the entry, or nil: a uri that
// does not name a SKILL.md whose parent segment is the frontmatter name,
// frontmatter without name or description, resources missing or malformed,
// a listed file outside the skill, listed twice, with a malformed digest or
// a negative size, or SKILL.md not listed.
func (s *Skill) Valid() error {
	dir, ok := skillDir(s.URI)
	if !ok {
		return fmt.Errorf("skills: entry uri %q does not name a %s", s.URI, SkillFile)
	}
	if s.Frontmatter.Name() == "" || s.Frontmatter.Description() == "" {
		return fmt.Errorf("skills: entry %s: frontmatter needs a name and a description", s.URI)
	}
	if lastSegment(dir) != s.Frontmatter.Name() {
		return fmt.Errorf("skills: entry %s: final path segment is not the frontmatter name %q", s.URI, s.Frontmatter.Name())
	}
	if s.Dynamic {
		return nil
	}
	if !s.resourcesSet && s.Resources == nil {
		return fmt.Errorf("skills: entry %s: %w", s.URI, errNoResources)
	}
	seen := make(map[string]bool, len(s.Resources))
	for _, f := range s.Resources {
		if seen[f.URI] {
			return fmt.Errorf("skills: entry %s: %s listed twice", s.URI, f.URI)
		}
		seen[f.URI] = true
		if f.URI != s.URI && !within(dir, f.URI) {
			return fmt.Errorf("skills: entry %s: %s is outside the skill", s.URI, f.URI)
		}
		if !validDigest(f.Digest) {
			return fmt.Errorf("skills: entry %s: %s: malformed digest %q", s.URI, f.URI, f.Digest)
		}
		if f.Size < 0 {
			return fmt.Errorf("skills: entry %s: %s: negative size", s.URI, f.URI)
		}
	}
	if !seen[s.URI] {
		return fmt.Errorf("skills: entry %s: resources do not list %s", s.URI, SkillFile)
	}
	return nil
}

// file returns the listed file uri, if any.
func (s *Skill) file(uri string) (File, bool) {
	for _, f := range s.Resources {
		if f.URI == uri {
			return f, true
		}
	}
	return File{}, false
}

// ListParams are the params of skills/list.
type ListParams struct {
	Meta   *mcp.Meta `json:"_meta,omitempty"`
	Cursor string    `json:"cursor,omitempty"`
}

// ListResult is the result of skills/list.
type ListResult struct {
	Meta       *mcp.Meta      `json:"_meta,omitempty"`
	ResultType mcp.ResultType `json:"resultType,omitempty"`
	Skills     []*Skill       `json:"skills"`
	NextCursor string         `json:"nextCursor,omitempty"`
	mcp.CacheHints
}

// GetParams are the params of skills/get.
type GetParams struct {
	Meta *mcp.Meta `json:"_meta,omitempty"`
	URI  string    `json:"uri"`
}

// GetResult is the result of skills/get.
type GetResult struct {
	Meta       *mcp.Meta      `json:"_meta,omitempty"`
	ResultType mcp.ResultType `json:"resultType,omitempty"`
	Skill      *Skill         `json:"skill"`
	mcp.CacheHints
}

// DirectoryParams are the params of resources/directory/read.
type DirectoryParams struct {
	Meta   *mcp.Meta `json:"_meta,omitempty"`
	URI    string    `json:"uri"`
	Cursor string    `json:"cursor,omitempty"`
}

// DirectoryResult is the result of resources/directory/read: the direct
// children of the directory, subdirectories with DirectoryMIMEType. Like
// every 2026-07-28 list result it carries caching hints: SEP-2640 does not
// ask for them, but the TypeScript SDK's client requires them.
type DirectoryResult struct {
	Meta       *mcp.Meta       `json:"_meta,omitempty"`
	ResultType mcp.ResultType  `json:"resultType,omitempty"`
	Resources  []*mcp.Resource `json:"resources"`
	NextCursor string          `json:"nextCursor,omitempty"`
	mcp.CacheHints
}

// GetMeta makes the results mcp.Result values, and SetMeta lets the server
// put its identity in their _meta (2026-07-28) as in a core result's.

// GetMeta returns the result's _meta, or nil.
func (r *ListResult) GetMeta() *mcp.Meta {
	if r == nil {
		return nil
	}
	return r.Meta
}

// SetMeta replaces the result's _meta.
func (r *ListResult) SetMeta(m *mcp.Meta) { r.Meta = m }

// GetMeta returns the result's _meta, or nil.
func (r *GetResult) GetMeta() *mcp.Meta {
	if r == nil {
		return nil
	}
	return r.Meta
}

// SetMeta replaces the result's _meta.
func (r *GetResult) SetMeta(m *mcp.Meta) { r.Meta = m }

// GetMeta returns the result's _meta, or nil.
func (r *DirectoryResult) GetMeta() *mcp.Meta {
	if r == nil {
		return nil
	}
	return r.Meta
}

// SetMeta replaces the result's _meta.
func (r *DirectoryResult) SetMeta(m *mcp.Meta) { r.Meta = m }

// Settings is the extension's capability settings object.
type Settings struct {
	// DirectoryRead says the server answers resources/directory/read.
	DirectoryRead bool `json:"directoryRead,omitempty"`
}
