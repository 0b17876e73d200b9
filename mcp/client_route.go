package mcp

import (
	"context"

	"github.com/gomcp/sdk/jsonrpc"
)

// route dispatches one message from the server.
func (c *Client) route(ctx context.Context, r *Request) (any, error) {
	res, err := c.routeMethod(ctx, r)
	if r.IsNotification() {
		if fns := c.notifyHooks.Load(); fns != nil {
			for _, fn := range *fns {
				fn(ctx, r.Session.(*ClientSession), r)
			}
		}
		return res, err
	}
	if cs := r.Session.(*ClientSession); err == nil && res != nil && cs.version != "" {
		// Fields the session's revision lacks are not sent to its server.
		res = downgradeResult(features(cs.version), r.Method, res)
	}
	return res, err
}

// routeMethod answers a request from the server, or handles its
// notification: the specification's methods first, then the application's
// (AddMethod).
func (c *Client) routeMethod(ctx context.Context, r *Request) (any, error) {
	cs := r.Session.(*ClientSession)
	switch r.Method {
	case MethodPing:
		return &emptyParams{}, nil
	case MethodSamplingCreateMessage:
		if c.opts.CreateMessageHandler == nil {
			return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: client does not support sampling")
		}
		var p CreateMessageParams
		if err := decodeParams(r.Params, &p); err != nil {
			return nil, err
		}
		return c.opts.CreateMessageHandler(ctx, newClientRequest(cs, r.ID, &p, p.Meta))
	case MethodElicitationCreate:
		return c.handleElicit(ctx, cs, r)
	case MethodRootsList:
		res, ok, err := c.listRoots(ctx, cs)
		if !ok {
			return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: client does not support roots")
		}
		return res, err
	}
	if c.routeNotification(ctx, cs, r) {
		return nil, nil
	}
	if h := c.method(r.Method); h != nil {
		return h(ctx, r)
	}
	if !r.IsNotification() {
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: %s", r.Method)
	}
	return nil, nil
}

// routeNotification handles a notification of the specification from the
// server, and reports whether r was one.
func (c *Client) routeNotification(ctx context.Context, cs *ClientSession, r *Request) bool {
	switch r.Method {
	case NotificationCancelled:
		var p CancelledNotificationParams
		if decodeParams(r.Params, &p) == nil && !p.RequestID.IsZero() {
			cs.conn.CancelIncoming(p.RequestID)
		}
	case NotificationProgress:
		var p ProgressNotificationParams
		if decodeParams(r.Params, &p) == nil {
			cs.mu.Lock()
			fn := cs.progress[p.ProgressToken]
			cs.mu.Unlock()
			if fn != nil {
				fn(&p)
			}
		}
	case NotificationMessage:
		if h := c.opts.LoggingMessageHandler; h != nil {
			var p LoggingMessageNotificationParams
			if decodeParams(r.Params, &p) == nil {
				h(ctx, cs, &p)
			}
		}
	case NotificationResourceUpdated:
		var p ResourceUpdatedNotificationParams
		if decodeParams(r.Params, &p) == nil {
			cs.cache.invalidate(r.Method, p.URI)
			if h := c.opts.ResourceUpdatedHandler; h != nil {
				h(ctx, cs, &p)
			}
		}
	case NotificationToolListChanged:
		cs.cache.invalidate(r.Method, "")
		cs.outputs.forget()
		if h := c.opts.ToolListChangedHandler; h != nil {
			h(ctx, cs)
		}
	case NotificationPromptListChanged:
		cs.cache.invalidate(r.Method, "")
		if h := c.opts.PromptListChangedHandler; h != nil {
			h(ctx, cs)
		}
	case NotificationResourceListChanged:
		cs.cache.invalidate(r.Method, "")
		if h := c.opts.ResourceListChangedHandler; h != nil {
			h(ctx, cs)
		}
	case NotificationSubscriptionsAcknowledged:
		cs.listenAcknowledged()
	case NotificationElicitationComplete:
		if h := c.opts.ElicitationCompleteHandler; h != nil {
			var p ElicitationCompleteNotificationParams
			if decodeParams(r.Params, &p) == nil {
				h(ctx, cs, &p)
			}
		}
	default:
		return false
	}
	return true
}

func (c *Client) handleElicit(ctx context.Context, cs *ClientSession, r *Request) (any, error) {
	var p ElicitParams
	if c.opts.ElicitationHandler != nil {
		if err := decodeParams(r.Params, &p); err != nil {
			return nil, err
		}
	}
	return c.elicit(ctx, cs, r.ID, &p)
}

// elicit answers an elicitation request with the client's handler, the same
// way whether it came as a server request (a stateful session) or as an
// input request (2026-07-28): a URL-mode request reaches the handler only
// when the client declared URL mode (ClientOptions.ElicitationURL), and an
// accepted form gets its schema's defaults.
func (c *Client) elicit(ctx context.Context, cs *ClientSession, id jsonrpc.ID, p *ElicitParams) (*ElicitResult, error) {
	if c.opts.ElicitationHandler == nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: client does not support elicitation")
	}
	if p.Mode == ElicitModeURL && !c.opts.ElicitationURL {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: client does not support URL elicitation")
	}
	res, err := c.opts.ElicitationHandler(ctx, newClientRequest(cs, id, p, p.Meta))
	if err != nil {
		return nil, err
	}
	if res.Action == ElicitActionAccept && p.Mode != ElicitModeURL && p.RequestedSchema != nil {
		res.Content = applyElicitDefaults(p.RequestedSchema, res.Content)
	}
	return res, nil
}

// applyElicitDefaults fills the defaults of a form's requested schema into
// content fields the user left out (SEP-1034).
func applyElicitDefaults(schema *ElicitSchema, content map[string]any) map[string]any {
	for _, p := range schema.Properties {
		if p.Schema == nil || p.Schema.Default == nil {
			continue
		}
		if _, ok := content[p.Name]; ok {
			continue
		}
		if content == nil {
			content = make(map[string]any)
		}
		content[p.Name] = p.Schema.Default
	}
	return content
}
