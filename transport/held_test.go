package transport

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
)

// The line stream is a jsonrpc.HoldingStream.
var _ jsonrpc.HoldingStream = (*lineStream)(nil)

// TestLineStreamWriteHeld: lines written with WriteHeld stay back until
// something sends them, and then go out first, in order, in one call to
// the writer.
func TestLineStreamWriteHeld(t *testing.T) {
	ctx := context.Background()
	resp := func(id int64) *jsonrpc.Message {
		return jsonrpc.NewResponse(jsonrpc.Int64ID(id), json.RawMessage(`{}`))
	}
	line := func(id int64) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`+"\n", id) }
	tests := []struct {
		name  string
		input string
		// release sends what is held, possibly with more.
		release func(t *testing.T, s *lineStream)
		want    []string // the writer's calls after release
	}{
		{"Write sends them before its own line", "",
			func(t *testing.T, s *lineStream) {
				if err := s.Write(ctx, resp(3)); err != nil {
					t.Fatal(err)
				}
			},
			[]string{line(1) + line(2) + line(3)}},
		{"FlushHeld", "",
			func(t *testing.T, s *lineStream) {
				if err := s.FlushHeld(); err != nil {
					t.Fatal(err)
				}
				if err := s.FlushHeld(); err != nil { // nothing more
					t.Fatal(err)
				}
			},
			[]string{line(1) + line(2)}},
		{"a Read that needs input", reqLine + "\n",
			func(t *testing.T, s *lineStream) {
				if _, err := s.Read(ctx); err != nil {
					t.Fatal(err)
				}
			},
			[]string{line(1) + line(2)}},
		{"Close", "",
			func(t *testing.T, s *lineStream) {
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
			},
			[]string{line(1) + line(2)}},
		{"closeWrite", "",
			func(_ *testing.T, s *lineStream) { s.closeWrite() },
			[]string{line(1) + line(2)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w callRecorder
			s := newLineStream(strings.NewReader(tt.input), &w, nil, nil, readBufferSize)
			for id := int64(1); id <= 2; id++ {
				if err := s.WriteHeld(ctx, resp(id)); err != nil {
					t.Fatal(err)
				}
			}
			if len(w.calls) != 0 {
				t.Fatalf("%d writes before release, want none", len(w.calls))
			}
			tt.release(t, s)
			var got []string
			for _, c := range w.calls {
				got = append(got, string(c))
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("writes %q\nwant   %q", got, tt.want)
			}
		})
	}
}

// TestLineStreamWriteHeldLimits: held lines go out at once past maxHeld;
// after Close WriteHeld fails; a message that cannot be framed is refused
// without disturbing what is held.
func TestLineStreamWriteHeldLimits(t *testing.T) {
	ctx := context.Background()
	t.Run("maxHeld", func(t *testing.T) {
		var w callRecorder
		s := newLineStream(strings.NewReader(""), &w, nil, nil, readBufferSize)
		big := jsonrpc.NewResponse(jsonrpc.Int64ID(1), json.RawMessage(`"`+strings.Repeat("x", maxHeld)+`"`))
		if err := s.WriteHeld(ctx, big); err != nil {
			t.Fatal(err)
		}
		if len(w.calls) != 1 || s.hold.Load() {
			t.Fatalf("%d writes, holding %v; want the line written at once", len(w.calls), s.hold.Load())
		}
	})
	t.Run("closed", func(t *testing.T) {
		var w callRecorder
		s := newLineStream(strings.NewReader(""), &w, nil, nil, readBufferSize)
		_ = s.Close()
		if err := s.WriteHeld(ctx, jsonrpc.NewResponse(jsonrpc.Int64ID(1), nil)); err != jsonrpc.ErrClosed {
			t.Fatalf("err %v, want ErrClosed", err)
		}
		if err := s.WriteHeld(ctx, nil); err == nil {
			t.Fatal("nil message accepted")
		}
	})
	t.Run("unframable", func(t *testing.T) {
		var w callRecorder
		s := newLineStream(strings.NewReader(""), &w, nil, nil, readBufferSize)
		if err := s.WriteHeld(ctx, jsonrpc.NewResponse(jsonrpc.Int64ID(1), json.RawMessage(`1`))); err != nil {
			t.Fatal(err)
		}
		if err := s.WriteHeld(ctx, jsonrpc.NewResponse(jsonrpc.Int64ID(2), json.RawMessage("{\n"))); err == nil {
			t.Fatal("unframable message accepted")
		}
		if err := s.FlushHeld(); err != nil {
			t.Fatal(err)
		}
		if len(w.calls) != 1 || string(w.calls[0]) != `{"jsonrpc":"2.0","id":1,"result":1}`+"\n" {
			t.Fatalf("writes %q", w.calls)
		}
	})
}

// TestPipelinedAnswersCoalesce: requests that arrive together run on the
// reader and their answers go out together: far fewer writes than
// answers, every answer there once.
func TestPipelinedAnswersCoalesce(t *testing.T) {
	const n = 64
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	w := &countingWriter{w: outW}
	h := jsonrpc.HandlerFunc(func(_ context.Context, m *jsonrpc.Message) (any, error) {
		return json.RawMessage(`"ok"`), nil
	})
	c := jsonrpc.NewConn(NewLineStream(inR, w, closers{inR, outW}, nil), jsonrpc.ConnOptions{Handler: h})
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"x"}`+"\n", i)
	}
	go func() { _, _ = io.WriteString(inW, b.String()) }()
	out := bufio.NewReader(outR)
	seen := map[string]bool{}
	for range n {
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			ID     json.RawMessage
			Result string
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.Result != "ok" || seen[string(r.ID)] {
			t.Fatalf("answer %q (err %v)", line, err)
		}
		seen[string(r.ID)] = true
	}
	// A handover to another reader (a handler slower than the budget, as
	// under the race detector on a loaded machine) costs a write or two;
	// one write per answer would mean nothing was held.
	if got := w.count(); got > n/4 {
		t.Errorf("%d writes for %d answers, want at most %d", got, n, n/4)
	}
	_ = inW.Close()
	_ = c.Wait()
	_ = outR.Close()
}

// TestHeldAnswerNotStuckBehindSlowHandler: the answer to a request run
// inline is sent even though the next request, also run inline, blocks
// until it is cancelled.
func TestHeldAnswerNotStuckBehindSlowHandler(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var c *jsonrpc.Conn
	h := jsonrpc.HandlerFunc(func(ctx context.Context, m *jsonrpc.Message) (any, error) {
		switch m.Method {
		case "block":
			<-ctx.Done()
			return nil, ctx.Err()
		case "notifications/cancelled":
			c.CancelIncoming(jsonrpc.Int64ID(1))
			return nil, nil
		}
		return json.RawMessage(`"fast"`), nil
	})
	c = jsonrpc.NewConn(NewLineStream(inR, outW, closers{inR, outW}, nil), jsonrpc.ConnOptions{Handler: h})
	go func() {
		_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","id":2,"method":"fast"}`+"\n"+`{"jsonrpc":"2.0","id":1,"method":"block"}`+"\n")
	}()
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(outR).ReadString('\n')
		got <- line
	}()
	select {
	case line := <-got:
		if !strings.Contains(line, `"id":2`) {
			t.Fatalf("first answer %s", line)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the answer before a blocked handler was held")
	}
	_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`+"\n")
	_ = inW.Close()
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	_ = outR.Close()
}

// countingWriter counts the Write calls it passes on.
type countingWriter struct {
	mu sync.Mutex
	n  int
	w  io.Writer
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.n++
	w.mu.Unlock()
	return w.w.Write(p)
}

func (w *countingWriter) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}
