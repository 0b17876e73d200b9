//go:build interop

package interop

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind (sessions,
// subprocess reapers, stderr copiers).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// requireEnv returns the named environment variables, failing the test (not
// skipping it) when one is unset: an interop run without its tools must not
// pass silently.
func requireEnv(t *testing.T, names ...string) map[string]string {
	t.Helper()
	vals := make(map[string]string, len(names))
	for _, n := range names {
		v := os.Getenv(n)
		if v == "" {
			t.Fatalf("%s is not set: run the interop tests via scripts/test.sh, or `source scripts/tools.sh` first", n)
		}
		vals[n] = v
	}
	return vals
}

// raceEnabled reports whether this test binary was built with -race, so the
// programs it builds can be too.
func raceEnabled() bool {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range info.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// buildEverythingServer builds conformance/everything-server into a
// temporary directory (with -race when the tests run with it) and returns
// the binary's path.
func buildEverythingServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "everything-server")
	args := []string{"build", "-o", bin}
	if raceEnabled() {
		args = append(args, "-race")
	}
	args = append(args, "github.com/gomcp/sdk/conformance/everything-server")
	out, err := exec.Command("go", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go %v: %v\n%s", args, err, out)
	}
	return bin
}

// syncBuffer is a bytes.Buffer safe for a subprocess's stderr copier and the
// test to use at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
