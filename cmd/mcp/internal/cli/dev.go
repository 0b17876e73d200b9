package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/gomcp/sdk/oauth"
)

// Timing and bounds of mcp dev.
const (
	devPoll      = 300 * time.Millisecond // how often the sources are looked at
	devQuiet     = 250 * time.Millisecond // a burst of saves ends after this long without one
	devMaxOutput = 64 << 10               // the compiler output kept for the page and the terminal
	devMaxFiles  = 20000                  // files watched, at most
)

// devStatus is the state of mcp dev's last build, sent to the page as a
// "dev" event and in its state.
type devStatus struct {
	State   string  `json:"state"` // building, failed, ok
	Package string  `json:"package"`
	Build   int     `json:"build"`             // the build's number, from 1
	Output  string  `json:"output,omitempty"`  // the compiler's, when failed
	Seconds float64 `json:"seconds,omitempty"` // how long the build took
}

// devServer builds the Go package of mcp dev, runs it through the
// inspector, and rebuilds and restarts it when its sources change.
type devServer struct {
	pkg    string // the package as the user named it
	dir    string // its directory, absolute
	args   []string
	tf     targetFlags // -e, --cwd: how the server is run
	url    string      // --url: the server serves HTTP there itself
	tmp    string      // where the binaries go
	goTool string
	open   bool // open the page in the browser
	stderr io.Writer

	builds int
	bin    string      // the binary running, if any
	proc   *devProcess // the server run with --url, if any

	// What is watched: directories (their files, not their
	// subdirectories) and single files, from go list.
	dirs, files []string

	mu     sync.Mutex
	status devStatus
}

// runDev is mcp dev [FLAGS] DIR [-- ARGS...].
func runDev(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	stderr = &lockedWriter{w: stderr}
	inv := &invocation{stdout: stdout, stderr: stderr}
	d := &devServer{stderr: stderr, open: true}
	if err := d.parse(inv, args); errors.Is(err, flag.ErrHelp) {
		return help(stdout, stderr, []string{"dev"})
	} else if err != nil {
		return inv.report(ctx, err)
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		return inv.report(ctx, usageError{fmt.Errorf("dev: the go command is needed to build the server: %v", err)})
	}
	d.goTool = goTool
	if d.tmp, err = os.MkdirTemp("", "mcp-dev-"); err != nil {
		return inv.report(ctx, err)
	}
	// The inspector has stopped the last server before it returns: its
	// binary can go (on Windows too).
	defer os.RemoveAll(d.tmp)
	return inv.report(ctx, inv.inspectWith(ctx, d))
}

// parse reads mcp dev's command line: flags, the package's directory,
// then the server's arguments after "--".
func (d *devServer) parse(inv *invocation, args []string) error {
	fs := flag.NewFlagSet("dev", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&inv.addr, "addr", "127.0.0.1:0", "")
	noOpen := fs.Bool("no-open", false, "")
	fs.Var(&d.tf.env, "e", "")
	fs.StringVar(&d.tf.cwd, "cwd", "", "")
	fs.DurationVar(&inv.timeout, "timeout", 0, "")
	fs.StringVar(&inv.version, "protocol-version", "", "")
	fs.Var(&inv.rootDirs, "root", "")
	fs.StringVar(&d.url, "url", "", "")
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return usageError{err}
		}
		consumed, rest := args[:len(args)-fs.NArg()], fs.Args()
		if len(consumed) > 0 && consumed[len(consumed)-1] == "--" {
			if d.pkg == "" && len(rest) > 0 { // mcp dev -- ./server ARGS
				d.pkg, rest = rest[0], rest[1:]
			}
			d.args = rest
			break
		}
		if len(rest) == 0 {
			break
		}
		if d.pkg != "" {
			return usageError{fmt.Errorf("dev: unexpected %q: the server's arguments go after --", rest[0])}
		}
		d.pkg, args = rest[0], rest[1:]
	}
	d.open = !*noOpen
	if d.url != "" {
		if err := checkDevURL(d.url); err != nil {
			return usageError{err}
		}
	}
	if d.pkg == "" {
		return usageError{errors.New("dev: name the directory of the server's main package, such as ./cmd/server")}
	}
	if fi, err := os.Stat(d.pkg); err != nil || !fi.IsDir() {
		return usageError{fmt.Errorf("dev: %s is not a directory: name the directory of the server's main package", d.pkg)}
	}
	dir, err := filepath.Abs(d.pkg)
	if err != nil {
		return usageError{err}
	}
	d.dir = dir
	d.dirs = []string{dir} // until go list says more
	return nil
}

// setStatus records st as the last build's state and tells the page.
func (d *devServer) setStatus(in *inspector, st devStatus) {
	st.Package, st.Build = d.pkg, d.builds
	d.mu.Lock()
	d.status = st
	d.mu.Unlock()
	in.hub.publish("dev", "", st)
}

// lastStatus is the state of the last build, for the page's state.
func (d *devServer) lastStatus() devStatus {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.status
}

// run builds and starts the server, opens the page at pageURL, and
// rebuilds on every change of the sources until ctx ends. A burst of
// saves (a formatter, a "save all") makes one build: it waits for a poll
// that finds nothing new.
func (d *devServer) run(ctx context.Context, in *inspector, pageURL string) {
	if d.open {
		if err := oauth.OpenBrowser(pageURL); err != nil {
			fmt.Fprintf(d.stderr, "mcp dev: cannot open a browser (%v): open %s\n", err, pageURL)
		}
	}
	defer d.stopServer(in)
	d.rebuild(ctx, in)
	prev := d.stamp()
	var changed time.Time // the last change not built yet
	tick := time.NewTicker(devPoll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		cur := d.stamp()
		if !sameStamps(prev, cur) {
			prev, changed = cur, time.Now()
			continue
		}
		if changed.IsZero() || time.Since(changed) < devQuiet {
			continue
		}
		changed = time.Time{}
		d.rebuild(ctx, in)
		// A file saved, removed or added while it built is built next;
		// files newly watched (a package just imported) are not taken for
		// changes.
		after := d.stamp()
		if changedDuring(prev, after) {
			changed = time.Now()
		}
		prev = after
	}
}

// rebuild builds the package and, when it compiles, replaces the running
// server with the new one. When it does not, the last server built keeps
// running: the page stays usable while the error is fixed, and it shows
// the compiler's output.
func (d *devServer) rebuild(ctx context.Context, in *inspector) {
	d.builds++
	d.setStatus(in, devStatus{State: "building"})
	fmt.Fprintf(d.stderr, "mcp dev: building %s (#%d)\n", d.pkg, d.builds)
	start := time.Now()
	bin, out, err := d.build(ctx)
	d.watchList(ctx)
	if ctx.Err() != nil {
		return
	}
	took := time.Since(start).Seconds()
	if err != nil {
		_ = os.Remove(bin)
		if out == "" {
			out = err.Error()
		}
		still := "no server is running"
		if d.bin != "" {
			still = "the last server built keeps running"
		}
		fmt.Fprintf(d.stderr, "mcp dev: build #%d failed (%s):\n%s", d.builds, still, ensureNewline(out))
		d.setStatus(in, devStatus{State: "failed", Output: out, Seconds: took})
		return
	}
	// The old server stops before the new one starts: both may want the
	// same port, lock or database file.
	d.stopServer(in)
	if d.bin != "" {
		_ = os.Remove(d.bin)
	}
	d.bin = bin
	if err := d.startServer(ctx, in, bin); err != nil {
		fmt.Fprintf(d.stderr, "mcp dev: the server built by #%d did not start: %s\n", d.builds, plainError(err))
	} else {
		fmt.Fprintf(d.stderr, "mcp dev: built in %.1fs; server restarted\n", took)
	}
	d.setStatus(in, devStatus{State: "ok", Seconds: took})
}

// build runs go build on the package, to a binary of its own: the one
// running stays as it is until it is stopped.
func (d *devServer) build(ctx context.Context) (bin, output string, err error) {
	exe := ""
	if runtime.GOOS == "windows" {
		exe = ".exe"
	}
	bin = filepath.Join(d.tmp, fmt.Sprintf("server-%d%s", d.builds, exe))
	out := &cappedBuffer{max: devMaxOutput}
	cmd := exec.CommandContext(ctx, d.goTool, "build", "-o", bin, ".")
	cmd.Dir = d.dir
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Run()
	return bin, out.String(), err
}

// cappedBuffer keeps the first max bytes written to it and says how many
// more were dropped.
type cappedBuffer struct {
	max     int
	b       []byte
	dropped int
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	n := min(len(p), c.max-len(c.b))
	c.b = append(c.b, p[:n]...)
	c.dropped += len(p) - n
	return len(p), nil
}

func (c *cappedBuffer) String() string {
	if c.dropped > 0 {
		return fmt.Sprintf("%s\n… (%d more bytes)\n", c.b, c.dropped)
	}
	return string(c.b)
}

func ensureNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}
