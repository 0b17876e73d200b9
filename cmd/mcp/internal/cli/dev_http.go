package cli

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"time"
)

// How long mcp dev waits for a server run with --url to listen, and then
// for it to exit once asked to.
const (
	devListenTimeout = 30 * time.Second
	devStopTimeout   = 5 * time.Second
)

// devProcess is a server that mcp dev --url runs: it serves HTTP itself,
// at the URL given, and the page connects there.
type devProcess struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once it has exited and been reaped
}

// checkURL checks mcp dev --url's URL: http or https, with a host.
func checkDevURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("dev: --url %q: want the http:// or https:// URL the server listens at", s)
	}
	return nil
}

// startHTTP runs the binary bin, which serves at d.url, and waits until
// it accepts connections there.
func (d *devServer) startHTTP(ctx context.Context, bin string) error {
	cmd := exec.Command(bin, d.args...)
	cmd.Dir = d.tf.cwd
	cmd.Env = append(os.Environ(), d.tf.env...)
	cmd.Stdout, cmd.Stderr = d.stderr, d.stderr
	ownProcessGroup(cmd) // Ctrl-C reaches mcp dev, which stops it in order
	if err := cmd.Start(); err != nil {
		return err
	}
	p := &devProcess{cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()
	d.proc = p
	u, _ := url.Parse(d.url)
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), map[string]string{"http": "80", "https": "443"}[u.Scheme])
	}
	deadline := time.Now().Add(devListenTimeout)
	for {
		c, err := (&net.Dialer{Timeout: time.Second}).DialContext(ctx, "tcp", host)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("the server exited (%v) before listening at %s", cmd.ProcessState, d.url)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server did not listen at %s within %s", d.url, devListenTimeout)
		}
	}
}

// stopHTTP ends the server mcp dev --url runs, if any: an interrupt, as
// Ctrl-C would send it, then, if it has not exited after a while (or
// where there are no signals), a kill.
func (d *devServer) stopHTTP() {
	p := d.proc
	if p == nil {
		return
	}
	d.proc = nil
	if runtime.GOOS == "windows" || p.cmd.Process.Signal(os.Interrupt) != nil {
		_ = p.cmd.Process.Kill()
	}
	select {
	case <-p.done:
	case <-time.After(devStopTimeout):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// startServer starts the binary bin and connects the page to it: over
// stdio, or at --url.
func (d *devServer) startServer(ctx context.Context, in *inspector, bin string) error {
	if d.url == "" {
		return in.connect(ctx, append([]string{bin}, d.args...), &d.tf)
	}
	if err := d.startHTTP(ctx, bin); err != nil {
		in.disconnect([]string{d.url}, err)
		return err
	}
	return in.connect(ctx, []string{d.url}, &targetFlags{})
}

// stopServer ends the session of the page and the server.
func (d *devServer) stopServer(in *inspector) {
	in.close()
	d.stopHTTP()
}
