package mcp

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

type argsFlat struct {
	Text  string  `json:"text"`
	N     int8    `json:"n,omitempty"`
	U     uint16  `json:"u"`
	F     float32 `json:"f"`
	B     bool    `json:"b"`
	Plain string
	skip  string // unexported: both decoders leave it alone
	Dash  string `json:"-"`
}

var _ = argsFlat{skip: ""}

type argsMode string

type argsNamed struct {
	Mode argsMode `json:"mode"`
}

// argsDecoderTypes are types the fast decoder takes (true) or leaves to
// encoding/json (false).
func TestArgsDecoderTypes(t *testing.T) {
	type embedded struct{ argsFlat }
	type quoted struct {
		N int `json:"n,string"`
	}
	type nested struct {
		S []string `json:"s"`
	}
	type odd struct {
		A string `json:"a.b"`
	}
	type twice struct {
		A string `json:"a"`
		B string `json:"A"`
	}
	type raw struct {
		R json.RawMessage `json:"r"`
	}
	for _, tt := range []struct {
		typ  reflect.Type
		fast bool
	}{
		{reflect.TypeFor[argsFlat](), true},
		{reflect.TypeFor[argsNamed](), true},
		{reflect.TypeFor[struct{}](), true},
		{reflect.TypeFor[*argsFlat](), false},
		{reflect.TypeFor[map[string]any](), false},
		{reflect.TypeFor[embedded](), false},
		{reflect.TypeFor[quoted](), false},
		{reflect.TypeFor[nested](), false},
		{reflect.TypeFor[odd](), false},
		{reflect.TypeFor[twice](), false},
		{reflect.TypeFor[raw](), false},
	} {
		if got := newArgsDecoder(tt.typ) != nil; got != tt.fast {
			t.Errorf("newArgsDecoder(%v) != nil is %v, want %v", tt.typ, got, tt.fast)
		}
	}
}

// The fast decoder decodes every input as encoding/json does, or gives up.
func TestArgsDecoderMatchesEncodingJSON(t *testing.T) {
	inputs := []string{
		`{}`, ` { "text" : "hi" , "n":-5,"u":7,"f":1.5e2,"b":true,"Plain":"p"} `,
		`{"text":"esc \" \\ \n \u00e9 \ud83d\ude00"}`, `{"text":"bad \ud800 surrogate"}`,
		"{\"text\":\"bad \xff utf8\"}", `{"text":"é世界"}`,
		`{"TEXT":"folded"}`, `{"Text":"folded"}`, `{"plain":"folded"}`, `{"tExt":"a","text":"b"}`,
		`{"text":"a","text":"b"}`, `{"text":null,"n":null,"b":null}`,
		`{"other":{"x":[1,"}",{"y":null}]},"text":"after"}`, `{"skip":"x","Dash":"y","-":"z"}`,
		`{"n":128}`, `{"n":-129}`, `{"n":1.0}`, `{"n":1e2}`, `{"u":-1}`, `{"u":65536}`,
		`{"f":1e39}`, `{"f":-0}`, `{"b":"true"}`, `{"b":1}`, `{"text":5}`, `{"text":{}}`,
		`{"text":["a"]}`, `{"\u0074ext":"escaped key"}`, `{"te\u0078t":"escaped key"}`,
		"{\"\u212aey\":\"kelvin\"}", `{"İ":"dotted"}`, `null`, `[]`, `"text"`,
		`{"text":"` + strings.Repeat("x", 1<<16) + `"}`,
	}
	for _, in := range inputs {
		var want, got argsFlat
		wantErr := json.Unmarshal([]byte(in), &want)
		d := newArgsDecoder(reflect.TypeFor[argsFlat]())
		if d.decode([]byte(in), reflect.ValueOf(&got).Elem()) {
			if wantErr != nil {
				t.Errorf("decode(%.80s) succeeded; encoding/json: %v", in, wantErr)
			} else if got != want {
				t.Errorf("decode(%.80s) = %+v, encoding/json %+v", in, got, want)
			}
		}
	}
	// The usual arguments take the fast way.
	for _, in := range []string{inputs[1], inputs[2], inputs[len(inputs)-1], `{"text":null,"n":null,"b":null}`, `{"other":{"x":[1,"}",{"y":null}]},"text":"after"}`} {
		var got argsFlat
		if !newArgsDecoder(reflect.TypeFor[argsFlat]()).decode([]byte(in), reflect.ValueOf(&got).Elem()) {
			t.Errorf("decode(%.80s) gave up", in)
		}
	}
	var want, got argsNamed
	in := []byte(`{"mode":"fast"}`)
	_ = json.Unmarshal(in, &want)
	if !newArgsDecoder(reflect.TypeFor[argsNamed]()).decode(in, reflect.ValueOf(&got).Elem()) || got != want {
		t.Errorf("named string type: got %+v, want %+v", got, want)
	}
}

func FuzzArgsDecoder(f *testing.F) {
	f.Add(`{"text":"hi","n":1,"u":2,"f":3,"b":false}`)
	f.Add(`{"TEXT":"x","other":[1,{"a":"\""}]}`)
	d := newArgsDecoder(reflect.TypeFor[argsFlat]())
	f.Fuzz(func(t *testing.T, in string) {
		if !json.Valid([]byte(in)) {
			return // tools/call arguments are valid JSON
		}
		var want, got argsFlat
		wantErr := json.Unmarshal([]byte(in), &want)
		if d.decode([]byte(in), reflect.ValueOf(&got).Elem()) && (wantErr != nil || got != want) {
			t.Errorf("decode(%q) = %+v; encoding/json %+v, %v", in, got, want, wantErr)
		}
	})
}

// cloneTool copies a Tool without encoding it when its fields that hold
// memory (pointers, slices, maps) are nil but for the schemas: every such
// field must be in that list.
func TestCloneToolFields(t *testing.T) {
	known := map[string]bool{"Meta": true, "Annotations": true, "Icons": true, "Execution": true, "InputSchema": true, "OutputSchema": true}
	typ := reflect.TypeFor[Tool]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		switch f.Type.Kind() {
		case reflect.String, reflect.Bool, reflect.Int, reflect.Int64, reflect.Float64:
		default:
			if !known[f.Name] {
				t.Errorf("Tool.%s (%s) holds memory: cloneTool's fast path must check it is nil", f.Name, f.Type)
			}
		}
	}
	in := json.RawMessage(`{"type":"object"}`)
	orig := &Tool{Name: "t", Title: "T", Description: "d"}
	c, err := cloneTool(orig, in, nil)
	got, _ := c.InputSchema.(json.RawMessage)
	if err != nil || c == orig || c.Name != "t" || c.Title != "T" || c.Description != "d" || string(got) != string(in) || &got[0] == &in[0] || c.OutputSchema != nil {
		t.Errorf("cloneTool = %+v, %v", c, err)
	}
}
