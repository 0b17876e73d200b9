package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// Exit codes.
const (
	ExitOK        = 0   // success
	ExitToolError = 1   // the tool ran and returned isError
	ExitUsage     = 2   // bad command line or configuration
	ExitConnect   = 3   // the server could not be started or reached, or --timeout passed
	ExitAuth      = 4   // the server answered HTTP 401 or 403
	ExitProtocol  = 5   // the server answered with a JSON-RPC error, or the session broke
	ExitCancelled = 130 // interrupted (Ctrl-C)

	// ExitBreaking is mcp diff's status when a change is breaking: 1, as
	// diff(1) exits 1 when files differ (a compatible change exits 0).
	ExitBreaking = 1
)

// Usage is the text of mcp help.
const Usage = `usage: mcp <command> [flags] [arguments] TARGET...

TARGET names the server; it is everything after the command's own flags:
  http://HOST/PATH, https://...  Streamable HTTP (legacy HTTP+SSE if refused)
  COMMAND [ARG...]               a server run as a subprocess over stdio
  card:URL                       the server a Server Card describes (its first
                                 remote); also any URL ending in /server-card,
                                 or an AI Catalog that lists a single card
  @NAME                          a server from a config file: --config FILE, or
                                 the first of ./mcp.json, ./.vscode/mcp.json,
                                 ./.cursor/mcp.json, ~/.cursor/mcp.json and
                                 Claude Desktop's claude_desktop_config.json
                                 that has NAME, read as mcp gateway reads
                                 its CONFIG (see mcp help gateway), with
                                 ${workspaceFolder} too: the folder
                                 holding .vscode or .cursor

commands:
  info TARGET                    server name, revision, capabilities, instructions
  tools TARGET                   list tools (every page)
  resources TARGET               list resources
  templates TARGET               list resource templates
  prompts TARGET                 list prompts
  call TOOL [KEY=VALUE...] TARGET
                                 call a tool; values are typed from the tool's
                                 input schema (numbers, booleans, JSON arrays and
                                 objects), strings otherwise; --args JSON gives
                                 the whole object; --out DIR saves images/audio,
                                 --out FILE.json the whole result;
                                 --task runs it as a task, followed to its end
  read URI TARGET                read a resource
  get PROMPT [KEY=VALUE...] TARGET
                                 render a prompt (--args JSON also accepted)
  complete REF ARG[=VALUE] [KEY=VALUE...] TARGET
                                 complete an argument; REF is a prompt name or
                                 a resource template URI, KEY=VALUE are the
                                 arguments already chosen
  ping TARGET                    check that the server answers
  snapshot [-o FILE] TARGET      the server's surface as stable JSON: serverInfo,
                                 capabilities, extensions, instructions, tools,
                                 prompts, resources, templates (every page);
                                 keys sorted, volatile fields dropped
  diff OLD NEW                   compare two snapshots or servers (OLD one word:
                                 a file, URL, @NAME or a quoted command); every
                                 change is breaking or compatible; exit 1 if
                                 one is breaking
  schema TOOL TARGET             one tool in full: its schemas, annotations
  log-level LEVEL TARGET         set the server's log level (in mcp shell:
                                 and print its log messages from then on)
  tasks [list | get ID | result ID | cancel ID] TARGET
                                 follow tasks (mcp call --task starts one;
                                 a tool that requires a task gets one)
  proxy [--stdio] TARGET         relay a client on stdin/stdout to TARGET, e.g.
                                 to give a stdio-only client an HTTP server;
                                 --allow/--deny [tools:|prompts:|resources:]GLOB
                                 hide items (repeatable, with --http too)
  proxy --http ADDR TARGET       serve TARGET (e.g. a stdio server) over
                                 Streamable HTTP at http://ADDR/mcp
  gateway [--http ADDR] CONFIG   serve the servers of CONFIG (an mcpServers
                                 file of Claude Desktop, Cursor, Claude Code,
                                 or VS Code's servers) as one server, their
                                 tools and prompts prefixed with their names;
                                 on stdio, or at http://ADDR/mcp with /readyz
  shell [--exit-on-error] TARGET an interactive session: the commands above
                                 without TARGET, with history and tab
                                 completion of commands, tools, prompts,
                                 resources and argument names; roots add|remove
                                 changes the roots offered
  mock [--http ADDR] FILE        serve canned tools, resources and prompts from
                                 a JSON or YAML file (for testing hosts), on
                                 stdio or over HTTP at http://ADDR/mcp
  inspect [--addr ADDR] TARGET   the web inspector: a page on 127.0.0.1 to
                                 browse, call, read and answer the server,
                                 with a live log of every message
  registry init [flags] [DIR]    write server.json for the MCP Registry from
                                 the Go module in DIR (see mcp help registry)
  registry validate [FILE] [--against TARGET...]
                                 check server.json against the registry's
                                 schema, and that the live server matches it
  card URL                       fetch and validate a Server Card or an AI
                                 Catalog (and the cards it lists)
  install --host H [flags] URL | -- COMMAND [ARG...]
                                 put a server into a host's config file
                                 (claude-desktop, claude-code, cursor, vscode,
                                 windsurf, codex, gemini; --all: those found),
                                 in its own format, other entries untouched
  uninstall NAME                 take it out again (every host, or --host)
  list-installed [--json]        the servers in every host's files
  dev [--no-open] [--url URL] DIR [-- ARG...]
                                 while writing a Go server: build the main
                                 package in DIR, run it in the inspector, and
                                 rebuild, restart and reconnect it on each save
  login [--no-browser] URL       log in with OAuth (the browser, or
                                 --client-id/--client-secret) and keep the
                                 tokens for URL in the user config dir,
                                 gomcp/tokens/, one 0600 file per server
  logout URL                     forget them
  try                            see it work: the demo server, in this
                                 process, through a few commands, each with
                                 its messages on the wire
  serve [--http ADDR]            run the demo server on stdio, or over HTTP
  help [COMMAND]                 this text, or a command's in detail, with
                                 its --json output
  version                        the version of mcp (also --version)

flags (anywhere before TARGET, even before the command, or after a URL or
@NAME):
` + flagTable + `
--json output (field names as in the MCP schema):
  info       {"protocolVersion","stateless","serverInfo":{"name","version",...},
              "capabilities":{...},"instructions"}
  tools      {"tools":[Tool...]}       every page, merged
  resources  {"resources":[Resource...]}
  templates  {"resourceTemplates":[ResourceTemplate...]}
  prompts    {"prompts":[Prompt...]}
  call       CallToolResult: {"content":[...],"structuredContent":...,"isError":...}
  read       ReadResourceResult: {"contents":[{"uri","mimeType","text"|"blob"}...]}
  get        GetPromptResult: {"description","messages":[{"role","content"}...]}
  complete   {"completion":{"values":[...],"total","hasMore"}}
  ping       {"ok":true,"milliseconds":N}
  tasks      {"tasks":[Task...]}; get: the task; result: CallToolResult
  a failure  {"error":{"message","exitCode","code"?,"data"?}} (code and data:
             the server's JSON-RPC error); a tool error is its CallToolResult

exit status: 0 success, 1 the tool returned isError (mcp diff: a change is
breaking), 2 usage, 3 cannot connect or --timeout passed, 4 authorization
refused (HTTP 401/403), 5 error from the server (a JSON-RPC error, or a
broken session), 130 interrupted.
`

// usageError marks an error in the command line.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// connectError marks a failure to reach the server.
type connectError struct{ error }

func (e connectError) Unwrap() error { return e.error }

// Run runs the client command in args (args[0] is the command), writing
// its output to stdout and its diagnostics to stderr, and returns the exit
// status. Cancelling ctx cancels the request in flight (the server is sent
// notifications/cancelled) and ends the session. The server's questions
// (elicitation, sampling) are asked on stderr and answered from stdin when
// stdin is a terminal or --no-input=false is given, and declined otherwise.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, Usage)
		return ExitUsage
	}
	args = hoistCommand(args)
	name, args := args[0], args[1:]
	if name == "help" || name == "-h" || name == "--help" {
		return help(stdout, stderr, args)
	}
	if name == "version" || name == "--version" {
		return printVersion(stdout)
	}
	if name == "login" || name == "logout" {
		return runLogin(ctx, name, args, stdout, stderr)
	}
	if name == "mock" {
		return runMock(ctx, args, stdin, stdout, stderr)
	}
	if name == "registry" {
		return runRegistry(ctx, args, stdin, stdout, stderr)
	}
	if name == "card" {
		return runCard(ctx, args, stdout, stderr)
	}
	if name == "diff" {
		return runDiff(ctx, args, stdout, stderr)
	}
	if name == "install" || name == "uninstall" || name == "list-installed" {
		return runInstall(name, args, stdout, stderr)
	}
	if name == "dev" {
		return runDev(ctx, args, stdout, stderr)
	}
	if name == "gateway" {
		return runGateway(ctx, args, stdin, stdout, stderr)
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "mcp: unknown command %q (see mcp help)\n", name)
		return ExitUsage
	}
	// A server run as a command writes its stderr to ours, concurrently.
	stderr = &lockedWriter{w: stderr}
	inv := &invocation{stdout: stdout, stderr: stderr}
	noInput := !isTerminal(stdin)
	err := inv.parse(name, c.positional, args, &noInput)
	if !noInput {
		inv.ask = &asker{in: stdin, out: stderr}
		defer inv.ask.close()
	}
	if errors.Is(err, flag.ErrHelp) {
		return help(stdout, stderr, []string{name})
	}
	switch {
	case err != nil:
	case name == "proxy" && inv.httpAddr != "":
		err = inv.proxyHTTP(ctx)
	case name == "proxy":
		err = inv.proxy(ctx, stdin, stdout)
	case name == "inspect":
		err = inv.inspect(ctx)
	case name == "shell":
		inv.liveRoots = true
		err = inv.run(ctx, func(ctx context.Context, inv *invocation, cs *mcp.ClientSession) error {
			return inv.shell(ctx, cs, stdin)
		})
	default:
		err = inv.run(ctx, c.run)
		if name == "complete" && len(inv.target) > 1 && errors.Is(err, exec.ErrNotFound) {
			// The form complete REF ARG VALUE TARGET of old.
			err = connectError{fmt.Errorf("%w (the value goes with its argument, as ARG=VALUE: is %q the value?)", err, inv.target[0])}
		} else if (name == "call" || name == "get") && errors.Is(err, exec.ErrNotFound) && plainWord(inv.target[0]) {
			// call greet nameAda SERVER: the first word of the target
			// is an argument that lost its "=".
			err = connectError{fmt.Errorf("%w (is %q a KEY=VALUE argument missing its \"=\"? The server comes after the arguments)", err, inv.target[0])}
		}
	}
	return inv.report(ctx, err)
}

// help prints the help of the command named in args, or the overview.
func help(stdout, stderr io.Writer, args []string) int {
	if len(args) == 0 {
		fmt.Fprint(stdout, Usage)
		return ExitOK
	}
	text, ok := commandHelp[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "mcp: no command %q (see mcp help)\n", args[0])
		return ExitUsage
	}
	fmt.Fprint(stdout, text)
	if _, client := commands[args[0]]; client || args[0] == "diff" {
		fmt.Fprint(stdout, commonFlags)
	}
	return ExitOK
}

// report prints err in one line and maps it to an exit status.
func report(ctx context.Context, stderr io.Writer, err error) int {
	code, msg, _ := classify(ctx, err)
	if msg != "" {
		fmt.Fprintln(stderr, "mcp:", msg)
	}
	return code
}

// classify maps err to an exit status and a one-line message, empty when
// nothing is left to say (success, a tool error whose result is printed,
// a shell already stopped), and returns the JSON-RPC error err holds, if
// any.
func classify(ctx context.Context, err error) (code int, msg string, je *jsonrpc.Error) {
	if err == nil {
		return ExitOK, "", nil
	}
	var (
		ue usageError
		he *mcphttp.HTTPError
		ce connectError
		te toolError
		se shellExit
	)
	msg, code = err.Error(), ExitProtocol
	switch {
	case errors.As(err, &se):
		return int(se), "", nil
	case errors.As(err, &te):
		return ExitToolError, "", nil
	case errors.As(err, &ue):
		code = ExitUsage
	case ctx.Err() != nil:
		msg, code = "interrupted", ExitCancelled
	case errors.As(err, &he) && (he.StatusCode == 401 || he.StatusCode == 403), errors.As(err, new(notLoggedIn)):
		code = ExitAuth
	case errors.As(err, &je):
		msg, code = fmt.Sprintf("server error %d: %s", je.Code, je.Message), ExitProtocol
	case errors.As(err, &ce), errors.Is(err, context.DeadlineExceeded):
		code = ExitConnect
	}
	for strings.HasPrefix(msg, "mcp: ") {
		msg = msg[len("mcp: "):]
	}
	return code, strings.ReplaceAll(msg, "\n", " "), je
}

// report reports err as the package's report does, and under --json also
// writes it on stdout, so that a script reading stdout always gets one
// document: {"error": {"message", "exitCode", "code"?, "data"?}}, with
// the JSON-RPC error's code and data when the server answered with one.
func (inv *invocation) report(ctx context.Context, err error) int {
	code, msg, je := classify(ctx, err)
	if msg == "" {
		return code
	}
	fmt.Fprintln(inv.stderr, "mcp:", msg)
	if inv.json {
		type envelope struct {
			Message  string          `json:"message"`
			ExitCode int             `json:"exitCode"`
			Code     *int64          `json:"code,omitempty"`
			Data     json.RawMessage `json:"data,omitempty"`
		}
		e := envelope{Message: msg, ExitCode: code}
		if je != nil {
			e.Code, e.Data = &je.Code, je.Data
		}
		_ = inv.printJSON(map[string]any{"error": e})
	}
	return code
}

// shellExit ends mcp shell --exit-on-error with the status of the line
// that failed, whose error has been reported.
type shellExit int

func (e shellExit) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// lockedWriter serialises writes to w. It does not pass on io.ReaderFrom,
// so that copying a child's stderr into it goes through Write too. On a
// terminal it holds the progress line (status), which whatever else is
// written (a log line, the server's own stderr, a report) ends first, so
// that nothing is glued to it, whichever of the shell's commands or the
// server wrote it.
type lockedWriter struct {
	mu      sync.Mutex
	w       io.Writer
	midLine bool // a progress line is open
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.endLineLocked()
	return l.w.Write(p)
}

// status writes line in place of the open progress line, leaving it open.
func (l *lockedWriter) status(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "\r\033[K%s", line)
	l.midLine = true
}

// endLine ends the open progress line, if any.
func (l *lockedWriter) endLine() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.endLineLocked()
}

func (l *lockedWriter) endLineLocked() {
	if l.midLine {
		fmt.Fprintln(l.w)
		l.midLine = false
	}
}

// toolError is returned when the tool answered with isError; the result has
// already been printed.
type toolError struct{ error }

// command describes one client command: how many positional arguments come
// before the KEY=VALUE pairs and the target, and what it does.
type command struct {
	positional int
	run        func(ctx context.Context, inv *invocation, cs *mcp.ClientSession) error
}

var commands = map[string]command{
	"info":      {0, runInfo},
	"tools":     {0, runTools},
	"resources": {0, runResources},
	"templates": {0, runTemplates},
	"prompts":   {0, runPrompts},
	"call":      {1, runCall},
	"read":      {1, runRead},
	"get":       {1, runGet},
	"complete":  {2, runComplete},
	"ping":      {0, runPing},
	"proxy":     {0, nil}, // see invocation.proxy
	"inspect":   {0, nil}, // see invocation.inspect
	"shell":     {0, nil}, // see invocation.shell
	"tasks":     {0, runTasks},
	"schema":    {1, runSchema},
	"log-level": {1, runLogLevel},
	"snapshot":  {0, runSnapshot},
}

// invocation is one parsed command line.
type invocation struct {
	stdout, stderr io.Writer

	ask *asker // answers elicitation and sampling; nil under --no-input

	json         bool
	verbose      bool
	timeout      time.Duration
	version      string
	argsJSON     string
	out          outFlag      // call --out
	task         bool         // call --task: let the server run the call as a task
	noWait       bool         // call --no-wait: print the task instead of following it
	rootDirs     listFlag     // --root: the directories offered as roots
	roots        *rootSet     // the roots offered, once connected
	liveRoots    bool         // the shell: roots may change, so they are declared even when none
	addr         string       // inspect --addr
	httpAddr     string       // proxy --http
	remote       bool         // proxy --allow-remote: --http may listen off loopback
	hosts        listFlag     // proxy --allow-host: the Host names accepted, instead of the defaults
	allow, deny  listFlag     // proxy --allow, --deny: patterns of the items shown or hidden (see guard)
	inShell      bool         // a line of mcp shell: no target
	level        string       // --log-level
	showLogs     *atomic.Bool // print the server's log messages (shared with the shell's lines)
	exitOnError  bool         // shell --exit-on-error: the first failing line ends the shell
	snapshotFile string       // snapshot -o: the file written instead of stdout
	tf           targetFlags
	pos          []string          // the positional arguments
	kv           map[string]string // KEY=VALUE pairs
	kvOrder      []string          // their keys, in the order given
	target       []string
	gw           gatewayFlags // mcp gateway's own flags (--access, --auth-*, --redis, ...)
}

// flagSet declares the flags of the command name; "" declares those of
// every command, for hoistCommand.
func (inv *invocation) flagSet(name string, noInput *bool) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.BoolVar(&inv.json, "json", false, "")
	fs.BoolVar(&inv.verbose, "v", false, "")
	fs.StringVar(&inv.level, "log-level", "", "")
	fs.DurationVar(&inv.timeout, "timeout", 0, "")
	fs.StringVar(&inv.version, "protocol-version", "", "")
	fs.Var(&inv.tf.headers, "H", "")
	fs.Var(&inv.tf.env, "e", "")
	fs.StringVar(&inv.tf.cwd, "cwd", "", "")
	fs.StringVar(&inv.tf.config, "config", "", "")
	fs.BoolVar(noInput, "no-input", *noInput, "")
	fs.Var(&inv.rootDirs, "root", "")
	all := name == ""
	if all || name == "call" || name == "get" {
		fs.StringVar(&inv.argsJSON, "args", "", "")
	}
	if all || name == "call" {
		fs.Var(&inv.out, "out", "")
		fs.BoolVar(&inv.task, "task", false, "")
		fs.BoolVar(&inv.noWait, "no-wait", false, "")
	}
	if all || name == "proxy" {
		fs.StringVar(&inv.httpAddr, "http", "", "")
		fs.BoolVar(&inv.remote, "allow-remote", false, "")
		fs.Var(&inv.hosts, "allow-host", "")
		fs.Var(&inv.allow, "allow", "")
		fs.Var(&inv.deny, "deny", "")
		fs.Bool("stdio", true, "") // the default: a client on stdin and stdout
	}
	if all || name == "shell" {
		fs.BoolVar(&inv.exitOnError, "exit-on-error", false, "")
	}
	if all || name == "inspect" {
		fs.StringVar(&inv.addr, "addr", "127.0.0.1:0", "")
	}
	if all || name == "snapshot" {
		fs.StringVar(&inv.snapshotFile, "o", "", "")
	}
	return fs
}

// hoistCommand moves the command to the front when flags come before it
// (mcp --root . call ...), so that Run finds it in args[0].
func hoistCommand(args []string) []string {
	noInput := false
	fs := new(invocation).flagSet("", &noInput)
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") || a == "-" {
			if a == "--" || i == 0 {
				return args
			}
			return append(append([]string{a}, args[:i]...), args[i+1:]...)
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := fs.Lookup(name)
		if f == nil {
			return args // an unknown flag: parse says so
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !hasValue && !(ok && b.IsBoolFlag()) {
			i++ // its value
		}
	}
	return args
}

// parse reads flags wherever they appear before the target, then npos
// positional arguments, KEY=VALUE pairs, and the target. mcp tasks takes
// as many positional arguments as its verb needs, if one is given.
func (inv *invocation) parse(name string, npos int, args []string, noInput *bool) error {
	fs := inv.flagSet(name, noInput)
	rest := args
	wantKV := name == "call" || name == "get" || name == "complete"
	for len(rest) > 0 {
		if name == "tasks" && len(inv.pos) == 1 && npos == 2 && isTaskID(fs, rest[0]) {
			inv.pos = append(inv.pos, rest[0]) // an id such as -hfJla60: not a flag
			rest = rest[1:]
			continue
		}
		if strings.HasPrefix(rest[0], "-") && rest[0] != "-" {
			chunk := rest
			if name == "tasks" && len(inv.pos) == 1 && npos == 2 {
				chunk = oneFlag(fs, rest) // the id after it may start with '-'
			}
			if err := fs.Parse(chunk); err != nil {
				return usageError{err}
			}
			after := append(fs.Args(), rest[len(chunk):]...)
			consumed := rest[:len(rest)-len(after)]
			rest = after
			if len(consumed) > 0 && consumed[len(consumed)-1] == "--" {
				break
			}
			continue
		}
		if n, ok := tasksVerbs[rest[0]]; ok && name == "tasks" && len(inv.pos) == 0 {
			npos = n
		}
		if len(inv.pos) < npos {
			inv.pos = append(inv.pos, rest[0])
			rest = rest[1:]
			continue
		}
		if k, v, ok := keyValue(rest[0]); ok && wantKV {
			if inv.kv == nil {
				inv.kv = map[string]string{}
			}
			if _, dup := inv.kv[k]; !dup {
				inv.kvOrder = append(inv.kvOrder, k)
			}
			inv.kv[k] = v
			rest = rest[1:]
			continue
		}
		break
	}
	if len(inv.pos) < npos {
		return usageError{fmt.Errorf("%s: missing arguments (see mcp help)", name)}
	}
	if inv.inShell {
		if len(rest) > 0 {
			if wantKV && !strings.Contains(rest[0], "=") {
				return usageError{fmt.Errorf("%s: unexpected argument %q: is its \"=\" missing? (KEY=VALUE)", name, rest[0])}
			}
			return usageError{fmt.Errorf("%s: unexpected arguments %q", name, rest)}
		}
		return nil
	}
	if len(rest) == 0 {
		return usageError{fmt.Errorf("%s: no server given: name a URL, a command, or @NAME", name)}
	}

	// Nothing follows a URL or @NAME, so flags may come after it too.
	if isTargetStart(rest[0]) && len(rest) > 1 {
		if err := fs.Parse(rest[1:]); err != nil {
			return usageError{err}
		}
		if fs.NArg() > 0 {
			return usageError{fmt.Errorf("%s: unexpected arguments after %s: %q", name, rest[0], fs.Args())}
		}
		rest = rest[:1]
	}
	inv.target = rest
	return nil
}

// plainWord reports whether s could be a KEY=VALUE that lost its "=": a
// plain identifier, no path.
func plainWord(s string) bool {
	_, _, ok := keyValue(s + "=")
	return ok && !strings.ContainsAny(s, `/\`)
}

// isTaskID reports whether s, where mcp tasks wants a task id, is one
// that starts with '-' (ids are often base64url) rather than a flag.
func isTaskID(fs *flag.FlagSet, s string) bool {
	name, _, _ := strings.Cut(strings.TrimLeft(s, "-"), "=")
	return strings.HasPrefix(s, "-") && s != "-" && s != "--" && fs.Lookup(name) == nil
}

// oneFlag returns the first flag of args with its value, if it takes one
// as the next argument.
func oneFlag(fs *flag.FlagSet, args []string) []string {
	name, _, hasValue := strings.Cut(strings.TrimLeft(args[0], "-"), "=")
	f := fs.Lookup(name)
	if f == nil || hasValue || len(args) < 2 {
		return args[:1]
	}
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return args[:1]
	}
	return args[:2]
}

// isTargetStart reports whether s can only begin a target.
func isTargetStart(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "@") || strings.HasPrefix(s, "card:")
}

// keyValue splits KEY=VALUE where KEY is a plain identifier, so that a URL
// with a query or a command is not mistaken for one.
func keyValue(s string) (k, v string, ok bool) {
	k, v, ok = strings.Cut(s, "=")
	if !ok || k == "" {
		return "", "", false
	}
	for _, r := range k {
		if !(r == '_' || r == '-' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return "", "", false
		}
	}
	return k, v, true
}

// run connects to the target and runs f on the session.
func (inv *invocation) run(ctx context.Context, f func(context.Context, *invocation, *mcp.ClientSession) error) error {
	if inv.version != "" && !slices.Contains(mcp.SupportedVersions(), inv.version) {
		return usageError{fmt.Errorf("--protocol-version %q: want one of %s", inv.version, strings.Join(mcp.SupportedVersions(), ", "))}
	}
	stream, err := openStream(inv.target, &inv.tf, inv.stderr)
	if errors.As(err, new(connectError)) {
		return err // a card that could not be fetched
	} else if err != nil {
		return usageError{err}
	}
	if inv.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, inv.timeout)
		defer cancel()
	}
	opts := &mcp.ClientOptions{
		ProtocolVersion:      inv.version,
		ElicitationHandler:   inv.answerElicitation,
		CreateMessageHandler: inv.answerSampling,
	}
	// Log messages are printed once a level is asked for: -v, --log-level,
	// or log-level in the shell.
	if inv.showLogs == nil {
		inv.showLogs = new(atomic.Bool)
	}
	opts.LoggingMessageHandler = inv.printLog
	// Roots are declared when there are some, and in the shell, where
	// roots add may offer them later.
	if inv.roots, err = newRootSet(inv.rootDirs); err != nil {
		return usageError{err}
	}
	if len(inv.rootDirs) > 0 || inv.liveRoots {
		opts.Roots = inv.roots.list()
	}
	var rootsAsked <-chan struct{}
	if len(inv.rootDirs) > 0 || inv.liveRoots {
		opts.Receiving = append(opts.Receiving, inv.roots.seen.middleware())
	}
	if len(inv.rootDirs) > 0 {
		rootsAsked = inv.roots.seen.next()
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "gomcp-cli", Version: "0.1.0"}, opts)
	inv.roots.attach(client)
	cs, err := client.Connect(ctx, stream)
	if err != nil {
		var je *jsonrpc.Error
		if errors.As(err, &je) || ctx.Err() != nil {
			if inv.timeout > 0 && errors.Is(err, context.DeadlineExceeded) {
				err = fmt.Errorf("timed out after %s connecting: %w", inv.timeout, err)
			}
			return err
		}
		return connectError{err}
	}
	defer cs.Close()
	if rootsAsked != nil && !cs.Stateless() {
		awaitRootsList(ctx, rootsAsked)
	}
	if level, err := inv.logLevel(); err != nil {
		return err
	} else if level != 0 && cs.ServerCapabilities().Logging != nil {
		inv.showLogs.Store(true)
		if err := cs.SetLoggingLevel(ctx, level); err != nil {
			fmt.Fprintln(inv.stderr, "mcp: logging/setLevel:", err)
		}
	}
	err = f(ctx, inv, cs)
	if inv.timeout > 0 && errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("timed out after %s: %w", inv.timeout, err)
	}
	return err
}

// printLog prints a server log message on stderr.
func (inv *invocation) printLog(_ context.Context, _ *mcp.ClientSession, p *mcp.LoggingMessageNotificationParams) {
	if !inv.showLogs.Load() {
		return
	}
	data := string(p.Data)
	var s string
	if json.Unmarshal(p.Data, &s) == nil {
		data = s
	}
	if p.Logger != "" {
		fmt.Fprintf(inv.stderr, "[%s] %s: %s\n", p.Level, p.Logger, data)
		return
	}
	fmt.Fprintf(inv.stderr, "[%s] %s\n", p.Level, data)
}
