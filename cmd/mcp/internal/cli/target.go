package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/gomcp/sdk/gateway"
	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/transport"
	"github.com/gomcp/sdk/transport/mcphttp"
	"github.com/gomcp/sdk/transport/mcphttp/servercard"
)

// configPaths returns the files searched for @NAME, first match wins.
func configPaths() []string {
	paths := []string{"mcp.json", filepath.Join(".vscode", "mcp.json"), filepath.Join(".cursor", "mcp.json")}
	if home, err := os.UserHomeDir(); err == nil {
		paths = append(paths, filepath.Join(home, ".cursor", "mcp.json"))
	}
	// UserConfigDir is ~/Library/Application Support on macOS, %AppData% on
	// Windows and $XDG_CONFIG_HOME or ~/.config elsewhere: where Claude
	// Desktop keeps its configuration on each.
	if dir, err := os.UserConfigDir(); err == nil {
		paths = append(paths, filepath.Join(dir, "Claude", "claude_desktop_config.json"))
	}
	return paths
}

// lookupServer finds the server name in file, or in the usual places when
// file is empty, and reads its entry as the gateway does (gateway.ParseServer):
// both read the same files, so they must agree on what an entry says.
func lookupServer(name, file string) (gateway.Upstream, error) {
	paths := configPaths()
	if file != "" {
		paths = []string{file}
	}
	for _, p := range paths {
		b, err := readFileBounded(p, gateway.MaxConfigSize)
		if errors.Is(err, os.ErrNotExist) && file == "" {
			continue
		}
		if err != nil {
			return gateway.Upstream{}, err
		}
		up, found, err := gateway.ParseServer(b, name, p)
		if err != nil {
			return gateway.Upstream{}, fmt.Errorf("%s: %w", p, err)
		}
		if found {
			return *up, nil
		}
	}
	if file != "" {
		return gateway.Upstream{}, fmt.Errorf("no server %q in %s", name, file)
	}
	return gateway.Upstream{}, fmt.Errorf("no server %q in %s", name, strings.Join(paths, ", "))
}

// targetFlags are the flags that shape the connection.
type targetFlags struct {
	headers listFlag
	env     listFlag
	cwd     string
	config  string
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ", ") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// startStream starts up if it is a stream that must be started before
// use (jsonrpc.Starter), and closes it if that fails.
func startStream(ctx context.Context, up jsonrpc.Stream) error {
	if st, ok := up.(jsonrpc.Starter); ok {
		if err := st.Start(ctx); err != nil {
			_ = up.Close()
			return err
		}
	}
	return nil
}

// openStream turns target (a URL, @NAME, or a command and its arguments)
// into a stream for mcp.Client.Connect. Errors are usage errors.
func openStream(target []string, tf *targetFlags, stderr io.Writer) (jsonrpc.Stream, error) {
	if len(target) == 0 {
		return nil, errors.New("no server given: name a URL, a command, or @NAME from a config file")
	}
	sc := gateway.Upstream{Cwd: tf.cwd}
	switch first := target[0]; {
	case isCardTarget(first):
		if len(target) > 1 {
			return nil, fmt.Errorf("unexpected arguments after the card: %q", target[1:])
		}
		r, err := resolveCard(first)
		if err != nil && !errors.Is(err, servercard.ErrInvalid) {
			return nil, connectError{err}
		} else if err != nil {
			return nil, err
		}
		sc.URL, sc.Type = r.URL, gateway.Transport(r.Type)
		noteRequiredHeaders(r, tf.headers, stderr)
	case strings.HasPrefix(first, "http://") || strings.HasPrefix(first, "https://"):
		if len(target) > 1 {
			return nil, fmt.Errorf("unexpected arguments after the URL: %q", target[1:])
		}
		sc.URL = first
	case strings.HasPrefix(first, "@"):
		if len(target) > 1 {
			return nil, fmt.Errorf("unexpected arguments after %s: %q", first, target[1:])
		}
		var err error
		if sc, err = lookupServer(first[1:], tf.config); err != nil {
			return nil, err
		}
		if tf.cwd != "" {
			sc.Cwd = tf.cwd
		}
	default:
		sc.Command, sc.Args = first, target[1:]
	}
	if sc.URL != "" {
		if len(tf.env) > 0 || tf.cwd != "" {
			return nil, errors.New("-e and --cwd apply to a command, not to a URL")
		}
		h := http.Header{}
		for k, v := range sc.Headers {
			h.Set(k, v)
		}
		given := http.Header{} // -H replaces a header of the same name from the config
		for _, kv := range tf.headers {
			k, v, ok := strings.Cut(kv, ":")
			if !ok || strings.TrimSpace(k) == "" {
				return nil, fmt.Errorf("-H %q: want 'Name: value'", kv)
			}
			given.Add(strings.TrimSpace(k), strings.TrimSpace(v))
		}
		for k, v := range given {
			h[k] = v
		}
		opts := &mcphttp.ClientOptions{Header: h}
		// The tokens of mcp login, refreshed as needed, unless the command
		// line or the config gives an Authorization header.
		if h.Get("Authorization") == "" {
			az, err := storedAuthorizer(TokenDir(), sc.URL)
			if err != nil {
				return nil, err
			}
			opts.Authorizer = az
		}
		if sc.Type == gateway.TransportSSE {
			return mcphttp.NewSSEClientStream(sc.URL, opts), nil
		}
		return mcphttp.NewClientStream(sc.URL, opts), nil
	}
	if sc.Command == "" {
		return nil, errors.New("the server entry has neither a command nor a url")
	}
	if len(tf.headers) > 0 {
		return nil, errors.New("-H applies to a URL, not to a command")
	}
	cmd := exec.Command(sc.Command, sc.Args...)
	cmd.Dir = sc.Cwd
	ownProcessGroup(cmd)
	cmd.Env = os.Environ()
	for k, v := range sc.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	for _, kv := range tf.env {
		if !strings.Contains(kv, "=") {
			return nil, fmt.Errorf("-e %q: want KEY=VALUE", kv)
		}
		cmd.Env = append(cmd.Env, kv)
	}
	return &transport.CommandTransport{Cmd: cmd, Stderr: stderr}, nil
}

// noteRequiredHeaders says which headers a card marks required that -H
// does not give: the card describes them, it never holds their values.
func noteRequiredHeaders(r servercard.Remote, given []string, stderr io.Writer) {
	for _, h := range r.Headers {
		if !h.IsRequired {
			continue
		}
		found := false
		for _, kv := range given {
			k, _, _ := strings.Cut(kv, ":")
			found = found || strings.EqualFold(strings.TrimSpace(k), h.Name)
		}
		if !found {
			fmt.Fprintf(stderr, "mcp: note: the card says header %s is required (%s); give it with -H '%s: ...'\n", h.Name, h.Description, h.Name)
		}
	}
}
