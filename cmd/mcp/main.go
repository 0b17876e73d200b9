// Command mcp is the gomcp command-line tool.
//
//	mcp serve    run the demo MCP server on stdio
//
// More subcommands (inspect, call, shell, proxy) build on the same library.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/gomcp/sdk/transport"
)

const usage = `usage: mcp <command> [flags]

commands:
  serve    run the demo MCP server on stdio (tools, resources, prompts,
           completion, logging, progress); point any MCP client at it
`

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "mcp:", err)
		os.Exit(1)
	}
}

func run(args []string, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("no command given")
	}
	switch args[0] {
	case "serve":
		return serve(args[1:], stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stderr, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}

func serve(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	verbose := fs.Bool("v", false, "log diagnostics to stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}
	logger := slog.New(slog.DiscardHandler)
	if *verbose {
		logger = slog.New(slog.NewTextHandler(stderr, nil))
	}
	s, err := newDemoServer(logger)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// stdout carries only MCP messages; diagnostics go to stderr.
	err = s.Run(ctx, transport.Stdio())
	if err == context.Canceled {
		return nil
	}
	return err
}
