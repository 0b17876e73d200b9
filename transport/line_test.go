package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
)

// describe summarises a message for comparisons: its wire form when valid,
// its error code when not, and the message too when the transport wrote it
// (the rest belong to jsonrpc.Decode).
func describe(m *jsonrpc.Message) string {
	if m.Invalid != nil {
		if strings.HasPrefix(m.Invalid.Message, "message too large") {
			return fmt.Sprintf("invalid %d %s", m.Invalid.Code, m.Invalid.Message)
		}
		return fmt.Sprintf("invalid %d", m.Invalid.Code)
	}
	return string(m.AppendJSON(nil))
}

// readAll reads s to the end and describes every message. It fails the test
// if the stream ends with anything but io.EOF.
func readAll(t testing.TB, s jsonrpc.Stream) []string {
	t.Helper()
	var got []string
	for {
		m, err := s.Read(context.Background())
		if err == io.EOF {
			return got
		}
		if err != nil {
			t.Fatalf("Read: %v after %d messages", err, len(got))
		}
		if m == nil {
			t.Fatal("Read returned a nil message and no error")
		}
		got = append(got, describe(m))
	}
}

// readerVariants wraps input in readers that deliver it in different
// chunkings, paired with bufio sizes small enough to split every line.
var readerVariants = []struct {
	name    string
	wrap    func(io.Reader) io.Reader
	bufSize int
}{
	{"whole", func(r io.Reader) io.Reader { return r }, readBufferSize},
	{"one-byte", iotest.OneByteReader, readBufferSize},
	{"half", iotest.HalfReader, readBufferSize},
	{"small-buffer", func(r io.Reader) io.Reader { return r }, 16},
	{"small-buffer-one-byte", iotest.OneByteReader, 16},
	{"data-err", iotest.DataErrReader, 16},
}

const (
	reqLine   = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	notifLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

func TestLineStreamRead(t *testing.T) {
	tooLarge := func(n int) string { return fmt.Sprintf("invalid -32600 message too large (limit %d bytes)", n) }
	// padTo pads reqLine with spaces inside the object to exactly n bytes.
	padTo := func(n int) string {
		return reqLine[:len(reqLine)-1] + strings.Repeat(" ", n-len(reqLine)) + "}"
	}
	limit := 64
	tests := []struct {
		name  string
		in    string
		limit int
		want  []string
	}{
		{"empty input", "", 0, nil},
		{"only blank lines", "\n\n\r\n \t \n", 0, nil},
		{"one request", reqLine + "\n", 0, []string{reqLine}},
		{"CRLF", reqLine + "\r\n" + notifLine + "\r\n", 0, []string{reqLine, notifLine}},
		{"blank lines between", "\n" + reqLine + "\n\n\r\n   \n" + notifLine + "\n\n", 0, []string{reqLine, notifLine}},
		{"final line without newline", reqLine + "\n" + notifLine, 0, []string{reqLine, notifLine}},
		{"final line with CR only", reqLine + "\r", 0, []string{reqLine}},
		{"surrounding whitespace", "  " + reqLine + "\t\r\n", 0, []string{reqLine}},
		{"batch", "[" + reqLine + "," + notifLine + "]\n", 0, []string{"[" + reqLine + "," + notifLine + "]"}},
		{"parse error then valid", "{oops\n" + reqLine + "\n", 0, []string{"invalid -32700", reqLine}},
		{"truncated final line", reqLine[:10], 0, []string{"invalid -32700"}},
		{"not an object", "42\n", 0, []string{"invalid -32600"}},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"method\":\"\xff\xfe\"}\n" + reqLine + "\n", 0, []string{"invalid -32700", reqLine}},
		{"binary garbage", "\x00\x01\x02\xff\x7f\x00garbage\x00\n" + reqLine + "\n", 0, []string{"invalid -32700", reqLine}},
		{"NUL bytes", "\x00\x00\x00\n", 0, []string{"invalid -32700"}},
		{"deep nesting", strings.Repeat("[", 200000) + "\n" + reqLine + "\n", 0, []string{"invalid -32700", reqLine}},
		{"exactly at limit", padTo(limit) + "\n", limit, []string{reqLine}},
		{"exactly at limit CRLF", padTo(limit) + "\r\n", limit, []string{reqLine}},
		{"exactly at limit at EOF", padTo(limit), limit, []string{reqLine}},
		{"one above limit", padTo(limit+1) + "\n" + reqLine + "\n", limit, []string{tooLarge(limit), reqLine}},
		{"one above limit CRLF", padTo(limit+1) + "\r\n" + reqLine + "\n", limit, []string{tooLarge(limit), reqLine}},
		{"far above limit", strings.Repeat("x", 10*limit) + "\n" + reqLine + "\n", limit, []string{tooLarge(limit), reqLine}},
		{"above limit at EOF", strings.Repeat("x", 10*limit), limit, []string{tooLarge(limit)}},
		{"two oversized in a row", strings.Repeat("x", 3*limit) + "\n" + strings.Repeat("y", 2*limit) + "\r\n", limit,
			[]string{tooLarge(limit), tooLarge(limit)}},
		{"oversized blank line", strings.Repeat(" ", 3*limit) + "\n" + reqLine + "\n", limit, []string{tooLarge(limit), reqLine}},
	}
	for _, tt := range tests {
		for _, v := range readerVariants {
			t.Run(tt.name+"/"+v.name, func(t *testing.T) {
				s := newLineStream(v.wrap(strings.NewReader(tt.in)), io.Discard, nil,
					&LineOptions{MaxMessageSize: tt.limit}, v.bufSize)
				got := readAll(t, s)
				if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
					t.Errorf("got  %q\nwant %q", got, tt.want)
				}
				// EOF is sticky for a reader that stays at its end.
				if _, err := s.Read(context.Background()); err != io.EOF {
					t.Errorf("Read after EOF: %v, want io.EOF", err)
				}
			})
		}
	}
}

func TestLineStreamHugeLines(t *testing.T) {
	const size = 8 << 20
	garbage := strings.Repeat("x", size)
	params := `{"data":"` + strings.Repeat("a", size) + `"}`
	valid := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":` + params + "}"
	tests := []struct {
		name     string
		in       string
		limit    int
		want     int64 // code of the first message, 0 for a valid one
		wantText string
	}{
		{"8 MiB garbage, default limit", garbage, 0, jsonrpc.CodeParseError, ""},
		{"8 MiB garbage, tiny limit", garbage, 1024, jsonrpc.CodeInvalidRequest, "message too large (limit 1024 bytes)"},
		{"8 MiB message, default limit", valid, 0, 0, ""},
		{"8 MiB message, tiny limit", valid, 1024, jsonrpc.CodeInvalidRequest, "message too large (limit 1024 bytes)"},
		{"8 MiB message, limit just below", valid, len(valid) - 1, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message too large (limit %d bytes)", len(valid)-1)},
		{"8 MiB message, limit exact", valid, len(valid), 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in + "\r\n" + reqLine + "\n"
			s := newLineStream(strings.NewReader(in), io.Discard, nil, &LineOptions{MaxMessageSize: tt.limit}, readBufferSize)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			m, err := s.Read(context.Background())
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			// An over-long line is skipped, not buffered whole.
			if alloc := after.TotalAlloc - before.TotalAlloc; tt.limit == 1024 && alloc > 1<<20 {
				t.Errorf("reading a line over the limit allocated %d bytes", alloc)
			}
			switch {
			case tt.want == 0 && m.Invalid != nil:
				t.Fatalf("got invalid %v", m.Invalid)
			case tt.want == 0:
				if m.Method != "tools/call" || string(m.Params) != params {
					t.Fatalf("message mangled: method %q, %d bytes of params", m.Method, len(m.Params))
				}
			case m.Invalid == nil || m.Invalid.Code != tt.want || (tt.wantText != "" && m.Invalid.Message != tt.wantText):
				t.Fatalf("got %+v, want code %d %q", m.Invalid, tt.want, tt.wantText)
			}
			if cap(s.line) > maxRetainedLine {
				t.Errorf("line buffer of %d bytes retained", cap(s.line))
			}
			if got := readAll(t, s); len(got) != 1 || got[0] != reqLine {
				t.Errorf("after the huge line: %q", got)
			}
		})
	}
}

func TestDefaultMaxMessageSize(t *testing.T) {
	for _, o := range []*LineOptions{nil, {}, {MaxMessageSize: -1}} {
		if got := o.maxMessageSize(); got != DefaultMaxMessageSize {
			t.Errorf("%+v: max %d, want %d", o, got, DefaultMaxMessageSize)
		}
	}
	if got := (&LineOptions{MaxMessageSize: 5}).maxMessageSize(); got != 5 {
		t.Errorf("max %d, want 5", got)
	}
}

// callRecorder records every Write call it receives.
type callRecorder struct {
	mu    sync.Mutex
	calls [][]byte
}

func (w *callRecorder) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls = append(w.calls, bytes.Clone(p))
	return len(p), nil
}

func TestLineStreamWrite(t *testing.T) {
	tests := []struct {
		name string
		m    *jsonrpc.Message
		want string
	}{
		{"request", jsonrpc.NewRequest(jsonrpc.Int64ID(1), "tools/call", json.RawMessage(`{"name":"x"}`)),
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`},
		{"notification", jsonrpc.NewNotification("notifications/initialized", nil),
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{"response", jsonrpc.NewResponse(jsonrpc.StringID("a"), nil), `{"jsonrpc":"2.0","id":"a","result":{}}`},
		{"error", jsonrpc.NewErrorResponse(jsonrpc.ID{}, jsonrpc.NewError(-32700, "parse error")),
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`},
		{"indented params are compacted",
			jsonrpc.NewRequest(jsonrpc.Int64ID(2), "x", json.RawMessage("{\n  \"a\": \"line\\nbreak\",\r\n  \"b\": [1,\n 2]\n}")),
			`{"jsonrpc":"2.0","id":2,"method":"x","params":{"a":"line\nbreak","b":[1,2]}}`},
		{"newline in method is escaped", jsonrpc.NewNotification("a\nb", nil),
			`{"jsonrpc":"2.0","method":"a\nb"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w callRecorder
			s := NewLineStream(strings.NewReader(""), &w, nil, nil)
			if err := s.Write(context.Background(), tt.m); err != nil {
				t.Fatal(err)
			}
			if len(w.calls) != 1 {
				t.Fatalf("%d Write calls, want 1", len(w.calls))
			}
			if got := string(w.calls[0]); got != tt.want+"\n" {
				t.Fatalf("wrote %q\nwant  %q", got, tt.want+"\n")
			}
			// What was written reads back as the same message.
			back := readAll(t, NewLineStream(bytes.NewReader(w.calls[0]), io.Discard, nil, nil))
			if len(back) != 1 || back[0] != tt.want {
				t.Errorf("read back %q", back)
			}
		})
	}
}

func TestLineStreamWriteErrors(t *testing.T) {
	t.Run("invalid JSON with newline", func(t *testing.T) {
		var w callRecorder
		s := NewLineStream(strings.NewReader(""), &w, nil, nil)
		err := s.Write(context.Background(), jsonrpc.NewRequest(jsonrpc.Int64ID(1), "x", json.RawMessage("{\n")))
		if err == nil || len(w.calls) != 0 {
			t.Fatalf("err %v, %d writes; want an error and no write", err, len(w.calls))
		}
	})
	t.Run("nil message", func(t *testing.T) {
		s := NewLineStream(strings.NewReader(""), io.Discard, nil, nil)
		if err := s.Write(context.Background(), nil); err == nil {
			t.Fatal("no error")
		}
	})
	t.Run("writer error", func(t *testing.T) {
		boom := errors.New("boom")
		s := NewLineStream(strings.NewReader(""), errWriter{boom}, nil, nil)
		if err := s.Write(context.Background(), jsonrpc.NewNotification("x", nil)); !errors.Is(err, boom) {
			t.Fatalf("err %v, want %v", err, boom)
		}
	})
	t.Run("flush", func(t *testing.T) {
		var out bytes.Buffer
		bw := bufio.NewWriterSize(&out, 4096)
		s := NewLineStream(strings.NewReader(""), bw, nil, nil)
		if err := s.Write(context.Background(), jsonrpc.NewNotification("x", nil)); err != nil {
			t.Fatal(err)
		}
		if got := out.String(); got != `{"jsonrpc":"2.0","method":"x"}`+"\n" {
			t.Fatalf("underlying writer got %q", got)
		}
	})
}

type errWriter struct{ err error }

func (w errWriter) Write([]byte) (int, error) { return 0, w.err }

// trickleWriter accepts writes one byte at a time, yielding in between, so
// that unsynchronised concurrent writers would interleave.
type trickleWriter struct {
	mu  sync.Mutex
	buf []byte
}

func (w *trickleWriter) Write(p []byte) (int, error) {
	for _, c := range p {
		w.mu.Lock()
		w.buf = append(w.buf, c)
		w.mu.Unlock()
		runtime.Gosched()
	}
	return len(p), nil
}

func TestLineStreamConcurrentWrite(t *testing.T) {
	const writers, each = 8, 50
	var w trickleWriter
	s := NewLineStream(strings.NewReader(""), &w, nil, nil)
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range each {
				// Params of varying size make torn lines visible.
				p := fmt.Sprintf(`{"g":%d,"pad":%q}`, g, strings.Repeat("z", (g*each+i)%97))
				m := jsonrpc.NewRequest(jsonrpc.Int64ID(int64(g*each+i)), "w", json.RawMessage(p))
				if err := s.Write(context.Background(), m); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	seen := make(map[int64]bool)
	r := NewLineStream(bytes.NewReader(w.buf), io.Discard, nil, nil)
	for {
		m, err := r.Read(context.Background())
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if m.Invalid != nil {
			t.Fatalf("torn line: %v", m.Invalid)
		}
		id, _ := m.ID.Int64()
		if seen[id] {
			t.Fatalf("id %d twice", id)
		}
		seen[id] = true
	}
	if len(seen) != writers*each {
		t.Fatalf("read %d messages, want %d", len(seen), writers*each)
	}
}

// countingCloser counts Close calls and returns err from the first.
type countingCloser struct {
	mu  sync.Mutex
	n   int
	err error
}

func (c *countingCloser) Close() error {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	return c.err
}

func TestLineStreamClose(t *testing.T) {
	boom := errors.New("boom")
	c := &countingCloser{err: boom}
	var w callRecorder
	s := NewLineStream(strings.NewReader(reqLine+"\n"), &w, c, nil)
	if err := s.Close(); err != boom {
		t.Fatalf("first Close: %v, want %v", err, boom)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v, want nil", err)
	}
	if c.n != 1 {
		t.Fatalf("closer closed %d times", c.n)
	}
	if err := s.Write(context.Background(), jsonrpc.NewNotification("x", nil)); err != jsonrpc.ErrClosed {
		t.Fatalf("Write after Close: %v", err)
	}
	if len(w.calls) != 0 {
		t.Fatal("Write after Close reached the writer")
	}
	if _, err := s.Read(context.Background()); err != jsonrpc.ErrClosed {
		t.Fatalf("Read after Close: %v", err)
	}
	// A nil closer is fine.
	if err := NewLineStream(strings.NewReader(""), io.Discard, nil, nil).Close(); err != nil {
		t.Fatal(err)
	}
}

func TestLineStreamReadContext(t *testing.T) {
	t.Run("already done", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		s := NewLineStream(strings.NewReader(reqLine+"\n"), io.Discard, nil, nil)
		if _, err := s.Read(ctx); err != context.Canceled {
			t.Fatalf("Read: %v, want context.Canceled", err)
		}
		// The message is still there for the next Read.
		if got := readAll(t, s); len(got) != 1 {
			t.Fatalf("got %q", got)
		}
	})

	t.Run("blocked read on a pipe, partial line kept", func(t *testing.T) {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer pw.Close()
		s := NewLineStream(pr, io.Discard, pr, nil)
		defer s.Close()
		if _, err := pw.WriteString(reqLine[:15]); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		start := time.Now()
		if _, err := s.Read(ctx); err != context.DeadlineExceeded {
			t.Fatalf("Read: %v, want context.DeadlineExceeded", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("Read took %v to notice its context", d)
		}
		if _, err := pw.WriteString(reqLine[15:] + "\n"); err != nil {
			t.Fatal(err)
		}
		// The expired deadline must have been cleared, and the first half
		// of the line kept.
		ctx2, cancel2 := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel2()
		m, err := s.Read(ctx2)
		if err != nil {
			t.Fatal(err)
		}
		if got := describe(m); got != reqLine {
			t.Fatalf("got %q", got)
		}
		// Many short-lived contexts that never fire leave no trace either.
		for i := range 50 {
			if _, err := fmt.Fprintf(pw, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			m, err := s.Read(ctx)
			cancel()
			if err != nil || m.Invalid != nil {
				t.Fatalf("read %d: %v %v", i, err, m)
			}
		}
	})

	t.Run("blocked read ends on Close", func(t *testing.T) {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer pw.Close()
		s := NewLineStream(pr, io.Discard, pr, nil)
		done := make(chan error, 1)
		go func() {
			_, err := s.Read(context.Background())
			done <- err
		}()
		time.Sleep(20 * time.Millisecond)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-done:
			if err != jsonrpc.ErrClosed {
				t.Fatalf("Read: %v, want ErrClosed", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Read still blocked after Close")
		}
	})
}

// TestLineStreamRoundTrip writes messages of every kind through one stream
// and reads them back through another over an in-process pipe.
func TestLineStreamRoundTrip(t *testing.T) {
	msgs := []*jsonrpc.Message{
		jsonrpc.NewRequest(jsonrpc.Int64ID(1), "initialize", json.RawMessage(`{"protocolVersion":"2025-06-18"}`)),
		jsonrpc.NewRequest(jsonrpc.StringID("é\u2028"), "tools/call", json.RawMessage(`["x"]`)),
		jsonrpc.NewNotification("notifications/progress", json.RawMessage(`{"progress":1}`)),
		jsonrpc.NewResponse(jsonrpc.Int64ID(-5), json.RawMessage(`{"tools":[]}`)),
		jsonrpc.NewErrorResponse(jsonrpc.Int64ID(9), jsonrpc.NewError(-32601, "method not found").WithData(map[string]string{"m": "x"})),
		{Batch: []*jsonrpc.Message{
			jsonrpc.NewRequest(jsonrpc.Int64ID(2), "ping", nil),
			jsonrpc.NewNotification("n", nil),
		}},
	}
	pr, pw := io.Pipe()
	w := NewLineStream(strings.NewReader(""), pw, pw, nil)
	r := NewLineStream(pr, io.Discard, pr, nil)
	defer r.Close()
	go func() {
		for _, m := range msgs {
			if err := w.Write(context.Background(), m); err != nil {
				t.Error(err)
			}
		}
		w.Close()
	}()
	got := readAll(t, r)
	if len(got) != len(msgs) {
		t.Fatalf("read %d messages, want %d", len(got), len(msgs))
	}
	for i, m := range msgs {
		if want := string(m.AppendJSON(nil)); got[i] != want {
			t.Errorf("message %d: got %s, want %s", i, got[i], want)
		}
	}
}

// FuzzLineStream feeds arbitrary bytes to a line stream, which must never
// panic, must return only messages (batches within MaxBatch) and then
// io.EOF, and must frame the input the same way however it is chunked.
func FuzzLineStream(f *testing.F) {
	for _, seed := range []string{
		"", "\n", "\r\n", reqLine + "\n", reqLine + "\r\n" + notifLine,
		"[" + reqLine + "]\n[]\n[1]\n", "{\n}\n", "\xff\n", "\x00", strings.Repeat("[", 100),
		strings.Repeat("x", 100) + "\n" + reqLine, `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n",
		`{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}`,
		"[{},{},{}]\n[{},{},{},{}]\n",
	} {
		f.Add([]byte(seed))
	}
	const limit = 64
	f.Fuzz(func(t *testing.T, data []byte) {
		var first []string
		for i, v := range readerVariants {
			s := newLineStream(v.wrap(bytes.NewReader(data)), io.Discard, nil, &LineOptions{MaxMessageSize: limit, MaxBatch: 3}, v.bufSize)
			var got []string
			for {
				m, err := s.Read(context.Background())
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("%s: Read: %v", v.name, err)
				}
				if m == nil {
					t.Fatalf("%s: nil message", v.name)
				}
				if len(m.Batch) > 3 {
					t.Fatalf("%s: a batch of %d messages, over MaxBatch", v.name, len(m.Batch))
				}
				if m.Invalid == nil && !json.Valid(m.AppendJSON(nil)) {
					t.Fatalf("%s: valid message encodes to invalid JSON: %q", v.name, m.AppendJSON(nil))
				}
				got = append(got, describe(m))
				if len(got) > bytes.Count(data, []byte{'\n'})+1 {
					t.Fatalf("%s: more messages than lines", v.name)
				}
			}
			if i == 0 {
				first = got
			} else if strings.Join(got, "\n") != strings.Join(first, "\n") {
				t.Fatalf("%s framed differently:\n%q\nvs\n%q", v.name, got, first)
			}
		}
	})
}
