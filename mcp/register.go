package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
)

// ErrInvalidFeature is wrapped by every error that AddTool, AddResource,
// AddResourceTemplate and AddPrompt return: a feature that clients could
// not use (a bad name, URI or schema) is refused when it is added, where the
// mistake is made, rather than found by the first client that calls it.
var ErrInvalidFeature = errors.New("mcp: invalid feature")

// A RegistrationError reports a feature that an Add function refused. It
// wraps ErrInvalidFeature and the underlying cause, so both errors.Is and
// errors.As see through it. Nothing was registered.
type RegistrationError struct {
	// Kind is the kind of feature: "tool", "prompt", "resource" or
	// "resource template".
	Kind string
	// Name is the tool or prompt name, the resource URI or the URI
	// template, as given.
	Name string
	// Err is what is wrong with it.
	Err error
}

// Error names the feature and the problem.
func (e *RegistrationError) Error() string {
	return fmt.Sprintf("mcp: invalid %s %q: %v", e.Kind, e.Name, e.Err)
}

// Unwrap returns ErrInvalidFeature and the cause.
func (e *RegistrationError) Unwrap() []error { return []error{ErrInvalidFeature, e.Err} }

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
