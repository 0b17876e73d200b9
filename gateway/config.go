package gateway

import "time"

// Config is a gateway's configuration: its upstream servers and how their
// names are joined. It reads the mcpServers files of Claude Desktop, Cursor
// and Claude Code, and VS Code's servers files, unchanged (see ParseConfig).
type Config struct {
	// Servers are the upstreams, keyed by name. The name is the default
	// prefix of the upstream's tools and prompts.
	Servers map[string]*Upstream `json:"mcpServers"`

	// Separator joins a prefix and a name ("github" + "_" + "search").
	// Empty means "_".
	Separator string `json:"separator,omitempty"`

	// Access are rules of who sees what, applied with those of
	// Options.Access (see Rule). ParseConfig reads them from the file's
	// "access" array, strictly (see ParseAccess).
	Access []Rule `json:"access,omitempty"`
}

// Transport is how a gateway reaches an upstream.
type Transport string

// The transports of an upstream.
const (
	TransportStdio Transport = "stdio" // a command speaking over its stdin and stdout
	TransportHTTP  Transport = "http"  // Streamable HTTP
	TransportSSE   Transport = "sse"   // the legacy HTTP+SSE transport (2024-11-05)
)

// Auth is how the gateway authenticates to an HTTP or SSE upstream beyond
// its headers. The zero value uses a login when Options.Authorizer has one.
type Auth string

// The values of Upstream.Auth.
const (
	AuthOAuth Auth = "oauth" // an OAuth login, through Options.Authorizer
	AuthNone  Auth = "none"  // the headers alone
)

// Upstream is one server behind the gateway.
type Upstream struct {
	// Type is the transport. Empty means stdio when Command is set, and
	// Streamable HTTP when URL is set.
	Type Transport `json:"type,omitempty"`

	// A command's line, environment and working directory (stdio).
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`

	// A server's URL and the headers sent with every request (HTTP, SSE).
	// These are the gateway's own credentials for the upstream; a
	// downstream caller's token is never passed on.
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`

	// Auth says whether the gateway logs in to the upstream with OAuth
	// (HTTP and SSE only): AuthOAuth needs Options.Authorizer to give an
	// authorizer for it (mcp gateway gives the token mcp login stored),
	// AuthNone never asks it, and empty asks it and goes without when it
	// gives none.
	Auth Auth `json:"auth,omitempty"`

	// Prefix, when set, replaces the upstream's name as the prefix of its
	// tools and prompts; a pointer to "" means no prefix.
	Prefix *string `json:"prefix,omitempty"`

	// Timeout bounds each call to the upstream; zero means a default.
	Timeout time.Duration `json:"-"`

	// MaxConcurrency bounds the calls in flight to the upstream; zero
	// means a default.
	MaxConcurrency int `json:"maxConcurrency,omitempty"`

	// LogLevel is the logging level the gateway asks of the upstream
	// (logging/setLevel: "debug", "info", ...); each downstream session then
	// receives the messages at or above its own level. Empty means "info".
	LogLevel string `json:"logLevel,omitempty"`

	// Disabled leaves the upstream out (VS Code and Cursor files carry it).
	Disabled bool `json:"disabled,omitempty"`
}
