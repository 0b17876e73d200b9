package jsonschema

func unmarshalForTest(b []byte) (any, error) { return decodeJSON(b) }
