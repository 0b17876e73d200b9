package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomcp/sdk/conformance/everything"
	"github.com/gomcp/sdk/gateway"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
	"github.com/gomcp/sdk/transport/mcphttp"
	"go.uber.org/goleak"
)

// everythingBin is the everything-server binary, built once by TestMain.
var everythingBin string

func TestMain(m *testing.M) {
	switch os.Getenv("MCP_CLI_TEST_SERVER") {
	case "block":
		serveBlockingTool()
		return
	case "progress":
		serveProgressTool()
		return
	case "chatter":
		serveChatter()
		return
	case "crash":
		serveCrash()
		return
	case "progresslog":
		serveProgressLog()
		return
	case "mcp":
		// The test binary as the mcp command itself (for mcp proxy as
		// a stdio target).
		os.Exit(Run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	dir, err := os.MkdirTemp("", "mcp-cli-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	everythingBin = filepath.Join(dir, "everything-server")
	out, err := exec.Command("go", "build", "-o", everythingBin, "github.com/gomcp/sdk/conformance/everything-server").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building everything-server: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	if code == 0 {
		// Sessions, subprocess reapers, stderr copiers, proxy and
		// inspector streams must all have ended.
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// serveBlockingTool serves, on stdio, a tool that writes "started" on
// stderr, waits to be cancelled, then writes why.
func serveBlockingTool() {
	s := mcp.NewServer(&mcp.Implementation{Name: "blocking", Version: "1"}, nil)
	err := mcp.AddTool(s, &mcp.Tool{Name: "block"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (string, error) {
		fmt.Fprintln(os.Stderr, "started")
		<-ctx.Done()
		fmt.Fprintln(os.Stderr, "cause:", context.Cause(ctx))
		return "", ctx.Err()
	})
	serveStdio(s, err)
}

// serveChatter serves, on stdio, a tool that writes "chatting" on stderr
// and from then on sends a log message every 50ms, between requests too.
func serveChatter() {
	s := mcp.NewServer(&mcp.Implementation{Name: "chatter", Version: "1"}, nil)
	err := mcp.AddTool(s, &mcp.Tool{Name: "chat"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
		ss, ok := req.Session()
		if !ok {
			return "", errors.New("chat needs a session (a 2025 revision)")
		}
		go func() {
			for {
				time.Sleep(50 * time.Millisecond)
				err := ss.Notify(context.Background(), mcp.NotificationMessage,
					&mcp.LoggingMessageNotificationParams{Level: mcp.LevelInfo, Logger: "chat", Data: json.RawMessage(`"tick"`)})
				if err != nil {
					return
				}
			}
		}()
		fmt.Fprintln(os.Stderr, "chatting")
		return "chatting", nil
	})
	serveStdio(s, err)
}

// serveStdio serves s on stdio, the end of a MCP_CLI_TEST_SERVER
// server, unless err (its registrations') is set: then, or if serving
// fails, it exits 1.
func serveStdio(s *mcp.Server, err error) {
	if err == nil {
		err = s.Run(context.Background(), transport.Stdio())
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// serveProgressTool serves, on stdio, a tool that waits delay_ms, reports
// progress, then waits as long again before answering.
func serveProgressTool() {
	s := mcp.NewServer(&mcp.Implementation{Name: "progress", Version: "1"}, nil)
	type in struct {
		DelayMS int `json:"delay_ms"`
	}
	err := mcp.AddTool(s, &mcp.Tool{Name: "tick"}, func(ctx context.Context, req *mcp.CallToolRequest, args in) (string, error) {
		time.Sleep(time.Duration(args.DelayMS) * time.Millisecond)
		if err := req.NotifyProgress(ctx, 1, 2, "half"); err != nil {
			return "", err
		}
		time.Sleep(time.Duration(args.DelayMS) * time.Millisecond)
		return "done", nil
	})
	serveStdio(s, err)
}

// serveHTTP serves s over Streamable HTTP for the test, wrapped by wrap if
// not nil, and returns the endpoint's URL.
func serveHTTP(t *testing.T, s *mcp.Server, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	var h http.Handler = mcphttp.NewHandler(s, nil)
	if wrap != nil {
		h = wrap(h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL
}

// everythingURL serves a fresh everything server over HTTP.
func everythingURL(t *testing.T) string {
	t.Helper()
	s, err := everything.NewServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	return serveHTTP(t, s, nil)
}

// mcpRun runs the command line args in process, with nothing on stdin.
func mcpRun(t *testing.T, ctx context.Context, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return mcpRunInput(t, ctx, "", args...)
}

// mcpRunInput runs the command line args in process with input on stdin.
func mcpRunInput(t *testing.T, ctx context.Context, input string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(ctx, args, strings.NewReader(input), &out, &errb)
	return code, out.String(), errb.String()
}

// mcpServe runs the command line args (a command serving HTTP on
// 127.0.0.1:0) in process and returns the URL of its first line
// ("listening on URL"), and a function that stops it as SIGTERM does and
// waits for it to exit 0; the test's end does that too.
func mcpServe(t *testing.T, args ...string) (string, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	stderr := &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		code := Run(ctx, args, strings.NewReader(""), pw, stderr)
		pw.Close()
		done <- code
	}()
	stop := sync.OnceFunc(func() {
		cancel()
		if code := <-done; code != ExitOK {
			t.Errorf("mcp %q: exit %d, stderr %q", args, code, stderr.String())
		}
	})
	t.Cleanup(stop)
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("mcp %q: %v, stderr %q", args, err, stderr.String())
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok {
		t.Fatalf("mcp %q: first line %q", args, line)
	}
	return url, stop
}

// runJSON runs args, expects success, and decodes stdout.
func runJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	code, out, errs := mcpRun(t, context.Background(), args...)
	if code != ExitOK {
		t.Fatalf("mcp %q: exit %d, stderr %q", args, code, errs)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("mcp %q: stdout is not one JSON object: %v\n%s", args, err, out)
	}
	return v
}

// field walks v along path: strings index objects, ints arrays.
func field(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch p := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("at %q: not an object: %v", p, v)
			}
			v = m[p]
		case int:
			a, ok := v.([]any)
			if !ok || p >= len(a) {
				t.Fatalf("at [%d]: not an array that long: %v", p, v)
			}
			v = a[p]
		}
	}
	return v
}

func wantField(t *testing.T, v any, want any, path ...any) {
	t.Helper()
	if got := field(t, v, path...); !reflect.DeepEqual(got, want) {
		t.Errorf("%v = %#v, want %#v", path, got, want)
	}
}

// TestJSONSameEveryWay: --json gives the same answers over stdio, over
// Streamable HTTP and through either proxy.
func TestJSONSameEveryWay(t *testing.T) {
	url := everythingURL(t)
	cases := []struct {
		args  []string
		check func(t *testing.T, v map[string]any)
	}{
		{[]string{"tools", "--json"}, func(t *testing.T, v map[string]any) {
			wantField(t, v, "test_simple_text", "tools", 0, "name")
			wantField(t, v, "Returns a simple text response", "tools", 0, "description")
			wantField(t, v, "object", "tools", 0, "inputSchema", "type")
			if n := len(field(t, v, "tools").([]any)); n < 10 {
				t.Errorf("%d tools, want every one of the everything server's", n)
			}
		}},
		{[]string{"resources", "--json"}, func(t *testing.T, v map[string]any) {
			wantField(t, v, "test://static-text", "resources", 0, "uri")
			wantField(t, v, "static-text", "resources", 0, "name")
			wantField(t, v, "text/plain", "resources", 0, "mimeType")
		}},
		{[]string{"templates", "--json"}, func(t *testing.T, v map[string]any) {
			wantField(t, v, "test://template/{id}/data", "resourceTemplates", 0, "uriTemplate")
			wantField(t, v, "template-data", "resourceTemplates", 0, "name")
		}},
		{[]string{"prompts", "--json"}, func(t *testing.T, v map[string]any) {
			var p any
			for _, x := range field(t, v, "prompts").([]any) {
				if field(t, x, "name") == "test_prompt_with_arguments" {
					p = x
				}
			}
			wantField(t, p, "A prompt with two required arguments", "description")
			wantField(t, p, "arg1", "arguments", 0, "name")
			wantField(t, p, true, "arguments", 0, "required")
		}},
		{[]string{"call", "test_simple_text", "--json"}, func(t *testing.T, v map[string]any) {
			wantField(t, v, "text", "content", 0, "type")
			wantField(t, v, "This is a simple text response for testing.", "content", 0, "text")
			wantField(t, v, nil, "isError")
		}},
		{[]string{"call", "--json", "test_embedded_resource"}, func(t *testing.T, v map[string]any) {
			wantField(t, v, "resource", "content", 0, "type")
			wantField(t, v, "test://embedded-resource", "content", 0, "resource", "uri")
			wantField(t, v, "This is an embedded resource content.", "content", 0, "resource", "text")
		}},
		{[]string{"read", "test://template/42/data", "--json"}, func(t *testing.T, v map[string]any) {
			wantField(t, v, "test://template/42/data", "contents", 0, "uri")
			wantField(t, v, "application/json", "contents", 0, "mimeType")
			var body map[string]any
			if err := json.Unmarshal([]byte(field(t, v, "contents", 0, "text").(string)), &body); err != nil {
				t.Fatal(err)
			}
			wantField(t, body, "42", "id")
		}},
		{[]string{"read", "--json", "test://static-binary"}, func(t *testing.T, v map[string]any) {
			wantField(t, v, "image/png", "contents", 0, "mimeType")
			if b, _ := field(t, v, "contents", 0, "blob").(string); b == "" {
				t.Error("no blob")
			}
		}},
		{[]string{"get", "test_prompt_with_arguments", "arg1=one", "--args", `{"arg2":"two"}`, "--json"}, func(t *testing.T, v map[string]any) {
			wantField(t, v, "user", "messages", 0, "role")
			wantField(t, v, "text", "messages", 0, "content", "type")
			wantField(t, v, "Prompt with arguments: arg1='one', arg2='two'", "messages", 0, "content", "text")
		}},
		{[]string{"complete", "test_prompt_with_arguments", "arg1=x", "--json"}, func(t *testing.T, v map[string]any) {
			wantField(t, v, "x-completed", "completion", "values", 0)
		}},
	}
	// The same everything server reached four ways: over stdio, over
	// Streamable HTTP, through mcp proxy --http (a stdio target behind it)
	// and through mcp proxy on stdio (an HTTP target behind it). Nothing
	// is normalised: the answers must be identical.
	ways := []struct {
		name   string
		target []string
	}{
		{"stdio", []string{everythingBin}},
		{"http", []string{url}},
		{"proxy --http", []string{startHTTPProxy(t, everythingBin)}},
		{"proxy --stdio", []string{"env", "MCP_CLI_TEST_SERVER=mcp", os.Args[0], "proxy", everythingURL(t)}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var first map[string]any
			for i, w := range ways {
				got := runJSON(t, append(c.args[:len(c.args):len(c.args)], w.target...)...)
				if i == 0 {
					c.check(t, got)
					first = got
				} else if !reflect.DeepEqual(got, first) {
					t.Errorf("%s:\n%v\n%s:\n%v", w.name, got, ways[0].name, first)
				}
			}
		})
	}
}

func TestInfo(t *testing.T) {
	url := everythingURL(t)
	for _, target := range [][]string{{url}, {everythingBin}} {
		v := runJSON(t, append([]string{"info", "--json"}, target...)...)
		wantField(t, v, mcp.LatestVersion, "protocolVersion")
		wantField(t, v, true, "stateless")
		wantField(t, v, "gomcp-everything-server", "serverInfo", "name")
		wantField(t, v, "1.0.0", "serverInfo", "version")
		wantField(t, v, "The gomcp conformance fixture server.", "instructions")
		if _, ok := field(t, v, "capabilities", "tools").(map[string]any); !ok {
			t.Errorf("capabilities.tools missing: %v", v)
		}

		v = runJSON(t, append([]string{"info", "--json", "--protocol-version", "2025-06-18"}, target...)...)
		wantField(t, v, "2025-06-18", "protocolVersion")
		wantField(t, v, false, "stateless")
	}
	code, out, _ := mcpRun(t, context.Background(), "info", url)
	if code != 0 || !strings.Contains(out, "gomcp-everything-server 1.0.0") || !strings.Contains(out, "capabilities:") {
		t.Errorf("info: exit %d, stdout:\n%s", code, out)
	}
}

func TestExitCodes(t *testing.T) {
	url := everythingURL(t)
	unauthorized := serveHTTP(t, mcp.NewServer(&mcp.Implementation{Name: "x", Version: "1"}, nil), func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer secret" {
				http.Error(w, "who are you?", http.StatusUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	missing := filepath.Join(t.TempDir(), "no-such-server")
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	body := fmt.Sprintf(`{"mcpServers":{"wrong":{"url":%q,"headers":{"Authorization":"Bearer wrong"}}}}`, unauthorized)
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want int
	}{
		{[]string{"ping", url}, ExitOK},
		{[]string{"ping", everythingBin}, ExitOK},
		{[]string{"call", "test_error_handling", url}, ExitToolError},
		{[]string{"call", "test_error_handling", "--json", everythingBin}, ExitToolError},
		{[]string{}, ExitUsage},
		{[]string{"frobnicate", url}, ExitUsage},
		{[]string{"tools"}, ExitUsage},
		{[]string{"call", url}, ExitUsage},
		{[]string{"tools", "--no-such-flag", url}, ExitUsage},
		{[]string{"tools", "--protocol-version", "1999-01-01", url}, ExitUsage},
		{[]string{"call", "test_simple_text", "--args", "[1]", url}, ExitUsage},
		{[]string{"tools", "-H", "no colon", url}, ExitUsage},
		{[]string{"tools", "-H", "A: b", everythingBin}, ExitUsage},
		{[]string{"tools", "-e", "A=b", url}, ExitUsage},
		{[]string{"tools", "-e", "novalue", everythingBin}, ExitUsage},
		{[]string{"tools", "@nobody", "--config", filepath.Join(t.TempDir(), "none.json")}, ExitUsage},
		{[]string{"ping", "http://127.0.0.1:1/mcp"}, ExitConnect},
		{[]string{"ping", missing}, ExitConnect},
		{[]string{"ping", unauthorized}, ExitAuth},
		{[]string{"ping", "-H", "Authorization: Bearer secret", unauthorized}, ExitOK},
		{[]string{"ping", unauthorized, "-H", "Authorization: Bearer secret", "--json"}, ExitOK},
		{[]string{"ping", url, "extra"}, ExitUsage},
		{[]string{"ping", "--config", cfg, "@wrong"}, ExitAuth},
		{[]string{"ping", "--config", cfg, "@wrong", "-H", "authorization: Bearer secret"}, ExitOK},
		{[]string{"read", "test://no-such-resource", url}, ExitProtocol},
		{[]string{"get", "no_such_prompt", everythingBin}, ExitProtocol},
	}
	for _, c := range cases {
		code, out, errs := mcpRun(t, context.Background(), c.args...)
		if code != c.want {
			t.Errorf("mcp %q: exit %d, want %d; stdout %q stderr %q", c.args, code, c.want, out, errs)
		}
		if code > ExitToolError && (strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "mcp: ")) && len(c.args) > 0 {
			t.Errorf("mcp %q: stderr is not one line starting with \"mcp: \": %q", c.args, errs)
		}
	}
}

// typedServer has a tool that echoes its typed arguments, and one that
// waits to be cancelled.
func typedServer(t *testing.T, started chan<- struct{}, cancelled chan<- error) *mcp.Server {
	t.Helper()
	type in struct {
		N    int            `json:"n"`
		F    float64        `json:"f,omitempty"`
		B    bool           `json:"b,omitempty"`
		L    []string       `json:"l,omitempty"`
		O    map[string]int `json:"o,omitempty"`
		S    string         `json:"s,omitempty"`
		Path string         `json:"path,omitempty"`
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "typed", Version: "1"}, nil)
	if err := mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, x in) (in, error) {
		return x, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := mcp.AddTool(s, &mcp.Tool{Name: "block"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (string, error) {
		started <- struct{}{}
		<-ctx.Done()
		cancelled <- context.Cause(ctx)
		return "", ctx.Err()
	}); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCallTypedArguments(t *testing.T) {
	url := serveHTTP(t, typedServer(t, nil, nil), nil)
	v := runJSON(t, "call", "echo", "n=7", "f=2.5", "b=true", `l=["x","y"]`, `o={"k":1}`, "s=42", "path=a=b", "--json", url)
	want := map[string]any{"n": 7.0, "f": 2.5, "b": true, "l": []any{"x", "y"}, "o": map[string]any{"k": 1.0}, "s": "42", "path": "a=b"}
	wantField(t, v, want, "structuredContent")

	code, _, errs := mcpRun(t, context.Background(), "call", "echo", "n=seven", url)
	if code != ExitUsage || !strings.Contains(errs, "n:") {
		t.Errorf("n=seven: exit %d, stderr %q; want a usage error naming n", code, errs)
	}
}

func TestInterruptCancelsTheCall(t *testing.T) {
	started := make(chan struct{}, 1)
	cancelled := make(chan error, 1)
	for _, version := range []string{"", "2025-11-25"} {
		t.Run("version="+version, func(t *testing.T) {
			url := serveHTTP(t, typedServer(t, started, cancelled), nil)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan int, 1)
			var errb bytes.Buffer
			args := []string{"call", "block", url}
			if version != "" {
				args = append([]string{"call", "--protocol-version", version}, args[1:]...)
			}
			go func() { done <- Run(ctx, args, strings.NewReader(""), new(bytes.Buffer), &errb) }()
			<-started
			cancel()
			if code := <-done; code != ExitCancelled {
				t.Errorf("exit %d, want %d; stderr %q", code, ExitCancelled, errb.String())
			}
			err := <-cancelled
			if err == nil {
				t.Fatal("the tool's context did not end")
			}
		})
	}
}

func TestInterruptSendsCancelled(t *testing.T) {
	for _, version := range []string{"", "2025-11-25"} {
		t.Run("version="+version, func(t *testing.T) {
			seen := make(chan struct{})
			stderr := &lockedBuffer{want: "started\n", seen: seen}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan int, 1)
			args := []string{"call", "block", "-e", "MCP_CLI_TEST_SERVER=block", os.Args[0]}
			if version != "" {
				args = append([]string{"call", "--protocol-version", version}, args[1:]...)
			}
			go func() { done <- Run(ctx, args, strings.NewReader(""), io.Discard, stderr) }()
			<-seen
			cancel()
			if code := <-done; code != ExitCancelled {
				t.Errorf("exit %d, want %d", code, ExitCancelled)
			}
			// The child's stderr is all copied once Run has returned.
			if got := stderr.String(); !strings.Contains(got, "cause: jsonrpc: request cancelled by peer\n") {
				t.Errorf("the server did not see notifications/cancelled; stderr:\n%s", got)
			}
		})
	}
}

func TestNotifications(t *testing.T) {
	url := everythingURL(t)
	code, out, errs := mcpRun(t, context.Background(), "call", "test_tool_with_progress", url)
	if code != 0 || !strings.Contains(out, "Progress test completed") || !strings.Contains(errs, "progress 100/100 (100%)") {
		t.Errorf("progress: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// Every log message sent before the result is printed, the last one
	// included (it is handled before the result reaches the command).
	code, _, errs = mcpRun(t, context.Background(), "call", "-v", "test_tool_with_logging", everythingBin)
	if code != 0 || !strings.Contains(errs, "[info] everything: Tool execution started\n[info] everything: Tool processing data\n[info] everything: Tool execution completed\n") {
		t.Errorf("-v: exit %d, stderr %q", code, errs)
	}
	// Both lines, each time (the second was lost in 9 runs out of 10 when
	// a result could overtake the notifications before it).
	for range 5 {
		code, _, errs = mcpRun(t, context.Background(), "call", "-v", "test_logging_tool", everythingBin)
		if code != 0 || !strings.Contains(errs, "[info] everything: logging tool: info\n[debug] everything: logging tool: debug\n") {
			t.Fatalf("-v test_logging_tool: exit %d, stderr %q", code, errs)
		}
	}
	code, _, errs = mcpRun(t, context.Background(), "call", "test_tool_with_logging", everythingBin)
	if code != 0 || strings.Contains(errs, "[info]") {
		t.Errorf("without -v: exit %d, stderr %q", code, errs)
	}
	code, out, errs = mcpRun(t, context.Background(), "call", "test_elicitation", "message=who?", url)
	if code != 0 || !strings.Contains(out, "action: decline") || !strings.Contains(errs, "declined") {
		t.Errorf("elicitation: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestHumanOutput(t *testing.T) {
	url := everythingURL(t)
	dir := filepath.Join(t.TempDir(), "new", "dir") // --out makes it
	code, out, errs := mcpRun(t, context.Background(), "call", "test_multiple_content_types", "--out", dir, url)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{"Multiple content types test:\n", "[image image/png, ", "saved to " + filepath.Join(dir, "content-1.png"), "[resource test://mixed-content-resource application/json]\n{\"test\":\"data\",\"value\":123}\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "content-1.png")); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("saved image: %v, % x", err, b[:min(len(b), 8)])
	}
	// An --out that cannot be a directory fails the command.
	file := filepath.Join(dir, "content-1.png")
	code, out, errs = mcpRun(t, context.Background(), "call", "test_multiple_content_types", "--out", filepath.Join(file, "x"), url)
	if code != ExitUsage || !strings.Contains(out, "not saved]") || !strings.Contains(errs, "--out: ") {
		t.Errorf("--out under a file: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, _ = mcpRun(t, context.Background(), "tools", url)
	lines := strings.Split(out, "\n")
	if code != 0 || !strings.HasPrefix(lines[0], "NAME ") || !strings.HasPrefix(lines[1], "test_simple_text ") {
		t.Errorf("tools: exit %d:\n%s", code, out)
	}
	if col := strings.Index(lines[0], "DESCRIPTION"); col < 0 || strings.Index(lines[1], "Returns a simple text response") != col {
		t.Errorf("tools: columns not aligned:\n%s", out)
	}
}

func TestConfigTargets(t *testing.T) {
	url := everythingURL(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "servers.json")
	body := fmt.Sprintf(`{"mcpServers":{"local":{"command":%q,"env":{"X":"1"}}},"servers":{"web":{"type":"http","url":%q}}}`, everythingBin, url)
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	a := runJSON(t, "tools", "--json", "--config", cfg, "@local")
	relative := runJSON(t, "tools", "--json", "--cwd", filepath.Dir(everythingBin), "./"+filepath.Base(everythingBin))
	if !reflect.DeepEqual(a, relative) {
		t.Errorf("--cwd: %v", relative)
	}
	b := runJSON(t, "tools", "--json", "--config", cfg, "@web")
	if !reflect.DeepEqual(a, b) || len(field(t, a, "tools").([]any)) == 0 {
		t.Errorf("@local and @web differ or are empty:\n%v\n%v", a, b)
	}
}

func TestArgumentParsing(t *testing.T) {
	inv := &invocation{}
	err := inv.parse("call", 1, []string{"--json", "tool", "a=1", "--timeout", "3s", "b=x", "node", "server.js", "--port=3", "c=2"}, new(bool))
	if err != nil {
		t.Fatal(err)
	}
	if !inv.json || inv.timeout.Seconds() != 3 || inv.pos[0] != "tool" || !reflect.DeepEqual(inv.kvOrder, []string{"a", "b"}) ||
		!reflect.DeepEqual(inv.target, []string{"node", "server.js", "--port=3", "c=2"}) {
		t.Errorf("parsed %+v", inv)
	}
	inv = &invocation{}
	if err := inv.parse("tools", 0, []string{"--", "-weird-server", "-x"}, new(bool)); err != nil || !reflect.DeepEqual(inv.target, []string{"-weird-server", "-x"}) {
		t.Errorf("after --: target %q, %v", inv.target, err)
	}
	inv = &invocation{}
	if err := inv.parse("call", 1, []string{"t", "http://h/mcp?a=b"}, new(bool)); err != nil || len(inv.kv) != 0 || inv.target[0] != "http://h/mcp?a=b" {
		t.Errorf("URL with a query: kv %v target %q, %v", inv.kv, inv.target, err)
	}
}

// TestCompleteArguments: the value goes with its argument (ARG=VALUE), so
// that a command target's first word is never taken for it, and flags
// parse anywhere before the target.
func TestCompleteArguments(t *testing.T) {
	cases := []struct {
		args   []string
		pos    []string
		kv     map[string]string
		target []string
		json   bool
	}{
		{[]string{"completable-prompt", "department", "npx", "mcp-server-everything"},
			[]string{"completable-prompt", "department"}, nil, []string{"npx", "mcp-server-everything"}, false},
		{[]string{"p", "a=py", "--json", "CMD"}, []string{"p", "a=py"}, nil, []string{"CMD"}, true},
		{[]string{"--json", "p", "a=", "x=1", "--timeout", "1s", "node", "s.js", "--json"},
			[]string{"p", "a="}, map[string]string{"x": "1"}, []string{"node", "s.js", "--json"}, true},
		{[]string{"p", "a", "http://h/mcp", "--json"}, []string{"p", "a"}, nil, []string{"http://h/mcp"}, true},
	}
	for _, c := range cases {
		inv := &invocation{}
		if err := inv.parse("complete", 2, c.args, new(bool)); err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		if !reflect.DeepEqual(inv.pos, c.pos) || !reflect.DeepEqual(inv.kv, c.kv) || !reflect.DeepEqual(inv.target, c.target) || inv.json != c.json {
			t.Errorf("%q: pos %q kv %v target %q json %v", c.args, inv.pos, inv.kv, inv.target, inv.json)
		}
	}
	// The old form, with the value a word of its own, says what is wrong.
	code, _, errs := mcpRun(t, context.Background(), "complete", "test_prompt_with_arguments", "arg1", "no-such-value-xyz", "--json", everythingBin)
	if code != ExitConnect || !strings.Contains(errs, `ARG=VALUE: is "no-such-value-xyz" the value?`) {
		t.Errorf("the old form: exit %d, stderr %q", code, errs)
	}
	// End to end, with a command target of two words.
	v := runJSON(t, "complete", "test_prompt_with_arguments", "arg2", "--json", "env", "X=1", everythingBin)
	wantField(t, v, "-completed", "completion", "values", 0)
}

func TestHelp(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"help"}, ExitOK, "exit status: 0 success, 1 the tool returned isError"},
		{[]string{"--help"}, ExitOK, "TARGET names the server"},
		{[]string{"help", "call"}, ExitOK, `"structuredContent"`},
		{[]string{"help", "serve"}, ExitOK, "--http ADDR"},
		{[]string{"tools", "-h"}, ExitOK, `{"tools": [`},
		{[]string{"help", "nope"}, ExitUsage, ""},
	}
	for _, c := range cases {
		code, out, _ := mcpRun(t, context.Background(), c.args...)
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("mcp %q: exit %d, want %d; stdout lacks %q:\n%s", c.args, code, c.code, c.want, out)
		}
	}
	for name := range commands {
		if _, ok := commandHelp[name]; !ok {
			t.Errorf("no help for %s", name)
		}
	}
}

func TestTimeout(t *testing.T) {
	started := make(chan struct{}, 1)
	cancelled := make(chan error, 1)
	url := serveHTTP(t, typedServer(t, started, cancelled), nil)
	code, _, errs := mcpRun(t, context.Background(), "call", "--timeout", "300ms", "block", url)
	if code != ExitConnect || !strings.HasPrefix(errs, "mcp: timed out after 300ms") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	select {
	case <-started: // the usual case: the call was made, then timed out
		if err := <-cancelled; err == nil {
			t.Error("the tool's context did not end")
		}
	default: // a machine so slow that connecting took 300ms
	}
}

func TestAnswersFromStdin(t *testing.T) {
	url := everythingURL(t)
	cases := []struct {
		name, input string
		args        []string
		code        int
		want        string
	}{
		{"form", "\nada\nnot an email?\n\n", []string{"call", "test_elicitation", "message=who?"}, ExitOK,
			`User response: <action: accept, content: {"email":"not an email?","username":"ada"}>`},
		{"declined", "ada\nada@example.com\nn\n", []string{"call", "test_elicitation", "message=who?"}, ExitOK,
			"action: decline"},
		{"end of input cancels", "ada\n", []string{"call", "test_elicitation", "message=who?"}, ExitOK,
			"action: cancel"},
		{"defaults and types", "\nforty\n41\n\npending\nno\ny\n", []string{"call", "test_elicitation_sep1034_defaults"}, ExitOK,
			`content={"age":41,"name":"John Doe","score":95.5,"status":"pending","verified":false}`},
		{"sampling", "forty-two\n", []string{"call", "test_sampling", "prompt=meaning?"}, ExitOK,
			"LLM response: forty-two"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append(append([]string{}, c.args...), "--no-input=false", url)
			code, out, errs := mcpRunInput(t, context.Background(), c.input, args...)
			if code != c.code || !strings.Contains(out, c.want) {
				t.Errorf("exit %d, want %d; stdout %q lacks %q; stderr:\n%s", code, c.code, out, c.want, errs)
			}
		})
	}
	// Without --no-input=false, stdin (not a terminal) is never read.
	code, out, errs := mcpRunInput(t, context.Background(), "ada\nada@example.com\n\n", "call", "test_elicitation", "message=who?", url)
	if code != ExitOK || !strings.Contains(out, "action: decline") || !strings.Contains(errs, "declined under --no-input") {
		t.Errorf("not a terminal: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, _, errs = mcpRunInput(t, context.Background(), "", "call", "test_sampling", "prompt=meaning?", url)
	if code != ExitProtocol || !strings.Contains(errs, "refused under --no-input") {
		t.Errorf("sampling: exit %d, stderr %q", code, errs)
	}
}

// lockedBuffer collects what is written to it by any goroutine; String
// reads it. If seen is set, it is closed once the text contains want.
type lockedBuffer struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
}

func (w *lockedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if w.seen != nil && strings.Contains(w.buf.String(), w.want) {
		close(w.seen)
		w.seen = nil
	}
	return len(p), nil
}

func (w *lockedBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

func TestInterruptWhileAsking(t *testing.T) {
	url := everythingURL(t)
	stdin, never := io.Pipe() // no answer ever comes
	defer never.Close()
	seen := make(chan struct{})
	stderr := &lockedBuffer{want: "The server asks: who?", seen: seen}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"call", "--no-input=false", "test_elicitation", "message=who?", url}, stdin, io.Discard, stderr)
	}()
	<-seen
	cancel()
	if code := <-done; code != ExitCancelled {
		t.Errorf("exit %d, want %d", code, ExitCancelled)
	}
}

func TestLegacySSE(t *testing.T) {
	s, err := everything.NewServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(mcphttp.NewSSEHandler(s, nil))
	t.Cleanup(ts.Close)
	// Over HTTP+SSE the session speaks 2025-11-25, whose tools also say
	// whether they run as tasks (execution); 2026-07-28 has no such field.
	want := withoutExecution(runJSON(t, "tools", "--json", everythingURL(t)))
	// A URL falls back to HTTP+SSE when the server refuses Streamable HTTP.
	if got := withoutExecution(runJSON(t, "tools", "--json", ts.URL)); !reflect.DeepEqual(got, want) {
		t.Errorf("over HTTP+SSE:\n%v\nwant\n%v", got, want)
	}
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`{"servers":{"old":{"type":"sse","url":%q}}}`, ts.URL)), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := withoutExecution(runJSON(t, "tools", "--json", "--config", cfg, "@old")); !reflect.DeepEqual(got, want) {
		t.Errorf("@old (type sse):\n%v\nwant\n%v", got, want)
	}
}

// withoutExecution drops the 2025-11-25 execution member of every tool of a
// decoded tools listing.
func withoutExecution(v any) any {
	if m, ok := v.(map[string]any); ok {
		if tools, ok := m["tools"].([]any); ok {
			for _, tool := range tools {
				if tm, ok := tool.(map[string]any); ok {
					delete(tm, "execution")
				}
			}
		}
	}
	return v
}

func TestProxy(t *testing.T) {
	unauthorized := serveHTTP(t, typedServer(t, nil, nil), func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer secret" {
				http.Error(w, "who are you?", http.StatusUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	cases := []struct {
		name        string
		target      []string
		version     string
		wantVersion string
		tool, args  string
		want        string
	}{
		// Both eras pass: the stateless revision with its headers.
		{"http", []string{unauthorized, "-H", "Authorization: Bearer secret"}, "", mcp.LatestVersion, "echo", `{"n":3,"s":"x"}`, `{"n":3,"s":"x"}`},
		{"http 2025-06-18", []string{"-H", "Authorization: Bearer secret", unauthorized}, "2025-06-18", "2025-06-18", "echo", `{"n":3}`, `{"n":3}`},
		{"stdio", []string{everythingBin}, "", mcp.LatestVersion, "test_simple_text", `{}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clientIn, proxyOut := io.Pipe()
			proxyIn, clientOut := io.Pipe()
			done := make(chan int, 1)
			var errb bytes.Buffer
			go func() {
				done <- Run(context.Background(), append([]string{"proxy"}, c.target...), proxyIn, proxyOut, &errb)
				proxyOut.Close()
			}()
			client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: c.version})
			cs, err := client.Connect(context.Background(), transport.NewLineStream(clientIn, clientOut, clientOut, nil))
			if err != nil {
				t.Fatal(err)
			}
			if cs.ProtocolVersion() != c.wantVersion {
				t.Errorf("revision %s, want %s", cs.ProtocolVersion(), c.wantVersion)
			}
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
			if err != nil || res.IsError || string(res.StructuredContent) != c.want {
				t.Errorf("%s through the proxy: %v, %v", c.tool, res, err)
			}
			cs.Close() // closes the proxy's stdin
			if code := <-done; code != ExitOK {
				t.Errorf("proxy exit %d; stderr %q", code, errb.String())
			}
		})
	}
	// A script pipes a request in: its answer comes out before the proxy
	// ends, for either era.
	for _, req := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"x","version":"1"}}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`,
	} {
		code, out, errs := mcpRunInput(t, context.Background(), req+"\n", "proxy", "--stdio", everythingURL(t))
		if code != ExitOK || !strings.Contains(out, `"id":1,"result":{`) || !strings.Contains(out, "gomcp-everything-server") {
			t.Errorf("piped %s: exit %d, stdout %q, stderr %q", req, code, out, errs)
		}
	}
	t.Run("refused", func(t *testing.T) {
		code, _, errs := mcpRunInput(t, context.Background(), `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`+"\n", "proxy", unauthorized)
		if code != ExitAuth {
			t.Errorf("exit %d, want %d; stderr %q", code, ExitAuth, errs)
		}
	})
}

func TestConfigVariables(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("MCP_CLI_TEST_TOKEN", "s3cret")
	if err := os.Mkdir(filepath.Join(dir, ".vscode"), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, ".vscode", "mcp.json")
	body := `{"servers":{"x":{"command":"${workspaceFolder}/bin/$HOME","args":["${env:MCP_CLI_TEST_TOKEN}","$$","${unclosed"],` +
		`"env":{"T":"Bearer ${env:MCP_CLI_TEST_TOKEN}"}},"y":{"url":"http://h/${input:pick}"}}}`
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	sc, err := lookupServer("x", cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := gateway.Upstream{Type: gateway.TransportStdio, Command: dir + "/bin/$HOME", Args: []string{"s3cret", "$$", "${unclosed"},
		Env: map[string]string{"T": "Bearer s3cret"}}
	if !reflect.DeepEqual(sc, want) {
		t.Errorf("expanded\n%+v\nwant\n%+v", sc, want)
	}
	if _, err := lookupServer("y", cfg); err == nil || !strings.Contains(err.Error(), `mcp.json: server "y": url: ${input:pick} needs a host`) {
		t.Errorf("${input:pick}: %v", err)
	}
	huge := filepath.Join(dir, "huge.json")
	if err := os.WriteFile(huge, []byte(body+strings.Repeat(" ", gateway.MaxConfigSize)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := lookupServer("x", huge); err == nil || !strings.Contains(err.Error(), "huge.json: larger than") {
		t.Errorf("a configuration file over the limit: %v", err)
	}
}

// TestConfigAsGateway: @NAME reads an entry as mcp gateway does, where the
// command read it differently before: VS Code's comments and trailing
// commas, Claude Code's ${VAR} and ${VAR:-default}, the spellings of type,
// Windsurf's serverUrl, an unset variable (an error, not an empty
// credential), an entry with both command and url.
func TestConfigAsGateway(t *testing.T) {
	t.Setenv("MCP_CLI_TEST_TOKEN", "s3cret")
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	body := `{
		// comments and trailing commas, as VS Code allows
		"mcpServers": {
			"claude": {"command": "srv", "args": ["${MCP_CLI_TEST_TOKEN}", "${MCP_CLI_TEST_UNSET:-dflt}"]},
			"sse": {"type": "SSE", "url": "http://h/sse"},
			"windsurf": {"serverUrl": "http://h/mcp"},
			"unset": {"url": "http://h/mcp", "headers": {"Authorization": "Bearer ${env:MCP_CLI_TEST_UNSET}"}},
			"both": {"command": "srv", "url": "http://h/mcp"},
		},
	}`
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if sc, err := lookupServer("claude", cfg); err != nil || !reflect.DeepEqual(sc.Args, []string{"s3cret", "dflt"}) {
		t.Errorf("claude: %+v, %v", sc, err)
	}
	if url, typ, err := targetEndpoint([]string{"@sse"}, cfg); url != "http://h/sse" || typ != "sse" || err != nil {
		t.Errorf("sse: %q %q %v", url, typ, err)
	}
	if url, typ, err := targetEndpoint([]string{"@windsurf"}, cfg); url != "http://h/mcp" || typ != "streamable-http" || err != nil {
		t.Errorf("windsurf: %q %q %v", url, typ, err)
	}
	for name, want := range map[string]string{"unset": "MCP_CLI_TEST_UNSET is not set", "both": "both command and url"} {
		if _, err := lookupServer(name, cfg); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
}

// TestRepositoryConfig: the mcp.json at the root of the repository is the
// one the README shows, so that @demo works from a fresh clone.
func TestRepositoryConfig(t *testing.T) {
	root := filepath.Join("..", "..", "..", "..")
	file, err := os.ReadFile(filepath.Join(root, "mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```json\n"+string(file)+"```") {
		t.Errorf("README does not show mcp.json as it is:\n%s", file)
	}
	sc, err := lookupServer("demo", filepath.Join(root, "mcp.json"))
	if err != nil || sc.Command != "mcp" || !reflect.DeepEqual(sc.Args, []string{"serve"}) {
		t.Errorf("@demo: %+v, %v", sc, err)
	}
}

// TestCallOutFile: --out FILE.json keeps the whole result, as --json
// prints it, and the human output still comes out.
func TestCallOutFile(t *testing.T) {
	url := everythingURL(t)
	file := filepath.Join(t.TempDir(), "result.json")
	code, out, errs := mcpRun(t, context.Background(), "call", "test_multiple_content_types", "--out", file, url)
	if code != 0 || !strings.Contains(out, "Multiple content types test:\n") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	_, want, _ := mcpRun(t, context.Background(), "call", "test_multiple_content_types", "--json", url)
	if got, err := os.ReadFile(file); err != nil || string(got) != want {
		t.Errorf("%s: %v\n%s\nwant (as --json)\n%s", file, err, got, want)
	}
	code, _, errs = mcpRun(t, context.Background(), "call", "test_simple_text", "--out", filepath.Join(file, "x.json"), url)
	if code != ExitUsage || !strings.Contains(errs, "--out: ") {
		t.Errorf("--out under a file: exit %d, stderr %q", code, errs)
	}
}

// serveProgressLog serves, on stdio, a tool that reports progress, then
// logs, then writes a line on its own stderr, a moment apart, and answers.
func serveProgressLog() {
	s := mcp.NewServer(&mcp.Implementation{Name: "progresslog", Version: "1"}, nil)
	err := mcp.AddTool(s, &mcp.Tool{Name: "tick"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
		pause := func() { time.Sleep(100 * time.Millisecond) }
		if err := req.NotifyProgress(ctx, 1, 2, "half"); err != nil {
			return "", err
		}
		pause()
		if err := req.Log(ctx, mcp.LevelInfo, "tick", "a log line"); err != nil {
			return "", err
		}
		pause()
		if err := req.NotifyProgress(ctx, 2, 2, "all"); err != nil {
			return "", err
		}
		pause()
		fmt.Fprintln(os.Stderr, "server: a stderr line")
		pause()
		return "done", nil
	})
	serveStdio(s, err)
}
