package cli

import (
	"context"
	"strings"
	"testing"
)

// TestSchema: mcp schema shows one tool, over every way the task tests
// reach the everything server.
func TestSchema(t *testing.T) {
	for _, w := range taskWays(t) {
		t.Run(w.name, func(t *testing.T) {
			v := runJSON(t, append([]string{"schema", "--json", "test_tool_with_task"}, w.target...)...)
			wantField(t, v, "test_tool_with_task", "name")
			wantField(t, v, "object", "inputSchema", "type")
			code, out, errs := mcpRun(t, context.Background(), append([]string{"schema", "slow_compute"}, w.target...)...)
			if code != ExitOK || !strings.HasPrefix(out, "slow_compute\n\nSleeps for seconds") || !strings.Contains(out, "\ninput schema:\n{\n") || !strings.Contains(out, `"seconds": {`) {
				t.Errorf("schema slow_compute: exit %d, stdout %q, stderr %q", code, out, errs)
			}
			code, _, errs = mcpRun(t, context.Background(), append([]string{"schema", "no_such_tool"}, w.target...)...)
			if code != ExitProtocol || !strings.Contains(errs, `no tool "no_such_tool"`) {
				t.Errorf("schema no_such_tool: exit %d, stderr %q", code, errs)
			}
		})
	}
}

// TestLogLevel: log-level sets the level (and checks it), --log-level
// prints the messages from that level up, and in the shell log-level
// turns the printing on.
func TestLogLevel(t *testing.T) {
	for _, w := range taskWays(t) {
		t.Run(w.name, func(t *testing.T) {
			wantField(t, runJSON(t, append([]string{"log-level", "--json", "debug"}, w.target...)...), "debug", "level")
			code, _, errs := mcpRun(t, context.Background(), append([]string{"log-level", "loud"}, w.target...)...)
			if code != ExitUsage || !strings.Contains(errs, "want one of debug") {
				t.Errorf("log-level loud: exit %d, stderr %q", code, errs)
			}
			code, _, errs = mcpRun(t, context.Background(), append([]string{"--log-level", "info", "call", "test_tool_with_logging"}, w.target...)...)
			if code != ExitOK || !strings.Contains(errs, "[info] everything: Tool execution started\n") {
				t.Errorf("--log-level info: exit %d, stderr %q", code, errs)
			}
			code, _, errs = mcpRun(t, context.Background(), append([]string{"--log-level", "error", "call", "test_tool_with_logging"}, w.target...)...)
			if code != ExitOK || strings.Contains(errs, "[info]") {
				t.Errorf("--log-level error: exit %d, stderr %q", code, errs)
			}
			script := "call test_tool_with_logging\nlog-level info\ncall test_tool_with_logging\n"
			code, out, errs := mcpRunInput(t, context.Background(), script, append([]string{"shell"}, w.target...)...)
			if code != ExitOK || strings.Count(errs, "[info] everything: Tool execution started\n") != 1 || !strings.Contains(out, "log level info\n") {
				t.Errorf("shell: exit %d, stdout %q, stderr %q", code, out, errs)
			}
		})
	}
}
