// Command relay is the floor of any process between an MCP client and a
// server over stdio: it runs its arguments as a child and copies bytes
// both ways, parsing nothing. run.sh puts it beside mcp gateway, so that
// what the gateway adds reads against what a hop of two pipes costs by
// itself.
//
//	relay COMMAND [ARG...]
package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: relay COMMAND [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		fail(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		fail(err)
	}
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	go func() {
		_, _ = io.Copy(in, os.Stdin)
		_ = in.Close() // the client is gone: so is the server's stdin
	}()
	_, _ = io.Copy(os.Stdout, out)
	if err := cmd.Wait(); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "relay:", err)
	os.Exit(1)
}
