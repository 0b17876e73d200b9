package jsonschema

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// stdDecode is encoding/json's decoding, the reference for decodeJSON.
func stdDecode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.InputOffset() != int64(len(bytes.TrimRight(data, " \t\r\n"))) || !json.Valid(data) {
		return nil, errTrailing
	}
	return v, nil
}

var errTrailing = &json.SyntaxError{}

var decodeSeeds = []string{
	`{"a":[1,-2.5e+3,true,false,null,"x\u00e9\ud83d\ude00\n\"\\\/"],"b":{}}`, `[]`, ` 0 `, `-0.0E-0`, `"\ud800"`, `"\ud800\u0041"`,
	`"\udc00\ud800"`, "\"\xff\xfe a\"", "\"\\n\xff\"", `{"a":1,"a":2}`, `01`, `1.`, `-`, `.5`, `1e`, `"\x"`, `"\u12"`, `[1,]`, `{"a" 1}`,
	`{,}`, `tru`, `nul`, `"a` + "\x01" + `"`, `{} {}`, `"\u0000"`, `1 2`, `[` + strings.Repeat(`[`, 20) + strings.Repeat(`]`, 21),
}

func TestDecodeJSON(t *testing.T) {
	for _, s := range decodeSeeds {
		checkDecode(t, []byte(s))
	}
	deep := strings.Repeat("[", maxDecodeDepth+1) + strings.Repeat("]", maxDecodeDepth+1)
	if _, err := decodeJSON([]byte(deep)); err == nil {
		t.Error("no error beyond the depth limit")
	}
	ok := strings.Repeat("[", maxDecodeDepth) + strings.Repeat("]", maxDecodeDepth)
	if _, err := decodeJSON([]byte(ok)); err != nil {
		t.Errorf("at the depth limit: %v", err)
	}
}

func checkDecode(t *testing.T, data []byte) {
	t.Helper()
	want, werr := stdDecode(data)
	got, gerr := decodeJSON(data)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%q: encoding/json error %v, decodeJSON error %v", data, werr, gerr)
	}
	if werr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: decodeJSON %#v, encoding/json %#v", data, got, want)
	}
}

// FuzzDecodeJSON checks decodeJSON against encoding/json.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.Count(s, "[")+strings.Count(s, "{") > 1000 {
			return
		}
		checkDecode(t, []byte(s))
	})
}
