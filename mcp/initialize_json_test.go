package mcp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/gomcp/sdk/jsonrpc"
)

// initializeParamsSeeds are initialize params as clients send them, and
// shapes the fast decoder must leave to encoding/json or decode alike.
var initializeParamsSeeds = []struct {
	raw  string
	fast bool // the fast path must take it
}{
	{`{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}`, true},
	{`{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{"form":{},"url":{}}},"clientInfo":{"name":"claude-ai","version":"0.1.0","title":"Claude"}}`, true},
	{` { "clientInfo" : { "name" : "é", "version" : "2", "websiteUrl": "https://x", "description": "d" } , "protocolVersion" : "2024-11-05" , "capabilities" : { "sampling" : { "context" : { } , "tools" : {} } } } `, true},
	{`{"protocolVersion":"a","protocolVersion":"b","capabilities":{"roots":{"listChanged":true}},"capabilities":{"roots":{"listChanged":false},"sampling":{}}}`, true},
	{`{"protocolVersion":"2025-06-18","clientInfo":{"name":"a"},"clientInfo":{"version":"2"}}`, true},
	{`{}`, true},
	// Left to encoding/json:
	{`{"_meta":{"progressToken":1},"protocolVersion":"2025-06-18"}`, false},
	{`{"ProtocolVersion":"2025-06-18"}`, false},
	{`{"protocolVersion":"2025\u002d06-18"}`, false},
	{`{"protocolVersion":null}`, false},
	{`{"protocolVersion":1}`, false},
	{`{"capabilities":null}`, false},
	{`{"capabilities":{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}}`, false},
	{`{"capabilities":{"experimental":{}}}`, false},
	{`{"capabilities":{"tasks":{"requests":{}}}}`, false},
	{`{"capabilities":{"roots":{"listChanged":1}}}`, false},
	{`{"capabilities":{"sampling":{"context":{"x":1}}}}`, false},
	{`{"capabilities":{"sampling":{"context":null}}}`, false},
	{`{"clientInfo":{"name":"x","icons":[{"src":"https://x/i.png"}]}}`, false},
	{`{"clientInfo":null}`, false},
	{`[]`, false},
	{``, false},
}

func TestInitializeParamsFast(t *testing.T) {
	for _, tc := range initializeParamsSeeds {
		var p InitializeParams
		if got := p.decodeFast([]byte(tc.raw)); got != tc.fast {
			t.Errorf("decodeFast(%s) = %v, want %v", tc.raw, got, tc.fast)
		}
		checkInitializeParams(t, []byte(tc.raw))
	}
}

// checkInitializeParams fails if the fast decoder decodes raw otherwise
// than encoding/json does.
func checkInitializeParams(t *testing.T, raw []byte) {
	t.Helper()
	var fast InitializeParams
	if !json.Valid(raw) || !fast.decodeFast(raw) {
		return
	}
	type wire InitializeParams
	var slow InitializeParams
	if err := json.Unmarshal(raw, (*wire)(&slow)); err != nil {
		t.Fatalf("%s: the fast path decoded what encoding/json refuses: %v", raw, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%s:\nfast %+v\nslow %+v", raw, fast, slow)
	}
}

// initializeResults are results the fast encoder must write as
// MarshalJSON does, taken by it or not.
var initializeResults = []*InitializeResult{
	{ProtocolVersion: "2025-11-25", ServerInfo: &Implementation{Name: "s", Version: "1"}},
	{ProtocolVersion: "2025-06-18", Capabilities: &ServerCapabilities{Tools: &ToolCapabilities{ListChanged: true}, Logging: &LoggingCapabilities{}}, ServerInfo: &Implementation{Name: "bench", Version: "1.0.0"}},
	{ProtocolVersion: "v", Capabilities: &ServerCapabilities{
		Logging: &LoggingCapabilities{}, Completions: &CompletionCapabilities{}, Prompts: &PromptCapabilities{},
		Resources: &ResourceCapabilities{Subscribe: true, ListChanged: true}, Tools: &ToolCapabilities{},
	}, ServerInfo: &Implementation{Name: "<&>\u2028\"é\x01", Version: "2", Title: "t", Description: "d", WebsiteURL: "https://x/?a=1&b=2"}, Instructions: "use <b>\n"},
	{Capabilities: &ServerCapabilities{Resources: &ResourceCapabilities{ListChanged: true}}},
	{Capabilities: &ServerCapabilities{Resources: &ResourceCapabilities{Subscribe: true}}},
	// Taken by MarshalJSON:
	{Meta: &Meta{ProgressToken: jsonrpc.StringID("t")}, ServerInfo: &Implementation{Name: "s", Version: "1"}},
	{Capabilities: &ServerCapabilities{Extensions: map[string]json.RawMessage{"io.modelcontextprotocol/ui": json.RawMessage(`{ }`)}}},
	{Capabilities: &ServerCapabilities{Tasks: json.RawMessage(`{"list":{}}`)}},
	{ServerInfo: &Implementation{Name: "s", Icons: []Icon{{Src: "https://x/i.png"}}}},
}

func TestInitializeResultAppendJSON(t *testing.T) {
	for _, r := range initializeResults {
		checkInitializeResult(t, r)
	}
}

func checkInitializeResult(t *testing.T, r *InitializeResult) {
	t.Helper()
	want, err := r.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.AppendJSON([]byte("x"))
	if err != nil || !bytes.Equal(got[1:], want) || got[0] != 'x' {
		t.Fatalf("AppendJSON = %s, %v\nMarshalJSON %s", got, err, want)
	}
}

func FuzzInitializeJSON(f *testing.F) {
	for _, tc := range initializeParamsSeeds {
		f.Add([]byte(tc.raw), "", "", "", 0)
	}
	f.Add([]byte(nil), "2025-06-18", "s\u2028<", "d&", 0x3ff)
	f.Fuzz(func(t *testing.T, raw []byte, version, name, text string, bits int) {
		checkInitializeParams(t, raw)
		on := func(i int) bool { return bits&(1<<i) != 0 }
		r := &InitializeResult{ProtocolVersion: version, Instructions: text, Capabilities: &ServerCapabilities{}}
		if on(0) {
			r.ServerInfo = &Implementation{Name: name, Version: version, Title: text, Description: name, WebsiteURL: text}
		}
		c := r.Capabilities
		if on(1) {
			c.Logging = &LoggingCapabilities{}
		}
		if on(2) {
			c.Completions = &CompletionCapabilities{}
		}
		if on(3) {
			c.Prompts = &PromptCapabilities{ListChanged: on(4)}
		}
		if on(5) {
			c.Resources = &ResourceCapabilities{Subscribe: on(6), ListChanged: on(7)}
		}
		if on(8) {
			c.Tools = &ToolCapabilities{ListChanged: on(9)}
		}
		if on(10) {
			r.Capabilities = nil
		}
		checkInitializeResult(t, r)
	})
}
