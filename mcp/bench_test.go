package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strconv"
	"sync"
	"testing"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// The benchmark tool: a typed tool with a small struct input and output, the
// same one the compat module runs on every SDK.
type addIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

type addOut struct {
	Sum int `json:"sum"`
}

func addHandler(_ context.Context, _ *mcp.CallToolRequest, in addIn) (addOut, error) {
	return addOut{Sum: in.A + in.B}, nil
}

func newBenchServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "add two integers"}, addHandler)
	return s
}

const (
	initLine        = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1.0.0"}}}`
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	callLine        = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`
	wantResult      = `"result":{"content":[{"type":"text","text":"{\"sum\":3}"}],"structuredContent":{"sum":3}}`
)

// lineStream is a jsonrpc.Stream fed with raw lines: Read decodes each line
// with jsonrpc.Decode, as a byte transport does, and Write encodes each reply
// with AppendJSON into a reused buffer and reports it on replies. It measures
// the server's decode -> dispatch -> handle -> encode path with no client and
// no I/O; the channel hand-offs are the only harness cost.
type lineStream struct {
	in      chan []byte
	replies chan struct{}
	done    chan struct{}
	once    sync.Once

	mu      sync.Mutex
	buf     []byte
	last    []byte // a copy of the latest reply, for checking
	errSeen *jsonrpc.Error
}

func newLineStream() *lineStream {
	// in is unbuffered: once a send completes the reader holds the line, and
	// it has decoded it (Decode copies) before it can take the next one.
	return &lineStream{in: make(chan []byte), replies: make(chan struct{}, 1024), done: make(chan struct{})}
}

func (s *lineStream) Read(ctx context.Context) (*jsonrpc.Message, error) {
	select {
	case line := <-s.in:
		return jsonrpc.Decode(line), nil
	case <-s.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *lineStream) Write(_ context.Context, m *jsonrpc.Message) error {
	s.mu.Lock()
	s.buf = m.AppendJSON(s.buf[:0])
	if m.Error != nil && s.errSeen == nil {
		s.errSeen = m.Error
		s.last = append(s.last[:0], s.buf...)
	} else if s.errSeen == nil {
		s.last = append(s.last[:0], s.buf...)
	}
	s.mu.Unlock()
	if m.Method == "" { // a response, not a notification
		s.replies <- struct{}{}
	}
	return nil
}

func (s *lineStream) Close() error {
	s.once.Do(func() { close(s.done) })
	return nil
}

func (s *lineStream) check(tb testing.TB) {
	tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.errSeen != nil {
		tb.Fatalf("error reply: %s", s.last)
	}
	if !bytes.Contains(s.last, []byte(wantResult)) {
		tb.Fatalf("reply %s does not contain %s", s.last, wantResult)
	}
}

// connectLineStream starts a server session on a lineStream and runs the
// initialize handshake through it.
func connectLineStream(tb testing.TB) (*lineStream, *mcp.ServerSession) {
	tb.Helper()
	st := newLineStream()
	ss, err := newBenchServer().Connect(context.Background(), st)
	if err != nil {
		tb.Fatal(err)
	}
	st.in <- []byte(initLine)
	<-st.replies
	st.in <- []byte(initializedLine)
	tb.Cleanup(func() {
		ss.Close()
		ss.Wait()
	})
	return st, ss
}

// BenchmarkDispatchToolsCall measures one tools/call line through a server
// session, one at a time: decode, dispatch to a worker, route, validate the
// arguments, run the typed tool, encode the reply.
func BenchmarkDispatchToolsCall(b *testing.B) {
	st, _ := connectLineStream(b)
	line := []byte(callLine)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		st.in <- line
		<-st.replies
	}
	st.check(b)
}

// BenchmarkDispatchToolsCallPipelined keeps up to 64 tools/call requests in
// flight, as a busy client would, and measures the throughput.
func BenchmarkDispatchToolsCallPipelined(b *testing.B) {
	st, _ := connectLineStream(b)
	const window = 64
	prefix := []byte(`{"jsonrpc":"2.0","id":`)
	suffix := []byte(`,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`)
	// Two line buffers used in turn: the unbuffered channel guarantees line
	// i has been decoded once line i+1 has been taken, so line i+2 may reuse
	// its buffer.
	var lines [2][]byte
	b.ReportAllocs()
	b.ResetTimer()
	inflight := 0
	for i := range b.N {
		if inflight == window {
			<-st.replies
			inflight--
		}
		line := append(strconv.AppendInt(append(lines[i%2][:0], prefix...), int64(i+1), 10), suffix...)
		lines[i%2] = line
		st.in <- line
		inflight++
	}
	for ; inflight > 0; inflight-- {
		<-st.replies
	}
	b.StopTimer()
	st.check(b)
}

// BenchmarkHandleToolsCall calls ServerSession.Handle directly with a decoded
// message: the mcp layer alone (route, params decode, validation, the typed
// tool, result value), plus encoding the result as Conn would.
func BenchmarkHandleToolsCall(b *testing.B) {
	_, ss := connectLineStream(b)
	m := jsonrpc.Decode([]byte(callLine))
	ctx := context.Background()
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		res, err := ss.Handle(ctx, m)
		if err != nil {
			b.Fatal(err)
		}
		raw, err := json.Marshal(res)
		if err != nil {
			b.Fatal(err)
		}
		buf = jsonrpc.NewResponse(m.ID, raw).AppendJSON(buf[:0])
	}
	if !bytes.Contains(buf, []byte(wantResult)) {
		b.Fatalf("reply %s does not contain %s", buf, wantResult)
	}
}
