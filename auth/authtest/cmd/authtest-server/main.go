// Command authtest-server runs the test authorization server of package
// auth/authtest on its own, for clients and suites outside Go tests (the
// conformance suite's authorization-server scenarios, a manual run of an
// MCP client against `everything-server -auth-issuer`). It prints
// "issuer URL" on its first line of output and serves until interrupted.
//
// It is for tests only: it approves every authorization at once as its
// fixed user, and anyone who reaches it can register any redirect URI and
// get a code. So it listens on loopback addresses only (127.0.0.1, ::1,
// localhost); -allow-remote lets it listen elsewhere, with a warning.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/gomcp/sdk/auth/authtest"
)

func main() {
	addr := flag.String("http", "127.0.0.1:0", "listen on `ADDR` (port 0: a free port)")
	scopes := flag.String("scopes", "", "space-separated `scopes` the server knows (empty: any)")
	path := flag.String("path", "", "give the issuer this `path` (\"/tenant1\"), to test discovery")
	clients := flag.String("clients", "", "pre-registered clients, `id:secret:redirect,...` (secret and redirect may be empty)")
	allowRemote := flag.Bool("allow-remote", false, "listen on a non-loopback address too: anyone who reaches it gets codes for its user")
	flag.Parse()
	if err := checkAddr(*addr, *allowRemote, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "authtest-server:", err)
		os.Exit(2)
	}
	if err := run(*addr, *path, *scopes, *clients); err != nil {
		fmt.Fprintln(os.Stderr, "authtest-server:", err)
		os.Exit(1)
	}
}

// checkAddr refuses a listening address that is not loopback unless
// allowRemote, and warns when it is allowed. The address is judged as
// written, before listening: a host name other than localhost, or none
// (all interfaces), is not loopback.
func checkAddr(addr string, allowRemote bool, stderr io.Writer) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	ip := net.ParseIP(host)
	if strings.EqualFold(host, "localhost") || ip != nil && ip.IsLoopback() {
		return nil
	}
	if !allowRemote {
		return fmt.Errorf("refusing to listen on %q, not a loopback address: this test server approves every authorization, for any redirect URI (-allow-remote to do it anyway)", addr)
	}
	fmt.Fprintf(stderr, "authtest-server: WARNING: listening on %q, not a loopback address: anyone who reaches it can register a client and get codes and tokens for its user. For tests only.\n", addr)
	return nil
}

func run(addr, path, scopes, clients string) error {
	opts := &authtest.Options{Scopes: strings.Fields(scopes)}
	for _, c := range strings.Split(clients, ",") {
		if c == "" {
			continue
		}
		parts := strings.SplitN(c, ":", 3)
		cl := authtest.Client{ID: parts[0]}
		if len(parts) > 1 {
			cl.Secret = parts[1]
		}
		if len(parts) > 2 && parts[2] != "" {
			cl.RedirectURIs = []string{parts[2]}
		}
		opts.Clients = append(opts.Clients, cl)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	as, err := authtest.New("http://"+ln.Addr().String()+path, opts)
	if err != nil {
		ln.Close()
		return err
	}
	fmt.Println("issuer", as.Issuer)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv := &http.Server{Handler: as, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}
