package mcp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/gomcp/sdk/internal/specschema"
	"github.com/gomcp/sdk/jsonrpc"
)

// sample is one protocol value, placed in a JSON-RPC message for validation
// against a revision's schema.
type sample struct {
	name   string
	kind   sampleKind
	method string // for requests and notifications, the method; for results, the request's method
	value  any    // a pointer to a protocol type; for errors, *jsonrpc.Error
	def    string // kindDef: the schema definition to validate value against
}

type sampleKind int

const (
	kindRequest sampleKind = iota
	kindNotification
	kindResult
	kindError
	kindDef // a value validated alone against def
)

// fixtures builds the values of one revision, using the version table to
// decide what the revision has: the samples double as a test of the table.
type fixtures struct {
	rev string
	f   versionFeatures
}

func (x fixtures) impl() *Implementation {
	impl := &Implementation{Name: "srv", Version: "1.2.3"}
	if x.f.titles {
		impl.Title = "Server"
	}
	if x.f.implementationDescription {
		impl.Description = "a test server"
		impl.WebsiteURL = "https://example.com"
	}
	if x.f.icons {
		impl.Icons = x.icons()
	}
	return impl
}

func (x fixtures) icons() []Icon {
	return []Icon{
		{Src: "https://example.com/i.png", MIMEType: "image/png", Sizes: []string{"48x48", "96x96"}, Theme: "light"},
		{Src: "data:image/svg+xml;base64,PHN2Zy8+"},
	}
}

func extra() map[string]json.RawMessage {
	return map[string]json.RawMessage{
		"com.example/trace": json.RawMessage(`{"a":[1,2,"<&>"]}`),
		"plain":             json.RawMessage(`"x"`),
	}
}

// requestMeta is a request's _meta: in 2026 the required per-request fields.
func (x fixtures) requestMeta() *Meta {
	if x.f.stateless {
		return &Meta{
			ProgressToken:      jsonrpc.StringID("tok-1"),
			ProtocolVersion:    x.rev,
			ClientCapabilities: x.clientCaps(),
			ClientInfo:         x.impl(),
			LogLevel:           LevelWarning,
			TraceParent:        "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
			TraceState:         "vendor=x",
			Baggage:            "k=v",
			Extra:              extra(),
		}
	}
	return &Meta{ProgressToken: jsonrpc.Int64ID(42), Extra: extra()}
}

func (x fixtures) resultMeta() *Meta {
	m := &Meta{Extra: extra()}
	if x.f.stateless {
		m.ServerInfo = x.impl()
	}
	return m
}

func (x fixtures) resultType() ResultType {
	if x.f.resultType {
		return ResultTypeComplete
	}
	return ""
}

func (x fixtures) cache() CacheHints {
	if x.f.cacheHints {
		return CacheHints{TTLMs: new(int64(0)), CacheScope: CacheScopePrivate}
	}
	return CacheHints{}
}

func (x fixtures) clientCaps() *ClientCapabilities {
	c := &ClientCapabilities{
		Experimental: map[string]json.RawMessage{"com.example/x": json.RawMessage(`{"on":true}`)},
		Roots:        &RootCapabilities{ListChanged: x.f.rootsListChanged},
		Sampling:     &SamplingCapabilities{},
	}
	if x.f.samplingTools {
		c.Sampling.Context = &struct{}{}
		c.Sampling.Tools = &struct{}{}
	}
	if x.f.elicitation {
		c.Elicitation = &ElicitationCapabilities{}
		if x.f.elicitationURLMode {
			c.Elicitation.Form = &struct{}{}
			c.Elicitation.URL = &struct{}{}
		}
	}
	if x.f.tasks {
		c.Tasks = json.RawMessage(`{"list":{},"cancel":{},"requests":{"sampling":{"createMessage":{}},"elicitation":{"create":{}}}}`)
	}
	// Every revision: peers exchange extensions in initialize too.
	c.Extensions = map[string]json.RawMessage{"io.modelcontextprotocol/ui": json.RawMessage(`{}`)}
	return c
}

func (x fixtures) serverCaps() *ServerCapabilities {
	c := &ServerCapabilities{
		Experimental: map[string]json.RawMessage{"com.example/y": json.RawMessage(`{}`)},
		Logging:      &LoggingCapabilities{},
		Prompts:      &PromptCapabilities{ListChanged: true},
		Resources:    &ResourceCapabilities{Subscribe: x.f.resourceSubscribe, ListChanged: true},
		Tools:        &ToolCapabilities{ListChanged: true},
	}
	if x.f.completionsCapability {
		c.Completions = &CompletionCapabilities{}
	}
	if x.f.tasks {
		c.Tasks = json.RawMessage(`{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`)
	}
	c.Extensions = map[string]json.RawMessage{"io.modelcontextprotocol/ui": json.RawMessage(`{"mode":"x"}`)}
	return c
}

func (x fixtures) annotations() *Annotations {
	a := &Annotations{Audience: []Role{RoleUser, RoleAssistant}, Priority: new(0.0)}
	if x.f.annotationsLastModified {
		a.LastModified = "2025-01-12T15:00:58Z"
	}
	return a
}

func (x fixtures) contentMeta() *Meta {
	if x.f.contentMeta {
		return &Meta{Extra: extra()}
	}
	return nil
}

// blocks returns one of every ContentBlock type the revision has.
func (x fixtures) blocks() []Content {
	cs := []Content{
		&TextContent{Meta: x.contentMeta(), Text: "hello <b>&amp;</b> \u2603", Annotations: x.annotations()},
		NewImageContent([]byte{0x89, 'P', 'N', 'G'}, "image/png"),
		&EmbeddedResource{Resource: &TextResourceContents{URI: "file:///a.txt", MIMEType: "text/plain", Text: "a"}, Annotations: x.annotations()},
		&EmbeddedResource{Meta: x.contentMeta(), Resource: NewBlobResourceContents("file:///b.bin", "application/octet-stream", []byte{0, 0xff})},
	}
	if x.f.audioContent {
		cs = append(cs, NewAudioContent([]byte("RIFF"), "audio/wav"))
	}
	if x.f.resourceLinks {
		link := &ResourceLink{Meta: x.contentMeta(), URI: "https://example.com/r", Name: "r", Description: "d", MIMEType: "text/html", Size: new(int64(0)), Annotations: x.annotations()}
		if x.f.titles {
			link.Title = "R"
		}
		if x.f.icons {
			link.Icons = x.icons()
		}
		cs = append(cs, link)
	}
	return cs
}

// samplingBlocks returns the content of sampling messages.
func (x fixtures) samplingBlocks() [][]Content {
	out := [][]Content{
		{&TextContent{Text: "What is the weather?"}},
		{NewImageContent([]byte{1, 2, 3}, "image/jpeg")},
	}
	if x.f.audioContent {
		out = append(out, []Content{NewAudioContent([]byte{4}, "audio/mpeg")})
	}
	if x.f.samplingContentArrays {
		out = append(out, []Content{&TextContent{Text: "a"}, &TextContent{Text: "b"}})
	}
	if x.f.samplingTools {
		out = append(out,
			[]Content{&ToolUseContent{ID: "call_1", Name: "get_weather", Input: json.RawMessage(`{"city":"Paris"}`)}},
			[]Content{&ToolResultContent{
				ToolUseID:         "call_1",
				Content:           []Content{&TextContent{Text: "18C"}},
				StructuredContent: json.RawMessage(`{"temp":18}`),
				IsError:           true,
			}},
		)
	}
	return out
}

func (x fixtures) tool() *Tool {
	t := &Tool{
		Name:        "get_weather",
		Description: "Get the weather <now> & later",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","pattern":"^<[a-z]+>&$"}},"required":["city"]}`),
	}
	if x.f.jsonSchema202012Default {
		t.InputSchema = json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"c":{"$anchor":"c","type":"string"}},"properties":{"city":{"$ref":"#/$defs/c"}},"if":{"required":["city"]},"then":{"not":{"required":["x"]}},"else":{"anyOf":[{},{"oneOf":[{}]}]}}`)
	}
	if x.f.titles {
		t.Title = "Weather"
	}
	if x.f.toolAnnotations {
		t.Annotations = &ToolAnnotations{Title: "W", ReadOnlyHint: new(true), DestructiveHint: new(false), IdempotentHint: new(true), OpenWorldHint: new(false)}
	}
	if x.f.structuredOutput {
		t.OutputSchema = json.RawMessage(`{"type":"object","properties":{"temp":{"type":"number"}}}`)
	}
	if x.f.structuredContentAnyJSON {
		t.OutputSchema = json.RawMessage(`{"type":"array","items":{"type":"number"}}`)
	}
	if x.f.icons {
		t.Icons = x.icons()
	}
	if x.f.tasks {
		t.Execution = &ToolExecution{TaskSupport: TaskSupportOptional}
	}
	if x.f.contentMeta {
		t.Meta = &Meta{Extra: extra()}
	}
	return t
}

func (x fixtures) callToolResult() *CallToolResult {
	r := &CallToolResult{Meta: x.resultMeta(), ResultType: x.resultType(), Content: x.blocks()}
	if x.f.structuredOutput {
		r.StructuredContent = json.RawMessage(`{"temp":18.5}`)
	}
	if x.f.structuredContentAnyJSON {
		r.StructuredContent = json.RawMessage(`[1,2,3]`)
	}
	return r
}

func (x fixtures) formSchema() *ElicitSchema {
	s := &ElicitSchema{
		Properties: []ElicitProperty{
			{Name: "name", Schema: &PrimitiveSchema{Type: "string", Title: "Name", Description: "Your name", MinLength: new(1), MaxLength: new(50)}},
			{Name: "email", Schema: &PrimitiveSchema{Type: "string", Format: "email"}},
			{Name: "age", Schema: &PrimitiveSchema{Type: "integer", Minimum: new(0.0), Maximum: new(150.0)}},
			{Name: "ratio", Schema: &PrimitiveSchema{Type: "number"}},
			{Name: "ok", Schema: &PrimitiveSchema{Type: "boolean"}},
			{Name: "legacy", Schema: &PrimitiveSchema{Type: "string", Enum: []string{"a", "b"}, EnumNames: []string{"A", "B"}}},
		},
		Required: []string{"name", "age"},
	}
	if x.f.enumSchemas {
		s.Schema = "https://json-schema.org/draft/2020-12/schema"
		s.Properties = append(s.Properties,
			ElicitProperty{Name: "color", Schema: &PrimitiveSchema{Type: "string", Enum: []string{"red", "green"}}},
			ElicitProperty{Name: "size", Schema: &PrimitiveSchema{Type: "string", OneOf: []EnumOption{{Const: "s", Title: "Small"}, {Const: "l", Title: "Large"}}}},
			ElicitProperty{Name: "tags", Schema: &PrimitiveSchema{Type: "array", Items: &EnumItems{Type: "string", Enum: []string{"x", "y"}}, MinItems: new(1), MaxItems: new(2)}},
			ElicitProperty{Name: "flavours", Schema: &PrimitiveSchema{Type: "array", Items: &EnumItems{AnyOf: []EnumOption{{Const: "v", Title: "Vanilla"}}}}},
		)
	}
	if x.f.elicitationDefaults {
		s.Properties[0].Schema.Default = "anon"
		s.Properties[2].Schema.Default = 30.0
		s.Properties[4].Schema.Default = false
		s.Properties = append(s.Properties, ElicitProperty{Name: "multi", Schema: &PrimitiveSchema{
			Type: "array", Items: &EnumItems{Type: "string", Enum: []string{"p", "q"}}, Default: []any{"p"},
		}})
	}
	return s
}

func (x fixtures) elicitParams() []*ElicitParams {
	form := &ElicitParams{Message: "Who are you?", RequestedSchema: x.formSchema()}
	if !x.f.stateless {
		form.Meta = x.requestMeta()
	}
	out := []*ElicitParams{form}
	if x.f.elicitationURLMode {
		form.Mode = ElicitModeForm
		u := &ElicitParams{Mode: ElicitModeURL, Message: "Sign in", URL: "https://example.com/auth?x=1&y=2"}
		if x.f.elicitationComplete {
			u.ElicitationID = "el-1"
		}
		out = append(out, u)
	}
	if x.f.tasks {
		form.Task = &TaskMetadata{TTL: 60000}
	}
	return out
}

func (x fixtures) elicitResults() []*ElicitResult {
	accept := &ElicitResult{Action: ElicitActionAccept, Content: map[string]any{"name": "Ann", "age": 30.0, "ok": true}}
	if x.f.enumSchemas {
		accept.Content["tags"] = []any{"x", "y"}
	}
	out := []*ElicitResult{accept, {Action: ElicitActionDecline}, {Action: ElicitActionCancel}}
	if !x.f.stateless {
		accept.Meta = x.resultMeta()
	}
	return out
}

func (x fixtures) createMessageParams() *CreateMessageParams {
	p := &CreateMessageParams{
		ModelPreferences: &ModelPreferences{
			Hints:                []ModelHint{{Name: "claude-3-5-sonnet"}, {}},
			CostPriority:         new(0.0),
			SpeedPriority:        new(0.5),
			IntelligencePriority: new(1.0),
		},
		SystemPrompt:   "Be brief.",
		IncludeContext: IncludeContextNone,
		Temperature:    new(0.0),
		MaxTokens:      100,
		StopSequences:  []string{"\n\n"},
		Metadata:       json.RawMessage(`{"provider":{"k":"v"}}`),
	}
	for i, c := range x.samplingBlocks() {
		role := RoleUser
		if i%2 == 1 {
			role = RoleAssistant
		}
		p.Messages = append(p.Messages, &SamplingMessage{Role: role, Content: c})
	}
	if x.f.contentMeta {
		p.Messages[0].Meta = &Meta{Extra: extra()}
	}
	if x.f.samplingTools {
		p.Tools = []*Tool{x.tool()}
		p.ToolChoice = &ToolChoice{Mode: ToolChoiceAuto}
		p.IncludeContext = IncludeContextThisServer
	}
	if !x.f.stateless {
		p.Meta = x.requestMeta()
	}
	if x.f.tasks {
		p.Task = &TaskMetadata{}
	}
	return p
}

func (x fixtures) createMessageResults() []*CreateMessageResult {
	out := []*CreateMessageResult{{Role: RoleAssistant, Content: []Content{&TextContent{Text: "Sunny."}}, Model: "m-1", StopReason: StopReasonEndTurn}}
	if x.f.samplingTools {
		out = append(out,
			&CreateMessageResult{Role: RoleAssistant, Content: []Content{&ToolUseContent{ID: "c", Name: "get_weather", Input: json.RawMessage(`{}`)}}, Model: "m-1", StopReason: StopReasonToolUse},
			&CreateMessageResult{Role: RoleAssistant, Content: []Content{&TextContent{Text: "a"}, &ToolUseContent{ID: "c", Name: "n", Input: json.RawMessage(`{"a":1}`)}}, Model: "m-1"},
		)
	}
	if !x.f.stateless {
		out[0].Meta = x.resultMeta()
	}
	return out
}

func (x fixtures) roots() *ListRootsResult {
	r := &ListRootsResult{Roots: []*Root{{URI: "file:///home/u/project", Name: "project"}, {URI: "file:///tmp"}}}
	if x.f.contentMeta {
		r.Roots[0].Meta = &Meta{Extra: extra()}
	}
	if !x.f.stateless {
		r.Meta = x.resultMeta()
	}
	return r
}

// samples returns every protocol value of revision x.rev, in the messages
// that carry them.
func (x fixtures) samples() []sample {
	f := x.f
	var s []sample
	req := func(name, method string, v any) {
		s = append(s, sample{name: name, kind: kindRequest, method: method, value: v})
	}
	notif := func(name, method string, v any) {
		s = append(s, sample{name: name, kind: kindNotification, method: method, value: v})
	}
	res := func(name, method string, v any) {
		s = append(s, sample{name: name, kind: kindResult, method: method, value: v})
	}
	def := func(name, d string, v any) { s = append(s, sample{name: name, kind: kindDef, def: d, value: v}) }
	errResp := func(name string, e *jsonrpc.Error) { s = append(s, sample{name: name, kind: kindError, value: e}) }

	rm := x.requestMeta
	prompt := &Prompt{Name: "greet", Description: "Greets", Arguments: []*PromptArgument{{Name: "who", Description: "whom", Required: true}, {Name: "tone"}}}
	resource := &Resource{URI: "file:///a.txt", Name: "a.txt", Description: "A", MIMEType: "text/plain", Size: new(int64(12)), Annotations: x.annotations()}
	template := &ResourceTemplate{URITemplate: "file:///{path}", Name: "files", Description: "F", MIMEType: "text/plain", Annotations: x.annotations()}
	if f.titles {
		prompt.Title, prompt.Arguments[0].Title, resource.Title, template.Title = "Greet", "Who", "A", "Files"
	}
	if f.icons {
		prompt.Icons, resource.Icons, template.Icons = x.icons(), x.icons(), x.icons()
	}
	if f.contentMeta {
		prompt.Meta, resource.Meta, template.Meta = &Meta{Extra: extra()}, &Meta{Extra: extra()}, &Meta{Extra: extra()}
	}

	// Lifecycle.
	if !f.stateless {
		req("initialize", MethodInitialize, &InitializeParams{Meta: rm(), ProtocolVersion: x.rev, Capabilities: x.clientCaps(), ClientInfo: x.impl()})
		res("initialize", MethodInitialize, &InitializeResult{Meta: x.resultMeta(), ProtocolVersion: x.rev, Capabilities: x.serverCaps(), ServerInfo: x.impl(), Instructions: "Use <tools> & prompts."})
		res("initialize minimal", MethodInitialize, &InitializeResult{ProtocolVersion: x.rev, Capabilities: &ServerCapabilities{}, ServerInfo: &Implementation{Name: "s", Version: "1"}})
		notif("initialized", NotificationInitialized, &initializedNotificationParams{})
	}
	if f.ping {
		req("ping", MethodPing, &PingParams{})
		req("ping with meta", MethodPing, &PingParams{Meta: rm()})
		res("ping", MethodPing, &EmptyResult{})
	}
	if f.serverDiscover {
		req("discover", MethodServerDiscover, &DiscoverParams{Meta: rm()})
		res("discover", MethodServerDiscover, &DiscoverResult{
			Meta: x.resultMeta(), ResultType: ResultTypeComplete, CacheHints: CacheHints{TTLMs: new(int64(60000)), CacheScope: CacheScopePublic},
			SupportedVersions: []string{Version20260728, Version20251125}, Capabilities: x.serverCaps(), Instructions: "hi",
		})
	}
	cancelled := &CancelledNotificationParams{RequestID: jsonrpc.Int64ID(7), Reason: "user gave up"}
	notif("cancelled", NotificationCancelled, cancelled)
	notif("cancelled string id", NotificationCancelled, &CancelledNotificationParams{RequestID: jsonrpc.StringID("r-1")})
	if f.cancelRequestIDOptional {
		notif("cancelled without id", NotificationCancelled, &CancelledNotificationParams{Reason: "x"})
	}
	progress := &ProgressNotificationParams{ProgressToken: jsonrpc.StringID("tok-1"), Progress: 0.5, Total: 1}
	if f.progressMessage {
		progress.Message = "half way"
	}
	notif("progress", NotificationProgress, progress)
	notif("progress int token", NotificationProgress, &ProgressNotificationParams{ProgressToken: jsonrpc.Int64ID(-3), Progress: 2})

	// Tools.
	req("tools/list", MethodToolsList, &ListToolsParams{Meta: rm(), Cursor: "c1"})
	res("tools/list", MethodToolsList, &ListToolsResult{Meta: x.resultMeta(), ResultType: x.resultType(), CacheHints: x.cache(), Tools: []*Tool{x.tool(), {Name: "t2", InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false}`)}}, NextCursor: "c2"})
	res("tools/list empty", MethodToolsList, &ListToolsResult{ResultType: x.resultType(), CacheHints: x.cache(), Tools: []*Tool{}})
	call := &CallToolParams{Meta: rm(), Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris","n":[1,{"x":null}]}`)}
	req("tools/call", MethodToolsCall, call)
	req("tools/call no arguments", MethodToolsCall, &CallToolParams{Meta: rm(), Name: "t2"})
	res("tools/call", MethodToolsCall, x.callToolResult())
	res("tools/call error", MethodToolsCall, &CallToolResult{ResultType: x.resultType(), Content: []Content{&TextContent{Text: "bad city"}}, IsError: true})
	res("tools/call empty", MethodToolsCall, &CallToolResult{ResultType: x.resultType(), Content: []Content{}})
	if f.structuredContentAnyJSON {
		res("tools/call null structured", MethodToolsCall, &CallToolResult{ResultType: x.resultType(), Content: []Content{}, StructuredContent: json.RawMessage(`null`)})
	}
	if f.toolAnnotations {
		def("tool annotations", "ToolAnnotations", &ToolAnnotations{Title: "t"})
	}
	if f.tasks {
		req("tools/call as task", MethodToolsCall, &CallToolParams{Meta: rm(), Name: "slow", Task: &TaskMetadata{TTL: 1000}})
	}
	if f.inputRequired {
		ir := &InputRequiredResult{
			Meta:       x.resultMeta(),
			ResultType: ResultTypeInputRequired,
			InputRequests: map[string]*InputRequest{
				"sample": {CreateMessage: x.createMessageParams()},
				"roots":  {ListRoots: &ListRootsParams{}},
			},
			RequestState: "opaque+/=state",
		}
		for i, p := range x.elicitParams() {
			ir.InputRequests["elicit"+string(rune('0'+i))] = &InputRequest{Elicit: p}
		}
		res("tools/call input required", MethodToolsCall, ir)
		res("tools/call input required, state only", MethodToolsCall, &InputRequiredResult{ResultType: ResultTypeInputRequired, RequestState: "s"})
		retry := &CallToolParams{Meta: rm(), Name: "get_weather", Arguments: json.RawMessage(`{}`), RequestState: "opaque+/=state",
			InputResponses: map[string]*InputResponse{
				"sample": {CreateMessage: x.createMessageResults()[0]},
				"roots":  {ListRoots: x.roots()},
			}}
		for i, r := range x.elicitResults() {
			retry.InputResponses["elicit"+string(rune('0'+i))] = &InputResponse{Elicit: r}
		}
		req("tools/call retry", MethodToolsCall, retry)
		res("prompts/get input required", MethodPromptsGet, &InputRequiredResult{ResultType: ResultTypeInputRequired, InputRequests: map[string]*InputRequest{"r": {ListRoots: &ListRootsParams{}}}})
		res("resources/read input required", MethodResourcesRead, &InputRequiredResult{ResultType: ResultTypeInputRequired, RequestState: "s"})
		req("prompts/get retry", MethodPromptsGet, &GetPromptParams{Meta: rm(), Name: "greet", RequestState: "s", InputResponses: map[string]*InputResponse{"r": {ListRoots: x.roots()}}})
		req("resources/read retry", MethodResourcesRead, &ReadResourceParams{Meta: rm(), URI: "file:///a.txt", RequestState: "s"})
	}
	if f.listChangedNotifications || f.subscriptionsListen {
		nm := (*Meta)(nil)
		if f.subscriptionsListen {
			nm = &Meta{SubscriptionID: jsonrpc.Int64ID(12)}
		}
		notif("tools/list_changed", NotificationToolListChanged, &toolListChangedNotificationParams{Meta: nm})
		notif("prompts/list_changed", NotificationPromptListChanged, &promptListChangedNotificationParams{Meta: nm})
		notif("resources/list_changed", NotificationResourceListChanged, &resourceListChangedNotificationParams{Meta: nm})
		notif("resources/updated", NotificationResourceUpdated, &ResourceUpdatedNotificationParams{Meta: nm, URI: "file:///a.txt"})
		notif("list_changed bare", NotificationToolListChanged, &toolListChangedNotificationParams{})
	}

	// Resources.
	req("resources/list", MethodResourcesList, &ListResourcesParams{Meta: rm(), Cursor: "x"})
	res("resources/list", MethodResourcesList, &ListResourcesResult{Meta: x.resultMeta(), ResultType: x.resultType(), CacheHints: x.cache(), Resources: []*Resource{resource, {URI: "https://example.com/b", Name: "b"}}, NextCursor: "n"})
	req("resources/templates/list", MethodResourcesTemplatesList, &ListResourceTemplatesParams{Meta: rm()})
	res("resources/templates/list", MethodResourcesTemplatesList, &ListResourceTemplatesResult{ResultType: x.resultType(), CacheHints: x.cache(), ResourceTemplates: []*ResourceTemplate{template}})
	req("resources/read", MethodResourcesRead, &ReadResourceParams{Meta: rm(), URI: "file:///a.txt"})
	res("resources/read", MethodResourcesRead, &ReadResourceResult{Meta: x.resultMeta(), ResultType: x.resultType(), CacheHints: x.cache(), Contents: []ResourceContents{
		&TextResourceContents{Meta: x.contentMeta(), URI: "file:///a.txt", MIMEType: "text/plain", Text: "hello"},
		NewBlobResourceContents("file:///b.bin", "", []byte("\x00\x01")),
		&TextResourceContents{URI: "file:///empty", Text: ""},
	}})
	if f.resourceSubscribe {
		req("resources/subscribe", MethodResourcesSubscribe, &SubscribeParams{Meta: rm(), URI: "file:///a.txt"})
		res("resources/subscribe", MethodResourcesSubscribe, &EmptyResult{})
		req("resources/unsubscribe", MethodResourcesUnsubscribe, &UnsubscribeParams{URI: "file:///a.txt"})
		res("resources/unsubscribe", MethodResourcesUnsubscribe, &EmptyResult{Meta: x.resultMeta()})
	}

	// Prompts.
	req("prompts/list", MethodPromptsList, &ListPromptsParams{Meta: rm()})
	res("prompts/list", MethodPromptsList, &ListPromptsResult{Meta: x.resultMeta(), ResultType: x.resultType(), CacheHints: x.cache(), Prompts: []*Prompt{prompt, {Name: "bare"}}, NextCursor: "p"})
	req("prompts/get", MethodPromptsGet, &GetPromptParams{Meta: rm(), Name: "greet", Arguments: map[string]string{"who": "world", "tone": "<warm>"}})
	gp := &GetPromptResult{Meta: x.resultMeta(), ResultType: x.resultType(), Description: "A greeting"}
	for i, c := range x.blocks() {
		role := RoleUser
		if i%2 == 1 {
			role = RoleAssistant
		}
		gp.Messages = append(gp.Messages, &PromptMessage{Role: role, Content: c})
	}
	res("prompts/get", MethodPromptsGet, gp)

	// Completion.
	cp := &CompleteParams{Meta: rm(), Ref: CompleteReference{Type: RefTypePrompt, Name: "greet"}, Argument: CompleteArgument{Name: "who", Value: "wo"}}
	if f.titles {
		cp.Ref.Title = "Greet"
	}
	if f.completionContext {
		cp.Context = &CompleteContext{Arguments: map[string]string{"tone": "warm"}}
	}
	req("completion/complete prompt", MethodCompletionComplete, cp)
	req("completion/complete resource", MethodCompletionComplete, &CompleteParams{Meta: rm(), Ref: CompleteReference{Type: RefTypeResource, URI: "file:///{path}"}, Argument: CompleteArgument{Name: "path", Value: ""}})
	res("completion/complete", MethodCompletionComplete, &CompleteResult{Meta: x.resultMeta(), ResultType: x.resultType(), Completion: Completion{Values: []string{"world", "wombat"}, Total: 10, HasMore: true}})
	res("completion/complete empty", MethodCompletionComplete, &CompleteResult{ResultType: x.resultType(), Completion: Completion{Values: []string{}}})

	// Logging.
	if f.loggingSetLevel {
		for l := LevelDebug; l <= LevelEmergency; l++ {
			req("logging/setLevel "+l.String(), MethodLoggingSetLevel, &SetLevelParams{Meta: rm(), Level: l})
		}
		res("logging/setLevel", MethodLoggingSetLevel, &EmptyResult{})
	}
	notif("message", NotificationMessage, &LoggingMessageNotificationParams{Level: LevelError, Logger: "db", Data: json.RawMessage(`{"msg":"connection lost","retry":3}`)})
	notif("message string", NotificationMessage, &LoggingMessageNotificationParams{Level: LevelDebug, Data: json.RawMessage(`"x"`)})
	notif("message null", NotificationMessage, &LoggingMessageNotificationParams{Level: LevelEmergency, Data: json.RawMessage(`null`)})

	// Client features: JSON-RPC requests from the server in legacy revisions,
	// inputRequests in 2026 (above).
	if f.serverRequests {
		req("sampling/createMessage", MethodSamplingCreateMessage, x.createMessageParams())
		for _, r := range x.createMessageResults() {
			res("sampling/createMessage", MethodSamplingCreateMessage, r)
		}
		req("roots/list", MethodRootsList, &ListRootsParams{Meta: rm()})
		res("roots/list", MethodRootsList, x.roots())
		res("roots/list empty", MethodRootsList, &ListRootsResult{Roots: []*Root{}})
		if f.elicitation {
			for _, p := range x.elicitParams() {
				req("elicitation/create "+string(p.Mode), MethodElicitationCreate, p)
			}
			for _, r := range x.elicitResults() {
				res("elicitation/create "+string(r.Action), MethodElicitationCreate, r)
			}
		}
	} else {
		def("CreateMessageRequestParams", "CreateMessageRequestParams", x.createMessageParams())
		for _, r := range x.createMessageResults() {
			def("CreateMessageResult", "CreateMessageResult", r)
		}
		def("ListRootsResult", "ListRootsResult", x.roots())
		for _, r := range x.elicitResults() {
			def("ElicitResult "+string(r.Action), "ElicitResult", r)
		}
		for _, p := range x.elicitParams() {
			def("ElicitRequestParams "+string(p.Mode), "ElicitRequestParams", p)
		}
	}
	if f.rootsListChanged {
		notif("roots/list_changed", NotificationRootsListChanged, &rootsListChangedNotificationParams{})
	}
	if f.elicitationComplete {
		notif("elicitation/complete", NotificationElicitationComplete, &ElicitationCompleteNotificationParams{ElicitationID: "el-1"})
	}

	// The task requests and results (2025-11-25) are package tasks's;
	// its TestWireValidate checks them against the schema.

	// subscriptions/listen (2026).
	if f.subscriptionsListen {
		filter := SubscriptionFilter{ToolsListChanged: true, PromptsListChanged: true, ResourcesListChanged: true, ResourceSubscriptions: []string{"file:///a.txt"}}
		req("subscriptions/listen", MethodSubscriptionsListen, &ListenParams{Meta: rm(), Notifications: filter})
		req("subscriptions/listen tasks", MethodSubscriptionsListen, &ListenParams{Meta: rm(), Notifications: SubscriptionFilter{TaskIDs: []string{"t1"}}})
		notif("subscriptions/acknowledged", NotificationSubscriptionsAcknowledged, &SubscriptionsAcknowledgedNotificationParams{Meta: &Meta{SubscriptionID: jsonrpc.StringID("L1")}, Notifications: SubscriptionFilter{ToolsListChanged: true}})
		res("subscriptions/listen", MethodSubscriptionsListen, &ListenResult{Meta: &Meta{SubscriptionID: jsonrpc.StringID("L1"), ServerInfo: x.impl()}, ResultType: ResultTypeComplete})
	}

	// Errors.
	errResp("method not found", jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: x"))
	errResp("resource not found", jsonrpc.NewError(f.resourceNotFoundCode, "no such resource").WithData(map[string]string{"uri": "file:///nope"}))
	errResp("legacy version error", jsonrpc.NewError(jsonrpc.CodeInvalidParams, "unsupported protocol version").WithData(UnsupportedProtocolVersionData{Supported: supportedVersions, Requested: "1999-01-01"}))
	if f.modernErrors {
		errResp("unsupported version", jsonrpc.NewError(CodeUnsupportedProtocolVersion, "unsupported").WithData(UnsupportedProtocolVersionData{Supported: []string{Version20260728}, Requested: "v999"}))
		errResp("missing capability", jsonrpc.NewError(CodeMissingRequiredClientCapability, "needs sampling").WithData(MissingRequiredClientCapabilityData{RequiredCapabilities: &ClientCapabilities{Sampling: &SamplingCapabilities{}}}))
		errResp("missing capability nil", jsonrpc.NewError(CodeMissingRequiredClientCapability, "needs something").WithData(MissingRequiredClientCapabilityData{}))
		errResp("header mismatch", jsonrpc.NewError(CodeHeaderMismatch, "Mcp-Method header does not match"))
	}
	if f.urlElicitationRequiredError {
		errResp("url elicitation required", jsonrpc.NewError(CodeURLElicitationRequired, "sign in first").WithData(URLElicitationRequiredData{Elicitations: []*ElicitParams{{Mode: ElicitModeURL, ElicitationID: "e", URL: "https://example.com/x", Message: "m"}}}))
	}
	return s
}

// encodeSample returns the full JSON-RPC message carrying s.
func encodeSample(t *testing.T, s sample) []byte {
	t.Helper()
	switch s.kind {
	case kindError:
		return jsonrpc.NewErrorResponse(jsonrpc.Int64ID(5), s.value.(*jsonrpc.Error)).AppendJSON(nil)
	case kindDef:
		return mustMarshal(t, s.value)
	}
	raw := mustMarshal(t, s.value)
	switch s.kind {
	case kindRequest:
		return jsonrpc.NewRequest(jsonrpc.StringID("req-1"), s.method, raw).AppendJSON(nil)
	case kindNotification:
		return jsonrpc.NewNotification(s.method, raw).AppendJSON(nil)
	default:
		return jsonrpc.NewResponse(jsonrpc.Int64ID(1), raw).AppendJSON(nil)
	}
}

// mustMarshal encodes v without HTML escaping, as a transport should: with
// escaping, raw members such as schemas would change bytes (not meaning).
func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := marshalJSONNoEscape(v)
	if err != nil {
		t.Fatalf("marshal %T: %v", v, err)
	}
	return b
}

// TestSamplesValidate puts every protocol value in a JSON-RPC message and
// validates it against the official schema of each revision.
func TestSamplesValidate(t *testing.T) {
	for _, rev := range supportedVersions {
		x := fixtures{rev: rev, f: features(rev)}
		samples := x.samples()
		if len(samples) < 40 {
			t.Fatalf("%s: only %d samples", rev, len(samples))
		}
		for _, s := range samples {
			t.Run(rev+"/"+s.name, func(t *testing.T) {
				msg := encodeSample(t, s)
				var err error
				if s.kind == kindDef {
					err = specschema.ValidateDef(rev, s.def, msg)
				} else {
					method := ""
					if s.kind == kindResult {
						method = s.method
					}
					err = specschema.ValidateMessage(rev, msg, method)
				}
				if err != nil {
					t.Fatalf("%s\n%v", msg, err)
				}
			})
		}
	}
}

// TestSamplesRoundTrip decodes every encoded value into a fresh value of the
// same type and checks it is equal, and re-encodes to the same bytes.
func TestSamplesRoundTrip(t *testing.T) {
	for _, rev := range supportedVersions {
		x := fixtures{rev: rev, f: features(rev)}
		for _, s := range x.samples() {
			t.Run(rev+"/"+s.name, func(t *testing.T) {
				b := mustMarshal(t, s.value)
				got := reflect.New(reflect.TypeOf(s.value).Elem()).Interface()
				if err := json.Unmarshal(b, got); err != nil {
					t.Fatalf("unmarshal %s: %v", b, err)
				}
				if !reflect.DeepEqual(got, s.value) {
					t.Errorf("round trip changed the value\n got: %#v\nwant: %#v\njson: %s", got, s.value, b)
				}
				if b2 := mustMarshal(t, got); !bytes.Equal(b, b2) {
					t.Errorf("re-encoding differs\n first: %s\nsecond: %s", b, b2)
				}
			})
		}
	}
}
