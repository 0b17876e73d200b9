package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gomcp/sdk/internal/bridge"
	"github.com/gomcp/sdk/jsonrpc"
)

// The client side of the 2026-07-28 stateless lifecycle.
//
// Connect probes the server with server/discover (the era probe the spec
// recommends). A DiscoverResult, or a 2026-07-28 error naming versions both sides
// support, makes the session stateless: no initialize, and every request
// carries the client's version, capabilities and identity in _meta. Any
// other answer, or none within ClientOptions.ProbeTimeout, means a stateful
// server: the client falls back to initialize. Nothing tells the client
// beforehand which kind of server it talks to.

// maxInputRounds bounds the input-required retries of one request, so that
// a server that keeps asking cannot loop a client forever.
const maxInputRounds = 16

// probe sends server/discover. It reports whether the server is stateless;
// err is set only when connecting must fail (ctx ended, or the server is
// stateless but shares no version with us).
func (cs *ClientSession) probe(ctx context.Context) (bool, error) {
	version := cs.client.opts.ProtocolVersion
	for attempt := 0; attempt < 2; attempt++ {
		pctx, cancel := context.WithTimeout(ctx, cs.client.probeTimeout())
		var res DiscoverResult
		params := &DiscoverParams{Meta: cs.requestMeta(version, nil, nil)}
		hctx := &headersCtx{Context: pctx, cs: cs, version: version, method: MethodServerDiscover, params: params}
		err := cs.conn.Call(hctx, MethodServerDiscover, params, &res)
		cancel()
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		if err == nil {
			v := pickModern(res.SupportedVersions, version)
			if v == "" {
				return false, nil // a server that serves only stateful revisions
			}
			cs.version = v
			cs.init = &InitializeResult{ProtocolVersion: v, Capabilities: res.Capabilities, Instructions: res.Instructions}
			if res.Meta != nil {
				cs.init.ServerInfo = res.Meta.ServerInfo
			}
			if cs.init.ServerInfo == nil {
				cs.init.ServerInfo = &Implementation{}
			}
			return true, nil
		}
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != CodeUnsupportedProtocolVersion {
			return false, nil // any other error or a timeout: a stateful server
		}
		var data struct {
			Supported []string `json:"supported"`
		}
		_ = json.Unmarshal(je.Data, &data)
		v := pickModern(data.Supported, "")
		if v == "" {
			if slices.ContainsFunc(data.Supported, func(s string) bool { return IsSupportedVersion(s) && !features(s).stateless }) {
				return false, nil
			}
			return false, fmt.Errorf("mcp: the server supports none of our protocol versions (it offers %v)", data.Supported)
		}
		version = v
	}
	return false, nil
}

// pickModern returns want if offered and stateless, else the newest
// stateless revision both sides support, else "".
func pickModern(offered []string, want string) string {
	if want != "" && slices.Contains(offered, want) && features(want).stateless {
		return want
	}
	for _, v := range supportedVersions {
		if features(v).stateless && slices.Contains(offered, v) {
			return v
		}
	}
	return ""
}

func (c *Client) probeTimeout() time.Duration {
	if c.opts.ProbeTimeout > 0 {
		return c.opts.ProbeTimeout
	}
	return 3 * time.Second
}

// requestMeta is the _meta of a stateless request: the per-request client
// context, merged into whatever the caller set (a progress token, ...).
func (cs *ClientSession) requestMeta(version string, m *Meta, caps *ClientCapabilities) *Meta {
	out := &Meta{}
	if m != nil {
		*out = *m
	}
	out.ProtocolVersion = version
	out.ClientCapabilities, out.clientJSON = cs.client.clientMeta()
	if caps != nil { // hooks.WithClientCapabilities
		out.ClientCapabilities, out.clientJSON = cs.client.callerMeta(caps)
	}
	if m != nil && m.ClientCapabilities != nil && len(m.ClientCapabilities.Extensions) > 0 {
		// Extensions declared for this request alone (tasks.CallTool
		// declares the tasks extension this way) join the client's.
		out.ClientCapabilities = withExtensions(out.ClientCapabilities, nil, m.ClientCapabilities.Extensions)
		out.clientJSON = nil
	}
	out.ClientInfo = cs.client.impl
	if lvl := cs.logLevel.Load(); lvl != 0 {
		out.LogLevel = LoggingLevel(lvl)
	}
	return out
}

// withModernMeta returns a copy of params whose _meta carries the
// per-request client context; params that are not a protocol params type
// are sent as they are.
func (cs *ClientSession) withModernMeta(ctx context.Context, params any) any {
	p, ok := params.(metaParams)
	if !ok || p == nil {
		return params
	}
	caps, _ := ctx.Value(capsKey{}).(*ClientCapabilities)
	return p.withMeta(cs.requestMeta(cs.version, p.getMeta(), caps))
}

// capsKey carries in a context the capabilities that the requests sent
// with it declare instead of the client's (hooks.WithClientCapabilities).
type capsKey struct{}

func init() {
	bridge.WithClientCapabilities = func(ctx context.Context, caps any) context.Context {
		return context.WithValue(ctx, capsKey{}, caps.(*ClientCapabilities))
	}
	bridge.CapsKey, bridge.ProgressKey = capsKey{}, progressKey{}
}

// callStateless sends a stateless request and, for tools/call, prompts/get and
// resources/read, runs the input-required loop: it answers every input
// request with the client's handlers and retries the same params under a new
// id with the answers and the server's requestState, until the result is
// complete.
func (cs *ClientSession) callStateless(ctx context.Context, method string, params, result any) error {
	key, uri, useCache := "", "", false
	if cacheable(method) {
		key, uri, useCache = cacheKey(method, params)
	}
	if useCache {
		if raw, ok := cs.cache.get(key); ok {
			if result == nil {
				return nil
			}
			return json.Unmarshal(raw, result)
		}
	}
	p := cs.withModernMeta(ctx, params)
	ctx = &headersCtx{Context: ctx, cs: cs, version: cs.version, method: method, params: params}
	for round := 0; ; round++ {
		var raw json.RawMessage
		if err := sendCall(ctx, cs.conn, cs, &cs.client.mw, method, p, &raw); err != nil {
			return err
		}
		if useCache && round == 0 {
			cs.cache.put(key, method, uri, raw)
		}
		if !inputRequired(raw) {
			if result == nil {
				return nil
			}
			return decodeResult(method, raw, result)
		}
		if round >= maxInputRounds {
			return fmt.Errorf("mcp: %s still needs input after %d rounds", method, round)
		}
		var ir InputRequiredResult
		if err := json.Unmarshal(raw, &ir); err != nil {
			return fmt.Errorf("mcp: decoding input-required result: %w", err)
		}
		answers := make(map[string]*InputResponse, len(ir.InputRequests))
		for key, q := range ir.InputRequests {
			a, err := cs.Answer(ctx, q)
			if err != nil {
				return fmt.Errorf("mcp: answering input request %q: %w", key, err)
			}
			answers[key] = a
		}
		var err error
		if p, err = withRetry(p, answers, ir.RequestState); err != nil {
			return err
		}
	}
}

// withRetry returns a copy of params with the answers and the server's
// requestState set, for the next round.
func withRetry(params any, answers map[string]*InputResponse, state string) (any, error) {
	p, ok := params.(retryableParams)
	if !ok {
		return nil, fmt.Errorf("mcp: the server asked for input on a request that cannot carry answers (%T)", params)
	}
	return p.withInput(answers, state), nil
}

// Answer fulfils one input request with the client's handlers, as it
// would a server request on a stateful session: how a question that does
// not come with a request is answered, such as one a 2026-07-28 task asks
// in its state (package tasks answers them this way).
func (cs *ClientSession) Answer(ctx context.Context, q *InputRequest) (*InputResponse, error) {
	c := cs.client
	switch {
	case q.Elicit != nil:
		res, err := c.elicit(ctx, cs, jsonrpc.ID{}, q.Elicit)
		if err != nil {
			return nil, err
		}
		return &InputResponse{Elicit: res}, nil
	case q.CreateMessage != nil:
		if c.opts.CreateMessageHandler == nil {
			return nil, errors.New("no sampling handler")
		}
		res, err := c.opts.CreateMessageHandler(ctx, newClientRequest(cs, jsonrpc.ID{}, q.CreateMessage, q.CreateMessage.Meta))
		if err != nil {
			return nil, err
		}
		return &InputResponse{CreateMessage: res}, nil
	case q.ListRoots != nil:
		res, _, err := c.listRoots(ctx, cs)
		if err != nil {
			return nil, err
		}
		return &InputResponse{ListRoots: res}, nil
	}
	return nil, errInputRequestFields
}

// Listen opens a subscriptions/listen stream on a 2026-07-28 server and
// delivers the notifications it carries (list changes, resource updates) to
// the client's handlers until ctx ends, which closes the stream; it then
// returns nil. It returns an error if the session ends first. Stateful
// servers send those notifications without being asked: Listen returns an
// error for them at once.
//
// Connect already listens for the list changes whose handlers are set (see
// ClientOptions.ToolListChangedHandler), so Listen is for what only the
// application knows it wants: the updates of particular resources
// (SubscriptionFilter.ResourceSubscriptions, delivered to
// ClientOptions.ResourceUpdatedHandler) and task status.
func (cs *ClientSession) Listen(ctx context.Context, filter *SubscriptionFilter) error {
	if !cs.stateless {
		return errors.New("mcp: subscriptions/listen needs a 2026-07-28 server")
	}
	p := &ListenParams{Notifications: *filter}
	if len(filter.TaskIDs) > 0 {
		// Task notifications need the tasks extension, declared on this
		// request (package tasks's ExtensionID; mcp cannot import it).
		p.Meta = &Meta{ClientCapabilities: &ClientCapabilities{Extensions: map[string]json.RawMessage{
			"io.modelcontextprotocol/tasks": json.RawMessage("{}")}}}
	}
	err := cs.call(ctx, MethodSubscriptionsListen, p, nil)
	if err != nil && ctx.Err() != nil {
		return nil
	}
	return err
}

// inputRequired reports whether a result says "resultType":
// "input_required". It reads only the top-level member names.
func inputRequired(raw json.RawMessage) bool {
	if bytes.IndexByte(raw, '\\') < 0 && !bytes.Contains(raw, []byte(`"input_required"`)) {
		// Neither reading below can find it without these bytes or an
		// escape: most results are answered without a scan.
		return false
	}
	found := false
	err := eachMember(raw, func(k, v []byte) error {
		if string(k) == `"resultType"` {
			found = string(v) == `"input_required"`
		}
		return nil
	})
	if err != nil {
		// Not an object we can scan: let encoding/json decide.
		var head struct {
			ResultType ResultType `json:"resultType"`
		}
		return json.Unmarshal(raw, &head) == nil && head.ResultType == ResultTypeInputRequired
	}
	return found
}
