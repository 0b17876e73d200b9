package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gomcp/sdk/mcp"
)

// levelNames lists the logging levels for messages, least severe first.
const levelNames = "debug, info, notice, warning, error, critical, alert, emergency"

// parseLevel reads a logging level's name.
func parseLevel(s string) (mcp.LoggingLevel, error) {
	l, ok := mcp.ParseLoggingLevel(strings.ToLower(s))
	if !ok {
		return 0, usageError{fmt.Errorf("log level %q: want one of %s", s, levelNames)}
	}
	return l, nil
}

// logLevel is the level -v (debug) or --log-level asks for; 0 for none.
func (inv *invocation) logLevel() (mcp.LoggingLevel, error) {
	switch {
	case inv.level != "":
		return parseLevel(inv.level)
	case inv.verbose:
		return mcp.LevelDebug, nil
	}
	return 0, nil
}

// runLogLevel runs mcp log-level LEVEL: it sets the server's level
// (logging/setLevel; on 2026-07-28, the level every later request of the
// session carries), and from then on prints the messages on stderr, which
// matters in the shell.
func runLogLevel(ctx context.Context, inv *invocation, cs *mcp.ClientSession) error {
	level, err := parseLevel(inv.pos[0])
	if err != nil {
		return err
	}
	if cs.ServerCapabilities().Logging == nil {
		return fmt.Errorf("log-level: the server has no logging capability")
	}
	if err := cs.SetLoggingLevel(ctx, level); err != nil {
		return err
	}
	if inv.showLogs != nil {
		inv.showLogs.Store(true)
	}
	if inv.json {
		return inv.printJSON(map[string]any{"level": level})
	}
	_, err = fmt.Fprintf(inv.stdout, "log level %s\n", level)
	return err
}

// runSchema runs mcp schema TOOL: one tool in full, its schemas
// indented.
func runSchema(ctx context.Context, inv *invocation, cs *mcp.ClientSession) error {
	tool, err := findTool(ctx, cs, inv.pos[0])
	if err != nil {
		return err
	}
	if tool == nil {
		return fmt.Errorf("schema: the server has no tool %q", inv.pos[0])
	}
	if inv.json {
		return inv.printJSON(tool)
	}
	head := tool.Name
	if tool.Title != "" {
		head += " (" + tool.Title + ")"
	}
	fmt.Fprintln(inv.stdout, head)
	if tool.Description != "" {
		fmt.Fprintf(inv.stdout, "\n%s\n", strings.TrimSpace(tool.Description))
	}
	for _, part := range []struct {
		name string
		v    any
		on   bool
	}{
		{"input schema", tool.InputSchema, tool.InputSchema != nil},
		{"output schema", tool.OutputSchema, tool.OutputSchema != nil},
		{"annotations", tool.Annotations, tool.Annotations != nil},
		{"execution", tool.Execution, tool.Execution != nil},
	} {
		if !part.on {
			continue
		}
		b, err := json.MarshalIndent(part.v, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(inv.stdout, "\n%s:\n%s\n", part.name, b)
	}
	return nil
}
