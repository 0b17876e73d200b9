package mcp

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestCallToolResultAppendJSON checks that the fast encoder writes exactly
// what MarshalJSON writes.
func TestCallToolResultAppendJSON(t *testing.T) {
	texts := []string{"", "plain", `{"sum":3}`, "quote\" back\\ nl\n tab\t cr\r bs\b ff\f nul\x00 esc\x1b", "<&> é 日本 😀",
		"bad \xff utf8 \xc3", "line\u2028sep\u2029", "\x7f del"}
	var cases []*CallToolResult
	for _, s := range texts {
		cases = append(cases,
			&CallToolResult{Content: []Content{&TextContent{Text: s}}},
			&CallToolResult{Content: []Content{&TextContent{Text: s}, &TextContent{Text: s}}, IsError: true, ResultType: ResultTypeComplete},
		)
	}
	cases = append(cases,
		&CallToolResult{},
		&CallToolResult{Content: []Content{}, StructuredContent: json.RawMessage(`{"sum":3}`)},
		&CallToolResult{Content: []Content{}, StructuredContent: json.RawMessage("{ \"a\" :\n [1, 2] }")},
		&CallToolResult{Content: []Content{}, StructuredContent: json.RawMessage(`null`)},
		&CallToolResult{Meta: &Meta{ServerInfo: &Implementation{Name: "s", Version: "1"}}, ResultType: ResultTypeComplete, Content: []Content{&TextContent{Text: "x"}}},
		&CallToolResult{Content: []Content{&TextContent{Text: "x", Annotations: &Annotations{Audience: []Role{RoleUser}}}}},
		&CallToolResult{Content: []Content{NewImageContent([]byte{1, 2}, "image/png")}},
	)
	for _, r := range cases {
		want, err := r.MarshalJSON() // the package writes <, > and & unescaped
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("AppendJSON\n got %s\nwant %s", got, want)
		}
	}
}
