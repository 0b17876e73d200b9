// Command driver is the client of mcp-migrate's behaviour test
// (behaviour_test.go): it runs an MCP server over stdio, connects gomcp's
// client at one protocol revision, and prints as one JSON object what the
// server lists and how it answers a set of calls. The test builds it in the
// module of the migrated examples, which resolves gomcp.
//
// Usage: driver -version V -calls JSON -- server [args...]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"time"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

// A call is a tool call to make: by Name, or Alt when the server does not
// list Name (a tool the migration renamed); Key names its answer.
type call struct {
	Key, Name, Alt string
	Args           json.RawMessage
}

func main() {
	version := flag.String("version", mcp.LatestStatefulVersion, "protocol revision")
	callsJSON := flag.String("calls", "[]", "tool calls (JSON list of {Key, Name, Alt, Args}); every tool is also called with {}")
	flag.Parse()
	var calls []call
	if err := json.Unmarshal([]byte(*callsJSON), &calls); err != nil || flag.NArg() == 0 {
		log.Fatalf("usage: driver -version V -calls JSON -- server [args...] (%v)", err)
	}
	out, err := observe(*version, calls, flag.Args())
	if err != nil {
		log.Fatal(err)
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		log.Fatal(err)
	}
}

func observe(version string, calls []call, argv []string) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.Command(argv[0], argv[1:]...)
	c := mcp.NewClient(&mcp.Implementation{Name: "mcp-migrate-driver", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: version})
	cs, err := c.Connect(ctx, &transport.CommandTransport{Cmd: cmd, ShutdownTimeout: 2 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer cs.Close()
	caps := cs.ServerCapabilities()
	out := map[string]any{}
	var tools []*mcp.Tool
	if caps.Tools != nil {
		for t, err := range cs.Tools(ctx, nil) {
			if err != nil {
				return nil, fmt.Errorf("tools/list: %w", err)
			}
			tools = append(tools, t)
		}
	}
	out["tools/list"] = tools
	listed := map[string]bool{}
	for _, t := range tools {
		listed[t.Name] = true
		calls = append(calls, call{Key: "{} " + t.Name, Name: t.Name, Args: json.RawMessage(`{}`)})
	}
	var prompts []*mcp.Prompt
	if caps.Prompts != nil {
		for p, err := range cs.Prompts(ctx, nil) {
			if err != nil {
				return nil, fmt.Errorf("prompts/list: %w", err)
			}
			prompts = append(prompts, p)
		}
	}
	out["prompts/list"] = prompts
	var resources []*mcp.Resource
	var templates []*mcp.ResourceTemplate
	if caps.Resources != nil {
		for r, err := range cs.Resources(ctx, nil) {
			if err != nil {
				return nil, fmt.Errorf("resources/list: %w", err)
			}
			resources = append(resources, r)
		}
		for r, err := range cs.ResourceTemplates(ctx, nil) {
			if err != nil {
				return nil, fmt.Errorf("resources/templates/list: %w", err)
			}
			templates = append(templates, r)
		}
	}
	out["resources/list"] = resources
	out["resources/templates/list"] = templates
	for _, k := range calls {
		name := k.Name
		if !listed[name] && k.Alt != "" {
			name = k.Alt
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: k.Args})
		out["tools/call "+k.Key] = outcome(res, err)
	}
	for _, p := range prompts {
		args := map[string]string{}
		for _, a := range p.Arguments {
			if a.Required {
				args[a.Name] = "x"
			}
		}
		res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: p.Name, Arguments: args})
		out["prompts/get "+p.Name] = outcome(res, err)
	}
	for _, r := range resources {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.URI})
		out["resources/read "+r.URI] = outcome(res, err)
	}
	return out, nil
}

// outcome is a result, or the error's text under "error".
func outcome(res any, err error) any {
	if err != nil {
		return map[string]string{"error": err.Error()}
	}
	return res
}
