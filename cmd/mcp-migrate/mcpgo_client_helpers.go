package main

// The helpers mcp-go client code is rewritten to call: a stand-in for
// mcp-go's client.Client on gomcp's Client and ClientSession, its
// constructors and options, and mcp-go's transports' constructors.

func init() {
	for k, v := range clientHelperDefs {
		helperDefs[k] = v
	}
	client := []string{"mcpmigrateClient"}
	for _, n := range []string{"mcpmigrateNewClient", "mcpmigrateStdioClient", "mcpmigrateInProcessClient",
		"mcpmigrateInProcessClientWithSampling", "mcpmigrateWithSampling", "mcpmigrateWithRoots",
		"mcpmigrateWithElicitation", "mcpmigrateStderr", "mcpmigrateSamplingHandler", "mcpmigrateRootsHandler",
		"mcpmigrateElicitationHandler"} {
		helperDeps[n] = client
	}
	helperDeps["mcpmigrateClient"] = []string{"mcpmigrateSamplingHandler", "mcpmigrateRootsHandler", "mcpmigrateElicitationHandler"}
	helperDeps["mcpmigrateStdioClient"] = []string{"mcpmigrateClient", "mcpmigrateStdio"}
	helperDeps["mcpmigrateInProcessClientWithSampling"] = []string{"mcpmigrateClient", "mcpmigrateInProcessClient"}
	helperDeps["mcpmigrateStreamableHTTP"] = []string{"mcpmigrateHTTPOption"}
	helperDeps["mcpmigrateContinuousListening"] = []string{"mcpmigrateHTTPOption"}
	helperDeps["mcpmigrateHTTPHeaders"] = []string{"mcpmigrateHTTPOption"}
	helperDeps["mcpmigrateStdioServerOf"] = []string{"mcpmigrateStdioServer"}
}

var clientHelperDefs = map[string]helperDef{
	"mcpmigrateClient": {[]string{"context", "errors", "io", "sync", "github.com/gomcp/sdk/jsonrpc", "github.com/gomcp/sdk/mcp", "github.com/gomcp/sdk/mcp/hooks"}, `// mcpmigrateClient is mcp-go's client.Client on gomcp. gomcp's
// Client.Connect starts the transport and runs the handshake in one step,
// so Start does nothing and Initialize connects, introducing the client as
// its params say; the session's methods (ListTools, Ping, ...) are then
// those of gomcp's ClientSession, with gomcp's params. Its capabilities are
// declared from its handlers, as gomcp does.
type mcpmigrateClient struct {
	*mcp.ClientSession // set by Initialize

	stream jsonrpc.Stream
	opts   mcp.ClientOptions
	roots  mcpmigrateRootsHandler
	client *mcp.Client
	stderr io.Closer // the pipe mcpmigrateStderr made, if any

	mu     sync.Mutex
	notify []func(*mcp.Request)
}

// mcpmigrateClientOption is mcp-go's client.ClientOption.
type mcpmigrateClientOption func(*mcpmigrateClient)

// mcpmigrateNewClient is mcp-go's client.NewClient.
func mcpmigrateNewClient(stream jsonrpc.Stream, opts ...mcpmigrateClientOption) *mcpmigrateClient {
	c := &mcpmigrateClient{stream: stream}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Start is mcp-go's Client.Start: gomcp starts the transport in Initialize.
func (c *mcpmigrateClient) Start(context.Context) error { return nil }

// Initialize is mcp-go's Client.Initialize: it connects (gomcp's
// Client.Connect) and returns the server's initialize result (on a
// 2026-07-28 session, which has no initialize, the revision and
// capabilities the server announced).
func (c *mcpmigrateClient) Initialize(ctx context.Context, p *mcp.InitializeParams) (*mcp.InitializeResult, error) {
	if c.ClientSession != nil {
		return nil, errors.New("client already initialized")
	}
	opts := c.opts
	if p == nil {
		p = &mcp.InitializeParams{}
	}
	if p.ProtocolVersion != "" {
		opts.ProtocolVersion = p.ProtocolVersion
	}
	if c.roots != nil {
		res, err := c.roots.ListRoots(ctx, &mcp.ListRootsParams{})
		if err != nil {
			return nil, err
		}
		opts.Roots = append([]*mcp.Root{}, res.Roots...)
	}
	c.client = mcp.NewClient(p.ClientInfo, &opts)
	hooks.OnNotification(c.client, func(_ context.Context, _ *mcp.ClientSession, r *mcp.Request) {
		c.mu.Lock()
		fs := c.notify
		c.mu.Unlock()
		for _, f := range fs {
			f(r)
		}
	})
	cs, err := c.client.Connect(ctx, c.stream)
	if err != nil {
		return nil, err
	}
	c.ClientSession = cs
	if res := cs.InitializeResult(); res != nil {
		return res, nil
	}
	return &mcp.InitializeResult{ProtocolVersion: cs.ProtocolVersion(), Capabilities: cs.ServerCapabilities(), ServerInfo: &mcp.Implementation{}}, nil
}

// OnNotification is mcp-go's Client.OnNotification: f sees every
// notification the server sends (hooks.OnNotification).
func (c *mcpmigrateClient) OnNotification(f func(n *mcp.Request)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.notify = append(c.notify, f)
}

// CallTool is mcp-go's Client.CallTool.
func (c *mcpmigrateClient) CallTool(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if c.ClientSession == nil {
		return nil, errors.New("client not initialized")
	}
	return c.ClientSession.CallTool(ctx, r.Params)
}

// ReadResource is mcp-go's Client.ReadResource.
func (c *mcpmigrateClient) ReadResource(ctx context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	if c.ClientSession == nil {
		return nil, errors.New("client not initialized")
	}
	return c.ClientSession.ReadResource(ctx, r.Params)
}

// GetPrompt is mcp-go's Client.GetPrompt.
func (c *mcpmigrateClient) GetPrompt(ctx context.Context, r *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	if c.ClientSession == nil {
		return nil, errors.New("client not initialized")
	}
	return c.ClientSession.GetPrompt(ctx, r.Params)
}

// RootListChanges is mcp-go's Client.RootListChanges: the roots handler is
// asked again and the server told (gomcp's Client.SetRoots).
func (c *mcpmigrateClient) RootListChanges(ctx context.Context) error {
	if c.client == nil || c.roots == nil {
		return errors.New("client not initialized or has no roots handler")
	}
	res, err := c.roots.ListRoots(ctx, &mcp.ListRootsParams{})
	if err != nil {
		return err
	}
	c.client.SetRoots(res.Roots...)
	return nil
}

// Close is mcp-go's Client.Close.
func (c *mcpmigrateClient) Close() error {
	if c.stderr != nil {
		defer c.stderr.Close()
	}
	if c.ClientSession == nil {
		return c.stream.Close()
	}
	return c.ClientSession.Close()
}`},
	"mcpmigrateSamplingHandler": {[]string{"context", "github.com/gomcp/sdk/mcp"}, `// mcpmigrateSamplingHandler is mcp-go's client.SamplingHandler.
type mcpmigrateSamplingHandler interface {
	CreateMessage(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error)
}

// mcpmigrateWithSampling is mcp-go's client.WithSamplingHandler
// (gomcp's ClientOptions.CreateMessageHandler).
func mcpmigrateWithSampling(h mcpmigrateSamplingHandler) mcpmigrateClientOption {
	return func(c *mcpmigrateClient) { c.opts.CreateMessageHandler = h.CreateMessage }
}`},
	"mcpmigrateRootsHandler": {[]string{"context", "github.com/gomcp/sdk/mcp"}, `// mcpmigrateRootsHandler is mcp-go's client.RootsHandler. gomcp offers
// the roots it is given (ClientOptions.Roots, Client.SetRoots): the handler
// is asked when the client connects and on RootListChanges.
type mcpmigrateRootsHandler interface {
	ListRoots(ctx context.Context, p *mcp.ListRootsParams) (*mcp.ListRootsResult, error)
}

// mcpmigrateWithRoots is mcp-go's client.WithRootsHandler.
func mcpmigrateWithRoots(h mcpmigrateRootsHandler) mcpmigrateClientOption {
	return func(c *mcpmigrateClient) { c.roots = h }
}`},
	"mcpmigrateElicitationHandler": {[]string{"context", "github.com/gomcp/sdk/mcp"}, `// mcpmigrateElicitationHandler is mcp-go's client.ElicitationHandler.
type mcpmigrateElicitationHandler interface {
	Elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error)
}

// mcpmigrateWithElicitation is mcp-go's client.WithElicitationHandler
// (gomcp's ClientOptions.ElicitationHandler).
func mcpmigrateWithElicitation(h mcpmigrateElicitationHandler) mcpmigrateClientOption {
	return func(c *mcpmigrateClient) { c.opts.ElicitationHandler = h.Elicit }
}`},
	"mcpmigrateStdio": {[]string{"os", "os/exec", "github.com/gomcp/sdk/transport"}, `// mcpmigrateStdio is mcp-go's transport.NewStdio: the server command, run
// when the client connects, with env added to this process's environment.
func mcpmigrateStdio(command string, env []string, args ...string) *transport.CommandTransport {
	cmd := exec.Command(command, args...)
	cmd.Env = append(os.Environ(), env...)
	return &transport.CommandTransport{Cmd: cmd}
}`},
	"mcpmigrateStdioClient": {nil, `// mcpmigrateStdioClient is mcp-go's client.NewStdioMCPClient; the command
// is started by Initialize.
func mcpmigrateStdioClient(command string, env []string, args ...string) (*mcpmigrateClient, error) {
	return mcpmigrateNewClient(mcpmigrateStdio(command, env, args...)), nil
}`},
	"mcpmigrateStderr": {[]string{"io", "github.com/gomcp/sdk/transport"}, `// mcpmigrateStderr is mcp-go's client.GetStderr: the server's standard
// error, for a stdio client not yet initialized.
func mcpmigrateStderr(c *mcpmigrateClient) (io.Reader, bool) {
	t, ok := c.stream.(*transport.CommandTransport)
	if !ok || c.ClientSession != nil || t.Stderr != nil {
		return nil, false
	}
	r, w := io.Pipe()
	t.Stderr, c.stderr = w, w
	return r, true
}`},
	"mcpmigrateInProcessClient": {[]string{"github.com/gomcp/sdk/mcp", "github.com/gomcp/sdk/transport"}, `// mcpmigrateInProcessClient is mcp-go's client.NewInProcessClient: s
// serves the other end of an in-memory pipe (transport.Pipe).
func mcpmigrateInProcessClient(s *mcp.Server, opts ...mcpmigrateClientOption) (*mcpmigrateClient, error) {
	a, b := transport.Pipe()
	s.Connect(b, nil)
	return mcpmigrateNewClient(a, opts...), nil
}`},
	"mcpmigrateInProcessTransport": {[]string{"github.com/gomcp/sdk/jsonrpc", "github.com/gomcp/sdk/mcp", "github.com/gomcp/sdk/transport"}, `// mcpmigrateInProcessTransport is mcp-go's
// transport.NewInProcessTransport: s serves the other end of an in-memory
// pipe.
func mcpmigrateInProcessTransport(s *mcp.Server) jsonrpc.Stream {
	a, b := transport.Pipe()
	s.Connect(b, nil)
	return a
}`},
	"mcpmigrateInProcessClientWithSampling": {[]string{"github.com/gomcp/sdk/mcp"}, `// mcpmigrateInProcessClientWithSampling is mcp-go's
// client.NewInProcessClientWithSamplingHandler.
func mcpmigrateInProcessClientWithSampling(s *mcp.Server, h mcpmigrateSamplingHandler) (*mcpmigrateClient, error) {
	return mcpmigrateInProcessClient(s, mcpmigrateWithSampling(h))
}`},
	"mcpmigrateHTTPOption": {[]string{"github.com/gomcp/sdk/transport/mcphttp"}, `// mcpmigrateHTTPOption is mcp-go's transport.StreamableHTTPCOption.
type mcpmigrateHTTPOption func(*mcphttp.ClientOptions)`},
	"mcpmigrateStreamableHTTP": {[]string{"github.com/gomcp/sdk/jsonrpc", "github.com/gomcp/sdk/transport/mcphttp"}, `// mcpmigrateStreamableHTTP is mcp-go's transport.NewStreamableHTTP
// (gomcp's mcphttp.NewClientStream).
func mcpmigrateStreamableHTTP(url string, opts ...mcpmigrateHTTPOption) (jsonrpc.Stream, error) {
	o := &mcphttp.ClientOptions{}
	for _, f := range opts {
		f(o)
	}
	return mcphttp.NewClientStream(url, o), nil
}`},
	"mcpmigrateContinuousListening": {[]string{"github.com/gomcp/sdk/transport/mcphttp"}, `// mcpmigrateContinuousListening is mcp-go's
// transport.WithContinuousListening: gomcp's client stream opens the
// standalone stream by default.
func mcpmigrateContinuousListening() mcpmigrateHTTPOption {
	return func(o *mcphttp.ClientOptions) { o.DisableStandaloneStream = false }
}`},
	"mcpmigrateHTTPHeaders": {[]string{"net/http", "github.com/gomcp/sdk/transport/mcphttp"}, `// mcpmigrateHTTPHeaders is mcp-go's transport.WithHTTPHeaders
// (mcphttp.ClientOptions.Header).
func mcpmigrateHTTPHeaders(h map[string]string) mcpmigrateHTTPOption {
	return func(o *mcphttp.ClientOptions) {
		if o.Header == nil {
			o.Header = http.Header{}
		}
		for k, v := range h {
			o.Header.Set(k, v)
		}
	}
}`},
	"mcpmigrateOnNotification": {[]string{"context", "github.com/gomcp/sdk/mcp", "github.com/gomcp/sdk/mcp/hooks"}, `// mcpmigrateOnNotification is mcp-go's MCPServer.AddNotificationHandler:
// h sees every notification of that method s receives (a receiving
// middleware), before s handles it as gomcp does.
func mcpmigrateOnNotification(s *mcp.Server, method string, h func(ctx context.Context, n *mcp.Request)) {
	hooks.AddReceivingMiddleware(s, func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, r *mcp.Request) (any, error) {
			if r.IsNotification() && r.Method == method {
				h(ctx, r)
			}
			return next(ctx, r)
		}
	})
}`},
	"mcpmigrateTextOf": {[]string{"github.com/gomcp/sdk/mcp"}, `// mcpmigrateTextOf is mcp-go's mcp.GetTextFromContent: the text of a
// text block, or of the first text block of a list, or "".
func mcpmigrateTextOf(content any) string {
	switch c := content.(type) {
	case *mcp.TextContent:
		return c.Text
	case []mcp.Content:
		for _, b := range c {
			if t, ok := b.(*mcp.TextContent); ok {
				return t.Text
			}
		}
	case string:
		return c
	}
	return ""
}`},
	"mcpmigrateSession": {[]string{"github.com/gomcp/sdk/mcp"}, `// mcpmigrateSession is mcp-go's server.ClientSessionFromContext in a
// handler: the request's session, nil for a 2026-07-28 request (which
// belongs to none).
func mcpmigrateSession[P any](req *mcp.ServerRequest[P]) *mcp.ServerSession {
	ss, _ := req.Session()
	return ss
}`},
	"mcpmigrateElicitationComplete": {[]string{"context", "errors", "github.com/gomcp/sdk/mcp"}, `// mcpmigrateElicitationComplete is mcp-go's
// MCPServer.SendElicitationComplete: notifications/elicitation/complete on
// the session.
func mcpmigrateElicitationComplete(ctx context.Context, ss *mcp.ServerSession, elicitationID string) error {
	if ss == nil {
		return errors.New("no session to notify")
	}
	return ss.Notify(ctx, mcp.NotificationElicitationComplete, &mcp.ElicitationCompleteNotificationParams{ElicitationID: elicitationID})
}`},
	"mcpmigrateURLElicitationRequired": {[]string{"encoding/json", "github.com/gomcp/sdk/jsonrpc", "github.com/gomcp/sdk/mcp"}, `// mcpmigrateURLElicitationRequired is mcp-go's
// mcp.URLElicitationRequiredError: the JSON-RPC error (-32042) that tells
// the client which URL-mode elicitations to complete first.
func mcpmigrateURLElicitationRequired(d *mcp.URLElicitationRequiredData) *jsonrpc.Error {
	e := jsonrpc.Errorf(mcp.CodeURLElicitationRequired, "URL elicitation required: %d elicitation(s) needed", len(d.Elicitations))
	e.Data, _ = json.Marshal(d)
	return e
}`},
	"mcpmigrateStdioServer": {[]string{"context", "io", "github.com/gomcp/sdk/mcp", "github.com/gomcp/sdk/transport"}, `// mcpmigrateStdioServer is mcp-go's server.StdioServer: Listen serves s
// over the reader and writer (gomcp's Server.Run on a line stream).
type mcpmigrateStdioServer struct{ s *mcp.Server }

// mcpmigrateStdioServerOf is mcp-go's server.NewStdioServer.
func mcpmigrateStdioServerOf(s *mcp.Server) *mcpmigrateStdioServer { return &mcpmigrateStdioServer{s: s} }

// Listen is mcp-go's StdioServer.Listen.
func (h *mcpmigrateStdioServer) Listen(ctx context.Context, in io.Reader, out io.Writer) error {
	return h.s.Run(ctx, transport.NewLineStream(in, out, nil, nil))
}`},
	"mcpmigrateValue": {nil, `// mcpmigrateValue is *p, or the zero value when p is nil: mcp-go held
// the value where gomcp holds a pointer (absent: nil).
func mcpmigrateValue[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}`},
	"mcpmigrateNotify": {[]string{"context", "encoding/json", "github.com/gomcp/sdk/mcp"}, `// mcpmigrateNotify is mcp-go's MCPServer.SendNotificationToClient from a
// handler: gomcp sends the protocol's log and progress notifications
// through the request (Log, NotifyProgress) and an application's own with
// Notify.
func mcpmigrateNotify[P any](ctx context.Context, req *mcp.ServerRequest[P], method string, params map[string]any) error {
	switch method {
	case mcp.NotificationMessage:
		var p mcp.LoggingMessageNotificationParams
		if err := mcpmigrateRecode(params, &p); err != nil {
			return err
		}
		return req.Log(ctx, p.Level, p.Logger, p.Data)
	case mcp.NotificationProgress:
		var p mcp.ProgressNotificationParams
		if err := mcpmigrateRecode(params, &p); err != nil {
			return err
		}
		return req.NotifyProgress(ctx, p.Progress, p.Total, p.Message)
	}
	return req.Notify(ctx, method, params)
}

// mcpmigrateRecode decodes params into p through JSON.
func mcpmigrateRecode(params map[string]any, p any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, p)
}`},
}
