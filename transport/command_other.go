//go:build !unix

package transport

import (
	"os"
	"os/exec"
)

// processGroup reports 0: process groups are not handled here.
func processGroup(*exec.Cmd) int { return 0 }

// terminate reports false: there is no SIGTERM here, so Close goes straight
// from waiting to killing.
func terminate(*os.Process, int) bool { return false }

// kill kills p.
func kill(p *os.Process, _ int) { _ = p.Kill() }

// groupAlive reports false: there are no process groups here.
func groupAlive(int) bool { return false }
