package everything

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/gomcp/sdk/mcp"
)

// Fixtures of the 2026-07-28 scenarios. They are served to every revision:
// the same handler code asks for input with real requests on a stateful
// session and with input-required results on a stateless request.

func elicitText(message, field string, typ mcp.SchemaType) *mcp.InputRequest {
	return &mcp.InputRequest{Elicit: &mcp.ElicitParams{
		Message: message,
		RequestedSchema: &mcp.ElicitSchema{
			Properties: []mcp.ElicitProperty{{Name: field, Schema: &mcp.PrimitiveSchema{Type: typ}}},
			Required:   []string{field},
		},
	}}
}

func sample(text string, maxTokens int64) *mcp.InputRequest {
	return &mcp.InputRequest{CreateMessage: &mcp.CreateMessageParams{
		Messages:  []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{mcp.NewTextContent(text)}}},
		MaxTokens: maxTokens,
	}}
}

func roots() *mcp.InputRequest { return &mcp.InputRequest{ListRoots: &mcp.ListRootsParams{}} }

// describe renders an answer for a result text.
func describe(a *mcp.InputResponse) string {
	switch {
	case a == nil:
		return "none"
	case a.Elicit != nil:
		return fmt.Sprintf("%s %s", a.Elicit.Action, jsonString(a.Elicit.Content))
	case a.CreateMessage != nil:
		var parts []string
		for _, c := range a.CreateMessage.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				parts = append(parts, t.Text)
			}
		}
		return strings.Join(parts, " ")
	case a.ListRoots != nil:
		var uris []string
		for _, r := range a.ListRoots.Roots {
			uris = append(uris, r.URI)
		}
		return strings.Join(uris, ",")
	}
	return "?"
}

func field(a *mcp.InputResponse, name string) any {
	if a == nil || a.Elicit == nil {
		return nil
	}
	return a.Elicit.Content[name]
}

// customHeaderSchema has a parameter mirrored into the Mcp-Param-Region
// header (SEP-2243).
const customHeaderSchema = `{"type":"object","properties":{"region":{"type":"string","description":"Region to query","x-mcp-header":"Region"},"query":{"type":"string"}},"required":["region"]}`

func addModernTools(s *mcp.Server, add func(error)) {
	tg := &toggler{s: s}
	add(mcp.AddTool(s, &mcp.Tool{Name: "test_missing_capability", Description: "Needs sampling: a client without it gets -32021"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, error) {
			res, err := req.CreateMessage(ctx, sample("Say hello", 10).CreateMessage)
			if err != nil {
				return nil, err
			}
			return text("Sampling answered: " + describe(&mcp.InputResponse{CreateMessage: res})), nil
		}))
	add(mcp.AddTool(s, &mcp.Tool{Name: "test_streaming_elicitation", Description: "Asks the user a question"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, error) {
			a, err := req.Input(ctx, map[string]*mcp.InputRequest{"user_name": elicitText("What is your name?", "name", mcp.SchemaString)})
			if err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("Hello, %v!", field(a["user_name"], "name"))), nil
		}))
	add(mcp.AddTool(s, &mcp.Tool{Name: "test_logging_tool", Description: "Logs one message at each of info and debug"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, error) {
			_ = req.Log(ctx, mcp.LevelInfo, "everything", "logging tool: info")
			_ = req.Log(ctx, mcp.LevelDebug, "everything", "logging tool: debug")
			return text("Logging tool completed"), nil
		}))
	add(mcp.AddTool(s, &mcp.Tool{Name: "test_trigger_tool_change", Description: "Adds or removes a tool, so the tool list changes"},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, error) {
			if err := tg.toggleTool(); err != nil {
				return nil, err
			}
			return text("Tool list changed"), nil
		}))
	add(mcp.AddTool(s, &mcp.Tool{Name: "test_trigger_prompt_change", Description: "Adds or removes a prompt, so the prompt list changes"},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, error) {
			if err := tg.togglePrompt(); err != nil {
				return nil, err
			}
			return text("Prompt list changed"), nil
		}))
	add(s.AddTool(&mcp.Tool{Name: "test_custom_header_param", Description: "Echoes a parameter the client also sends as the Mcp-Param-Region header",
		InputSchema: json.RawMessage(customHeaderSchema)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct {
				Region string `json:"region"`
			}
			_ = json.Unmarshal(req.Params.Arguments, &in)
			return text("Region: " + in.Region), nil
		}))

	inputTool := func(name, desc string, h func(ctx context.Context, req *mcp.CallToolRequest) (string, error)) {
		add(mcp.AddTool(s, &mcp.Tool{Name: name, Description: desc},
			func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, error) {
				out, err := h(ctx, req)
				if err != nil {
					return nil, err
				}
				return text(out), nil
			}))
	}
	inputTool("test_input_required_result_elicitation", "Asks the user's name", func(ctx context.Context, req *mcp.CallToolRequest) (string, error) {
		a, err := req.Input(ctx, map[string]*mcp.InputRequest{"user_name": elicitText("What is your name?", "name", mcp.SchemaString)})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("Hello, %v!", field(a["user_name"], "name")), nil
	})
	inputTool("test_input_required_result_sampling", "Asks the client's model a question", func(ctx context.Context, req *mcp.CallToolRequest) (string, error) {
		a, err := req.Input(ctx, map[string]*mcp.InputRequest{"capital_question": sample("What is the capital of France?", 100)})
		if err != nil {
			return "", err
		}
		return "Model says: " + describe(a["capital_question"]), nil
	})
	inputTool("test_input_required_result_list_roots", "Asks the client for its roots", func(ctx context.Context, req *mcp.CallToolRequest) (string, error) {
		a, err := req.Input(ctx, map[string]*mcp.InputRequest{"client_roots": roots()})
		if err != nil {
			return "", err
		}
		return "Roots: " + describe(a["client_roots"]), nil
	})
	confirm := func(ctx context.Context, req *mcp.CallToolRequest) (string, error) {
		a, err := req.Input(ctx, map[string]*mcp.InputRequest{"confirm": elicitText("Please confirm", "ok", mcp.SchemaBoolean)})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("state-ok: confirmed=%v", field(a["confirm"], "ok")), nil
	}
	inputTool("test_input_required_result_request_state", "Asks for a confirmation, keeping state between rounds", confirm)
	inputTool("test_input_required_result_tampered_state", "Like the request state tool; a tampered state is refused", confirm)
	inputTool("test_input_required_result_multiple_inputs", "Asks three questions at once", func(ctx context.Context, req *mcp.CallToolRequest) (string, error) {
		a, err := req.Input(ctx, map[string]*mcp.InputRequest{
			"user_name":    elicitText("What is your name?", "name", mcp.SchemaString),
			"greeting":     sample("Generate a greeting", 50),
			"client_roots": roots(),
		})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("name=%v greeting=%s roots=%s", field(a["user_name"], "name"), describe(a["greeting"]), describe(a["client_roots"])), nil
	})
	inputTool("test_input_required_result_multi_round", "Asks two questions, one round each", func(ctx context.Context, req *mcp.CallToolRequest) (string, error) {
		a1, err := req.Input(ctx, map[string]*mcp.InputRequest{"step1": elicitText("Step 1: What is your name?", "name", mcp.SchemaString)})
		if err != nil {
			return "", err
		}
		a2, err := req.Input(ctx, map[string]*mcp.InputRequest{"step2": elicitText("Step 2: What is your favorite color?", "color", mcp.SchemaString)})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%v likes %v", field(a1["step1"], "name"), field(a2["step2"], "color")), nil
	})
	inputTool("test_input_required_result_capabilities", "Asks only for input the client declared it can give", func(ctx context.Context, req *mcp.CallToolRequest) (string, error) {
		caps := req.ClientCapabilities()
		q := map[string]*mcp.InputRequest{}
		if caps.Elicitation != nil {
			q["user_name"] = elicitText("What is your name?", "name", mcp.SchemaString)
		}
		if caps.Sampling != nil {
			q["greeting"] = sample("Generate a greeting", 50)
		}
		if caps.Roots != nil {
			q["client_roots"] = roots()
		}
		if len(q) == 0 {
			return "The client declared no capability to answer with", nil
		}
		a, err := req.Input(ctx, q)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("Got %d answer(s)", len(a)), nil
	})

	add(s.AddPrompt(&mcp.Prompt{Name: "test_input_required_result_prompt", Description: "A prompt that asks the user for context first"},
		func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			a, err := req.Input(ctx, map[string]*mcp.InputRequest{"user_context": elicitText("What context should the prompt use?", "context", mcp.SchemaString)})
			if err != nil {
				return nil, err
			}
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{userText(fmt.Sprintf("Use this context: %v", field(a["user_context"], "context")))}}, nil
		}))
}

const dynamicName = "test_dynamic"

// toggler adds and removes a tool and a prompt, so clients see list changes.
type toggler struct {
	s            *mcp.Server
	mu           sync.Mutex
	tool, prompt bool
}

func (t *toggler) toggleTool() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tool {
		t.s.RemoveTools(dynamicName)
	} else {
		err := mcp.AddTool(t.s, &mcp.Tool{Name: dynamicName, Description: "Appears and disappears"},
			func(context.Context, *mcp.CallToolRequest, none) (string, error) { return "dynamic", nil })
		if err != nil {
			return err
		}
	}
	t.tool = !t.tool
	return nil
}

func (t *toggler) togglePrompt() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.prompt {
		t.s.RemovePrompts(dynamicName)
	} else {
		err := t.s.AddPrompt(&mcp.Prompt{Name: dynamicName, Description: "Appears and disappears"},
			func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{userText("dynamic")}}, nil
			})
		if err != nil {
			return err
		}
	}
	t.prompt = !t.prompt
	return nil
}
