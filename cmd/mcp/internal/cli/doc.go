// Package cli implements the mcp command's client side: targets (a server
// command or URL), the client commands (info, tools, resources, templates,
// prompts, call, read, get, complete, ping, login, snapshot, diff), the
// shell, the inspector page, proxy and mock, the publishing commands
// (registry init and validate for server.json, card for Server Cards, and
// card: targets), install into the hosts' config files (install.go, on
// package hostconfig), and the exit codes, callable in-process by its tests.
//
// # How it is built
//
// The shell reads lines through a small raw-terminal line editor
// (golang.org/x/term, the only dependency it adds), or plain lines when stdin
// is not a terminal; while a line is being edited, whatever else reaches
// stderr (log lines, a stdio server's own stderr) goes through the editor,
// which prints it above the line and redraws it. A server run as a command
// gets a process group of its own (procgroup_*.go), so that the terminal's
// Ctrl-C reaches only mcp, which cancels the request (notifications/cancelled)
// and, outside the shell, closes the session in order. Elicitation answers, in
// the shell and from the page, are checked with package jsonschema against the
// requested schema, plus the four string formats elicitation allows (which
// that validator treats as annotations), before they are sent. mcp try
// (try.go) runs the demo server of package main over a transport.Pipe and
// drives the client commands themselves against it, a jsonrpc.Stream wrapper
// printing each message. Tasks (task.go) go through the SDK's
// tasks.CallTool: a 2026-07-28 task is followed with
// ToolCall.Updates (which answers its questions), a 2025-11-25 one with Wait
// (tasks/result, where such a server sends its questions) while a goroutine
// polls tasks/get for the status; the same follower reports to stderr for mcp
// call and to the feed for the page. Roots (roots.go) are a set shared by the
// shell or the page and the mcp.Client, whose SetRoots sends the list-changed
// notification. mcp proxy --allow/--deny (guard.go) sits in both proxies'
// message paths: a request naming a hidden item is answered by the proxy
// itself with the error a missing item gets, and the answers to list requests,
// remembered by id while in flight (bounded like the drain set), are rewritten
// without the hidden items, page by page. mcp mock (mock.go) builds an
// ordinary mcp.Server from the file's items (YAML turned into JSON first, so
// both formats decode, strictly, into one set of types that embed the SDK's),
// checking every canned answer before it serves. proxy --http is a relay of
// its own, not mcphttp.Handler (which serves an mcp.Server), behind the same
// Host and Origin checks (mcphttp.CheckHosts): one upstream stream per
// session, responses routed by id to their POST, progress by its token to the
// POST that asked for it, the server's other requests and notifications to the
// newest open POST stream or else the GET stream; a 2026-07-28 request (no
// session) borrows an upstream connection of its own from a small pool until
// its response, after the proxy has checked its standard headers against the
// body as mcphttp.Handler would (mcp.CheckParamHeaders for Mcp-Param-*). To an
// HTTP target, both proxies give stateless requests the SEP-2243 headers
// (mcp.WithHTTPHeaders): proxy --http passes on the client's, proxy on stdio
// computes them like a client (headerBook, which learns x-mcp-header
// annotations from the tools/list answers it relays). The inspector is an
// embedded page (plain HTML/JS/CSS) talking to the process through a small
// JSON API and a server-sent-events feed; a jsonrpc.Stream wrapper (tap)
// publishes every message both ways to that feed, and the server's questions
// wait for the page's answer (bounded). MCP Apps views (inspect_apps.go,
// apps.js, sandbox.js) run on a second loopback listener, the sandbox origin,
// which serves one proxy page per view under the view's CSP; the page
// (apps.js) is the host end of the app bridge and passes the view's tools/call
// and resources/read to the process, which checks the tool's visibility and
// that the view's session is still the current one. cmd/mcp/browsertest is a
// module of its own, so that the SDK never depends on chromedp: it builds mcp
// (and appview, its own app server for the bridge tests; the module requires
// the SDK through a replace of the parent directory) and drives the inspector
// in headless Chromium (the "browser" stage of scripts/test.sh). mcp
// dev (dev.go, dev_watch.go, dev_http.go, inspector/dev.js) is the inspector
// with a builder in place of the first connection: it runs go build into a
// temporary directory, connects the binary as a stdio target (or runs it
// and connects to the --url it listens at), polls the
// files of the packages go list names (the main module's and local
// replacements', their embedded files, go.mod, go.sum), and on a change
// that compiles closes the session (ending the old server) and connects
// the new binary; a build that fails leaves the old session alone and
// publishes the compiler's output as a "dev" event, which the page shows
// in a banner. The page picks the item it showed again once the new
// server's lists are in, and fills its form from what the user typed,
// kept by tool or prompt name. mcp
// login is an oauth.Client with a LoopbackUserAgent (or the client credentials
// grant) that opens one session so that the server's 401 starts the flow; what
// it obtains lives in os.UserConfigDir()/gomcp/tokens/, one oauth.FileStore
// (0600) per server URL holding the token, the registration and the login's
// settings (with --dpop, the private JWK the tokens are bound to: a bound
// refresh token is useless without it). Every later command for that URL
// builds its mcphttp transport with an oauth.Client on that same file, so
// refreshes are written back; its user agent refuses to log in ("run mcp
// login"), since only mcp login may open a browser. mcp snapshot and mcp diff
// (surface.go) are package surface on the command line: diff reads its
// snapshot files first, so that a live side is asked for the revision of the
// file it is compared with.
package cli
