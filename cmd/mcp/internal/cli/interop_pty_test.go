//go:build interop && linux

package cli

import "testing"

// TestTypeScriptServerCtrlC: Ctrl-C during a long call to the TypeScript
// reference server in mcp shell cancels the call, and the next call goes to
// the same server (a Node process that SIGINT would have ended).
func TestTypeScriptServerCtrlC(t *testing.T) {
	server := requireEnv(t, "SERVER_EVERYTHING")
	p := startPTYShell(t, "shell", server, "stdio")
	p.expect("> ")
	p.typeIn("call trigger-long-running-operation duration=20 steps=10\r")
	p.expect("progress ")
	p.typeIn("\x03")
	p.expect("interrupted")
	p.expect("> ")
	p.typeIn("call echo message=still-here\r")
	p.expect("Echo: still-here")
	p.expect("> ")
	p.typeIn("\x04")
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("the shell: %v", err)
	}
}
