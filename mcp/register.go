package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gomcp/sdk/jsonrpc"
)

// ErrInvalidFeature is wrapped by every error that AddTool, AddResource,
// AddResourceTemplate and AddPrompt return: a feature that clients could
// not use (a bad name, URI or schema) is refused when it is added, where the
// mistake is made, rather than found by the first client that calls it.
var ErrInvalidFeature = errors.New("mcp: invalid feature")

// A RegistrationError reports a feature that an Add function refused. It
// wraps ErrInvalidFeature and the underlying cause, so both errors.Is and
// errors.As see through it. Nothing was registered.
//
// A refused registration cannot go unnoticed: until its error is looked at
// (Error, which printing and logging call, or Unwrap, which errors.Is
// calls), or the same feature is added successfully, the Server refuses
// to serve: Run returns an error naming every such failure, and a session
// from Connect answers every request with one. To leave a feature out on
// purpose, say so: if errors.Is(err, ErrInvalidFeature) { ... }. Once the
// server serves, a refused Add only returns its error (and logs it on
// ServerOptions.Logger): a running server is not stopped for it.
type RegistrationError struct {
	// Kind is the kind of feature: "tool", "prompt", "resource" or
	// "resource template".
	Kind string
	// Name is the tool or prompt name, the resource URI or the URI
	// template, as given.
	Name string
	// Err is what is wrong with it.
	Err error

	seen *atomic.Bool // set once the error is looked at; nil for errors a Server did not make
}

// Error names the feature and the problem.
func (e *RegistrationError) Error() string {
	e.look()
	return e.text()
}

// Unwrap returns ErrInvalidFeature and the cause.
func (e *RegistrationError) Unwrap() []error {
	e.look()
	return []error{ErrInvalidFeature, e.Err}
}

func (e *RegistrationError) look() {
	if e.seen != nil {
		e.seen.Store(true)
	}
}

// text is Error without looking at the error.
func (e *RegistrationError) text() string {
	return fmt.Sprintf("mcp: invalid %s %q: %v", e.Kind, e.Name, e.Err)
}

// maxRefusals bounds the refused registrations a Server remembers.
const maxRefusals = 64

// refusals remembers a Server's refused registrations until it serves:
// those whose errors nobody looked at stop it from serving.
type refusals struct {
	mu      sync.Mutex
	serving bool
	failed  []*RegistrationError
	dropped int // failures beyond maxRefusals

	once    sync.Once
	refusal *jsonrpc.Error // what every request gets, when serving began with unhandled failures
}

// refuse records e, a registration the server refused, and returns it.
func (s *Server) refuse(e *RegistrationError) error {
	e.seen = new(atomic.Bool)
	r := &s.refused
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.serving:
		s.log.Warn("mcp: a feature was refused while serving", "error", e.text())
	case len(r.failed) < maxRefusals:
		r.failed = append(r.failed, e)
	default:
		r.dropped++
	}
	return e
}

// registeredFeature forgets the refusals of a feature now added successfully.
func (s *Server) registeredFeature(kind, name string) {
	r := &s.refused
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = slices.DeleteFunc(r.failed, func(e *RegistrationError) bool { return e.Kind == kind && e.Name == name })
}

// serving marks the server as serving (Run, Connect, or the first request
// of any transport) and returns the error every request gets if a refused
// registration went unnoticed until then; nil if all is well.
func (s *Server) serving() *jsonrpc.Error {
	r := &s.refused
	r.once.Do(func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.serving = true
		var lines []string
		for _, e := range r.failed {
			if !e.seen.Load() {
				lines = append(lines, e.text())
			}
		}
		r.failed = nil
		if len(lines) == 0 && r.dropped == 0 {
			return
		}
		n := len(lines) + r.dropped
		if len(lines) > 10 {
			lines = lines[:10]
		}
		if more := n - len(lines); more > 0 {
			lines = append(lines, fmt.Sprintf("and %d more", more))
		}
		msg := fmt.Sprintf("mcp: the server refuses to serve: %d feature registration(s) failed and the error was dropped "+
			"(handle the error of every Add call; errors.Is(err, mcp.ErrInvalidFeature) marks one as left out on purpose): %s",
			n, strings.Join(lines, "; "))
		s.log.Error(msg)
		r.refusal = jsonrpc.NewError(jsonrpc.CodeInternalError, msg)
	})
	return r.refusal
}

// Feature kinds named by RegistrationError.Kind.
const (
	featureTool     = "tool"
	featurePrompt   = "prompt"
	featureResource = "resource"
	featureTemplate = "resource template"
)

var (
	errNilFeature = errors.New("nil definition")
	errNilHandler = errors.New("nil handler")
)

// maxToolName is the longest tool name the specification allows.
const maxToolName = 128

// checkToolName applies the specification's rule for tool names (SEP-986):
// 1 to 128 characters of [A-Za-z0-9_.-], compared case-sensitively.
func checkToolName(name string) error {
	if name == "" || len(name) > maxToolName {
		return fmt.Errorf("name must be 1 to %d characters long, not %d", maxToolName, len(name))
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-' {
			continue
		}
		return fmt.Errorf("name has %q at byte %d; only A-Z, a-z, 0-9, _, . and - are allowed", c, i)
	}
	return nil
}

// checkObjectSchema checks that schema is a JSON object whose root says
// "type": "object", as every revision requires of a tool's input schema and
// every revision before 2026-07-28 of its output schema. (A server answers
// every revision, so the stricter rule applies.) It looks at the root's
// members without decoding the schema into a map: every typed tool's two
// schemas come through here at registration, where a starting server
// spends its time.
func checkObjectSchema(schema json.RawMessage) error {
	var typ []byte // the root's last "type" member, as encoding/json would keep it
	err := errSyntax
	if json.Valid(schema) {
		err = eachMember(schema, func(key, val []byte) error {
			if k, _ := unquote(key); k == "type" {
				typ = val
			}
			return nil
		})
	}
	if err != nil {
		var root map[string]any // for encoding/json's account of what is wrong
		if err = json.Unmarshal(schema, &root); err == nil {
			err = errors.New("not an object")
		}
		return fmt.Errorf("schema is not a JSON object: %w", err)
	}
	if typ == nil {
		return errors.New(`schema root has no "type": "object"`)
	}
	if t, _ := unquote(typ); t == "object" {
		return nil
	}
	var t any
	_ = json.Unmarshal(typ, &t)
	return fmt.Errorf(`schema root must have "type": "object", not %v`, t)
}

// checkResourceURI checks that uri is an absolute URI: it has a scheme,
// parses, and holds no white space or control characters.
func checkResourceURI(uri string) error {
	if uri == "" {
		return errors.New("empty URI")
	}
	for i := 0; i < len(uri); i++ {
		if c := uri[i]; c <= ' ' || c == 0x7f {
			return fmt.Errorf("URI has %q at byte %d", c, i)
		}
	}
	u, err := url.Parse(uri)
	if err != nil {
		return err
	}
	if u.Scheme == "" {
		return errors.New("URI has no scheme")
	}
	return nil
}

// refusedRequest answers a request to a server that refuses to serve (see
// Server.serving); notifications are dropped.
func refusedRequest(r *Request, e *jsonrpc.Error) (any, error) {
	if r.IsNotification() {
		return nil, nil
	}
	return nil, e
}

// servingRefused is Run's error for a server that refuses to serve: it
// wraps ErrInvalidFeature.
type servingRefused string

func (e servingRefused) Error() string { return string(e) }
func (servingRefused) Unwrap() error   { return ErrInvalidFeature }
