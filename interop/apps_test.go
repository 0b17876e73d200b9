//go:build interop

package interop

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/internal/racetest"
)

// TestAppBridge runs ts/app_bridge.mjs: the official MCP Apps host library
// (@modelcontextprotocol/ext-apps/app-bridge, in Node without a browser)
// and the TypeScript SDK 2 client drive gomcp's example app server
// (examples/appserver) over stdio, and the view's own script, served by
// the server, runs against the library's bridge: handshake, tool input
// and result, the app-only tool called from the view, ui/message,
// ui/update-model-context, ui/open-link, logging, size changes and
// teardown. Once at 2026-07-28 and once at 2025-11-25.
func TestAppBridge(t *testing.T) {
	env := requireEnv(t, "NODE22", "MCP_TS_SDK_DIR")
	bin := filepath.Join(t.TempDir(), "appserver")
	args := []string{"build", "-o", bin}
	if racetest.Enabled {
		args = append(args, "-race")
	}
	args = append(args, "github.com/gomcp/sdk/examples/appserver")
	if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		t.Fatalf("go %v: %v\n%s", args, err, out)
	}
	for _, era := range []string{"auto", "legacy"} {
		t.Run(era, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, env["NODE22"], "ts/app_bridge.mjs", bin, era)
			cmd.WaitDelay = 5 * time.Second
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "checks ok") {
				t.Fatalf("app-bridge against examples/appserver (%s): %v\n%s", era, err, out)
			}
			t.Logf("%s", out)
		})
	}
}
