package mcp

import (
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/gomcp/sdk/internal/specschema"
	"github.com/gomcp/sdk/jsonrpc"
)

// The values below have every field of the newest revisions set, as a
// server builds them once and shares them with every session.

func dgIcons() []Icon { return []Icon{{Src: "https://example.com/i.png", Sizes: []string{"48x48"}}} }

func dgImpl() *Implementation {
	return &Implementation{Name: "srv", Version: "1", Title: "Server", Description: "d", WebsiteURL: "https://example.com", Icons: dgIcons()}
}

func dgMeta() *Meta { return &Meta{Extra: map[string]json.RawMessage{"k": json.RawMessage(`1`)}} }

func dgAnnotations() *Annotations {
	return &Annotations{Audience: []Role{RoleUser}, Priority: new(0.5), LastModified: "2025-01-12T15:00:58Z"}
}

func dgTool() *Tool {
	return &Tool{
		Meta:         dgMeta(),
		Name:         "t",
		Title:        "T",
		InputSchema:  json.RawMessage(`{"type":"object"}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"number"}}}`),
		Annotations:  &ToolAnnotations{ReadOnlyHint: new(true)},
		Icons:        dgIcons(),
		Execution:    &ToolExecution{TaskSupport: TaskSupportOptional},
	}
}

func dgServerCaps() *ServerCapabilities {
	return &ServerCapabilities{
		Extensions:  map[string]json.RawMessage{"x/y": json.RawMessage(`{}`)},
		Logging:     &LoggingCapabilities{},
		Completions: &CompletionCapabilities{},
		Tools:       &ToolCapabilities{ListChanged: true},
		Tasks:       json.RawMessage(`{"list":{}}`),
	}
}

func dgClientCaps() *ClientCapabilities {
	return &ClientCapabilities{
		Extensions:  map[string]json.RawMessage{"x/y": json.RawMessage(`{}`)},
		Roots:       &RootCapabilities{ListChanged: true},
		Sampling:    &SamplingCapabilities{Context: &struct{}{}, Tools: &struct{}{}},
		Elicitation: &ElicitationCapabilities{Form: &struct{}{}, URL: &struct{}{}},
		Tasks:       json.RawMessage(`{"list":{}}`),
	}
}

// dgBlocks is one block of every ContentBlock kind, with every field set.
func dgBlocks() []Content {
	return []Content{
		&TextContent{Meta: dgMeta(), Text: "hi", Annotations: dgAnnotations()},
		&ImageContent{Data: "AA==", MIMEType: "image/png"},
		&AudioContent{Data: "AA==", MIMEType: "audio/wav", Annotations: &Annotations{Priority: new(1.0)}},
		&ResourceLink{Meta: dgMeta(), URI: "file:///r", Name: "r", Title: "R", Description: "about r", MIMEType: "text/plain", Icons: dgIcons()},
		&EmbeddedResource{Meta: dgMeta(), Resource: &TextResourceContents{Meta: dgMeta(), URI: "file:///e", Text: "e"}},
	}
}

func dgElicitSchema() *ElicitSchema {
	return &ElicitSchema{
		Schema: "https://json-schema.org/draft/2020-12/schema",
		Properties: []ElicitProperty{
			{Name: "name", Schema: &PrimitiveSchema{Type: "string", Default: "anon"}},
			{Name: "ok", Schema: &PrimitiveSchema{Type: "boolean", Default: true}},
			{Name: "size", Schema: &PrimitiveSchema{Type: "string", OneOf: []EnumOption{{Const: "s", Title: "Small"}, {Const: "l", Title: "Large"}}}},
			{Name: "tags", Schema: &PrimitiveSchema{Type: "array", Items: &EnumItems{Type: "string", Enum: []string{"x", "y"}}}},
		},
		Required: []string{"name", "tags"},
	}
}

// dgCase is one value downgraded to every revision: want maps each
// revision to the JSON that must be sent to it.
type dgCase struct {
	name   string
	method string
	params bool // downgradeParams, else downgradeResult
	in     func() any
	want   map[string]string
}

// dgAll is the same JSON for every revision.
func dgAll(s string) map[string]string {
	m := make(map[string]string, len(supportedVersions))
	for _, v := range supportedVersions {
		m[v] = s
	}
	return m
}

func dgCases() []dgCase {
	const (
		v24 = Version20241105
		v25 = Version20250326
		v26 = Version20250618
		v27 = Version20251125
		v28 = Version20260728
	)
	implOld := `{"name":"srv","version":"1"}`
	implTitle := `{"name":"srv","version":"1","title":"Server"}`
	implFull := `{"name":"srv","version":"1","title":"Server","description":"d","websiteUrl":"https://example.com","icons":[{"src":"https://example.com/i.png","sizes":["48x48"]}]}`
	icons := `"icons":[{"src":"https://example.com/i.png","sizes":["48x48"]}]`
	return []dgCase{
		{
			name: "initialize result", method: MethodInitialize,
			in: func() any {
				return &InitializeResult{ProtocolVersion: v27, Capabilities: dgServerCaps(), ServerInfo: dgImpl(), Instructions: "i"}
			},
			want: map[string]string{
				v24: `{"protocolVersion":"2025-11-25","capabilities":{"extensions":{"x/y":{}},"logging":{},"tools":{"listChanged":true}},"serverInfo":` + implOld + `,"instructions":"i"}`,
				v25: `{"protocolVersion":"2025-11-25","capabilities":{"extensions":{"x/y":{}},"logging":{},"completions":{},"tools":{"listChanged":true}},"serverInfo":` + implOld + `,"instructions":"i"}`,
				v26: `{"protocolVersion":"2025-11-25","capabilities":{"extensions":{"x/y":{}},"logging":{},"completions":{},"tools":{"listChanged":true}},"serverInfo":` + implTitle + `,"instructions":"i"}`,
				v27: `{"protocolVersion":"2025-11-25","capabilities":{"extensions":{"x/y":{}},"logging":{},"completions":{},"tools":{"listChanged":true},"tasks":{"list":{}}},"serverInfo":` + implFull + `,"instructions":"i"}`,
				v28: `{"protocolVersion":"2025-11-25","capabilities":{"extensions":{"x/y":{}},"logging":{},"completions":{},"tools":{"listChanged":true}},"serverInfo":` + implFull + `,"instructions":"i"}`,
			},
		},
		{
			name: "initialize params", method: MethodInitialize, params: true,
			in: func() any {
				return &InitializeParams{ProtocolVersion: v27, Capabilities: dgClientCaps(), ClientInfo: dgImpl()}
			},
			want: map[string]string{
				v24: `{"protocolVersion":"2025-11-25","capabilities":{"extensions":{"x/y":{}},"roots":{"listChanged":true},"sampling":{}},"clientInfo":` + implOld + `}`,
				v25: `{"protocolVersion":"2025-11-25","capabilities":{"extensions":{"x/y":{}},"roots":{"listChanged":true},"sampling":{}},"clientInfo":` + implOld + `}`,
				v26: `{"protocolVersion":"2025-11-25","capabilities":{"extensions":{"x/y":{}},"roots":{"listChanged":true},"sampling":{},"elicitation":{}},"clientInfo":` + implTitle + `}`,
				v27: `{"protocolVersion":"2025-11-25","capabilities":{"extensions":{"x/y":{}},"roots":{"listChanged":true},"sampling":{"context":{},"tools":{}},"elicitation":{"form":{},"url":{}},"tasks":{"list":{}}},"clientInfo":` + implFull + `}`,
				v28: `{"protocolVersion":"2025-11-25","capabilities":{"extensions":{"x/y":{}},"roots":{},"sampling":{"context":{},"tools":{}},"elicitation":{"form":{},"url":{}}},"clientInfo":` + implFull + `}`,
			},
		},
		{
			// A client that can only do URL mode cannot elicit at all
			// before URL mode existed.
			name: "initialize params, URL-only elicitation", method: MethodInitialize, params: true,
			in: func() any {
				return &InitializeParams{ProtocolVersion: v26, Capabilities: &ClientCapabilities{Elicitation: &ElicitationCapabilities{URL: &struct{}{}}}, ClientInfo: &Implementation{Name: "c", Version: "1"}}
			},
			want: map[string]string{
				v24: `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`,
				v25: `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`,
				v26: `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`,
				v27: `{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{"url":{}}},"clientInfo":{"name":"c","version":"1"}}`,
				v28: `{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{"url":{}}},"clientInfo":{"name":"c","version":"1"}}`,
			},
		},
		{
			name: "discover result", method: MethodServerDiscover,
			in: func() any {
				return &DiscoverResult{ResultType: ResultTypeComplete, CacheHints: CacheHints{TTLMs: new(int64(0)), CacheScope: CacheScopePublic}, SupportedVersions: []string{v28}, Capabilities: dgServerCaps()}
			},
			want: map[string]string{
				v24: `{"supportedVersions":["2026-07-28"],"capabilities":{"extensions":{"x/y":{}},"logging":{},"tools":{"listChanged":true}}}`,
				v25: `{"supportedVersions":["2026-07-28"],"capabilities":{"extensions":{"x/y":{}},"logging":{},"completions":{},"tools":{"listChanged":true}}}`,
				v26: `{"supportedVersions":["2026-07-28"],"capabilities":{"extensions":{"x/y":{}},"logging":{},"completions":{},"tools":{"listChanged":true}}}`,
				v27: `{"supportedVersions":["2026-07-28"],"capabilities":{"extensions":{"x/y":{}},"logging":{},"completions":{},"tools":{"listChanged":true},"tasks":{"list":{}}}}`,
				v28: `{"resultType":"complete","ttlMs":0,"cacheScope":"public","supportedVersions":["2026-07-28"],"capabilities":{"extensions":{"x/y":{}},"logging":{},"completions":{},"tools":{"listChanged":true}}}`,
			},
		},
		{
			name: "empty result", method: MethodPing,
			in: func() any { return &EmptyResult{Meta: dgMeta(), ResultType: ResultTypeComplete} },
			want: map[string]string{
				v24: `{"_meta":{"k":1}}`, v25: `{"_meta":{"k":1}}`, v26: `{"_meta":{"k":1}}`, v27: `{"_meta":{"k":1}}`,
				v28: `{"_meta":{"k":1},"resultType":"complete"}`,
			},
		},
		{
			name: "tools/list", method: MethodToolsList,
			in: func() any {
				array := &Tool{Name: "a", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{"type":"array"}`)}
				plain := &Tool{Name: "p", InputSchema: json.RawMessage(`{"type":"object"}`)}
				return &ListToolsResult{Meta: dgMeta(), ResultType: ResultTypeComplete, CacheHints: CacheHints{TTLMs: new(int64(5))}, Tools: []*Tool{dgTool(), array, plain}, NextCursor: "c"}
			},
			want: map[string]string{
				v24: `{"_meta":{"k":1},"tools":[{"name":"t","inputSchema":{"type":"object"}},{"name":"a","inputSchema":{"type":"object"}},{"name":"p","inputSchema":{"type":"object"}}],"nextCursor":"c"}`,
				v25: `{"_meta":{"k":1},"tools":[{"name":"t","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}},{"name":"a","inputSchema":{"type":"object"}},{"name":"p","inputSchema":{"type":"object"}}],"nextCursor":"c"}`,
				v26: `{"_meta":{"k":1},"tools":[{"_meta":{"k":1},"name":"t","title":"T","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"type":"number"}}},"annotations":{"readOnlyHint":true}},{"name":"a","inputSchema":{"type":"object"}},{"name":"p","inputSchema":{"type":"object"}}],"nextCursor":"c"}`,
				v27: `{"_meta":{"k":1},"tools":[{"_meta":{"k":1},"name":"t","title":"T","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"type":"number"}}},"annotations":{"readOnlyHint":true},` + icons + `,"execution":{"taskSupport":"optional"}},{"name":"a","inputSchema":{"type":"object"}},{"name":"p","inputSchema":{"type":"object"}}],"nextCursor":"c"}`,
				v28: `{"_meta":{"k":1},"resultType":"complete","ttlMs":5,"tools":[{"_meta":{"k":1},"name":"t","title":"T","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"type":"number"}}},"annotations":{"readOnlyHint":true},` + icons + `},{"name":"a","inputSchema":{"type":"object"},"outputSchema":{"type":"array"}},{"name":"p","inputSchema":{"type":"object"}}],"nextCursor":"c"}`,
			},
		},
		{
			name: "tools/call, every block kind", method: MethodToolsCall,
			in: func() any {
				return &CallToolResult{ResultType: ResultTypeComplete, Content: dgBlocks(), StructuredContent: json.RawMessage(`{"n":1}`), IsError: true}
			},
			want: map[string]string{
				v24: `{"content":[{"type":"text","text":"hi","annotations":{"audience":["user"],"priority":0.5}},{"type":"image","data":"AA==","mimeType":"image/png"},` +
					`{"type":"text","text":"[audio omitted (audio/wav): protocol revision 2024-11-05 has no audio content]","annotations":{"priority":1}},` +
					`{"type":"text","text":"[resource link: R <file:///r> (text/plain): about r]"},{"type":"resource","resource":{"uri":"file:///e","text":"e"}}],"isError":true}`,
				v25: `{"content":[{"type":"text","text":"hi","annotations":{"audience":["user"],"priority":0.5}},{"type":"image","data":"AA==","mimeType":"image/png"},` +
					`{"type":"audio","data":"AA==","mimeType":"audio/wav","annotations":{"priority":1}},` +
					`{"type":"text","text":"[resource link: R <file:///r> (text/plain): about r]"},{"type":"resource","resource":{"uri":"file:///e","text":"e"}}],"isError":true}`,
				v26: `{"content":[{"type":"text","_meta":{"k":1},"text":"hi","annotations":{"audience":["user"],"priority":0.5,"lastModified":"2025-01-12T15:00:58Z"}},{"type":"image","data":"AA==","mimeType":"image/png"},` +
					`{"type":"audio","data":"AA==","mimeType":"audio/wav","annotations":{"priority":1}},` +
					`{"type":"resource_link","_meta":{"k":1},"uri":"file:///r","name":"r","title":"R","description":"about r","mimeType":"text/plain"},{"type":"resource","_meta":{"k":1},"resource":{"_meta":{"k":1},"uri":"file:///e","text":"e"}}],"structuredContent":{"n":1},"isError":true}`,
				v27: `{"content":[{"type":"text","_meta":{"k":1},"text":"hi","annotations":{"audience":["user"],"priority":0.5,"lastModified":"2025-01-12T15:00:58Z"}},{"type":"image","data":"AA==","mimeType":"image/png"},` +
					`{"type":"audio","data":"AA==","mimeType":"audio/wav","annotations":{"priority":1}},` +
					`{"type":"resource_link","_meta":{"k":1},"uri":"file:///r","name":"r","title":"R","description":"about r","mimeType":"text/plain",` + icons + `},{"type":"resource","_meta":{"k":1},"resource":{"_meta":{"k":1},"uri":"file:///e","text":"e"}}],"structuredContent":{"n":1},"isError":true}`,
				v28: `{"resultType":"complete","content":[{"type":"text","_meta":{"k":1},"text":"hi","annotations":{"audience":["user"],"priority":0.5,"lastModified":"2025-01-12T15:00:58Z"}},{"type":"image","data":"AA==","mimeType":"image/png"},` +
					`{"type":"audio","data":"AA==","mimeType":"audio/wav","annotations":{"priority":1}},` +
					`{"type":"resource_link","_meta":{"k":1},"uri":"file:///r","name":"r","title":"R","description":"about r","mimeType":"text/plain",` + icons + `},{"type":"resource","_meta":{"k":1},"resource":{"_meta":{"k":1},"uri":"file:///e","text":"e"}}],"structuredContent":{"n":1},"isError":true}`,
			},
		},
		{
			// Structured content other than an object exists from
			// 2026-07-28 only.
			name: "tools/call, array structured content", method: MethodToolsCall,
			in: func() any {
				return &CallToolResult{Content: []Content{&TextContent{Text: "[1]"}}, StructuredContent: json.RawMessage(` [1]`)}
			},
			want: map[string]string{
				v24: `{"content":[{"type":"text","text":"[1]"}]}`, v25: `{"content":[{"type":"text","text":"[1]"}]}`,
				v26: `{"content":[{"type":"text","text":"[1]"}]}`, v27: `{"content":[{"type":"text","text":"[1]"}]}`,
				v28: `{"content":[{"type":"text","text":"[1]"}],"structuredContent":[1]}`,
			},
		},
		{
			name: "tools/call params", method: MethodToolsCall, params: true,
			in: func() any {
				return &CallToolParams{Name: "t", Arguments: json.RawMessage(`{}`), Task: &TaskMetadata{TTL: 5}, RequestState: "s",
					InputResponses: map[string]*InputResponse{
						"e": {Elicit: &ElicitResult{Meta: dgMeta(), Action: ElicitActionAccept, Content: map[string]any{"tags": []any{"x"}}}},
						"r": {ListRoots: &ListRootsResult{Meta: dgMeta(), Roots: []*Root{{Meta: dgMeta(), URI: "file:///"}}}},
					}}
			},
			want: map[string]string{
				v24: `{"name":"t","arguments":{}}`, v25: `{"name":"t","arguments":{}}`, v26: `{"name":"t","arguments":{}}`,
				v27: `{"name":"t","arguments":{},"task":{"ttl":5}}`,
				v28: `{"name":"t","arguments":{},"inputResponses":{"e":{"action":"accept","content":{"tags":["x"]}},"r":{"roots":[{"_meta":{"k":1},"uri":"file:///"}]}},"requestState":"s"}`,
			},
		},
		{
			name: "resources/list", method: MethodResourcesList,
			in: func() any {
				return &ListResourcesResult{ResultType: ResultTypeComplete, CacheHints: CacheHints{CacheScope: CacheScopePrivate}, Resources: []*Resource{
					{Meta: dgMeta(), URI: "file:///a", Name: "a", Title: "A", Size: new(int64(0)), Annotations: dgAnnotations(), Icons: dgIcons()},
				}}
			},
			want: map[string]string{
				v24: `{"resources":[{"uri":"file:///a","name":"a","size":0,"annotations":{"audience":["user"],"priority":0.5}}]}`,
				v25: `{"resources":[{"uri":"file:///a","name":"a","size":0,"annotations":{"audience":["user"],"priority":0.5}}]}`,
				v26: `{"resources":[{"_meta":{"k":1},"uri":"file:///a","name":"a","title":"A","size":0,"annotations":{"audience":["user"],"priority":0.5,"lastModified":"2025-01-12T15:00:58Z"}}]}`,
				v27: `{"resources":[{"_meta":{"k":1},"uri":"file:///a","name":"a","title":"A","size":0,"annotations":{"audience":["user"],"priority":0.5,"lastModified":"2025-01-12T15:00:58Z"},` + icons + `}]}`,
				v28: `{"resultType":"complete","cacheScope":"private","resources":[{"_meta":{"k":1},"uri":"file:///a","name":"a","title":"A","size":0,"annotations":{"audience":["user"],"priority":0.5,"lastModified":"2025-01-12T15:00:58Z"},` + icons + `}]}`,
			},
		},
		{
			name: "resources/templates/list", method: MethodResourcesTemplatesList,
			in: func() any {
				return &ListResourceTemplatesResult{ResourceTemplates: []*ResourceTemplate{
					{Meta: dgMeta(), URITemplate: "file:///{p}", Name: "f", Title: "F", Annotations: &Annotations{LastModified: "2025-01-12T15:00:58Z"}, Icons: dgIcons()},
				}}
			},
			want: map[string]string{
				v24: `{"resourceTemplates":[{"uriTemplate":"file:///{p}","name":"f","annotations":{}}]}`,
				v25: `{"resourceTemplates":[{"uriTemplate":"file:///{p}","name":"f","annotations":{}}]}`,
				v26: `{"resourceTemplates":[{"_meta":{"k":1},"uriTemplate":"file:///{p}","name":"f","title":"F","annotations":{"lastModified":"2025-01-12T15:00:58Z"}}]}`,
				v27: `{"resourceTemplates":[{"_meta":{"k":1},"uriTemplate":"file:///{p}","name":"f","title":"F","annotations":{"lastModified":"2025-01-12T15:00:58Z"},` + icons + `}]}`,
				v28: `{"resourceTemplates":[{"_meta":{"k":1},"uriTemplate":"file:///{p}","name":"f","title":"F","annotations":{"lastModified":"2025-01-12T15:00:58Z"},` + icons + `}]}`,
			},
		},
		{
			name: "resources/read", method: MethodResourcesRead,
			in: func() any {
				return &ReadResourceResult{ResultType: ResultTypeComplete, CacheHints: CacheHints{TTLMs: new(int64(1))}, Contents: []ResourceContents{
					&TextResourceContents{Meta: dgMeta(), URI: "file:///a", Text: "a"},
					&BlobResourceContents{Meta: dgMeta(), URI: "file:///b", Blob: "AA=="},
					&TextResourceContents{URI: "file:///c", Text: "c"},
				}}
			},
			want: map[string]string{
				v24: `{"contents":[{"uri":"file:///a","text":"a"},{"uri":"file:///b","blob":"AA=="},{"uri":"file:///c","text":"c"}]}`,
				v25: `{"contents":[{"uri":"file:///a","text":"a"},{"uri":"file:///b","blob":"AA=="},{"uri":"file:///c","text":"c"}]}`,
				v26: `{"contents":[{"_meta":{"k":1},"uri":"file:///a","text":"a"},{"_meta":{"k":1},"uri":"file:///b","blob":"AA=="},{"uri":"file:///c","text":"c"}]}`,
				v27: `{"contents":[{"_meta":{"k":1},"uri":"file:///a","text":"a"},{"_meta":{"k":1},"uri":"file:///b","blob":"AA=="},{"uri":"file:///c","text":"c"}]}`,
				v28: `{"resultType":"complete","ttlMs":1,"contents":[{"_meta":{"k":1},"uri":"file:///a","text":"a"},{"_meta":{"k":1},"uri":"file:///b","blob":"AA=="},{"uri":"file:///c","text":"c"}]}`,
			},
		},
		{
			name: "prompts/list", method: MethodPromptsList,
			in: func() any {
				return &ListPromptsResult{Prompts: []*Prompt{
					{Meta: dgMeta(), Name: "p", Title: "P", Arguments: []*PromptArgument{{Name: "a", Title: "A", Required: true}, {Name: "b"}}, Icons: dgIcons()},
				}}
			},
			want: map[string]string{
				v24: `{"prompts":[{"name":"p","arguments":[{"name":"a","required":true},{"name":"b"}]}]}`,
				v25: `{"prompts":[{"name":"p","arguments":[{"name":"a","required":true},{"name":"b"}]}]}`,
				v26: `{"prompts":[{"_meta":{"k":1},"name":"p","title":"P","arguments":[{"name":"a","title":"A","required":true},{"name":"b"}]}]}`,
				v27: `{"prompts":[{"_meta":{"k":1},"name":"p","title":"P","arguments":[{"name":"a","title":"A","required":true},{"name":"b"}],` + icons + `}]}`,
				v28: `{"prompts":[{"_meta":{"k":1},"name":"p","title":"P","arguments":[{"name":"a","title":"A","required":true},{"name":"b"}],` + icons + `}]}`,
			},
		},
		{
			name: "prompts/get", method: MethodPromptsGet,
			in: func() any {
				return &GetPromptResult{ResultType: ResultTypeComplete, Messages: []*PromptMessage{
					{Role: RoleUser, Content: &TextContent{Text: "a"}},
					{Role: RoleAssistant, Content: &AudioContent{Data: "AA==", MIMEType: "audio/mpeg"}},
					{Role: RoleUser, Content: &ResourceLink{URI: "https://example.com/x", Name: "x"}},
				}}
			},
			want: map[string]string{
				v24: `{"messages":[{"role":"user","content":{"type":"text","text":"a"}},{"role":"assistant","content":{"type":"text","text":"[audio omitted (audio/mpeg): protocol revision 2024-11-05 has no audio content]"}},{"role":"user","content":{"type":"text","text":"[resource link: x <https://example.com/x>]"}}]}`,
				v25: `{"messages":[{"role":"user","content":{"type":"text","text":"a"}},{"role":"assistant","content":{"type":"audio","data":"AA==","mimeType":"audio/mpeg"}},{"role":"user","content":{"type":"text","text":"[resource link: x <https://example.com/x>]"}}]}`,
				v26: `{"messages":[{"role":"user","content":{"type":"text","text":"a"}},{"role":"assistant","content":{"type":"audio","data":"AA==","mimeType":"audio/mpeg"}},{"role":"user","content":{"type":"resource_link","uri":"https://example.com/x","name":"x"}}]}`,
				v27: `{"messages":[{"role":"user","content":{"type":"text","text":"a"}},{"role":"assistant","content":{"type":"audio","data":"AA==","mimeType":"audio/mpeg"}},{"role":"user","content":{"type":"resource_link","uri":"https://example.com/x","name":"x"}}]}`,
				v28: `{"resultType":"complete","messages":[{"role":"user","content":{"type":"text","text":"a"}},{"role":"assistant","content":{"type":"audio","data":"AA==","mimeType":"audio/mpeg"}},{"role":"user","content":{"type":"resource_link","uri":"https://example.com/x","name":"x"}}]}`,
			},
		},
		{
			name: "completion/complete params", method: MethodCompletionComplete, params: true,
			in: func() any {
				return &CompleteParams{Ref: CompleteReference{Type: RefTypePrompt, Name: "p", Title: "P"}, Argument: CompleteArgument{Name: "a", Value: "x"}, Context: &CompleteContext{Arguments: map[string]string{"b": "y"}}}
			},
			want: map[string]string{
				v24: `{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"x"}}`,
				v25: `{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"x"}}`,
				v26: `{"ref":{"type":"ref/prompt","name":"p","title":"P"},"argument":{"name":"a","value":"x"},"context":{"arguments":{"b":"y"}}}`,
				v27: `{"ref":{"type":"ref/prompt","name":"p","title":"P"},"argument":{"name":"a","value":"x"},"context":{"arguments":{"b":"y"}}}`,
				v28: `{"ref":{"type":"ref/prompt","name":"p","title":"P"},"argument":{"name":"a","value":"x"},"context":{"arguments":{"b":"y"}}}`,
			},
		},
		{
			name: "completion/complete result", method: MethodCompletionComplete,
			in: func() any {
				return &CompleteResult{ResultType: ResultTypeComplete, Completion: Completion{Values: []string{"a"}}}
			},
			want: map[string]string{
				v24: `{"completion":{"values":["a"]}}`, v25: `{"completion":{"values":["a"]}}`, v26: `{"completion":{"values":["a"]}}`, v27: `{"completion":{"values":["a"]}}`,
				v28: `{"resultType":"complete","completion":{"values":["a"]}}`,
			},
		},
		{
			name: "progress", method: NotificationProgress, params: true,
			in: func() any {
				return &ProgressNotificationParams{ProgressToken: jsonrpc.Int64ID(1), Progress: 1, Total: 2, Message: "half"}
			},
			want: map[string]string{
				v24: `{"progressToken":1,"progress":1,"total":2}`,
				v25: `{"progressToken":1,"progress":1,"total":2,"message":"half"}`,
				v26: `{"progressToken":1,"progress":1,"total":2,"message":"half"}`,
				v27: `{"progressToken":1,"progress":1,"total":2,"message":"half"}`,
				v28: `{"progressToken":1,"progress":1,"total":2,"message":"half"}`,
			},
		},
		{
			name: "logging message", method: NotificationMessage, params: true,
			in: func() any {
				return &LoggingMessageNotificationParams{Meta: dgMeta(), Level: LevelInfo, Logger: "l", Data: json.RawMessage(`"x"`)}
			},
			want: dgAll(`{"_meta":{"k":1},"level":"info","logger":"l","data":"x"}`),
		},
		{
			name: "tools/list_changed", method: NotificationToolListChanged, params: true,
			in:   func() any { return &toolListChangedNotificationParams{Meta: dgMeta()} },
			want: dgAll(`{"_meta":{"k":1}}`),
		},
		{
			name: "sampling/createMessage params", method: MethodSamplingCreateMessage, params: true,
			in: func() any {
				return &CreateMessageParams{
					Meta: dgMeta(),
					Messages: []*SamplingMessage{
						{Meta: dgMeta(), Role: RoleUser, Content: []Content{&TextContent{Text: "a"}, &AudioContent{Data: "AA==", MIMEType: "audio/wav"}}},
						{Role: RoleAssistant, Content: []Content{&ToolUseContent{ID: "c1", Name: "w", Input: json.RawMessage(`{"q":1}`)}}},
						{Role: RoleUser, Content: []Content{&ToolResultContent{ToolUseID: "c1", Content: []Content{&TextContent{Text: "18C"}}, IsError: true}}},
					},
					MaxTokens:  10,
					Tools:      []*Tool{dgTool()},
					ToolChoice: &ToolChoice{Mode: ToolChoiceAuto},
					Task:       &TaskMetadata{TTL: 1},
				}
			},
			want: map[string]string{
				v24: `{"_meta":{"k":1},"messages":[{"role":"user","content":{"type":"text","text":"a"}},{"role":"user","content":{"type":"text","text":"[audio omitted (audio/wav): protocol revision 2024-11-05 has no audio content]"}},` +
					`{"role":"assistant","content":{"type":"text","text":"[tool call c1: w {\"q\":1}]"}},{"role":"user","content":{"type":"text","text":"[tool result c1 (error): 18C]"}}],"maxTokens":10}`,
				v25: `{"_meta":{"k":1},"messages":[{"role":"user","content":{"type":"text","text":"a"}},{"role":"user","content":{"type":"audio","data":"AA==","mimeType":"audio/wav"}},` +
					`{"role":"assistant","content":{"type":"text","text":"[tool call c1: w {\"q\":1}]"}},{"role":"user","content":{"type":"text","text":"[tool result c1 (error): 18C]"}}],"maxTokens":10}`,
				v26: `{"_meta":{"k":1},"messages":[{"role":"user","content":{"type":"text","text":"a"}},{"role":"user","content":{"type":"audio","data":"AA==","mimeType":"audio/wav"}},` +
					`{"role":"assistant","content":{"type":"text","text":"[tool call c1: w {\"q\":1}]"}},{"role":"user","content":{"type":"text","text":"[tool result c1 (error): 18C]"}}],"maxTokens":10}`,
				v27: `{"_meta":{"k":1},"messages":[{"_meta":{"k":1},"role":"user","content":[{"type":"text","text":"a"},{"type":"audio","data":"AA==","mimeType":"audio/wav"}]},` +
					`{"role":"assistant","content":{"type":"tool_use","id":"c1","name":"w","input":{"q":1}}},{"role":"user","content":{"type":"tool_result","toolUseId":"c1","content":[{"type":"text","text":"18C"}],"isError":true}}],"maxTokens":10,` +
					`"tools":[{"_meta":{"k":1},"name":"t","title":"T","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"type":"number"}}},"annotations":{"readOnlyHint":true},` + icons + `,"execution":{"taskSupport":"optional"}}],"toolChoice":{"mode":"auto"},"task":{"ttl":1}}`,
				// In 2026 the request travels inside an InputRequiredResult:
				// no _meta, no task, no tool execution.
				v28: `{"messages":[{"_meta":{"k":1},"role":"user","content":[{"type":"text","text":"a"},{"type":"audio","data":"AA==","mimeType":"audio/wav"}]},` +
					`{"role":"assistant","content":{"type":"tool_use","id":"c1","name":"w","input":{"q":1}}},{"role":"user","content":{"type":"tool_result","toolUseId":"c1","content":[{"type":"text","text":"18C"}],"isError":true}}],"maxTokens":10,` +
					`"tools":[{"_meta":{"k":1},"name":"t","title":"T","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"type":"number"}}},"annotations":{"readOnlyHint":true},` + icons + `}],"toolChoice":{"mode":"auto"}}`,
			},
		},
		{
			name: "sampling/createMessage result", method: MethodSamplingCreateMessage,
			in: func() any {
				return &CreateMessageResult{Meta: dgMeta(), Role: RoleAssistant, Model: "m", StopReason: StopReasonToolUse,
					Content: []Content{&TextContent{Text: "let me look"}, &ToolUseContent{ID: "c2", Name: "w", Input: json.RawMessage(`{}`)}}}
			},
			want: map[string]string{
				v24: `{"_meta":{"k":1},"role":"assistant","model":"m","stopReason":"toolUse","content":{"type":"text","text":"let me look\n\n[tool call c2: w {}]"}}`,
				v25: `{"_meta":{"k":1},"role":"assistant","model":"m","stopReason":"toolUse","content":{"type":"text","text":"let me look\n\n[tool call c2: w {}]"}}`,
				v26: `{"_meta":{"k":1},"role":"assistant","model":"m","stopReason":"toolUse","content":{"type":"text","text":"let me look\n\n[tool call c2: w {}]"}}`,
				v27: `{"_meta":{"k":1},"role":"assistant","model":"m","stopReason":"toolUse","content":[{"type":"text","text":"let me look"},{"type":"tool_use","id":"c2","name":"w","input":{}}]}`,
				v28: `{"_meta":{"k":1},"role":"assistant","model":"m","stopReason":"toolUse","content":[{"type":"text","text":"let me look"},{"type":"tool_use","id":"c2","name":"w","input":{}}]}`,
			},
		},
		{
			name: "sampling/createMessage result, image and text", method: MethodSamplingCreateMessage,
			in: func() any {
				return &CreateMessageResult{Role: RoleAssistant, Model: "m", Content: []Content{&ImageContent{Data: "AA==", MIMEType: "image/png"}, &TextContent{Text: "x"}}}
			},
			want: map[string]string{
				v24: `{"role":"assistant","model":"m","content":{"type":"image","data":"AA==","mimeType":"image/png"}}`,
				v25: `{"role":"assistant","model":"m","content":{"type":"image","data":"AA==","mimeType":"image/png"}}`,
				v26: `{"role":"assistant","model":"m","content":{"type":"image","data":"AA==","mimeType":"image/png"}}`,
				v27: `{"role":"assistant","model":"m","content":[{"type":"image","data":"AA==","mimeType":"image/png"},{"type":"text","text":"x"}]}`,
				v28: `{"role":"assistant","model":"m","content":[{"type":"image","data":"AA==","mimeType":"image/png"},{"type":"text","text":"x"}]}`,
			},
		},
		{
			name: "elicitation/create form", method: MethodElicitationCreate, params: true,
			in: func() any {
				return &ElicitParams{Meta: dgMeta(), Mode: ElicitModeForm, Message: "m", RequestedSchema: dgElicitSchema(), ElicitationID: "e1", Task: &TaskMetadata{TTL: 1}}
			},
			want: map[string]string{
				// Elicitation does not exist before 2025-06-18: what is
				// left is what those revisions would make of it.
				v24: `{"_meta":{"k":1},"message":"m","requestedSchema":{"type":"object","properties":{"name":{"type":"string"},"ok":{"type":"boolean","default":true},"size":{"type":"string","enum":["s","l"],"enumNames":["Small","Large"]}},"required":["name"]}}`,
				v25: `{"_meta":{"k":1},"message":"m","requestedSchema":{"type":"object","properties":{"name":{"type":"string"},"ok":{"type":"boolean","default":true},"size":{"type":"string","enum":["s","l"],"enumNames":["Small","Large"]}},"required":["name"]}}`,
				v26: `{"_meta":{"k":1},"message":"m","requestedSchema":{"type":"object","properties":{"name":{"type":"string"},"ok":{"type":"boolean","default":true},"size":{"type":"string","enum":["s","l"],"enumNames":["Small","Large"]}},"required":["name"]}}`,
				v27: `{"_meta":{"k":1},"mode":"form","message":"m","requestedSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"name":{"type":"string","default":"anon"},"ok":{"type":"boolean","default":true},"size":{"type":"string","oneOf":[{"const":"s","title":"Small"},{"const":"l","title":"Large"}]},"tags":{"type":"array","items":{"type":"string","enum":["x","y"]}}},"required":["name","tags"]},"task":{"ttl":1}}`,
				v28: `{"mode":"form","message":"m","requestedSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"name":{"type":"string","default":"anon"},"ok":{"type":"boolean","default":true},"size":{"type":"string","oneOf":[{"const":"s","title":"Small"},{"const":"l","title":"Large"}]},"tags":{"type":"array","items":{"type":"string","enum":["x","y"]}}},"required":["name","tags"]}}`,
			},
		},
		{
			// URL mode cannot be expressed before 2025-11-25: the session
			// refuses to send it, and it is left alone.
			name: "elicitation/create url", method: MethodElicitationCreate, params: true,
			in: func() any {
				return &ElicitParams{Mode: ElicitModeURL, Message: "m", URL: "https://example.com/a", ElicitationID: "e1"}
			},
			want: map[string]string{
				v24: `{"mode":"url","message":"m","elicitationId":"e1","url":"https://example.com/a"}`,
				v25: `{"mode":"url","message":"m","elicitationId":"e1","url":"https://example.com/a"}`,
				v26: `{"mode":"url","message":"m","elicitationId":"e1","url":"https://example.com/a"}`,
				v27: `{"mode":"url","message":"m","elicitationId":"e1","url":"https://example.com/a"}`,
				v28: `{"mode":"url","message":"m","url":"https://example.com/a"}`,
			},
		},
		{
			name: "elicitation/create result", method: MethodElicitationCreate,
			in: func() any {
				return &ElicitResult{Meta: dgMeta(), Action: ElicitActionAccept, Content: map[string]any{"name": "a", "tags": []string{"x"}, "more": []any{"y"}}}
			},
			want: map[string]string{
				v24: `{"_meta":{"k":1},"action":"accept","content":{"name":"a"}}`,
				v25: `{"_meta":{"k":1},"action":"accept","content":{"name":"a"}}`,
				v26: `{"_meta":{"k":1},"action":"accept","content":{"name":"a"}}`,
				v27: `{"_meta":{"k":1},"action":"accept","content":{"more":["y"],"name":"a","tags":["x"]}}`,
				v28: `{"action":"accept","content":{"more":["y"],"name":"a","tags":["x"]}}`,
			},
		},
		{
			name: "roots/list result", method: MethodRootsList,
			in: func() any {
				return &ListRootsResult{Meta: dgMeta(), Roots: []*Root{{Meta: dgMeta(), URI: "file:///a", Name: "a"}, {URI: "file:///b"}}}
			},
			want: map[string]string{
				v24: `{"_meta":{"k":1},"roots":[{"uri":"file:///a","name":"a"},{"uri":"file:///b"}]}`,
				v25: `{"_meta":{"k":1},"roots":[{"uri":"file:///a","name":"a"},{"uri":"file:///b"}]}`,
				v26: `{"_meta":{"k":1},"roots":[{"_meta":{"k":1},"uri":"file:///a","name":"a"},{"uri":"file:///b"}]}`,
				v27: `{"_meta":{"k":1},"roots":[{"_meta":{"k":1},"uri":"file:///a","name":"a"},{"uri":"file:///b"}]}`,
				v28: `{"roots":[{"_meta":{"k":1},"uri":"file:///a","name":"a"},{"uri":"file:///b"}]}`,
			},
		},
		{
			// InputRequiredResult exists in 2026-07-28 only; there its
			// embedded requests lose what they lack.
			name: "input required", method: MethodToolsCall,
			in: func() any {
				return &InputRequiredResult{ResultType: ResultTypeInputRequired, RequestState: "s", InputRequests: map[string]*InputRequest{
					"e": {Elicit: &ElicitParams{Meta: dgMeta(), Message: "m", RequestedSchema: &ElicitSchema{}, Task: &TaskMetadata{}}},
					"r": {ListRoots: &ListRootsParams{Meta: dgMeta()}},
				}}
			},
			want: map[string]string{
				v24: `{"resultType":"input_required","inputRequests":{"e":{"method":"elicitation/create","params":{"_meta":{"k":1},"message":"m","requestedSchema":{"type":"object","properties":{}},"task":{}}},"r":{"method":"roots/list","params":{"_meta":{"k":1}}}},"requestState":"s"}`,
				v25: `{"resultType":"input_required","inputRequests":{"e":{"method":"elicitation/create","params":{"_meta":{"k":1},"message":"m","requestedSchema":{"type":"object","properties":{}},"task":{}}},"r":{"method":"roots/list","params":{"_meta":{"k":1}}}},"requestState":"s"}`,
				v26: `{"resultType":"input_required","inputRequests":{"e":{"method":"elicitation/create","params":{"_meta":{"k":1},"message":"m","requestedSchema":{"type":"object","properties":{}},"task":{}}},"r":{"method":"roots/list","params":{"_meta":{"k":1}}}},"requestState":"s"}`,
				v27: `{"resultType":"input_required","inputRequests":{"e":{"method":"elicitation/create","params":{"_meta":{"k":1},"message":"m","requestedSchema":{"type":"object","properties":{}},"task":{}}},"r":{"method":"roots/list","params":{"_meta":{"k":1}}}},"requestState":"s"}`,
				v28: `{"resultType":"input_required","inputRequests":{"e":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}},"r":{"method":"roots/list","params":{"_meta":{"k":1}}}},"requestState":"s"}`,
			},
		},
		{
			// Types the tables do not know pass through unchanged.
			name: "unknown type", method: "x/y",
			in:   func() any { return &struct{ A string }{A: "a"} },
			want: dgAll(`{"A":"a"}`),
		},
	}
}

// downgradeFor runs the function under test that c names.
func (c dgCase) downgrade(f versionFeatures, v any) any {
	if c.params {
		return downgradeParams(f, c.method, v)
	}
	return downgradeResult(f, c.method, v)
}

// TestDowngrade checks, per type and revision, what is removed and what
// stays; that the input is never modified; and that the input itself comes
// back when nothing needed removing.
func TestDowngrade(t *testing.T) {
	for _, c := range dgCases() {
		for _, rev := range supportedVersions {
			t.Run(c.name+"/"+rev, func(t *testing.T) {
				in := c.in()
				before := mustMarshal(t, in)
				out := c.downgrade(features(rev), in)
				if after := mustMarshal(t, in); string(after) != string(before) {
					t.Fatalf("input modified\nbefore: %s\n after: %s", before, after)
				}
				got := mustMarshal(t, out)
				want, ok := c.want[rev]
				if !ok {
					t.Fatalf("no expectation for %s", rev)
				}
				if string(got) != want {
					t.Errorf("sent\n got: %s\nwant: %s", got, want)
				}
				if string(got) == string(before) && out != in {
					t.Errorf("nothing removed, yet a copy was made")
				}
			})
		}
	}
}

// TestDowngradeSharesUnchangedParts checks the copy on write: the parts
// that need no change are the input's own, not copies.
func TestDowngradeSharesUnchangedParts(t *testing.T) {
	plain := &Tool{Name: "p", InputSchema: json.RawMessage(`{"type":"object"}`)}
	full := dgTool()
	in := &ListToolsResult{Tools: []*Tool{plain, full}}
	out := downgradeResult(features(Version20250326), MethodToolsList, in).(*ListToolsResult)
	if out == in || &out.Tools[0] == &in.Tools[0] {
		t.Fatal("result or its slice not copied")
	}
	if out.Tools[0] != plain {
		t.Error("an unchanged tool was copied")
	}
	if out.Tools[1] == full || out.Tools[1].Annotations != full.Annotations {
		t.Error("the changed tool was not copied, or its unchanged annotations were")
	}
}

// dgKnownFixtureExtras lists the fixture values (protocol_test.go) that
// carry a field their own revision lacks, so that downgrading them at that
// revision is expected to remove it.
var dgKnownFixtureExtras = map[string]string{
	// SamplingMessage gained _meta in 2025-11-25, not with the other
	// _meta fields in 2025-06-18.
	Version20250618 + "/sampling/createMessage": "SamplingMessage._meta",
}

// dgDowngradeSample downgrades a fixture value with whichever function
// takes its kind.
func dgDowngradeSample(f versionFeatures, s sample) any {
	switch s.kind {
	case kindRequest, kindNotification:
		return downgradeParams(f, s.method, s.value)
	case kindResult:
		return downgradeResult(f, s.method, s.value)
	}
	// kindDef: sampling and elicitation values 2026 sends embedded.
	if v := downgradeParams(f, "", s.value); v != s.value {
		return v
	}
	return downgradeResult(f, "", s.value)
}

// TestDowngradeOwnRevision checks that every fixture value built for a
// revision (protocol_test.go; the fixtures use the version table and are
// validated against the official schemas) comes back as itself at that
// revision, with no allocation: a server already speaking the peer's
// revision pays nothing.
func TestDowngradeOwnRevision(t *testing.T) {
	for _, rev := range supportedVersions {
		f := features(rev)
		for _, s := range (fixtures{rev: rev, f: f}).samples() {
			if s.kind == kindError {
				continue
			}
			if _, extra := dgKnownFixtureExtras[rev+"/"+s.name]; extra && s.kind != kindResult {
				if dgDowngradeSample(f, s) == s.value {
					t.Errorf("%s/%s: the known extra field was not removed", rev, s.name)
				}
				continue
			}
			if got := dgDowngradeSample(f, s); got != s.value {
				t.Errorf("%s/%s: not returned as is\n got: %s\nwant: %s", rev, s.name, mustMarshal(t, got), mustMarshal(t, s.value))
				continue
			}
			if n := testing.AllocsPerRun(20, func() { dgDowngradeSample(f, s) }); n != 0 {
				t.Errorf("%s/%s: %v allocations", rev, s.name, n)
			}
		}
	}
}

// TestDowngradeValidatesAgainstOlderSchemas downgrades the values of the
// two newest revisions to every older revision and validates the messages
// against that revision's official schema.
func TestDowngradeValidatesAgainstOlderSchemas(t *testing.T) {
	for i, from := range supportedVersions[:2] {
		for _, s := range (fixtures{rev: from, f: features(from)}).samples() {
			// Older revisions only: downgrading removes fields, it cannot
			// add those a newer revision requires.
			for _, to := range supportedVersions[i:] {
				f := features(to)
				if s.kind == kindError || !dgCanCarry(f, s) {
					continue
				}
				t.Run(from+"/"+s.name+"/to/"+to, func(t *testing.T) {
					before := mustMarshal(t, s.value)
					d := s
					d.value = dgDowngradeSample(f, s)
					if after := mustMarshal(t, s.value); string(after) != string(before) {
						t.Fatalf("input modified\nbefore: %s\n after: %s", before, after)
					}
					msg := encodeSample(t, d)
					var err error
					switch d.kind {
					case kindDef:
						has, herr := specschema.HasDef(to, d.def)
						if herr != nil {
							t.Fatal(herr)
						}
						if !has {
							t.Skipf("%s has no %s", to, d.def)
						}
						err = specschema.ValidateDef(to, d.def, msg)
					case kindResult:
						err = specschema.ValidateMessage(to, msg, d.method)
					default:
						err = specschema.ValidateMessage(to, msg, "")
					}
					if errors.Is(err, specschema.ErrUnknownMethod) {
						t.Skipf("%s has no %s", to, d.method)
					}
					if err != nil {
						t.Errorf("%s\n%v", msg, err)
					}
				})
			}
		}
	}
}

// dgCanCarry reports whether revision f can carry sample s at all; the
// others are for the session to refuse, not for downgrading.
func dgCanCarry(f versionFeatures, s sample) bool {
	switch v := s.value.(type) {
	case *InputRequiredResult:
		return f.inputRequired
	case *ElicitParams:
		// 2025-11-25 requires the elicitationId 2026-07-28 dropped.
		return v.Mode != ElicitModeURL || f.elicitationURLMode && (!f.elicitationComplete || v.ElicitationID != "")
	case *CancelledNotificationParams:
		return f.cancelRequestIDOptional || !v.RequestID.IsZero()
	}
	return true
}

// TestDowngradeConcurrent downgrades the same shared values for every
// revision at once; with -race it shows the input is only ever read.
func TestDowngradeConcurrent(t *testing.T) {
	cases := dgCases()
	values := make([]any, len(cases))
	for i, c := range cases {
		values[i] = c.in()
	}
	var wg sync.WaitGroup
	for _, rev := range supportedVersions {
		wg.Go(func() {
			f := features(rev)
			for i, c := range cases {
				if _, err := marshalJSONNoEscape(c.downgrade(f, values[i])); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkDowngrade measures the common case, typical results sent at
// the revision they were built for (nothing removed, nothing allocated),
// and, for comparison, the same results sent to a 2024-11-05 peer.
func BenchmarkDowngrade(b *testing.B) {
	for _, c := range []struct{ from, to string }{
		{Version20260728, Version20260728},
		{Version20251125, Version20251125},
		{Version20251125, Version20241105},
	} {
		x := fixtures{rev: c.from, f: features(c.from)}
		f := features(c.to)
		results := []struct {
			method string
			v      any
		}{
			{MethodToolsList, &ListToolsResult{Tools: []*Tool{x.tool(), x.tool(), x.tool()}}},
			{MethodToolsCall, x.callToolResult()},
		}
		for _, r := range results {
			b.Run(c.from+"/to/"+c.to+"/"+r.method, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					downgradeResult(f, r.method, r.v)
				}
			})
		}
	}
}
