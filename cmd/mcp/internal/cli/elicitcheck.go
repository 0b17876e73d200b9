package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"strings"
	"time"

	"github.com/gomcp/sdk/jsonschema"
	"github.com/gomcp/sdk/mcp"
)

// An elicitation answer is checked against the schema the server asked
// with before it is sent, so that the user is asked again rather than the
// server handed a value it said it would not take.

// option is one choice of an enum field: the value sent, and its title.
type option struct{ value, title string }

// label is what the user sees: the title when there is one.
func (o option) label() string {
	if o.title != "" {
		return o.title
	}
	return o.value
}

// enumOptions returns the choices of an enum field, single- or
// multi-select, titled (oneOf, anyOf, the legacy enumNames) or not; nil
// for any other field.
func enumOptions(s *mcp.PrimitiveSchema) []option {
	var opts []option
	switch {
	case s.Items != nil && len(s.Items.Enum) > 0:
		for _, v := range s.Items.Enum {
			opts = append(opts, option{value: v})
		}
	case s.Items != nil:
		for _, o := range s.Items.AnyOf {
			opts = append(opts, option{o.Const, o.Title})
		}
	case len(s.Enum) > 0:
		for i, v := range s.Enum {
			o := option{value: v}
			if len(s.EnumNames) == len(s.Enum) {
				o.title = s.EnumNames[i]
			}
			opts = append(opts, o)
		}
	default:
		for _, o := range s.OneOf {
			opts = append(opts, option{o.Const, o.Title})
		}
	}
	return opts
}

// pick returns the value of the option the answer names, by its value or
// (ignoring case) its title.
func pick(opts []option, answer string) (string, error) {
	for _, o := range opts {
		if o.value == answer {
			return o.value, nil
		}
	}
	for _, o := range opts {
		if strings.EqualFold(o.title, answer) || strings.EqualFold(o.value, answer) {
			return o.value, nil
		}
	}
	labels := make([]string, len(opts))
	for i, o := range opts {
		labels[i] = o.label()
	}
	return "", fmt.Errorf("%q is not one of %s", answer, strings.Join(labels, ", "))
}

// checkField checks one answer against its field's schema, with this
// module's validator, and its format, which that validator (as JSON Schema
// 2020-12 says) treats as an annotation only.
func checkField(s *mcp.PrimitiveSchema, v any) error {
	raw, err := json.Marshal(s)
	if err != nil {
		return err
	}
	if err := validate(raw, v); err != nil {
		return err
	}
	if str, ok := v.(string); ok {
		return checkFormat(s.Format, str)
	}
	return nil
}

// checkElicitation checks a whole answer against the requested schema.
func checkElicitation(schema *mcp.ElicitSchema, content map[string]any) error {
	raw, err := json.Marshal(schema)
	if err != nil {
		return err
	}
	if content == nil {
		content = map[string]any{}
	}
	if err := validate(raw, content); err != nil {
		return err
	}
	for _, p := range schema.Properties {
		if str, ok := content[p.Name].(string); ok {
			if err := checkFormat(p.Schema.Format, str); err != nil {
				return fmt.Errorf("%s: %w", p.Name, err)
			}
		}
	}
	return nil
}

// validate validates v against the schema raw, with its problems in one
// line. A schema that does not compile checks nothing: the server's form
// is still shown, as it was asked.
func validate(raw json.RawMessage, v any) error {
	val, err := jsonschema.Compile(raw)
	if err != nil {
		return nil
	}
	err = val.ValidateValue(v)
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	var msgs []string
	for _, p := range ve.Problems {
		if p.Location != "" {
			msgs = append(msgs, strings.TrimPrefix(p.Location, "/")+": "+p.Message)
		} else {
			msgs = append(msgs, p.Message)
		}
	}
	return errors.New(strings.Join(msgs, "; "))
}

// checkFormat checks the string formats an elicitation field may have.
func checkFormat(format mcp.StringFormat, s string) error {
	switch format {
	case mcp.FormatEmail:
		if a, err := mail.ParseAddress(s); err != nil || a.Address != s {
			return errors.New("want an email address, such as name@example.com")
		}
	case mcp.FormatURI:
		if u, err := url.Parse(s); err != nil || u.Scheme == "" {
			return errors.New("want an absolute URI, such as https://example.com/")
		}
	case mcp.FormatDate:
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return errors.New("want a date, YYYY-MM-DD")
		}
	case mcp.FormatDateTime:
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return errors.New("want a date and time, such as 2024-05-01T12:00:00Z")
		}
	}
	return nil
}
