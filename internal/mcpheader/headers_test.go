package mcpheader

import (
	"encoding/json"
	"testing"
)

func TestParamHeadersValidity(t *testing.T) {
	prop := func(typ, header string) string {
		return `{"type":"object","properties":{"p":{"type":` + typ + `,"x-mcp-header":` + header + `}}}`
	}
	tests := []struct {
		name, schema string
		wantErr      bool
		want         int
	}{
		{"valid string", prop(`"string"`, `"Region"`), false, 1},
		{"valid integer", prop(`"integer"`, `"Priority"`), false, 1},
		{"valid boolean", prop(`"boolean"`, `"Debug"`), false, 1},
		{"no annotation", `{"type":"object","properties":{"p":{"type":"string"}}}`, false, 0},
		{"empty name", prop(`"string"`, `""`), true, 0},
		{"object type", prop(`"object"`, `"Obj"`), true, 0},
		{"array type", prop(`"array"`, `"Arr"`), true, 0},
		{"null type", prop(`"null"`, `"Nul"`), true, 0},
		{"number type", prop(`"number"`, `"Num"`), true, 0},
		{"space in name", prop(`"string"`, `"My Region"`), true, 0},
		{"colon in name", prop(`"string"`, `"Region:Primary"`), true, 0},
		{"non-ASCII name", prop(`"string"`, `"Région"`), true, 0},
		{"control char in name", prop(`"string"`, `"Region\t1"`), true, 0},
		{"duplicate same case", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"Region"}}}`, true, 0},
		{"duplicate other case", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"MyField"},"b":{"type":"string","x-mcp-header":"myfield"}}}`, true, 0},
		{"nested through properties", `{"type":"object","properties":{"o":{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"R"}}}}}`, false, 1},
		{"under items", `{"type":"object","properties":{"l":{"type":"array","items":{"type":"string","x-mcp-header":"L"}}}}`, true, 0},
		{"under oneOf", `{"type":"object","oneOf":[{"properties":{"r":{"type":"string","x-mcp-header":"R"}}}]}`, true, 0},
		{"under anyOf of a property", `{"type":"object","properties":{"o":{"anyOf":[{"type":"string","x-mcp-header":"O"}]}}}`, true, 0},
		{"under $defs", `{"type":"object","properties":{"r":{"$ref":"#/$defs/R"}},"$defs":{"R":{"type":"string","x-mcp-header":"R"}}}`, true, 0},
		{"under then", `{"type":"object","if":{},"then":{"properties":{"r":{"type":"string","x-mcp-header":"R"}}}}`, true, 0},
		{"under additionalProperties", `{"type":"object","additionalProperties":{"type":"string","x-mcp-header":"A"}}`, true, 0},
		{"on the root", `{"type":"object","x-mcp-header":"Root"}`, true, 0},
		{"in a default value is data", `{"type":"object","properties":{"o":{"type":"object","default":{"x-mcp-header":"X"}}}}`, false, 0},
		{"a property named items", `{"type":"object","properties":{"items":{"type":"string","x-mcp-header":"Items"}}}`, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParamHeaders(json.RawMessage(tt.schema))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if len(got) != tt.want {
				t.Errorf("got %d headers %+v, want %d", len(got), got, tt.want)
			}
		})
	}
}

func TestHeaderValueEncoding(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{
		{"us-west1", "us-west1"},
		{json.Number("42"), "42"},
		{json.Number("42.0"), "42"},
		{json.Number("-7"), "-7"},
		{false, "false"},
		{true, "true"},
		{"", ""},
		{"us west 1", "us west 1"},
		{"Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="},
		{" padded ", "=?base64?IHBhZGRlZCA=?="},
		{"line1\nline2", "=?base64?bGluZTEKbGluZTI=?="},
		{"\tindented", "=?base64?CWluZGVudGVk?="},
		{"=?base64?abc?=", "=?base64?PT9iYXNlNjQ/YWJjPz0=?="},
	}
	for _, tt := range tests {
		got, ok := EncodeHeaderValue(tt.in)
		if !ok || got != tt.want {
			t.Errorf("EncodeHeaderValue(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
		if s, isString := tt.in.(string); isString {
			back, err := DecodeHeaderValue(got)
			if err != nil || (back != s && back != json.Number(s).String()) {
				t.Errorf("DecodeHeaderValue(%q) = %q, %v; want %q", got, back, err, s)
			}
		}
	}
	for _, v := range []any{nil, json.Number("3.14159"), json.Number("9007199254740992"), map[string]any{}, []any{}} {
		if s, ok := EncodeHeaderValue(v); ok {
			t.Errorf("EncodeHeaderValue(%v) = %q, want no header form", v, s)
		}
	}
}

func TestDecodeHeaderValue(t *testing.T) {
	tests := []struct {
		in, want string
		wantErr  bool
	}{
		{"=?base64?SGVsbG8=?=", "Hello", false},
		{"=?base64?SGVsbG8?=", "", true},                  // bad padding
		{"=?base64?SGVs!!!bG8=?=", "", true},              // bad characters
		{"SGVsbG8=", "SGVsbG8=", false},                   // no wrapper: literal
		{"=?base64?SGVsbG8=", "=?base64?SGVsbG8=", false}, // no suffix: literal
		{"  spaced  ", "spaced", false},
	}
	for _, tt := range tests {
		got, err := DecodeHeaderValue(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("DecodeHeaderValue(%q) = %q, %v; want %q (error %v)", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestSameHeaderValue(t *testing.T) {
	tests := []struct {
		got, want, typ string
		same           bool
	}{
		{"42", "42", "integer", true},
		{"42.0", "42", "integer", true},
		{"4.2e1", "42", "integer", true},
		{"042", "42", "integer", true},
		{"42.5", "42", "integer", false},
		{"9007199254740993", "9007199254740993", "integer", false}, // beyond the safe range
		{"x", "42", "integer", false},
		{"us-west1", "us-west1", "string", true},
		{"US-WEST1", "us-west1", "string", false}, // values are case-sensitive
		{"true", "true", "boolean", true},
		{"True", "true", "boolean", false},
	}
	for _, tt := range tests {
		if got := sameHeaderValue(tt.got, tt.want, tt.typ); got != tt.same {
			t.Errorf("sameHeaderValue(%q, %q, %s) = %v, want %v", tt.got, tt.want, tt.typ, got, tt.same)
		}
	}
}
