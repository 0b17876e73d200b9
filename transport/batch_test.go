package transport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/internal/alloctest"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// stdioServer is an MCP server on a line stream, driven by the test as its
// client over pipes.
type stdioServer struct {
	t     *testing.T
	lines chan []byte // written in order by one goroutine
	out   *bufio.Reader
}

func newStdioServer(t *testing.T) *stdioServer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := mcp.NewServer(&mcp.Implementation{Name: "batch-test", Version: "1"}, nil)
	ss := s.Connect(NewLineStream(inR, outW, inR, nil), nil)
	p := &stdioServer{t: t, lines: make(chan []byte, 16), out: bufio.NewReaderSize(outR, 1<<20)}
	// Pipes block until the server reads: write on a goroutine, the line
	// and its newline apart so as not to copy it.
	done := make(chan struct{})
	go func() {
		defer close(done)
		for l := range p.lines {
			if _, err := inW.Write(l); err != nil {
				return
			}
			if _, err := inW.Write([]byte{'\n'}); err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		close(p.lines)
		_ = ss.Close()
		_ = outR.Close()
		_ = inW.Close()
		<-done
	})
	return p
}

// send queues one line for the server.
func (p *stdioServer) send(line []byte) { p.lines <- line }

// recv reads one line, giving up after ten seconds.
func (p *stdioServer) recv() []byte {
	p.t.Helper()
	type result struct {
		line []byte
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		l, err := p.out.ReadBytes('\n')
		ch <- result{l, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			p.t.Fatalf("reading the server's answer: %v", r.err)
		}
		return r.line
	case <-time.After(10 * time.Second):
		p.t.Fatal("no answer from the server")
		return nil
	}
}

func (p *stdioServer) initialize(version string) {
	p.t.Helper()
	p.send([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
	if line := p.recv(); !bytes.Contains(line, []byte(`"protocolVersion":"`+version+`"`)) {
		p.t.Fatalf("initialize: %s", line)
	}
	p.send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
}

// TestStdioBatchBomb sends a 4 MiB line of empty objects ([{},{},...]) to
// an MCP server on a line stream, before initialize and in sessions of
// 2025-03-26 (the one revision with batches: over the bound) and
// 2025-11-25 (none): each time it gets one short error with a null id, the
// server allocates a small multiple of the line at most, and it answers
// the next request.
func TestStdioBatchBomb(t *testing.T) {
	body := alloctest.TinyBatch(4 << 20 / 3)
	for _, version := range []string{"", mcp.Version20250326, mcp.Version20251125} {
		t.Run("session "+version, func(t *testing.T) {
			p := newStdioServer(t)
			if version != "" {
				p.initialize(version)
			}
			var reply []byte
			n := alloctest.Allocated(func() {
				p.send(body)
				reply = p.recv()
			})
			t.Logf("allocated %d bytes, %.1f× the line", n, float64(n)/float64(len(body)))
			// The line buffer grows by doubling to hold the line: about
			// twice its size, plus the bufio buffers.
			if limit := uint64(8 * len(body)); n > limit {
				t.Errorf("the server allocated %d bytes for a %d-byte line (%.0f×), want at most 8×", n, len(body), float64(n)/float64(len(body)))
			}
			var m struct {
				ID    json.RawMessage `json:"id"`
				Error *jsonrpc.Error  `json:"error"`
			}
			if len(reply) > 1024 || json.Unmarshal(reply, &m) != nil || string(m.ID) != "null" ||
				m.Error == nil || m.Error.Code != jsonrpc.CodeInvalidRequest {
				t.Fatalf("answer (%d bytes): %.300s", len(reply), reply)
			}
			p.send([]byte(`{"jsonrpc":"2.0","id":"alive","method":"ping"}`))
			if line := p.recv(); !bytes.Contains(line, []byte(`"id":"alive","result":{}`)) {
				t.Fatalf("ping after the batch: %s", line)
			}
		})
	}
}

// TestStdioBatchRefusedBeforeDecoding checks that an MCP server on a line
// stream refuses a batch, in a revision without batches, before decoding
// its elements: a batch of 1,000 (within the bound) empty objects costs it
// little more than the line, and gets one error naming the revision. At
// 2025-03-26 the same batch is answered element by element.
func TestStdioBatchRefusedBeforeDecoding(t *testing.T) {
	body := alloctest.TinyBatch(jsonrpc.DefaultMaxBatch)
	p := newStdioServer(t)
	p.initialize(mcp.Version20251125)
	var reply []byte
	n := alloctest.Allocated(func() {
		p.send(body)
		reply = p.recv()
	})
	if !bytes.Contains(reply, []byte(`"id":null`)) || !bytes.Contains(reply, []byte("2025-03-26")) {
		t.Fatalf("answer to a batch at 2025-11-25: %.300s", reply)
	}
	// Decoding the elements would take some 200 bytes each.
	if n > 64<<10 {
		t.Errorf("the server allocated %d bytes to refuse a %d-byte batch", n, len(body))
	}

	p = newStdioServer(t)
	p.initialize(mcp.Version20250326)
	p.send(body)
	reply = p.recv()
	var elems []json.RawMessage
	if err := json.Unmarshal(reply, &elems); err != nil || len(elems) != jsonrpc.DefaultMaxBatch {
		t.Fatalf("answer to a batch at 2025-03-26: %d elements (%v): %.200s", len(elems), err, reply)
	}
	if !strings.Contains(string(elems[0]), `"id":null`) {
		t.Errorf("element answer: %s", elems[0])
	}
}

// TestLineOptionsMaxBatch checks that LineOptions.MaxBatch bounds a batch.
func TestLineOptionsMaxBatch(t *testing.T) {
	in := string(alloctest.TinyBatch(3)) + "\n" + string(alloctest.TinyBatch(4)) + "\n"
	s := NewLineStream(strings.NewReader(in), io.Discard, nil, &LineOptions{MaxBatch: 3})
	if m, err := s.Read(t.Context()); err != nil || len(m.Batch) != 3 {
		t.Fatalf("batch of 3: %v, %v", m, err)
	}
	if m, err := s.Read(t.Context()); err != nil || m.Invalid == nil || !strings.Contains(m.Invalid.Message, "at most 3") {
		t.Fatalf("batch of 4: %v, %v", m, err)
	}
}
