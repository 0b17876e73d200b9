package mcp

// metaParams is implemented by every params type of the protocol (and a
// custom request's params as the client sends them): the client reads the
// caller's _meta and adds the 2026-07-28 client context to a copy, without
// knowing the concrete type. Users read and set the Meta field itself.
type metaParams interface {
	// getMeta returns the params' _meta, or nil.
	getMeta() *Meta
	// withMeta returns a shallow copy of the params with _meta m, so that a
	// caller's params are never modified.
	withMeta(m *Meta) metaParams
}

// Result is implemented by every result type of the protocol: typed,
// read-only access to the result's _meta, for code that handles results of
// any type (a tool-call hook returns one). Set the Meta field itself to
// change it.
//
// A custom (extension) method's result type that implements Result and
// also has a method SetMeta(*Meta), which replaces its _meta, gets the
// server's identity in its _meta at 2026-07-28, as the core's results do.
type Result interface {
	// GetMeta returns the result's _meta, or nil.
	GetMeta() *Meta
}

// metaSetter is a result whose _meta the server may replace: every result
// type of the protocol (setMeta) and a custom one with a SetMeta method
// (see Result).
type metaSetter interface{ setMeta(*Meta) }

// customMetaSetter is a custom result type's way to the same.
type customMetaSetter interface{ SetMeta(*Meta) }

// typedResult is implemented by the results that carry the 2026-07-28
// resultType.
type typedResult interface {
	resultTypeField() *ResultType
}

// cacheableResult is implemented by the results that carry 2026-07-28
// caching hints: by every type that embeds CacheHints, an extension's
// results included.
type cacheableResult interface {
	cacheHintsField() *CacheHints
}

func (c *CacheHints) cacheHintsField() *CacheHints { return c }

// retryableParams is implemented by the params of the requests that may be
// retried with answers to an input-required result (2026-07-28).
type retryableParams interface {
	withInput(answers map[string]*InputResponse, state string) metaParams
}

func (x *EmptyResult) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *EmptyResult) setMeta(m *Meta)              { x.Meta = m }
func (x *EmptyResult) resultTypeField() *ResultType { return &x.ResultType }

func (x *CompleteParams) getMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *CompleteParams) withMeta(m *Meta) metaParams {
	var cp CompleteParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *CompleteResult) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *CompleteResult) setMeta(m *Meta)              { x.Meta = m }
func (x *CompleteResult) resultTypeField() *ResultType { return &x.ResultType }

func (x *ElicitParams) getMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ElicitParams) withMeta(m *Meta) metaParams {
	var cp ElicitParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *ElicitResult) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ElicitResult) setMeta(m *Meta) { x.Meta = m }

func (x *ElicitationCompleteNotificationParams) getMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ElicitationCompleteNotificationParams) withMeta(m *Meta) metaParams {
	var cp ElicitationCompleteNotificationParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *InitializeParams) getMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *InitializeParams) withMeta(m *Meta) metaParams {
	var cp InitializeParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *InitializeResult) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *InitializeResult) setMeta(m *Meta) { x.Meta = m }

func (x *initializedNotificationParams) getMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *initializedNotificationParams) withMeta(m *Meta) metaParams {
	var cp initializedNotificationParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *PingParams) getMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *PingParams) withMeta(m *Meta) metaParams {
	var cp PingParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *CancelledNotificationParams) getMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *CancelledNotificationParams) withMeta(m *Meta) metaParams {
	var cp CancelledNotificationParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *ProgressNotificationParams) getMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ProgressNotificationParams) withMeta(m *Meta) metaParams {
	var cp ProgressNotificationParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *DiscoverParams) getMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *DiscoverParams) withMeta(m *Meta) metaParams {
	var cp DiscoverParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *DiscoverResult) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *DiscoverResult) setMeta(m *Meta)              { x.Meta = m }
func (x *DiscoverResult) resultTypeField() *ResultType { return &x.ResultType }

func (x *SetLevelParams) getMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *SetLevelParams) withMeta(m *Meta) metaParams {
	var cp SetLevelParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *LoggingMessageNotificationParams) getMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *LoggingMessageNotificationParams) withMeta(m *Meta) metaParams {
	var cp LoggingMessageNotificationParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *InputRequiredResult) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *InputRequiredResult) setMeta(m *Meta)              { x.Meta = m }
func (x *InputRequiredResult) resultTypeField() *ResultType { return &x.ResultType }

func (x *ListPromptsParams) getMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ListPromptsParams) withMeta(m *Meta) metaParams {
	var cp ListPromptsParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *ListPromptsResult) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ListPromptsResult) setMeta(m *Meta)              { x.Meta = m }
func (x *ListPromptsResult) resultTypeField() *ResultType { return &x.ResultType }

func (x *GetPromptParams) getMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *GetPromptParams) withMeta(m *Meta) metaParams {
	var cp GetPromptParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}
func (x *GetPromptParams) withInput(a map[string]*InputResponse, state string) metaParams {
	cp := *x
	cp.InputResponses, cp.RequestState = a, state
	return &cp
}

func (x *GetPromptResult) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *GetPromptResult) setMeta(m *Meta)              { x.Meta = m }
func (x *GetPromptResult) resultTypeField() *ResultType { return &x.ResultType }

func (x *promptListChangedNotificationParams) getMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *promptListChangedNotificationParams) withMeta(m *Meta) metaParams {
	var cp promptListChangedNotificationParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *ListResourcesParams) getMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ListResourcesParams) withMeta(m *Meta) metaParams {
	var cp ListResourcesParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *ListResourcesResult) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ListResourcesResult) setMeta(m *Meta)              { x.Meta = m }
func (x *ListResourcesResult) resultTypeField() *ResultType { return &x.ResultType }

func (x *ListResourceTemplatesParams) getMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ListResourceTemplatesParams) withMeta(m *Meta) metaParams {
	var cp ListResourceTemplatesParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *ListResourceTemplatesResult) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ListResourceTemplatesResult) setMeta(m *Meta)              { x.Meta = m }
func (x *ListResourceTemplatesResult) resultTypeField() *ResultType { return &x.ResultType }

func (x *ReadResourceParams) getMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ReadResourceParams) withMeta(m *Meta) metaParams {
	var cp ReadResourceParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}
func (x *ReadResourceParams) withInput(a map[string]*InputResponse, state string) metaParams {
	cp := *x
	cp.InputResponses, cp.RequestState = a, state
	return &cp
}

func (x *ReadResourceResult) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ReadResourceResult) setMeta(m *Meta)              { x.Meta = m }
func (x *ReadResourceResult) resultTypeField() *ResultType { return &x.ResultType }

func (x *SubscribeParams) getMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *SubscribeParams) withMeta(m *Meta) metaParams {
	var cp SubscribeParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *UnsubscribeParams) getMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *UnsubscribeParams) withMeta(m *Meta) metaParams {
	var cp UnsubscribeParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *ResourceUpdatedNotificationParams) getMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ResourceUpdatedNotificationParams) withMeta(m *Meta) metaParams {
	cp := *x
	cp.Meta = m
	return &cp
}

func (x *resourceListChangedNotificationParams) getMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *resourceListChangedNotificationParams) withMeta(m *Meta) metaParams {
	var cp resourceListChangedNotificationParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *ListRootsParams) getMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ListRootsParams) withMeta(m *Meta) metaParams {
	var cp ListRootsParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *ListRootsResult) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ListRootsResult) setMeta(m *Meta) { x.Meta = m }

func (x *rootsListChangedNotificationParams) getMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *rootsListChangedNotificationParams) withMeta(m *Meta) metaParams {
	var cp rootsListChangedNotificationParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *CreateMessageParams) getMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *CreateMessageParams) withMeta(m *Meta) metaParams {
	var cp CreateMessageParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *CreateMessageResult) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *CreateMessageResult) setMeta(m *Meta) { x.Meta = m }

func (x *ListenParams) getMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ListenParams) withMeta(m *Meta) metaParams {
	var cp ListenParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *ListenResult) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ListenResult) setMeta(m *Meta)              { x.Meta = m }
func (x *ListenResult) resultTypeField() *ResultType { return &x.ResultType }

func (x *SubscriptionsAcknowledgedNotificationParams) getMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *SubscriptionsAcknowledgedNotificationParams) withMeta(m *Meta) metaParams {
	var cp SubscriptionsAcknowledgedNotificationParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *ListToolsParams) getMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ListToolsParams) withMeta(m *Meta) metaParams {
	var cp ListToolsParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *ListToolsResult) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ListToolsResult) setMeta(m *Meta)              { x.Meta = m }
func (x *ListToolsResult) resultTypeField() *ResultType { return &x.ResultType }

func (x *CallToolParams) getMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *CallToolParams) withMeta(m *Meta) metaParams {
	var cp CallToolParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}
func (x *CallToolParams) withInput(a map[string]*InputResponse, state string) metaParams {
	cp := *x
	cp.InputResponses, cp.RequestState = a, state
	return &cp
}

func (x *CallToolResult) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *CallToolResult) setMeta(m *Meta)              { x.Meta = m }
func (x *CallToolResult) resultTypeField() *ResultType { return &x.ResultType }

func (x *toolListChangedNotificationParams) getMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *toolListChangedNotificationParams) withMeta(m *Meta) metaParams {
	var cp toolListChangedNotificationParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

var (
	_ metaParams = (*CompleteParams)(nil)
	_ metaParams = (*ElicitParams)(nil)
	_ metaParams = (*ElicitationCompleteNotificationParams)(nil)
	_ metaParams = (*InitializeParams)(nil)
	_ metaParams = (*initializedNotificationParams)(nil)
	_ metaParams = (*PingParams)(nil)
	_ metaParams = (*CancelledNotificationParams)(nil)
	_ metaParams = (*ProgressNotificationParams)(nil)
	_ metaParams = (*DiscoverParams)(nil)
	_ metaParams = (*SetLevelParams)(nil)
	_ metaParams = (*LoggingMessageNotificationParams)(nil)
	_ metaParams = (*ListPromptsParams)(nil)
	_ metaParams = (*GetPromptParams)(nil)
	_ metaParams = (*promptListChangedNotificationParams)(nil)
	_ metaParams = (*ListResourcesParams)(nil)
	_ metaParams = (*ListResourceTemplatesParams)(nil)
	_ metaParams = (*ReadResourceParams)(nil)
	_ metaParams = (*SubscribeParams)(nil)
	_ metaParams = (*UnsubscribeParams)(nil)
	_ metaParams = (*ResourceUpdatedNotificationParams)(nil)
	_ metaParams = (*resourceListChangedNotificationParams)(nil)
	_ metaParams = (*ListRootsParams)(nil)
	_ metaParams = (*rootsListChangedNotificationParams)(nil)
	_ metaParams = (*CreateMessageParams)(nil)
	_ metaParams = (*ListenParams)(nil)
	_ metaParams = (*SubscriptionsAcknowledgedNotificationParams)(nil)
	_ metaParams = (*ListToolsParams)(nil)
	_ metaParams = (*CallToolParams)(nil)
	_ metaParams = (*toolListChangedNotificationParams)(nil)
	_ Result     = (*EmptyResult)(nil)
	_ Result     = (*CompleteResult)(nil)
	_ Result     = (*ElicitResult)(nil)
	_ Result     = (*InitializeResult)(nil)
	_ Result     = (*DiscoverResult)(nil)
	_ Result     = (*InputRequiredResult)(nil)
	_ Result     = (*ListPromptsResult)(nil)
	_ Result     = (*GetPromptResult)(nil)
	_ Result     = (*ListResourcesResult)(nil)
	_ Result     = (*ListResourceTemplatesResult)(nil)
	_ Result     = (*ReadResourceResult)(nil)
	_ Result     = (*ListRootsResult)(nil)
	_ Result     = (*CreateMessageResult)(nil)
	_ Result     = (*ListenResult)(nil)
	_ Result     = (*ListToolsResult)(nil)
	_ Result     = (*CallToolResult)(nil)
)
