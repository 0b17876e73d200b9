package mcp

// Params is implemented by every params type of the protocol: it gives
// middleware and the transports typed access to the params' _meta (progress
// tokens, the 2026-07-28 client context, trace context) without knowing the
// concrete type.
type Params interface {
	// GetMeta returns the params' _meta, or nil.
	GetMeta() *Meta
	// SetMeta replaces the params' _meta.
	SetMeta(*Meta)
	// withMeta returns a shallow copy of the params with _meta m, so that a
	// caller's params are never modified.
	withMeta(m *Meta) Params
}

// Result is implemented by every result type of the protocol: typed access
// to the result's _meta. A custom (extension) method's result type that
// implements it gets the server's identity in its _meta at 2026-07-28, as
// the core's results do.
type Result interface {
	// GetMeta returns the result's _meta, or nil.
	GetMeta() *Meta
	// SetMeta replaces the result's _meta.
	SetMeta(*Meta)
}

// typedResult is implemented by the results that carry the 2026-07-28
// resultType.
type typedResult interface {
	resultTypeField() *ResultType
}

// cacheableResult is implemented by the results that carry 2026-07-28
// caching hints.
type cacheableResult interface {
	cacheHintsField() *CacheHints
}

// retryableParams is implemented by the params of the requests that may be
// retried with answers to an input-required result (2026-07-28).
type retryableParams interface {
	withInput(answers map[string]*InputResponse, state string) Params
}

func (x *EmptyResult) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *EmptyResult) SetMeta(m *Meta)              { x.Meta = m }
func (x *EmptyResult) resultTypeField() *ResultType { return &x.ResultType }

func (x *CompleteParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *CompleteParams) SetMeta(m *Meta) { x.Meta = m }
func (x *CompleteParams) withMeta(m *Meta) Params {
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
func (x *CompleteResult) SetMeta(m *Meta)              { x.Meta = m }
func (x *CompleteResult) resultTypeField() *ResultType { return &x.ResultType }

func (x *ElicitParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ElicitParams) SetMeta(m *Meta) { x.Meta = m }
func (x *ElicitParams) withMeta(m *Meta) Params {
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
func (x *ElicitResult) SetMeta(m *Meta) { x.Meta = m }

func (x *ElicitationCompleteNotificationParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ElicitationCompleteNotificationParams) SetMeta(m *Meta) { x.Meta = m }
func (x *ElicitationCompleteNotificationParams) withMeta(m *Meta) Params {
	var cp ElicitationCompleteNotificationParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *InitializeParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *InitializeParams) SetMeta(m *Meta) { x.Meta = m }
func (x *InitializeParams) withMeta(m *Meta) Params {
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
func (x *InitializeResult) SetMeta(m *Meta) { x.Meta = m }

func (x *InitializedNotificationParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *InitializedNotificationParams) SetMeta(m *Meta) { x.Meta = m }
func (x *InitializedNotificationParams) withMeta(m *Meta) Params {
	var cp InitializedNotificationParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *PingParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *PingParams) SetMeta(m *Meta) { x.Meta = m }
func (x *PingParams) withMeta(m *Meta) Params {
	var cp PingParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *CancelledNotificationParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *CancelledNotificationParams) SetMeta(m *Meta) { x.Meta = m }
func (x *CancelledNotificationParams) withMeta(m *Meta) Params {
	var cp CancelledNotificationParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *ProgressNotificationParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ProgressNotificationParams) SetMeta(m *Meta) { x.Meta = m }
func (x *ProgressNotificationParams) withMeta(m *Meta) Params {
	var cp ProgressNotificationParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *DiscoverParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *DiscoverParams) SetMeta(m *Meta) { x.Meta = m }
func (x *DiscoverParams) withMeta(m *Meta) Params {
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
func (x *DiscoverResult) SetMeta(m *Meta)              { x.Meta = m }
func (x *DiscoverResult) resultTypeField() *ResultType { return &x.ResultType }
func (x *DiscoverResult) cacheHintsField() *CacheHints { return &x.CacheHints }

func (x *SetLevelParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *SetLevelParams) SetMeta(m *Meta) { x.Meta = m }
func (x *SetLevelParams) withMeta(m *Meta) Params {
	var cp SetLevelParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *LoggingMessageNotificationParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *LoggingMessageNotificationParams) SetMeta(m *Meta) { x.Meta = m }
func (x *LoggingMessageNotificationParams) withMeta(m *Meta) Params {
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
func (x *InputRequiredResult) SetMeta(m *Meta)              { x.Meta = m }
func (x *InputRequiredResult) resultTypeField() *ResultType { return &x.ResultType }

func (x *ListPromptsParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ListPromptsParams) SetMeta(m *Meta) { x.Meta = m }
func (x *ListPromptsParams) withMeta(m *Meta) Params {
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
func (x *ListPromptsResult) SetMeta(m *Meta)              { x.Meta = m }
func (x *ListPromptsResult) resultTypeField() *ResultType { return &x.ResultType }
func (x *ListPromptsResult) cacheHintsField() *CacheHints { return &x.CacheHints }

func (x *GetPromptParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *GetPromptParams) SetMeta(m *Meta) { x.Meta = m }
func (x *GetPromptParams) withMeta(m *Meta) Params {
	var cp GetPromptParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}
func (x *GetPromptParams) withInput(a map[string]*InputResponse, state string) Params {
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
func (x *GetPromptResult) SetMeta(m *Meta)              { x.Meta = m }
func (x *GetPromptResult) resultTypeField() *ResultType { return &x.ResultType }

func (x *PromptListChangedNotificationParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *PromptListChangedNotificationParams) SetMeta(m *Meta) { x.Meta = m }
func (x *PromptListChangedNotificationParams) withMeta(m *Meta) Params {
	var cp PromptListChangedNotificationParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *ListResourcesParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ListResourcesParams) SetMeta(m *Meta) { x.Meta = m }
func (x *ListResourcesParams) withMeta(m *Meta) Params {
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
func (x *ListResourcesResult) SetMeta(m *Meta)              { x.Meta = m }
func (x *ListResourcesResult) resultTypeField() *ResultType { return &x.ResultType }
func (x *ListResourcesResult) cacheHintsField() *CacheHints { return &x.CacheHints }

func (x *ListResourceTemplatesParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ListResourceTemplatesParams) SetMeta(m *Meta) { x.Meta = m }
func (x *ListResourceTemplatesParams) withMeta(m *Meta) Params {
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
func (x *ListResourceTemplatesResult) SetMeta(m *Meta)              { x.Meta = m }
func (x *ListResourceTemplatesResult) resultTypeField() *ResultType { return &x.ResultType }
func (x *ListResourceTemplatesResult) cacheHintsField() *CacheHints { return &x.CacheHints }

func (x *ReadResourceParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ReadResourceParams) SetMeta(m *Meta) { x.Meta = m }
func (x *ReadResourceParams) withMeta(m *Meta) Params {
	var cp ReadResourceParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}
func (x *ReadResourceParams) withInput(a map[string]*InputResponse, state string) Params {
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
func (x *ReadResourceResult) SetMeta(m *Meta)              { x.Meta = m }
func (x *ReadResourceResult) resultTypeField() *ResultType { return &x.ResultType }
func (x *ReadResourceResult) cacheHintsField() *CacheHints { return &x.CacheHints }

func (x *SubscribeParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *SubscribeParams) SetMeta(m *Meta) { x.Meta = m }
func (x *SubscribeParams) withMeta(m *Meta) Params {
	var cp SubscribeParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *UnsubscribeParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *UnsubscribeParams) SetMeta(m *Meta) { x.Meta = m }
func (x *UnsubscribeParams) withMeta(m *Meta) Params {
	var cp UnsubscribeParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *ResourceUpdatedNotificationParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ResourceUpdatedNotificationParams) SetMeta(m *Meta) { x.Meta = m }
func (x *ResourceUpdatedNotificationParams) withMeta(m *Meta) Params {
	cp := *x
	cp.Meta = m
	return &cp
}

func (x *ResourceListChangedNotificationParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ResourceListChangedNotificationParams) SetMeta(m *Meta) { x.Meta = m }
func (x *ResourceListChangedNotificationParams) withMeta(m *Meta) Params {
	var cp ResourceListChangedNotificationParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *ListRootsParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ListRootsParams) SetMeta(m *Meta) { x.Meta = m }
func (x *ListRootsParams) withMeta(m *Meta) Params {
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
func (x *ListRootsResult) SetMeta(m *Meta) { x.Meta = m }

func (x *RootsListChangedNotificationParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *RootsListChangedNotificationParams) SetMeta(m *Meta) { x.Meta = m }
func (x *RootsListChangedNotificationParams) withMeta(m *Meta) Params {
	var cp RootsListChangedNotificationParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *CreateMessageParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *CreateMessageParams) SetMeta(m *Meta) { x.Meta = m }
func (x *CreateMessageParams) withMeta(m *Meta) Params {
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
func (x *CreateMessageResult) SetMeta(m *Meta) { x.Meta = m }

func (x *ListenParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ListenParams) SetMeta(m *Meta) { x.Meta = m }
func (x *ListenParams) withMeta(m *Meta) Params {
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
func (x *ListenResult) SetMeta(m *Meta)              { x.Meta = m }
func (x *ListenResult) resultTypeField() *ResultType { return &x.ResultType }

func (x *SubscriptionsAcknowledgedNotificationParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *SubscriptionsAcknowledgedNotificationParams) SetMeta(m *Meta) { x.Meta = m }
func (x *SubscriptionsAcknowledgedNotificationParams) withMeta(m *Meta) Params {
	var cp SubscriptionsAcknowledgedNotificationParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *CreateTaskResult) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *CreateTaskResult) SetMeta(m *Meta) { x.Meta = m }

func (x *GetTaskParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *GetTaskParams) SetMeta(m *Meta) { x.Meta = m }
func (x *GetTaskParams) withMeta(m *Meta) Params {
	var cp GetTaskParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *GetTaskResult) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *GetTaskResult) SetMeta(m *Meta) { x.Meta = m }

func (x *GetTaskPayloadParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *GetTaskPayloadParams) SetMeta(m *Meta) { x.Meta = m }
func (x *GetTaskPayloadParams) withMeta(m *Meta) Params {
	var cp GetTaskPayloadParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *ListTasksParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ListTasksParams) SetMeta(m *Meta) { x.Meta = m }
func (x *ListTasksParams) withMeta(m *Meta) Params {
	var cp ListTasksParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *ListTasksResult) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ListTasksResult) SetMeta(m *Meta) { x.Meta = m }

func (x *CancelTaskParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *CancelTaskParams) SetMeta(m *Meta) { x.Meta = m }
func (x *CancelTaskParams) withMeta(m *Meta) Params {
	var cp CancelTaskParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *CancelTaskResult) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *CancelTaskResult) SetMeta(m *Meta) { x.Meta = m }

func (x *TaskStatusNotificationParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *TaskStatusNotificationParams) SetMeta(m *Meta) { x.Meta = m }
func (x *TaskStatusNotificationParams) withMeta(m *Meta) Params {
	var cp TaskStatusNotificationParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

func (x *ListToolsParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ListToolsParams) SetMeta(m *Meta) { x.Meta = m }
func (x *ListToolsParams) withMeta(m *Meta) Params {
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
func (x *ListToolsResult) SetMeta(m *Meta)              { x.Meta = m }
func (x *ListToolsResult) resultTypeField() *ResultType { return &x.ResultType }
func (x *ListToolsResult) cacheHintsField() *CacheHints { return &x.CacheHints }

func (x *CallToolParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *CallToolParams) SetMeta(m *Meta) { x.Meta = m }
func (x *CallToolParams) withMeta(m *Meta) Params {
	var cp CallToolParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}
func (x *CallToolParams) withInput(a map[string]*InputResponse, state string) Params {
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
func (x *CallToolResult) SetMeta(m *Meta)              { x.Meta = m }
func (x *CallToolResult) resultTypeField() *ResultType { return &x.ResultType }

func (x *ToolListChangedNotificationParams) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *ToolListChangedNotificationParams) SetMeta(m *Meta) { x.Meta = m }
func (x *ToolListChangedNotificationParams) withMeta(m *Meta) Params {
	var cp ToolListChangedNotificationParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

var (
	_ Params = (*CompleteParams)(nil)
	_ Params = (*ElicitParams)(nil)
	_ Params = (*ElicitationCompleteNotificationParams)(nil)
	_ Params = (*InitializeParams)(nil)
	_ Params = (*InitializedNotificationParams)(nil)
	_ Params = (*PingParams)(nil)
	_ Params = (*CancelledNotificationParams)(nil)
	_ Params = (*ProgressNotificationParams)(nil)
	_ Params = (*DiscoverParams)(nil)
	_ Params = (*SetLevelParams)(nil)
	_ Params = (*LoggingMessageNotificationParams)(nil)
	_ Params = (*ListPromptsParams)(nil)
	_ Params = (*GetPromptParams)(nil)
	_ Params = (*PromptListChangedNotificationParams)(nil)
	_ Params = (*ListResourcesParams)(nil)
	_ Params = (*ListResourceTemplatesParams)(nil)
	_ Params = (*ReadResourceParams)(nil)
	_ Params = (*SubscribeParams)(nil)
	_ Params = (*UnsubscribeParams)(nil)
	_ Params = (*ResourceUpdatedNotificationParams)(nil)
	_ Params = (*ResourceListChangedNotificationParams)(nil)
	_ Params = (*ListRootsParams)(nil)
	_ Params = (*RootsListChangedNotificationParams)(nil)
	_ Params = (*CreateMessageParams)(nil)
	_ Params = (*ListenParams)(nil)
	_ Params = (*SubscriptionsAcknowledgedNotificationParams)(nil)
	_ Params = (*GetTaskParams)(nil)
	_ Params = (*GetTaskPayloadParams)(nil)
	_ Params = (*ListTasksParams)(nil)
	_ Params = (*CancelTaskParams)(nil)
	_ Params = (*TaskStatusNotificationParams)(nil)
	_ Params = (*ListToolsParams)(nil)
	_ Params = (*CallToolParams)(nil)
	_ Params = (*ToolListChangedNotificationParams)(nil)
	_ Result = (*EmptyResult)(nil)
	_ Result = (*CompleteResult)(nil)
	_ Result = (*ElicitResult)(nil)
	_ Result = (*InitializeResult)(nil)
	_ Result = (*DiscoverResult)(nil)
	_ Result = (*InputRequiredResult)(nil)
	_ Result = (*ListPromptsResult)(nil)
	_ Result = (*GetPromptResult)(nil)
	_ Result = (*ListResourcesResult)(nil)
	_ Result = (*ListResourceTemplatesResult)(nil)
	_ Result = (*ReadResourceResult)(nil)
	_ Result = (*ListRootsResult)(nil)
	_ Result = (*CreateMessageResult)(nil)
	_ Result = (*ListenResult)(nil)
	_ Result = (*CreateTaskResult)(nil)
	_ Result = (*GetTaskResult)(nil)
	_ Result = (*ListTasksResult)(nil)
	_ Result = (*CancelTaskResult)(nil)
	_ Result = (*ListToolsResult)(nil)
	_ Result = (*CallToolResult)(nil)
)
