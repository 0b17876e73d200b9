package cli

// commonFlags is the part of every client command's help that describes
// the target and the flags they share.
const commonFlags = `
TARGET is a URL (Streamable HTTP, or legacy HTTP+SSE if the server refuses
it), a command and its arguments (run over stdio), or @NAME from a config
file. Flags may come before or between the arguments, and after a URL or
@NAME, but not after a command, whose arguments are all its own (use --
before a command that starts with -).

flags:
` + flagTable

// flagTable lists the flags every client command shares, for mcp help and
// mcp help COMMAND alike.
const flagTable = `  --json                 one JSON document on stdout
  -H 'Name: value'       add an HTTP header (repeatable)
  -e KEY=VALUE           set an environment variable of a command (repeatable)
  --cwd DIR              working directory of a command
  --config FILE          the config file for @NAME
  --timeout DURATION     give up after this long (e.g. 30s; default none)
  --protocol-version V   ask for revision V (default: negotiate the newest)
  -v                     print the server's log messages on stderr
  --log-level LEVEL      the same, from LEVEL up (-v is debug)
  --root DIR             offer DIR (or a file:// URI) to the server as a root
                         (repeatable; default none: no roots capability);
                         a stateful server is given a moment to ask for them
                         before the command's request
  --no-input             decline the server's requests for user input
                         (elicitation) and for a model reply (sampling)
                         instead of asking on the terminal; the default
                         when stdin is not a terminal (--no-input=false
                         reads the answers from stdin anyway)
`

// commandHelp is the text of mcp help COMMAND.
var commandHelp = map[string]string{
	"registry": `usage: mcp registry init [flags] [DIR]
       mcp registry validate [--json] [FILE] [--against [flags] TARGET...]

init writes server.json, the entry of the official MCP Registry, for the
Go module in DIR (default .), in the schema of 2025-12-11:
  name         from the module path: github.com/OWNER/REPO gives
               io.github.OWNER/REPO, example.com/x/y gives com.example/y
  version      the tag on HEAD (v1.2.3 gives 1.2.3; sub/v1.2.3 too)
  description  the main package's doc comment (its first sentence)
  repository   the GitHub or GitLab repository, with the module's subfolder
  remotes      one streamable-http remote per --url
  packages     one OCI image per --oci (run over stdio). A "go install"
               package is not written: the registry has no Go package type
               yet (proposed); init says so.
flags: --name, --version, --description, --title, --website replace what
is derived; --url URL, --oci IMAGE (repeatable); -o FILE (default
server.json, - for stdout); --force replaces an existing file.

validate checks FILE (default server.json, - for stdin) against the
schema, embedded in mcp (no network), printing each problem with the JSON
pointer of the value at fault. With --against, it then connects to TARGET
(any target, with the client flags before it) and checks that the live
server matches: serverInfo.name is the entry's name (or the part after its
slash), serverInfo.version its version, and the entry lists the transport
TARGET was reached by: a remote of that type and URL, or a stdio package
for a command.

exit status: 0 valid (and matching), 1 invalid or not matching, 2 usage,
3 cannot connect.
--json: {"file", "schema", "against"?, "valid", "problems"?: [{"pointer", "message"}]}
`,
	"card": `usage: mcp card [--json] [--timeout D] URL

Fetches the Server Card (experimental extension
io.modelcontextprotocol/server-card) or AI Catalog at URL and validates it
against the extension's schema, embedded in mcp; for a catalog, fetches
and validates each card it lists (at most 50). No credentials are sent, no
redirect to another origin is followed, documents are limited to 256 KiB,
and each fetch to --timeout (default 10s).

To connect to the server a card describes, give card:URL as the TARGET of
any command (mcp tools card:https://host/mcp/server-card); a URL ending in
/server-card is taken as a card too, and a catalog that lists one card as
that card.

exit status: 0 valid, 1 invalid, 2 usage, 3 cannot fetch.
--json: the card; for a catalog {"catalog", "cards": [{"identifier", "url"?, "card"?, "problems"?}]}
`,
	"info": `usage: mcp info [flags] TARGET...

Shows the server's name and version, the negotiated protocol revision,
whether the session is stateless (2026-07-28), the server's capabilities
and its instructions.

--json: {"protocolVersion": "2026-07-28", "stateless": true,
         "serverInfo": {"name", "title"?, "version", ...},
         "capabilities": {...as the server declared them},
         "instructions"?: "..."}
`,
	"tools": `usage: mcp tools [flags] TARGET...

Lists every tool, fetching every page: its name, its arguments (required
ones first, optional ones marked ?) and the first line of its description.

--json: {"tools": [{"name", "title"?, "description"?, "inputSchema",
         "outputSchema"?, "annotations"?, ...}]}
`,
	"resources": `usage: mcp resources [flags] TARGET...

Lists every resource.

--json: {"resources": [{"uri", "name", "title"?, "description"?,
         "mimeType"?, "size"?, ...}]}
`,
	"templates": `usage: mcp templates [flags] TARGET...

Lists every resource template.

--json: {"resourceTemplates": [{"uriTemplate", "name", "title"?,
         "description"?, "mimeType"?, ...}]}
`,
	"prompts": `usage: mcp prompts [flags] TARGET...

Lists every prompt and its arguments (optional ones marked ?).

--json: {"prompts": [{"name", "title"?, "description"?,
         "arguments"?: [{"name", "description"?, "required"?}]}]}
`,
	"call": `usage: mcp call [flags] TOOL [--args JSON] [--out DIR|FILE.json] [--task [--no-wait]] [KEY=VALUE...] TARGET...

Calls a tool. --args gives the arguments object as JSON; each KEY=VALUE
sets one argument, typed from the tool's input schema: a property that
may be a string takes VALUE as it is, any other (number, integer,
boolean, array, object, null) takes VALUE as JSON, so n=3, on=true and
tags='["a","b"]' work. Text content is printed; images and audio are
described, or saved as DIR/content-I.EXT with --out DIR (DIR is made if
missing; a file that cannot be written fails the command with status 2);
embedded resources are printed; structured output follows, as indented
JSON. --out FILE.json (a path ending in .json) writes the whole result to
FILE.json, as --json prints it, and still prints the result as usual (then
images and audio are only described): the output stays readable and the
result is kept, as a fixture for mcp mock, say. There is no --raw: --json
already prints the whole result on stdout.
Progress notifications are shown on stderr. The exit status is 1 when the
tool reports an error (isError).

Tasks: a tool whose execution.taskSupport is "required" (2025-11-25) is
called as a task without asking, and so is a call a 2026-07-28 server
refuses for want of the tasks extension (-32021); --task asks for a task
where it is optional (a 2026-07-28 server decides). The call then follows the task to its end, printing each new
status on stderr ("task ID: working - message") as it does progress,
and prints its result as above. The task's questions are asked as
elicitation is. Ctrl-C (or --timeout) cancels the task (tasks/cancel).
--no-wait prints the task (its id, status and times; --json: the task
object) instead of waiting: see mcp tasks.

--json: the CallToolResult: {"content": [{"type": "text", "text"} |
         {"type": "image"|"audio", "data", "mimeType"} |
         {"type": "resource", "resource": {"uri", "mimeType"?, "text"|"blob"}} |
         {"type": "resource_link", "uri", "name", ...}],
         "structuredContent"?: ..., "isError"?: true}
`,
	"read": `usage: mcp read [flags] URI TARGET...

Reads a resource: text is printed, binary contents described.

--json: the ReadResourceResult: {"contents": [{"uri", "mimeType"?,
         "text"} | {"uri", "mimeType"?, "blob"}]}
`,
	"get": `usage: mcp get [flags] PROMPT [--args JSON] [KEY=VALUE...] TARGET...

Renders a prompt with its arguments (all strings).

--json: the GetPromptResult: {"description"?, "messages": [{"role",
         "content": {"type", ...as in call}}]}
`,
	"complete": `usage: mcp complete [flags] REF ARGUMENT[=VALUE] [KEY=VALUE...] TARGET...

Asks for completions of a prompt's or a resource template's argument.
REF is a prompt name, or a URI template (anything with ://). ARGUMENT=VALUE
gives the text typed so far (ARGUMENT alone, or ARGUMENT=, completes from
nothing); each KEY=VALUE after it is an argument already chosen, sent as
the request's context. The value is part of the ARGUMENT word so that a
command target is never mistaken for it:

  mcp complete review language=py npx my-server
  mcp complete 'demo://lang/{name}' name --json http://127.0.0.1:8080/mcp

--json: {"completion": {"values": [...], "total"?, "hasMore"?}}
`,
	"ping": `usage: mcp ping [flags] TARGET...

Checks that the server answers (server/discover on a 2026-07-28 server).

--json: {"ok": true, "milliseconds": 3}
`,
	"proxy": `usage: mcp proxy [--stdio] [--allow PATTERN]... [--deny PATTERN]... [flags] TARGET...
       mcp proxy --http ADDR [--allow-remote] [--allow-host NAME]... [--allow|--deny PATTERN]... [flags] TARGET...

Relays every message, unchanged and in both directions (the server's own
requests and notifications too), between a client and TARGET.

By default (--stdio) the client is on stdin and stdout, until it closes
stdin (the answers still due then come out first, within 30 seconds, so
that echo REQUEST | mcp proxy URL works): a client that can only start a server as a command can so reach a
server over HTTP, with the headers given by -H:

  {"command": "mcp", "args": ["proxy", "https://example.com/mcp",
   "-H", "Authorization: Bearer TOKEN"]}

When the HTTP server refuses a request (a 2025-era server refuses the
2026-07-28 server/discover probe with HTTP 400), the refusal goes back to
the client as that request's JSON-RPC error and the proxy goes on, so
that the client falls back to initialize; only HTTP 401 and 403 end it
(exit status 4): the credentials are the proxy's.

With --http ADDR, TARGET (typically a command) is served over Streamable
HTTP at http://ADDR/mcp (port 0 picks a free port; the first line on
stdout is "listening on http://HOST:PORT/mcp"). Each session, opened by an
initialize request, gets its own connection to TARGET (its own process for
a command); DELETE ends it, and at 64 sessions a new one ends the one
idle the longest.

The proxy has no authentication: whoever reaches it drives TARGET, with
the credentials -H gives it. So ADDR must be a loopback address (such as
127.0.0.1:8080) unless --allow-remote is given, which prints a warning.
Requests from another site's page (an Origin that is not the proxy's)
are refused, and so are Host names an attacker could rebind to the
proxy's address (DNS rebinding): on loopback only localhost, 127.0.0.1
and [::1] pass; elsewhere IP addresses and localhost. --allow-host NAME
(repeatable; NAME matches any port, NAME:PORT one, * anything) replaces
those defaults, for clients that reach the proxy by a DNS name.

Both eras pass. To an HTTP target, a 2026-07-28 request (server/discover,
no session) goes with the standard headers it needs (MCP-Protocol-Version,
Mcp-Method, Mcp-Name, and Mcp-Param-* from the x-mcp-header annotations
of the tools the client has listed through the proxy). With --http, each
such request gets a connection to TARGET to itself until its response
(connections are reused, 4 kept idle); the server's messages meanwhile go
on its response stream. In a session, progress goes on the stream of the
request that asked for it, the server's other messages on the newest
request's stream still open, or else on the GET stream.

--allow and --deny (repeatable, both modes) hide tools, prompts and
resources from the client. A PATTERN is [tools:|prompts:|resources:]GLOB,
GLOB as in Go's path.Match (* and ? do not match /, [a-z] classes),
matched against a tool's or a prompt's name and a resource's URI (a
template's URI template); without a prefix it applies to all three. An
item is shown when no --allow pattern of its kind is given or one
matches, and no --deny pattern matches. Hidden items are left out of
every page of tools/list, prompts/list, resources/list and
resources/templates/list, and a call, get, read, subscribe or completion
naming one is answered by the proxy with the error a missing item gets
(the target never sees it):

  mcp proxy --allow 'tools:read_*' --deny 'resources:file:///etc/*' npx my-server
`,
	"gateway": `usage: mcp gateway [--access FILE] [-v] CONFIG
       mcp gateway --http ADDR [--allow-remote] [--allow-host NAME]...
                   [--auth-issuer URL [--auth-resource URI] [--auth-jwks URL] [--auth-scopes 'A B']]
                   [--access FILE] [-v] CONFIG
       mcp gateway --http ADDR (--redis URL | --redis-cluster ADDRS) [--drain-timeout D] ... CONFIG

Serves the servers of CONFIG as one MCP server: on stdio (for a client to
run: {"command": "mcp", "args": ["gateway", "/path/to/servers.json"]}), or
with --http over Streamable HTTP at http://ADDR/mcp (the legacy HTTP+SSE
transport at /sse; the first line on stdout is "listening on
http://HOST:PORT/mcp", printed once every upstream has been tried; ADDR must
be a loopback address unless --allow-remote is given, as for mcp proxy
--http). /readyz answers 200 when every upstream is up, 503 otherwise, with
each upstream's state in JSON; /healthz answers 200 while the gateway serves.

With --redis redis://HOST:PORT/DB (or --redis-cluster HOST:PORT,...), the
gateway is one of several replicas sharing that Redis behind a load
balancer: sessions, resumable streams, notices and tasks live there, so any
replica serves any request. On SIGTERM a replica drains for at most
--drain-timeout (default 20s): /readyz answers 503, new requests get 503
with Retry-After, requests in flight finish, GET streams move to another
replica. A command upstream runs once per replica (see docs/gateway.md,
"Scaling out").

CONFIG is a host's file, unchanged: {"mcpServers": {NAME: SERVER}} (Claude
Desktop, Cursor, Claude Code, Windsurf) or VS Code's {"servers": {...}}.
A SERVER is a command ("command", "args", "env", "cwd") or a URL ("url",
"headers", "type": "http" or "sse"); ${VAR}, ${VAR:-default} and
${env:VAR} are taken from the gateway's environment, and one that is not
set is an error. Gateway fields: "prefix" (a server's tools and prompts
are named PREFIX_NAME; the default prefix is the server's name, none when
there is only one server; "" for none), "separator" at the top (default
"_"), "timeout" ("30s"), "maxConcurrency", "disabled", "auth" (below). Two
servers offering the same name is an error at start, never one hiding the
other.

  {"mcpServers": {
     "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
     "search": {"url": "https://search.example.com/mcp",
                "headers": {"Authorization": "Bearer ${SEARCH_TOKEN}"}}}}

An upstream that cannot be reached, or that dies, is left out of the lists
(clients are told they changed), its calls fail at once, and it is retried
with backoff.

The upstreams' credentials are the gateway's own: a client's token is
never passed on. Besides "headers" and "env", an HTTP server is reached
with the login mcp login stored for its URL (run mcp login URL once, as
the user the gateway runs as), refreshed as needed; "auth": "oauth"
requires one (no login stored is an error at start), "auth": "none" uses
none. The gateway never logs in itself: a login it cannot refresh takes
that server down, with /readyz saying to run mcp login; once it has run,
the server comes back by itself.

--access FILE gives the rules of who sees what (also the "access" field
of CONFIG), read strictly (an unknown field, a wrong type, a rule naming
a server CONFIG lacks are errors with the rule's line):

  {"access": [
     {"upstream": "search", "scopes": ["search:use"]},
     {"upstream": "files", "names": ["write_file"],
      "principals": ["\"https://auth.example.com\" sub \"alice\""]}]}

A feature no rule covers is seen by every caller; a covered one only by
callers whose principal is among "principals" (if given) and whose token
has every scope of "scopes" (if given). "names" are a server's own tool
and prompt names, resource URIs and templates; none covers all of it.

--auth-issuer URL (with --http) requires every request to /mcp and /sse to
carry a bearer token (a JWT) of that authorization server, meant for
--auth-resource (default http://ADDR/mcp; give the URL clients use) and
with the --auth-scopes; the key set comes from the issuer's metadata, or
--auth-jwks. The protected-resource metadata is served at
/.well-known/oauth-protected-resource/mcp. The token's principal and scopes
are what the --access rules name. Without --auth-issuer the gateway has no
authentication of its own: whoever reaches it can use every upstream it
shows (see docs/gateway.md). Over stdio the caller is whoever runs it.
`,
	"mock": `usage: mcp mock [--http ADDR [--allow-remote]] FILE

Serves canned tools, resources and prompts from FILE, for testing a host
or a client against a server whose answers are known: on stdio (for a
client to run: {"command": "mcp", "args": ["mock", "mock.yaml"]}), or
with --http over Streamable HTTP at http://ADDR/mcp (the first line on
stdout is "listening on http://HOST:PORT/mcp"; ADDR must be a loopback
address unless --allow-remote is given, as for mcp proxy --http). FILE is
YAML if its name ends in .yaml or .yml, else JSON; an unknown field is an
error. Each item has the fields it has in a list result, plus its answer:

  server: {name: my-mock, version: "1"}   # default mock 0
  instructions: Use greet to greet.
  tools:
    - name: greet
      description: Greets.
      inputSchema:                        # optional; arguments are checked
        type: object
        properties: {name: {type: string}}
        required: [name]
      text: Hello!                        # the result: one text block, or
    - name: weather
      result:                             # the whole CallToolResult
        content: [{type: text, text: "21 C"}]
        structuredContent: {celsius: 21}
  resources:
    - {uri: mem://readme, name: readme, mimeType: text/plain, text: Read me.}
    - {uri: mem://logo, name: logo, mimeType: image/png, blob: iVBORw0KGgo=}
  prompts:
    - name: review
      arguments: [{name: code, required: true}]
      text: Review this code.             # one user message, or
      # messages: [{role: user, content: {type: text, text: ...}}]

Every call gets the same result, whatever its arguments (call --out
FILE.json saves a real server's result to paste in). A bad result, blob
or message fails at start, with status 2.
`,
	"inspect": `usage: mcp inspect [--addr 127.0.0.1:0] [flags] TARGET...

Runs the web inspector for TARGET: prints "inspector at URL" and serves
the page there until interrupted. Open the URL in a browser. The page,
built into the binary, lists the tools, resources, templates and prompts;
builds a form from each tool's input schema; shows results (text, images,
audio, embedded resources, structured output next to the output schema);
logs every JSON-RPC message both ways (one line each, opened into the
message pretty-printed; searched; filtered by direction, method and
session; each request's time); lists the server's notifications, with a
log-level selector (logging/setLevel); keeps a history of your calls, to
run again or copy as an mcp command line or as JSON; shows progress; asks
you the server's elicitation and sampling requests; and connects to
another target without a restart. It has light and dark themes, and
keyboard shortcuts (? lists them). When TARGET cannot be reached, the page
says why and waits for another target.

MCP Apps: the inspector declares the io.modelcontextprotocol/ui extension
(it renders text/html;profile=mcp-app views). Calling a tool whose
_meta.ui names a ui:// view renders the view above the result, in a
sandboxed frame on a second loopback port (another origin), under the
Content-Security-Policy the reference host grants (inline scripts, eval,
blob: workers; no network) plus the origins the view's _meta.ui.csp
declares. The page plays the host: it sends
the view the call's input and result (or its cancellation), passes its
tools/call and resources/read to the server (only tools whose visibility
includes "app"; a name the server does not list goes to it as it is, for
mcp gateway to resolve), asks you before opening a link (http and https only),
logs its messages, model-context updates and log lines, resizes it, and
sends ui/resource-teardown before it goes. App-only tools (visibility
["app"]) are listed as such, without a form: the page plays the model,
which is not offered them.

It listens on a loopback address only. The URL holds a random token:
requests without it, with another Host, or from another site's page
(Origin) are refused.
`,
	"dev": `usage: mcp dev [--addr 127.0.0.1:0] [--no-open] [--url URL] [flags] DIR [-- ARG...]

While writing a server in Go: builds the main package in DIR (go build,
into a temporary directory), runs it with ARG... over stdio (or, with
--url, as a server of Streamable HTTP at URL, which ARG... must make it
listen at), and serves the inspector on it as mcp inspect does: it
prints "inspector at URL" and opens that URL in the browser, unless
--no-open. It then watches the server's
sources: the files of its packages in its own module and in modules
replaced by a local directory, their embedded files, go.mod and go.sum
(polled every 300ms; tests and editors' temporary files are left out).
After a save, or a burst of them, it builds again. When the build
succeeds, it stops the old server, starts the new one and reconnects the
page, which lists the tools again and keeps the arguments typed into the
forms (by tool or prompt name). When the build fails, the compiler's
output is shown in the page and on stderr, and the old server keeps
running. Ctrl-C stops the server and removes the binaries.

flags:
  --addr ADDR            the inspector's loopback address (default a free
                         port on 127.0.0.1)
  --no-open              print the URL without opening a browser
  --url URL              the server serves HTTP itself at URL: mcp dev
                         waits for it to listen there (30s at most), and
                         stops it with an interrupt (a kill after 5s)
  -e KEY=VALUE           set an environment variable of the server
                         (repeatable)
  --cwd DIR              the server's working directory (default the
                         current one)
  --root DIR             offer DIR to the server as a root (repeatable)
  --timeout DURATION     give up on a request after this long
  --protocol-version V   ask for revision V
`,
	"shell": `usage: mcp shell [flags] [--exit-on-error] TARGET...

Opens one session with TARGET and reads commands a line at a time: info,
tools, resources, templates, prompts, ping, call, read, get, complete, as
on the command line but without TARGET (help lists them; exit or Ctrl-D
ends). On a terminal it offers line editing, history (up and down; the
last 1000 lines, kept in gomcp/shell_history under the user's config
directory, 0600) and Tab completion of commands, flags, tool and prompt names, resource URIs and
argument names; otherwise it reads plain lines, so that a script can pipe
commands in. The server's questions (elicitation, sampling) are asked in
the shell. A failing command prints its error and the shell goes on;
with --exit-on-error the first failing line (an error, a tool error, a
line that does not parse) ends the shell with that line's exit status, so
that a piped script stops there.

roots [list] [--json], roots add DIR..., roots remove DIR|URI... change
the roots the shell offers (it declares the roots capability even with
none, and starts with those of --root); each change sends
notifications/roots/list_changed.
`,
	"tasks": `usage: mcp tasks [flags] [list | get ID | result ID | cancel ID] TARGET...

Follows tasks: list (the default) lists them, every page (2025-11-25; the
2026-07-28 extension has no list); get shows one's status; result waits
for its end and prints its result as mcp call does (exit 1 for a tool
error); cancel asks the server to cancel it. A 2025-11-25 server keeps
tasks per session, so across commands they are found in mcp shell (or
from another command only on a server that shares them); a 2026-07-28
server finds them by id. Start one with mcp call --task --no-wait.

--json: list {"tasks": [{"taskId", "status", "statusMessage"?,
         "createdAt", "lastUpdatedAt", "ttl", "pollInterval"?}]};
        get {"taskId", "status", "statusMessage"?, "createdAt",
         "lastUpdatedAt", "ttlMs", "pollIntervalMs"?, "inputRequests"?,
         "result"?, "error"?}; result the CallToolResult;
        cancel {"taskId", "cancelRequested": true}
`,
	"schema": `usage: mcp schema [flags] TOOL TARGET...

Shows one tool in full: its name and title, its description, and its
input schema, output schema, annotations and execution (task support),
indented.

--json: the Tool: {"name", "title"?, "description"?, "inputSchema",
         "outputSchema"?, "annotations"?, "execution"?, ...}
`,
	"log-level": `usage: mcp log-level [flags] LEVEL TARGET...

Sets the level of the log messages the server sends (logging/setLevel; on
a 2026-07-28 session, the level the session's later requests carry): one
of debug, info, notice, warning, error, critical, alert, emergency. From
then on the messages are printed on stderr, which is what it is for in
mcp shell. On the command line, --log-level LEVEL does the same for one
command (-v is --log-level debug).

--json: {"level": "debug"}
`,
	"snapshot": `usage: mcp snapshot [flags] [-o FILE] TARGET...

Writes what a client sees of the server, its surface, as stable JSON on
stdout (or to FILE): serverInfo (without its version), the negotiated
revision (--protocol-version chooses it), capabilities, extensions,
instructions, and every tool (schemas, annotations, _meta), prompt,
resource and resource template, from every page. Keys are sorted; tools,
prompts, resources and templates are objects keyed by name, URI or URI
template; arrays whose order carries no meaning (required, enum, type,
anyOf/oneOf/allOf, a prompt's arguments, icons) are sorted; volatile
fields (serverInfo.version, a resource's size and lastModified) are
dropped. The same surface always gives the same bytes: commit the file
and compare it with mcp diff. mcptest.Surface keeps one as a Go test's
golden file.
`,
	"diff": `usage: mcp diff [flags] OLD NEW...

Compares two surfaces and classifies every change as breaking or
compatible. OLD and NEW are snapshot files (mcp snapshot -o FILE) or
servers; OLD is one word (a file, a URL, @NAME, or a command with its
arguments in quotes: "go run ./v1"), NEW is the rest, as any TARGET.
A server is asked for the revision given by --protocol-version, or else
for the revision of the snapshot file it is compared with, so that only
the server's own changes show (two servers negotiate the newest each).

Breaking: a tool, prompt, argument, resource, template, capability or
extension removed; a new required argument, or one made required; a
type changed or narrowed; an enum, range, length, pattern or format
narrowed or added on an input; an output field removed, or no longer
required, or an output widened; the output schema removed; a behaviour
hint (readOnlyHint, destructiveHint, idempotentHint, openWorldHint)
changed, counting defaults; a resource's MIME type changed; a change the
comparison does not understand (not, if, patternProperties...).
Compatible: additions, optional arguments, widened inputs, descriptions,
titles, icons, _meta, instructions.

Prints the changes grouped by class (breaking first) and by area.
Exit status 1 if a change is breaking, 0 otherwise (also when only
compatible changes were found); 2, 3, 4, 5 as for other commands.

--json: {"breaking": true, "changes": [{"class": "breaking"|"compatible",
         "path": "/tools/add/inputSchema/properties/a/type" (a JSON
         Pointer into the snapshots), "message": "..."}]}
`,
	"login": `usage: mcp login [--no-browser] [--client-id ID [--client-secret SECRET]] [--dpop] [--timeout D] URL

Logs in to the MCP server at URL with OAuth and stores the tokens for
every later command on URL, which refreshes them as needed. By default it
opens the authorization page in the browser and waits (up to --timeout,
default 5m) for the browser to come back to a listener on 127.0.0.1;
--no-browser prints the URL instead. It registers itself with the
authorization server unless --client-id names a registered client. With
--client-id and --client-secret it logs in without a person (the client
credentials grant), and later commands obtain new tokens the same way.
The --client-* values go only to the authorization server the login used:
if the server later names another, commands fail until you log in again.
--dpop makes a key and binds the tokens to it (DPoP, RFC 9449) where the
authorization server supports that, so a copied token is of no use
without the key; the key is stored with the tokens.

The tokens, the registration, the --client-* values and the DPoP key live in the
user's configuration directory under gomcp/tokens/, one 0600 file per
server. A -H 'Authorization: ...' on the command line or a header in the
config file wins over them. When they can no longer be refreshed, a
command exits with status 4 and asks to log in again.
`,
	"install": `usage: mcp install (--host H... | --all) [--scope user|project] [--project DIR]
                   [--name NAME] [--env K=V]... [--env-ref K[=VAR]]...
                   [--header 'K: V']... [--header-ref K=VAR]... [--bearer-env VAR]
                   [--dry-run] (URL | -- COMMAND [ARG...])

Writes a server's entry, a command run over stdio or a Streamable HTTP
URL, into the config file of each host named, in that host's own format:

  host            user scope (default)                  project scope
  claude-desktop  claude_desktop_config.json (Claude's   -
                  app config dir: ~/Library/Application
                  Support, %APPDATA%, ~/.config)
  claude-code     ~/.claude.json (mcpServers)           .mcp.json
  cursor          ~/.cursor/mcp.json                    .cursor/mcp.json
  vscode          Code/User/mcp.json (servers)          .vscode/mcp.json
  windsurf        ~/.codeium/windsurf/mcp_config.json   -
  codex           ~/.codex/config.toml ($CODEX_HOME)    .codex/config.toml
  gemini          ~/.gemini/settings.json               .gemini/settings.json

--host takes one host or a comma list, and repeats; --all picks the hosts
whose config file or directory exists. The project is the current
directory, or --project DIR. --name names the entry (default: the
command's name, or the URL's host name; a launcher such as npx or go needs
--name). At user scope, a relative command path is made absolute.

Only that entry's bytes change: every other entry, comment and blank of
the file stays byte for byte. Installing the same entry again changes
nothing; a changed one is updated in place: what mcp writes (type,
command, args, env, url, headers; Codex's env_vars and header keys) is
replaced, and what you added (disabled, timeout, cwd, trust, Codex's tool
approvals) is kept. The file is
copied to FILE.bak before it is written (atomically, its mode kept). A
file that does not parse, or an entry mcp cannot edit in place, is
refused and left as it is; nothing is written to any host then.

Secrets: --env K=V and --header 'K: V' write the value into the file.
--env-ref K (or K=VAR) and --header-ref NAME=VAR write a reference that
the host fills from its own environment when it starts the server, and
--bearer-env VAR sends Authorization: Bearer $VAR: ${VAR} in Claude Code
and Gemini CLI, ${env:VAR} in Cursor, VS Code and Windsurf; Codex gets
env_vars, env_http_headers and bearer_token_env_var (it forwards a
variable under its own name only). Claude Desktop expands no variables
and takes no URL (add remote servers in its Connectors settings, or
install a bridge: -- mcp proxy URL); a reference for it is refused.

--dry-run prints each change as a diff and writes nothing.

exit status: 0 done, 1 a file could not be edited (nothing written), 2 usage.
`,
	"uninstall": `usage: mcp uninstall [--host H...] [--scope user|project] [--project DIR] [--dry-run] NAME

Removes the entry NAME from every host's file (or those of --host, at
--scope) that holds it, splicing out only its bytes, with the same backup,
refusals and --dry-run as mcp install. Exit status 1 when no file holds it.
`,
	"list-installed": `usage: mcp list-installed [--host H...] [--scope user|project] [--project DIR] [--json]

Lists the servers in every host's files, user and project scope: host,
scope, name, and the command or URL. A file that does not parse is named
on stderr (exit status 1) and the others are listed.

--json: {"servers": [{"host", "scope", "name", "file", "command"?,
         "args"?, "url"?}]}
`,
	"logout": `usage: mcp logout URL

Forgets what mcp login stored for URL.
`,
	"version": `usage: mcp version (or mcp --version)

Prints the version of the module mcp was built from, as go install
github.com/gomcp/sdk/cmd/mcp@VERSION records it ("(devel)" and the commit
for a build from a checkout), and the Go version it was built with.
`,
	"try": `usage: mcp try

Runs the demo server (the one mcp serve runs) in this process, over an
in-memory pipe, and walks through info, tools, call (one with progress),
read, get and complete against it. Each command is shown as you would type
it, then the JSON-RPC messages it exchanged, one line each (→ sent,
← received, without their _meta), then its output. It exits when done,
within a second, and needs no other program: the first command to run.
`,
	"serve": `usage: mcp serve [-v] [--http ADDR [--allow-remote]]

Runs the demo server (tools, resources, a template, a prompt, completion,
logging and progress) on stdio, or with --http over Streamable HTTP at
http://ADDR/mcp (port 0 picks a free port; the first line on stdout is
"listening on http://HOST:PORT/mcp"; an address off loopback is refused
unless --allow-remote is given, as for mcp proxy --http). On stdio it is for a client to run
(mcp shell mcp serve, mcp inspect mcp serve, or a host's config); typed at
a terminal, it says so on stderr and waits. mcp try shows it at work.
`,
}
