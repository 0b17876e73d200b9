package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/gomcp/sdk/jsonrpc"
)

// direction is the way a message crossed the connection, as a transcript
// shows it: the client is on the left.
type direction string

const (
	clientToServer direction = "->"
	serverToClient direction = "<-"
)

// Transcript records the JSON-RPC messages of a connection in the order they
// were received, each with its direction, as the peer received it. Give it
// to Connect in Options.Transcript. The zero value is ready to use, and a
// Transcript is safe for concurrent use.
//
// Messages caused by one another, such as a request, the progress the
// server reports while handling it and its response, are always recorded
// in order. Messages that nothing orders, such as two calls made at once
// from different goroutines, are recorded in whatever order they happen
// to arrive in, so a golden transcript should come from a test that waits
// for each step before the next.
type Transcript struct {
	mu      sync.Mutex
	lines   []string
	aliases map[string]map[string]int // member name -> raw value -> alias number
}

// String returns the transcript, one message per line in compact JSON,
// each line starting with its direction ("-> " from the client, "<- "
// from the server) and ending with a newline. The values of members that
// differ from run to run are replaced by numbered placeholders, the same
// value by the same placeholder: "progressToken" (the client numbers
// progress tokens across all its sessions) and "requestState" (sealed with
// a random key per server) become "<progressToken 1>", "<requestState 1>"
// and so on. Otherwise a line is the message as a stream transport encodes
// it (jsonrpc.Message.AppendJSON), with insignificant white space removed:
// the members of each object in the order the SDK writes them, which does
// not vary from run to run.
func (tr *Transcript) String() string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var b strings.Builder
	for _, l := range tr.lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// add records one message.
func (tr *Transcript) add(d direction, m *jsonrpc.Message) {
	raw := m.AppendJSON(nil)
	var compact bytes.Buffer
	if json.Compact(&compact, raw) == nil {
		raw = compact.Bytes()
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.lines = append(tr.lines, string(d)+" "+string(tr.normalize(raw)))
}

// record returns stream with every message read from it added to tr with
// direction d. Recording on the receiving side means that a message is
// recorded before anything it causes.
func (tr *Transcript) record(stream jsonrpc.Stream, d direction) jsonrpc.Stream {
	return &recorder{Stream: stream, tr: tr, dir: d}
}

type recorder struct {
	jsonrpc.Stream
	tr  *Transcript
	dir direction
}

func (r *recorder) Read(ctx context.Context) (*jsonrpc.Message, error) {
	m, err := r.Stream.Read(ctx)
	if err == nil {
		r.tr.add(r.dir, m)
	}
	return m, err
}

// varying names the object members whose values differ between runs.
var varying = map[string]bool{"progressToken": true, "requestState": true}

// normalize returns msg with the value of every member named in varying
// replaced by its placeholder; the rest of msg is kept byte for byte.
// Invalid JSON is returned as it is. tr.mu must be held.
func (tr *Transcript) normalize(msg []byte) []byte {
	type frame struct {
		object  bool // an object, not an array
		wantKey bool // an object's next token is a member name
	}
	var (
		stack []frame
		out   []byte
		done  int // msg[:done] has been copied to out
	)
	// value marks the end of a value in the innermost object or array.
	value := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].wantKey = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(msg))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		top := len(stack) - 1
		switch tok := tok.(type) {
		case json.Delim:
			switch tok {
			case '{', '[':
				value()
				stack = append(stack, frame{object: tok == '{', wantKey: tok == '{'})
			default:
				stack = stack[:top]
			}
		case string:
			if top < 0 || !stack[top].wantKey {
				value()
				break
			}
			stack[top].wantKey = false
			if !varying[tok] {
				break
			}
			start := int(dec.InputOffset())
			for start < len(msg) && strings.IndexByte(" \t\r\n:", msg[start]) >= 0 {
				start++
			}
			var v json.RawMessage
			if dec.Decode(&v) != nil {
				return msg
			}
			out = append(out, msg[done:start]...)
			out = append(out, tr.alias(tok, v)...)
			done = int(dec.InputOffset())
			stack[top].wantKey = true
		default:
			value()
		}
	}
	if out == nil {
		return msg
	}
	return append(out, msg[done:]...)
}

// alias returns the placeholder of value v of member name, as a JSON
// string. tr.mu must be held.
func (tr *Transcript) alias(name string, v json.RawMessage) string {
	if tr.aliases == nil {
		tr.aliases = make(map[string]map[string]int)
	}
	seen := tr.aliases[name]
	if seen == nil {
		seen = make(map[string]int)
		tr.aliases[name] = seen
	}
	n, ok := seen[string(v)]
	if !ok {
		n = len(seen) + 1
		seen[string(v)] = n
	}
	return fmt.Sprintf(`"<%s %d>"`, name, n)
}
