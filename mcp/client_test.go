package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

func userText(s string) []*mcp.SamplingMessage {
	return []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{mcp.NewTextContent(s)}}}
}

func TestSampling(t *testing.T) {
	forEachRev(t, func(t *testing.T, rev string) {
		seen := make(chan *mcp.CreateMessageParams, 1)
		e := connect(t, rev, nil, &mcp.ClientOptions{
			CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
				seen <- req.Params
				p := req.Params
				if len(p.Tools) > 0 {
					return &mcp.CreateMessageResult{
						Role:       mcp.RoleAssistant,
						Content:    []mcp.Content{&mcp.ToolUseContent{ID: "call-1", Name: p.Tools[0].Name, Input: json.RawMessage(`{"x":2}`)}},
						Model:      "test-model",
						StopReason: mcp.StopReasonToolUse,
					}, nil
				}
				if p.SystemPrompt == "fail" {
					return nil, jsonrpc.NewError(-1, "user rejected sampling")
				}
				last := p.Messages[len(p.Messages)-1].Content[0].(*mcp.TextContent).Text
				return &mcp.CreateMessageResult{
					Role:       mcp.RoleAssistant,
					Content:    []mcp.Content{mcp.NewTextContent("echo: " + last)},
					Model:      "test-model",
					StopReason: mcp.StopReasonEndTurn,
				}, nil
			},
		})
		ctx := testCtx(t)
		if caps := e.ss.ClientCapabilities(); caps.Sampling == nil {
			t.Fatalf("client did not declare sampling: %+v", caps)
		}
		temp := 0.0
		res, err := mcp.SessionCreateMessage(e.ss, ctx, &mcp.CreateMessageParams{
			Messages:         userText("hello"),
			SystemPrompt:     "be brief",
			MaxTokens:        50,
			Temperature:      &temp,
			StopSequences:    []string{"\n\n"},
			ModelPreferences: &mcp.ModelPreferences{Hints: []mcp.ModelHint{{Name: "claude"}}},
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.Model != "test-model" || res.Role != mcp.RoleAssistant || res.StopReason != mcp.StopReasonEndTurn ||
			len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "echo: hello" {
			t.Errorf("result %+v", res)
		}
		p := recv(t, seen, "the sampling request")
		if p.MaxTokens != 50 || p.SystemPrompt != "be brief" || p.Temperature == nil || *p.Temperature != 0 ||
			p.ModelPreferences == nil || p.ModelPreferences.Hints[0].Name != "claude" {
			t.Errorf("client saw params %+v", p)
		}

		_, err = mcp.SessionCreateMessage(e.ss, ctx, &mcp.CreateMessageParams{Messages: userText("x"), SystemPrompt: "fail", MaxTokens: 1})
		wantCode(t, err, -1)
		recv(t, seen, "the sampling request")

		// Tools in sampling need 2025-11-25 and the sampling.tools capability.
		withTools := &mcp.CreateMessageParams{
			Messages:   userText("add 2"),
			MaxTokens:  50,
			Tools:      []*mcp.Tool{{Name: "add", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"integer"}}}`)}},
			ToolChoice: &mcp.ToolChoice{Mode: mcp.ToolChoiceAuto},
		}
		res, err = mcp.SessionCreateMessage(e.ss, ctx, withTools)
		if !atLeast(rev, mcp.Version20251125) {
			if !errors.Is(err, mcp.ErrCapability) {
				t.Errorf("sampling with tools at %s: %v, want ErrCapability", rev, err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		p = recv(t, seen, "the sampling request")
		if len(p.Tools) != 1 || p.Tools[0].Name != "add" || p.ToolChoice == nil || p.ToolChoice.Mode != mcp.ToolChoiceAuto {
			t.Errorf("client saw tools %+v, choice %+v", p.Tools, p.ToolChoice)
		}
		use, ok := res.Content[0].(*mcp.ToolUseContent)
		if !ok || use.Name != "add" || string(use.Input) != `{"x":2}` || res.StopReason != mcp.StopReasonToolUse {
			t.Errorf("tool use result %+v", res.Content[0])
		}
		// The conversation goes on with the tool's result.
		_, err = mcp.SessionCreateMessage(e.ss, ctx, &mcp.CreateMessageParams{
			Messages: []*mcp.SamplingMessage{
				{Role: mcp.RoleUser, Content: []mcp.Content{mcp.NewTextContent("add 2")}},
				{Role: mcp.RoleAssistant, Content: []mcp.Content{use}},
				{Role: mcp.RoleUser, Content: []mcp.Content{&mcp.ToolResultContent{ToolUseID: "call-1", Content: []mcp.Content{mcp.NewTextContent("4")}}}},
			},
			MaxTokens: 50,
			Tools:     withTools.Tools,
		})
		if err != nil {
			t.Fatal(err)
		}
		p = recv(t, seen, "the sampling request")
		if tr, ok := p.Messages[2].Content[0].(*mcp.ToolResultContent); !ok || tr.ToolUseID != "call-1" {
			t.Errorf("tool result message %+v", p.Messages[2].Content[0])
		}
	})
}

func TestSamplingCapabilityMissing(t *testing.T) {
	forEachRev(t, func(t *testing.T, rev string) {
		e := connect(t, rev, nil, nil)
		ctx := testCtx(t)
		_, err := mcp.SessionCreateMessage(e.ss, ctx, &mcp.CreateMessageParams{Messages: userText("x"), MaxTokens: 1})
		if !errors.Is(err, mcp.ErrCapability) {
			t.Errorf("CreateMessage = %v, want ErrCapability", err)
		}
		// A client that declares sampling without tools.
		e2 := connect(t, rev, nil, &mcp.ClientOptions{
			Capabilities: &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}},
			CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
				return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: []mcp.Content{mcp.NewTextContent("ok")}, Model: "m"}, nil
			},
		})
		_, err = mcp.SessionCreateMessage(e2.ss, ctx, &mcp.CreateMessageParams{Messages: userText("x"), MaxTokens: 1, Tools: []*mcp.Tool{{Name: "t"}}})
		if !errors.Is(err, mcp.ErrCapability) {
			t.Errorf("CreateMessage with tools = %v, want ErrCapability", err)
		}
		if _, err := mcp.SessionCreateMessage(e2.ss, ctx, &mcp.CreateMessageParams{Messages: userText("x"), MaxTokens: 1}); err != nil {
			t.Errorf("CreateMessage without tools: %v", err)
		}
		e.close(t)
		e2.close(t)
		for _, w := range []*wireLog{e.wire, e2.wire} {
			if n := len(w.requests("server", mcp.MethodSamplingCreateMessage)); n > 1 {
				t.Errorf("server sent %d sampling requests, want at most the one allowed", n)
			}
		}
		// A client that lacks the handler refuses the request itself.
		e3 := connect(t, rev, nil, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}}})
		_, err = mcp.SessionCreateMessage(e3.ss, ctx, &mcp.CreateMessageParams{Messages: userText("x"), MaxTokens: 1})
		wantCode(t, err, jsonrpc.CodeMethodNotFound)
	})
}

// elicitForm is a form using every primitive schema. Defaults (SEP-1034)
// and the SEP-1330 enum forms exist from 2025-11-25.
func elicitForm(rev string) *mcp.ElicitSchema {
	minLen, maxItems := 1, 2
	min, max := 0.0, 150.0
	s := &mcp.ElicitSchema{
		Properties: []mcp.ElicitProperty{
			{Name: "name", Schema: &mcp.PrimitiveSchema{Type: "string", Title: "Name", MinLength: &minLen}},
			{Name: "email", Schema: &mcp.PrimitiveSchema{Type: "string", Format: "email"}},
			{Name: "age", Schema: &mcp.PrimitiveSchema{Type: "integer", Minimum: &min, Maximum: &max}},
			{Name: "subscribe", Schema: &mcp.PrimitiveSchema{Type: "boolean", Default: true}},
			{Name: "size", Schema: &mcp.PrimitiveSchema{Type: "string", Enum: []string{"s", "m", "l"}, EnumNames: []string{"Small", "Medium", "Large"}}},
		},
		Required: []string{"name"},
	}
	if !atLeast(rev, mcp.Version20251125) {
		return s
	}
	s.Properties = append(s.Properties,
		mcp.ElicitProperty{Name: "nickname", Schema: &mcp.PrimitiveSchema{Type: "string", Default: "friend"}},
		// The 2025-11-25 schema.json allows only integers among the numbers
		// in ElicitResult content (schema.ts says number), so the default
		// here is integral.
		mcp.ElicitProperty{Name: "score", Schema: &mcp.PrimitiveSchema{Type: "number", Default: 2.0}},
		mcp.ElicitProperty{Name: "color", Schema: &mcp.PrimitiveSchema{Type: "string", Enum: []string{"red", "green"}, Default: "green"}},
		mcp.ElicitProperty{Name: "plan", Schema: &mcp.PrimitiveSchema{Type: "string", OneOf: []mcp.EnumOption{{Const: "free", Title: "Free"}, {Const: "pro", Title: "Pro"}}}},
		mcp.ElicitProperty{Name: "tags", Schema: &mcp.PrimitiveSchema{Type: "array", Items: &mcp.EnumItems{Type: "string", Enum: []string{"a", "b", "c"}}, MaxItems: &maxItems, Default: []string{"a"}}},
		mcp.ElicitProperty{Name: "langs", Schema: &mcp.PrimitiveSchema{Type: "array", Items: &mcp.EnumItems{AnyOf: []mcp.EnumOption{{Const: "go", Title: "Go"}, {Const: "rs", Title: "Rust"}}}}},
	)
	return s
}

func TestElicitation(t *testing.T) {
	forEachRev(t, func(t *testing.T, rev string) {
		seen := make(chan *mcp.ElicitParams, 1)
		e := connect(t, rev, nil, &mcp.ClientOptions{
			ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				seen <- req.Params
				switch req.Params.Message {
				case "decline":
					return &mcp.ElicitResult{Action: mcp.ElicitActionDecline}, nil
				case "cancel":
					return &mcp.ElicitResult{Action: mcp.ElicitActionCancel}, nil
				}
				content := map[string]any{"name": "Ada", "age": 36, "size": "m"}
				if atLeast(rev, mcp.Version20251125) {
					content["langs"] = []string{"go", "rs"}
				}
				return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: content}, nil
			},
		})
		ctx := testCtx(t)
		form := elicitForm(rev)
		res, err := mcp.SessionElicit(e.ss, ctx, &mcp.ElicitParams{Message: "Who are you?", RequestedSchema: form})
		if !atLeast(rev, mcp.Version20250618) {
			// Elicitation does not exist before 2025-06-18.
			if !errors.Is(err, mcp.ErrCapability) {
				t.Errorf("Elicit at %s = %v, want ErrCapability", rev, err)
			}
			e.close(t)
			if n := len(e.wire.requests("server", mcp.MethodElicitationCreate)); n != 0 {
				t.Errorf("server sent elicitation/create at %s", rev)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		// The client saw the form as sent, properties in order.
		p := recv(t, seen, "the elicitation request")
		gotForm, _ := json.Marshal(p.RequestedSchema)
		wantForm, _ := json.Marshal(form)
		if string(gotForm) != string(wantForm) {
			t.Errorf("client saw form\n\t%s\nwant\n\t%s", gotForm, wantForm)
		}
		if p.Mode != "" && p.Mode != mcp.ElicitModeForm {
			t.Errorf("mode %q", p.Mode)
		}
		want := map[string]any{"name": "Ada", "age": 36.0, "size": "m", "subscribe": true}
		if atLeast(rev, mcp.Version20251125) {
			// SEP-1034: the client fills in the defaults the user left.
			want["nickname"] = "friend"
			want["score"] = 2.0
			want["color"] = "green"
			want["tags"] = []any{"a"}
			want["langs"] = []any{"go", "rs"}
		}
		if res.Action != mcp.ElicitActionAccept || !reflect.DeepEqual(res.Content, want) {
			t.Errorf("got %s %v\nwant %v", res.Action, res.Content, want)
		}
		for _, action := range []mcp.ElicitAction{mcp.ElicitActionDecline, mcp.ElicitActionCancel} {
			res, err := mcp.SessionElicit(e.ss, ctx, &mcp.ElicitParams{Message: string(action), RequestedSchema: form})
			recv(t, seen, "the elicitation request")
			if err != nil || res.Action != action || res.Content != nil {
				t.Errorf("%s: %v %+v", action, err, res)
			}
		}
		// This client did not declare URL mode.
		_, err = mcp.SessionElicit(e.ss, ctx, &mcp.ElicitParams{Mode: mcp.ElicitModeURL, Message: "Sign in", URL: "https://example.com/login", ElicitationID: "e1"})
		if !errors.Is(err, mcp.ErrCapability) {
			t.Errorf("URL elicitation to a form-only client: %v, want ErrCapability", err)
		}
	})
}

func TestElicitationURL(t *testing.T) {
	forEachRev(t, func(t *testing.T, rev string) {
		seen := make(chan *mcp.ElicitParams, 1)
		e := connect(t, rev, nil, &mcp.ClientOptions{
			ElicitationURL: true,
			ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				seen <- req.Params
				return &mcp.ElicitResult{Action: mcp.ElicitActionAccept}, nil
			},
		})
		ctx := testCtx(t)
		res, err := mcp.SessionElicit(e.ss, ctx, &mcp.ElicitParams{Mode: mcp.ElicitModeURL, Message: "Sign in", URL: "https://example.com/login", ElicitationID: "e1"})
		if !atLeast(rev, mcp.Version20251125) {
			// URL mode does not exist before 2025-11-25.
			if !errors.Is(err, mcp.ErrCapability) {
				t.Errorf("URL Elicit at %s = %v, want ErrCapability", rev, err)
			}
			return
		}
		if err != nil || res.Action != mcp.ElicitActionAccept {
			t.Fatalf("%v %+v", err, res)
		}
		p := recv(t, seen, "the elicitation request")
		if p.Mode != mcp.ElicitModeURL || p.URL != "https://example.com/login" || p.ElicitationID != "e1" {
			t.Errorf("client saw %+v", p)
		}
		if caps := e.ss.ClientCapabilities().Elicitation; caps == nil || caps.URL == nil || caps.Form == nil {
			t.Errorf("elicitation capability %+v", caps)
		}
	})
}

func TestRoots(t *testing.T) {
	forEachRev(t, func(t *testing.T, rev string) {
		changed := make(chan *mcp.ServerSession, 1)
		s := mcp.NewServer(serverImpl, &mcp.ServerOptions{
			RootsListChangedHandler: func(_ context.Context, ss *mcp.ServerSession) { changed <- ss },
		})
		mcp.AddTool(s, &mcp.Tool{Name: "roots"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
			res, err := req.ListRoots(ctx)
			if err != nil {
				return "", err
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			b, _ := json.Marshal(uris)
			return string(b), nil
		})
		e := connect(t, rev, s, &mcp.ClientOptions{Roots: []*mcp.Root{{URI: "file:///home/ada/project", Name: "project"}}})
		ctx := testCtx(t)
		if caps := e.ss.ClientCapabilities().Roots; caps == nil || !caps.ListChanged {
			t.Errorf("roots capability %+v", caps)
		}
		res, err := mcp.SessionListRoots(e.ss, ctx, nil)
		if err != nil || len(res.Roots) != 1 || res.Roots[0].URI != "file:///home/ada/project" || res.Roots[0].Name != "project" {
			t.Fatalf("ListRoots: %v %+v", err, res)
		}
		e.client.SetRoots(&mcp.Root{URI: "file:///a"}, &mcp.Root{URI: "file:///b"})
		if got := recv(t, changed, "roots/list_changed"); got != e.ss {
			t.Error("RootsListChangedHandler got another session")
		}
		tr, err := e.callTool(ctx, "roots", `{}`)
		if err != nil || text(t, tr) != `["file:///a","file:///b"]` {
			t.Errorf("roots from a tool: %v %+v", err, tr)
		}
		e.client.SetRoots()
		recv(t, changed, "roots/list_changed")
		res, err = mcp.SessionListRoots(e.ss, ctx, nil)
		if err != nil || res.Roots == nil || len(res.Roots) != 0 {
			t.Errorf("ListRoots after SetRoots(): %v %+v", err, res)
		}
	})
}

func TestRootsCapabilityMissing(t *testing.T) {
	forEachRev(t, func(t *testing.T, rev string) {
		s := mcp.NewServer(serverImpl, &mcp.ServerOptions{
			RootsListChangedHandler: func(context.Context, *mcp.ServerSession) { t.Error("roots/list_changed from a client without roots") },
		})
		e := connect(t, rev, s, nil)
		ctx := testCtx(t)
		if _, err := mcp.SessionListRoots(e.ss, ctx, nil); !errors.Is(err, mcp.ErrCapability) {
			t.Errorf("ListRoots = %v, want ErrCapability", err)
		}
		// A client without the roots capability does not announce changes.
		e.client.SetRoots(&mcp.Root{URI: "file:///x"})
		if err := e.cs.Ping(ctx); err != nil {
			t.Fatal(err)
		}
		e.close(t)
		if n := len(e.wire.notifications("client", mcp.NotificationRootsListChanged)); n != 0 {
			t.Errorf("client without the roots capability sent %d roots/list_changed", n)
		}
		// A client that declares roots but has none answers with an empty list.
		e2 := connect(t, rev, nil, &mcp.ClientOptions{Roots: []*mcp.Root{}})
		res, err := mcp.SessionListRoots(e2.ss, ctx, nil)
		if err != nil || res.Roots == nil || len(res.Roots) != 0 {
			t.Errorf("ListRoots from a client with no roots: %v %+v", err, res)
		}
		// A client that declares the capability without having roots
		// configured refuses roots/list.
		e3 := connect(t, rev, nil, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{Roots: &mcp.RootCapabilities{}}})
		_, err = mcp.SessionListRoots(e3.ss, ctx, nil)
		wantCode(t, err, jsonrpc.CodeMethodNotFound)
	})
}

// TestClientAnswers drives a real client from a hand-written server: how
// the client answers requests it does not support, and that it ignores
// notifications it cannot use.
func TestClientAnswers(t *testing.T) {
	a, b := transport.Pipe()
	w := newWireLog(mcp.LatestStatefulVersion)
	completed := make(chan string, 1)
	cs, srv := connectToRaw(t, mcp.NewClient(clientImpl, &mcp.ClientOptions{
		ProtocolVersion: mcp.LatestStatefulVersion,
		ElicitationCompleteHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ElicitationCompleteNotificationParams) {
			completed <- p.ElicitationID
		},
	}), w.stream("client", a), b)
	defer func() {
		cs.Close()
		w.check(t)
	}()
	ctx := testCtx(t)
	steps := []struct {
		method, params string
		wantCode       int64  // 0: success
		want           string // the result
	}{
		{"ping", "", 0, "{}"},
		{"sampling/createMessage", `{"messages":[],"maxTokens":1}`, jsonrpc.CodeMethodNotFound, ""},
		{"elicitation/create", `{"message":"m","requestedSchema":{"type":"object","properties":{}}}`, jsonrpc.CodeMethodNotFound, ""},
		{"roots/list", "", jsonrpc.CodeMethodNotFound, ""},
		{"tools/list", "", jsonrpc.CodeMethodNotFound, ""},
		{"no/such/method", `{}`, jsonrpc.CodeMethodNotFound, ""},
	}
	for i, st := range steps {
		// Notifications the client cannot use change nothing.
		for _, n := range []string{
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"nobody","progress":1}}`,
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12345}}`,
			`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
			`{"jsonrpc":"2.0","method":"notifications/unknown","params":{"x":1}}`,
			`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"bogus","data":1}}`,
		} {
			if err := srv.Write(ctx, jsonrpc.Decode([]byte(n))); err != nil {
				t.Fatal(err)
			}
		}
		id := jsonrpc.Int64ID(int64(100 + i))
		var params json.RawMessage
		if st.params != "" {
			params = json.RawMessage(st.params)
		}
		if err := srv.Write(ctx, jsonrpc.NewRequest(id, st.method, params)); err != nil {
			t.Fatal(err)
		}
		m, err := srv.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case m.ID != id || m.Method != "":
			t.Errorf("%s: got %s, want its response", st.method, m.AppendJSON(nil))
		case st.wantCode != 0 && (m.Error == nil || m.Error.Code != st.wantCode):
			t.Errorf("%s: got %s, want error %d", st.method, m.AppendJSON(nil), st.wantCode)
		case st.wantCode == 0 && string(m.Result) != st.want:
			t.Errorf("%s: got %s, want result %s", st.method, m.AppendJSON(nil), st.want)
		}
	}
	// The server has no API for notifications/elicitation/complete (URL
	// mode, 2025-11-25), so send it by hand.
	if err := srv.Write(ctx, jsonrpc.NewNotification(mcp.NotificationElicitationComplete, json.RawMessage(`{"elicitationId":"e42"}`))); err != nil {
		t.Fatal(err)
	}
	if got := recv(t, completed, "notifications/elicitation/complete"); got != "e42" {
		t.Errorf("ElicitationCompleteHandler got %q", got)
	}
	// The session still works both ways.
	pinged := make(chan error, 1)
	go func() { pinged <- cs.Ping(ctx) }()
	m, err := srv.Read(ctx)
	if err != nil || m.Method != mcp.MethodPing {
		t.Fatalf("got %v %v, want the client's ping", m, err)
	}
	if err := srv.Write(ctx, jsonrpc.NewResponse(m.ID, nil)); err != nil {
		t.Fatal(err)
	}
	if err := recv(t, pinged, "the ping"); err != nil {
		t.Errorf("client ping: %v", err)
	}
}

// connectToRaw connects c over cliEnd to a hand-written server on srvEnd
// that completes the handshake. It returns the session and srvEnd, for the
// test to drive.
func connectToRaw(t *testing.T, c *mcp.Client, cliEnd, srvEnd jsonrpc.Stream) (*mcp.ClientSession, jsonrpc.Stream) {
	t.Helper()
	ctx := testCtx(t)
	handshake := make(chan error, 1)
	go func() {
		m, err := srvEnd.Read(ctx)
		if err != nil {
			handshake <- err
			return
		}
		res := `{"protocolVersion":"` + mcp.LatestStatefulVersion + `","capabilities":{},"serverInfo":{"name":"raw","version":"1"}}`
		if err := srvEnd.Write(ctx, jsonrpc.NewResponse(m.ID, json.RawMessage(res))); err != nil {
			handshake <- err
			return
		}
		m, err = srvEnd.Read(ctx) // notifications/initialized
		if err == nil && m.Method != mcp.NotificationInitialized {
			err = errors.New("got " + m.Method + ", want notifications/initialized")
		}
		handshake <- err
	}()
	cs, err := c.Connect(ctx, cliEnd)
	if err != nil {
		t.Fatal(err)
	}
	if err := recv(t, handshake, "the handshake"); err != nil {
		t.Fatal(err)
	}
	return cs, srvEnd
}

// TestElicitationURLNotDeclared checks that a client that did not take URL
// mode (ClientOptions.ElicitationURL) never hands a URL-mode request to its
// handler, whether it arrives as a server request (2025-11-25) or as an
// input request of a 2026-07-28 result. The capabilities are declared by
// hand, so the server believes the client takes URLs and asks.
func TestElicitationURLNotDeclared(t *testing.T) {
	for _, rev := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run(rev, func(t *testing.T) {
			s := mcp.NewServer(serverImpl, nil)
			mcp.AddTool(s, &mcp.Tool{Name: "login"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
				res, err := req.Elicit(ctx, &mcp.ElicitParams{Mode: mcp.ElicitModeURL, Message: "Sign in", URL: "https://example.com/login", ElicitationID: "e1"})
				if err != nil {
					return "", err
				}
				return string(res.Action), nil
			})
			asked := false
			e := connect(t, rev, s, &mcp.ClientOptions{
				Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &struct{}{}, URL: &struct{}{}}},
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked = true
					return &mcp.ElicitResult{Action: mcp.ElicitActionAccept}, nil
				},
			})
			// The tool returns the client's -32602 as it is, at 2025-11-25;
			// at 2026-07-28 the client fails the call itself.
			_, err := e.callTool(testCtx(t), "login", `{}`)
			if asked {
				t.Error("the handler was asked a URL-mode question the client did not take")
			}
			if je := wantCode(t, err, jsonrpc.CodeInvalidParams); !strings.Contains(je.Message, "URL elicitation") {
				t.Errorf("error %q does not name URL elicitation", je.Message)
			}
		})
	}
}
