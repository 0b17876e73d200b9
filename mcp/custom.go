package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/gomcp/sdk/jsonrpc"
)

// A MethodHandlerFor answers a custom request (see AddMethod): req.Params
// holds the params, decoded; the R returned is the result. An error that is
// a *jsonrpc.Error is sent as it is; one wrapping ErrInputRequired (from
// req.Input or Elicit on a 2026-07-28 request) asks the client for input;
// any other is an internal error.
type MethodHandlerFor[P, R any] func(ctx context.Context, req *ServerRequest[P]) (R, error)

// A NotificationHandlerFor handles a custom notification (see
// AddNotificationHandler). There is nothing to answer: a failure is the
// handler's to log.
type NotificationHandlerFor[P any] func(ctx context.Context, req *ServerRequest[P])

// specMethods are the names of every method and notification a revision of
// the specification (or the tasks extension) defines, in either direction.
// An application's typed method may not take one: a client would read it as
// the protocol's. The tasks' names are package tasks's constants (which
// mcp cannot import), spelled here once.
var specMethods = []string{
	MethodInitialize, MethodPing, MethodToolsList, MethodToolsCall, MethodResourcesList,
	MethodResourcesTemplatesList, MethodResourcesRead, MethodResourcesSubscribe, MethodResourcesUnsubscribe,
	MethodPromptsList, MethodPromptsGet, MethodCompletionComplete, MethodLoggingSetLevel,
	MethodSamplingCreateMessage, MethodElicitationCreate, MethodRootsList, MethodServerDiscover, MethodSubscriptionsListen,
	NotificationInitialized, NotificationCancelled, NotificationProgress, NotificationMessage,
	NotificationResourceUpdated, NotificationResourceListChanged, NotificationToolListChanged,
	NotificationPromptListChanged, NotificationRootsListChanged, NotificationElicitationComplete,
	NotificationSubscriptionsAcknowledged,
	"tasks/get", "tasks/result", "tasks/list", "tasks/cancel", "tasks/update",
	"notifications/tasks/status", "notifications/tasks",
}

// AddMethod adds or replaces an application's own request, with the same
// request handle as a tool's: the handler reads the client's info,
// capabilities and revision, logs, reports progress and asks for input
// through req, the same way at every revision (a stateful session, or a
// 2026-07-28 request, over any transport). The params are decoded once,
// before the handler runs, into P: they must be a JSON object (or absent)
// whose members P knows; anything else is answered with -32602 (invalid
// params). _meta is req.Meta(); the members a 2026-07-28 retry adds
// (inputResponses, requestState) are the request handle's. A client calls
// the method with Call.
//
// AddMethod fails, registering nothing, with an error wrapping
// ErrInvalidMethod for an empty name, a nil handler, or the name of any
// method the specification defines. Server.AddMethod is the lower-level
// way, for extensions: raw params, lifecycles and revisions of its own.
func AddMethod[P, R any](s *Server, name string, h MethodHandlerFor[P, R]) error {
	return s.addCustom(MethodFor(name, h))
}

// AddNotificationHandler adds or replaces the handler of an application's
// own notification, decoded into P as AddMethod decodes params (a
// notification that does not decode is dropped: there is no one to tell).
// The handler gets the request handle, for the client's info and revision.
// A request (with an id) of that name is answered with -32600. It fails as
// AddMethod does.
func AddNotificationHandler[P any](s *Server, name string, h NotificationHandlerFor[P]) error {
	return s.addCustom(NotificationFor(name, h))
}

// MethodFor returns a typed request as a Method, for an Extension's Methods
// or Server.AddMethod: its handler gets the request handle and decoded
// params, as AddMethod's does, while the Method's Lifecycle, Revisions and
// BeforeInitialize may still be set. A nil h fails when the Method is
// added.
func MethodFor[P, R any](name string, h MethodHandlerFor[P, R]) Method {
	m := Method{Name: name}
	if h != nil {
		m.serve = func(s *Server, ctx context.Context, r *Request) (any, error) {
			if r.IsNotification() {
				return nil, nil // a request sent as a notification has no one to answer
			}
			return serveCustom(s, ctx, r, h)
		}
	}
	return m
}

// NotificationFor returns a typed notification as a Method, as MethodFor
// does for a request; the handler runs as AddNotificationHandler's.
func NotificationFor[P any](name string, h NotificationHandlerFor[P]) Method {
	m := Method{Name: name}
	if h != nil {
		m.serve = func(_ *Server, ctx context.Context, r *Request) (any, error) {
			if !r.IsNotification() {
				return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "invalid request: %s is a notification", r.Method)
			}
			p, _, err := decodeCustomParams[P](r.Params)
			meta, merr := r.Meta()
			if err != nil || merr != nil {
				return nil, nil
			}
			h(ctx, newServerRequest(r, p, meta))
			return nil, nil
		}
	}
	return m
}

// SpecMethod reports whether name is a method or notification that some
// revision of the specification (or the tasks extension) defines. A
// transport uses it to drop, rather than refuse, a peer's notification of
// an older revision that means nothing at the one it speaks (a 2026-07-28
// client's notifications/roots/list_changed, say).
func SpecMethod(name string) bool { return slices.Contains(specMethods, name) }

// addCustom registers an application's typed method in every lifecycle,
// after refusing the specification's names.
func (s *Server) addCustom(m Method) error {
	if SpecMethod(m.Name) {
		return fmt.Errorf("%w: %q is a method of the specification", ErrInvalidMethod, m.Name)
	}
	return s.addMethods([]Method{m})
}

// serveCustom decodes a custom request, runs its handler and shapes what it
// returned as the result.
func serveCustom[P, R any](s *Server, ctx context.Context, r *Request, h MethodHandlerFor[P, R]) (any, error) {
	p, in, err := decodeCustomParams[P](r.Params)
	if err != nil {
		return nil, err
	}
	meta, err := r.Meta()
	if err != nil {
		return nil, err
	}
	if err := s.beginInput(r.rc, func() string { return bindingOf(r.Method, "", in.rest) }, in.state, in.responses); err != nil {
		return nil, err
	}
	res, err := h(ctx, newServerRequest(r, p, meta))
	if ir, err, ok := s.finishInput(r.rc, err); ok {
		return ir, err
	}
	if err != nil {
		return nil, err
	}
	if isNil(res) {
		return &emptyParams{}, nil // a result is an object, never null
	}
	return res, nil
}

// isNil reports whether v is nil or a nil pointer, map, slice or interface.
func isNil(v any) bool {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Invalid:
		return true
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// customInput is what a custom request's params carry for the request
// handle rather than for P: the members of a 2026-07-28 retry, and the
// params without them (what requestState is bound to).
type customInput struct {
	rest      json.RawMessage
	state     string
	responses map[string]*InputResponse
}

// decodeCustomParams decodes params into P strictly: an object (or
// nothing), whose members other than _meta, inputResponses and requestState
// P must know.
func decodeCustomParams[P any](raw json.RawMessage) (p P, in customInput, err error) {
	invalid := func(err error) error {
		return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: %v", err)
	}
	rest := make([]byte, 0, len(raw))
	rest = append(rest, '{')
	if len(raw) > 0 && string(raw) != "null" {
		err = eachMember(raw, func(k, v []byte) error {
			switch string(k) {
			case `"_meta"`:
				return nil // read by Request.Meta
			case `"requestState"`:
				return json.Unmarshal(v, &in.state)
			case `"inputResponses"`:
				return json.Unmarshal(v, &in.responses)
			}
			if len(rest) > 1 {
				rest = append(rest, ',')
			}
			rest = append(append(append(rest, k...), ':'), v...)
			return nil
		})
		if err != nil {
			return p, in, invalid(fmt.Errorf("params must be a JSON object: %v", err))
		}
	}
	in.rest = append(rest, '}')
	dec := json.NewDecoder(bytes.NewReader(in.rest))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return p, in, invalid(err)
	}
	return p, in, nil
}

// customParams are the params of a custom request as the client sends
// them: the caller's members, and the _meta and retry members the client
// adds (metaParams, retryableParams).
type customParams struct {
	raw   json.RawMessage // the caller's params without _meta: an object
	meta  *Meta
	input map[string]*InputResponse
	state string
}

// newCustomParams encodes params, which must be a JSON object or nil, and
// takes its _meta apart.
func newCustomParams(params any) (*customParams, error) {
	raw, err := jsonrpc.Marshal(params)
	if err != nil {
		return nil, err
	}
	p := &customParams{}
	if m := metaMember(raw); m != nil {
		p.meta = new(Meta)
		if err := p.meta.UnmarshalJSON(m); err != nil {
			return nil, err
		}
	}
	if p.raw, err = spliceMeta(raw, nil); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *customParams) getMeta() *Meta { return p.meta }

func (p *customParams) withMeta(m *Meta) metaParams {
	cp := *p
	cp.meta = m
	return &cp
}

func (p *customParams) withInput(a map[string]*InputResponse, state string) metaParams {
	cp := *p
	cp.input, cp.state = a, state
	return &cp
}

// MarshalJSON writes the caller's members, then _meta and the retry's.
func (p *customParams) MarshalJSON() ([]byte, error) {
	out, err := spliceMeta(p.raw, p.meta)
	if err != nil {
		return nil, err
	}
	add := func(key string, v any) error {
		raw, err := json.Marshal(v)
		if err != nil {
			return err
		}
		body := bytes.TrimSpace(out[:len(out)-1]) // out ends with '}'
		if len(body) > 1 {
			body = append(body, ',')
		}
		out = append(append(append(append(body, '"'), key...), `":`...), raw...)
		out = append(out, '}')
		return nil
	}
	if p.input != nil {
		if err := add("inputResponses", p.input); err != nil {
			return nil, err
		}
	}
	if p.state != "" {
		if err := add("requestState", p.state); err != nil {
			return nil, err
		}
	}
	return out, nil
}
