package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Multi-round-trip requests (MRTR, SEP-2322, 2026-07-28). In 2026 a server
// never sends JSON-RPC requests; a tools/call, prompts/get or resources/read
// handler that needs the client's input returns an InputRequiredResult, and
// the client retries the same params under a new id with InputResponses
// (answers keyed like InputRequests) and RequestState echoed byte for byte.

// InputRequiredResult asks the client for input before the request can
// complete. At least one of InputRequests and RequestState must be set.
type InputRequiredResult struct {
	Meta *Meta `json:"_meta,omitempty"`
	// ResultType is ResultTypeInputRequired.
	ResultType ResultType `json:"resultType,omitempty"`
	// InputRequests are the questions, under keys unique within the request.
	InputRequests map[string]*InputRequest `json:"inputRequests,omitempty"`
	// RequestState is opaque server state the client echoes unchanged.
	RequestState string `json:"requestState,omitempty"`
}

// InputRequest is one question of an InputRequiredResult: a bare
// {method, params} object with exactly one field here set.
type InputRequest struct {
	// Elicit is an elicitation/create request.
	Elicit *ElicitParams
	// CreateMessage is a sampling/createMessage request.
	CreateMessage *CreateMessageParams
	// ListRoots is a roots/list request. Its params are optional on the
	// wire; absent params are read as an empty ListRootsParams.
	ListRoots *ListRootsParams
}

// Method returns the request's method, or "" when no field is set.
func (r *InputRequest) Method() string {
	switch {
	case r.Elicit != nil:
		return MethodElicitationCreate
	case r.CreateMessage != nil:
		return MethodSamplingCreateMessage
	case r.ListRoots != nil:
		return MethodRootsList
	}
	return ""
}

var errInputRequestFields = errors.New("mcp: an InputRequest must have exactly one of Elicit, CreateMessage and ListRoots set")

// MarshalJSON writes {"method":...,"params":...}.
func (r InputRequest) MarshalJSON() ([]byte, error) {
	n := 0
	var params any
	if r.Elicit != nil {
		n++
		params = r.Elicit
	}
	if r.CreateMessage != nil {
		n++
		params = r.CreateMessage
	}
	if r.ListRoots != nil {
		n++
		params = r.ListRoots
	}
	if n != 1 {
		return nil, errInputRequestFields
	}
	return marshalJSONNoEscape(struct {
		Method string `json:"method"`
		Params any    `json:"params"`
	}{r.Method(), params})
}

// UnmarshalJSON reads a bare request; a method other than
// elicitation/create, sampling/createMessage and roots/list is an error.
func (r *InputRequest) UnmarshalJSON(data []byte) error {
	var w struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*r = InputRequest{}
	var dst any
	switch w.Method {
	case MethodElicitationCreate:
		r.Elicit = new(ElicitParams)
		dst = r.Elicit
	case MethodSamplingCreateMessage:
		r.CreateMessage = new(CreateMessageParams)
		dst = r.CreateMessage
	case MethodRootsList:
		r.ListRoots = new(ListRootsParams)
		if isNullOrAbsent(w.Params) {
			return nil
		}
		dst = r.ListRoots
	default:
		return fmt.Errorf("mcp: input request method %q is not elicitation/create, sampling/createMessage or roots/list", w.Method)
	}
	if isNullOrAbsent(w.Params) {
		return fmt.Errorf("mcp: input request %s has no params", w.Method)
	}
	if err := json.Unmarshal(w.Params, dst); err != nil {
		return fmt.Errorf("mcp: input request %s: %w", w.Method, err)
	}
	return nil
}

// InputResponse is the client's answer to one InputRequest: the result of
// the request, with exactly one field set. On the wire it is the bare result
// object, recognised by its members: "action" (ElicitResult), "roots"
// (ListRootsResult) or "model" (CreateMessageResult).
type InputResponse struct {
	Elicit        *ElicitResult
	CreateMessage *CreateMessageResult
	ListRoots     *ListRootsResult
}

var errInputResponseFields = errors.New("mcp: an InputResponse must have exactly one of Elicit, CreateMessage and ListRoots set")

// MarshalJSON writes the result that is set.
func (r InputResponse) MarshalJSON() ([]byte, error) {
	n := 0
	var v any
	if r.Elicit != nil {
		n++
		v = r.Elicit
	}
	if r.CreateMessage != nil {
		n++
		v = r.CreateMessage
	}
	if r.ListRoots != nil {
		n++
		v = r.ListRoots
	}
	if n != 1 {
		return nil, errInputResponseFields
	}
	return marshalJSONNoEscape(v)
}

// UnmarshalJSON recognises the result by its members. An object that
// matches none of the three results, or more than one, is an error.
func (r *InputResponse) UnmarshalJSON(data []byte) error {
	var head struct {
		Action json.RawMessage `json:"action"`
		Roots  json.RawMessage `json:"roots"`
		Model  json.RawMessage `json:"model"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return err
	}
	*r = InputResponse{}
	var dst any
	n := 0
	if head.Action != nil {
		n++
		r.Elicit = new(ElicitResult)
		dst = r.Elicit
	}
	if head.Roots != nil {
		n++
		r.ListRoots = new(ListRootsResult)
		dst = r.ListRoots
	}
	if head.Model != nil {
		n++
		r.CreateMessage = new(CreateMessageResult)
		dst = r.CreateMessage
	}
	if n != 1 {
		*r = InputResponse{}
		return errors.New(`mcp: an input response must be an elicitation result ("action"), a roots result ("roots") or a sampling result ("model")`)
	}
	return json.Unmarshal(data, dst)
}
