package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gomcp/sdk/internal/cputime"
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
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echoes text"}, echoHandler)
	return s
}

type echoIn struct {
	Text string `json:"text"`
}

func echoHandler(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (string, error) {
	return in.Text, nil
}

const (
	initLine        = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1.0.0"}}}`
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	wantResult      = `"content":[{"type":"text","text":"{\"sum\":3}"}],"structuredContent":{"sum":3}`
)

// era is one protocol revision's framing of the benchmark call: a stateful
// session initialized once, or a stateless 2026-07-28 one whose every
// request carries the client's version, capabilities and identity in _meta.
type era struct {
	name     string
	stateful bool
	params   string // the tools/call params, without the closing brace
}

var eras = []era{
	{"2025-11-25", true, `{"name":"add","arguments":{"a":1,"b":2}`},
	{"2026-07-28", false, `{"name":"add","arguments":{"a":1,"b":2},"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1.0.0"}}`},
}

// callLine returns a tools/call request line with the given id.
func (e era) callLine(b []byte, id int64) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":"tools/call","params":`...)
	b = append(b, e.params...)
	return append(b, "}}"...)
}

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

// connectLineStream starts a server session on a lineStream and, for a
// stateful era, runs the initialize handshake through it.
func connectLineStream(tb testing.TB, e era) (*lineStream, *mcp.ServerSession) {
	tb.Helper()
	return connectLineStreamTo(tb, newBenchServer(), e)
}

// connectLineStreamTo is connectLineStream with a server of the caller's.
func connectLineStreamTo(tb testing.TB, s *mcp.Server, e era) (*lineStream, *mcp.ServerSession) {
	tb.Helper()
	st := newLineStream()
	ss := s.Connect(st, nil)
	if e.stateful {
		st.in <- []byte(initLine)
		<-st.replies
		st.in <- []byte(initializedLine)
	}
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
	for _, e := range eras {
		b.Run(e.name, func(b *testing.B) {
			st, _ := connectLineStream(b, e)
			line := e.callLine(nil, 1)
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			report := cputime.Meter(b)
			for b.Loop() {
				st.in <- line
				<-st.replies
			}
			report()
			st.check(b)
		})
	}
}

// BenchmarkDispatchToolsCallPipelined keeps up to 64 tools/call requests in
// flight, as a busy client would, and measures the throughput.
func BenchmarkDispatchToolsCallPipelined(b *testing.B) {
	for _, e := range eras {
		b.Run(e.name, func(b *testing.B) {
			st, _ := connectLineStream(b, e)
			const window = 64
			// Two line buffers used in turn: the unbuffered channel
			// guarantees line i has been decoded once line i+1 has been
			// taken, so line i+2 may reuse its buffer.
			var lines [2][]byte
			b.ReportAllocs()
			b.ResetTimer()
			report := cputime.Meter(b)
			inflight := 0
			for i := range b.N {
				if inflight == window {
					<-st.replies
					inflight--
				}
				lines[i%2] = e.callLine(lines[i%2][:0], int64(i+1))
				st.in <- lines[i%2]
				inflight++
			}
			for ; inflight > 0; inflight-- {
				<-st.replies
			}
			b.StopTimer()
			report()
			st.check(b)
		})
	}
}

// BenchmarkHandleToolsCall calls the session's handler directly with a decoded
// message: the mcp layer alone (route, params decode, validation, the typed
// tool, result value), plus encoding the result as Conn would.
func BenchmarkHandleToolsCall(b *testing.B) {
	for _, e := range eras {
		b.Run(e.name, func(b *testing.B) {
			_, ss := connectLineStream(b, e)
			m := jsonrpc.Decode(e.callLine(nil, 1))
			ctx := context.Background()
			var buf []byte
			b.ReportAllocs()
			report := cputime.Meter(b)
			for b.Loop() {
				res, err := mcp.SessionHandle(ss, ctx, m)
				if err != nil {
					b.Fatal(err)
				}
				raw, err := json.Marshal(res)
				if err != nil {
					b.Fatal(err)
				}
				buf = jsonrpc.NewResponse(m.ID, raw).AppendJSON(buf[:0])
			}
			report()
			if !bytes.Contains(buf, []byte(wantResult)) {
				b.Fatalf("reply %s does not contain %s", buf, wantResult)
			}
		})
	}
}

// BenchmarkHandleToolsList measures one tools/list of 20 tools through the
// mcp layer, with no visibility function and with one that hides half the
// tools: the first must cost what it did before visibility existed.
func BenchmarkHandleToolsList(b *testing.B) {
	hideOdd := func(_ context.Context, _ mcp.Caller, f mcp.Feature) bool { return len(f.Name())%2 == 0 }
	for _, e := range eras {
		for _, v := range []struct {
			name string
			fn   mcp.VisibleFunc
		}{{"all", nil}, {"visible", hideOdd}} {
			b.Run(e.name+"/"+v.name, func(b *testing.B) {
				s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1.0.0"}, &mcp.ServerOptions{Visible: v.fn})
				for i := range 20 {
					mcp.AddTool(s, &mcp.Tool{Name: strings.Repeat("t", i+1)}, addHandler)
				}
				_, ss := connectLineStreamTo(b, s, e)
				line := strings.Replace(string(e.callLine(nil, 1)), `"tools/call"`, `"tools/list"`, 1)
				line = strings.Replace(line, `"name":"add","arguments":{"a":1,"b":2}`, `"cursor":""`, 1)
				m := jsonrpc.Decode([]byte(line))
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					if _, err := mcp.SessionHandle(ss, ctx, m); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkToolsCallLarge is the server's work for a tools/call whose
// argument and result are one large text (the process benchmark's 1 MiB
// figure), without the I/O: decode the line, route, validate the
// arguments, decode them into the typed input, run the echo tool, encode
// the reply.
func BenchmarkToolsCallLarge(b *testing.B) {
	for _, size := range []int{64 << 10, 1 << 20} {
		b.Run(strconv.Itoa(size>>10)+"KiB", func(b *testing.B) {
			_, ss := connectLineStream(b, eras[0])
			text := bytes.Repeat([]byte("0123456789abcdef"), size/16)
			line := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + string(text) + `"}}}`)
			ctx := context.Background()
			var buf []byte
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			report := cputime.Meter(b)
			for b.Loop() {
				m := jsonrpc.Decode(line)
				res, err := mcp.SessionHandle(ss, ctx, m)
				if err != nil {
					b.Fatal(err)
				}
				raw, err := jsonrpc.Marshal(res)
				if err != nil {
					b.Fatal(err)
				}
				buf = jsonrpc.NewResponse(m.ID, raw).AppendJSON(buf[:0])
			}
			report()
			if !bytes.Contains(buf, text) || bytes.Contains(buf, []byte(`"isError":true`)) {
				b.Fatalf("reply %.200s does not echo the text", buf)
			}
		})
	}
}
