package auth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/oauth"
)

// Options configures a ResourceServer.
type Options struct {
	// Resource is this server's canonical URI (RFC 8707, RFC 9728), the
	// URL clients connect to, e.g. "https://mcp.example.com/mcp". Tokens
	// must be meant for it (the verifier's audience), and the metadata
	// and DPoP htu checks derive from it. Required.
	Resource string
	// AuthorizationServers lists the issuers whose tokens are accepted,
	// advertised in the metadata. At least one is required.
	AuthorizationServers []string
	// Verifier checks the access tokens. Required.
	Verifier Verifier

	// ScopesSupported is advertised in the metadata; clients request all
	// of them when a challenge names none. Keep it minimal.
	ScopesSupported []string
	// Scopes are needed by every request.
	Scopes []string
	// MethodScopes maps JSON-RPC methods ("tools/call", "resources/read")
	// to the scopes they need besides Scopes.
	MethodScopes map[string][]string
	// ToolScopes maps tool names to the scopes a tools/call of the tool
	// needs besides Scopes and MethodScopes["tools/call"].
	ToolScopes map[string][]string
	// Satisfies reports whether the granted scopes cover the needed one,
	// for scope hierarchies ("admin" implies "write", say). Default: the
	// needed scope is among the granted.
	Satisfies func(granted []string, needed string) bool

	// DPoP, when not nil, accepts DPoP-bound tokens (RFC 9449): each is
	// presented with "Authorization: DPoP" and a proof in the DPoP header,
	// signed by the key the token is bound to. Nil refuses DPoP.
	DPoP *DPoPOptions

	// ResourceName and ResourceDocumentation are advertised in the
	// metadata (resource_name, resource_documentation) when set.
	ResourceName, ResourceDocumentation string

	// MaxBodyBytes bounds the POST bodies read to find the method and tool
	// of a request when MethodScopes or ToolScopes is set (larger ones get
	// 413). Use the value given to the handler's own limit. Default 4 MiB.
	// Such bodies are read before the handler's other guards
	// (mcphttp.HandlerOptions.BodyReadTimeout, MaxBodyBytesInFlight) apply,
	// but only once the token is verified: bound slow bodies with
	// http.Server.ReadTimeout.
	MaxBodyBytes int64
}

// ResourceServer protects an HTTP handler as an OAuth 2.1 resource server
// and serves its protected-resource metadata. It is safe for concurrent
// use.
type ResourceServer struct {
	opts     Options
	origin   string // scheme://host of Resource
	metaPath string // the well-known path of the metadata for Resource
	metaURL  string
	metadata []byte
	dpop     *DPoPVerifier
	dpopAlgs string
}

// ProtectedResourceMetadata is the document of RFC 9728 §2 that a
// ResourceServer serves; clients read it to find the authorization server
// and the scopes to request. It is the oauth package's type, so that the
// document is defined once for both sides.
type ProtectedResourceMetadata = oauth.ProtectedResourceMetadata

// metadataPrefix is the well-known path of RFC 9728 §3.
const metadataPrefix = "/.well-known/oauth-protected-resource"

// New returns a ResourceServer, or an error for incomplete options.
func New(opts Options) (*ResourceServer, error) {
	if opts.Verifier == nil || len(opts.AuthorizationServers) == 0 {
		return nil, errors.New("auth: Options needs a Verifier and AuthorizationServers")
	}
	u, err := url.Parse(opts.Resource)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Fragment != "" {
		return nil, errors.New("auth: Options.Resource must be an absolute http(s) URL without fragment")
	}
	if err := checkScopes(opts); err != nil {
		return nil, err
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = 4 << 20
	}
	if opts.Satisfies == nil {
		opts.Satisfies = func(granted []string, needed string) bool { return slices.Contains(granted, needed) }
	}
	rs := &ResourceServer{opts: opts}
	rs.origin = strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
	rs.metaPath = metadataPrefix + strings.TrimSuffix(u.EscapedPath(), "/")
	rs.metaURL = rs.origin + rs.metaPath
	md := ProtectedResourceMetadata{
		Resource:               opts.Resource,
		AuthorizationServers:   opts.AuthorizationServers,
		ScopesSupported:        opts.ScopesSupported,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           opts.ResourceName,
		ResourceDocumentation:  opts.ResourceDocumentation,
	}
	if opts.DPoP != nil {
		rs.dpop = NewDPoPVerifier(*opts.DPoP)
		for _, a := range rs.dpop.opts.Algorithms {
			md.DPoPSigningAlgs = append(md.DPoPSigningAlgs, string(a))
		}
		md.DPoPBoundAccessTokensRequired = opts.DPoP.Required
		rs.dpopAlgs = strings.Join(md.DPoPSigningAlgs, " ")
	}
	rs.metadata, err = json.Marshal(md)
	if err != nil {
		return nil, err
	}
	return rs, nil
}

// checkScopes refuses scopes that are not RFC 6749 §3.3 scope tokens
// (printable ASCII without space, '"' or a backslash): challenges and metadata
// join scopes with spaces, so "admin write" would reach clients as two.
func checkScopes(opts Options) error {
	lists := [][]string{opts.Scopes, opts.ScopesSupported}
	for _, l := range opts.MethodScopes {
		lists = append(lists, l)
	}
	for _, l := range opts.ToolScopes {
		lists = append(lists, l)
	}
	for _, l := range lists {
		for _, sc := range l {
			if sc == "" || strings.ContainsFunc(sc, func(c rune) bool { return c <= 0x20 || c >= 0x7f || c == '"' || c == '\\' }) {
				return fmt.Errorf("auth: %q is not a scope token (RFC 6749 §3.3)", sc)
			}
		}
	}
	return nil
}

// MetadataURL is the URL of the protected-resource metadata, named in
// every challenge.
func (rs *ResourceServer) MetadataURL() string { return rs.metaURL }

// ServeMetadata answers a GET for the protected-resource metadata. Wrap
// calls it for the well-known paths; mount it yourself when the protected
// handler is not served at the root of a mux.
func (rs *ResourceServer) ServeMetadata(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodOptions:
		w.Header().Set("Access-Control-Allow-Methods", "GET, OPTIONS")
		w.Header().Set("Access-Control-Allow-Headers", "MCP-Protocol-Version")
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		w.Header().Set("Allow", "GET, HEAD, OPTIONS")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "max-age=3600")
	w.Write(rs.metadata)
}

// Wrap returns a handler serving the metadata at its well-known paths
// (RFC 9728 §3.1: the path of Resource after the well-known prefix, and
// the prefix alone, which clients try next) and passing every other
// request to h once its token is verified and covers the scopes the
// request needs. The TokenInfo is in the context h receives. CORS
// preflight requests (OPTIONS) pass through unauthenticated.
func (rs *ResourceServer) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; p == rs.metaPath || p == metadataPrefix {
			rs.ServeMetadata(w, r)
			return
		}
		if r.Method == http.MethodOptions {
			h.ServeHTTP(w, r)
			return
		}
		info, ok := rs.authenticate(w, r)
		if !ok {
			return
		}
		r = r.WithContext(WithTokenInfo(r.Context(), info))
		needed, ok := rs.neededScopes(w, r)
		if !ok {
			return
		}
		for _, s := range needed {
			if !rs.opts.Satisfies(info.Scopes, s) {
				rs.refuse(w, r, http.StatusForbidden, "insufficient_scope",
					"the request needs the scopes "+strings.Join(needed, " "), needed)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// authenticate verifies the credentials of r, answering the refusal itself.
func (rs *ResourceServer) authenticate(w http.ResponseWriter, r *http.Request) (*TokenInfo, bool) {
	if r.URL.Query().Has("access_token") {
		rs.refuse(w, r, http.StatusBadRequest, "invalid_request", "access tokens are accepted in the Authorization header only", nil)
		return nil, false
	}
	values := r.Header.Values("Authorization")
	if len(values) == 0 {
		rs.refuse(w, r, http.StatusUnauthorized, "", "", nil)
		return nil, false
	}
	if len(values) > 1 {
		rs.refuse(w, r, http.StatusBadRequest, "invalid_request", "more than one Authorization header", nil)
		return nil, false
	}
	scheme, token, _ := strings.Cut(strings.TrimLeft(values[0], " "), " ")
	token = strings.Trim(token, " ")
	isDPoP := strings.EqualFold(scheme, "DPoP")
	if !isDPoP && !strings.EqualFold(scheme, "Bearer") || isDPoP && rs.dpop == nil {
		rs.refuse(w, r, http.StatusUnauthorized, "", "", nil) // an unknown scheme: say which ones we take
		return nil, false
	}
	if !validToken(token) {
		rs.refuse(w, r, http.StatusBadRequest, "invalid_request", "the Authorization header is malformed", nil)
		return nil, false
	}
	info, err := rs.opts.Verifier.Verify(r.Context(), token)
	switch {
	case errors.Is(err, ErrInvalidToken):
		rs.refuse(w, r, http.StatusUnauthorized, "invalid_token", err.Error(), nil)
		return nil, false
	case err != nil:
		rs.unavailable(w, "the token cannot be verified now")
		return nil, false
	}
	switch {
	case isDPoP && info.JKT == "":
		rs.refuse(w, r, http.StatusUnauthorized, "invalid_token", "the token is not bound to a key: present it as Bearer", nil)
		return nil, false
	case !isDPoP && info.JKT != "":
		rs.refuse(w, r, http.StatusUnauthorized, "invalid_token", "the token is bound to a key: present it with DPoP", nil)
		return nil, false
	case !isDPoP && rs.dpop != nil && rs.opts.DPoP.Required:
		rs.refuse(w, r, http.StatusUnauthorized, "invalid_token", "only DPoP-bound tokens are accepted", nil)
		return nil, false
	case !isDPoP:
		return info, true
	}
	proofs := r.Header.Values("DPoP")
	if len(proofs) != 1 {
		rs.refuse(w, r, http.StatusUnauthorized, "invalid_dpop_proof", "exactly one DPoP header is needed", nil)
		return nil, false
	}
	proof, err := rs.dpop.check(proofs[0], r.Method, rs.origin+r.URL.EscapedPath(), token)
	if err != nil {
		rs.refuse(w, r, http.StatusUnauthorized, "invalid_dpop_proof", err.Error(), nil)
		return nil, false
	}
	if proof.JKT != info.JKT {
		rs.refuse(w, r, http.StatusUnauthorized, "invalid_token", "the token is bound to another key than the proof's", nil)
		return nil, false
	}
	if n := rs.opts.DPoP.Nonce; n != nil {
		w.Header().Set("DPoP-Nonce", n.Current())
		if !n.Valid(proof.Nonce) {
			rs.refuse(w, r, http.StatusUnauthorized, "use_dpop_nonce", "the DPoP proof needs the server's nonce", nil)
			return nil, false
		}
	}
	// The jti is recorded last, once the proof is known good for this
	// token: refused proofs take no room in the replay cache.
	switch err := rs.dpop.remember(r.Context(), proof); {
	case errors.Is(err, ErrInvalidDPoPProof):
		rs.refuse(w, r, http.StatusUnauthorized, "invalid_dpop_proof", err.Error(), nil)
		return nil, false
	case err != nil:
		rs.unavailable(w, "the DPoP proof cannot be checked now")
		return nil, false
	}
	return info, true
}

// validToken reports whether s has the b64token syntax of RFC 6750 §2.1.
func validToken(s string) bool {
	if s == "" {
		return false
	}
	body := strings.TrimRight(s, "=")
	if body == "" {
		return false
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/') {
			return false
		}
	}
	return true
}

// neededScopes returns the scopes r needs: Scopes, and for a POST when
// MethodScopes or ToolScopes is set, those of the JSON-RPC methods and
// tools in its body (every message of a batch). The body is read with the
// jsonrpc package's own decoder and the tool name with the mcp package's,
// so that the middleware and the server never disagree on what the
// request is, and put back for h. A batch the decoder refuses whole (empty,
// or of more than jsonrpc.DefaultMaxBatch messages) gets 400: its methods
// cannot be known.
func (rs *ResourceServer) neededScopes(w http.ResponseWriter, r *http.Request) ([]string, bool) {
	needed := slices.Clone(rs.opts.Scopes)
	if r.Method != http.MethodPost || len(rs.opts.MethodScopes) == 0 && len(rs.opts.ToolScopes) == 0 {
		return needed, true
	}
	if r.ContentLength > rs.opts.MaxBodyBytes {
		http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
		return nil, false
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, rs.opts.MaxBodyBytes+1))
	if err != nil {
		http.Error(w, "reading the request body failed", http.StatusBadRequest)
		return nil, false
	}
	if int64(len(body)) > rs.opts.MaxBodyBytes {
		http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
		return nil, false
	}
	r.Body = struct {
		io.Reader
		io.Closer
	}{bytes.NewReader(body), r.Body}
	msg := jsonrpc.Decode(body)
	if msg.Invalid != nil && bytes.HasPrefix(bytes.TrimLeft(body, " \t\r\n"), []byte("[")) {
		// A batch refused whole (empty, or beyond jsonrpc.DefaultMaxBatch
		// messages) hides its methods: it must not pass on Scopes alone
		// to a handler that may take a larger batch.
		http.Error(w, "invalid JSON-RPC batch: "+msg.Invalid.Message, http.StatusBadRequest)
		return nil, false
	}
	msgs := []*jsonrpc.Message{msg}
	if msg.Batch != nil {
		msgs = msg.Batch
	}
	add := func(scopes []string) {
		for _, s := range scopes {
			if !slices.Contains(needed, s) {
				needed = append(needed, s)
			}
		}
	}
	for _, m := range msgs {
		if m.Invalid != nil || m.Method == "" {
			continue // the server refuses it without running anything
		}
		add(rs.opts.MethodScopes[m.Method])
		if m.Method == "tools/call" && len(rs.opts.ToolScopes) > 0 {
			var p mcp.CallToolParams
			if len(m.Params) > 0 && json.Unmarshal(m.Params, &p) != nil {
				continue // the server answers invalid params
			}
			add(rs.opts.ToolScopes[p.Name])
		}
	}
	return needed, true
}

// refuse answers with status and the challenges of RFC 6750 §3 (and
// RFC 9449 §7.1 when DPoP is on). scopes, when given, are the scopes the
// request needs; otherwise the challenge names Scopes, or
// ScopesSupported.
func (rs *ResourceServer) refuse(w http.ResponseWriter, r *http.Request, status int, code, desc string, scopes []string) {
	if scopes == nil {
		scopes = rs.opts.Scopes
		if len(scopes) == 0 {
			scopes = rs.opts.ScopesSupported
		}
	}
	params := `resource_metadata="` + rs.metaURL + `"`
	if len(scopes) > 0 {
		params += `, scope="` + sanitize(strings.Join(scopes, " ")) + `"`
	}
	if code != "" {
		params += `, error="` + code + `"`
	}
	if desc != "" {
		params += `, error_description="` + sanitize(desc) + `"`
	}
	dpopFirst := rs.dpop != nil && (rs.opts.DPoP.Required || strings.HasPrefix(strings.ToLower(r.Header.Get("Authorization")), "dpop "))
	bearer := "Bearer " + params
	var dpop string
	if rs.dpop != nil {
		dpop = `DPoP algs="` + rs.dpopAlgs + `", ` + params
	}
	switch {
	case rs.dpop == nil:
		w.Header().Add("WWW-Authenticate", bearer)
	case rs.opts.DPoP.Required:
		w.Header().Add("WWW-Authenticate", dpop)
	case dpopFirst:
		w.Header().Add("WWW-Authenticate", dpop)
		w.Header().Add("WWW-Authenticate", bearer)
	default:
		w.Header().Add("WWW-Authenticate", bearer)
		w.Header().Add("WWW-Authenticate", dpop)
	}
	w.Header().Set("Access-Control-Expose-Headers", "WWW-Authenticate, DPoP-Nonce")
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if code == "" {
		code = "unauthorized"
	}
	b, _ := json.Marshal(map[string]string{"error": code, "error_description": desc})
	w.Write(b)
}

func (rs *ResourceServer) unavailable(w http.ResponseWriter, desc string) {
	w.Header().Set("Retry-After", "5")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusServiceUnavailable)
	b, _ := json.Marshal(map[string]string{"error": "temporarily_unavailable", "error_description": desc})
	w.Write(b)
}

// sanitize keeps the characters allowed in a quoted challenge parameter
// (RFC 6750 §3: %x20-21 / %x23-5B / %x5D-7E).
func sanitize(s string) string {
	return strings.Map(func(c rune) rune {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return '\''
		}
		return c
	}, s)
}
