package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestToolArguments checks how CallToolFor encodes arguments: bytes from
// the caller pass through as they are (white space included), Go values are
// marshalled, absent arguments are {}, and anything but an object is
// refused before it is sent.
func TestToolArguments(t *testing.T) {
	var nilMap map[string]int
	var nilPtr *struct{ A int }
	tests := []struct {
		name    string
		args    any
		want    string
		wantErr string
	}{
		{"raw JSON as is", json.RawMessage(" {\"a\": 1}\n"), " {\"a\": 1}\n", ""},
		{"bytes as they are", []byte(`{"b":[true]}`), `{"b":[true]}`, ""},
		{"struct", struct {
			A int    `json:"a"`
			S string `json:"s,omitempty"`
		}{A: 1}, `{"a":1}`, ""},
		{"map", map[string]any{"x": "<y>"}, `{"x":"\u003cy\u003e"}`, ""},
		{"nil", nil, `{}`, ""},
		{"nil map", nilMap, `{}`, ""},
		{"nil pointer", nilPtr, `{}`, ""},
		{"empty raw JSON", json.RawMessage{}, `{}`, ""},
		{"raw null", json.RawMessage(" null "), `{}`, ""},
		{"array", []int{1}, "", "not a JSON object"},
		{"string", "a", "", "not a JSON object"},
		{"raw number", json.RawMessage(`1`), "", "not a JSON object"},
		{"raw object cut short", json.RawMessage(`{"a":`), "", "not a JSON object"},
		{"raw object with trailing data", []byte(`{} {}`), "", "not a JSON object"},
		{"unencodable", map[string]any{"f": func() {}}, "", "unsupported type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := toolArguments(tt.args)
			switch {
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("got %s, %v; want an error containing %q", got, err, tt.wantErr)
				}
			case err != nil:
				t.Errorf("unexpected error %v", err)
			case string(got) != tt.want:
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
