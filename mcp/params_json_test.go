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

// TestDecodeImplementation: the reflection-free decoding of serverInfo and
// clientInfo gives what json.Unmarshal gives, errors included.
func TestDecodeImplementation(t *testing.T) {
	for _, raw := range []string{
		`{"name":"s","version":"1"}`,
		` { "name" : "s\u00e9\n" , "version":"1", "title":"T", "description":"d", "websiteUrl":"https://x" } `,
		`{"name":"a","name":"b","version":null}`,
		`{"NAME":"s","version":"1"}`,
		`{"name":"s","icons":[{"src":"https://x/i.png","sizes":["48x48"]}],"other":{"a":[1]}}`,
		"{\"name\":\"\xff\"}",
		`{}`,
		`{"name":1}`,
		`[]`,
		`{"name":"s"`,
	} {
		var want Implementation
		werr := json.Unmarshal([]byte(raw), &want)
		got, err := decodeImplementation([]byte(raw))
		if (err != nil) != (werr != nil) {
			t.Errorf("%s: error %v, json.Unmarshal's %v", raw, err, werr)
			continue
		}
		if err == nil && !reflect.DeepEqual(*got, want) {
			t.Errorf("%s: decoded %+v, json.Unmarshal %+v", raw, *got, want)
		}
	}
}
