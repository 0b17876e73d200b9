package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

// stdioPeer is the client end of a server running on a line stream over
// io.Pipes, as it would on stdio: the test writes raw bytes and reads the
// raw lines the server writes.
type stdioPeer struct {
	t     *testing.T
	w     io.WriteCloser
	lines chan []byte
	ss    *mcp.ServerSession
}

// maxLine is the server's MaxMessageSize in these tests.
const maxLine = 4 << 20

func newStdioPeer(t *testing.T, s *mcp.Server) *stdioPeer {
	t.Helper()
	toServer, clientW := io.Pipe()
	clientR, fromServer := io.Pipe()
	stream := transport.NewLineStream(toServer, fromServer, closers{toServer, fromServer}, &transport.LineOptions{MaxMessageSize: maxLine})
	ss := s.Connect(stream, nil)
	p := &stdioPeer{t: t, w: clientW, lines: make(chan []byte, 16), ss: ss}
	go func() {
		defer close(p.lines)
		br := bufio.NewReaderSize(clientR, 1<<16)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				p.lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		clientW.Close() // EOF: the server ends the session
		if err := ss.Wait(); err != nil {
			t.Errorf("ServerSession.Wait: %v", err)
		}
		for range p.lines {
			t.Errorf("server wrote after the test ended")
		}
	})
	return p
}

type closers []io.Closer

func (cs closers) Close() error {
	for _, c := range cs {
		c.Close()
	}
	return nil
}

func (p *stdioPeer) write(b []byte) {
	p.t.Helper()
	if _, err := p.w.Write(b); err != nil {
		p.t.Fatalf("writing to the server: %v", err)
	}
}

func (p *stdioPeer) read() []byte {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			p.t.Fatal("the server closed its output")
		}
		return line
	case <-time.After(waitTimeout):
		p.t.Fatal("timed out waiting for the server to write a line")
		return nil
	}
}

// wantErr is one expected error response: its id (raw JSON), code, and
// the start of its message.
type wantErr struct {
	id     string
	code   int64
	prefix string
}

// checkResponse checks that line is exactly the expected error response.
func checkResponse(t *testing.T, line []byte, w wantErr) {
	t.Helper()
	var resp struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result"`
		Error   *struct {
			Code    int64           `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&resp); err != nil {
		t.Fatalf("response %s: %v", line, err)
	}
	switch {
	case resp.JSONRPC != "2.0" || string(resp.ID) != w.id || resp.Result != nil || resp.Error == nil:
		t.Errorf("got %s, want an error response with id %s", line, w.id)
	case resp.Error.Code != w.code || !strings.HasPrefix(resp.Error.Message, w.prefix):
		t.Errorf("got %s, want error %d %q...", line, w.code, w.prefix)
	}
}

// deepNesting is a request whose params nest depth arrays.
func deepNesting(depth int, closed bool) []byte {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":77,"method":"ping","params":{"a":`)
	b.WriteString(strings.Repeat("[", depth))
	if closed {
		b.WriteString(strings.Repeat("]", depth))
		b.WriteString("}}")
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// garbage is n random bytes with no newline.
func garbage(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, n, n+1)
	for i := range b {
		b[i] = byte(r.UintN(256))
		if b[i] == '\n' {
			b[i] = 0
		}
	}
	return append(b, '\n')
}

// padded is a valid ping request of about n bytes.
func padded(id, n int) []byte {
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"pad":"%s"}}`+"\n", id, strings.Repeat("x", n)))
}

func TestStdioBadInput(t *testing.T) {
	parse := func(prefix string) []wantErr { return []wantErr{{"null", -32700, "parse error" + prefix}} }
	invalid := func(id string) []wantErr { return []wantErr{{id, -32600, "invalid request"}} }
	tooLarge := []wantErr{{"null", -32600, fmt.Sprintf("message too large (limit %d bytes)", maxLine)}}
	tests := []struct {
		name  string
		input []byte
		// want lists the error responses; nil means no response at all.
		// A result is given as its exact line in result instead.
		want   []wantErr
		batch  bool   // the response is a batch of want
		result string // the exact success response expected, if any
	}{
		{name: "truncated JSON", input: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"` + "\n"), want: parse("")},
		{name: "trailing garbage", input: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}}` + "\n"), want: parse("")},
		{name: "not JSON at all", input: []byte("hello world\n"), want: parse("")},
		{name: "single quotes", input: []byte(`{'jsonrpc':'2.0','id':1,'method':'ping'}` + "\n"), want: parse("")},
		{name: "invalid UTF-8", input: []byte(`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"` + "\xff\xfe" + `"}}` + "\n"), want: parse(": invalid UTF-8")},
		{name: "overlong UTF-8 encoding", input: []byte(`{"jsonrpc":"2.0","id":2,"method":"ping` + "\xc0\xaf" + `"}` + "\n"), want: parse(": invalid UTF-8")},
		{name: "byte order mark", input: []byte("\xef\xbb\xbf" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"), want: parse("")},
		{name: "NUL bytes", input: []byte("\x00\x00\x00\n"), want: parse("")},
		{name: "binary garbage", input: garbage(64 << 10), want: parse("")},
		{name: "method is a number", input: []byte(`{"jsonrpc":"2.0","id":3,"method":5}` + "\n"), want: invalid("3")},
		{name: "method is empty", input: []byte(`{"jsonrpc":"2.0","id":3,"method":""}` + "\n"), want: invalid("3")},
		{name: "params is a string", input: []byte(`{"jsonrpc":"2.0","id":4,"method":"ping","params":"x"}` + "\n"), want: invalid("4")},
		{name: "params is a number", input: []byte(`{"jsonrpc":"2.0","id":"four","method":"ping","params":4}` + "\n"), want: invalid(`"four"`)},
		{name: "params is null", input: []byte(`{"jsonrpc":"2.0","id":4,"method":"ping","params":null}` + "\n"), want: invalid("4")},
		{name: "null id", input: []byte(`{"jsonrpc":"2.0","id":null,"method":"ping"}` + "\n"), want: invalid("null")},
		{name: "float id", input: []byte(`{"jsonrpc":"2.0","id":1.5,"method":"ping"}` + "\n"), want: invalid("null")},
		{name: "exponent id", input: []byte(`{"jsonrpc":"2.0","id":1e3,"method":"ping"}` + "\n"), want: invalid("null")},
		{name: "id out of range", input: []byte(`{"jsonrpc":"2.0","id":99999999999999999999,"method":"ping"}` + "\n"), want: invalid("null")},
		{name: "object id", input: []byte(`{"jsonrpc":"2.0","id":{},"method":"ping"}` + "\n"), want: invalid("null")},
		{name: "boolean id", input: []byte(`{"jsonrpc":"2.0","id":true,"method":"ping"}` + "\n"), want: invalid("null")},
		{name: "repeated id", input: []byte(`{"jsonrpc":"2.0","id":5,"id":6,"method":"ping"}` + "\n"), want: invalid("null")},
		{name: "no jsonrpc member", input: []byte(`{"id":7,"method":"ping"}` + "\n"), want: invalid("7")},
		{name: "jsonrpc 1.0", input: []byte(`{"jsonrpc":"1.0","id":7,"method":"ping"}` + "\n"), want: invalid("7")},
		{name: "request with a result", input: []byte(`{"jsonrpc":"2.0","id":8,"method":"ping","result":{}}` + "\n"), want: invalid("8")},
		{name: "null", input: []byte("null\n"), want: invalid("null")},
		{name: "number", input: []byte("42\n"), want: invalid("null")},
		{name: "string", input: []byte(`"ping"` + "\n"), want: invalid("null")},
		{name: "empty object", input: []byte("{}\n"), want: invalid("null")},
		{name: "unknown method", input: []byte(`{"jsonrpc":"2.0","id":9,"method":"no/such/method"}` + "\n"), want: []wantErr{{"9", -32601, "method not found"}}},
		{name: "tools/call with a name of the wrong type", input: []byte(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":5}}` + "\n"), want: []wantErr{{"10", -32602, "invalid params"}}},
		{name: "tools/call with arguments of the wrong type", input: []byte(`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"echo","arguments":[1]}}` + "\n"),
			result: `{"jsonrpc":"2.0","id":11,"result":{"content":[{"type":"text","text":"invalid arguments for tool \"echo\": `},
		{name: "200000 levels of nesting", input: deepNesting(200000, true), want: parse("")},
		{name: "200000 unclosed brackets", input: deepNesting(200000, false), want: parse("")},
		{name: "8 MiB line over the size limit", input: padded(12, 8<<20), want: tooLarge},
		{name: "8 MiB of binary over the size limit", input: garbage(8 << 20), want: tooLarge},
		{name: "large line under the limit", input: padded(13, 3<<20), result: `{"jsonrpc":"2.0","id":13,"result":{}}`},
		{name: "empty batch", input: []byte("[]\n"), want: invalid("null")},
		{name: "batch of non-objects", input: []byte("[1,2]\n"), batch: true, want: []wantErr{{"null", -32600, "invalid request"}, {"null", -32600, "invalid request"}}},
		{name: "batch with invalid elements", batch: true,
			input: []byte(`[1,{"jsonrpc":"2.0","id":"b1","method":"no/such"},{"foo":1},{"jsonrpc":"2.0","id":null,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"zz"}}]` + "\n"),
			want:  []wantErr{{"null", -32600, "invalid request"}, {`"b1"`, -32601, "method not found"}, {"null", -32600, "invalid request"}, {"null", -32600, "invalid request"}}},
		{name: "batch of notifications only", input: []byte(`[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}},{"jsonrpc":"2.0","method":"notifications/unknown"}]` + "\n")},
		{name: "unsolicited response", input: []byte(`{"jsonrpc":"2.0","id":99,"result":{}}` + "\n")},
		{name: "unsolicited error", input: []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"x"}}` + "\n")},
		{name: "unknown notification", input: []byte(`{"jsonrpc":"2.0","method":"notifications/whatever","params":{"x":[1,2]}}` + "\n")},
		{name: "cancel an unknown request", input: []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"nope"}}` + "\n")},
		{name: "cancel with bad params", input: []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.5}}` + "\n")},
		{name: "blank lines", input: []byte("\n  \n\t\r\n")},
		{name: "CRLF line", input: []byte(`{"jsonrpc":"2.0","id":14,"method":"ping"}` + "\r\n"), result: `{"jsonrpc":"2.0","id":14,"result":{}}`},
		{name: "second initialize", input: []byte(`{"jsonrpc":"2.0","id":15,"method":"initialize","params":` + initParams + `}` + "\n"), want: invalid("15")},
	}
	for _, rev := range []string{mcp.Version20250326, mcp.Version20251125} {
		t.Run(rev, func(t *testing.T) {
			t.Parallel()
			s := mcp.NewServer(serverImpl, nil)
			mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
				S string `json:"s"`
			}) (string, error) {
				return in.S, nil
			})
			p := newStdioPeer(t, s)
			p.write([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + rev + `","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}` + "\n"))
			if line := p.read(); !bytes.Contains(line, []byte(`"protocolVersion":"`+rev+`"`)) {
				t.Fatalf("initialize: %s", line)
			}
			p.write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))

			for i, tt := range tests {
				p.write(tt.input)
				isBatch := bytes.HasPrefix(tt.input, []byte("[")) && !bytes.HasPrefix(tt.input, []byte("[]"))
				switch {
				case isBatch && rev != mcp.Version20250326:
					// Batches exist only in 2025-03-26: elsewhere the
					// whole batch gets one error.
					checkResponse(t, p.read(), wantErr{"null", -32600, "invalid request: batches exist only in protocol revision 2025-03-26"})
				case tt.result != "":
					if line := p.read(); !bytes.HasPrefix(line, []byte(tt.result)) {
						t.Errorf("%s: got %s, want %s", tt.name, shorten(line), tt.result)
					}
				case tt.batch:
					line := p.read()
					var elems []json.RawMessage
					if err := json.Unmarshal(line, &elems); err != nil || len(elems) != len(tt.want) {
						t.Errorf("%s: got %s, want a batch of %d responses (%v)", tt.name, line, len(tt.want), err)
						break
					}
					for j, w := range tt.want {
						checkResponse(t, elems[j], w)
					}
				default:
					for _, w := range tt.want {
						checkResponse(t, p.read(), w)
					}
				}
				// The same connection still answers, and nothing else was
				// written in between.
				id := 1000 + i
				p.write([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", id)))
				if line, want := p.read(), fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`+"\n", id); string(line) != want {
					t.Fatalf("after %s: got %s, want %s", tt.name, shorten(line), want)
				}
			}
			// A real call still works at the end.
			p.write([]byte(`{"jsonrpc":"2.0","id":"last","method":"tools/call","params":{"name":"echo","arguments":{"s":"still here"}}}` + "\n"))
			if line := p.read(); !bytes.Contains(line, []byte(`"text":"still here"`)) {
				t.Errorf("final call: %s", line)
			}
		})
	}
}

// TestStdioEOFMidLine checks that a client that disconnects in the middle
// of a line ends the session cleanly.
func TestStdioEOFMidLine(t *testing.T) {
	p := newStdioPeer(t, mcp.NewServer(serverImpl, nil))
	p.write([]byte(`{"jsonrpc":"2.0","id":1,"method":"pi`))
	p.w.Close()
	// The unterminated line is still a message: answered as unparseable.
	checkResponse(t, p.read(), wantErr{"null", -32700, "parse error"})
	select {
	case <-p.ss.Done():
	case <-time.After(waitTimeout):
		t.Fatal("session did not end at EOF")
	}
}
