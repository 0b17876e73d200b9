//go:build interop

package cli

import (
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/conformance/everything"
)

// The tests in this file need the tools scripts/tools.sh installs: Node 22,
// the TypeScript SDK and its reference server (scripts/test.sh runs them
// in its interop stage).

// requireEnv returns the named environment variable, failing the test when
// it is unset: an interop run without its tools must not pass silently.
func requireEnv(t *testing.T, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		t.Fatalf("$%s is not set: source scripts/tools.sh first", name)
	}
	return v
}

// tsClient runs interop/ts/client.mjs, the official TypeScript SDK client
// going through every feature of the everything server, against target.
func tsClient(t *testing.T, target string) {
	t.Helper()
	node := requireEnv(t, "NODE22")
	requireEnv(t, "MCP_TS_SDK_DIR")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	script := filepath.Join("..", "..", "..", "..", "interop", "ts", "client.mjs")
	cmd := exec.CommandContext(ctx, node, script, target, everything.JSONSchema202012)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "checks ok") {
		t.Fatalf("TypeScript SDK client through mcp proxy: %v\n%s", err, out)
	}
}

// TestProxyHTTPTypeScriptClient: the TypeScript client over Streamable
// HTTP, mcp proxy --http, the everything server over stdio.
func TestProxyHTTPTypeScriptClient(t *testing.T) {
	tsClient(t, startHTTPProxy(t, everythingBin))
}

// TestProxyStdioTypeScriptClient: the TypeScript client over stdio, mcp
// proxy, the everything server over Streamable HTTP.
func TestProxyStdioTypeScriptClient(t *testing.T) {
	dir := t.TempDir()
	mcpBin := filepath.Join(dir, "mcp")
	if out, err := exec.Command("go", "build", "-o", mcpBin, "github.com/gomcp/sdk/cmd/mcp").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// The client starts its server as a command without arguments.
	wrapper := filepath.Join(dir, "proxy.sh")
	script := "#!/bin/sh\nexec " + mcpBin + " proxy " + everythingURL(t) + "\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	tsClient(t, wrapper)
}

// TestTypeScriptServer runs the commands against the TypeScript reference
// server, @modelcontextprotocol/server-everything, over stdio.
func TestTypeScriptServer(t *testing.T) {
	server := requireEnv(t, "SERVER_EVERYTHING")
	target := []string{server, "stdio"}
	run := func(args ...string) map[string]any {
		t.Helper()
		return runJSON(t, append(args, target...)...)
	}

	tools := field(t, run("tools", "--json"), "tools").([]any)
	names := map[string]bool{}
	for _, tool := range tools {
		names[tool.(map[string]any)["name"].(string)] = true
	}
	for _, want := range []string{"echo", "get-sum", "get-tiny-image"} {
		if !names[want] {
			t.Errorf("tools --json lacks %s: %v", want, names)
		}
	}

	// KEY=VALUE typed from the input schema: a and b are numbers.
	wantField(t, run("call", "--json", "get-sum", "a=2", "b=3.5"), "The sum of 2 and 3.5 is 5.5.", "content", 0, "text")
	wantField(t, run("call", "--json", "echo", "message=hi there"), "Echo: hi there", "content", 0, "text")
	code, out, errs := mcpRun(t, context.Background(), append([]string{"call", "echo", "message=plain"}, target...)...)
	if code != ExitOK || strings.TrimSpace(out) != "Echo: plain" {
		t.Errorf("call echo: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	img := run("call", "--json", "get-tiny-image")
	var sawImage bool
	for _, c := range field(t, img, "content").([]any) {
		sawImage = sawImage || c.(map[string]any)["type"] == "image"
	}
	if !sawImage {
		t.Errorf("get-tiny-image: no image content: %v", img)
	}

	text := field(t, run("read", "--json", "demo://resource/dynamic/text/5"), "contents", 0, "text").(string)
	if !strings.HasPrefix(text, "Resource 5: ") {
		t.Errorf("read: %q", text)
	}
	wantField(t, run("get", "--json", "args-prompt", "city=Austin", "state=TX"), "What's weather in Austin, TX?", "messages", 0, "content", "text")
	wantField(t, run("get", "--json", "simple-prompt"), "user", "messages", 0, "role")

	// A tool that must run as a task (2025-11-25 tasks): its status
	// messages are the progress, and its question (ambiguous=true) is
	// asked through tasks/result and answered from stdin.
	code, out, errs = mcpRun(t, context.Background(), append([]string{"call", "simulate-research-query", "topic=gophers"}, target...)...)
	if code != ExitOK || !strings.HasPrefix(out, "# Research Report: gophers\n") ||
		!regexp.MustCompile(`(?m)^task \S+: working - Gathering sources\.\.\.\n(.*\n)*task \S+: completed`).MatchString(errs) {
		t.Errorf("call simulate-research-query: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, errs = mcpRunInput(t, context.Background(), "Historical perspective\ny\n",
		append([]string{"call", "--no-input=false", "simulate-research-query", "topic=gophers", "ambiguous=true"}, target...)...)
	if code != ExitOK || !strings.HasPrefix(out, "# Research Report: gophers (historical)\n") ||
		!strings.Contains(errs, "Which interpretation of the topic do you mean?") {
		t.Errorf("call simulate-research-query ambiguous=true: exit %d, stdout %q, stderr %q", code, out, errs)
	}

	// complete with a target of two words, the value given or not.
	wantField(t, run("complete", "completable-prompt", "department=Eng", "--json"), "Engineering", "completion", "values", 0)
	if vals := field(t, run("complete", "--json", "completable-prompt", "department"), "completion", "values").([]any); len(vals) < 2 {
		t.Errorf("complete from nothing: %v", vals)
	}
}

// TestFilesystemServer runs the commands against the reference file
// server, @modelcontextprotocol/server-filesystem (stdio only), allowed one
// temporary directory: mcp declares no roots, so the server keeps its
// command-line directory; then given only roots (--root).
func TestFilesystemServer(t *testing.T) {
	t.Parallel()
	server := requireEnv(t, "SERVER_FILESYSTEM")
	dir, err := filepath.EvalSymlinks(t.TempDir()) // the server resolves links
	if err != nil {
		t.Fatal(err)
	}
	target := []string{server, dir}
	run := func(args ...string) map[string]any {
		t.Helper()
		return runJSON(t, append(args, target...)...)
	}

	info := run("info", "--json")
	wantField(t, info, "secure-filesystem-server", "serverInfo", "name")
	wantField(t, info, "2025-11-25", "protocolVersion")
	tools := field(t, run("tools", "--json"), "tools").([]any)
	if len(tools) != 14 {
		t.Errorf("tools --json: %d tools, want 14", len(tools))
	}

	notes := filepath.Join(dir, "notes.txt")
	wantField(t, run("call", "--json", "write_file", "path="+notes, "content=hello, filesystem"),
		"Successfully wrote to "+notes, "structuredContent", "content")
	if b, err := os.ReadFile(notes); err != nil || string(b) != "hello, filesystem" {
		t.Errorf("the file holds %q, %v", b, err)
	}
	wantField(t, run("call", "--json", "read_text_file", "path="+notes), "hello, filesystem", "content", 0, "text")
	// head is typed from the input schema: a number.
	wantField(t, run("call", "--json", "read_text_file", "path="+notes, "head=1"), "hello, filesystem", "content", 0, "text")
	wantField(t, run("call", "--json", "list_directory", "path="+dir), "[FILE] notes.txt", "content", 0, "text")
	wantField(t, run("call", "--json", "list_allowed_directories"), "Allowed directories:\n"+dir, "content", 0, "text")
	code, out, errs := mcpRun(t, context.Background(), append([]string{"call", "read_text_file", "path=" + notes}, target...)...)
	// The text, then the structured content the tool also returned.
	if code != ExitOK || !strings.HasPrefix(out, "hello, filesystem\nstructuredContent:\n") {
		t.Errorf("call read_text_file: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// Roots instead of directories on the command line: the server waits
	// for them, and mcp gives it the time to ask.
	rootsDir := t.TempDir()
	rootsDir, err = filepath.EvalSymlinks(rootsDir)
	if err != nil {
		t.Fatal(err)
	}
	wantField(t, runJSON(t, "--root", rootsDir, "call", "--json", "list_allowed_directories", server),
		"Allowed directories:\n"+rootsDir, "content", 0, "text")
	// A path outside the allowed directory: the tool's error result.
	code, out, errs = mcpRun(t, context.Background(), append([]string{"call", "read_text_file", "path=/etc/hostname"}, target...)...)
	if code == ExitOK || !strings.Contains(out+errs, "Access denied") {
		t.Errorf("call outside the allowed directory: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestProxyTypeScriptHTTPServer: mcp tools, through mcp proxy on stdio,
// reaches the TypeScript reference server over Streamable HTTP
// (server-everything streamableHttp, a 2025-era server that refuses the
// 2026-07-28 server/discover probe): the proxy passes the refusal back and
// the client falls back to initialize (issue 31, bug 1).
func TestProxyTypeScriptHTTPServer(t *testing.T) {
	server := requireEnv(t, "SERVER_EVERYTHING")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	seen := make(chan struct{})
	stderr := &lockedBuffer{want: "listening on port " + port, seen: seen}
	cmd := exec.Command(server, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+port)
	cmd.Stdout, cmd.Stderr = io.Discard, stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}()
	logs := stderr.String
	select {
	case <-seen:
	case err := <-exited:
		exited <- err
		t.Fatalf("server-everything exited: %v\n%s", err, logs())
	case <-time.After(60 * time.Second):
		t.Fatalf("server-everything did not listen in time:\n%s", logs())
	}
	url := "http://127.0.0.1:" + port + "/mcp"
	v := runJSON(t, "info", "--json", "-e", "MCP_CLI_TEST_SERVER=mcp", os.Args[0], "proxy", url)
	wantField(t, v, "2025-11-25", "protocolVersion")
	names := map[string]bool{}
	for _, tool := range field(t, runJSON(t, "tools", "--json", "-e", "MCP_CLI_TEST_SERVER=mcp", os.Args[0], "proxy", url), "tools").([]any) {
		names[tool.(map[string]any)["name"].(string)] = true
	}
	if !names["echo"] {
		t.Errorf("tools through the proxy lack echo: %v", names)
	}
}
