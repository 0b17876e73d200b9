package mcp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestContentTypeDiscriminators(t *testing.T) {
	tests := []struct {
		c    Content
		want string
	}{
		{&TextContent{Text: "x"}, "text"},
		{&ImageContent{Data: "AA==", MIMEType: "image/png"}, "image"},
		{&AudioContent{Data: "AA==", MIMEType: "audio/wav"}, "audio"},
		{&ResourceLink{URI: "file:///x", Name: "x"}, "resource_link"},
		{&EmbeddedResource{Resource: &TextResourceContents{URI: "file:///x"}}, "resource"},
		{&ToolUseContent{ID: "1", Name: "n"}, "tool_use"},
		{&ToolResultContent{ToolUseID: "1"}, "tool_result"},
	}
	for _, tt := range tests {
		if got := tt.c.Type(); got != tt.want {
			t.Errorf("%T.Type() = %q, want %q", tt.c, got, tt.want)
		}
		b, err := json.Marshal(tt.c)
		if err != nil {
			t.Fatalf("%T: %v", tt.c, err)
		}
		var head struct{ Type string }
		if err := json.Unmarshal(b, &head); err != nil || head.Type != tt.want {
			t.Errorf("%T encodes type %q (%v): %s", tt.c, head.Type, err, b)
		}
		// A value (not a pointer) encodes the discriminator too.
		vb, err := json.Marshal(reflect.ValueOf(tt.c).Elem().Interface())
		if err != nil || !bytes.Equal(vb, b) {
			t.Errorf("%T by value = %s (%v), by pointer %s", tt.c, vb, err, b)
		}
		// Every type decodes back to itself through a content list.
		got, err := unmarshalContentList([]byte("["+string(b)+"]"), blockKinds|samplingKinds)
		if err != nil || len(got) != 1 || reflect.TypeOf(got[0]) != reflect.TypeOf(tt.c) {
			t.Errorf("decoding %s: %v, %#v", b, err, got)
		}
	}
}

func TestContentDecodeErrors(t *testing.T) {
	tests := []struct {
		name    string
		json    string
		into    func() any
		wantErr string
	}{
		{"unknown type", `{"content":[{"type":"video","data":"x"}]}`, func() any { return new(CallToolResult) }, `unknown content type "video"`},
		{"missing type", `{"content":[{"text":"x"}]}`, func() any { return new(CallToolResult) }, `no "type"`},
		{"type not a string", `{"content":[{"type":5}]}`, func() any { return new(CallToolResult) }, "content block"},
		{"type null", `{"content":[{"type":null,"text":"x"}]}`, func() any { return new(CallToolResult) }, `no "type"`},
		{"block not an object", `{"content":[1]}`, func() any { return new(CallToolResult) }, "content block"},
		{"content not an array", `{"content":{"type":"text","text":"x"}}`, func() any { return new(CallToolResult) }, "must be an array"},
		{"tool_use in a tool result", `{"content":[{"type":"tool_use","id":"1","name":"n","input":{}}]}`, func() any { return new(CallToolResult) }, "not allowed here"},
		{"resource_link in sampling", `{"role":"user","content":{"type":"resource_link","uri":"x","name":"n"}}`, func() any { return new(SamplingMessage) }, "not allowed here"},
		{"resource in sampling array", `{"role":"user","content":[{"type":"text","text":"a"},{"type":"resource","resource":{"uri":"x","text":""}}]}`, func() any { return new(SamplingMessage) }, "not allowed here"},
		{"tool_use in tool_result content", `{"role":"user","content":{"type":"tool_result","toolUseId":"1","content":[{"type":"tool_use","id":"1","name":"n","input":{}}]}}`, func() any { return new(SamplingMessage) }, "not allowed here"},
		{"unknown type in prompt", `{"role":"user","content":{"type":"nope"}}`, func() any { return new(PromptMessage) }, "unknown content type"},
		{"prompt without content", `{"role":"user"}`, func() any { return new(PromptMessage) }, "no content"},
		{"prompt content null", `{"role":"user","content":null}`, func() any { return new(PromptMessage) }, "no content"},
		{"text with wrong field type", `{"content":[{"type":"text","text":7}]}`, func() any { return new(CallToolResult) }, "text content"},
		{"embedded resource without contents", `{"content":[{"type":"resource"}]}`, func() any { return new(CallToolResult) }, "no contents"},
		{"embedded resource with both", `{"content":[{"type":"resource","resource":{"uri":"x","text":"a","blob":"AA=="}}]}`, func() any { return new(CallToolResult) }, "both"},
		{"embedded resource with neither", `{"content":[{"type":"resource","resource":{"uri":"x"}}]}`, func() any { return new(CallToolResult) }, "neither"},
		{"embedded resource not an object", `{"content":[{"type":"resource","resource":[]}]}`, func() any { return new(CallToolResult) }, "must be an object"},
		{"read result contents not an array", `{"contents":{"uri":"x","text":""}}`, func() any { return new(ReadResourceResult) }, "must be an array"},
		{"read result bad contents", `{"contents":[{"uri":"x"}]}`, func() any { return new(ReadResourceResult) }, "neither"},
		{"sampling result unknown", `{"role":"assistant","model":"m","content":{"type":"x"}}`, func() any { return new(CreateMessageResult) }, "unknown content type"},
		{"not an object", `[]`, func() any { return new(CallToolResult) }, "cannot unmarshal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := json.Unmarshal([]byte(tt.json), tt.into())
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestSamplingContentOneOrMany(t *testing.T) {
	tests := []struct {
		name    string
		content []Content
		want    string
	}{
		{"one block is bare", []Content{&TextContent{Text: "a"}}, `"content":{"type":"text","text":"a"}`},
		{"two blocks are an array", []Content{&TextContent{Text: "a"}, &TextContent{Text: "b"}}, `"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]`},
		{"none is an empty array", nil, `"content":[]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, v := range []any{
				&SamplingMessage{Role: RoleUser, Content: tt.content},
				&CreateMessageResult{Role: RoleAssistant, Model: "m", Content: tt.content},
			} {
				b, err := marshalJSONNoEscape(v)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Contains(b, []byte(tt.want)) {
					t.Errorf("%T = %s, want it to contain %s", v, b, tt.want)
				}
			}
		})
	}
	// Both forms decode.
	for _, in := range []string{
		`{"role":"user","content":{"type":"text","text":"a"}}`,
		`{"role":"user","content":[{"type":"text","text":"a"}]}`,
	} {
		var m SamplingMessage
		if err := json.Unmarshal([]byte(in), &m); err != nil {
			t.Fatal(err)
		}
		if len(m.Content) != 1 || m.Content[0].(*TextContent).Text != "a" {
			t.Errorf("%s decoded to %#v", in, m.Content)
		}
	}
}

// TestRequiredArraysAreNeverNull checks that values left nil encode as the
// empty arrays and objects the schemas require.
func TestRequiredArraysAreNeverNull(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{CallToolResult{}, `{"content":[]}`},
		{&CallToolResult{IsError: true}, `{"content":[],"isError":true}`},
		{ToolResultContent{ToolUseID: "x"}, `{"type":"tool_result","toolUseId":"x","content":[]}`},
		{ToolUseContent{ID: "1", Name: "n"}, `{"type":"tool_use","id":"1","name":"n","input":{}}`},
		{ListToolsResult{}, `{"tools":[]}`},
		{ListResourcesResult{}, `{"resources":[]}`},
		{ListResourceTemplatesResult{}, `{"resourceTemplates":[]}`},
		{ReadResourceResult{}, `{"contents":[]}`},
		{ListPromptsResult{}, `{"prompts":[]}`},
		{GetPromptResult{}, `{"messages":[]}`},
		{CompleteResult{}, `{"completion":{"values":[]}}`},
		{ListRootsResult{}, `{"roots":[]}`},
		{CreateMessageParams{MaxTokens: 1}, `{"messages":[],"maxTokens":1}`},
		{DiscoverResult{}, `{"supportedVersions":[],"capabilities":{}}`},
		{InitializeResult{ProtocolVersion: "v", ServerInfo: &Implementation{Name: "n", Version: "1"}}, `{"protocolVersion":"v","capabilities":{},"serverInfo":{"name":"n","version":"1"}}`},
		{InitializeParams{ProtocolVersion: "v", ClientInfo: &Implementation{Name: "n", Version: "1"}}, `{"protocolVersion":"v","capabilities":{},"clientInfo":{"name":"n","version":"1"}}`},
		{UnsupportedProtocolVersionData{Requested: "x"}, `{"supported":[],"requested":"x"}`},
		{MissingRequiredClientCapabilityData{}, `{"requiredCapabilities":{}}`},
		{URLElicitationRequiredData{}, `{"elicitations":[]}`},
		{ElicitSchema{}, `{"type":"object","properties":{}}`},
		{EmptyResult{}, `{}`},
		{Tool{Name: "t"}, `{"name":"t","inputSchema":{"type":"object"}}`},
		{LoggingMessageNotificationParams{Level: LevelInfo}, `{"level":"info","data":null}`},
		{CancelledNotificationParams{}, `{}`},
		{ListenResult{ResultType: ResultTypeComplete}, `{"resultType":"complete"}`},
	}
	for _, tt := range tests {
		b, err := marshalJSONNoEscape(tt.v)
		if err != nil {
			t.Errorf("%T: %v", tt.v, err)
			continue
		}
		if string(b) != tt.want {
			t.Errorf("%T = %s, want %s", tt.v, b, tt.want)
		}
	}
}

func TestMarshalRefusesMissingRequiredValues(t *testing.T) {
	tests := []any{
		&EmbeddedResource{},
		&PromptMessage{Role: RoleUser},
		&InputRequest{},
		&InputRequest{Elicit: &ElicitParams{}, ListRoots: &ListRootsParams{}},
		&InputResponse{},
		&InputResponse{Elicit: &ElicitResult{}, ListRoots: &ListRootsResult{}},
		&SetLevelParams{},
		&ElicitSchema{Properties: []ElicitProperty{{Name: "x"}}},
		&CallToolResult{Content: []Content{&EmbeddedResource{}}},
	}
	for _, v := range tests {
		if b, err := json.Marshal(v); err == nil {
			t.Errorf("%T encoded as %s, want an error", v, b)
		}
	}
}

func TestBase64Helpers(t *testing.T) {
	data := []byte{0, 1, 2, 0xfe, 0xff}
	img := NewImageContent(data, "image/png")
	if got, err := img.DecodeData(); err != nil || !bytes.Equal(got, data) {
		t.Errorf("image: %v, %v", got, err)
	}
	audio := NewAudioContent(data, "audio/wav")
	if got, err := audio.DecodeData(); err != nil || !bytes.Equal(got, data) {
		t.Errorf("audio: %v, %v", got, err)
	}
	blob := NewBlobResourceContents("file:///b", "application/octet-stream", data)
	if blob.Blob != "AAEC/v8=" {
		t.Errorf("blob = %q", blob.Blob)
	}
	if got, err := blob.DecodeData(); err != nil || !bytes.Equal(got, data) {
		t.Errorf("blob: %v, %v", got, err)
	}
	if _, err := (&BlobResourceContents{Blob: "not base64!"}).DecodeData(); err == nil {
		t.Error("want an error for invalid base64")
	}
}

func TestConstructors(t *testing.T) {
	if c := NewTextContent("hi"); c.Text != "hi" {
		t.Errorf("NewTextContent = %#v", c)
	}
	rc := &TextResourceContents{URI: "file:///x", Text: "t"}
	if c := NewEmbeddedResource(rc); c.Resource != rc {
		t.Errorf("NewEmbeddedResource = %#v", c)
	}
}

// FuzzDecode feeds arbitrary JSON to every polymorphic decoder: they may
// fail, but must not panic, and what they accept must encode again.
func FuzzDecode(f *testing.F) {
	seeds := []string{
		`{"content":[{"type":"text","text":"x"},{"type":"resource","resource":{"uri":"u","blob":"AA=="}}]}`,
		`{"role":"user","content":[{"type":"tool_result","toolUseId":"1","content":[{"type":"image","data":"","mimeType":""}]}]}`,
		`{"role":"user","content":{"type":"audio","data":"","mimeType":""}}`,
		`{"contents":[{"uri":"u","text":""}]}`,
		`{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list"},"b":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"x":{"type":"string"}}}}}}}`,
		`{"inputResponses":{"a":{"action":"accept"},"b":{"roots":[]},"c":{"model":"m","role":"assistant","content":[]}},"name":"n"}`,
		`{"_meta":{"progressToken":1,"io.modelcontextprotocol/logLevel":"info","x":null}}`,
		`{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"b"}}`,
		`{"content":[{"type":"resource","resource":null}]}`,
		`{"content":null}`, `null`, `[]`, `1`, `"s"`, `{}`, `{"content":[null]}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		decoders := []func() any{
			func() any { return new(CallToolResult) },
			func() any { return new(SamplingMessage) },
			func() any { return new(CreateMessageResult) },
			func() any { return new(PromptMessage) },
			func() any { return new(GetPromptResult) },
			func() any { return new(ReadResourceResult) },
			func() any { return new(InputRequiredResult) },
			func() any { return new(CallToolParams) },
			func() any { return new(ElicitParams) },
			func() any { return new(CompleteParams) },
			func() any { return new(ListToolsParams) },
			func() any { return new(ToolResultContent) },
			func() any { return new(EmbeddedResource) },
		}
		for _, mk := range decoders {
			v := mk()
			if json.Unmarshal(data, v) != nil {
				continue
			}
			if _, err := json.Marshal(v); err != nil {
				t.Errorf("%T decoded %s but does not encode: %v", v, data, err)
			}
		}
	})
}
