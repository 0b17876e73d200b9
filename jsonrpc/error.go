package jsonrpc

import (
	"encoding/json"
	"fmt"
)

// Error codes defined by JSON-RPC 2.0. Codes from -32000 to -32099 are
// reserved for implementation-defined server errors.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603

	// CodeServerErrorMin and CodeServerErrorMax bound the implementation-defined
	// server error range.
	CodeServerErrorMin = -32099
	CodeServerErrorMax = -32000
)

// Error is a JSON-RPC error object. It implements error, so handlers return
// it to control the code the peer sees; any other error becomes
// CodeInternalError.
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`

	// local is set on the error of a response the transport made up
	// (FailedResponse): the error Call returns instead.
	local error
}

// NewError returns an Error with the given code and message.
func NewError(code int64, message string) *Error {
	return &Error{Code: code, Message: message}
}

// Errorf returns an Error whose message is formatted as fmt.Sprintf does.
func Errorf(code int64, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithData returns a copy of e whose data member is v encoded as JSON.
// A value that cannot be encoded leaves the data member out.
func (e *Error) WithData(v any) *Error {
	c := *e
	if raw, ok := v.(json.RawMessage); ok {
		c.Data = raw
	} else if b, err := json.Marshal(v); err == nil {
		c.Data = b
	}
	return &c
}

// Error implements error.
func (e *Error) Error() string {
	return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message)
}

// Is reports whether target is an *Error with the same code, so that
// errors.Is(err, jsonrpc.NewError(CodeMethodNotFound, "")) matches by code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}
