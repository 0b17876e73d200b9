package cli

import (
	"context"
	"encoding/json"
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

// serverConfig is one server entry of a configuration file, in the shape
// shared by mcp.json, Claude Desktop, VS Code and Cursor.
type serverConfig struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// configFile is a configuration file: Claude Desktop and Cursor use
// mcpServers, VS Code uses servers.
type configFile struct {
	MCPServers map[string]serverConfig `json:"mcpServers"`
	Servers    map[string]serverConfig `json:"servers"`
}

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
// file is empty. Each file is read up to the gateway's configuration limit:
// they are the same files.
func lookupServer(name, file string) (serverConfig, error) {
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
			return serverConfig{}, err
		}
		var cf configFile
		if err := json.Unmarshal(b, &cf); err != nil {
			return serverConfig{}, fmt.Errorf("%s: %v", p, err)
		}
		sc, ok := cf.MCPServers[name]
		if !ok {
			sc, ok = cf.Servers[name]
		}
		if ok {
			return sc.expand(p)
		}
	}
	if file != "" {
		return serverConfig{}, fmt.Errorf("no server %q in %s", name, file)
	}
	return serverConfig{}, fmt.Errorf("no server %q in %s", name, strings.Join(paths, ", "))
}

// expand replaces the variables VS Code and Cursor allow in a server entry
// read from file: ${env:NAME}, ${userHome} and ${workspaceFolder} (the
// directory holding .vscode or .cursor, or else the file's). ${input:...}
// needs a prompt this command does not offer.
func (sc serverConfig) expand(file string) (serverConfig, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return sc, err
	}
	workspace := filepath.Dir(abs)
	if b := filepath.Base(workspace); b == ".vscode" || b == ".cursor" {
		workspace = filepath.Dir(workspace)
	}
	var bad error
	expand := func(v string) string {
		var b strings.Builder
		for {
			before, rest, ok := strings.Cut(v, "${")
			b.WriteString(before)
			if !ok {
				return b.String()
			}
			name, after, ok := strings.Cut(rest, "}")
			if !ok {
				b.WriteString("${" + rest)
				return b.String()
			}
			switch {
			case strings.HasPrefix(name, "env:"):
				b.WriteString(os.Getenv(name[len("env:"):]))
			case name == "userHome":
				home, _ := os.UserHomeDir()
				b.WriteString(home)
			case name == "workspaceFolder":
				b.WriteString(workspace)
			default:
				bad = fmt.Errorf("%s: ${%s} is not supported (only ${env:NAME}, ${userHome} and ${workspaceFolder})", file, name)
			}
			v = after
		}
	}
	out := sc
	out.Command, out.Cwd, out.URL = expand(sc.Command), expand(sc.Cwd), expand(sc.URL)
	out.Args = nil
	for _, a := range sc.Args {
		out.Args = append(out.Args, expand(a))
	}
	out.Env, out.Headers = map[string]string{}, map[string]string{}
	for k, v := range sc.Env {
		out.Env[k] = expand(v)
	}
	for k, v := range sc.Headers {
		out.Headers[k] = expand(v)
	}
	return out, bad
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
	sc := serverConfig{Cwd: tf.cwd}
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
		sc.URL, sc.Type = r.URL, r.Type
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
		if sc.Type == "sse" {
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
