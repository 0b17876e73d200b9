//go:build linux

package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// ptyShell is mcp shell run as a user runs it: a process of its own whose
// controlling terminal is a pseudo-terminal that the test types into, so
// that Ctrl-C is turned into SIGINT for the foreground process group by
// the terminal itself, as it is for a user.
type ptyShell struct {
	t      *testing.T
	master *os.File
	cmd    *exec.Cmd

	mu   sync.Mutex
	out  bytes.Buffer
	from int // where the next expect starts looking
	more chan struct{}
	done chan struct{} // the reader has stopped
}

// openPTY returns the two ends of a new pseudo-terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("no pseudo-terminals here: %v", err)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		master.Close()
		t.Fatalf("unlockpt: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		master.Close()
		t.Fatalf("ptsname: %v", e)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		t.Fatal(err)
	}
	return master, slave
}

// startPTYShell runs the test binary as mcp with args on a new terminal.
func startPTYShell(t *testing.T, args ...string) *ptyShell {
	t.Helper()
	master, slave := openPTY(t)
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "MCP_CLI_TEST_SERVER=mcp", "XDG_CONFIG_HOME="+t.TempDir(), "HOME="+t.TempDir(), "TERM=dumb")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		master.Close()
		slave.Close()
		t.Fatal(err)
	}
	slave.Close()
	p := &ptyShell{t: t, master: master, cmd: cmd, more: make(chan struct{}, 1), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			p.mu.Lock()
			p.out.Write(buf[:n])
			p.mu.Unlock()
			select {
			case p.more <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		master.Close()
		<-p.done
	})
	return p
}

// expect waits for want in the output after the previous match, and
// returns what came before it.
func (p *ptyShell) expect(want string) string {
	p.t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		p.mu.Lock()
		seen := p.out.String()[p.from:]
		i := strings.Index(seen, want)
		if i >= 0 {
			p.from += i + len(want)
		}
		p.mu.Unlock()
		if i >= 0 {
			return seen[:i]
		}
		if len(seen) > 400 {
			seen = "…" + seen[len(seen)-400:]
		}
		select {
		case <-p.more:
		case <-p.done:
			p.mu.Lock()
			p.from = p.out.Len() // nothing more will come
			p.mu.Unlock()
			p.t.Fatalf("the shell ended before %q; after the last match:\n%q", want, seen)
		case <-deadline:
			p.t.Fatalf("no %q after 20s; after the last match:\n%q", want, seen)
		}
	}
}

func (p *ptyShell) typeIn(s string) {
	p.t.Helper()
	if _, err := io.WriteString(p.master, s); err != nil {
		p.t.Fatal(err)
	}
}

// TestShellCtrlCKeepsTheServer: Ctrl-C typed during a call to a server
// run as a command cancels the call, and the next command goes to the same
// server: the terminal's SIGINT does not reach the server.
func TestShellCtrlCKeepsTheServer(t *testing.T) {
	p := startPTYShell(t, "shell", "-e", "MCP_CLI_TEST_SERVER=block", os.Args[0])
	p.expect("blocking> ")
	p.typeIn("call block\r")
	p.expect("started")
	p.typeIn("\x03")
	// The server saw the cancellation (it is still there to say so).
	p.expect("cause: ")
	p.expect("blocking> ")
	p.typeIn("ping\r")
	p.expect("ok (")
	p.expect("blocking> ")
	p.typeIn("\x04")
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("the shell: %v", err)
	}
}

// TestShellLogAbovePrompt: a log line that arrives while a command is
// being typed is printed on a line of its own above the prompt, which is
// drawn again with what was typed so far.
func TestShellLogAbovePrompt(t *testing.T) {
	p := startPTYShell(t, "shell", "-v", "--protocol-version", "2025-11-25", "-e", "MCP_CLI_TEST_SERVER=chatter", os.Args[0])
	p.expect("chatter> ")
	p.typeIn("call chat\r")
	p.expect("chatting")
	p.expect("chatter> ")
	p.typeIn("pin")
	p.expect("pin")
	p.expect("[info] chat: tick")
	// The log line went above: the line was cleared first, and the prompt
	// with the typed text came back after it.
	p.expect("\r\n\r\x1b[Kchatter> pin")
	p.typeIn("g\r")
	p.expect("ok (")
	// Ctrl-D only once the editor reads again: typed while the command
	// ran, the terminal (not in raw mode then) could take it as its own
	// end of input, and the shell would wait for another.
	p.expect("chatter> ")
	p.typeIn("\x04")
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("the shell: %v", err)
	}
}
