package skills

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/gomcp/sdk/mcp"
)

// A Key identifies a skill: the host's own label for the server that
// serves it and the skill's URI. Two servers may serve the same URI; they
// are two skills, so nothing is ever keyed on the URI alone.
type Key struct {
	// Server is the label the host gave the server (not its self-reported
	// name).
	Server string
	// URI is the URI of the skill's SKILL.md.
	URI string
}

// An Entry is a skill entry together with its identity.
type Entry struct {
	Key   Key
	Skill *Skill
}

// HostOptions configures a Host. The zero value accepts skills up to the
// extension's limits.
type HostOptions struct {
	// MaxResources and MaxTotalSize are the largest skill the host loads.
	// Defaults MaxResources and MaxTotalSize; a host must accept at least
	// those, smaller values are raised to them.
	MaxResources int
	MaxTotalSize int64
	// MaxPages bounds the pages one List follows. Default 100.
	MaxPages int
}

// A Host lists, loads and reads the skills of one server, identified by
// the label the host gave it. It fetches nothing it was not asked for:
// listing reads no file, loading reads only SKILL.md, and a loaded skill
// reads only the files its entry lists, each verified against the entry.
type Host struct {
	server string
	cs     *mcp.ClientSession
	opts   HostOptions
}

// ErrNotDeclared is returned when the server did not declare the skills
// extension (or, for ReadDirectory, its directoryRead setting).
var ErrNotDeclared = errors.New("skills: the server does not declare it")

// ErrVerification is wrapped by every VerificationError.
var ErrVerification = errors.New("skills: verification failed")

// A VerificationError says content did not match the held entry: a size or
// digest mismatch, a frontmatter discrepancy, or a read of a file the entry
// does not list. The content must not be used.
type VerificationError struct {
	Key    Key
	URI    string // the file read
	Reason string
}

func (e *VerificationError) Error() string {
	return fmt.Sprintf("skills: %s (server %q): %s: %s", e.Key.URI, e.Key.Server, e.URI, e.Reason)
}

// Unwrap returns ErrVerification.
func (e *VerificationError) Unwrap() error { return ErrVerification }

// NewHost returns a Host for the server cs is connected to, which the host
// calls server.
func NewHost(server string, cs *mcp.ClientSession, opts *HostOptions) *Host {
	h := &Host{server: server, cs: cs}
	if opts != nil {
		h.opts = *opts
	}
	h.opts.MaxResources = max(h.opts.MaxResources, MaxResources)
	h.opts.MaxTotalSize = max(h.opts.MaxTotalSize, MaxTotalSize)
	if h.opts.MaxPages <= 0 {
		h.opts.MaxPages = 100
	}
	return h
}

// Server returns the host's label for the server.
func (h *Host) Server() string { return h.server }

// Settings returns the extension settings the server declared, or
// ErrNotDeclared.
func (h *Host) Settings() (Settings, error) {
	var s Settings
	caps := h.cs.ServerCapabilities()
	if caps == nil {
		return s, fmt.Errorf("skills extension: %w", ErrNotDeclared)
	}
	raw, ok := caps.Extensions[ExtensionID]
	if !ok {
		return s, fmt.Errorf("skills extension: %w", ErrNotDeclared)
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return s, fmt.Errorf("skills: the server's settings: %w", err)
	}
	return s, nil
}

// List returns the entries of every page of skills/list, as listed (Load
// refuses the invalid ones, see Skill.Valid). It reads no file.
// An empty or short listing does not mean the server has no other skills:
// Get loads one by URI.
func (h *Host) List(ctx context.Context) ([]*Entry, error) {
	if _, err := h.Settings(); err != nil {
		return nil, err
	}
	var out []*Entry
	cursor := ""
	seen := map[string]bool{}
	for range h.opts.MaxPages {
		var res ListResult
		if err := h.cs.Call(ctx, MethodList, &ListParams{Cursor: cursor}, &res); err != nil {
			return out, err
		}
		for _, s := range res.Skills {
			if s != nil {
				out = append(out, &Entry{Key: Key{Server: h.server, URI: s.URI}, Skill: s})
			}
		}
		if res.NextCursor == "" {
			return out, nil
		}
		if seen[res.NextCursor] {
			return out, fmt.Errorf("skills: %s repeated cursor %q", MethodList, res.NextCursor)
		}
		seen[res.NextCursor] = true
		cursor = res.NextCursor
	}
	return out, fmt.Errorf("skills: %s: more than %d pages", MethodList, h.opts.MaxPages)
}

// Get returns the current entry of the skill whose SKILL.md is uri, listed
// or not. It reads no file.
func (h *Host) Get(ctx context.Context, uri string) (*Entry, error) {
	if _, err := h.Settings(); err != nil {
		return nil, err
	}
	var res GetResult
	if err := h.cs.Call(ctx, MethodGet, &GetParams{URI: uri}, &res); err != nil {
		return nil, err
	}
	if res.Skill == nil {
		return nil, fmt.Errorf("skills: %s %s: no skill in the result", MethodGet, uri)
	}
	if res.Skill.URI != uri {
		return nil, fmt.Errorf("skills: %s %s: the server answered for %s", MethodGet, uri, res.Skill.URI)
	}
	return &Entry{Key: Key{Server: h.server, URI: uri}, Skill: res.Skill}, nil
}

// ReadDirectory lists the direct children of a directory resource (one
// page). It fails with ErrNotDeclared unless the server declared
// directoryRead. A directory listing never extends a loaded skill's
// entry: Loaded.Read still reads only what the entry lists.
func (h *Host) ReadDirectory(ctx context.Context, uri, cursor string) (*DirectoryResult, error) {
	s, err := h.Settings()
	if err != nil {
		return nil, err
	}
	if !s.DirectoryRead {
		return nil, fmt.Errorf("directoryRead: %w", ErrNotDeclared)
	}
	var res DirectoryResult
	if err := h.cs.Call(ctx, MethodDirectoryRead, &DirectoryParams{URI: uri, Cursor: cursor}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// A Loaded skill is one whose SKILL.md was read and verified against the
// entry the host holds. While acting on it, the host reads its files only
// through Read.
type Loaded struct {
	Entry *Entry
	// Content is the verified SKILL.md.
	Content []byte
	host    *Host
	used    atomic.Int64 // bytes read, for dynamic skills
}

// Load loads the skill of e: it checks the entry (its resources, the
// limits), reads its SKILL.md, and verifies size, digest and frontmatter
// against the entry. Any mismatch is a *VerificationError and nothing is
// loaded. The entry must be one of this host's server.
func (h *Host) Load(ctx context.Context, e *Entry) (*Loaded, error) {
	if e == nil || e.Skill == nil {
		return nil, errors.New("skills: Load of a nil entry")
	}
	if e.Key.Server != h.server || e.Key.URI != e.Skill.URI {
		return nil, fmt.Errorf("skills: entry %s of server %q cannot be loaded from server %q", e.Key.URI, e.Key.Server, h.server)
	}
	if err := e.Skill.Valid(); err != nil {
		return nil, err
	}
	var total int64
	for _, f := range e.Skill.Resources {
		total += f.Size
	}
	if len(e.Skill.Resources) > h.opts.MaxResources || total > h.opts.MaxTotalSize {
		return nil, fmt.Errorf("skills: %s: %d files of %d bytes exceed this host's limits (%d files, %d bytes)",
			e.Key.URI, len(e.Skill.Resources), total, h.opts.MaxResources, h.opts.MaxTotalSize)
	}
	l := &Loaded{Entry: e, host: h}
	data, err := l.fetch(ctx, e.Skill.URI)
	if err != nil {
		return nil, err
	}
	fm, err := ParseFrontmatter(data)
	if err != nil {
		return nil, &VerificationError{Key: e.Key, URI: e.Skill.URI, Reason: err.Error()}
	}
	if err := CompareFrontmatter(e.Skill.Frontmatter, fm); err != nil {
		return nil, &VerificationError{Key: e.Key, URI: e.Skill.URI, Reason: err.Error()}
	}
	l.Content = data
	return l, nil
}

// Read returns the verified bytes of one of the skill's files. The file
// must be listed in the held entry (for a dynamic skill: lie inside the
// skill's directory); reading any other is a *VerificationError, as is
// content that does not match the entry's size and digest.
func (l *Loaded) Read(ctx context.Context, uri string) ([]byte, error) {
	if uri == l.Entry.Skill.URI {
		return l.Content, nil
	}
	return l.fetch(ctx, uri)
}

// fetch reads uri with resources/read and verifies it against the entry.
func (l *Loaded) fetch(ctx context.Context, uri string) ([]byte, error) {
	sk := l.Entry.Skill
	fail := func(reason string) error { return &VerificationError{Key: l.Entry.Key, URI: uri, Reason: reason} }
	var want File
	if sk.Dynamic {
		dir, _ := skillDir(sk.URI)
		if uri != sk.URI && !within(dir, uri) {
			return nil, fail("not a file of the skill")
		}
	} else {
		f, ok := sk.file(uri)
		if !ok {
			return nil, fail("not listed in the held entry")
		}
		want = f
	}
	res, err := l.host.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, err
	}
	var data []byte
	found := false
	for _, c := range res.Contents {
		switch c := c.(type) {
		case *mcp.TextResourceContents:
			if c.URI == uri {
				data, found = []byte(c.Text), true
			}
		case *mcp.BlobResourceContents:
			if c.URI == uri {
				if data, err = c.DecodeData(); err != nil {
					return nil, fail("undecodable blob: " + err.Error())
				}
				found = true
			}
		}
		if found {
			break
		}
	}
	if !found {
		return nil, fail("resources/read returned no contents for it")
	}
	if sk.Dynamic {
		if l.used.Add(int64(len(data))) > l.host.opts.MaxTotalSize {
			return nil, fail(fmt.Sprintf("the skill's files add up to more than %d bytes", l.host.opts.MaxTotalSize))
		}
		return data, nil
	}
	if int64(len(data)) != want.Size {
		return nil, fail(fmt.Sprintf("size %d, the entry says %d", len(data), want.Size))
	}
	if d := digestOf(data); d != want.Digest {
		return nil, fail(fmt.Sprintf("digest %s, the entry says %s", d, want.Digest))
	}
	return data, nil
}
