package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// fuzzSeeds are the JSON-RPC 2.0 specification examples plus a few MCP
// messages and edge cases.
var fuzzSeeds = []string{
	`{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}`,
	`{"jsonrpc": "2.0", "result": 19, "id": 1}`,
	`{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}`,
	`{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}`,
	`{"jsonrpc": "2.0", "method": "foobar"}`,
	`{"jsonrpc": "2.0", "method": "foobar", "id": "1"}`,
	`{"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "1"}`,
	`{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]`,
	`{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}`,
	`{"jsonrpc": "2.0", "method": 1, "params": "bar"}`,
	`[{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},{"jsonrpc": "2.0", "method"]`,
	`[]`,
	`[1]`,
	`[1,2,3]`,
	`[{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},{"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},{"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},{"foo": "boo"},{"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},{"jsonrpc": "2.0", "method": "get_data", "id": "9"}]`,
	`[{"jsonrpc": "2.0", "result": 7, "id": "1"},{"jsonrpc": "2.0", "result": 19, "id": "2"},{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}]`,
	`[{"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},{"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}]`,
	toolsCallLine,
	`{"jsonrpc":"2.0","id":"é\u00e9\ud834\udd1e","method":"a\"b","params":{"x":[null,true,-1.5e3]}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","data":{"k":[1]}}}`,
	`{"jsonrpc":"2.0","id":1.0,"method":"m"}`,
	`{"jsonrpc":"2.0","id":null,"method":"m"}`,
	`{"JSONRPC":"2.0","ID":1,"Method":"m"}`,
	`{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`,
	`{"jsonrpc":"2.0","\u0069d":1,"method":"m"}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":null,"message":"m"}}`,
	"\xff\xfe",
	"\u00a0{}",
	" [ { } , 1 ] ",
}

// FuzzDecode checks that Decode never panics and that every result is either
// marked invalid or survives an AppendJSON/Decode round trip unchanged. It
// also compares Decode with a reference decoder built on encoding/json.
func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Work on a copy: the fuzzing engine's input must not be modified.
		in := data
		data = bytes.Clone(in)
		m := Decode(data)
		if !bytes.Equal(in, data) {
			t.Fatal("Decode modified its input")
		}
		if m == nil {
			t.Fatal("Decode returned nil")
		}
		if m.Invalid == nil && !json.Valid(data) {
			t.Fatalf("Decode accepted invalid JSON %q as %s", data, describe(m))
		}
		checkDecoded(t, m, true)
		checkResponseShape(t, in, m)

		// Decode copies what it keeps.
		before := m.AppendJSON(nil)
		for i := range data {
			data[i] = '#'
		}
		if after := m.AppendJSON(nil); !bytes.Equal(before, after) {
			t.Fatalf("decoded message aliases its input:\n%s\n%s", before, after)
		}

		if ok, why := comparable(in); ok {
			ref := referenceDecode(in)
			if !sameShape(m, ref) {
				t.Fatalf("Decode(%q)\n got %s\n ref %s", in, describe(m), describe(ref))
			}
		} else if why != "" {
			t.Logf("not compared with the reference decoder: %s", why)
		}
	})
}

// checkResponseShape checks IsInvalidResponse against encoding/json: when in
// is one JSON object, m is an invalid response exactly when it is invalid
// and has no "method" member but a "result" or an "error" member.
func checkResponseShape(t *testing.T, in []byte, m *Message) {
	t.Helper()
	var obj map[string]json.RawMessage
	if !utf8.Valid(in) || json.Unmarshal(in, &obj) != nil || obj == nil {
		if m.IsInvalidResponse() {
			t.Fatalf("%q is not a JSON object, yet an invalid response", in)
		}
		return
	}
	_, method := obj["method"]
	_, result := obj["result"]
	_, hasErr := obj["error"]
	if want := m.Invalid != nil && !method && (result || hasErr); m.IsInvalidResponse() != want {
		t.Fatalf("Decode(%q).IsInvalidResponse() = %v, want %v", in, !want, want)
	}
}

// checkDecoded checks the invariants of a decoded message.
func checkDecoded(t *testing.T, m *Message, top bool) {
	t.Helper()
	if m.Invalid != nil {
		if m.Method != "" || m.Params != nil || m.Result != nil || m.Error != nil || m.Batch != nil {
			t.Fatalf("invalid message has other members set: %s", describe(m))
		}
		switch m.Invalid.Code {
		case CodeParseError:
			if !top || !m.ID.IsZero() {
				t.Fatalf("parse error inside a batch or with an id: %s", describe(m))
			}
		case CodeInvalidRequest:
		default:
			t.Fatalf("invalid message with code %d", m.Invalid.Code)
		}
		if m.Invalid.Message == "" {
			t.Fatal("invalid message without a message")
		}
		// Its answer is a well-formed error response for the same id.
		reply := NewErrorResponse(m.ID, m.Invalid)
		back := Decode(reply.AppendJSON(nil))
		if back.Invalid != nil || back.Error == nil || back.ID != m.ID || back.Error.Code != m.Invalid.Code || back.Error.Message != m.Invalid.Message {
			t.Fatalf("reply to invalid message does not round-trip: %s -> %s", describe(reply), describe(back))
		}
		return
	}
	if m.Batch != nil {
		if !top || len(m.Batch) == 0 || m.ID != (ID{}) || m.Method != "" || m.Params != nil || m.Result != nil || m.Error != nil {
			t.Fatalf("malformed batch: %s", describe(m))
		}
		for _, e := range m.Batch {
			checkDecoded(t, e, false)
		}
		// The valid elements of a batch survive the round trip as a batch.
		var valid []*Message
		for _, e := range m.Batch {
			if e.Invalid == nil {
				valid = append(valid, e)
			}
		}
		if len(valid) > 0 {
			b := (&Message{Batch: valid}).AppendJSON(nil)
			if back := Decode(b); !equalMessage(back, &Message{Batch: valid}) {
				t.Fatalf("batch round trip:\nwire %s\n got %s", b, describe(back))
			}
		}
		return
	}
	kinds := 0
	for _, k := range []bool{m.IsRequest(), m.IsNotification(), m.IsResponse()} {
		if k {
			kinds++
		}
	}
	if kinds != 1 || (m.Result != nil && m.Error != nil) || (m.Method != "" && (m.Result != nil || m.Error != nil)) {
		t.Fatalf("valid message of no single kind: %s", describe(m))
	}
	if m.Params != nil && m.Params[0] != '{' && m.Params[0] != '[' {
		t.Fatalf("params not structured: %s", describe(m))
	}
	if m.Result != nil && m.ID.IsZero() {
		t.Fatalf("result without id: %s", describe(m))
	}
	for _, s := range []string{m.Method, strID(m.ID), errMessage(m.Error)} {
		if !utf8.ValidString(s) {
			t.Fatalf("decoded string is not UTF-8: %q", s)
		}
	}
	b := m.AppendJSON(nil)
	if !json.Valid(b) {
		t.Fatalf("AppendJSON wrote invalid JSON: %s", b)
	}
	if back := Decode(b); !equalMessage(back, m) {
		t.Fatalf("round trip:\n was %s\nwire %s\n got %s", describe(m), b, describe(back))
	}
}

func strID(id ID) string { s, _ := id.Str(); return s }

func errMessage(e *Error) string {
	if e == nil {
		return ""
	}
	return e.Message
}

// envelopeNames are the member names the decoders look at.
var envelopeNames = []string{"jsonrpc", "id", "method", "params", "result", "error", "code", "message", "data"}

// comparable reports whether referenceDecode must agree with Decode on data.
// They differ by design when an object has a repeated member or a member name
// that matches an envelope name only case-insensitively (encoding/json folds
// case; JSON-RPC does not).
func comparable(data []byte) (bool, string) {
	if !json.Valid(data) {
		return true, ""
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		object    bool
		expectKey bool
		keys      map[string]bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return true, ""
		}
		if err != nil {
			return true, ""
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.expectKey {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				continue
			}
			k := tok.(string)
			if top.keys[k] {
				return false, "duplicate member " + k
			}
			top.keys[k] = true
			for _, n := range envelopeNames {
				if k != n && strings.EqualFold(k, n) {
					return false, "case-folded member " + k
				}
			}
			top.expectKey = false
			continue
		}
		if top != nil && top.object {
			top.expectKey = true
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{':
				stack = append(stack, &frame{object: true, expectKey: true, keys: map[string]bool{}})
			case '[':
				stack = append(stack, &frame{})
			case ']', '}':
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].object {
					stack[len(stack)-1].expectKey = true
				}
			}
		}
	}
}

// referenceDecode is a straightforward decoder on top of encoding/json, kept
// to cross-check Decode on inputs where encoding/json's case-insensitive
// member matching does not come into play.
func referenceDecode(data []byte) *Message {
	data = bytes.Trim(data, " \t\r\n")
	if !utf8.Valid(data) || len(data) == 0 {
		return &Message{Invalid: errParse}
	}
	switch data[0] {
	case '{':
		return referenceObject(data)
	case '[':
		var elems []json.RawMessage
		if err := json.Unmarshal(data, &elems); err != nil {
			return &Message{Invalid: errParse}
		}
		if len(elems) == 0 {
			return invalid(ID{}, "empty batch")
		}
		if len(elems) > DefaultMaxBatch {
			return invalid(ID{}, "too many messages")
		}
		batch := make([]*Message, len(elems))
		for i, e := range elems {
			if e[0] == '{' {
				batch[i] = referenceObject(e)
			} else {
				batch[i] = invalid(ID{}, "not an object")
			}
		}
		return &Message{Batch: batch}
	}
	if json.Valid(data) {
		return invalid(ID{}, "not an object")
	}
	return &Message{Invalid: errParse}
}

// invalid is the reference decoder's invalid message: sameShape compares
// codes and ids, not the words of the message.
func invalid(id ID, msg string) *Message {
	return &Message{ID: id, Invalid: &Error{Code: CodeInvalidRequest, Message: "invalid request: " + msg}}
}

func referenceObject(data []byte) *Message {
	var w struct {
		JSONRPC json.RawMessage `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
		Params  json.RawMessage `json:"params"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return &Message{Invalid: errParse}
	}
	var id ID
	idOK := true
	if w.ID != nil {
		if err := json.Unmarshal(w.ID, &id); err != nil {
			idOK = false
		}
	}
	if string(w.JSONRPC) != `"2.0"` {
		return invalid(id, "jsonrpc")
	}
	if w.Method != nil {
		var method string
		if w.Method[0] != '"' || json.Unmarshal(w.Method, &method) != nil || method == "" {
			return invalid(id, "method")
		}
		if !idOK {
			return invalid(ID{}, "id")
		}
		if w.Result != nil || w.Error != nil {
			return invalid(id, "request with result or error")
		}
		if w.Params != nil && w.Params[0] != '{' && w.Params[0] != '[' {
			return invalid(id, "params")
		}
		return &Message{ID: id, Method: method, Params: w.Params}
	}
	if (w.Result == nil) == (w.Error == nil) {
		return invalid(id, "result xor error")
	}
	if w.Result != nil {
		if w.ID == nil || !idOK {
			return invalid(ID{}, "result id")
		}
		return &Message{ID: id, Result: w.Result}
	}
	if w.ID == nil || (!idOK && string(w.ID) != "null") {
		return invalid(ID{}, "error id")
	}
	var e struct {
		Code    *int64          `json:"code"`
		Message *string         `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	var members map[string]json.RawMessage
	if w.Error[0] != '{' || json.Unmarshal(w.Error, &e) != nil || json.Unmarshal(w.Error, &members) != nil ||
		e.Code == nil || e.Message == nil || members["message"][0] != '"' {
		return invalid(id, "error object")
	}
	return &Message{ID: id, Error: &Error{Code: *e.Code, Message: *e.Message, Data: e.Data}}
}

// FuzzConn feeds a Conn arbitrary wire messages, one per line, and checks
// that it only ever writes well-formed responses and still answers a valid
// request afterwards.
func FuzzConn(f *testing.F) {
	f.Add([]byte(strings.Join(fuzzSeeds, "\n")))
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, peer := newRawConn(t, ConnOptions{Handler: &specServer{}, MaxConcurrency: 2, MaxQueued: 4})
		lines := bytes.Split(data, []byte("\n"))
		if len(lines) > 50 {
			lines = lines[:50]
		}
		for _, l := range lines {
			peer.send(string(l))
		}
		peer.send(`{"jsonrpc":"2.0","id":"fuzz-alive","method":"ping"}`)
		deadline := time.Now().Add(5 * time.Second)
		for {
			if time.Now().After(deadline) {
				t.Fatal("no answer to the final ping")
			}
			out := peer.recv()
			m := Decode(out)
			if m.Invalid != nil {
				t.Fatalf("Conn wrote an invalid message: %s", out)
			}
			for _, r := range append([]*Message{m}, m.Batch...) {
				if r.Batch == nil && !r.IsResponse() {
					t.Fatalf("Conn wrote a non-response: %s", out)
				}
			}
			if m.ID == StringID("fuzz-alive") {
				if m.Error != nil && m.Error.Code == CodeServerOverloaded {
					peer.send(`{"jsonrpc":"2.0","id":"fuzz-alive","method":"ping"}`) // busy: try again
					continue
				}
				if m.Error != nil {
					t.Fatalf("ping failed: %s", out)
				}
				break
			}
		}
		select {
		case <-c.Done():
			t.Fatal("Conn ended on bad input")
		default:
		}
	})
}
