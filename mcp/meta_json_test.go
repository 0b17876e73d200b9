package mcp

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzScanner checks the structure scanner against encoding/json: on valid
// JSON objects and arrays it must agree member by member; on anything else
// it may fail but must not panic.
func FuzzScanner(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `{"a":1,"b":[1,{"c":"}"}],"d":"\"]"}`, `[1,"a",{"b":null},[true,false]]`,
		` { "k" : "v" } `, `{"a\u0022b":"x\\"}`, `{"a":1 "b":2}`, `{"a":}`, `[1,]`, `{"a":1}}`,
		`{"a":"\`, `[`, `{`, `"`, `{"a":[}`, `{"\u00e9":1}`, `[-1.5e3,0]`,
		"{\"\x82\":\"\"}", "{\"\xff\":0}", // invalid UTF-8 keys, which encoding/json repairs
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var keys [][]byte
		var vals [][]byte
		errObj := eachMember(data, func(k, v []byte) error {
			keys = append(keys, k)
			vals = append(vals, v)
			return nil
		})
		var elems [][]byte
		errArr := eachElement(data, func(v []byte) error {
			elems = append(elems, v)
			return nil
		})
		if !json.Valid(data) {
			return
		}
		trimmed := bytes.TrimSpace(data)
		switch trimmed[0] {
		case '{':
			if errObj != nil {
				t.Fatalf("eachMember(%s): %v", data, errObj)
			}
			var want map[string]json.RawMessage
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatal(err)
			}
			got := map[string][]byte{}
			for i, k := range keys {
				s, ok := unquote(k)
				if !ok {
					t.Fatalf("key %s does not unquote", k)
				}
				if !keyIs(k, s) {
					t.Fatalf("keyIs(%s, %q) = false", k, s)
				}
				if !json.Valid(vals[i]) {
					t.Fatalf("value %q of %s is not JSON", vals[i], data)
				}
				got[s] = vals[i]
			}
			if len(got) != len(want) {
				t.Fatalf("%s: %d members, want %d", data, len(got), len(want))
			}
			for k, v := range want {
				if !bytes.Equal(got[k], v) {
					t.Fatalf("%s: member %q = %s, want %s", data, k, got[k], v)
				}
			}
		case '[':
			if errArr != nil {
				t.Fatalf("eachElement(%s): %v", data, errArr)
			}
			var want []json.RawMessage
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatal(err)
			}
			if len(elems) != len(want) {
				t.Fatalf("%s: %d elements, want %d", data, len(elems), len(want))
			}
			for i := range want {
				if !bytes.Equal(elems[i], want[i]) {
					t.Fatalf("%s: element %d = %s, want %s", data, i, elems[i], want[i])
				}
			}
		default:
			if errObj == nil || errArr == nil {
				t.Fatalf("%s: scanner accepted a scalar", data)
			}
		}
	})
}

func TestUnquote(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{`"abc"`, "abc", true},
		{`""`, "", true},
		{`"a\"b"`, `a"b`, true},
		{`"\u00e9\n"`, "é\n", true},
		{`"bad\x"`, "", false},
		{`"tab	in"`, "", false}, // raw control characters are invalid
		{`abc`, "", false},
		{`"`, "", false},
		{`5`, "", false},
	}
	for _, tt := range tests {
		got, ok := unquote([]byte(tt.in))
		if got != tt.want || ok != tt.ok {
			t.Errorf("unquote(%s) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	if !keyIs([]byte(`"progress\u0054oken"`), "progressToken") || keyIs([]byte(`"progresstoken"`), "progressToken") {
		t.Error("keyIs")
	}
}

func TestScannerRejectsMalformed(t *testing.T) {
	for _, in := range []string{`{"a":1 "b":2}`, `{"a":}`, `{"a"}`, `{,}`, `{"a":1,}`, `{"a":1}}`, `{"a":"x`, `[1,]`, `[1 2]`, `[`, ``, `  `, `{"a":[1}`, `{"a":1} x`, `{"a":[1}}`, `[{]]`} {
		if err := eachMember([]byte(in), func(_, _ []byte) error { return nil }); err == nil {
			if err := eachElement([]byte(in), func([]byte) error { return nil }); err == nil {
				t.Errorf("%q accepted", in)
			}
		}
	}
}

func TestMetaEscapedKeys(t *testing.T) {
	var m Meta
	if err := json.Unmarshal([]byte(`{"progress\u0054oken":5,"x\u00e9":1}`), &m); err != nil {
		t.Fatal(err)
	}
	if v, _ := m.ProgressToken.Int64(); v != 5 || string(m.Extra["xé"]) != "1" {
		t.Errorf("got %#v", m)
	}
}
