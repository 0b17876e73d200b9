package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// equalMessage reports whether a and b are the same message. Raw members are
// compared byte for byte (nil and empty differ: absent vs present).
func equalMessage(a, b *Message) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.ID != b.ID || a.Method != b.Method ||
		!equalRaw(a.Params, b.Params) || !equalRaw(a.Result, b.Result) ||
		!equalError(a.Error, b.Error) || !equalError(a.Invalid, b.Invalid) ||
		(a.Batch == nil) != (b.Batch == nil) || len(a.Batch) != len(b.Batch) {
		return false
	}
	for i := range a.Batch {
		if !equalMessage(a.Batch[i], b.Batch[i]) {
			return false
		}
	}
	return true
}

func equalRaw(a, b json.RawMessage) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }

func equalError(a, b *Error) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Code == b.Code && a.Message == b.Message && equalRaw(a.Data, b.Data)
}

func describe(m *Message) string {
	if m == nil {
		return "<nil>"
	}
	if m.Batch != nil {
		parts := make([]string, len(m.Batch))
		for i, e := range m.Batch {
			parts[i] = describe(e)
		}
		return "batch[" + strings.Join(parts, ", ") + "]"
	}
	s := fmt.Sprintf("{id=%v method=%q params=%q result=%q", m.ID, m.Method, m.Params, m.Result)
	if m.Error != nil {
		s += fmt.Sprintf(" error=%d/%q/%q", m.Error.Code, m.Error.Message, m.Error.Data)
	}
	if m.Invalid != nil {
		s += fmt.Sprintf(" invalid=%d/%q", m.Invalid.Code, m.Invalid.Message)
	}
	return s + "}"
}

func raw(s string) json.RawMessage { return json.RawMessage(s) }

// decodeCase is a message to decode and its decoded form. For invalid
// messages only the code and the id matter; the text is free-form.
type decodeCase struct {
	name string
	in   string
	want *Message
}

// invalidCode is an invalid message with id and an error code.
func invalidCode(id ID, code int64) *Message { return &Message{ID: id, Invalid: &Error{Code: code}} }

// decodeSpecCases are TestDecode's cases: the examples of the JSON-RPC 2.0 specification, §7.
var decodeSpecCases = []decodeCase{
	{"positional", `{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}`,
		&Message{ID: Int64ID(1), Method: "subtract", Params: raw(`[42, 23]`)}},
	{"named", `{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}`,
		&Message{ID: Int64ID(3), Method: "subtract", Params: raw(`{"subtrahend": 23, "minuend": 42}`)}},
	{"notification", `{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}`,
		&Message{Method: "update", Params: raw(`[1,2,3,4,5]`)}},
	{"notification without params", `{"jsonrpc": "2.0", "method": "foobar"}`,
		&Message{Method: "foobar"}},
	{"string id", `{"jsonrpc": "2.0", "method": "foobar", "id": "1"}`,
		&Message{ID: StringID("1"), Method: "foobar"}},
	{"result", `{"jsonrpc": "2.0", "result": 19, "id": 1}`,
		&Message{ID: Int64ID(1), Result: raw(`19`)}},
	{"negative result", `{"jsonrpc": "2.0", "result": -19, "id": 2}`,
		&Message{ID: Int64ID(2), Result: raw(`-19`)}},
	{"error", `{"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "1"}`,
		&Message{ID: StringID("1"), Error: &Error{Code: -32601, Message: "Method not found"}}},
	{"error with null id", `{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}`,
		&Message{Error: &Error{Code: -32700, Message: "Parse error"}}},
	{"error with data", `{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"x","data":{"a":[1]}}}`,
		&Message{ID: Int64ID(7), Error: &Error{Code: -32000, Message: "x", Data: raw(`{"a":[1]}`)}}},
	{"invalid JSON", `{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]`, invalidCode(ID{}, CodeParseError)},
	{"invalid request", `{"jsonrpc": "2.0", "method": 1, "params": "bar"}`, invalidCode(ID{}, CodeInvalidRequest)},
	{"batch invalid JSON", `[{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},{"jsonrpc": "2.0", "method"]`,
		invalidCode(ID{}, CodeParseError)},
	{"empty array", `[]`, invalidCode(ID{}, CodeInvalidRequest)},
	{"batch [1]", `[1]`, &Message{Batch: []*Message{invalidCode(ID{}, CodeInvalidRequest)}}},
	{"batch [1,2,3]", `[1,2,3]`, &Message{Batch: []*Message{invalidCode(ID{}, CodeInvalidRequest), invalidCode(ID{}, CodeInvalidRequest), invalidCode(ID{}, CodeInvalidRequest)}}},
	{"rpc call batch", `[
        {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
        {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
        {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
        {"foo": "boo"},
        {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
        {"jsonrpc": "2.0", "method": "get_data", "id": "9"}
    ]`, &Message{Batch: []*Message{
		{ID: StringID("1"), Method: "sum", Params: raw(`[1,2,4]`)},
		{Method: "notify_hello", Params: raw(`[7]`)},
		{ID: StringID("2"), Method: "subtract", Params: raw(`[42,23]`)},
		invalidCode(ID{}, CodeInvalidRequest),
		{ID: StringID("5"), Method: "foo.get", Params: raw(`{"name": "myself"}`)},
		{ID: StringID("9"), Method: "get_data"},
	}}},
	{"all-notification batch", `[{"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},{"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}]`,
		&Message{Batch: []*Message{{Method: "notify_sum", Params: raw(`[1,2,4]`)}, {Method: "notify_hello", Params: raw(`[7]`)}}}},
	{"response batch", `[{"jsonrpc":"2.0","id":1,"result":null},{"jsonrpc":"2.0","id":"b","error":{"code":1,"message":""}}]`,
		&Message{Batch: []*Message{{ID: Int64ID(1), Result: raw(`null`)}, {ID: StringID("b"), Error: &Error{Code: 1}}}}},
}

// decodeVariationCases are TestDecode's cases: variations a decoder must accept.
var decodeVariationCases = []decodeCase{
	{"surrounding whitespace", " \t\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"}\r\n", &Message{ID: Int64ID(1), Method: "m"}},
	{"member order", `{"id":-5,"params":{},"method":"m","jsonrpc":"2.0"}`, &Message{ID: Int64ID(-5), Method: "m", Params: raw(`{}`)}},
	{"escaped method", `{"jsonrpc":"2.0","id":1,"method":"a\"b\u00e9"}`, &Message{ID: Int64ID(1), Method: "a\"bé"}},
	{"unknown members ignored", `{"jsonrpc":"2.0","id":1,"method":"m","x":[1,{"y":null}]}`, &Message{ID: Int64ID(1), Method: "m"}},
	{"zero id", `{"jsonrpc":"2.0","id":0,"method":"m"}`, &Message{ID: Int64ID(0), Method: "m"}},
	{"negative zero id", `{"jsonrpc":"2.0","id":-0,"method":"m"}`, &Message{ID: Int64ID(0), Method: "m"}},
	{"max id", `{"jsonrpc":"2.0","id":9223372036854775807,"method":"m"}`, &Message{ID: Int64ID(math.MaxInt64), Method: "m"}},
	{"min id", `{"jsonrpc":"2.0","id":-9223372036854775808,"method":"m"}`, &Message{ID: Int64ID(math.MinInt64), Method: "m"}},
	{"empty string id", `{"jsonrpc":"2.0","id":"","method":"m"}`, &Message{ID: StringID(""), Method: "m"}},
	{"result false", `{"jsonrpc":"2.0","id":1,"result":false}`, &Message{ID: Int64ID(1), Result: raw(`false`)}},
	{"error data null", `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","data":null}}`,
		&Message{ID: Int64ID(1), Error: &Error{Code: 1, Message: "m", Data: raw(`null`)}}},
}

// decodeStrictCases are TestDecode's cases: what MCP's stricter rules refuse.
var decodeStrictCases = []decodeCase{
	{"null id", `{"jsonrpc":"2.0","id":null,"method":"m"}`, invalidCode(ID{}, CodeInvalidRequest)},
	{"float id", `{"jsonrpc":"2.0","id":1.5,"method":"m"}`, invalidCode(ID{}, CodeInvalidRequest)},
	{"integral float id", `{"jsonrpc":"2.0","id":1.0,"method":"m"}`, invalidCode(ID{}, CodeInvalidRequest)},
	{"bool id", `{"jsonrpc":"2.0","id":false,"method":"m"}`, invalidCode(ID{}, CodeInvalidRequest)},
	{"missing jsonrpc", `{"id":1,"method":"m"}`, invalidCode(Int64ID(1), CodeInvalidRequest)},
	{"wrong jsonrpc", `{"jsonrpc":"2","id":"a","method":"m"}`, invalidCode(StringID("a"), CodeInvalidRequest)},
	{"method number", `{"jsonrpc":"2.0","id":1,"method":5}`, invalidCode(Int64ID(1), CodeInvalidRequest)},
	{"method empty", `{"jsonrpc":"2.0","id":1,"method":""}`, invalidCode(Int64ID(1), CodeInvalidRequest)},
	{"params string", `{"jsonrpc":"2.0","id":1,"method":"m","params":"x"}`, invalidCode(Int64ID(1), CodeInvalidRequest)},
	{"params number", `{"jsonrpc":"2.0","id":1,"method":"m","params":1}`, invalidCode(Int64ID(1), CodeInvalidRequest)},
	{"params null", `{"jsonrpc":"2.0","id":1,"method":"m","params":null}`, invalidCode(Int64ID(1), CodeInvalidRequest)},
	{"result and error", `{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"m"}}`, invalidCode(Int64ID(1), CodeInvalidRequest)},
	{"error code float", `{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}`, invalidCode(Int64ID(1), CodeInvalidRequest)},
	{"error code exponent", `{"jsonrpc":"2.0","id":1,"error":{"code":1e2,"message":"m"}}`, invalidCode(Int64ID(1), CodeInvalidRequest)},
	{"error code null", `{"jsonrpc":"2.0","id":1,"error":{"code":null,"message":"m"}}`, invalidCode(Int64ID(1), CodeInvalidRequest)},
	{"error message null", `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":null}}`, invalidCode(Int64ID(1), CodeInvalidRequest)},
	{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}", invalidCode(ID{}, CodeParseError)},
	{"deep nesting", strings.Repeat("[", 200000) + strings.Repeat("]", 200000), invalidCode(ID{}, CodeParseError)},
	{"scalar", `3`, invalidCode(ID{}, CodeInvalidRequest)},
	{"empty", ``, invalidCode(ID{}, CodeParseError)},
	{"non-JSON whitespace", "\u00a0{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"}", invalidCode(ID{}, CodeParseError)},
}

// decodeMemberCases are TestDecode's cases: member names: case-sensitive, and never repeated.
var decodeMemberCases = []decodeCase{
	{"upper-case members", `{"JSONRPC":"2.0","ID":1,"METHOD":"m"}`, invalidCode(ID{}, CodeInvalidRequest)},
	{"capitalised method", `{"jsonrpc":"2.0","id":1,"Method":"m"}`, invalidCode(Int64ID(1), CodeInvalidRequest)},
	{"capitalised params", `{"jsonrpc":"2.0","id":1,"method":"m","Params":"x"}`, &Message{ID: Int64ID(1), Method: "m"}},
	{"capitalised error code", `{"jsonrpc":"2.0","id":1,"error":{"Code":1,"message":"m"}}`, invalidCode(Int64ID(1), CodeInvalidRequest)},
	{"duplicate method", `{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`, invalidCode(Int64ID(1), CodeInvalidRequest)},
	{"duplicate id", `{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}`, invalidCode(ID{}, CodeInvalidRequest)},
	{"duplicate error code", `{"jsonrpc":"2.0","id":1,"error":{"code":1,"code":2,"message":"m"}}`, invalidCode(Int64ID(1), CodeInvalidRequest)},
	{"duplicate unknown member", `{"jsonrpc":"2.0","id":1,"method":"m","x":1,"x":2}`, &Message{ID: Int64ID(1), Method: "m"}},
	{"escaped member names", `{"\u006a\u0073onrpc":"2.0","\u0069d":1,"meth\u006fd":"m"}`, &Message{ID: Int64ID(1), Method: "m"}},
}

// TestDecode checks the decoded form of every example message of the JSON-RPC
// 2.0 specification and of MCP's stricter rules.
func TestDecode(t *testing.T) {
	tests := slices.Concat(decodeSpecCases, decodeVariationCases, decodeStrictCases, decodeMemberCases)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Decode([]byte(tt.in))
			if !sameShape(got, tt.want) {
				t.Fatalf("Decode(%.200s)\n got %s\nwant %s", tt.in, describe(got), describe(tt.want))
			}
		})
	}
}

// sameShape is equalMessage, except that for Invalid only the code is compared.
func sameShape(got, want *Message) bool {
	if got == nil || want == nil {
		return got == want
	}
	if (got.Invalid == nil) != (want.Invalid == nil) {
		return false
	}
	if want.Invalid != nil {
		return got.ID == want.ID && got.Invalid.Code == want.Invalid.Code && got.Invalid.Message != "" &&
			got.Method == "" && got.Params == nil && got.Result == nil && got.Error == nil && got.Batch == nil
	}
	if len(got.Batch) != len(want.Batch) || (got.Batch == nil) != (want.Batch == nil) {
		return false
	}
	for i := range want.Batch {
		if !sameShape(got.Batch[i], want.Batch[i]) {
			return false
		}
	}
	g, w := *got, *want
	g.Batch, w.Batch = nil, nil
	return equalMessage(&g, &w)
}

// TestDecodeDoesNotAlias checks that Decode copies what it keeps, so
// transports may reuse their read buffers.
func TestDecodeDoesNotAlias(t *testing.T) {
	for _, in := range []string{
		`{"jsonrpc":"2.0","id":"abc","method":"tools/call","params":{"name":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","data":[1,2]}}`,
		`[{"jsonrpc":"2.0","id":"abc","method":"tools/call","params":{"name":"x"}}]`,
	} {
		buf := []byte(in)
		m := Decode(buf)
		want := m.AppendJSON(nil)
		for i := range buf {
			buf[i] = 'X'
		}
		if got := m.AppendJSON(nil); !bytes.Equal(got, want) {
			t.Errorf("Decode(%s) aliases its input: after overwrite %s", in, got)
		}
	}
}

// TestRoundTrip checks Decode(AppendJSON(m)) == m, and that AppendJSON
// writes valid JSON meaning what m means.
func TestRoundTrip(t *testing.T) {
	weird := "quote\" backslash\\ nl\n tab\t nul\x00 ctl\x1f html<>& é ☃ 𝄞 \u2028\u2029 \x7f"
	msgs := []*Message{
		NewRequest(Int64ID(1), "ping", nil),
		NewRequest(Int64ID(0), "ping", raw(`{}`)),
		NewRequest(Int64ID(-7), "tools/call", raw(`{"name":"echo","arguments":{"text":"hi \"there\""}}`)),
		NewRequest(Int64ID(math.MaxInt64), "m", raw(`[1,2,3]`)),
		NewRequest(Int64ID(math.MinInt64), "m", raw(`[]`)),
		NewRequest(StringID(""), "m", nil),
		NewRequest(StringID(weird), weird, raw(`{"k":"\u0000é\n\"","v":[true,false,null]}`)),
		NewRequest(StringID("id"), "method/with spaces and ünïcödé", raw(`{"a" : [ 1 , 2 ] }`)),
		NewNotification("notifications/initialized", nil),
		NewNotification(weird, raw(`{"progress":0.5}`)),
		NewResponse(Int64ID(1), nil),
		NewResponse(Int64ID(1), raw(`null`)),
		NewResponse(StringID("x"), raw(`"a string result"`)),
		NewResponse(Int64ID(2), raw(`{"content":[{"type":"text","text":"hello"}],"isError":false}`)),
		NewResponse(Int64ID(3), raw(`-1.5e10`)),
		NewErrorResponse(Int64ID(1), NewError(CodeMethodNotFound, "method not found")),
		NewErrorResponse(ID{}, NewError(CodeParseError, "parse error")),
		NewErrorResponse(StringID(weird), NewError(math.MinInt64, weird)),
		NewErrorResponse(Int64ID(9), NewError(math.MaxInt64, "")),
		NewErrorResponse(Int64ID(9), NewError(CodeInvalidParams, "bad").WithData(map[string]any{"field": "x", "n": 1})),
		NewErrorResponse(Int64ID(9), NewError(-1, "d").WithData(raw(`"just a string"`))),
		{Batch: []*Message{NewRequest(Int64ID(1), "a", nil), NewNotification("b", raw(`[]`)), NewResponse(StringID("c"), raw(`1`))}},
		{Batch: []*Message{NewErrorResponse(ID{}, NewError(CodeInvalidRequest, "x"))}},
	}
	for _, m := range msgs {
		b := m.AppendJSON(nil)
		if !json.Valid(b) {
			t.Errorf("AppendJSON(%s) = %s: not valid JSON", describe(m), b)
			continue
		}
		var compact bytes.Buffer
		_ = json.Compact(&compact, b)
		if mb, _ := json.Marshal(m); !bytes.Equal(mb, compact.Bytes()) {
			t.Errorf("json.Marshal and AppendJSON differ:\n%s\n%s", mb, b)
		}
		got := Decode(b)
		if !equalMessage(got, m) {
			t.Errorf("round trip of %s\nwire %s\n got %s", describe(m), b, describe(got))
		}
		// AppendJSON appends.
		pre := []byte("prefix")
		if out := m.AppendJSON(pre); !bytes.Equal(out[:6], pre) || !bytes.Equal(out[6:], b) {
			t.Errorf("AppendJSON does not append: %s", out)
		}
	}
}

// TestAppendJSONWire checks the exact wire form of each kind of message.
func TestAppendJSONWire(t *testing.T) {
	tests := []struct {
		m    *Message
		want string
	}{
		{NewRequest(Int64ID(1), "ping", nil), `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{NewRequest(StringID("a"), "m", raw(`{"x":1}`)), `{"jsonrpc":"2.0","id":"a","method":"m","params":{"x":1}}`},
		{NewNotification("n", raw(`[]`)), `{"jsonrpc":"2.0","method":"n","params":[]}`},
		{NewResponse(Int64ID(2), nil), `{"jsonrpc":"2.0","id":2,"result":{}}`},
		{NewResponse(Int64ID(2), raw(`null`)), `{"jsonrpc":"2.0","id":2,"result":null}`},
		{NewErrorResponse(ID{}, NewError(-32700, "p")), `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"p"}}`},
		{NewErrorResponse(Int64ID(3), &Error{Code: 1, Message: "m", Data: raw(`[1]`)}), `{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"m","data":[1]}}`},
		{&Message{Invalid: NewError(-32600, "bad")}, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad"}}`},
		{&Message{ID: Int64ID(4), Invalid: NewError(-32600, "bad")}, `{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"bad"}}`},
		{&Message{Batch: []*Message{NewResponse(Int64ID(1), raw(`1`)), NewResponse(Int64ID(2), raw(`2`))}}, `[{"jsonrpc":"2.0","id":1,"result":1},{"jsonrpc":"2.0","id":2,"result":2}]`},
		{NewRequest(Int64ID(1), "a\"<", nil), `{"jsonrpc":"2.0","id":1,"method":"a\"\u003c"}`},
	}
	for _, tt := range tests {
		if got := string(tt.m.AppendJSON(nil)); got != tt.want {
			t.Errorf("AppendJSON(%s)\n got %s\nwant %s", describe(tt.m), got, tt.want)
		}
	}
}

func TestMessageKinds(t *testing.T) {
	tests := []struct {
		m                   *Message
		req, notif, respons bool
	}{
		{NewRequest(Int64ID(1), "m", nil), true, false, false},
		{NewRequest(StringID(""), "m", nil), true, false, false},
		{NewNotification("m", nil), false, true, false},
		{NewResponse(Int64ID(1), nil), false, false, true},
		{NewErrorResponse(ID{}, NewError(1, "")), false, false, true},
		{&Message{Batch: []*Message{}}, false, false, false},
		{&Message{Invalid: NewError(1, "")}, false, false, false},
	}
	for _, tt := range tests {
		if tt.m.IsRequest() != tt.req || tt.m.IsNotification() != tt.notif || tt.m.IsResponse() != tt.respons {
			t.Errorf("%s: IsRequest=%v IsNotification=%v IsResponse=%v", describe(tt.m), tt.m.IsRequest(), tt.m.IsNotification(), tt.m.IsResponse())
		}
	}
}

// TestIsInvalidResponse checks which invalid messages count as malformed
// responses (dropped by a Conn) rather than invalid requests (answered).
func TestIsInvalidResponse(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		// Shaped as responses: no "method", a "result" or an "error".
		{`{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"m"}}`, true},
		{`{"jsonrpc":"2.0","result":1}`, true},
		{`{"jsonrpc":"2.0","id":null,"result":1}`, true},
		{`{"jsonrpc":"2.0","error":{"code":1,"message":"m"}}`, true},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}`, true},
		{`{"jsonrpc":"2.0","id":1,"error":null}`, true},
		{`{"jsonrpc":"1.0","id":1,"result":1}`, true},
		{`{"jsonrpc":"2.0","id":1,"id":2,"result":1}`, true},
		{`{"jsonrpc":"2.0","id":1,"Method":"m","result":1,"error":null}`, true},
		// Not shaped as responses, or valid.
		{`{"jsonrpc":"2.0","id":1}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"m","result":1}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":5,"error":{"code":1,"message":"m"}}`, false},
		{`{"jsonrpc":"2.0","id":1,"Result":1}`, false},
		{`{"jsonrpc":"2.0","id":1,"result":1}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"m"}`, false},
		{`{"jsonrpc":"2.0","id":1,"result":1`, false},
		{`[1]`, false},
	}
	for _, tt := range tests {
		m := Decode([]byte(tt.in))
		if m.Batch == nil && m.Invalid == nil && tt.want {
			t.Errorf("Decode(%s) is valid: %s", tt.in, describe(m))
		}
		if got := m.IsInvalidResponse(); got != tt.want {
			t.Errorf("Decode(%s).IsInvalidResponse() = %v, want %v", tt.in, got, tt.want)
		}
		// Inside a batch too.
		if b := Decode([]byte("[" + tt.in + "]")); b.Batch != nil && b.Batch[0].IsInvalidResponse() != tt.want {
			t.Errorf("in a batch, Decode(%s).IsInvalidResponse() = %v, want %v", tt.in, !tt.want, tt.want)
		}
	}
}

func TestIDJSON(t *testing.T) {
	tests := []struct {
		id   ID
		wire string
	}{
		{Int64ID(0), `0`},
		{Int64ID(42), `42`},
		{Int64ID(-42), `-42`},
		{Int64ID(math.MaxInt64), `9223372036854775807`},
		{Int64ID(math.MinInt64), `-9223372036854775808`},
		{StringID(""), `""`},
		{StringID("abc"), `"abc"`},
		{StringID("héllo ☃ 𝄞"), `"héllo ☃ 𝄞"`},
		{StringID("a\"b\\c\n"), `"a\"b\\c\n"`},
		{StringID("42"), `"42"`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.id)
		if err != nil || string(b) != tt.wire {
			t.Errorf("Marshal(%v) = %s, %v; want %s", tt.id, b, err, tt.wire)
		}
		var got ID
		if err := json.Unmarshal([]byte(tt.wire), &got); err != nil || got != tt.id {
			t.Errorf("Unmarshal(%s) = %v, %v; want %v", tt.wire, got, err, tt.id)
		}
	}
	// Escaped forms decode to the same id.
	var id ID
	if err := json.Unmarshal([]byte(`"h\u00e9llo \u2603 \ud834\udd1e"`), &id); err != nil || id != StringID("héllo ☃ 𝄞") {
		t.Errorf("escaped string id = %v, %v", id, err)
	}
	for _, bad := range []string{`null`, `1.5`, `1.0`, `1e3`, `-0.0`, `true`, `false`, `{}`, `{"id":1}`, `[]`, `[1]`,
		`9223372036854775808`, `-9223372036854775809`, `99999999999999999999999`} {
		id := StringID("unchanged")
		if err := json.Unmarshal([]byte(bad), &id); err == nil {
			t.Errorf("Unmarshal(%s) = %v, want an error", bad, id)
		} else if id != StringID("unchanged") {
			t.Errorf("failed Unmarshal(%s) changed the id to %v", bad, id)
		}
	}
	// In a struct, with omitzero.
	type env struct {
		ID ID `json:"id,omitzero"`
	}
	for _, tt := range []struct {
		v    env
		wire string
	}{{env{}, `{}`}, {env{Int64ID(1)}, `{"id":1}`}, {env{StringID("x")}, `{"id":"x"}`}} {
		b, _ := json.Marshal(tt.v)
		if string(b) != tt.wire {
			t.Errorf("Marshal(%+v) = %s, want %s", tt.v, b, tt.wire)
		}
		var back env
		if err := json.Unmarshal(b, &back); err != nil || back != tt.v {
			t.Errorf("Unmarshal(%s) = %+v, %v", b, back, err)
		}
	}
	if b, _ := json.Marshal(ID{}); string(b) != "null" {
		t.Errorf("zero ID marshals as %s, want null", b)
	}
}

func TestIDAccessors(t *testing.T) {
	var zero ID
	if !zero.IsZero() || zero.IsString() || zero.Value() != nil || zero.String() != "<none>" {
		t.Errorf("zero ID: IsZero=%v IsString=%v Value=%v String=%q", zero.IsZero(), zero.IsString(), zero.Value(), zero.String())
	}
	n := Int64ID(-3)
	if v, ok := n.Int64(); !ok || v != -3 || n.IsZero() || n.IsString() || n.Value() != int64(-3) || n.String() != "-3" {
		t.Errorf("Int64ID(-3) accessors wrong: %v %v %v", v, ok, n.Value())
	}
	if _, ok := n.Str(); ok {
		t.Error("Int64ID.Str reports ok")
	}
	s := StringID("7")
	if v, ok := s.Str(); !ok || v != "7" || !s.IsString() || s.Value() != "7" || s.String() != `"7"` {
		t.Errorf("StringID accessors wrong: %q %v", v, ok)
	}
	if _, ok := s.Int64(); ok {
		t.Error("StringID.Int64 reports ok")
	}
	if Int64ID(0).IsZero() || StringID("").IsZero() {
		t.Error("0 and \"\" are real ids, not absent")
	}
	// ids are map keys; "1" and 1 differ.
	m := map[ID]int{Int64ID(1): 1, StringID("1"): 2}
	if len(m) != 2 || m[Int64ID(1)] != 1 || m[StringID("1")] != 2 {
		t.Errorf("ID map keys collide: %v", m)
	}
}

func TestError(t *testing.T) {
	e := Errorf(CodeInvalidParams, "bad %s %d", "x", 2)
	if e.Code != CodeInvalidParams || e.Message != "bad x 2" || e.Data != nil {
		t.Errorf("Errorf = %+v", e)
	}
	if got := e.Error(); got != "jsonrpc error -32602: bad x 2" {
		t.Errorf("Error() = %q", got)
	}
	d := e.WithData(map[string]int{"a": 1})
	if string(d.Data) != `{"a":1}` || e.Data != nil || d.Code != e.Code || d.Message != e.Message {
		t.Errorf("WithData = %+v (original %+v)", d, e)
	}
	if r := e.WithData(raw(`[1]`)); string(r.Data) != `[1]` {
		t.Errorf("WithData(RawMessage) = %s", r.Data)
	}
	if u := e.WithData(make(chan int)); u.Data != nil {
		t.Errorf("WithData(unencodable) = %s, want no data", u.Data)
	}
	wrapped := fmt.Errorf("context: %w", e)
	if !errors.Is(wrapped, NewError(CodeInvalidParams, "")) {
		t.Error("errors.Is does not match by code")
	}
	if errors.Is(wrapped, NewError(CodeInternalError, "bad x 2")) {
		t.Error("errors.Is matches a different code")
	}
	var target *Error
	if !errors.As(wrapped, &target) || target != e {
		t.Error("errors.As does not find the *Error")
	}
}

// TestAppendString checks that appendString escapes exactly as encoding/json.
func TestAppendString(t *testing.T) {
	var all strings.Builder
	for c := range 0x80 {
		all.WriteByte(byte(c))
	}
	for _, s := range []string{
		"", "plain", all.String(), "é☃𝄞", "\u2028\u2029", "\xff", "a\xc3", "\xed\xa0\x80", "\xf4\x90\x80\x80",
		"<script>&amp;</script>", "tab\tnl\ncr\rff\fbs\b", "\x00\x01\x1f\x7f", `"quoted" \back\`,
	} {
		checkAppendString(t, s)
	}
}

func checkAppendString(t *testing.T, s string) {
	t.Helper()
	want, _ := json.Marshal(s)
	if got := appendString([]byte("x"), s); string(got[1:]) != string(want) || got[0] != 'x' {
		t.Errorf("appendString(%q) = %s, want %s", s, got, want)
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a\"b", "é\u2028\xff<>&", "\x00\x1f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkAppendString(t, s) })
}

// TestValidJSON compares validJSON with json.Valid.
func TestValidJSON(t *testing.T) {
	inputs := []string{
		``, ` `, `{}`, `[]`, ` { } `, `[ ]`, `{"a":1}`, `{"a":1,}`, `{,}`, `[1,]`, `[,1]`, `[1 2]`, `{"a" 1}`, `{"a":}`, `{1:2}`,
		`{"a":1}}`, `[[]`, `[]]`, `"`, `"abc`, `"a\"b"`, `"\u12"`, `"\u12g4"`, `"\u1234"`, `"\x"`, `"\/\b\f\n\r\t\\"`, "\"\x1f\"", "\"\x7f\"", "\"\xff\"",
		`0`, `-0`, `01`, `-`, `1.`, `.1`, `1.5`, `1e`, `1e+`, `1E-7`, `-1.5e+10`, `+1`, `0x1`, `1_000`, `Infinity`, `NaN`,
		`true`, `false`, `null`, `tru`, `nul`, `nulll`, `True`, `[true,false,null]`, `{"a":[{"b":null}]}`,
		"\t\r\n[1]\n", "[1]\v", "\u00a0[1]", `1 2`, `{} {}`, `{"a":"b"`, `[{"a":[1,{"b":"c"}]},2]`,
		strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth),
		strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1),
		strings.Repeat(`{"a":`, maxDepth) + `1` + strings.Repeat("}", maxDepth),
		strings.Repeat(`{"a":`, maxDepth+1) + `1` + strings.Repeat("}", maxDepth+1),
		strings.Repeat("[", 200000),
		toolsCallLine,
	}
	for _, s := range inputs {
		if got, want := validJSON([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("validJSON(%.60q) = %v, json.Valid says %v", s, got, want)
		}
	}
}

func FuzzValidJSON(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`[1,-0.5e+3,"\u00e9\n",true,false,null,{"a":{}},[]]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validJSON(b), json.Valid(b); got != want {
			t.Fatalf("validJSON(%q) = %v, json.Valid says %v", b, got, want)
		}
	})
}

func BenchmarkValidJSON(b *testing.B) {
	data := []byte(toolsCallLine)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if !validJSON(data) {
			b.Fatal("invalid")
		}
	}
}
