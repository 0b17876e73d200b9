// Command everything-client is the client the MCP conformance suite drives:
// it connects to the server URL given as its last argument over Streamable
// HTTP and acts out the scenario named by MCP_CONFORMANCE_SCENARIO.
//
// Scenarios it does not know get the generic behaviour: connect, list the
// tools, and call each one with the arguments the context names, if any.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport/mcphttp"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: everything-client [flags] SERVER_URL")
		os.Exit(2)
	}
	url := os.Args[len(os.Args)-1]
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	if err := run(ctx, url, scenario, os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION"), os.Getenv("MCP_CONFORMANCE_CONTEXT")); err != nil {
		fmt.Fprintf(os.Stderr, "everything-client: scenario %q: %v\n", scenario, err)
		os.Exit(1)
	}
}

// scenarioContext is MCP_CONFORMANCE_CONTEXT: data some scenarios supply.
type scenarioContext struct {
	ToolCalls []struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"toolCalls"`
}

func newClient(version string) *mcp.Client {
	opts := &mcp.ClientOptions{
		// Accept every form with the defaults the server proposed
		// (SEP-1034 fills them in) and what the scenarios ask for.
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			content := map[string]any{}
			if s := req.Params.RequestedSchema; s != nil {
				for _, p := range s.Properties {
					if p.Schema != nil && p.Schema.Type == mcp.SchemaBoolean && p.Schema.Default == nil {
						content[p.Name] = true
					}
				}
			}
			return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: content}, nil
		},
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "everything-client",
				Content: []mcp.Content{mcp.NewTextContent("a sample answer")}, StopReason: mcp.StopReasonEndTurn}, nil
		},
		Roots:  []*mcp.Root{{URI: "file:///tmp/everything-client", Name: "scratch"}},
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	if mcp.IsSupportedVersion(version) {
		opts.ProtocolVersion = version
	}
	return mcp.NewClient(&mcp.Implementation{Name: "gomcp-everything-client", Version: "1.0.0"}, opts)
}

func run(ctx context.Context, url, scenario, version, rawContext string) error {
	if strings.HasPrefix(scenario, "auth/") {
		return runAuth(ctx, url, scenario, version, rawContext)
	}
	cs, err := newClient(version).Connect(ctx, mcphttp.NewClientStream(url, nil))
	if err != nil {
		return err
	}
	defer cs.Close()

	if isSkillsScenario(scenario) {
		return runSkills(ctx, cs, scenario)
	}
	switch scenario {
	case "initialize":
		_, err := cs.ListTools(ctx, nil)
		return err
	case "tools_call":
		return call(ctx, cs, "add_numbers", `{"a":2,"b":3}`)
	case "elicitation-sep1034-client-defaults":
		return call(ctx, cs, "test_client_elicitation_defaults", `{}`)
	case "sse-retry":
		return call(ctx, cs, "test_reconnection", `{}`)
	case "json-schema-2020-12-preservation":
		tools, err := listTools(ctx, cs)
		if err != nil {
			return err
		}
		for _, t := range tools {
			if t.Name == "json_schema_2020_12_tool" {
				args, _ := json.Marshal(map[string]any{"schema": t.InputSchema})
				return call(ctx, cs, "json_schema_echo", string(args))
			}
		}
		return fmt.Errorf("json_schema_2020_12_tool not listed")
	case "sep-2322-client-request-state":
		// The unrelated call sits between two multi-round calls, so that
		// any state leaking from one request to another would show.
		for _, name := range []string{"test_mrtr_echo_state", "test_mrtr_unrelated", "test_mrtr_no_state", "test_mrtr_no_result_type"} {
			if err := call(ctx, cs, name, `{}`); err != nil {
				return err
			}
		}
		return nil
	case "http-standard-headers":
		return exerciseEverything(ctx, cs)
	}
	var sc scenarioContext
	if rawContext != "" {
		if err := json.Unmarshal([]byte(rawContext), &sc); err != nil {
			return fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
		}
	}
	tools, err := listTools(ctx, cs)
	if err != nil {
		return err
	}
	if len(sc.ToolCalls) > 0 {
		for _, tc := range sc.ToolCalls {
			if err := call(ctx, cs, tc.Name, string(tc.Arguments)); err != nil {
				return err
			}
		}
		return nil
	}
	if scenario == "http-invalid-tool-headers" {
		// Call every tool the client kept: the invalid ones were dropped.
		for _, t := range tools {
			if err := call(ctx, cs, t.Name, `{"region":"us-west1"}`); err != nil {
				return err
			}
		}
	}
	return nil
}

func listTools(ctx context.Context, cs *mcp.ClientSession) ([]*mcp.Tool, error) {
	var tools []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		tools = append(tools, t)
	}
	return tools, nil
}

func call(ctx context.Context, cs *mcp.ClientSession, name, args string) error {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		return fmt.Errorf("tools/call %s: %w", name, err)
	}
	if res.IsError {
		return fmt.Errorf("tools/call %s: tool error: %v", name, res.Content)
	}
	return nil
}

// exerciseEverything sends one request of each kind the server offers.
func exerciseEverything(ctx context.Context, cs *mcp.ClientSession) error {
	tools, err := listTools(ctx, cs)
	if err != nil {
		return err
	}
	for _, t := range tools {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: t.Name, Arguments: json.RawMessage(`{}`)}); err != nil {
			return err
		}
	}
	res, err := cs.ListResources(ctx, nil)
	if err != nil {
		return err
	}
	for _, r := range res.Resources {
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.URI}); err != nil {
			return err
		}
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		return err
	}
	for _, p := range prompts.Prompts {
		if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: p.Name}); err != nil {
			return err
		}
	}
	return nil
}
