package jsonschema

import (
	"github.com/gomcp/sdk/jsonrpc"

	"encoding/json"
	"math/big"
	"net/netip"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

type (
	myInt    int
	myString string

	allScalars struct {
		B   bool    `json:"b"`
		I   int     `json:"i"`
		I8  int8    `json:"i8"`
		I64 int64   `json:"i64"`
		U   uint    `json:"u"`
		U16 uint16  `json:"u16"`
		UP  uintptr `json:"up"`
		F32 float32 `json:"f32"`
		F64 float64 `json:"f64"`
		S   string  `json:"s"`
		MI  myInt   `json:"mi"`
	}

	tagNames struct {
		Plain   string
		Renamed string `json:"renamed"`
		Skipped string `json:"-"`
		//lint:ignore SA5008 encoding/json names this field "-"
		Dash   string `json:"-,"`
		Opt    string `json:"opt,omitempty"`
		Zero   int    `json:"zero,omitzero"`
		Forced string `json:"forced,omitempty" jsonschema:"required"`
		Loose  string `json:"loose" jsonschema:"optional"`
		//lint:ignore U1000 unexported fields must be skipped
		unexp    string
		KeepName string `json:",omitempty"`
		//lint:ignore SA5008 encoding/json falls back to the Go name
		BadName   string `json:"a\"b"`
		QuotedInt int    `json:"qi,string"`
		QuotedPtr *bool  `json:"qp,string,omitempty"`
	}

	embedBase struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	EmbedPtr struct {
		Extra int `json:"extra,omitempty"`
	}
	embedOuter struct {
		embedBase
		*EmbedPtr
		Name  string    `json:"name"` // shadows embedBase.Name
		Named embedBase `json:"named"`
	}
	conflictA struct{ X int }
	conflictB struct{ X int }
	conflict  struct {
		conflictA
		conflictB
		Y int
	}
	taggedWinsA struct {
		X int `json:"X"`
	}
	taggedWinsB struct{ X string }
	taggedWins  struct {
		taggedWinsA
		taggedWinsB
	}
	embedNonStruct struct {
		//lint:ignore U1000 unexported embedded non-structs must be skipped
		myString
		MyInt myInt
	}

	empty struct{}
	//lint:ignore U1000 unexported fields must be skipped
	onlyHidden struct{ a, b int }

	containers struct {
		Bytes  []byte             `json:"bytes,omitempty"`
		Ints   []int              `json:"ints,omitempty"`
		Arr    [3]string          `json:"arr"`
		ByteAr [2]byte            `json:"byteArr"`
		M      map[string]bool    `json:"m,omitempty"`
		IM     map[int64]float64  `json:"im,omitempty"`
		TM     map[netip.Addr]int `json:"tm,omitempty"`
		Nested [][]string         `json:"nested,omitempty"`
		Anon   struct {
			A int `json:"a"`
		} `json:"anon"`
	}

	pointers struct {
		P   *int           `json:"p"`
		PO  *int           `json:"po,omitempty"`
		PP  **string       `json:"pp,omitempty"`
		S   []string       `json:"s"`
		M   map[string]int `json:"m"`
		PE  *string        `json:"pe" jsonschema:"enum=a|b"`
		PS  *embedBase     `json:"ps"`
		PT  *time.Time     `json:"pt"`
		Any any            `json:"any"`
	}

	special struct {
		T    time.Time       `json:"t"`
		Raw  json.RawMessage `json:"raw"`
		Num  json.Number     `json:"num"`
		Big  *big.Int        `json:"big,omitempty"`
		Addr netip.Addr      `json:"addr"`
		Err  error           `json:"err,omitempty"`
		Cust custom          `json:"cust"`
		CP   customPtr       `json:"cp" description:"with pointer receiver"`
	}

	tagged struct {
		Unit  string         `json:"unit,omitempty" description:"Temperature unit." jsonschema:"enum=celsius|fahrenheit,default=celsius,title=Unit"`
		Count int            `json:"count" jsonschema:"minimum=1,maximum=100,default=10"`
		Ratio float64        `json:"ratio" jsonschema:"exclusiveMinimum=0,exclusiveMaximum=1.5e0,enum=0.25|0.5"`
		Code  string         `json:"code" jsonschema:"minLength=2,maxLength=8,pattern=^[a-z]+(\\,[a-z]+)*$"`
		Mail  string         `json:"mail" jsonschema:"format=email"`
		Tags  []string       `json:"tags,omitempty" jsonschema:"minItems=1,maxItems=5,default=[\"a\"\\,\"b\"]"`
		On    bool           `json:"on,omitempty" jsonschema:"default=true"`
		Pipe  string         `json:"pipe,omitempty" jsonschema:"enum=a\\|b|c"`
		U8    uint8          `json:"u8,omitempty" jsonschema:"minimum=1,enum=1|255"`
		Obj   map[string]int `json:"obj,omitempty" jsonschema:"default={\"a\":1}"`
		Any   any            `json:"any,omitempty" jsonschema:"enum=1|\"x\"|null,minLength=1"`
		Desc  int            `json:"desc" description:"Quotes \" and <tags> & newlines\n are kept."`
	}

	// Recursive types.
	tree struct {
		Value    int    `json:"value"`
		Children []tree `json:"children,omitempty"`
		Parent   *tree  `json:"parent,omitempty"`
	}
	linked struct {
		Val  string  `json:"val"`
		Next *linked `json:"next"`
	}
	forest struct {
		Trees []linked `json:"trees"`
		Main  linked   `json:"main" description:"The main list."`
		Again *linked  `json:"again,omitempty"`
	}
	mutualA struct {
		B *mutualB `json:"b,omitempty"`
	}
	mutualB struct {
		A *mutualA `json:"a,omitempty"`
	}
	holdsMutual struct {
		A mutualA `json:"a"`
	}
	recMap            map[string]recMap
	genericBox[T any] struct {
		Items []genericBox[T] `json:"items,omitempty"`
		V     T               `json:"v"`
	}
	holdsGeneric struct {
		I genericBox[int]    `json:"i"`
		S genericBox[string] `json:"s"`
	}
)

// custom describes itself.
type custom struct{ v int }

func (custom) JSONSchema() json.RawMessage {
	return json.RawMessage(`{ "type": "integer", "minimum": 7 }`)
}

type customPtr struct{}

func (*customPtr) JSONSchema() json.RawMessage { return json.RawMessage(`{"type":"string"}`) }

func (customPtr) MarshalJSON() ([]byte, error) { return []byte(`"x"`), nil }

func (c custom) MarshalJSON() ([]byte, error) { return json.Marshal(c.v + 7) }

func TestForGolden(t *testing.T) {
	tests := []struct {
		name string
		typ  reflect.Type
		want string
	}{
		{"bool", reflect.TypeFor[bool](), `{"type":"boolean"}`},
		{"int", reflect.TypeFor[int](), `{"type":"integer"}`},
		{"uint32", reflect.TypeFor[uint32](), `{"type":"integer","minimum":0}`},
		{"float32", reflect.TypeFor[float32](), `{"type":"number"}`},
		{"string", reflect.TypeFor[string](), `{"type":"string"}`},
		{"named string", reflect.TypeFor[myString](), `{"type":"string"}`},
		{"pointer root", reflect.TypeFor[**int](), `{"type":"integer"}`},
		{"any", reflect.TypeFor[any](), `{}`},
		{"bytes", reflect.TypeFor[[]byte](), `{"type":"string","contentEncoding":"base64"}`},
		{"slice", reflect.TypeFor[[]float64](), `{"type":"array","items":{"type":"number"}}`},
		{"array", reflect.TypeFor[[2]bool](), `{"type":"array","items":{"type":"boolean"},"minItems":2,"maxItems":2}`},
		{"map", reflect.TypeFor[map[string]any](), `{"type":"object","additionalProperties":{}}`},
		{"uint map key", reflect.TypeFor[map[uint8]string](), `{"type":"object","additionalProperties":{"type":"string"}}`},
		{"time", reflect.TypeFor[time.Time](), `{"type":"string","format":"date-time"}`},
		{"raw", reflect.TypeFor[json.RawMessage](), `{}`},
		{"custom", reflect.TypeFor[custom](), `{"type":"integer","minimum":7}`},
		{"custom pointer receiver", reflect.TypeFor[*customPtr](), `{"type":"string"}`},
		{"empty struct", reflect.TypeFor[empty](), `{"type":"object","additionalProperties":false}`},
		{"only unexported", reflect.TypeFor[onlyHidden](), `{"type":"object","additionalProperties":false}`},
		{"scalars", reflect.TypeFor[allScalars](), `{"type":"object","properties":{` +
			`"b":{"type":"boolean"},"i":{"type":"integer"},"i8":{"type":"integer"},"i64":{"type":"integer"},` +
			`"u":{"type":"integer","minimum":0},"u16":{"type":"integer","minimum":0},"up":{"type":"integer","minimum":0},` +
			`"f32":{"type":"number"},"f64":{"type":"number"},"s":{"type":"string"},"mi":{"type":"integer"}},` +
			`"required":["b","i","i8","i64","u","u16","up","f32","f64","s","mi"]}`},
		{"json tags", reflect.TypeFor[tagNames](), `{"type":"object","properties":{` +
			`"Plain":{"type":"string"},"renamed":{"type":"string"},"-":{"type":"string"},"opt":{"type":"string"},` +
			`"zero":{"type":"integer"},"forced":{"type":"string"},"loose":{"type":"string"},"KeepName":{"type":"string"},` +
			`"BadName":{"type":"string"},"qi":{"type":"string"},"qp":{"type":"string"}},` +
			`"required":["Plain","renamed","-","forced","BadName","qi"]}`},
		{"embedded", reflect.TypeFor[embedOuter](), `{"type":"object","properties":{` +
			`"id":{"type":"string"},"extra":{"type":"integer"},"name":{"type":"string"},` +
			`"named":{"type":"object","properties":{"id":{"type":"string"},"name":{"type":"string"}},"required":["id","name"]}},` +
			`"required":["id","name","named"]}`},
		{"ambiguous embedded fields dropped", reflect.TypeFor[conflict](), `{"type":"object","properties":{"Y":{"type":"integer"}},"required":["Y"]}`},
		{"tagged embedded field wins", reflect.TypeFor[taggedWins](), `{"type":"object","properties":{"X":{"type":"integer"}},"required":["X"]}`},
		{"embedded non-struct", reflect.TypeFor[embedNonStruct](), `{"type":"object","properties":{"MyInt":{"type":"integer"}},"required":["MyInt"]}`},
		{"containers", reflect.TypeFor[containers](), `{"type":"object","properties":{` +
			`"bytes":{"type":"string","contentEncoding":"base64"},` +
			`"ints":{"type":"array","items":{"type":"integer"}},` +
			`"arr":{"type":"array","items":{"type":"string"},"minItems":3,"maxItems":3},` +
			`"byteArr":{"type":"array","items":{"type":"integer","minimum":0},"minItems":2,"maxItems":2},` +
			`"m":{"type":"object","additionalProperties":{"type":"boolean"}},` +
			`"im":{"type":"object","additionalProperties":{"type":"number"}},` +
			`"tm":{"type":"object","additionalProperties":{"type":"integer"}},` +
			`"nested":{"type":"array","items":{"type":"array","items":{"type":"string"}}},` +
			`"anon":{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}},` +
			`"required":["arr","byteArr","anon"]}`},
		{"nullable pointers slices maps", reflect.TypeFor[pointers](), `{"type":"object","properties":{` +
			`"p":{"type":["integer","null"]},"po":{"type":"integer"},"pp":{"type":"string"},` +
			`"s":{"type":["array","null"],"items":{"type":"string"}},` +
			`"m":{"type":["object","null"],"additionalProperties":{"type":"integer"}},` +
			`"pe":{"type":["string","null"],"enum":["a","b",null]},` +
			`"ps":{"type":["object","null"],"properties":{"id":{"type":"string"},"name":{"type":"string"}},"required":["id","name"]},` +
			`"pt":{"type":["string","null"],"format":"date-time"},"any":{}},` +
			`"required":["p","s","m","pe","ps","pt","any"]}`},
		{"special types", reflect.TypeFor[special](), `{"type":"object","properties":{` +
			`"t":{"type":"string","format":"date-time"},"raw":{},"num":{"type":"number"},"big":{},` +
			`"addr":{"type":"string"},"err":{},"cust":{"type":"integer","minimum":7},` +
			`"cp":{"type":"string","description":"with pointer receiver"}},` +
			`"required":["t","raw","num","addr","cust","cp"]}`},
		{"tags", reflect.TypeFor[tagged](), `{"type":"object","properties":{` +
			`"unit":{"type":"string","title":"Unit","description":"Temperature unit.","enum":["celsius","fahrenheit"],"default":"celsius"},` +
			`"count":{"type":"integer","default":10,"minimum":1,"maximum":100},` +
			`"ratio":{"type":"number","enum":[0.25,0.5],"exclusiveMinimum":0,"exclusiveMaximum":1.5e0},` +
			`"code":{"type":"string","minLength":2,"maxLength":8,"pattern":"^[a-z]+(,[a-z]+)*$"},` +
			`"mail":{"type":"string","format":"email"},` +
			`"tags":{"type":"array","default":["a","b"],"items":{"type":"string"},"minItems":1,"maxItems":5},` +
			`"on":{"type":"boolean","default":true},` +
			`"pipe":{"type":"string","enum":["a|b","c"]},` +
			`"u8":{"type":"integer","enum":[1,255],"minimum":1},` +
			`"obj":{"type":"object","default":{"a":1},"additionalProperties":{"type":"integer"}},` +
			`"any":{"enum":[1,"x",null],"minLength":1},` +
			`"desc":{"type":"integer","description":"Quotes \" and <tags> & newlines\n are kept."}},` +
			`"required":["count","ratio","code","mail","desc"]}`},
		{"recursive root", reflect.TypeFor[tree](), `{"type":"object","properties":{` +
			`"value":{"type":"integer"},"children":{"type":"array","items":{"$ref":"#"}},"parent":{"$ref":"#"}},` +
			`"required":["value"]}`},
		{"recursive root via pointer", reflect.TypeFor[*linked](), `{"type":"object","properties":{` +
			`"val":{"type":"string"},"next":{"anyOf":[{"$ref":"#"},{"type":"null"}]}},"required":["val","next"]}`},
		{"recursive defs", reflect.TypeFor[forest](), `{"type":"object","properties":{` +
			`"trees":{"type":["array","null"],"items":{"$ref":"#/$defs/linked"}},` +
			`"main":{"$ref":"#/$defs/linked","description":"The main list."},` +
			`"again":{"$ref":"#/$defs/linked"}},"required":["trees","main"],` +
			`"$defs":{"linked":{"type":"object","properties":{"val":{"type":"string"},` +
			`"next":{"anyOf":[{"$ref":"#/$defs/linked"},{"type":"null"}]}},"required":["val","next"]}}}`},
		{"mutual recursion", reflect.TypeFor[holdsMutual](), `{"type":"object","properties":{` +
			`"a":{"$ref":"#/$defs/mutualA"}},"required":["a"],"$defs":{` +
			`"mutualA":{"type":"object","properties":{"b":{"type":"object","properties":{"a":{"$ref":"#/$defs/mutualA"}}}}}}}`},
		{"recursive map", reflect.TypeFor[recMap](), `{"type":"object","additionalProperties":{"$ref":"#"}}`},
		{"generic recursive", reflect.TypeFor[holdsGeneric](), `{"type":"object","properties":{` +
			`"i":{"$ref":"#/$defs/genericBox_int_"},"s":{"$ref":"#/$defs/genericBox_string_"}},"required":["i","s"],"$defs":{` +
			`"genericBox_int_":{"type":"object","properties":{"items":{"type":"array","items":{"$ref":"#/$defs/genericBox_int_"}},"v":{"type":"integer"}},"required":["v"]},` +
			`"genericBox_string_":{"type":"object","properties":{"items":{"type":"array","items":{"$ref":"#/$defs/genericBox_string_"}},"v":{"type":"string"}},"required":["v"]}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ForType(tt.typ)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
			if !json.Valid(got) {
				t.Fatalf("invalid JSON: %s", got)
			}
			// Every inferred schema must be a valid 2020-12 schema.
			if _, err := Compile(got); err != nil {
				t.Errorf("inferred schema does not compile: %v", err)
			}
		})
	}
}

// Inferred schemas must accept what encoding/json produces for the type,
// including nil pointers, slices and maps.
func TestInferredSchemaAcceptsMarshaledValues(t *testing.T) {
	n := 3
	s := "x"
	ps := &s
	tests := []struct {
		name string
		v    any
	}{
		{"zero pointers", pointers{}},
		{"filled pointers", pointers{P: &n, PO: &n, PP: &ps, S: []string{"a"}, M: map[string]int{"k": 1}, PE: new("a"), PS: &embedBase{}, PT: &time.Time{}, Any: []any{1}}},
		{"zero containers", containers{}},
		{"zero tags", tagNames{Forced: "f"}},
		{"embedded", embedOuter{embedBase: embedBase{ID: "1"}, EmbedPtr: &EmbedPtr{Extra: 2}}},
		{"tree", tree{Value: 1, Children: []tree{{Value: 2, Children: []tree{{Value: 3}}}}, Parent: &tree{}}},
		{"linked", &linked{Val: "a", Next: &linked{Val: "b"}}},
		{"forest", forest{Trees: []linked{{Val: "x"}}, Again: &linked{}}},
		{"mutual", holdsMutual{A: mutualA{B: &mutualB{A: &mutualA{}}}}},
		{"recMap", recMap{"a": recMap{"b": recMap{}}}},
		{"generic", holdsGeneric{I: genericBox[int]{Items: []genericBox[int]{{V: 2}}, V: 1}}},
		{"special", special{Raw: json.RawMessage(`[1]`), Num: "12.5", Big: big.NewInt(5), Addr: netip.MustParseAddr("::1")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			schema, err := ForType(reflect.TypeOf(tt.v))
			if err != nil {
				t.Fatal(err)
			}
			v, err := Compile(schema)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			if err := v.Validate(b); err != nil {
				t.Errorf("%s\nschema %s\nrejected: %v", b, schema, err)
			}
			if err := v.ValidateValue(tt.v); err != nil {
				t.Errorf("ValidateValue rejected: %v", err)
			}
		})
	}
}

type (
	badChan    struct{ C chan int }
	badFunc    struct{ F func() }
	badComplex struct {
		C complex128 `json:"c"`
	}
	badMapKey    struct{ M map[[2]int]string }
	badNested    struct{ Inner []map[string]badChan }
	badUnknownKw struct {
		A int `jsonschema:"minimun=1"`
	}
	badEnumInt struct {
		A int `jsonschema:"enum=1|x"`
	}
	badEnumRange struct {
		A int8 `jsonschema:"enum=1|300"`
	}
	badUintNeg struct {
		A uint `jsonschema:"default=-1"`
	}
	badBool struct {
		A bool `jsonschema:"default=yes"`
	}
	badFloat struct {
		A float64 `jsonschema:"default=0x10"`
	}
	badFloatRange struct {
		A float32 `jsonschema:"default=1e300"`
	}
	badMinString struct {
		A string `jsonschema:"minimum=1"`
	}
	badMinLenInt struct {
		A int `jsonschema:"minLength=1"`
	}
	badMinItems struct {
		A string `jsonschema:"minItems=1"`
	}
	badNegLen struct {
		A string `jsonschema:"maxLength=-1"`
	}
	badPattern struct {
		A string `jsonschema:"pattern=a("`
	}
	badDup struct {
		A string `jsonschema:"title=a,title=b"`
	}
	badNoValue struct {
		A string `jsonschema:"description=x,title"` // items (it begins with WORD=), one wrong
	}
	badOptValue struct {
		A string `jsonschema:"optional=yes"`
	}
	badBoth struct {
		A string `jsonschema:"optional,required"`
	}
	badEmptyItem struct {
		A string `jsonschema:"title=a,,format=b"`
	}
	badArrayDefault struct {
		A []int `jsonschema:"default={}"`
	}
	badObjectDefault struct {
		A struct{ B int } `jsonschema:"default=[1]"`
	}
	badJSONDefault struct {
		A any `jsonschema:"default={"`
	}
	badMinimumValue struct {
		A int `jsonschema:"minimum=abc"`
	}
	badEmptyFormat struct {
		A string `jsonschema:"format="`
	}
	badCustomSchema struct {
		A invalidCustom
	}
	panicCustomSchema struct {
		A panicCustom
	}
	tagOnBoolCustom struct {
		A boolCustom `description:"x"`
	}
	pointerLoop *pointerLoop
)

type invalidCustom struct{}

func (invalidCustom) JSONSchema() json.RawMessage { return json.RawMessage(`{"type":`) }

type panicCustom struct{ p *int }

func (c panicCustom) JSONSchema() json.RawMessage { return json.RawMessage(fmtInt(*c.p)) }

func fmtInt(int) string { return "{}" }

type boolCustom struct{}

func (boolCustom) JSONSchema() json.RawMessage { return json.RawMessage(`false`) }

func TestForErrors(t *testing.T) {
	tests := []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[chan int](), "unsupported type chan int"},
		{reflect.TypeFor[badChan](), "field jsonschema.badChan.C: unsupported type chan int"},
		{reflect.TypeFor[badFunc](), "unsupported type func()"},
		{reflect.TypeFor[badComplex](), "unsupported type complex128"},
		{reflect.TypeFor[badMapKey](), "unsupported map key type [2]int"},
		{reflect.TypeFor[map[float64]int](), "unsupported map key type float64"},
		{reflect.TypeFor[badNested](), "unsupported type chan int"},
		{reflect.TypeFor[badUnknownKw](), `minimun: unknown keyword`},
		{reflect.TypeFor[badEnumInt](), `enum: "x" is not a valid int`},
		{reflect.TypeFor[badEnumRange](), `enum: "300" is not a valid int8`},
		{reflect.TypeFor[badUintNeg](), `default: "-1" is not a valid uint`},
		{reflect.TypeFor[badBool](), `default: "yes" is not a boolean`},
		{reflect.TypeFor[badFloat](), `default: "0x10" is not a JSON number`},
		{reflect.TypeFor[badFloatRange](), `default: "1e300" is out of range for float32`},
		{reflect.TypeFor[badMinString](), "minimum: not applicable to a string"},
		{reflect.TypeFor[badMinLenInt](), "minLength: not applicable to a integer"},
		{reflect.TypeFor[badMinItems](), "minItems: not applicable to a string"},
		{reflect.TypeFor[badNegLen](), `maxLength: "-1" is not a non-negative integer`},
		{reflect.TypeFor[badPattern](), "pattern: error parsing regexp"},
		{reflect.TypeFor[badDup](), `duplicate keyword "title"`},
		{reflect.TypeFor[badNoValue](), `keyword "title" needs a value`},
		{reflect.TypeFor[badOptValue](), "optional takes no value"},
		{reflect.TypeFor[badBoth](), "both optional and required"},
		{reflect.TypeFor[badEmptyItem](), "empty item"},
		{reflect.TypeFor[badArrayDefault](), "is not a JSON array"},
		{reflect.TypeFor[badObjectDefault](), "is not a JSON object"},
		{reflect.TypeFor[badJSONDefault](), "is not valid JSON"},
		{reflect.TypeFor[badMinimumValue](), `minimum: "abc" is not a JSON number`},
		{reflect.TypeFor[badEmptyFormat](), "format: empty value"},
		{reflect.TypeFor[badCustomSchema](), "JSONSchema returned invalid JSON"},
		{reflect.TypeFor[panicCustomSchema](), "JSONSchema panicked"},
		{reflect.TypeFor[tagOnBoolCustom](), "cannot apply tags to custom schema"},
		{reflect.TypeFor[pointerLoop](), "pointer chain"},
	}
	for _, tt := range tests {
		t.Run(tt.typ.String(), func(t *testing.T) {
			for range 2 { // the second call is served from the cache
				got, err := ForType(tt.typ)
				if err == nil {
					t.Fatalf("no error; schema %s", got)
				}
				if !strings.Contains(err.Error(), tt.want) {
					t.Errorf("error %q does not contain %q", err, tt.want)
				}
			}
		})
	}
	if _, err := ForType(nil); err == nil {
		t.Error("ForType(nil) succeeded")
	}
}

// Exponentially large inlined schemas are refused rather than built.
func TestForSizeLimit(t *testing.T) {
	type l0 struct{ A, B, C, D int }
	type l1 struct{ A, B, C, D l0 }
	type l2 struct{ A, B, C, D l1 }
	type l3 struct{ A, B, C, D l2 }
	type l4 struct{ A, B, C, D l3 }
	type l5 struct{ A, B, C, D l4 }
	type l6 struct{ A, B, C, D l5 }
	type l7 struct{ A, B, C, D l6 }
	if _, err := For[l4](); err != nil {
		t.Fatalf("moderate type refused: %v", err)
	}
	_, err := For[l7]()
	if err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Fatalf("got %v, want size limit error", err)
	}
}

func TestForCachedCopy(t *testing.T) {
	a, err := For[tagged]()
	if err != nil {
		t.Fatal(err)
	}
	want := string(a)
	a[0] = 'X'
	b, _ := For[tagged]()
	if string(b) != want {
		t.Fatal("mutating a result changed the cache")
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			s, err := For[forest]()
			if err != nil || !json.Valid(s) {
				t.Errorf("concurrent For: %v", err)
			}
		})
	}
	wg.Wait()
}

func TestSplitTag(t *testing.T) {
	tests := []struct {
		in   string
		want []tagItem
	}{
		{"", nil},
		{"optional", []tagItem{{key: "optional"}}},
		{" title=a b , format=x", []tagItem{{key: "title", val: "a b ", hasVal: true}, {key: "format", val: "x", hasVal: true}}},
		{`pattern=a\,b\d`, []tagItem{{key: "pattern", val: `a,b\d`, hasVal: true}}},
		{`default=a=b`, []tagItem{{key: "default", val: "a=b", hasVal: true}}},
		{`title=x\`, []tagItem{{key: "title", val: `x\`, hasVal: true}}},
	}
	for _, tt := range tests {
		got, err := splitTag(tt.in)
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: got %#v, want %#v", tt.in, got, tt.want)
		}
	}
	if got := splitEnum(`a|b\|c||`); !reflect.DeepEqual(got, []string{"a", `b|c`, "", ""}) {
		t.Errorf("splitEnum: %q", got)
	}
}

func TestIsJSONNumber(t *testing.T) {
	for s, want := range map[string]bool{
		"0": true, "-0": true, "12": true, "1.5": true, "1e5": true, "-1.25E-3": true, "1e+2": true,
		"": false, "-": false, "01": false, "1.": false, ".5": false, "+1": false, "1e": false,
		"0x10": false, "NaN": false, "Inf": false, "1 ": false,
	} {
		if got := isJSONNumber(s); got != want {
			t.Errorf("isJSONNumber(%q) = %v", s, got)
		}
	}
}

func TestAppendString(t *testing.T) {
	for in, want := range map[string]string{
		"plain":            `"plain"`,
		"q\"b\\":           `"q\"b\\"`,
		"<&>":              `"<&>"`,
		"\n\r\t\x01":       `"\n\r\t\u0001"`,
		"é€😀":              `"é€😀"`,
		"bad\xffutf8":      `"bad\ufffdutf8"`,
		"ls\u2028ps\u2029": `"ls\u2028ps\u2029"`,
	} {
		got := string(jsonrpc.AppendString(nil, in, false))
		if got != want {
			t.Errorf("jsonrpc.AppendString(%q, false) = %s, want %s", in, got, want)
		}
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Errorf("%s: %v", got, err)
		}
	}
}

func BenchmarkForCached(b *testing.B) {
	if _, err := For[tagged](); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := For[tagged](); err != nil {
			b.Fatal(err)
		}
	}
}
