package mcp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/gomcp/sdk/jsonrpc"
)

func TestToolSchemasStayRaw(t *testing.T) {
	// Keyword order, $-keywords, composition and characters that
	// encoding/json would escape all survive.
	const schema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"a":{"$anchor":"a","pattern":"^<[a-z]>&$"}},"properties":{"z":{"$ref":"#a"},"b":{"not":{}}},"if":{},"then":{},"else":{},"x-mcp-header":"Region","allOf":[{}],"unknownKeyword":[1.50,2e3]}`
	tool := &Tool{Name: "t", InputSchema: json.RawMessage(schema), OutputSchema: json.RawMessage(`true`)}
	b, err := marshalJSONNoEscape(tool)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"inputSchema":`+schema)) || !bytes.Contains(b, []byte(`"outputSchema":true`)) {
		t.Fatalf("schemas changed: %s", b)
	}
	var back Tool
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if raw, ok := back.InputSchema.(json.RawMessage); !ok || string(raw) != schema {
		t.Errorf("decoded input schema %s", back.InputSchema)
	}
	// Whitespace is compacted, nothing else.
	spaced := &Tool{Name: "t", InputSchema: json.RawMessage("{ \"type\" :\n \"object\" }")}
	if b, _ := marshalJSONNoEscape(spaced); !bytes.Contains(b, []byte(`"inputSchema":{"type":"object"}`)) {
		t.Errorf("got %s", b)
	}
	if _, err := json.Marshal(&Tool{Name: "t", InputSchema: json.RawMessage(`{bad`)}); err == nil {
		t.Error("invalid raw schema encoded without error")
	}
}

func TestElicitSchemaKeepsPropertyOrder(t *testing.T) {
	in := `{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"number","minimum":1},"mid":{"type":"boolean","default":true}},"required":["zeta"]}`
	var s ElicitSchema
	if err := json.Unmarshal([]byte(in), &s); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range s.Properties {
		names = append(names, p.Name)
	}
	if strings.Join(names, ",") != "zeta,alpha,mid" {
		t.Errorf("order = %v", names)
	}
	if p := s.Property("alpha"); p == nil || *p.Minimum != 1 {
		t.Errorf("Property(alpha) = %#v", p)
	}
	if s.Property("nope") != nil {
		t.Error("Property(nope) != nil")
	}
	out, err := marshalJSONNoEscape(s)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != in {
		t.Errorf("encoded\n %s\nwant\n %s", out, in)
	}
	// The root type may be omitted.
	if err := json.Unmarshal([]byte(`{"properties":{}}`), &s); err != nil || len(s.Properties) != 0 {
		t.Errorf("no type: %v, %#v", err, s)
	}
}

func TestElicitSchemaErrors(t *testing.T) {
	tests := []struct {
		in, wantErr string
	}{
		{`{"type":"string","properties":{}}`, `must be "object"`},
		{`{"type":"object","properties":[]}`, "must be an object"},
		{`{"type":"object","properties":{"a":{"type":"string"},"a":{"type":"number"}}}`, "appears twice"},
		{`{"type":"object","properties":{"a":5}}`, `property "a"`},
		{`{"type":"object","properties":{"a":{"type":"string","minLength":"x"}}}`, `property "a"`},
		{`{"type":"object","required":"a"}`, "cannot unmarshal"},
	}
	for _, tt := range tests {
		var s ElicitSchema
		err := json.Unmarshal([]byte(tt.in), &s)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: error = %v, want one containing %q", tt.in, err, tt.wantErr)
		}
	}
}

func TestInputRequestUnion(t *testing.T) {
	tests := []struct {
		in      string
		method  string
		wantErr string
	}{
		{`{"method":"roots/list"}`, MethodRootsList, ""},
		{`{"method":"roots/list","params":{"_meta":{"k":1}}}`, MethodRootsList, ""},
		{`{"method":"elicitation/create","params":{"message":"m","mode":"url","url":"https://x"}}`, MethodElicitationCreate, ""},
		{`{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}`, MethodSamplingCreateMessage, ""},
		{`{"method":"tools/call","params":{}}`, "", "is not elicitation/create"},
		{`{"params":{}}`, "", "is not elicitation/create"},
		{`{"method":"elicitation/create"}`, "", "has no params"},
		{`{"method":"sampling/createMessage","params":{"messages":{}}}`, "", "sampling/createMessage"},
		{`[]`, "", "cannot unmarshal"},
	}
	for _, tt := range tests {
		var r InputRequest
		err := json.Unmarshal([]byte(tt.in), &r)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: error = %v, want one containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if r.Method() != tt.method {
			t.Errorf("%s: Method() = %q, want %q", tt.in, r.Method(), tt.method)
		}
		b, err := json.Marshal(&r)
		if err != nil || !bytes.Contains(b, []byte(`"method":"`+tt.method+`","params":{`)) {
			t.Errorf("%s re-encoded as %s (%v)", tt.in, b, err)
		}
	}
	if m := (&InputRequest{}).Method(); m != "" {
		t.Errorf("empty InputRequest method %q", m)
	}
}

func TestInputResponseUnion(t *testing.T) {
	tests := []struct {
		in      string
		check   func(*InputResponse) bool
		wantErr bool
	}{
		{`{"action":"accept","content":{"a":"b"}}`, func(r *InputResponse) bool { return r.Elicit != nil && r.Elicit.Content["a"] == "b" }, false},
		{`{"roots":[{"uri":"file:///"}]}`, func(r *InputResponse) bool { return r.ListRoots != nil && len(r.ListRoots.Roots) == 1 }, false},
		{`{"role":"assistant","model":"m","content":{"type":"text","text":"t"}}`, func(r *InputResponse) bool { return r.CreateMessage != nil && len(r.CreateMessage.Content) == 1 }, false},
		{`{}`, nil, true},
		{`{"action":"accept","roots":[]}`, nil, true},
		{`{"model":"m","content":{"type":"bogus"}}`, nil, true},
		{`{"roots":{}}`, nil, true},
		{`"accept"`, nil, true},
	}
	for _, tt := range tests {
		r := &InputResponse{Elicit: &ElicitResult{Action: "stale"}}
		err := json.Unmarshal([]byte(tt.in), r)
		if tt.wantErr {
			if err == nil {
				t.Errorf("%s: no error", tt.in)
			}
			continue
		}
		if err != nil || !tt.check(r) {
			t.Errorf("%s: %v, %#v", tt.in, err, r)
		}
	}
}

func TestCompleteReference(t *testing.T) {
	tests := []struct {
		in      string
		want    CompleteReference
		wantErr string
	}{
		{`{"type":"ref/prompt","name":"p","title":"P"}`, CompleteReference{Type: RefTypePrompt, Name: "p", Title: "P"}, ""},
		{`{"type":"ref/resource","uri":"file:///{x}"}`, CompleteReference{Type: RefTypeResource, URI: "file:///{x}"}, ""},
		{`{"type":"ref/prompt"}`, CompleteReference{}, "needs a name"},
		{`{"type":"ref/resource","name":"x"}`, CompleteReference{}, "needs a uri"},
		{`{"type":"ref/tool","name":"x"}`, CompleteReference{}, "unknown completion reference type"},
		{`{}`, CompleteReference{}, "unknown completion reference type"},
	}
	for _, tt := range tests {
		var p CompleteParams
		err := json.Unmarshal([]byte(`{"ref":`+tt.in+`,"argument":{"name":"a","value":"v"}}`), &p)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: error = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || p.Ref != tt.want || p.Argument != (CompleteArgument{Name: "a", Value: "v"}) {
			t.Errorf("%s: %v, %#v", tt.in, err, p)
		}
	}
}

func TestCapabilitiesEmptyVersusAbsent(t *testing.T) {
	tests := []string{
		`{}`,
		`{"sampling":{}}`,
		`{"sampling":{"tools":{}}}`,
		`{"elicitation":{}}`,
		`{"elicitation":{"form":{},"url":{}}}`,
		`{"roots":{"listChanged":true}}`,
		`{"roots":{}}`,
		`{"extensions":{"io.modelcontextprotocol/tasks":{"a":1}}}`,
		`{"tasks":{"list":{},"requests":{"elicitation":{"create":{}}}}}`,
	}
	for _, in := range tests {
		var c ClientCapabilities
		if err := json.Unmarshal([]byte(in), &c); err != nil {
			t.Fatal(err)
		}
		if out, _ := marshalJSONNoEscape(&c); string(out) != in {
			t.Errorf("client %s -> %s", in, out)
		}
	}
	for _, in := range []string{
		`{}`,
		`{"logging":{},"completions":{},"prompts":{},"resources":{"subscribe":true},"tools":{"listChanged":true}}`,
		`{"tasks":{"cancel":{},"requests":{"tools":{"call":{}}}}}`,
		`{"experimental":{"x":{"y":[1]}}}`,
	} {
		var c ServerCapabilities
		if err := json.Unmarshal([]byte(in), &c); err != nil {
			t.Fatal(err)
		}
		if out, _ := marshalJSONNoEscape(&c); string(out) != in {
			t.Errorf("server %s -> %s", in, out)
		}
	}
}

func TestRequestIDsAndTokens(t *testing.T) {
	tests := []struct {
		v    CancelledNotificationParams
		want string
	}{
		{CancelledNotificationParams{RequestID: jsonrpc.Int64ID(0)}, `{"requestId":0}`},
		{CancelledNotificationParams{RequestID: jsonrpc.StringID("")}, `{"requestId":""}`},
		{CancelledNotificationParams{Reason: "r"}, `{"reason":"r"}`},
	}
	for _, tt := range tests {
		b, err := marshalJSONNoEscape(tt.v)
		if err != nil || string(b) != tt.want {
			t.Errorf("%#v = %s, %v; want %s", tt.v, b, err, tt.want)
		}
		var back CancelledNotificationParams
		if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, tt.v) {
			t.Errorf("%s decoded to %#v, %v", b, back, err)
		}
	}
	for _, bad := range []string{`{"requestId":null}`, `{"requestId":1.5}`, `{"requestId":{}}`} {
		var p CancelledNotificationParams
		if err := json.Unmarshal([]byte(bad), &p); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	var p ProgressNotificationParams
	if err := json.Unmarshal([]byte(`{"progressToken":"abc","progress":1.25,"total":2}`), &p); err != nil || p.ProgressToken != jsonrpc.StringID("abc") || p.Progress != 1.25 {
		t.Errorf("progress: %#v, %v", p, err)
	}
}

func TestCacheHintsZeroTTLIsWritten(t *testing.T) {
	r := ListPromptsResult{ResultType: ResultTypeComplete, CacheHints: CacheHints{TTLMs: new(int64(0)), CacheScope: CacheScopePublic}}
	b, err := marshalJSONNoEscape(r)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"resultType":"complete","ttlMs":0,"cacheScope":"public","prompts":[]}` {
		t.Errorf("got %s", b)
	}
	var back ListPromptsResult
	if err := json.Unmarshal(b, &back); err != nil || back.TTLMs == nil || *back.TTLMs != 0 || back.CacheScope != CacheScopePublic {
		t.Errorf("decoded %#v, %v", back, err)
	}
}

func TestStructuredContentNull(t *testing.T) {
	// 2026 allows any JSON value, null included; it must survive.
	var r CallToolResult
	if err := json.Unmarshal([]byte(`{"content":[],"structuredContent":null,"resultType":"complete"}`), &r); err != nil {
		t.Fatal(err)
	}
	if string(r.StructuredContent) != "null" {
		t.Errorf("structuredContent = %q", r.StructuredContent)
	}
	b, _ := marshalJSONNoEscape(&r)
	if string(b) != `{"resultType":"complete","content":[],"structuredContent":null}` {
		t.Errorf("got %s", b)
	}
}
