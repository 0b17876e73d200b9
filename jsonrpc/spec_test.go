package jsonrpc

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// specServer implements the methods used by the examples of the JSON-RPC 2.0
// specification (§7), plus "ping".
type specServer struct {
	mu            sync.Mutex
	notifications []string // methods of the notifications handled, in order
}

func (s *specServer) Handle(_ context.Context, m *Message) (any, error) {
	if m.IsNotification() {
		s.mu.Lock()
		s.notifications = append(s.notifications, m.Method)
		s.mu.Unlock()
	}
	switch m.Method {
	case "ping":
		return struct{}{}, nil
	case "subtract":
		var pos []float64
		if json.Unmarshal(m.Params, &pos) == nil && len(pos) == 2 {
			return pos[0] - pos[1], nil
		}
		var named struct {
			Minuend    *float64 `json:"minuend"`
			Subtrahend *float64 `json:"subtrahend"`
		}
		if json.Unmarshal(m.Params, &named) == nil && named.Minuend != nil && named.Subtrahend != nil {
			return *named.Minuend - *named.Subtrahend, nil
		}
		return nil, NewError(CodeInvalidParams, "Invalid params")
	case "sum", "notify_sum":
		var nums []float64
		if err := json.Unmarshal(m.Params, &nums); err != nil {
			return nil, NewError(CodeInvalidParams, "Invalid params")
		}
		var sum float64
		for _, n := range nums {
			sum += n
		}
		return sum, nil
	case "get_data":
		return []any{"hello", 5}, nil
	case "update", "notify_hello":
		return nil, nil
	}
	return nil, NewError(CodeMethodNotFound, "Method not found")
}

func (s *specServer) handled() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.notifications...)
}

// assertAlive checks that c still answers a valid request after whatever the
// test sent before.
func (p *rawPeer) assertAlive() {
	p.t.Helper()
	assertJSON(p.t, p.roundTrip(`{"jsonrpc":"2.0","id":"alive","method":"ping"}`), `{"jsonrpc":"2.0","id":"alive","result":{}}`)
}

// specExample is a message of the JSON-RPC 2.0 specification, §7, and the
// reply it shows ("" for no reply at all).
type specExample struct {
	name string
	in   string
	want string
}

// specExamples are every example of the JSON-RPC 2.0 specification, §7.
var specExamples = []specExample{
	{"positional params 1",
		`{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}`,
		`{"jsonrpc": "2.0", "result": 19, "id": 1}`},
	{"positional params 2",
		`{"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2}`,
		`{"jsonrpc": "2.0", "result": -19, "id": 2}`},
	{"named params 1",
		`{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}`,
		`{"jsonrpc": "2.0", "result": 19, "id": 3}`},
	{"named params 2",
		`{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 4}`,
		`{"jsonrpc": "2.0", "result": 19, "id": 4}`},
	{"notification 1",
		`{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}`,
		``},
	{"notification 2",
		`{"jsonrpc": "2.0", "method": "foobar"}`,
		``},
	{"non-existent method",
		`{"jsonrpc": "2.0", "method": "foobar", "id": "1"}`,
		`{"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "1"}`},
	{"invalid JSON",
		`{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]`,
		`{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}`},
	{"invalid Request object",
		`{"jsonrpc": "2.0", "method": 1, "params": "bar"}`,
		`{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}`},
	{"batch, invalid JSON",
		`[
  {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
  {"jsonrpc": "2.0", "method"
]`,
		`{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}`},
	{"empty array",
		`[]`,
		`{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}`},
	{"invalid batch, not empty",
		`[1]`,
		`[{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}]`},
	{"invalid batch",
		`[1,2,3]`,
		`[
  {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},
  {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},
  {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}
]`},
	{"rpc call batch",
		`[
        {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
        {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
        {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
        {"foo": "boo"},
        {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
        {"jsonrpc": "2.0", "method": "get_data", "id": "9"}
    ]`,
		`[
        {"jsonrpc": "2.0", "result": 7, "id": "1"},
        {"jsonrpc": "2.0", "result": 19, "id": "2"},
        {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},
        {"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "5"},
        {"jsonrpc": "2.0", "result": ["hello", 5], "id": "9"}
    ]`},
	{"all-notification batch",
		`[
        {"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},
        {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}
    ]`,
		``},
}

// TestSpecExamples runs every example of the JSON-RPC 2.0 specification, §7,
// through a Conn and compares its replies with the specification's.
func TestSpecExamples(t *testing.T) {
	tests := specExamples
	srv := &specServer{}
	_, peer := newRawConn(t, ConnOptions{Handler: srv})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			peer.t = t
			peer.send(tt.in)
			if tt.want == "" {
				peer.expectNothing(50 * time.Millisecond)
			} else {
				assertJSON(t, peer.recv(), tt.want)
			}
			peer.assertAlive()
		})
	}
	peer.t = t
	// The lane handles notifications in arrival order, also inside batches.
	want := []string{"update", "foobar", "notify_hello", "notify_sum", "notify_hello"}
	deadline := time.Now().Add(5 * time.Second)
	for len(srv.handled()) < len(want) && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := srv.handled(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("notifications handled %q, want %q", got, want)
	}
}

// The replies TestStrictness expects (the error messages are free-form).
const (
	replyParse   = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}`
	replyInvNull = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"m"}}`
	replyInv1    = `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"m"}}`
	replyInvStr  = `{"jsonrpc":"2.0","id":"x","error":{"code":-32600,"message":"m"}}`
	replyNone    = "" // a malformed response: no reply
)

// strictCase is a message MCP forbids and the reply it gets.
type strictCase struct {
	name string
	in   string
	want string
}

// strictMessageCases are JSON objects that are not valid messages.
func strictMessageCases() []strictCase {
	return []strictCase{
		// ids
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, replyInvNull},
		{"float id 1.5", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, replyInvNull},
		{"float id 1.0", `{"jsonrpc":"2.0","id":1.0,"method":"ping"}`, replyInvNull},
		{"exponent id", `{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, replyInvNull},
		{"overflowing id", `{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}`, replyInvNull},
		{"boolean id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, replyInvNull},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, replyInvNull},
		{"array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, replyInvNull},
		// "jsonrpc" member
		{"missing jsonrpc", `{"id":1,"method":"ping"}`, replyInv1},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, replyInv1},
		{"jsonrpc number", `{"jsonrpc":2.0,"id":1,"method":"ping"}`, replyInv1},
		{"jsonrpc null", `{"jsonrpc":null,"id":"x","method":"ping"}`, replyInvStr},
		{"jsonrpc with space", `{"jsonrpc":"2.0 ","id":1,"method":"ping"}`, replyInv1},
		// method
		{"method number", `{"jsonrpc":"2.0","id":1,"method":1}`, replyInv1},
		{"method null", `{"jsonrpc":"2.0","id":1,"method":null}`, replyInv1},
		{"method object", `{"jsonrpc":"2.0","id":"x","method":{}}`, replyInvStr},
		{"method empty", `{"jsonrpc":"2.0","id":1,"method":""}`, replyInv1},
		{"method empty notification", `{"jsonrpc":"2.0","method":""}`, replyInvNull},
		// params
		{"params string", `{"jsonrpc":"2.0","id":1,"method":"ping","params":"x"}`, replyInv1},
		{"params number", `{"jsonrpc":"2.0","id":1,"method":"ping","params":5}`, replyInv1},
		{"params null", `{"jsonrpc":"2.0","id":1,"method":"ping","params":null}`, replyInv1},
		{"params bool", `{"jsonrpc":"2.0","id":"x","method":"ping","params":false}`, replyInvStr},
		{"notification params string", `{"jsonrpc":"2.0","method":"ping","params":"x"}`, replyInvNull},
		// request with response members
		{"request with result", `{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}`, replyInv1},
		{"request with error", `{"jsonrpc":"2.0","id":1,"method":"ping","error":{"code":1,"message":"m"}}`, replyInv1},
		// responses: malformed ones get no reply, since an error reply with
		// their id could be taken for the answer to a call of the peer's own
		{"neither result nor error", `{"jsonrpc":"2.0","id":1}`, replyInv1},
		{"both result and error", `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}`, replyNone},
		{"result with null id", `{"jsonrpc":"2.0","id":null,"result":{}}`, replyNone},
		{"result without id", `{"jsonrpc":"2.0","result":{}}`, replyNone},
		{"result with float id", `{"jsonrpc":"2.0","id":1.5,"result":{}}`, replyNone},
		{"error without id", `{"jsonrpc":"2.0","error":{"code":1,"message":"m"}}`, replyNone},
		{"error with bool id", `{"jsonrpc":"2.0","id":true,"error":{"code":1,"message":"m"}}`, replyNone},
		{"error code float", `{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}`, replyNone},
		{"error code string", `{"jsonrpc":"2.0","id":1,"error":{"code":"1","message":"m"}}`, replyNone},
		{"error code null", `{"jsonrpc":"2.0","id":1,"error":{"code":null,"message":"m"}}`, replyNone},
		{"error code missing", `{"jsonrpc":"2.0","id":1,"error":{"message":"m"}}`, replyNone},
		{"error message missing", `{"jsonrpc":"2.0","id":1,"error":{"code":1}}`, replyNone},
		{"error message number", `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":2}}`, replyNone},
		{"error not object", `{"jsonrpc":"2.0","id":1,"error":"boom"}`, replyNone},
		{"response jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"result":{}}`, replyNone},
		{"response without jsonrpc", `{"id":1,"error":{"code":1,"message":"m"}}`, replyNone},
		{"response duplicate result", `{"jsonrpc":"2.0","id":1,"result":1,"result":2}`, replyNone},
		{"malformed response in batch", `[{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}]`, replyNone},
	}
}

// strictInputCases are inputs that are not messages, not JSON, or whose
// member names are wrong.
func strictInputCases() []strictCase {
	deepArrays := strings.Repeat("[", 200000) + strings.Repeat("]", 200000)
	deepParams := `{"jsonrpc":"2.0","id":1,"method":"ping","params":` + strings.Repeat(`{"a":`, 200000) + `1` + strings.Repeat("}", 200000) + `}`
	garbage := make([]byte, 4096)
	for i := range garbage {
		garbage[i] = byte(i*131 + i/7) // deterministic, includes invalid UTF-8
	}
	big := strings.Repeat("x{[\"", 2<<20) // 8 MiB of ASCII garbage
	return []strictCase{
		// not a message
		{"empty object", `{}`, replyInvNull},
		{"null", `null`, replyInvNull},
		{"string", `"hello"`, replyInvNull},
		{"number", `42`, replyInvNull},
		{"nested batch", `[[{"jsonrpc":"2.0","id":1,"method":"ping"}]]`, `[` + replyInvNull + `]`},
		// not JSON
		{"empty", ``, replyParse},
		{"whitespace", " \t\r\n", replyParse},
		{"trailing garbage", `{"jsonrpc":"2.0","id":1,"method":"ping"} x`, replyParse},
		{"two objects", `{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}`, replyParse},
		{"truncated", `{"jsonrpc":"2.0","id":1,"method":"pi`, replyParse},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffing\"}", replyParse},
		{"invalid UTF-8 in batch", "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xc3\x28\"}]", replyParse},
		{"200000 nested arrays", deepArrays, replyParse},
		{"200000 nested objects in params", deepParams, replyParse},
		{"binary garbage", string(garbage), replyParse},
		{"8 MiB of garbage", big, replyParse},
		{"8 MiB of garbage in an object", `{"jsonrpc":"2.0","id":1,"method":"` + big + `}`, replyParse},
		{"NUL bytes", "\x00\x00\x00", replyParse},
		{"non-JSON whitespace", "\u00a0{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", replyParse},
		// member names are case-sensitive and may not repeat
		{"upper-case members", `{"JSONRPC":"2.0","ID":1,"METHOD":"ping"}`, replyInvNull},
		{"capitalised method", `{"jsonrpc":"2.0","id":1,"Method":"ping"}`, replyInv1},
		{"duplicate method", `{"jsonrpc":"2.0","id":1,"method":"ping","method":"nope"}`, replyInv1},
		{"duplicate id", `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, replyInvNull},
		// unreadable id but readable otherwise: id must be null
		{"string id with bad method", `{"jsonrpc":"2.0","id":"x","method":7}`, replyInvStr},
	}
}

// TestStrictness feeds a Conn messages MCP forbids. Each must get the error
// reply shown (with the id echoed when it could be read), or none at all for
// a malformed response, be reported once to OnReject, and the Conn must
// answer a valid request right after.
func TestStrictness(t *testing.T) {
	tests := slices.Concat(strictMessageCases(), strictInputCases())
	type rejection struct {
		m   *Message
		err *Error
	}
	rejects := make(chan rejection, 8)
	c, peer := newRawConn(t, ConnOptions{Handler: &specServer{}, OnReject: func(m *Message, err *Error) {
		rejects <- rejection{m, err}
	}})
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			peer.t = t
			wantCode := int64(CodeInvalidRequest)
			if tt.want == replyNone {
				// Nothing comes back: a reply would arrive before the one
				// to the request assertAlive sends.
				peer.send(tt.in)
			} else {
				assertJSON(t, peer.roundTrip(tt.in), tt.want)
				w := Decode([]byte(tt.want))
				if w.Batch != nil {
					w = w.Batch[0]
				}
				wantCode = w.Error.Code
			}
			peer.assertAlive()
			r := recvTimeout(t, rejects, "OnReject")
			m := r.m
			if m.Batch != nil {
				m = m.Batch[0]
			}
			if r.err == nil || r.err != m.Invalid || r.err.Code != wantCode {
				t.Errorf("OnReject(%s, %v), want the message's Invalid error with code %d", describe(r.m), r.err, wantCode)
			}
			if m.IsInvalidResponse() != (tt.want == replyNone) {
				t.Errorf("IsInvalidResponse() = %v for %s", m.IsInvalidResponse(), describe(m))
			}
			if len(rejects) != 0 {
				t.Errorf("OnReject called %d times more", len(rejects))
			}
			if got := c.Stats().Rejected; got != uint64(i+1) {
				t.Errorf("Stats().Rejected = %d, want %d", got, i+1)
			}
		})
	}
}

// TestIDEcho checks that ids come back exactly as sent, including strings
// needing escapes and integers at the int64 limits.
func TestIDEcho(t *testing.T) {
	ids := []string{`0`, `-1`, `9223372036854775807`, `-9223372036854775808`, `"1"`, `""`, `"é☃𝄞"`, `"a\"b\\c\n"`, `"\u0000"`, `"<&>"`}
	_, peer := newRawConn(t, ConnOptions{Handler: &specServer{}})
	for _, id := range ids {
		assertJSON(t, peer.roundTrip(`{"jsonrpc":"2.0","method":"ping","id":`+id+`}`), `{"jsonrpc":"2.0","result":{},"id":`+id+`}`)
		assertJSON(t, peer.roundTrip(`{"jsonrpc":"2.0","method":"nope","id":`+id+`}`), `{"jsonrpc":"2.0","error":{"code":-32601,"message":"m"},"id":`+id+`}`)
	}
}
