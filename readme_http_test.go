package sdk_test

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/transport/mcphttp"
	"github.com/gomcp/sdk/transport/mcphttp/servercard"
)

// The README's HTTP servers listen on ":8080" or "localhost:8080", and its
// Redis server dials "127.0.0.1:6379". Here they are built to listen on a
// free loopback port of the test's, and to dial the Redis of the test run
// (GOMCP_REDIS_URL), so that they run beside anything else.
var (
	readmeListenAddr = regexp.MustCompile(`"(localhost)?:8080"`)
	readmeRedisAddr  = regexp.MustCompile(`"127\.0\.0\.1:6379"`)
	readmeHosts      = regexp.MustCompile(`AllowedHosts:\s*\[\]string\{"([^"]+)"`)
)

// freeLoopbackAddr returns a loopback address with a port free now.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// localAddrs rewrites a README block's listen address to addr, and its
// Redis address to the test run's Redis, if any. The rewrite keeps every
// line where it was, so that errors still name README lines.
func localAddrs(code []byte, addr string) []byte {
	code = readmeListenAddr.ReplaceAll(code, []byte(`"`+addr+`"`))
	if redis := redisAddr(); redis != "" {
		code = readmeRedisAddr.ReplaceAll(code, []byte(`"`+redis+`"`))
	}
	return code
}

// redisAddr is the host:port of GOMCP_REDIS_URL, or "".
func redisAddr() string {
	u := os.Getenv("GOMCP_REDIS_URL")
	u = strings.TrimPrefix(u, "redis://")
	host, _, _ := strings.Cut(u, "/")
	return host
}

// notRunHere says why a block serving HTTP cannot run in this test, or "".
func notRunHere(code []byte) string {
	switch {
	case bytes.Contains(code, []byte("auth.New(")):
		return "it verifies tokens of an authorization server at https://as.example.com"
	case bytes.Contains(code, []byte("redisstore.")) && redisAddr() == "":
		return "it needs Redis, and GOMCP_REDIS_URL is not set (scripts/test.sh sets it)"
	}
	return ""
}

// runHTTPBlock starts bin, serving Streamable HTTP at addr, and connects
// to it at each revision of readmeRevs, through a client that names the
// block's allowed host if it has one, using everything it registers (a
// block that registers nothing shows transport options: connecting through
// them is its use); its health probes, if it mounts them, must answer 200.
func runHTTPBlock(t *testing.T, bin, dir, addr string, code []byte) {
	var stderr bytes.Buffer
	cmd := exec.Command(bin)
	cmd.Dir, cmd.Stderr = dir, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	waitListening(t, addr, &stderr)
	hc := &http.Client{Timeout: 10 * time.Second}
	if m := readmeHosts.FindSubmatch(code); m != nil {
		hc.Transport = hostHeader(m[1])
	}
	url := "http://" + addr
	if bytes.Contains(code, []byte(`Handle("/mcp"`)) {
		url += "/mcp"
	}
	for _, rev := range readmeRevs {
		t.Run(rev, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cs, err := readmeClient(rev).Connect(ctx, mcphttp.NewClientStream(url, &mcphttp.ClientOptions{HTTPClient: hc}))
			if err != nil {
				t.Fatalf("Connect %s: %v\n%s", url, err, stderr.Bytes())
			}
			defer func() {
				if err := cs.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			}()
			useServer(ctx, t, cs, rev)
		})
	}
	if bytes.Contains(code, []byte(`"/mcp/server-card"`)) {
		checkReadmeCard(t, hc, "http://"+addr)
	}
	for _, probe := range []string{"/livez", "/readyz"} {
		if !bytes.Contains(code, []byte(`"`+probe+`"`)) {
			continue
		}
		res, err := hc.Get("http://" + addr + probe)
		if err != nil {
			t.Fatalf("%s: %v", probe, err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("%s: %s", probe, res.Status)
		}
	}
}

// waitListening waits until something accepts connections at addr.
func waitListening(t *testing.T, addr string, stderr *bytes.Buffer) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
	}
	t.Fatalf("nothing listens at %s; the program's stderr:\n%s", addr, stderr.Bytes())
}

// hostHeader sends every request with Host set to the host a block's
// AllowedHosts names, as a client reaching it by that name would.
type hostHeader string

func (h hostHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Host = string(h)
	return http.DefaultTransport.RoundTrip(r)
}

// checkReadmeCard checks the Server Card and catalog a README block serves:
// valid, public, and the card the server's own.
func checkReadmeCard(t *testing.T, hc *http.Client, base string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	doc, err := servercard.Fetch(ctx, hc, base+"/mcp/server-card")
	if err != nil || doc.Card == nil {
		t.Fatalf("the README's server card: %v", err)
	}
	if _, err := doc.Card.Endpoint(); err != nil {
		t.Error(err)
	}
	cat, err := servercard.Fetch(ctx, hc, base+servercard.WellKnownCatalogPath)
	if err != nil || cat.Catalog == nil || len(cat.Catalog.Cards()) == 0 {
		t.Fatalf("the README's catalog: %v", err)
	}
}
