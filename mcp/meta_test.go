package mcp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/gomcp/sdk/jsonrpc"
)

func TestMetaRoundTrip(t *testing.T) {
	in := `{"progressToken":"t","io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},` +
		`"io.modelcontextprotocol/logLevel":"notice",` +
		`"io.modelcontextprotocol/subscriptionId":17,` +
		`"io.modelcontextprotocol/serverInfo":{"name":"s","version":"2"},` +
		`"io.modelcontextprotocol/related-task":{"taskId":"x"},` +
		`"io.modelcontextprotocol/model-immediate-response":"soon",` +
		`"traceparent":"tp","tracestate":"ts","baggage":"b",` +
		`"a.example/k":{"deep":[1,"<&>",null]},"z":null,"m":1.5e3}`
	var m Meta
	if err := json.Unmarshal([]byte(in), &m); err != nil {
		t.Fatal(err)
	}
	want := Meta{
		ProgressToken:          jsonrpc.StringID("t"),
		ProtocolVersion:        "2026-07-28",
		ClientCapabilities:     &ClientCapabilities{},
		ClientInfo:             &Implementation{Name: "c", Version: "1"},
		LogLevel:               LevelNotice,
		SubscriptionID:         jsonrpc.Int64ID(17),
		ServerInfo:             &Implementation{Name: "s", Version: "2"},
		RelatedTask:            &RelatedTaskMetadata{TaskID: "x"},
		ModelImmediateResponse: "soon",
		TraceParent:            "tp",
		TraceState:             "ts",
		Baggage:                "b",
		Extra: map[string]json.RawMessage{
			"a.example/k": json.RawMessage(`{"deep":[1,"<&>",null]}`),
			"z":           json.RawMessage(`null`),
			"m":           json.RawMessage(`1.5e3`),
		},
	}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("decoded\n %#v\nwant\n %#v", m, want)
	}
	out, err := marshalJSONNoEscape(&m)
	if err != nil {
		t.Fatal(err)
	}
	// Typed keys in a fixed order, then the others sorted.
	const wantOut = `{"progressToken":"t","io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},` +
		`"io.modelcontextprotocol/logLevel":"notice",` +
		`"io.modelcontextprotocol/subscriptionId":17,` +
		`"io.modelcontextprotocol/serverInfo":{"name":"s","version":"2"},` +
		`"io.modelcontextprotocol/related-task":{"taskId":"x"},` +
		`"io.modelcontextprotocol/model-immediate-response":"soon",` +
		`"traceparent":"tp","tracestate":"ts","baggage":"b",` +
		`"a.example/k":{"deep":[1,"<&>",null]},"m":1.5e3,"z":null}`
	if string(out) != wantOut {
		t.Errorf("encoded\n %s\nwant\n %s", out, wantOut)
	}
	var again Meta
	if err := json.Unmarshal(out, &again); err != nil || !reflect.DeepEqual(again, m) {
		t.Errorf("second round trip: %v\n %#v", err, again)
	}
}

func TestMetaInParams(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"absent", &ListToolsParams{}, `{}`},
		{"empty", &ListToolsParams{Meta: &Meta{}}, `{"_meta":{}}`},
		{"integer token", &ListToolsParams{Meta: &Meta{ProgressToken: jsonrpc.Int64ID(0)}}, `{"_meta":{"progressToken":0}}`},
		{"extra only", &EmptyResult{Meta: &Meta{Extra: map[string]json.RawMessage{"k": json.RawMessage(`true`)}}}, `{"_meta":{"k":true}}`},
		{"nil extra value", &EmptyResult{Meta: &Meta{Extra: map[string]json.RawMessage{"k": nil}}}, `{"_meta":{"k":null}}`},
		// A typed field wins over an Extra entry under the same key; an
		// unset typed field lets the Extra entry through.
		{"typed wins", &EmptyResult{Meta: &Meta{TraceParent: "typed", Extra: map[string]json.RawMessage{"traceparent": json.RawMessage(`"raw"`)}}}, `{"_meta":{"traceparent":"typed"}}`},
		{"extra fills in", &EmptyResult{Meta: &Meta{Extra: map[string]json.RawMessage{"traceparent": json.RawMessage(`"raw"`)}}}, `{"_meta":{"traceparent":"raw"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := marshalJSONNoEscape(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("got %s, want %s", b, tt.want)
			}
		})
	}
}

func TestMetaDecodeErrors(t *testing.T) {
	tests := []struct {
		in      string
		wantErr string
	}{
		{`[]`, "must be an object"},
		{`"x"`, "must be an object"},
		{`null`, "must be an object"},
		{`{"progressToken":{}}`, "progressToken"},
		{`{"progressToken":1.5}`, "progressToken"},
		{`{"progressToken":true}`, "progressToken"},
		{`{"io.modelcontextprotocol/protocolVersion":5}`, "protocolVersion"},
		{`{"io.modelcontextprotocol/clientCapabilities":"all"}`, "clientCapabilities"},
		{`{"io.modelcontextprotocol/clientInfo":[]}`, "clientInfo"},
		{`{"io.modelcontextprotocol/logLevel":"loud"}`, "unknown logging level"},
		{`{"io.modelcontextprotocol/logLevel":3}`, "logLevel"},
		{`{"io.modelcontextprotocol/subscriptionId":{}}`, "subscriptionId"},
		{`{"io.modelcontextprotocol/related-task":"x"}`, "related-task"},
		{`{"traceparent":1}`, "traceparent"},
	}
	for _, tt := range tests {
		var m Meta
		err := json.Unmarshal([]byte(tt.in), &m)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: error = %v, want one containing %q", tt.in, err, tt.wantErr)
		}
	}
	// The error surfaces through any params type.
	var p CallToolParams
	if err := json.Unmarshal([]byte(`{"name":"x","_meta":{"progressToken":null,"io.modelcontextprotocol/logLevel":"shout"}}`), &p); err == nil {
		t.Error("want an error for an unknown log level in params")
	}
}

func TestMetaNullReservedKeysAreAbsent(t *testing.T) {
	var m Meta
	in := `{"progressToken":null,"io.modelcontextprotocol/clientInfo":null,"io.modelcontextprotocol/logLevel":null,"traceparent":null}`
	if err := json.Unmarshal([]byte(in), &m); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m, Meta{}) {
		t.Errorf("got %#v, want zero", m)
	}
	// A null _meta is an absent one.
	p := ListToolsParams{Meta: &Meta{}}
	if err := json.Unmarshal([]byte(`{"_meta":null}`), &p); err != nil || p.Meta != nil {
		t.Errorf("null _meta: %v, %#v", err, p.Meta)
	}
}

func TestMetaDecodeResetsValue(t *testing.T) {
	m := Meta{TraceParent: "old", Extra: map[string]json.RawMessage{"old": json.RawMessage(`1`)}}
	if err := json.Unmarshal([]byte(`{"new":2}`), &m); err != nil {
		t.Fatal(err)
	}
	want := Meta{Extra: map[string]json.RawMessage{"new": json.RawMessage(`2`)}}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("got %#v, want %#v", m, want)
	}
}

func TestLoggingLevel(t *testing.T) {
	names := []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}
	prev := LoggingLevel(0)
	for i, name := range names {
		l, ok := ParseLoggingLevel(name)
		if !ok || l <= prev || l.String() != name {
			t.Errorf("ParseLoggingLevel(%q) = %v, %v (previous %v)", name, l, ok, prev)
		}
		if i == 0 && l != LevelDebug || i == len(names)-1 && l != LevelEmergency {
			t.Errorf("%q = %d", name, l)
		}
		b, err := json.Marshal(l)
		if err != nil || string(b) != `"`+name+`"` {
			t.Errorf("marshal %v = %s, %v", l, b, err)
		}
		var back LoggingLevel
		if err := json.Unmarshal(b, &back); err != nil || back != l {
			t.Errorf("unmarshal %s = %v, %v", b, back, err)
		}
		prev = l
	}
	if !(LevelWarning > LevelInfo && LevelError < LevelCritical) {
		t.Error("levels are not ordered by severity")
	}
	for _, bad := range []string{"", "Info", "warn", "fatal", "trace"} {
		if _, ok := ParseLoggingLevel(bad); ok {
			t.Errorf("ParseLoggingLevel(%q) succeeded", bad)
		}
		var l LoggingLevel
		if err := json.Unmarshal([]byte(`"`+bad+`"`), &l); err == nil {
			t.Errorf("unmarshal %q succeeded", bad)
		}
	}
	for _, bad := range []LoggingLevel{0, -1, LevelEmergency + 1} {
		if _, err := json.Marshal(bad); err == nil {
			t.Errorf("marshal %v succeeded", bad)
		}
		if !strings.HasPrefix(bad.String(), "LoggingLevel(") {
			t.Errorf("String(%d) = %q", bad, bad.String())
		}
	}
	var p SetLevelParams
	if err := json.Unmarshal([]byte(`{"level":"verbose"}`), &p); err == nil {
		t.Error("SetLevelParams accepted an unknown level")
	}
	if err := json.Unmarshal([]byte(`{"level":"alert"}`), &p); err != nil || p.Level != LevelAlert {
		t.Errorf("SetLevelParams = %v, %v", p.Level, err)
	}
}

func TestMetaEncodeErrors(t *testing.T) {
	tests := []*Meta{
		{LogLevel: LevelEmergency + 1},
		{Extra: map[string]json.RawMessage{"k": json.RawMessage(`{bad`)}},
		{ClientCapabilities: &ClientCapabilities{Experimental: map[string]json.RawMessage{"x": json.RawMessage(`nope`)}}},
	}
	for _, m := range tests {
		if b, err := json.Marshal(m); err == nil {
			t.Errorf("%#v encoded as %s", m, b)
		}
	}
}

// FuzzMeta checks that whatever _meta decodes encodes again, to a value
// that decodes to the same Meta.
func FuzzMeta(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"progressToken":-0}`, `{"progressToken":"x","a":{"b":[1,2]}}`,
		`{"io.modelcontextprotocol/logLevel":"debug","io.modelcontextprotocol/clientCapabilities":{"sampling":{"tools":{}}}}`,
		`{"io.modelcontextprotocol/subscriptionId":"s","traceparent":"\u00e9","k\u0000":null}`,
		`{"io.modelcontextprotocol/clientInfo":{"name":"n","version":"v","icons":[{"src":"s"}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var m Meta
		if json.Unmarshal(data, &m) != nil {
			return
		}
		b, err := json.Marshal(&m)
		if err != nil {
			t.Fatalf("%s decoded but does not encode: %v", data, err)
		}
		var again Meta
		if err := json.Unmarshal(b, &again); err != nil {
			t.Fatalf("re-decoding %s: %v", b, err)
		}
		b2, err := json.Marshal(&again)
		if err != nil || !bytes.Equal(b, b2) {
			t.Fatalf("unstable encoding:\n%s\n%s (%v)", b, b2, err)
		}
	})
}
