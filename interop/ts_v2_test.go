//go:build interop

package interop

import (
	"context"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTypeScriptV2Client runs ts/client_v2.mjs, the TypeScript SDK 2 client
// (@modelcontextprotocol/client), against gomcp's everything-server: over
// stdio and Streamable HTTP, once with versionNegotiation {mode: 'auto'}
// (server/discover, 2026-07-28) and once with the SDK's default 2025
// handshake (2025-11-25). Each cell runs in parallel with its own server.
func TestTypeScriptV2Client(t *testing.T) {
	env := requireEnv(t, "NODE22", "MCP_TS_SDK_DIR")
	server := buildEverythingServer(t)
	for _, era := range []string{"auto", "legacy"} {
		t.Run("stdio/"+era, func(t *testing.T) {
			t.Parallel()
			runTypeScriptV2Client(t, env["NODE22"], server, era)
		})
		t.Run("streamable-http/"+era, func(t *testing.T) {
			t.Parallel()
			url := startEverythingServerHTTP(t, server)
			runTypeScriptV2Client(t, env["NODE22"], url, era)
		})
	}
}

// startEverythingServerHTTP starts the everything-server binary on a free
// loopback port and returns its endpoint; when the test ends it must exit
// cleanly on SIGTERM, having written nothing to stderr.
func startEverythingServerHTTP(t *testing.T, server string) string {
	t.Helper()
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
		// With -race, a data race report would land on stderr.
		if s := sp.stderr.String(); s != "" {
			t.Errorf("everything-server wrote to stderr:\n%s", s)
		}
	})
	return sp.url
}

// runTypeScriptV2Client runs ts/client_v2.mjs against target (the binary or
// an HTTP endpoint) in era ("auto" or "legacy").
func runTypeScriptV2Client(t *testing.T, node, target, era string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "ts/client_v2.mjs", target, era)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "checks ok") {
		t.Fatalf("TypeScript SDK 2 client (%s) against everything-server: %v\n%s", era, err, out)
	}
	t.Logf("%s", out)
}
