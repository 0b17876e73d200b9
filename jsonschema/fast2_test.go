package jsonschema

import (
	"bytes"

	js "github.com/santhosh-tekuri/jsonschema/v6"
)

func unmarshalForTest(b []byte) (any, error) { return js.UnmarshalJSON(bytes.NewReader(b)) }
