package tasks

import (
	"encoding/json"

	"github.com/gomcp/sdk/mcp"
)

// The tasks capabilities of 2025-11-25 (SEP-1686), which mcp's
// ClientCapabilities.Tasks and ServerCapabilities.Tasks carry as JSON.

// ClientCapabilities is a client's tasks capability: what it answers and
// which server-to-client requests it accepts as tasks.
type ClientCapabilities struct {
	// List: the client answers tasks/list.
	List *struct{} `json:"list,omitempty"`
	// Cancel: the client answers tasks/cancel.
	Cancel *struct{} `json:"cancel,omitempty"`
	// Requests names the requests the client accepts as tasks.
	Requests *ClientRequests `json:"requests,omitempty"`
}

// ClientRequests names the server-to-client requests a client accepts with
// a task parameter: sampling/createMessage (Sampling.CreateMessage) and
// elicitation/create (Elicitation.Create).
type ClientRequests struct {
	Sampling    *SamplingRequests    `json:"sampling,omitempty"`
	Elicitation *ElicitationRequests `json:"elicitation,omitempty"`
}

// SamplingRequests: sampling/createMessage may be task-augmented.
type SamplingRequests struct {
	CreateMessage *struct{} `json:"createMessage,omitempty"`
}

// ElicitationRequests: elicitation/create may be task-augmented.
type ElicitationRequests struct {
	Create *struct{} `json:"create,omitempty"`
}

// ServerCapabilities is a server's tasks capability: what it answers and
// which client-to-server requests it accepts as tasks.
type ServerCapabilities struct {
	// List: the server answers tasks/list.
	List *struct{} `json:"list,omitempty"`
	// Cancel: the server answers tasks/cancel.
	Cancel *struct{} `json:"cancel,omitempty"`
	// Requests names the requests the server accepts as tasks.
	Requests *ServerRequests `json:"requests,omitempty"`
}

// ServerRequests names the client-to-server requests a server accepts with
// a task parameter.
type ServerRequests struct {
	Tools *ToolRequests `json:"tools,omitempty"`
}

// ToolRequests: tools/call may be task-augmented.
type ToolRequests struct {
	Call *struct{} `json:"call,omitempty"`
}

// ServerCapabilitiesOf decodes the tasks capability a server advertised
// (nil, nil when it advertised none).
func ServerCapabilitiesOf(c *mcp.ServerCapabilities) (*ServerCapabilities, error) {
	if c == nil || len(c.Tasks) == 0 {
		return nil, nil
	}
	var tc ServerCapabilities
	if err := json.Unmarshal(c.Tasks, &tc); err != nil {
		return nil, err
	}
	return &tc, nil
}

// ClientCapabilitiesOf decodes the tasks capability a client declared (nil,
// nil when it declared none).
func ClientCapabilitiesOf(c *mcp.ClientCapabilities) (*ClientCapabilities, error) {
	if c == nil || len(c.Tasks) == 0 {
		return nil, nil
	}
	var tc ClientCapabilities
	if err := json.Unmarshal(c.Tasks, &tc); err != nil {
		return nil, err
	}
	return &tc, nil
}

// serverCapability is what a Manager advertises: tasks/list, tasks/cancel
// and task-augmented tools/call.
var serverCapability = json.RawMessage(`{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`)
