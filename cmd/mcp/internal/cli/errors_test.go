package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestJSONErrorEnvelope: under --json a failure still writes one JSON
// document on stdout, with the exit status and the server's error code.
func TestJSONErrorEnvelope(t *testing.T) {
	url := everythingURL(t)
	type envelope struct {
		Error struct {
			Message  string          `json:"message"`
			ExitCode int             `json:"exitCode"`
			Code     *int64          `json:"code"`
			Data     json.RawMessage `json:"data"`
		} `json:"error"`
	}
	decode := func(out string) envelope {
		t.Helper()
		var e envelope
		if err := json.Unmarshal([]byte(out), &e); err != nil {
			t.Fatalf("stdout is not one JSON document: %v\n%s", err, out)
		}
		return e
	}
	code, out, errs := mcpRun(t, context.Background(), "get", "--json", "no_such_prompt", url)
	e := decode(out)
	if code != ExitProtocol || e.Error.ExitCode != ExitProtocol || e.Error.Code == nil || !strings.Contains(e.Error.Message, "server error") || !strings.Contains(errs, e.Error.Message) {
		t.Errorf("server error: exit %d, %+v, stderr %q", code, e, errs)
	}
	code, out, _ = mcpRun(t, context.Background(), "call", "--json", "--protocol-version", "1999-01-01", "x", url)
	if e := decode(out); code != ExitUsage || e.Error.ExitCode != ExitUsage || e.Error.Code != nil {
		t.Errorf("usage error: exit %d, %+v", code, e)
	}
	// A tool error is a result, printed as such.
	v := runJSONCode(t, ExitToolError, "call", "--json", "test_error_handling", url)
	if v["isError"] != true {
		t.Errorf("tool error: %v", v)
	}
	// Without --json, stdout stays empty.
	if code, out, _ := mcpRun(t, context.Background(), "get", "no_such_prompt", url); code != ExitProtocol || out != "" {
		t.Errorf("without --json: exit %d, stdout %q", code, out)
	}
	// A line of the shell too.
	code, out, _ = mcpRunInput(t, context.Background(), "get --json no_such_prompt\n", "shell", url)
	if e := decode(out); code != ExitOK || e.Error.ExitCode != ExitProtocol {
		t.Errorf("shell: exit %d, %+v", code, e)
	}
}

// runJSONCode runs args, expects exit status want, and decodes stdout.
func runJSONCode(t *testing.T, want int, args ...string) map[string]any {
	t.Helper()
	code, out, errs := mcpRun(t, context.Background(), args...)
	if code != want {
		t.Fatalf("mcp %q: exit %d, want %d; stderr %q", args, code, want, errs)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("mcp %q: stdout is not one JSON object: %v\n%s", args, err, out)
	}
	return v
}

// TestShellExitOnError: with --exit-on-error a piped script stops at the
// first failing line, with that line's exit status; without it, it goes on.
func TestShellExitOnError(t *testing.T) {
	url := everythingURL(t)
	cases := []struct {
		script string
		code   int
	}{
		{"ping\nget no_such_prompt\nping --json\n", ExitProtocol},
		{"ping\ncall test_error_handling\nping --json\n", ExitToolError},
		{"ping\nbogus\nping --json\n", ExitUsage},
		{"ping\nroots add /no/such/dir\nping --json\n", ExitUsage},
		{"ping\nget 'unclosed\nping --json\n", ExitUsage},
	}
	for _, c := range cases {
		code, out, errs := mcpRunInput(t, context.Background(), c.script, "shell", "--exit-on-error", url)
		if code != c.code || strings.Count(out, "ok (") != 1 || strings.Contains(out, `"ok": true`) {
			t.Errorf("%q: exit %d, want %d; stdout %q, stderr %q", c.script, code, c.code, out, errs)
		}
		code, out, _ = mcpRunInput(t, context.Background(), c.script, "shell", url)
		if code != ExitOK || !strings.Contains(out, `"ok": true`) {
			t.Errorf("%q without --exit-on-error: exit %d, stdout %q", c.script, code, out)
		}
	}
}
