//go:build interop

package interop

import (
	"context"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gomcp/sdk/conformance/everything"
)

// TestTypeScriptClient runs ts/client.mjs, the official TypeScript SDK
// client, against gomcp's everything-server: over stdio (the SDK starts the
// server) and over Streamable HTTP (the test starts the server on a free
// port and hands the script its URL). The script checks every feature the
// server offers, the same way on both transports, and exits non-zero on any
// mismatch.
func TestTypeScriptClient(t *testing.T) {
	env := requireEnv(t, "NODE22", "MCP_TS_SDK_DIR")
	server := buildEverythingServer(t)

	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		runTypeScriptClient(t, env["NODE22"], server)
	})

	t.Run("streamable-http", func(t *testing.T) {
		t.Parallel()
		cmd := exec.Command(server, "-http", "127.0.0.1:0")
		sp, failure := startServerProcess(t, cmd, syscall.SIGTERM, func(stdout, _ string) (string, bool) {
			line, _, complete := strings.Cut(stdout, "\n")
			url, ok := strings.CutPrefix(line, "listening on ")
			return url, complete && ok
		})
		if sp == nil {
			t.Fatal(failure)
		}
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("everything-server stderr:\n%s", sp.stderr)
			}
		})
		if !strings.HasPrefix(sp.url, "http://127.0.0.1:") || !strings.HasSuffix(sp.url, "/mcp") {
			t.Fatalf("everything-server announced %q", sp.url)
		}
		runTypeScriptClient(t, env["NODE22"], sp.url)

		// The server shuts down cleanly on SIGTERM, and wrote nothing to
		// stderr (with -race, a data race report would land there).
		if err := sp.shutdown(); err != nil {
			t.Errorf("everything-server after SIGTERM: %v", err)
		}
		if s := sp.stderr.String(); s != "" {
			t.Errorf("everything-server wrote to stderr:\n%s", s)
		}
		if s := sp.stdout.String(); s != "listening on "+sp.url+"\n" {
			t.Errorf("everything-server stdout:\n%s", s)
		}
	})
}

// runTypeScriptClient runs ts/client.mjs against target: the everything-server
// binary (stdio) or its Streamable HTTP endpoint's URL.
func runTypeScriptClient(t *testing.T, node, target string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "ts/client.mjs", target, everything.JSONSchema202012)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("TypeScript SDK client against everything-server: %v\n%s", err, out)
	}
	t.Logf("TypeScript SDK client against everything-server:\n%s", out)
	if !strings.Contains(string(out), "checks ok") {
		t.Fatalf("the client script exited 0 without its closing line:\n%s", out)
	}
}
