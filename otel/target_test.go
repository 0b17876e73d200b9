package mcpotel

import (
	"encoding/json"
	"testing"
)

// TestStringMember compares stringMember with encoding/json on params of
// every shape the scanner must step over, and on broken ones.
func TestStringMember(t *testing.T) {
	for _, params := range []string{
		`{"name":"echo"}`,
		` { "arguments" : {"name":"inner","x":[1,{"y":"}"}]} , "name" : "outer" } `,
		`{"arguments":"a \"quoted\" {name}","name":"t\u00e9l\u00e9"}`,
		`{"n":1,"b":true,"z":null,"name":"last"}`,
		`{"x":-1.5e3,"name":"after-number"}`,
		`{"name":7}`,
		`{"uri":"file:///a","name":"x"}`,
		`{}`,
		``,
		`null`,
		`[{"name":"no"}]`,
		`{"name":"unterminated}`,
		`{"a":{"name":"nested only"}}`,
		`{"a":[1,2,3]}`,
		`{"name" "missing colon"}`,
	} {
		var want struct {
			Name any `json:"name"`
		}
		wantName := ""
		if json.Unmarshal([]byte(params), &want) == nil {
			wantName, _ = want.Name.(string)
		}
		if got := stringMember([]byte(params), `"name"`); got != wantName {
			t.Errorf("stringMember(%s) = %q, want %q", params, got, wantName)
		}
	}
}
