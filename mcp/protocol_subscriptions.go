package mcp

// SubscriptionFilter selects the notifications a subscriptions/listen stream
// carries (2026-07-28).
type SubscriptionFilter struct {
	ToolsListChanged     bool `json:"toolsListChanged,omitempty"`
	PromptsListChanged   bool `json:"promptsListChanged,omitempty"`
	ResourcesListChanged bool `json:"resourcesListChanged,omitempty"`
	// ResourceSubscriptions lists resource URIs whose updates to send.
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
	// TaskIDs is added by the tasks extension (io.modelcontextprotocol/tasks).
	TaskIDs []string `json:"taskIds,omitempty"`
}

// ListenParams are the params of subscriptions/listen (2026-07-28).
type ListenParams struct {
	Meta          *Meta              `json:"_meta,omitempty"`
	Notifications SubscriptionFilter `json:"notifications"`
}

// ListenResult ends a subscriptions/listen stream gracefully (2026-07-28).
// Its Meta is required and carries SubscriptionID.
type ListenResult struct {
	Meta       *Meta      `json:"_meta,omitempty"`
	ResultType ResultType `json:"resultType,omitempty"`
}

// SubscriptionsAcknowledgedNotificationParams are the params of
// notifications/subscriptions/acknowledged, the first message of a listen
// stream: the notifications the server will actually send.
type SubscriptionsAcknowledgedNotificationParams struct {
	Meta          *Meta              `json:"_meta,omitempty"`
	Notifications SubscriptionFilter `json:"notifications"`
}
