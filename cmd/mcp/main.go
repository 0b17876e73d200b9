// Command mcp talks to any MCP server from the shell or a script, and runs a
// demo server:
//
//	mcp info|tools|resources|templates|prompts TARGET...
//	mcp call TOOL [KEY=VALUE...] TARGET...
//	mcp read URI TARGET...
//	mcp get PROMPT [KEY=VALUE...] TARGET...
//	mcp complete REF ARG[=VALUE] [KEY=VALUE...] TARGET...
//	mcp ping TARGET...
//	mcp snapshot [-o FILE] TARGET...
//	mcp diff OLD NEW...
//	mcp proxy [--http ADDR] [--allow|--deny PATTERN]... TARGET...
//	mcp mock [--http ADDR] FILE
//	mcp gateway [--http ADDR] CONFIG
//	mcp shell TARGET...
//	mcp inspect [--addr ADDR] TARGET...
//	mcp dev [--no-open] [--url URL] DIR [-- ARG...]
//	mcp login|logout URL
//	mcp registry init [DIR] | mcp registry validate [FILE] [--against TARGET...]
//	mcp card URL
//	mcp serve [--http ADDR]
//	mcp try
//	mcp version
//
// TARGET is a URL, a command and its arguments, @NAME from a config file, or
// card:URL, the server a Server Card describes;
// mcp help describes the flags, the --json output and the exit codes.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/gomcp/sdk/cmd/mcp/internal/cli"
	"github.com/gomcp/sdk/transport"
	"github.com/gomcp/sdk/transport/mcphttp"
)

func main() {
	args := os.Args[1:]
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if len(args) > 0 && args[0] == "shell" {
		sigs = sigs[1:] // the shell's Ctrl-C interrupts the command, not the shell
	}
	ctx, stop := signal.NotifyContext(context.Background(), sigs...)
	defer stop()
	if len(args) > 0 && args[0] == "try" {
		code := try(ctx, args[1:], os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	if len(args) > 0 && args[0] == "serve" {
		if term.IsTerminal(int(os.Stdin.Fd())) {
			// A person typed mcp serve: say that it is working, on stderr
			// (stdout carries only MCP messages).
			fmt.Fprintln(os.Stderr, "mcp serve: the demo server speaks MCP on stdin and stdout, for a client to run it (Ctrl-C ends).\nTo see it at work: mcp try, mcp shell mcp serve, or mcp inspect mcp serve.")
		}
		if err := serve(ctx, args[1:], os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, "mcp:", err)
			stop()
			os.Exit(cli.ExitUsage)
		}
		return
	}
	code := cli.Run(ctx, args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// try walks through a few commands against the demo server, run in this
// process.
func try(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "mcp try: no arguments expected, got %q\n", args)
		return cli.ExitUsage
	}
	s, err := newDemoServer(slog.New(slog.DiscardHandler))
	if err != nil {
		fmt.Fprintln(stderr, "mcp:", err)
		return cli.ExitUsage
	}
	return cli.Try(ctx, s, stdout)
}

// serve runs the demo server on stdio, or over Streamable HTTP at
// http://ADDR/mcp with --http, until ctx ends.
func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	verbose := fs.Bool("v", false, "log diagnostics to stderr")
	addr := fs.String("http", "", "serve Streamable HTTP at http://`ADDR`/mcp instead of stdio")
	remote := fs.Bool("allow-remote", false, "with --http, listen off loopback too")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *addr != "" {
		if _, err := cli.ListenAddr(*addr, *remote, stderr, "mcp serve", "use the demo server"); err != nil {
			return err
		}
	}
	logger := slog.New(slog.DiscardHandler)
	if *verbose {
		logger = slog.New(slog.NewTextHandler(stderr, nil))
	}
	s, err := newDemoServer(logger)
	if err != nil {
		return err
	}
	if *addr == "" {
		// stdout carries only MCP messages; diagnostics go to stderr.
		err = s.Run(ctx, transport.Stdio())
		if err == context.Canceled {
			return nil
		}
		return err
	}
	h := mcphttp.NewHandler(s, &mcphttp.HandlerOptions{Logger: logger})
	defer h.Close()
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "listening on http://%s/mcp\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}
