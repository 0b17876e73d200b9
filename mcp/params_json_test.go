package mcp

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/gomcp/sdk/jsonrpc"
)

// TestCallToolParamsAppendJSON: the reflection-free encoding of tools/call
// params that sendCall uses writes what encoding/json writes (the same
// JSON value), and fails where it fails.
func TestCallToolParamsAppendJSON(t *testing.T) {
	for _, p := range []*CallToolParams{
		{Name: "echo"},
		{Name: "a<b>&\u2028\"é\x00", Arguments: json.RawMessage(` { "text" : "x<y" } `)},
		{Name: "echo", Arguments: json.RawMessage(`{}`), Meta: &Meta{}},
		{Name: "echo", Meta: &Meta{ProgressToken: jsonrpc.StringID("p"), ProtocolVersion: Version20260728,
			ClientCapabilities: &ClientCapabilities{Sampling: &SamplingCapabilities{}}, ClientInfo: &Implementation{Name: "c", Version: "1"},
			Extra: map[string]json.RawMessage{"x/y": json.RawMessage(`[1, 2]`)}}},
		{Name: "echo", Task: &TaskMetadata{TTL: 5}},
		{Name: "echo", RequestState: "s", InputResponses: map[string]*InputResponse{}},
	} {
		want, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.appendJSON([]byte("prefix"))
		if err != nil {
			t.Fatal(err)
		}
		if string(got[:6]) != "prefix" {
			t.Fatalf("appendJSON dropped what b held: %s", got)
		}
		got = got[6:]
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("appendJSON wrote invalid JSON %s: %v", got, err)
		}
		if err := json.Unmarshal(want, &w); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("appendJSON wrote\n%s\nencoding/json\n%s", got, want)
		}
	}
	for _, p := range []*CallToolParams{
		{Name: "echo", Arguments: json.RawMessage(`{"a":`)},
		{Name: "echo", Meta: &Meta{LogLevel: 99}},
	} {
		if _, err := json.Marshal(p); err == nil {
			t.Fatalf("encoding/json took %+v", p)
		}
		if b, err := p.appendJSON(nil); err == nil {
			t.Errorf("appendJSON took %+v: %s", p, b)
		}
	}
}
