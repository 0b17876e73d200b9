package transport

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// helperEnv selects a helper mode when the test binary is re-executed as a
// child process by the Command tests.
const helperEnv = "GOMCP_TRANSPORT_TEST_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode))
	}
	goleak.VerifyTestMain(m)
}

// ready is the line helpers print once they are set up, so tests can
// synchronise with them.
const ready = `{"jsonrpc":"2.0","method":"ready"}`

// runHelper is the child side of the Command and Stdio tests. It returns the
// exit code.
func runHelper(mode string) int {
	switch mode {
	case "echo": // echo lines until stdin ends
		return echoLines()
	case "stderr": // log to stderr, then echo
		fmt.Fprintln(os.Stderr, "helper: this goes to stderr")
		return echoLines()
	case "crash": // say something, read a line, write 7 lines on stderr, exit 3
		fmt.Println(ready)
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		for i := 1; i <= 7; i++ {
			fmt.Fprintf(os.Stderr, "crash line %d\n", i)
		}
		return 3
	case "exit3": // say something and exit with status 3 without reading
		fmt.Println(ready)
		return 3
	case "ignore-eof": // keep running after stdin ends, until SIGTERM
		fmt.Println(ready)
		_, _ = io.Copy(io.Discard, os.Stdin)
		time.Sleep(time.Hour)
		return 0
	case "ignore-term": // ignore SIGTERM too, until SIGKILL
		signal.Ignore(syscall.SIGTERM)
		fmt.Println(ready)
		_, _ = io.Copy(io.Discard, os.Stdin)
		time.Sleep(time.Hour)
		return 0
	case "stdio-echo": // echo messages through Stdio
		return stdioEcho()
	case "stdio-cancel": // a blocked Stdio Read ends when its ctx does
		return stdioCancel()
	case "stdio-close": // a blocked Stdio Read ends when the stream closes
		return stdioClose()
	case "mcp-server": // an MCP server on Stdio whose tool "pid" says its pid
		return mcpServer()
	}
	fmt.Fprintln(os.Stderr, "unknown helper mode", mode)
	return 2
}

func echoLines() int {
	r := bufio.NewReader(os.Stdin)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			if _, werr := os.Stdout.Write(line); werr != nil {
				return 1
			}
		}
		if err == io.EOF {
			return 0
		}
		if err != nil {
			return 1
		}
	}
}

func stdioEcho() int {
	s := Stdio()
	if !readerAsExpected(s) {
		return 3
	}
	defer s.Close()
	ctx := context.Background()
	for {
		m, err := s.Read(ctx)
		if err == io.EOF {
			return 0
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "helper read:", err)
			return 1
		}
		if m.Invalid != nil {
			m = jsonrpc.NewErrorResponse(m.ID, m.Invalid)
		}
		if err := s.Write(ctx, m); err != nil {
			fmt.Fprintln(os.Stderr, "helper write:", err)
			return 1
		}
	}
}

func stdioCancel() int {
	s := Stdio()
	if !readerAsExpected(s) {
		return 3
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := s.Read(ctx); !errors.Is(err, context.DeadlineExceeded) {
		fmt.Fprintln(os.Stderr, "helper: Read returned", err)
		return 4
	}
	bg := context.Background()
	if err := s.Write(bg, jsonrpc.NewNotification("cancelled", nil)); err != nil {
		return 1
	}
	// The stream must still work, and whole lines must survive.
	m, err := s.Read(bg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper: second Read returned", err)
		return 5
	}
	if err := s.Write(bg, m); err != nil {
		return 1
	}
	return 0
}

func stdioClose() int {
	s := Stdio()
	if !readerAsExpected(s) {
		return 3
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.Read(context.Background())
		done <- err
	}()
	time.Sleep(100 * time.Millisecond) // let the Read block
	if err := s.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "helper: Close:", err)
		return 1
	}
	select {
	case err := <-done:
		if !errors.Is(err, jsonrpc.ErrClosed) {
			fmt.Fprintln(os.Stderr, "helper: Read returned", err)
			return 4
		}
	case <-time.After(5 * time.Second):
		fmt.Fprintln(os.Stderr, "helper: Read still blocked after Close")
		return 5
	}
	// Standard output still works after Close.
	fmt.Println(ready)
	return 0
}

func mcpServer() int {
	s := mcp.NewServer(&mcp.Implementation{Name: "helper", Version: "1.0.0"}, nil)
	s.AddTool(&mcp.Tool{Name: "pid"}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(strconv.Itoa(os.Getpid()))}}, nil
	})
	if err := s.Run(context.Background(), Stdio()); err != nil {
		fmt.Fprintln(os.Stderr, "helper: server:", err)
		return 1
	}
	return 0
}

// readerAsExpected reports whether Stdio's stream s reads standard input
// through the reader type that GOMCP_TEST_STDIN_READER names, if set.
func readerAsExpected(s jsonrpc.Stream) bool {
	want := os.Getenv("GOMCP_TEST_STDIN_READER")
	got := fmt.Sprintf("%T", s.(*lineStream).dl)
	if want != "" && got != want {
		fmt.Fprintf(os.Stderr, "helper: standard input read through %s, want %s\n", got, want)
		return false
	}
	return true
}
