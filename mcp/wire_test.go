package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomcp/sdk/internal/specschema"
	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

// statefulRevs are the revisions that use the initialize handshake. The
// feature suite runs once at each, with the client asking for it.
var statefulRevs = []string{mcp.Version20241105, mcp.Version20250326, mcp.Version20250618, mcp.Version20251125}

// atLeast reports whether revision rev is min or newer. Revisions are dates,
// so they order as strings.
func atLeast(rev, min string) bool { return rev >= min }

// forEachRev runs f as a parallel subtest at every stateful revision.
func forEachRev(t *testing.T, f func(t *testing.T, rev string)) {
	t.Helper()
	for _, rev := range statefulRevs {
		t.Run(rev, func(t *testing.T) {
			t.Parallel()
			f(t, rev)
		})
	}
}

// waitTimeout bounds every wait in these tests, so that a lost message
// fails the test instead of hanging it.
const waitTimeout = 10 * time.Second

// testCtx returns a context that ends with the test or after waitTimeout.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), waitTimeout)
	t.Cleanup(cancel)
	return ctx
}

// recv waits for a value on ch.
func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitTimeout):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// wantCode fails unless err is a *jsonrpc.Error with the given code, which it
// returns.
func wantCode(t *testing.T, err error, code int64) *jsonrpc.Error {
	t.Helper()
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		t.Fatalf("got error %v (%T), want a JSON-RPC error with code %d", err, err, code)
	}
	if je.Code != code {
		t.Fatalf("got error code %d (%s), want %d", je.Code, je.Message, code)
	}
	return je
}

// wireMsg is one message a peer wrote.
type wireMsg struct {
	from    string // "client" or "server"
	m       *jsonrpc.Message
	raw     []byte
	answers string // for a response: the method of the request it answers
}

// wireLog records every message both peers of one connection put on the
// wire and validates each against the official schema of the revision,
// responses against the result definition of the method they answer.
type wireLog struct {
	rev      string
	validate bool

	mu   sync.Mutex
	msgs []wireMsg
	errs []string
}

func newWireLog(rev string) *wireLog { return &wireLog{rev: rev, validate: true} }

// stream wraps s, the transport end that side writes to and reads from.
func (w *wireLog) stream(side string, s jsonrpc.Stream) jsonrpc.Stream {
	return &recStream{Stream: s, side: side, log: w, reqs: make(map[jsonrpc.ID]string)}
}

func (w *wireLog) add(side string, m *jsonrpc.Message, raw []byte, answers string) {
	var verr error
	if w.validate {
		verr = specschema.ValidateMessage(w.rev, raw, answers)
		if errors.Is(verr, specschema.ErrUnknownMethod) && (strings.HasPrefix(m.Method, "x/") || strings.HasPrefix(answers, "x/")) {
			verr = nil // the tests' own methods (Server.AddMethod) are beyond every revision's schema
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, wireMsg{from: side, m: m, raw: raw, answers: answers})
	if verr != nil {
		what := ""
		if answers != "" {
			what = " (answering " + answers + ")"
		}
		w.errs = append(w.errs, fmt.Sprintf("%s wrote a message %s does not allow%s:\n\t%s\n\t%v", side, w.rev, what, shorten(raw), verr))
	}
}

func shorten(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "..."
	}
	return string(b)
}

// check reports every schema violation seen so far.
func (w *wireLog) check(t *testing.T) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, e := range w.errs {
		t.Error(e)
	}
}

// all returns a copy of the messages recorded so far.
func (w *wireLog) all() []wireMsg {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]wireMsg(nil), w.msgs...)
}

// requests returns the requests side wrote with the given method.
func (w *wireLog) requests(side, method string) []wireMsg {
	var out []wireMsg
	for _, m := range w.all() {
		if m.from == side && m.m.IsRequest() && m.m.Method == method {
			out = append(out, m)
		}
	}
	return out
}

// notifications returns the notifications side wrote with the given method.
func (w *wireLog) notifications(side, method string) []wireMsg {
	var out []wireMsg
	for _, m := range w.all() {
		if m.from == side && m.m.IsNotification() && m.m.Method == method {
			out = append(out, m)
		}
	}
	return out
}

// responses returns the responses side wrote to request id.
func (w *wireLog) responses(side string, id jsonrpc.ID) []wireMsg {
	var out []wireMsg
	for _, m := range w.all() {
		if m.from == side && m.m.Method == "" && m.m.Batch == nil && m.m.ID == id {
			out = append(out, m)
		}
	}
	return out
}

// recStream is the recording wrapper around one peer's transport end. It
// remembers the requests the peer reads, so that the responses it writes
// can be validated against the right result definition.
type recStream struct {
	jsonrpc.Stream
	side string
	log  *wireLog

	mu   sync.Mutex
	reqs map[jsonrpc.ID]string // requests read and not yet answered: id -> method
}

func (s *recStream) Read(ctx context.Context) (*jsonrpc.Message, error) {
	m, err := s.Stream.Read(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	for _, e := range append([]*jsonrpc.Message{m}, m.Batch...) {
		if e.IsRequest() {
			s.reqs[e.ID] = e.Method
		}
	}
	s.mu.Unlock()
	return m, nil
}

func (s *recStream) Write(ctx context.Context, m *jsonrpc.Message) error {
	answers := ""
	if m.Method == "" && m.Batch == nil {
		s.mu.Lock()
		answers = s.reqs[m.ID]
		delete(s.reqs, m.ID)
		s.mu.Unlock()
	}
	s.log.add(s.side, m, m.AppendJSON(nil), answers)
	return s.Stream.Write(ctx, m)
}

// statefulOpts makes a client ask for the newest stateful revision with
// initialize (by default a client first probes for the stateless one).
var statefulOpts = &mcp.ClientOptions{ProtocolVersion: mcp.LatestStatefulVersion}

var (
	serverImpl = &mcp.Implementation{Name: "test-server", Version: "1.0.0"}
	clientImpl = &mcp.Implementation{Name: "test-client", Version: "2.0.0"}
)

// env is one client session connected to one server session over a Pipe,
// with every message recorded and validated.
type env struct {
	rev    string
	server *mcp.Server
	client *mcp.Client
	ss     *mcp.ServerSession
	cs     *mcp.ClientSession
	wire   *wireLog

	once sync.Once
}

// connect connects a new client with opts (ProtocolVersion defaulting to
// rev) to s at revision rev. The connection is closed, and the wire checked
// against the schema, when the test ends.
func connect(t *testing.T, rev string, s *mcp.Server, opts *mcp.ClientOptions) *env {
	t.Helper()
	var o mcp.ClientOptions
	if opts != nil {
		o = *opts
	}
	if o.ProtocolVersion == "" {
		o.ProtocolVersion = rev
	}
	return connectClient(t, rev, s, mcp.NewClient(clientImpl, &o))
}

// connectClient is connect with a ready-made client.
func connectClient(t *testing.T, rev string, s *mcp.Server, c *mcp.Client) *env {
	t.Helper()
	if s == nil {
		s = mcp.NewServer(serverImpl, nil)
	}
	w := newWireLog(rev)
	a, b := transport.Pipe()
	ctx := testCtx(t)
	ss := s.Connect(w.stream("server", b), nil)
	cs, err := c.Connect(ctx, w.stream("client", a))
	if err != nil {
		ss.Close()
		ss.Wait()
		t.Fatalf("Connect: %v", err)
	}
	e := &env{rev: rev, server: s, client: c, ss: ss, cs: cs, wire: w}
	t.Cleanup(func() {
		e.close(t)
		w.check(t)
	})
	return e
}

// close ends the session from the client side and waits for both sides.
func (e *env) close(t *testing.T) {
	e.once.Do(func() {
		if err := e.cs.Close(); err != nil {
			t.Errorf("ClientSession.Close: %v", err)
		}
		if err := e.ss.Wait(); err != nil {
			t.Errorf("ServerSession.Wait: %v", err)
		}
	})
}

// callTool calls a tool with arguments given as JSON text.
func (e *env) callTool(ctx context.Context, name, args string) (*mcp.CallToolResult, error) {
	p := &mcp.CallToolParams{Name: name}
	if args != "" {
		p.Arguments = json.RawMessage(args)
	}
	return e.cs.CallTool(ctx, p)
}

// text returns the text of a result's only content block.
func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("result has %d content blocks, want 1: %+v", len(res.Content), res.Content)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content block is %T, want *mcp.TextContent", res.Content[0])
	}
	return tc.Text
}

// TestWireLogValidates makes sure the recorder really fails tests: a
// result that does not match its method's result definition, a method the
// revision does not have, and a notification with an id are reported, and
// valid traffic is not.
func TestWireLogValidates(t *testing.T) {
	tests := []struct {
		name    string
		rev     string
		in      *jsonrpc.Message // read by the side first, if set
		out     *jsonrpc.Message // then written
		wantErr string           // "" for valid
	}{
		{
			name: "valid tools/call result",
			rev:  mcp.Version20250618,
			in:   jsonrpc.NewRequest(jsonrpc.Int64ID(1), "tools/call", json.RawMessage(`{"name":"x"}`)),
			out:  jsonrpc.NewResponse(jsonrpc.Int64ID(1), json.RawMessage(`{"content":[]}`)),
		},
		{
			name:    "tools/call result without content",
			rev:     mcp.Version20250618,
			in:      jsonrpc.NewRequest(jsonrpc.Int64ID(1), "tools/call", json.RawMessage(`{"name":"x"}`)),
			out:     jsonrpc.NewResponse(jsonrpc.Int64ID(1), json.RawMessage(`{"isError":true}`)),
			wantErr: "answering tools/call",
		},
		{
			name:    "tools/list result with a tool of bad input schema",
			rev:     mcp.Version20241105,
			in:      jsonrpc.NewRequest(jsonrpc.StringID("a"), "tools/list", nil),
			out:     jsonrpc.NewResponse(jsonrpc.StringID("a"), json.RawMessage(`{"tools":[{"name":"x","inputSchema":{"type":"string"}}]}`)),
			wantErr: "answering tools/list",
		},
		{
			name:    "elicitation before 2025-06-18",
			rev:     mcp.Version20250326,
			out:     jsonrpc.NewRequest(jsonrpc.Int64ID(4), "elicitation/create", json.RawMessage(`{"message":"m","requestedSchema":{"type":"object","properties":{}}}`)),
			wantErr: "not defined",
		},
		{
			name:    "notification with an id",
			rev:     mcp.Version20251125,
			out:     jsonrpc.NewRequest(jsonrpc.Int64ID(5), "notifications/initialized", nil),
			wantErr: "has an id",
		},
		{
			name:    "audio content in 2024-11-05",
			rev:     mcp.Version20241105,
			in:      jsonrpc.NewRequest(jsonrpc.Int64ID(1), "tools/call", json.RawMessage(`{"name":"x"}`)),
			out:     jsonrpc.NewResponse(jsonrpc.Int64ID(1), json.RawMessage(`{"content":[{"type":"audio","data":"","mimeType":"audio/wav"}]}`)),
			wantErr: "answering tools/call",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWireLog(tt.rev)
			a, b := transport.Pipe()
			defer a.Close()
			s := w.stream("server", b)
			ctx := testCtx(t)
			if tt.in != nil {
				if err := a.Write(ctx, tt.in); err != nil {
					t.Fatal(err)
				}
				if _, err := s.Read(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Write(ctx, tt.out); err != nil {
				t.Fatal(err)
			}
			w.mu.Lock()
			errs := strings.Join(w.errs, "\n")
			w.mu.Unlock()
			switch {
			case tt.wantErr == "" && errs != "":
				t.Errorf("valid message reported: %s", errs)
			case tt.wantErr != "" && !strings.Contains(errs, tt.wantErr):
				t.Errorf("got report %q, want one containing %q", errs, tt.wantErr)
			}
		})
	}
}
