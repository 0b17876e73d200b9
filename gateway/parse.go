package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Bounds on a configuration file. A gateway's file is its operator's, but
// it is read before anything else runs, so a mistake (a log pasted in its
// place, a generated file gone wrong) is refused with a clear error rather
// than served.
const (
	MaxConfigSize = 4 << 20 // bytes of a configuration file
	maxServers    = 256     // upstream servers in one file
	maxNameLen    = 128     // bytes of a server's name
	maxListLen    = 1024    // args, env entries, headers of one server
	maxTimeout    = time.Hour
)

// ParseConfig reads a gateway's configuration from the JSON of a host's
// MCP configuration file, unchanged:
//
//   - Claude Desktop, Cursor, Claude Code (.mcp.json, ~/.claude.json) and
//     Windsurf: {"mcpServers": {NAME: SERVER}};
//   - VS Code's .vscode/mcp.json: {"servers": {NAME: SERVER}, "inputs": [...]},
//     and its settings.json: {"mcp": {"servers": {...}}}.
//
// Comments and trailing commas, which VS Code allows in its files (JSONC),
// are allowed. A SERVER is a command ("command", "args", "env", "cwd") or a URL ("url",
// "headers"; Windsurf's "serverUrl" and Gemini's "httpUrl" too), with an
// optional "type": "stdio", "http" (also "streamable-http" and
// "streamableHttp"), or "sse". The gateway's own fields are "prefix",
// "maxConcurrency", "disabled", "logLevel", "auth" ("oauth" or "none") and
// "timeout" (a duration such as "30s"; a number is ignored, since hosts
// disagree on its unit), and at the top "separator" and "access" (rules
// read strictly, as ParseAccess reads them). Every other field a host
// writes is ignored.
//
// Variables in command, args, env, cwd, url and headers are expanded from
// the gateway's environment: ${VAR} and ${VAR:-default} (Claude Code),
// ${env:VAR} (VS Code, Cursor) and ${userHome}. A variable that is not set
// and has no default is an error naming the server, not an empty
// credential; ${input:...} and ${workspaceFolder} need a host the gateway
// is not, and are errors too. The value of a variable is not expanded again.
func ParseConfig(data []byte) (*Config, error) {
	return parseConfig(data, os.LookupEnv)
}

// file is the shape of a configuration file: the gateway's own top-level
// fields (plainConfig) and the places hosts keep their servers, which
// shadow Config.Servers.
type file struct {
	*plainConfig
	MCPServers json.RawMessage `json:"mcpServers"`
	Servers    json.RawMessage `json:"servers"`
	MCP        *struct {
		Servers json.RawMessage `json:"servers"`
	} `json:"mcp"`
	Access json.RawMessage `json:"access"` // read strictly (parseRules)
}

// plainConfig and plainUpstream are Config and Upstream without methods,
// so that decoding into them never calls a method of theirs.
type (
	plainConfig   Config
	plainUpstream Upstream
)

// server is one server entry: the gateway's fields (plainUpstream) and
// the fields of hosts read into them.
type server struct {
	*plainUpstream
	ServerURL string          `json:"serverUrl"` // Windsurf
	HTTPURL   string          `json:"httpUrl"`   // Gemini CLI: Streamable HTTP
	Timeout   json.RawMessage `json:"timeout"`
	EnvFile   json.RawMessage `json:"envFile"` // VS Code
}

func parseConfig(data []byte, lookup func(string) (string, bool)) (*Config, error) {
	cfg, f, sources, err := decodeFile(data)
	if err != nil {
		return nil, fmt.Errorf("gateway config: %w", err)
	}
	if isSet(f.Access) {
		rules, err := parseRules(data, 0, f.Access)
		if err != nil {
			return nil, err
		}
		cfg.Access = rules
	}
	cfg.Servers = map[string]*Upstream{}
	if len(sources) == 0 {
		return nil, errors.New(`gateway config: no servers: want {"mcpServers": {NAME: {...}}} or VS Code's {"servers": {...}}`)
	}
	x := expander{lookup: lookup}
	for _, raw := range sources {
		if err := addServers(cfg, raw, x); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}

// decodeFile decodes a configuration file's top level into a Config
// (without its servers) and returns the objects of servers it holds, in
// the order they are read.
func decodeFile(data []byte) (*Config, file, []json.RawMessage, error) {
	if len(data) > MaxConfigSize {
		return nil, file{}, nil, fmt.Errorf("larger than %d bytes", MaxConfigSize)
	}
	cfg := &Config{}
	f := file{plainConfig: (*plainConfig)(cfg)}
	if err := json.Unmarshal(stripJSONC(data), &f); err != nil {
		return nil, f, nil, describe(err)
	}
	var sources []json.RawMessage
	for _, raw := range []json.RawMessage{f.MCPServers, f.Servers} {
		if isSet(raw) {
			sources = append(sources, raw)
		}
	}
	if f.MCP != nil && isSet(f.MCP.Servers) {
		sources = append(sources, f.MCP.Servers)
	}
	return cfg, f, sources, nil
}

// ParseServer reads the server called name from data, the JSON of a host's
// configuration file, as ParseConfig reads each of its servers. It is for
// a program that reaches one server of such a file (the mcp command's
// @NAME), so that it and the gateway cannot disagree on what the file
// says. Only that server's variables are expanded, so that a mistake in
// another server is not in the way, and a disabled server is read as any
// other, since it is asked for by name. path is where the file is:
// ${workspaceFolder} expands to the directory holding its .vscode or
// .cursor folder, or else to its own directory. found is false when no
// server has that name.
func ParseServer(data []byte, name, path string) (up *Upstream, found bool, err error) {
	_, _, sources, err := decodeFile(data)
	if err != nil {
		return nil, false, err
	}
	x := expander{lookup: os.LookupEnv}
	if path != "" {
		if x.workspace, err = workspaceOf(path); err != nil {
			return nil, false, err
		}
	}
	for _, raw := range sources {
		err := eachServer(raw, func(n string, body json.RawMessage) error {
			if n != name {
				return nil
			}
			if found {
				return fmt.Errorf("server %q is given twice", name)
			}
			found = true
			if up, err = decodeServer(body); err == nil {
				err = finishServer(up, x)
			}
			if err != nil {
				return fmt.Errorf("server %q: %w", name, err)
			}
			return nil
		})
		if err != nil {
			return nil, false, err
		}
	}
	return up, found, nil
}

// workspaceOf is the workspace folder of the configuration file at path:
// the directory holding its .vscode or .cursor folder, or else its own.
func workspaceOf(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	dir := filepath.Dir(abs)
	if b := filepath.Base(dir); b == ".vscode" || b == ".cursor" {
		dir = filepath.Dir(dir)
	}
	return dir, nil
}

// isSet reports whether raw holds a value other than null.
func isSet(raw json.RawMessage) bool {
	return len(raw) > 0 && !bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// addServers reads one object of servers into cfg, in the file's order,
// refusing a name given twice (in one object, as JSON would let the last
// one win silently, or in both mcpServers and servers).
func addServers(cfg *Config, raw json.RawMessage, x expander) error {
	err := eachServer(raw, func(name string, body json.RawMessage) error {
		if err := checkName(name); err != nil {
			return fmt.Errorf("server %q: %w", name, err)
		}
		if _, dup := cfg.Servers[name]; dup {
			return fmt.Errorf("server %q is given twice", name)
		}
		if len(cfg.Servers) == maxServers {
			return fmt.Errorf("more than %d servers", maxServers)
		}
		up, err := parseServer(body, x)
		if err != nil {
			return fmt.Errorf("server %q: %w", name, err)
		}
		cfg.Servers[name] = up
		return nil
	})
	if err != nil {
		return fmt.Errorf("gateway config: %w", err)
	}
	return nil
}

// eachServer calls do with each name and entry of one object of servers,
// in the file's order, until do returns an error.
func eachServer(raw json.RawMessage, do func(name string, body json.RawMessage) error) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errors.New("the servers must be an object of NAME: {...}")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		name := t.(string) // an object's keys are strings
		var body json.RawMessage
		if err := dec.Decode(&body); err != nil {
			return fmt.Errorf("server %q: %w", name, describe(err))
		}
		if err := do(name, body); err != nil {
			return err
		}
	}
	return nil
}

// checkName refuses a server name that cannot be shown or used as a prefix
// of names: empty, too long, not UTF-8, or with control characters.
func checkName(name string) error {
	switch {
	case name == "":
		return errors.New("a server needs a name")
	case len(name) > maxNameLen:
		return fmt.Errorf("the name is longer than %d bytes", maxNameLen)
	case !utf8.ValidString(name):
		return errors.New("the name is not UTF-8")
	case strings.ContainsFunc(name, unicode.IsControl):
		return errors.New("the name has a control character")
	}
	return nil
}

// parseServer reads one server entry of a gateway's file.
func parseServer(body json.RawMessage, x expander) (*Upstream, error) {
	up, err := decodeServer(body)
	if err != nil {
		return nil, err
	}
	if up.Disabled {
		return up, nil // left out: neither expanded nor checked further
	}
	return up, finishServer(up, x)
}

// decodeServer decodes one server entry and folds the hosts' fields into
// the gateway's, without expanding its variables.
func decodeServer(body json.RawMessage) (*Upstream, error) {
	if !bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
		return nil, errors.New("want an object with command or url")
	}
	up := &Upstream{}
	s := server{plainUpstream: (*plainUpstream)(up)}
	if err := json.Unmarshal(body, &s); err != nil {
		return nil, describe(err)
	}
	if err := s.hostFields(); err != nil {
		return nil, err
	}
	if len(up.Args) > maxListLen || len(up.Env) > maxListLen || len(up.Headers) > maxListLen {
		return nil, fmt.Errorf("more than %d args, env entries or headers", maxListLen)
	}
	if up.MaxConcurrency < 0 {
		return nil, errors.New("maxConcurrency must not be negative")
	}
	return up, nil
}

// finishServer expands an entry's variables and checks its transport.
func finishServer(up *Upstream, x expander) error {
	if err := expandUpstream(up, x); err != nil {
		return err
	}
	return checkTransport(up)
}

// hostFields folds the fields some hosts use into the gateway's.
func (s *server) hostFields() error {
	up := s.plainUpstream
	if isSet(s.EnvFile) {
		return errors.New("envFile is not supported: put the variables in env, where ${VAR} takes them from the gateway's environment")
	}
	for _, alt := range []struct{ v, t string }{{s.ServerURL, ""}, {s.HTTPURL, string(TransportHTTP)}} {
		if alt.v == "" {
			continue
		}
		if up.URL != "" && up.URL != alt.v {
			return errors.New("url is given twice (url, serverUrl or httpUrl), with different values")
		}
		up.URL = alt.v
		if alt.t != "" && up.Type == "" {
			up.Type = Transport(alt.t)
		}
	}
	switch strings.ToLower(string(up.Type)) {
	case "":
	case "stdio":
		up.Type = TransportStdio
	case "http", "streamable-http", "streamablehttp":
		up.Type = TransportHTTP
	case "sse":
		up.Type = TransportSSE
	default:
		return fmt.Errorf("type %q: want stdio, http (or streamable-http) or sse", up.Type)
	}
	switch up.Auth {
	case "", AuthOAuth, AuthNone:
	default:
		return fmt.Errorf("auth %q: want %q (an OAuth login: mcp login URL) or %q", up.Auth, AuthOAuth, AuthNone)
	}
	return s.timeout()
}

// timeout reads "timeout" when it is a duration ("30s"). A number is
// ignored: Gemini CLI means milliseconds and Cline seconds, so a gateway
// reading either would be wrong for the other's files.
func (s *server) timeout() error {
	if !isSet(s.Timeout) || s.Timeout[0] != '"' {
		return nil
	}
	var v string
	if err := json.Unmarshal(s.Timeout, &v); err != nil {
		return fmt.Errorf("timeout: %w", err)
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 || d > maxTimeout {
		return fmt.Errorf("timeout %q: want a duration such as \"30s\", at most %v", v, maxTimeout)
	}
	s.plainUpstream.Timeout = d
	return nil
}

// checkTransport checks that an upstream names exactly one way to reach it,
// one its type agrees with, and fills in the type.
func checkTransport(up *Upstream) error {
	switch {
	case up.Command != "" && up.URL != "":
		return errors.New("both command and url: give one")
	case up.Command == "" && up.URL == "":
		return errors.New("neither command nor url")
	case up.Command != "":
		if up.Type != "" && up.Type != TransportStdio {
			return fmt.Errorf("type %q needs a url, not a command", up.Type)
		}
		if len(up.Headers) > 0 {
			return errors.New("headers apply to a url, not to a command (give env)")
		}
		if up.Auth == AuthOAuth {
			return errors.New(`"auth": "oauth" applies to a url, not to a command`)
		}
		up.Type = TransportStdio
		return nil
	}
	if up.Type == TransportStdio {
		return errors.New(`type "stdio" needs a command, not a url`)
	}
	if len(up.Args) > 0 || len(up.Env) > 0 || up.Cwd != "" {
		return errors.New("args, env and cwd apply to a command, not to a url")
	}
	u, err := url.Parse(up.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("url %q: want an http:// or https:// URL", up.URL)
	}
	if up.Type == "" {
		up.Type = TransportHTTP
	}
	return nil
}

// expandUpstream expands the variables of every field that may hold them.
// x is a copy: its error is this upstream's.
func expandUpstream(up *Upstream, x expander) error {
	up.Command = x.expand("command", up.Command)
	up.Cwd = x.expand("cwd", up.Cwd)
	up.URL = x.expand("url", up.URL)
	for i, a := range up.Args {
		up.Args[i] = x.expand(fmt.Sprintf("args[%d]", i), a)
	}
	for k, v := range up.Env {
		up.Env[k] = x.expand("env "+k, v)
	}
	for k, v := range up.Headers {
		up.Headers[k] = x.expand("header "+k, v)
		if x.err == nil && !validHeader(k, up.Headers[k]) {
			x.err = fmt.Errorf("header %q: not a valid HTTP header name and value", k)
		}
	}
	return x.err
}

// validHeader reports whether name is an HTTP token and value has no
// control character but tab (so no line break a variable's value could
// smuggle in).
func validHeader(name, value string) bool {
	if name == "" {
		return false
	}
	for _, c := range []byte(name) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	for _, c := range []byte(value) {
		if (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// expander expands ${...} in values, keeping the first error.
type expander struct {
	lookup    func(string) (string, bool)
	workspace string // ${workspaceFolder}; "" when the file's place is not known
	err       error
}

// expand returns v with its variables replaced; where names the field in
// an error. Text without "${", or a "${" never closed, is kept as is.
func (x *expander) expand(where, v string) string {
	if !strings.Contains(v, "${") {
		return v
	}
	var b strings.Builder
	for {
		before, rest, ok := strings.Cut(v, "${")
		b.WriteString(before)
		if !ok {
			return b.String()
		}
		ref, after, ok := strings.Cut(rest, "}")
		if !ok {
			b.WriteString("${" + rest)
			return b.String()
		}
		val, err := x.variable(ref)
		if err != nil && x.err == nil {
			x.err = fmt.Errorf("%s: %w", where, err)
		}
		b.WriteString(val)
		v = after
	}
}

// variable is the value of one ${ref}.
func (x *expander) variable(ref string) (string, error) {
	name, def, hasDef := strings.Cut(ref, ":-")
	switch {
	case strings.HasPrefix(ref, "env:"):
		name, hasDef = ref[len("env:"):], false
	case ref == "userHome":
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("${userHome}: %w", err)
		}
		return home, nil
	case ref == "workspaceFolder" && x.workspace != "":
		return x.workspace, nil
	case strings.HasPrefix(ref, "input:"), strings.HasPrefix(ref, "workspaceFolder"):
		return "", fmt.Errorf("${%s} needs a host (its prompt or its workspace): give the value, or ${VAR} from the environment", ref)
	}
	if !validVarName(name) {
		return "", fmt.Errorf("${%s}: not a variable name", ref)
	}
	if val, ok := x.lookup(name); ok {
		return val, nil
	}
	if hasDef {
		return def, nil
	}
	return "", fmt.Errorf("${%s}: %s is not set in the environment (set it, or give a default: ${%s:-VALUE})", ref, name, name)
}

// validVarName reports whether name can be an environment variable's name:
// letters, digits and underscores, not starting with a digit.
func validVarName(name string) bool {
	if name == "" || (name[0] >= '0' && name[0] <= '9') {
		return false
	}
	for _, c := range name {
		if c != '_' && !('a' <= c && c <= 'z') && !('A' <= c && c <= 'Z') && !('0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// describe rewrites encoding/json's errors to name the field and what was
// expected, without Go's type names.
func describe(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		want := te.Type.Kind().String()
		switch want {
		case "map", "struct":
			want = "an object"
		case "slice":
			want = "an array"
		case "int", "int64":
			want = "a number"
		case "string", "bool":
			want = "a " + want
		}
		field := te.Field
		for _, p := range []string{"plainUpstream.", "plainConfig."} {
			field = strings.TrimPrefix(field, p)
		}
		if field == "" {
			return fmt.Errorf("want %s, not %s", want, te.Value)
		}
		return fmt.Errorf("%s: want %s, not %s", field, want, te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("not JSON: %v (at byte %d)", se, se.Offset)
	}
	return err
}

// stripJSONC blanks out the comments (// and /* */) and trailing commas
// (before } or ]) of data outside strings, keeping every other byte where
// it was, so that error offsets still point into the file. It returns data
// itself when there is nothing to blank.
func stripJSONC(data []byte) []byte {
	if !bytes.ContainsAny(data, "/,") {
		return data
	}
	out := bytes.Clone(data)
	comma := -1 // the last comma outside strings, while only blanks follow it
	for i := 0; i < len(out); i++ {
		switch c := out[i]; {
		case c == '"':
			i = stringEnd(out, i)
			comma = -1
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			end := bytes.Index(out[i+2:], []byte("*/"))
			if end < 0 {
				return out // unterminated: the decoder says so
			}
			for j := i; j < i+2+end+2; j++ {
				if out[j] != '\n' {
					out[j] = ' '
				}
			}
			i += 2 + end + 1
		case c == ',':
			comma = i
		case c == '}' || c == ']':
			if comma >= 0 {
				out[comma] = ' '
			}
			comma = -1
		case c != ' ' && c != '\t' && c != '\n' && c != '\r':
			comma = -1
		}
	}
	return out
}

// stringEnd returns the index of the quote ending the string that starts
// at data[start], or the last index when it never ends.
func stringEnd(data []byte, start int) int {
	for i := start + 1; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(data) - 1
}
