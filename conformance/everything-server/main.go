// Command everything-server serves the conformance fixtures: on stdio when
// started with no flags.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/gomcp/sdk/conformance/everything"
	"github.com/gomcp/sdk/transport"
)

func main() {
	verbose := flag.Bool("v", false, "log diagnostics to stderr")
	flag.Parse()
	logger := slog.New(slog.DiscardHandler)
	if *verbose {
		logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s := everything.NewServer(&everything.Options{Logger: logger})
	if err := s.Run(ctx, transport.Stdio()); err != nil && err != context.Canceled {
		fmt.Fprintln(os.Stderr, "everything-server:", err)
		os.Exit(1)
	}
}
