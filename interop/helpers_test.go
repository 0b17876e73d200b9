//go:build interop

package interop

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gomcp/sdk/internal/racetest"
	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind (sessions,
// subprocess reapers, stderr copiers), and removes the binaries the tests
// built.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) {
		if everythingBuild.dir != "" {
			os.RemoveAll(everythingBuild.dir)
		}
	}))
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

// everythingBuild is the everything-server binary the tests share, built once.
var everythingBuild struct {
	once sync.Once
	dir  string // removed by TestMain
	bin  string
	err  error
}

// buildEverythingServer builds conformance/everything-server into a
// temporary directory (with -race when the tests run with it), once for
// all the tests, and returns the binary's path.
func buildEverythingServer(t *testing.T) string {
	t.Helper()
	everythingBuild.once.Do(func() {
		everythingBuild.dir, everythingBuild.err = os.MkdirTemp("", "gomcp-interop-")
		if everythingBuild.err != nil {
			return
		}
		bin := filepath.Join(everythingBuild.dir, "everything-server")
		args := []string{"build", "-o", bin}
		if racetest.Enabled {
			args = append(args, "-race")
		}
		args = append(args, "github.com/gomcp/sdk/conformance/everything-server")
		if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			everythingBuild.err = fmt.Errorf("go %v: %v\n%s", args, err, out)
			return
		}
		everythingBuild.bin = bin
	})
	if everythingBuild.err != nil {
		t.Fatal(everythingBuild.err)
	}
	return everythingBuild.bin
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

// serverProcess is a server subprocess serving Streamable HTTP, with its
// output captured.
type serverProcess struct {
	cmd    *exec.Cmd
	sig    os.Signal // asks the server to shut down cleanly
	url    string
	stdout *syncBuffer
	stderr *syncBuffer
	exited chan struct{} // closed once the process has been reaped
	err    error         // cmd.Wait's result, set before exited is closed

	stopOnce sync.Once
	stopErr  error
}

// startServerProcess starts cmd and waits until ready finds the endpoint's
// URL in what the process wrote so far. If the process exits first, it
// returns nil and a description of what happened, so that the caller can
// retry (a port may have been taken meanwhile). The process is shut down
// with sig when the test ends, if not before.
func startServerProcess(t *testing.T, cmd *exec.Cmd, sig os.Signal, ready func(stdout, stderr string) (url string, ok bool)) (*serverProcess, string) {
	t.Helper()
	sp := &serverProcess{cmd: cmd, sig: sig, stdout: &syncBuffer{}, stderr: &syncBuffer{}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = sp.stdout, sp.stderr
	cmd.WaitDelay = 5 * time.Second // the output copiers end even if a grandchild keeps the pipes
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", cmd.Path, err)
	}
	go func() {
		sp.err = cmd.Wait()
		close(sp.exited)
	}()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if url, ok := ready(sp.stdout.String(), sp.stderr.String()); ok {
			sp.url = url
			t.Cleanup(func() {
				if err := sp.shutdown(); err != nil && !t.Failed() {
					t.Errorf("%s: %v", cmd.Path, err)
				}
			})
			return sp, ""
		}
		select {
		case <-sp.exited:
			return nil, fmt.Sprintf("%s exited before it was ready (%v)\nstdout:\n%s\nstderr:\n%s", cmd.Path, sp.err, sp.stdout, sp.stderr)
		case <-deadline.C:
			_ = cmd.Process.Kill()
			<-sp.exited
			t.Fatalf("%s is not ready after 30s\nstdout:\n%s\nstderr:\n%s", cmd.Path, sp.stdout, sp.stderr)
		case <-tick.C:
		}
	}
}

// shutdown sends the process its shutdown signal and waits for it to exit,
// killing it after 10 seconds. It reports how the process ended: nil for
// exit status 0. Only the first call acts; later ones report the same.
func (sp *serverProcess) shutdown() error {
	sp.stopOnce.Do(func() {
		select {
		case <-sp.exited:
			sp.stopErr = fmt.Errorf("the server exited by itself: %v", sp.err)
			if sp.err == nil {
				sp.stopErr = errors.New("the server exited by itself")
			}
			return
		default:
		}
		if err := sp.cmd.Process.Signal(sp.sig); err != nil {
			<-sp.exited // it exited meanwhile
		}
		select {
		case <-sp.exited:
			sp.stopErr = sp.err
		case <-time.After(10 * time.Second):
			_ = sp.cmd.Process.Kill()
			<-sp.exited
			sp.stopErr = fmt.Errorf("the server ignored %v for 10s and was killed", sp.sig)
		}
	})
	return sp.stopErr
}
