package mcp

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
)

// Asking the client for input while handling a request.
//
// A handler calls req.Input (or the Elicit, CreateMessage and ListRoots
// shorthands) and gets the client's answers, whatever revision the client
// speaks:
//
//   - on a stateful session (2024-11-05 to 2025-11-25) the server sends real
//     requests to the client and waits for them;
//   - on a 2026-07-28 request the server never sends requests: the first
//     time the handler asks, Input returns an error wrapping
//     ErrInputRequired, the handler returns it, and the client receives an
//     InputRequiredResult with the questions and a signed requestState. The
//     client retries with the answers and the handler runs again from the
//     top; this time Input returns them. Answers from earlier rounds travel
//     in requestState, so a handler may ask in several rounds.
//
// Handlers must therefore be safe to run again: do side effects after the
// last Input call.

// ErrInputRequired is wrapped by the error Input returns when a 2026-07-28
// request must go back to the client for answers. Return it from the handler
// as it is.
var ErrInputRequired = errors.New("mcp: input required from the client")

// Input asks the client the questions in reqs, keyed by names unique within
// the request, and returns the answers under the same keys. A question the
// client did not declare the capability for (or that the session's
// revision lacks) fails with an error wrapping ErrCapability at every
// revision; on a 2026-07-28 request that error also unwraps to
// MissingCapabilityError (-32021), which the client receives when the
// handler returns it. On a 2026-07-28 request, questions not answered yet
// fail with ErrInputRequired (see above).
func (r *ServerRequest[P]) Input(ctx context.Context, reqs map[string]*InputRequest) (map[string]*InputResponse, error) {
	if f := inputFuncFrom(ctx); f != nil {
		return f(ctx, reqs)
	}
	return r.lc().input(ctx, reqs)
}

// inputStateful sends each question as a request, in key order.
func (ss *ServerSession) inputStateful(ctx context.Context, reqs map[string]*InputRequest) (map[string]*InputResponse, error) {
	out := make(map[string]*InputResponse, len(reqs))
	for _, k := range sortedKeys(reqs) {
		q := reqs[k]
		var a InputResponse
		var err error
		switch {
		case q.Elicit != nil:
			a.Elicit, err = ss.elicit(ctx, q.Elicit)
		case q.CreateMessage != nil:
			a.CreateMessage, err = ss.createMessage(ctx, q.CreateMessage)
		case q.ListRoots != nil:
			a.ListRoots, err = ss.ListRoots(ctx, q.ListRoots)
		default:
			err = errInputRequestFields
		}
		if err != nil {
			return nil, err
		}
		out[k] = &a
	}
	return out, nil
}

// missingCapability returns the capability q needs that caps lacks, if any.
func missingCapability(q *InputRequest, caps *ClientCapabilities) *ClientCapabilities {
	switch {
	case q.Elicit != nil:
		if caps.Elicitation == nil {
			return &ClientCapabilities{Elicitation: &ElicitationCapabilities{}}
		}
		if q.Elicit.Mode == ElicitModeURL && caps.Elicitation.URL == nil {
			return &ClientCapabilities{Elicitation: &ElicitationCapabilities{URL: &struct{}{}}}
		}
	case q.CreateMessage != nil:
		if caps.Sampling == nil {
			return &ClientCapabilities{Sampling: &SamplingCapabilities{}}
		}
		if len(q.CreateMessage.Tools) > 0 && caps.Sampling.Tools == nil {
			return &ClientCapabilities{Sampling: &SamplingCapabilities{Tools: &struct{}{}}}
		}
	case q.ListRoots != nil:
		if caps.Roots == nil {
			return &ClientCapabilities{Roots: &RootCapabilities{}}
		}
	}
	return nil
}

func (rc *requestContext) ask(reqs map[string]*InputRequest) (map[string]*InputResponse, error) {
	if rc.bindingFn == nil { // only methods that prepared for retries (beginInput) can ask
		return nil, fmt.Errorf("mcp: %s cannot ask the client for input", rc.method)
	}
	out := make(map[string]*InputResponse, len(reqs))
	var missing map[string]*InputRequest
	for k, q := range reqs {
		if q.Method() == "" {
			return nil, errInputRequestFields
		}
		if need := missingCapability(q, rc.caps); need != nil {
			return nil, &capabilityError{method: q.Method(), rpc: MissingCapabilityError(need)}
		}
		if a := rc.responses[k]; a != nil && a.answers(q) {
			out[k] = a
			continue
		}
		if missing == nil {
			missing = make(map[string]*InputRequest)
		}
		missing[k] = q
	}
	if missing != nil {
		rc.mu.Lock()
		if rc.asked == nil {
			rc.asked = make(map[string]*InputRequest)
		}
		maps.Copy(rc.asked, missing)
		rc.mu.Unlock()
		return nil, fmt.Errorf("%w: %d question(s)", ErrInputRequired, len(missing))
	}
	return out, nil
}

// capabilityError is a 2026-07-28 question the client cannot answer: the
// handler tests it with errors.Is(err, ErrCapability) as at every other
// revision, and the client receives the -32021 error it unwraps to.
type capabilityError struct {
	method string // what was asked: elicitation/create, say
	rpc    *jsonrpc.Error
}

func (e *capabilityError) Error() string   { return ErrCapability.Error() + ": " + e.method }
func (e *capabilityError) Unwrap() []error { return []error{ErrCapability, e.rpc} }

// answers reports whether a is an answer of the kind q asks for.
func (a *InputResponse) answers(q *InputRequest) bool {
	switch {
	case q.Elicit != nil:
		return a.Elicit != nil
	case q.CreateMessage != nil:
		return a.CreateMessage != nil
	case q.ListRoots != nil:
		return a.ListRoots != nil
	}
	return false
}

// Elicit asks the user for input while handling this request (key
// "elicitation" for a 2026-07-28 client).
func (r *ServerRequest[P]) Elicit(ctx context.Context, p *ElicitParams) (*ElicitResult, error) {
	a, err := r.Input(ctx, map[string]*InputRequest{"elicitation": {Elicit: p}})
	if err != nil {
		return nil, err
	}
	return answer(a, "elicitation", func(a *InputResponse) *ElicitResult { return a.Elicit })
}

// CreateMessage asks the client's model for a completion while handling
// this request (key "sampling" for a 2026-07-28 client).
func (r *ServerRequest[P]) CreateMessage(ctx context.Context, p *CreateMessageParams) (*CreateMessageResult, error) {
	a, err := r.Input(ctx, map[string]*InputRequest{"sampling": {CreateMessage: p}})
	if err != nil {
		return nil, err
	}
	return answer(a, "sampling", func(a *InputResponse) *CreateMessageResult { return a.CreateMessage })
}

// ListRoots asks the client for its roots while handling this request (key
// "roots" for a 2026-07-28 client).
func (r *ServerRequest[P]) ListRoots(ctx context.Context) (*ListRootsResult, error) {
	a, err := r.Input(ctx, map[string]*InputRequest{"roots": {ListRoots: &ListRootsParams{}}})
	if err != nil {
		return nil, err
	}
	return answer(a, "roots", func(a *InputResponse) *ListRootsResult { return a.ListRoots })
}

// answer returns the answer under key, or an error when there is none (an
// InputFunc that left it out): never a nil to dereference.
func answer[T any](a map[string]*InputResponse, key string, get func(*InputResponse) *T) (*T, error) {
	if r := a[key]; r != nil {
		if v := get(r); v != nil {
			return v, nil
		}
	}
	return nil, fmt.Errorf("mcp: no answer for %q", key)
}

// The request state of a multi-round request: the answers so far, bound to
// the method and the request's identifying params, with an expiry, under an
// HMAC-SHA256 of the server's key. A client cannot forge, alter or replay it
// for another request.

type requestState struct {
	Binding string                    `json:"b"`
	Expires int64                     `json:"e"`
	Answers map[string]*InputResponse `json:"a,omitempty"`
}

var errBadState = jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: requestState is invalid, tampered with, expired or for another request")

func sortedKeys[T any](m map[string]T) []string { return slices.Sorted(maps.Keys(m)) }

func (s *Server) stateMAC(payload []byte) []byte {
	m := hmac.New(sha256.New, s.random().stateKey)
	m.Write(payload)
	return m.Sum(nil)
}

func (s *Server) sealState(st *requestState) (string, error) {
	payload, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	return enc.EncodeToString(payload) + "." + enc.EncodeToString(s.stateMAC(payload)), nil
}

func (s *Server) openState(token, binding string) (*requestState, error) {
	dot := bytes.IndexByte([]byte(token), '.')
	if dot < 0 {
		return nil, errBadState
	}
	enc := base64.RawURLEncoding
	payload, err1 := enc.DecodeString(token[:dot])
	mac, err2 := enc.DecodeString(token[dot+1:])
	if err1 != nil || err2 != nil || !hmac.Equal(mac, s.stateMAC(payload)) {
		return nil, errBadState
	}
	var st requestState
	if json.Unmarshal(payload, &st) != nil || st.Binding != binding || time.Now().Unix() > st.Expires {
		return nil, errBadState
	}
	return &st, nil
}

// beginInput prepares a multi-round request: it checks requestState and
// merges the answers it carries with those of this round.
func (s *Server) beginInput(rc *requestContext, binding func() string, state string, responses map[string]*InputResponse) error {
	if rc == nil {
		return nil
	}
	rc.bindingFn = binding
	if state == "" && len(responses) == 0 {
		return nil // the common case: a first round with nothing to merge
	}
	merged := make(map[string]*InputResponse)
	if state != "" {
		st, err := s.openState(state, rc.bindingOf())
		if err != nil {
			return err
		}
		maps.Copy(merged, st.Answers)
	}
	for k, a := range responses {
		if a != nil {
			merged[k] = a
		}
	}
	rc.responses = merged
	return nil
}

// bindingOf computes the request's binding once, when first needed.
func (rc *requestContext) bindingOf() string {
	if rc.binding == "" && rc.bindingFn != nil {
		rc.binding = rc.bindingFn()
	}
	return rc.binding
}

// finishInput turns a handler's ErrInputRequired into the InputRequiredResult
// to send. It reports false when err is not about input.
func (s *Server) finishInput(rc *requestContext, err error) (*InputRequiredResult, error, bool) {
	if rc == nil || !errors.Is(err, ErrInputRequired) {
		return nil, err, false
	}
	rc.mu.Lock()
	asked := rc.asked
	rc.mu.Unlock()
	if len(asked) == 0 {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "internal error: input required but nothing asked"), true
	}
	token, serr := s.sealState(&requestState{
		Binding: rc.bindingOf(),
		Expires: time.Now().Add(s.stateTTL()).Unix(),
		Answers: rc.responses,
	})
	if serr != nil {
		return nil, serr, true
	}
	return &InputRequiredResult{ResultType: ResultTypeInputRequired, InputRequests: asked, RequestState: token}, nil, true
}

func (s *Server) stateTTL() time.Duration {
	if s.opts.RequestStateTTL > 0 {
		return s.opts.RequestStateTTL
	}
	return 10 * time.Minute
}

// bindingOf names what a request state belongs to: the method and the
// params that identify the request, compacted so that re-encoding by the
// client does not matter.
func bindingOf(method, name string, args json.RawMessage) string {
	var b bytes.Buffer
	b.WriteString(method)
	b.WriteByte(0)
	b.WriteString(name)
	b.WriteByte(0)
	if len(args) > 0 && json.Compact(&b, args) != nil {
		b.Write(args)
	}
	sum := sha256.Sum256(b.Bytes())
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
