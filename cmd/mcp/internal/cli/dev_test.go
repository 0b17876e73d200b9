package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
)

// devMain is the tiny server mcp dev's tests build: one tool, whose
// description is in desc.go, which the tests rewrite. It appends its
// process id to $DEVSERVER_PIDS, if set, and serves Streamable HTTP at
// $DEVSERVER_ADDR, if set, or else stdio.
const devMain = `package main

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"os"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
	"github.com/gomcp/sdk/transport/mcphttp"
)

type In struct {
	Text string ` + "`json:\"text\"`" + `
}

type Out struct {
	Echo string ` + "`json:\"echo\"`" + `
}

func main() {
	if f := os.Getenv("DEVSERVER_PIDS"); f != "" {
		pids, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Fprintln(pids, os.Getpid())
		pids.Close()
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "devserver", Version: "1"}, nil)
	err := mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: description},
		func(ctx context.Context, req *mcp.CallToolRequest, in In) (Out, error) {
			return Out{Echo: in.Text}, nil
		})
	if err != nil {
		log.Fatal(err)
	}
	if addr := os.Getenv("DEVSERVER_ADDR"); addr != "" {
		log.Fatal(http.ListenAndServe(addr, mcphttp.NewHandler(s, nil)))
	}
	if err := s.Run(context.Background(), transport.Stdio()); err != nil {
		log.Fatal(err)
	}
}
`

// devModule writes a module holding the tiny server, with this SDK
// through a replace directive, and returns its directory.
func devModule(t *testing.T, description string) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	gosum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	// The SDK's own requirements, so that the build needs neither the
	// network nor go mod tidy.
	_, reqs, _ := strings.Cut(string(gomod), "\nrequire")
	// No DWARF: the links, most of a build's time, are quicker.
	t.Setenv("GOFLAGS", strings.TrimSpace(os.Getenv("GOFLAGS")+" -ldflags=-w"))
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/devserver\n\ngo 1.26.0\n\nrequire github.com/gomcp/sdk v0.0.0\n\nrequire" + reqs +
			"\nreplace github.com/gomcp/sdk => " + filepath.ToSlash(root) + "\n",
		"go.sum":  string(gosum),
		"main.go": devMain,
		"desc.go": devDesc(description),
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func devDesc(description string) string {
	return fmt.Sprintf("package main\n\nconst description = %q\n", description)
}

// devWrite rewrites file of the module dir, with a modification time
// after the last one, whatever the file system's resolution.
func devWrite(t *testing.T, dir, file, text string) {
	t.Helper()
	path := filepath.Join(dir, file)
	old, _ := os.Stat(path)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err == nil && old != nil && !fi.ModTime().After(old.ModTime()) {
		later := old.ModTime().Add(time.Second)
		if err := os.Chtimes(path, later, later); err != nil {
			t.Fatal(err)
		}
	}
}

// devEvents follows the inspector's feed for its "dev" events.
type devEvents struct {
	c chan inspectEvent
}

// next waits for the dev event of state want, skipping others, and
// returns it; it fails the test after d.
func (e devEvents) next(t *testing.T, want string, d time.Duration) devStatus {
	t.Helper()
	timeout := time.After(d)
	for {
		select {
		case ev := <-e.c:
			if ev.Kind != "dev" {
				continue
			}
			var st devStatus
			if err := json.Unmarshal(ev.Data, &st); err != nil {
				t.Fatal(err)
			}
			if st.State == want {
				return st
			}
			if st.State != "building" {
				t.Fatalf("build #%d %s, want %s: %s", st.Build, st.State, want, st.Output)
			}
		case <-timeout:
			t.Fatalf("no build %s within %s", want, d)
		}
	}
}

// devTool returns the description of the echo tool of the server the
// inspector is connected to.
func devTool(t *testing.T, in *inspector) string {
	t.Helper()
	res, err := in.do(context.Background(), "tools", nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, _ := res.([]*mcp.Tool)
	if len(tools) != 1 {
		t.Fatalf("tools: %#v", res)
	}
	return tools[0].Description
}

// TestDevRebuilds runs mcp dev's loop on the tiny server: it builds and
// connects it; a change of a source file rebuilds and reconnects it; a
// burst of saves makes one build; a file that does not compile is
// reported, with the compiler's output, and leaves the last server
// running; a fix rebuilds it; and every server started ends.
func TestDevRebuilds(t *testing.T) {
	dir := devModule(t, "echoes v1")
	pids := filepath.Join(t.TempDir(), "pids")
	var stderr strings.Builder
	w := &lockedWriter{w: &stderr}
	d := &devServer{stderr: w}
	inv := &invocation{stdout: io.Discard, stderr: w}
	if err := d.parse(inv, []string{"--no-open", "-e", "DEVSERVER_PIDS=" + pids, dir}); err != nil {
		t.Fatal(err)
	}
	d.goTool, d.tmp = "go", t.TempDir()
	in := &inspector{inv: inv, token: "t", asks: map[int]chan json.RawMessage{}, roots: &rootSet{roots: []*mcp.Root{}}, dev: d}
	_, c := in.hub.subscribe()
	defer in.hub.unsubscribe(c)
	ev := devEvents{c}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); d.run(ctx, in, "") }()
	defer func() {
		cancel()
		<-done
		in.close()
	}()

	// Builds can take a while on a loaded machine (the first one links
	// the SDK); a change is seen within a poll or two.
	const build = 2 * time.Minute
	if st := ev.next(t, "ok", build); st.Build != 1 {
		t.Fatalf("first build is #%d", st.Build)
	}
	if got := devTool(t, in); got != "echoes v1" {
		t.Fatalf("description %q", got)
	}
	if s, _ := in.state()["dev"].(devStatus); s.State != "ok" {
		t.Errorf("state's dev: %+v", in.state()["dev"])
	}

	// A burst of saves, across polls: one build, of the last.
	for i := 2; i <= 4; i++ {
		if i > 2 {
			time.Sleep(devPoll / 3)
		}
		devWrite(t, dir, "desc.go", devDesc(fmt.Sprintf("echoes v%d", i)))
	}
	if st := ev.next(t, "ok", build); st.Build != 2 {
		t.Errorf("the burst made build #%d, want #2", st.Build)
	}
	if got := devTool(t, in); got != "echoes v4" {
		t.Fatalf("after the rebuild: description %q", got)
	}

	// A syntax error: reported, and the last server keeps answering.
	devWrite(t, dir, "desc.go", "package main\n\nconst description = \n")
	st := ev.next(t, "failed", build)
	if !strings.Contains(st.Output, "desc.go:") {
		t.Errorf("compiler output %q does not name the line", st.Output)
	}
	if got := devTool(t, in); got != "echoes v4" {
		t.Errorf("during the failed build: description %q", got)
	}
	w.mu.Lock()
	errs := stderr.String()
	w.mu.Unlock()
	if !strings.Contains(errs, "desc.go:") {
		t.Errorf("stderr lacks the compiler output:\n%s", errs)
	}

	// The fix, in a new file this time: desc.go goes, text.go comes.
	devWrite(t, dir, "text.go", devDesc("echoes v5"))
	if err := os.Remove(filepath.Join(dir, "desc.go")); err != nil {
		t.Fatal(err)
	}
	ev.next(t, "ok", build)
	if got := devTool(t, in); got != "echoes v5" {
		t.Errorf("after the fix: description %q", got)
	}
	// A test file changes nothing.
	devWrite(t, dir, "main_test.go", "package main\n")
	time.Sleep(3 * devPoll)
	if n := d.lastStatus().Build; n != 4 {
		t.Errorf("%d builds, want 4", n)
	}
	entries, _ := os.ReadDir(d.tmp)
	if len(entries) != 1 {
		t.Errorf("binaries left behind: %v", entries)
	}

	cancel()
	<-done
	in.close()
	b, _ := os.ReadFile(pids)
	if n := len(strings.Fields(string(b))); n != 3 {
		t.Errorf("%d servers started, want 3", n)
	}
	checkStopped(t, strings.Fields(string(b)))
}

// TestDevCommand runs mcp dev as a user would, to its end, on a server
// that serves HTTP itself (--url): the page's state says the server is
// built and connected; after a change, the rebuilt server listens on the
// same port (the old one was stopped first) and the page is connected to
// it; once interrupted, mcp dev has stopped the server and removed its
// binaries.
func TestDevCommand(t *testing.T) {
	dir := devModule(t, "echoes v1")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where mcp dev puts its binaries
	pids := filepath.Join(t.TempDir(), "pids")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	defer http.DefaultClient.CloseIdleConnections()
	pr, pw := io.Pipe()
	var buf strings.Builder
	stderr := &lockedWriter{w: &buf}
	errs := func() string {
		stderr.mu.Lock()
		defer stderr.mu.Unlock()
		return buf.String()
	}
	code := make(chan int, 1)
	go func() {
		defer pw.Close()
		code <- Run(ctx, []string{"dev", "--no-open", "--url", "http://" + addr + "/", "-e", "DEVSERVER_PIDS=" + pids, "-e", "DEVSERVER_ADDR=" + addr, dir},
			strings.NewReader(""), pw, stderr)
	}()
	var page string
	if _, err := fmt.Fscanln(pr, new(string), new(string), &page); err != nil { // inspector at URL
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	api := func(op string, out any) {
		t.Helper()
		res, err := http.Post(page+"api/"+op, "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if err := json.NewDecoder(res.Body).Decode(&struct{ Result any }{out}); err != nil {
			t.Fatal(err)
		}
	}
	// wait waits for build n to be connected, and returns the tool's
	// description.
	wait := func(n int) string {
		t.Helper()
		deadline := time.Now().Add(2 * time.Minute)
		for {
			var st struct {
				Connected  bool
				Target     string
				ServerInfo struct{ Name string }
				Dev        devStatus
			}
			api("state", &st)
			if st.Connected && st.Dev.State == "ok" && st.Dev.Build == n {
				if st.ServerInfo.Name != "devserver" || st.Dev.Package != dir || st.Target != "http://"+addr+"/" {
					t.Errorf("state %+v", st)
				}
				break
			}
			if time.Now().After(deadline) || st.Dev.State == "failed" || st.Dev.State == "ok" && st.Dev.Build == n {
				t.Fatalf("state %+v; stderr:\n%s", st, errs())
			}
			time.Sleep(100 * time.Millisecond)
		}
		var tools []mcp.Tool
		api("tools", &tools)
		if len(tools) != 1 {
			t.Fatalf("tools %+v", tools)
		}
		return tools[0].Description
	}
	if d := wait(1); d != "echoes v1" {
		t.Errorf("description %q", d)
	}
	devWrite(t, dir, "desc.go", devDesc("echoes v2"))
	if d := wait(2); d != "echoes v2" {
		t.Errorf("after the rebuild: description %q", d)
	}
	cancel()
	if c := <-code; c != ExitCancelled && c != ExitOK {
		t.Errorf("exit %d; stderr:\n%s", c, errs())
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "mcp-dev-*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
	b, _ := os.ReadFile(pids)
	if n := len(strings.Fields(string(b))); n != 2 {
		t.Errorf("%d servers started, want 2", n)
	}
	checkStopped(t, strings.Fields(string(b)))
}

func TestDevUsage(t *testing.T) {
	file := filepath.Join(t.TempDir(), "main.go")
	if err := os.WriteFile(file, []byte("package main\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"dev"},
		{"dev", "--no-open"},
		{"dev", file},
		{"dev", t.TempDir(), "extra"},
		{"dev", "--nope", "."},
		{"dev", "--url", "ftp://x", "."},
	} {
		if code, _, errs := mcpRun(t, context.Background(), args...); code != ExitUsage || !strings.HasPrefix(errs, "mcp: ") {
			t.Errorf("mcp %q: exit %d, stderr %q", args, code, errs)
		}
	}
	d := &devServer{}
	inv := &invocation{}
	dir := t.TempDir()
	if err := d.parse(inv, []string{"--addr", "127.0.0.1:7000", dir, "--", "-flag", "x"}); err != nil {
		t.Fatal(err)
	}
	if d.pkg != dir || strings.Join(d.args, " ") != "-flag x" || inv.addr != "127.0.0.1:7000" || !d.open {
		t.Errorf("parsed %q %q open=%v, addr %q", d.pkg, d.args, d.open, inv.addr)
	}
	d = &devServer{}
	if err := d.parse(inv, []string{"--no-open", "--", dir, "-x"}); err != nil || d.pkg != dir || strings.Join(d.args, " ") != "-x" || d.open {
		t.Errorf("parsed %q %q open=%v (%v)", d.pkg, d.args, d.open, err)
	}
}
