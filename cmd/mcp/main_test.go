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
