package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

func TestInitialize(t *testing.T) {
	forEachRev(t, func(t *testing.T, rev string) {
		inited := make(chan *mcp.ServerSession, 1)
		s := mcp.NewServer(serverImpl, &mcp.ServerOptions{
			Instructions:       "Use the echo tool.",
			InitializedHandler: func(_ context.Context, ss *mcp.ServerSession) { inited <- ss },
		})
		s.AddTool(&mcp.Tool{Name: "echo"}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, nil
		})
		e := connect(t, rev, s, &mcp.ClientOptions{Roots: []*mcp.Root{}})

		if got := e.cs.ProtocolVersion(); got != rev {
			t.Errorf("client ProtocolVersion = %q, want %q", got, rev)
		}
		if got := e.ss.ProtocolVersion(); got != rev {
			t.Errorf("server ProtocolVersion = %q, want %q", got, rev)
		}
		res := e.cs.InitializeResult()
		if res.ServerInfo == nil || res.ServerInfo.Name != serverImpl.Name || res.ServerInfo.Version != serverImpl.Version {
			t.Errorf("ServerInfo = %+v, want %+v", res.ServerInfo, serverImpl)
		}
		if res.Instructions != "Use the echo tool." {
			t.Errorf("Instructions = %q", res.Instructions)
		}
		caps := e.cs.ServerCapabilities()
		if caps.Tools == nil || !caps.Tools.ListChanged {
			t.Errorf("tools capability = %+v, want listChanged", caps.Tools)
		}
		if caps.Logging == nil {
			t.Error("logging capability not advertised")
		}
		if caps.Prompts != nil || caps.Resources != nil || caps.Completions != nil {
			t.Errorf("server advertises features it lacks: %+v", caps)
		}
		if got := e.ss.ClientInfo(); got == nil || got.Name != clientImpl.Name || got.Version != clientImpl.Version {
			t.Errorf("ClientInfo = %+v, want %+v", got, clientImpl)
		}
		if cc := e.ss.ClientCapabilities(); cc.Roots == nil || !cc.Roots.ListChanged || cc.Sampling != nil || cc.Elicitation != nil {
			t.Errorf("ClientCapabilities = %+v, want roots only", cc)
		}
		if got := recv(t, inited, "InitializedHandler"); got != e.ss {
			t.Error("InitializedHandler got another session")
		}
		e.close(t)
		if n := len(e.wire.requests("client", mcp.MethodInitialize)); n != 1 {
			t.Errorf("client sent %d initialize requests", n)
		}
		if n := len(e.wire.notifications("client", mcp.NotificationInitialized)); n != 1 {
			t.Errorf("client sent %d initialized notifications", n)
		}
	})
}

func TestVersionNegotiation(t *testing.T) {
	tests := []struct {
		ask, want string
	}{
		{mcp.Version20241105, mcp.Version20241105},
		{mcp.Version20250326, mcp.Version20250326},
		{mcp.Version20250618, mcp.Version20250618},
		{mcp.Version20251125, mcp.Version20251125},
		{"1999-01-01", mcp.LatestStatefulVersion},
		{"2099-12-31", mcp.LatestStatefulVersion},
		{"not a version", mcp.LatestStatefulVersion},
	}
	for _, tt := range tests {
		t.Run(tt.ask, func(t *testing.T) {
			t.Parallel()
			// The wire is validated at the negotiated revision.
			e := connect(t, tt.want, nil, &mcp.ClientOptions{ProtocolVersion: tt.ask})
			if got := e.cs.ProtocolVersion(); got != tt.want {
				t.Errorf("client ProtocolVersion = %q, want %q", got, tt.want)
			}
			if got := e.ss.ProtocolVersion(); got != tt.want {
				t.Errorf("server ProtocolVersion = %q, want %q", got, tt.want)
			}
			if err := e.cs.Ping(testCtx(t)); err != nil {
				t.Error(err)
			}
			e.close(t)
			init := e.wire.requests("client", mcp.MethodInitialize)
			var p mcp.InitializeParams
			if len(init) != 1 || json.Unmarshal(init[0].m.Params, &p) != nil || p.ProtocolVersion != tt.ask {
				t.Errorf("client did not ask for %q: %+v", tt.ask, init)
			}
		})
	}
}

// fakeServer answers the initialize request read from s with result (or
// with errResult), then reports every later message it reads until the
// stream ends.
func fakeServer(t *testing.T, s jsonrpc.Stream, result string, errResult *jsonrpc.Error) <-chan []*jsonrpc.Message {
	out := make(chan []*jsonrpc.Message, 1)
	go func() {
		defer s.Close()
		ctx := context.Background()
		var later []*jsonrpc.Message
		defer func() { out <- later }()
		m, err := s.Read(ctx)
		if err != nil || m.Method != mcp.MethodInitialize {
			later = append(later, m)
			return
		}
		switch {
		case errResult != nil:
			err = s.Write(ctx, jsonrpc.NewErrorResponse(m.ID, errResult))
		case result != "":
			err = s.Write(ctx, jsonrpc.NewResponse(m.ID, json.RawMessage(result)))
		}
		if err != nil {
			return
		}
		for {
			m, err := s.Read(ctx)
			if err != nil {
				return
			}
			later = append(later, m)
		}
	}()
	return out
}

func TestClientRefusesBadInitialize(t *testing.T) {
	tests := []struct {
		name    string
		result  string
		err     *jsonrpc.Error
		wantErr string
	}{
		{
			name:    "unsupported version",
			result:  `{"protocolVersion":"1999-01-01","capabilities":{},"serverInfo":{"name":"old","version":"0"}}`,
			wantErr: "unsupported protocol version",
		},
		{
			name:    "empty version",
			result:  `{"protocolVersion":"","capabilities":{},"serverInfo":{"name":"old","version":"0"}}`,
			wantErr: "unsupported protocol version",
		},
		{
			name:    "result of the wrong shape",
			result:  `{"protocolVersion":5}`,
			wantErr: "initialize",
		},
		{
			name:    "error response",
			err:     jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Unsupported protocol version"),
			wantErr: "Unsupported protocol version",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := transport.Pipe()
			later := fakeServer(t, b, tt.result, tt.err)
			c := mcp.NewClient(clientImpl, statefulOpts)
			cs, err := c.Connect(testCtx(t), a)
			if err == nil {
				cs.Close()
				t.Fatal("Connect succeeded")
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Connect error %q does not mention %q", err, tt.wantErr)
			}
			// The client hung up without sending initialized (or anything).
			if got := recv(t, later, "fake server"); len(got) != 0 {
				t.Errorf("client sent %d messages after a failed initialize: %+v", len(got), got[0])
			}
		})
	}
}

// TestInitializeNotCancelled checks that a client that gives up on
// initialize does not send notifications/cancelled for it, which the
// specification forbids.
func TestInitializeNotCancelled(t *testing.T) {
	a, b := transport.Pipe()
	later := fakeServer(t, b, "", nil) // never answers
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	cs, err := mcp.NewClient(clientImpl, statefulOpts).Connect(ctx, a)
	if err == nil {
		cs.Close()
		t.Fatal("Connect succeeded")
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Connect error = %v, want a deadline error", err)
	}
	if got := recv(t, later, "fake server"); len(got) != 0 {
		t.Errorf("client sent %d messages after initialize timed out, first %s", len(got), got[0].Method)
	}
}

// rawPeer drives a server with hand-written messages over a Pipe. What the
// server writes is recorded and validated.
type rawPeer struct {
	t    *testing.T
	s    jsonrpc.Stream
	ss   *mcp.ServerSession
	wire *wireLog
}

func newRawPeer(t *testing.T, rev string, srv *mcp.Server) *rawPeer {
	t.Helper()
	w := newWireLog(rev)
	a, b := transport.Pipe()
	ss := srv.Connect(w.stream("server", b), nil)
	p := &rawPeer{t: t, s: a, ss: ss, wire: w}
	t.Cleanup(func() {
		a.Close()
		if err := ss.Wait(); err != nil {
			t.Errorf("ServerSession.Wait: %v", err)
		}
		w.check(t)
	})
	return p
}

func (p *rawPeer) send(m *jsonrpc.Message) {
	p.t.Helper()
	if err := p.s.Write(testCtx(p.t), m); err != nil {
		p.t.Fatal(err)
	}
}

// call sends a request and returns the response, skipping notifications.
func (p *rawPeer) call(id int64, method, params string) *jsonrpc.Message {
	p.t.Helper()
	var raw json.RawMessage
	if params != "" {
		raw = json.RawMessage(params)
	}
	p.send(jsonrpc.NewRequest(jsonrpc.Int64ID(id), method, raw))
	for {
		m, err := p.s.Read(testCtx(p.t))
		if err != nil {
			p.t.Fatalf("reading the response to %s: %v", method, err)
		}
		if m.IsNotification() {
			continue
		}
		if got, _ := m.ID.Int64(); got != id || m.Method != "" {
			p.t.Fatalf("got %s, want the response to request %d", m.AppendJSON(nil), id)
		}
		return m
	}
}

const initParams = `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}`

func TestLifecycleOrder(t *testing.T) {
	s := mcp.NewServer(serverImpl, nil)
	s.AddTool(&mcp.Tool{Name: "t"}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("ran")}}, nil
	})
	p := newRawPeer(t, mcp.Version20251125, s)

	steps := []struct {
		name     string
		method   string
		params   string
		wantCode int64  // 0: success
		want     string // the result, when wantCode is 0
	}{
		// Before initialize, a request is either part of the handshake or a
		// stateless (2026-07-28) request, which must carry its version and
		// capabilities in _meta: without them it is refused with -32602.
		{"tools/list before initialize", "tools/list", "", jsonrpc.CodeInvalidParams, ""},
		{"tools/call before initialize", "tools/call", `{"name":"t"}`, jsonrpc.CodeInvalidParams, ""},
		{"logging/setLevel before initialize", "logging/setLevel", `{"level":"info"}`, jsonrpc.CodeInvalidParams, ""},
		{"ping before initialize", "ping", "", 0, `{}`},
		{"unknown method before initialize", "no/such", "", jsonrpc.CodeInvalidParams, ""},
		{"initialize without a version", "initialize", `{"capabilities":{},"clientInfo":{"name":"raw","version":"1"}}`, jsonrpc.CodeInvalidParams, ""},
		{"initialize with params of the wrong type", "initialize", `{"protocolVersion":7}`, jsonrpc.CodeInvalidParams, ""},
		// The stateless revision has no initialize, so a server never
		// negotiates it there.
		{"initialize asking for the stateless revision", "initialize", `{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}`, 0, ""},
		{"initialize again", "initialize", initParams, jsonrpc.CodeInvalidRequest, ""},
		// The server serves requests once it has answered initialize, even
		// before notifications/initialized: the client may not have sent it yet.
		{"tools/list after initialize", "tools/list", "", 0, ""},
		{"ping after initialize", "ping", "", 0, `{}`},
		{"prompts/list without the capability", "prompts/list", "", jsonrpc.CodeMethodNotFound, ""},
		{"resources/read without the capability", "resources/read", `{"uri":"test://x"}`, jsonrpc.CodeMethodNotFound, ""},
		{"completion without a handler", "completion/complete", `{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":""}}`, jsonrpc.CodeMethodNotFound, ""},
		{"tools/call with array params", "tools/call", `[1]`, jsonrpc.CodeInvalidParams, ""},
		{"tools/call with a misspelled member", "tools/call", `{"nmae":"t"}`, jsonrpc.CodeInvalidParams, ""},
		{"tools/call", "tools/call", `{"name":"t"}`, 0, `{"content":[{"type":"text","text":"ran"}]}`},
		{"logging/setLevel with an unknown level", "logging/setLevel", `{"level":"loud"}`, jsonrpc.CodeInvalidParams, ""},
		{"logging/setLevel without a level", "logging/setLevel", `{}`, jsonrpc.CodeInvalidParams, ""},
	}
	for i, st := range steps {
		if st.method == "initialize" && st.wantCode == 0 {
			// Notifications before the handshake are ignored.
			p.send(jsonrpc.NewNotification(mcp.NotificationRootsListChanged, json.RawMessage(`{}`)))
		}
		resp := p.call(int64(i+1), st.method, st.params)
		switch {
		case st.wantCode != 0 && resp.Error == nil:
			t.Errorf("%s: got result %s, want error %d", st.name, resp.Result, st.wantCode)
		case st.wantCode != 0 && resp.Error.Code != st.wantCode:
			t.Errorf("%s: got error %d %q, want %d", st.name, resp.Error.Code, resp.Error.Message, st.wantCode)
		case st.wantCode == 0 && resp.Error != nil:
			t.Errorf("%s: got error %d %q", st.name, resp.Error.Code, resp.Error.Message)
		case st.want != "" && string(resp.Result) != st.want:
			t.Errorf("%s: got result %s, want %s", st.name, resp.Result, st.want)
		}
		if st.method == "initialize" && st.wantCode == 0 {
			var res mcp.InitializeResult
			if err := json.Unmarshal(resp.Result, &res); err != nil || res.ProtocolVersion != mcp.LatestStatefulVersion {
				t.Errorf("initialize result %s: %v", resp.Result, err)
			}
			p.send(jsonrpc.NewNotification(mcp.NotificationInitialized, nil))
		}
	}
	if got := p.ss.ProtocolVersion(); got != mcp.Version20251125 {
		t.Errorf("ProtocolVersion = %q", got)
	}
}

func TestPing(t *testing.T) {
	forEachRev(t, func(t *testing.T, rev string) {
		e := connect(t, rev, nil, nil)
		ctx := testCtx(t)
		if err := e.cs.Ping(ctx); err != nil {
			t.Errorf("client ping: %v", err)
		}
		if err := e.ss.Ping(ctx); err != nil {
			t.Errorf("server ping: %v", err)
		}
		e.close(t)
		for _, side := range []string{"client", "server"} {
			reqs := e.wire.requests(side, mcp.MethodPing)
			if len(reqs) != 1 {
				t.Fatalf("%s sent %d pings", side, len(reqs))
			}
			other := map[string]string{"client": "server", "server": "client"}[side]
			resp := e.wire.responses(other, reqs[0].m.ID)
			if len(resp) != 1 || string(resp[0].m.Result) != "{}" {
				t.Errorf("%s answered ping with %+v, want {}", other, resp)
			}
		}
	})
}

// TestConcurrentCalls runs many calls at once on several sessions of one
// server (for the race detector, and to check results go to the right call).
func TestConcurrentCalls(t *testing.T) {
	forEachRev(t, func(t *testing.T, rev string) {
		s := mcp.NewServer(serverImpl, &mcp.ServerOptions{MaxConcurrency: 4})
		type in struct {
			N int `json:"n"`
		}
		type out struct {
			Double int `json:"double"`
		}
		mcp.AddTool(s, &mcp.Tool{Name: "double"}, func(_ context.Context, _ *mcp.CallToolRequest, in in) (out, error) {
			return out{in.N * 2}, nil
		})
		// Several sessions on one server, each with many calls in flight.
		var envs []*env
		for range 3 {
			envs = append(envs, connect(t, rev, s, nil))
		}
		if n := len(s.Sessions()); n != 3 {
			t.Errorf("Sessions() has %d sessions, want 3", n)
		}
		ctx := testCtx(t)
		var wg sync.WaitGroup
		errs := make(chan error, 100)
		for i := range 90 {
			wg.Go(func() {
				e := envs[i%3]
				res, err := e.callTool(ctx, "double", fmt.Sprintf(`{"n":%d}`, i))
				if err != nil {
					errs <- err
					return
				}
				want := fmt.Sprintf(`{"double":%d}`, 2*i)
				if !since(rev, mcp.Version20250618) {
					want = "" // structured content exists from 2025-06-18 on
				}
				if string(res.StructuredContent) != want {
					errs <- fmt.Errorf("call %d: got %s, want %s", i, res.StructuredContent, want)
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		for _, e := range envs {
			e.close(t)
		}
		deadline := time.Now().Add(waitTimeout)
		for len(s.Sessions()) != 0 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if n := len(s.Sessions()); n != 0 {
			t.Errorf("Sessions() has %d sessions after they all closed", n)
		}
	})
}

func TestMiddleware(t *testing.T) {
	forEachRev(t, func(t *testing.T, rev string) {
		type seen struct {
			mu  sync.Mutex
			got []string
		}
		record := func(sn *seen, results map[string]any) mcp.Middleware {
			return func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, r *mcp.Request) (any, error) {
					res, err := next(ctx, r)
					sn.mu.Lock()
					sn.got = append(sn.got, r.Method)
					if results != nil && res != nil {
						results[r.Method] = res
					}
					sn.mu.Unlock()
					return res, err
				}
			}
		}
		var srvIn, srvOut, cliIn, cliOut seen
		progress := make(chan struct{}, 1)
		srvResults := map[string]any{}
		cliOutResults := map[string]any{}
		// An authorization middleware: refuses one tool.
		deny := func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, r *mcp.Request) (any, error) {
				if r.Method == mcp.MethodToolsCall {
					var p mcp.CallToolParams
					if json.Unmarshal(r.Params, &p) == nil && p.Name == "secret" {
						return nil, jsonrpc.NewError(-1, "forbidden")
					}
				}
				return next(ctx, r)
			}
		}
		rootsChanged := make(chan struct{}, 1)
		logged := make(chan struct{}, 1)
		s := mcp.NewServer(serverImpl, &mcp.ServerOptions{
			Receiving:               []mcp.Middleware{record(&srvIn, srvResults), deny},
			Sending:                 []mcp.Middleware{record(&srvOut, nil)},
			RootsListChangedHandler: func(context.Context, *mcp.ServerSession) { rootsChanged <- struct{}{} },
		})
		mcp.AddTool(s, &mcp.Tool{Name: "work"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
			if err := req.NotifyProgress(ctx, 1, 2, "half"); err != nil {
				return "", err
			}
			// Progress is handled on the client's notification lane, which
			// may run after the response has been delivered: wait for it.
			recv(t, progress, "progress")
			if err := req.Log(ctx, mcp.LevelInfo, "work", "working"); err != nil {
				return "", err
			}
			roots, err := req.ListRoots(ctx)
			if err != nil {
				return "", err
			}
			return roots.Roots[0].URI, nil
		})
		mcp.AddTool(s, &mcp.Tool{Name: "secret"}, func(context.Context, *mcp.CallToolRequest, struct{}) (string, error) {
			return "the secret", nil
		})
		e := connect(t, rev, s, &mcp.ClientOptions{
			Roots:                 []*mcp.Root{{URI: "file:///work"}},
			Receiving:             []mcp.Middleware{record(&cliIn, nil)},
			Sending:               []mcp.Middleware{record(&cliOut, cliOutResults)},
			LoggingMessageHandler: func(context.Context, *mcp.ClientSession, *mcp.LoggingMessageNotificationParams) { logged <- struct{}{} },
		})
		ctx := testCtx(t)
		pctx := mcp.WithProgress(ctx, func(*mcp.ProgressNotificationParams) {
			select {
			case progress <- struct{}{}:
			default:
			}
		})
		res, err := e.callTool(pctx, "work", `{}`)
		if err != nil || text(t, res) != "file:///work" {
			t.Fatalf("work: %v %+v", err, res)
		}
		_, err = e.callTool(ctx, "secret", `{}`)
		wantCode(t, err, -1)
		if err := e.cs.Ping(ctx); err != nil {
			t.Fatal(err)
		}
		if err := e.ss.Ping(ctx); err != nil {
			t.Fatal(err)
		}
		e.client.SetRoots(&mcp.Root{URI: "file:///other"})
		// Notifications still queued when a session closes are dropped:
		// wait until both have been handled.
		recv(t, rootsChanged, "roots/list_changed")
		recv(t, logged, "the log message")
		if _, err := e.cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		e.close(t)

		// Each middleware saw exactly the requests and notifications its
		// side received or sent.
		wireMethods := func(from string) []string {
			var out []string
			for _, m := range e.wire.all() {
				if m.from == from && m.m.Method != "" {
					out = append(out, m.m.Method)
				}
			}
			slices.Sort(out)
			return out
		}
		check := func(name string, sn *seen, want []string) {
			sn.mu.Lock()
			got := slices.Clone(sn.got)
			sn.mu.Unlock()
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("%s middleware saw\n\t%v\nwant (from the wire)\n\t%v", name, got, want)
			}
		}
		check("server Receiving", &srvIn, wireMethods("client"))
		check("client Sending", &cliOut, wireMethods("client"))
		check("server Sending", &srvOut, wireMethods("server"))
		check("client Receiving", &cliIn, wireMethods("server"))
		for _, m := range []string{mcp.MethodToolsCall, mcp.NotificationInitialized, mcp.MethodRootsList, mcp.NotificationProgress, mcp.NotificationMessage, mcp.NotificationRootsListChanged} {
			if !slices.Contains(wireMethods("client"), m) && !slices.Contains(wireMethods("server"), m) {
				t.Errorf("%s never went over the wire", m)
			}
		}
		// Incoming middleware sees the handler's result; outgoing sees the
		// raw result from the peer.
		if _, ok := srvResults[mcp.MethodToolsCall].(*mcp.CallToolResult); !ok {
			t.Errorf("server Receiving saw tools/call result %T", srvResults[mcp.MethodToolsCall])
		}
		if raw, ok := cliOutResults[mcp.MethodToolsList].(json.RawMessage); !ok || !json.Valid(raw) {
			t.Errorf("client Sending saw tools/list result %T", cliOutResults[mcp.MethodToolsList])
		}
	})
}

func TestCancelClientToServer(t *testing.T) {
	forEachRev(t, func(t *testing.T, rev string) {
		started := make(chan struct{})
		stopped := make(chan error, 1)
		s := mcp.NewServer(serverImpl, nil)
		s.AddTool(&mcp.Tool{Name: "block"}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			close(started)
			<-ctx.Done()
			stopped <- ctx.Err()
			// Whatever the handler returns now must not be sent.
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("too late")}}, nil
		})
		e := connect(t, rev, s, nil)
		ctx, cancel := context.WithCancel(testCtx(t))
		errc := make(chan error, 1)
		go func() {
			_, err := e.callTool(ctx, "block", `{}`)
			errc <- err
		}()
		recv(t, started, "the tool to start")
		cancel()
		if err := recv(t, errc, "CallTool to return"); !errors.Is(err, context.Canceled) {
			t.Errorf("CallTool error = %v, want context.Canceled", err)
		}
		if err := recv(t, stopped, "the handler's context to end"); !errors.Is(err, context.Canceled) {
			t.Errorf("handler ctx error = %v", err)
		}
		// The session carries on.
		if err := e.cs.Ping(testCtx(t)); err != nil {
			t.Fatal(err)
		}
		e.close(t)
		checkCancelled(t, e.wire, "client", mcp.MethodToolsCall)
	})
}

// checkCancelled checks that side sent notifications/cancelled naming its
// one request of the given method, and that the peer never answered it.
func checkCancelled(t *testing.T, w *wireLog, side, method string) {
	t.Helper()
	reqs := w.requests(side, method)
	if len(reqs) != 1 {
		t.Fatalf("%s sent %d %s requests, want 1", side, len(reqs), method)
	}
	id := reqs[0].m.ID
	var named bool
	for _, n := range w.notifications(side, mcp.NotificationCancelled) {
		var p mcp.CancelledNotificationParams
		if err := json.Unmarshal(n.m.Params, &p); err != nil {
			t.Fatal(err)
		}
		named = named || p.RequestID == id
	}
	if !named {
		t.Errorf("%s sent no notifications/cancelled for request %s", side, id)
	}
	peer := map[string]string{"client": "server", "server": "client"}[side]
	if resp := w.responses(peer, id); len(resp) != 0 {
		t.Errorf("%s answered the cancelled request: %s", peer, resp[0].raw)
	}
}

func TestCancelServerToClient(t *testing.T) {
	forEachRev(t, func(t *testing.T, rev string) {
		started := make(chan struct{})
		stopped := make(chan error, 1)
		e := connect(t, rev, nil, &mcp.ClientOptions{
			CreateMessageHandler: func(ctx context.Context, _ *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
				close(started)
				<-ctx.Done()
				stopped <- ctx.Err()
				return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: []mcp.Content{mcp.NewTextContent("late")}, Model: "m"}, nil
			},
		})
		ctx, cancel := context.WithCancel(testCtx(t))
		errc := make(chan error, 1)
		go func() {
			_, err := mcp.SessionCreateMessage(e.ss, ctx, &mcp.CreateMessageParams{
				Messages:  []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{mcp.NewTextContent("hi")}}},
				MaxTokens: 5,
			})
			errc <- err
		}()
		recv(t, started, "the sampling handler to start")
		cancel()
		if err := recv(t, errc, "CreateMessage to return"); !errors.Is(err, context.Canceled) {
			t.Errorf("CreateMessage error = %v, want context.Canceled", err)
		}
		if err := recv(t, stopped, "the handler's context to end"); !errors.Is(err, context.Canceled) {
			t.Errorf("handler ctx error = %v", err)
		}
		if err := e.ss.Ping(testCtx(t)); err != nil {
			t.Fatal(err)
		}
		e.close(t)
		checkCancelled(t, e.wire, "server", mcp.MethodSamplingCreateMessage)
	})
}

// TestRequestTimeout checks the default timeouts of both sides: a call
// without a deadline gives up after RequestTimeout and cancels the request.
func TestRequestTimeout(t *testing.T) {
	forEachRev(t, func(t *testing.T, rev string) {
		handlerDone := make(chan error, 2)
		block := func(ctx context.Context) {
			<-ctx.Done()
			handlerDone <- ctx.Err()
		}
		s := mcp.NewServer(serverImpl, &mcp.ServerOptions{RequestTimeout: 20 * time.Millisecond})
		s.AddTool(&mcp.Tool{Name: "block"}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			block(ctx)
			return nil, nil
		})
		// The client's timeout also bounds initialize, so it leaves room
		// for a loaded machine.
		e := connect(t, rev, s, &mcp.ClientOptions{
			RequestTimeout: 500 * time.Millisecond,
			CreateMessageHandler: func(ctx context.Context, _ *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
				block(ctx)
				return nil, ctx.Err()
			},
		})
		if _, err := e.callTool(context.Background(), "block", `{}`); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("client call: %v, want DeadlineExceeded", err)
		}
		recv(t, handlerDone, "the tool to be cancelled")
		_, err := mcp.SessionCreateMessage(e.ss, context.Background(), &mcp.CreateMessageParams{MaxTokens: 1})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("server call: %v, want DeadlineExceeded", err)
		}
		recv(t, handlerDone, "the sampling handler to be cancelled")
		e.close(t)
		checkCancelled(t, e.wire, "client", mcp.MethodToolsCall)
		checkCancelled(t, e.wire, "server", mcp.MethodSamplingCreateMessage)
	})
}

func TestServerRun(t *testing.T) {
	t.Run("client hangs up", func(t *testing.T) {
		s := mcp.NewServer(serverImpl, nil)
		a, b := transport.Pipe()
		done := make(chan error, 1)
		go func() { done <- s.Run(context.Background(), b) }()
		cs, err := mcp.NewClient(clientImpl, statefulOpts).Connect(testCtx(t), a)
		if err != nil {
			t.Fatal(err)
		}
		if err := cs.Ping(testCtx(t)); err != nil {
			t.Fatal(err)
		}
		cs.Close()
		if err := recv(t, done, "Run to return"); err != nil {
			t.Errorf("Run = %v, want nil after the client hung up", err)
		}
	})
	t.Run("context ends", func(t *testing.T) {
		s := mcp.NewServer(serverImpl, nil)
		started := make(chan struct{})
		s.AddTool(&mcp.Tool{Name: "block"}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		})
		a, b := transport.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- s.Run(ctx, b) }()
		cs, err := mcp.NewClient(clientImpl, statefulOpts).Connect(testCtx(t), a)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		callErr := make(chan error, 1)
		go func() {
			res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: "block"})
			if err == nil && !res.IsError {
				err = errors.New("the call succeeded")
			}
			callErr <- err
		}()
		recv(t, started, "the tool to start")
		cancel()
		if err := recv(t, done, "Run to return"); !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v, want context.Canceled", err)
		}
		// The call in flight ends: with an error result if the handler's
		// answer got out before the stream closed, else with an error.
		if err := recv(t, callErr, "the call to end"); err != nil && err.Error() == "the call succeeded" {
			t.Error("call in flight succeeded after the server stopped")
		}
		select {
		case <-cs.Done():
		case <-time.After(waitTimeout):
			t.Error("client session did not end when the server stopped")
		}
	})
}

// TestClosedSession checks that calls on a closed session fail at once.
func TestClosedSession(t *testing.T) {
	e := connect(t, mcp.LatestStatefulVersion, nil, &mcp.ClientOptions{CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		return nil, errors.New("unused")
	}})
	e.close(t)
	ctx := testCtx(t)
	if err := e.cs.Ping(ctx); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("client Ping after Close = %v, want ErrClosed", err)
	}
	if err := e.ss.Ping(ctx); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("server Ping after Close = %v, want ErrClosed", err)
	}
	if _, err := mcp.SessionCreateMessage(e.ss, ctx, &mcp.CreateMessageParams{MaxTokens: 1}); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("CreateMessage after Close = %v, want ErrClosed", err)
	}
}
