package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gomcp/sdk/cmd/mcp/internal/cli"
)

// TestMain lets the test binary stand in for mcp serve on stdio, so that
// the demo server can be run as a command target.
func TestMain(m *testing.M) {
	if os.Getenv("MCP_TEST_SERVE") == "1" {
		if err := serve(context.Background(), nil, os.Stdout, os.Stderr); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// call runs mcp call greet against target and returns the greeting.
func greet(t *testing.T, target ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	args := append([]string{"call", "--json", "greet", "name=Go", "style=loud"}, target...)
	if code := cli.Run(context.Background(), args, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("mcp %q: exit %d: %s", args, code, errb.String())
	}
	var res struct {
		StructuredContent struct{ Greeting string } `json:"structuredContent"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	return res.StructuredContent.Greeting
}

func TestServeStdio(t *testing.T) {
	if g := greet(t, "-e", "MCP_TEST_SERVE=1", os.Args[0]); g != "HELLO, GO!" {
		t.Errorf("greeting %q", g)
	}
}

func TestServeHTTP(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	errc := make(chan error, 1)
	go func() {
		err := serve(ctx, []string{"--http", "127.0.0.1:0"}, pw, io.Discard)
		pw.Close()
		errc <- err
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok {
		t.Fatalf("first line %q", line)
	}
	if g := greet(t, url); g != "HELLO, GO!" {
		t.Errorf("greeting %q", g)
	}
	cancel()
	if err := <-errc; err != nil {
		t.Errorf("serve: %v", err)
	}
}

// TestTry: mcp try walks through the demo server in this process, showing
// each command, its messages and its output, and exits 0.
func TestTry(t *testing.T) {
	var out, errb bytes.Buffer
	if code := try(context.Background(), nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	got := out.String()
	for _, want := range []string{
		"\n$ mcp info mcp serve\n  → #1 server/discover\n  ← #1 result {",
		"server:       gomcp-demo (gomcp demo server) 0.1.0",
		"\n$ mcp tools mcp serve\n",
		"greet  name style?  Greet someone by name.",
		`  → #4 tools/call {"arguments":{"name":"Go","style":"loud"},"name":"greet"}`,
		`{"greeting":"HELLO, GO!"}`, // the text block; its structured twin is not printed again
		`  ← notifications/progress {"message":"counted 3","progress":3,`,
		"progress 3/3 (100%) counted 3\n",
		"counted to 3\n",
		"\n$ mcp read demo://readme mcp serve\n",
		"A server built with github.com/gomcp/sdk.",
		"Please review this go code.",
		"\n$ mcp complete review language=r mcp serve\n",
		"\nrust\n",
		"mcp shell mcp serve",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("stdout lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, `"_meta"`) {
		t.Errorf("_meta shown:\n%s", got)
	}
	for _, line := range strings.Split(got, "\n") {
		if n := utf8.RuneCountInString(line); strings.HasPrefix(line, "  ") && n > 2+110+2 {
			t.Errorf("a message line of %d characters: %q", n, line)
		}
	}
	if code := try(context.Background(), []string{"x"}, &out, &errb); code != cli.ExitUsage {
		t.Errorf("mcp try x: exit %d", code)
	}
	for _, args := range [][]string{{"help"}, {"help", "try"}} {
		var help bytes.Buffer
		if code := cli.Run(context.Background(), args, strings.NewReader(""), &help, &errb); code != 0 || !strings.Contains(help.String(), "try") {
			t.Errorf("mcp %q: exit %d, no try:\n%s", args, code, help.String())
		}
	}
}

// TestServeHTTPLoopbackOnly: the demo server has no authentication, so
// --http off loopback (":PORT" listens on every interface) is refused
// unless --allow-remote says so, before anything listens.
func TestServeHTTPLoopbackOnly(t *testing.T) {
	for _, addr := range []string{":0", "0.0.0.0:0", "[::]:0"} {
		err := serve(context.Background(), []string{"--http", addr}, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "--allow-remote") {
			t.Errorf("serve --http %s: %v, want a refusal naming --allow-remote", addr, err)
		}
	}
	var warn strings.Builder
	if _, err := cli.ListenAddr("0.0.0.0:0", true, &warn, "mcp serve", "use the demo server"); err != nil || !strings.Contains(warn.String(), "warning") {
		t.Errorf("allowed: err %v, stderr %q", err, warn.String())
	}
}
