//go:build interop

package interop

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/conformance/everything"
)

// TestTypeScriptClient runs ts/client.mjs, the official TypeScript SDK
// client, against gomcp's everything-server over stdio. The script checks
// every feature the server offers and exits non-zero on any mismatch.
func TestTypeScriptClient(t *testing.T) {
	env := requireEnv(t, "NODE22", "MCP_TS_SDK_DIR")
	server := buildEverythingServer(t)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, env["NODE22"], "ts/client.mjs", server, everything.JSONSchema202012)
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
