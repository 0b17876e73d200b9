package servercard

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gomcp/sdk/mcp"
)

// Options describe what a card says beyond what the server itself knows.
type Options struct {
	// URL is the public URL of the server's Streamable HTTP endpoint, the
	// card's remote (required). It is not taken from the request: a Host
	// header must not decide what a publicly cached document says.
	URL string

	// Name is the card's name in reverse-DNS form (io.github.owner/repo).
	// Default: the server's serverInfo name, which must then have that
	// form. A registry name different from serverInfo's is allowed.
	Name string

	// Description replaces the serverInfo description (1 to 100
	// characters; required when serverInfo has none).
	Description string

	// Repository, when set, is published as the card's repository.
	Repository *Repository

	// Headers describe the headers a client must send (an Authorization
	// header behind authentication): names and descriptions, no values.
	Headers []Header

	// MaxAge is the Cache-Control max-age. Default one hour, as the
	// extension suggests; a negative value sends no-cache.
	MaxAge time.Duration
}

// Generate builds srv's card and checks it against the schema.
func Generate(srv *mcp.Server, opts Options) (*Card, error) {
	c, _, err := generate(srv, &opts)
	return c, err
}

func generate(srv *mcp.Server, opts *Options) (*Card, []byte, error) {
	u, err := url.Parse(opts.URL)
	if opts.URL == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, nil, fmt.Errorf("servercard: Options.URL %q is not the endpoint's http(s) URL", opts.URL)
	}
	info := srv.Implementation()
	c := &Card{
		Schema:      SchemaURL,
		Name:        info.Name,
		Title:       info.Title,
		Description: info.Description,
		Version:     info.Version,
		WebsiteURL:  info.WebsiteURL,
		Icons:       info.Icons,
		Repository:  opts.Repository,
		Remotes: []Remote{{
			Type:                      "streamable-http",
			URL:                       opts.URL,
			Headers:                   opts.Headers,
			SupportedProtocolVersions: mcp.SupportedVersions(),
		}},
	}
	if opts.Name != "" {
		c.Name = opts.Name
	}
	if opts.Description != "" {
		c.Description = opts.Description
	}
	if !reverseDNS.MatchString(c.Name) {
		return nil, nil, fmt.Errorf("servercard: name %q is not in reverse-DNS form (io.github.owner/repo): set Options.Name", c.Name)
	}
	b, err := json.Marshal(c)
	if err != nil {
		return nil, nil, err
	}
	if err := ValidateCard(b); err != nil {
		return nil, nil, fmt.Errorf("servercard: the generated card is invalid: %w", err)
	}
	return c, b, nil
}

// Handler returns the handler of srv's card, to be reached at the
// endpoint's path plus Suffix. The card is generated again whenever the
// server's serverInfo changes (it is compared at each request), so what it
// says is what initialize says. It answers GET and HEAD with the card,
// OPTIONS (a CORS preflight) with the CORS headers, anything else with
// 405. It fails when the card it would serve is invalid.
func Handler(srv *mcp.Server, opts Options) (http.Handler, error) {
	h := &cardHandler{srv: srv, opts: opts}
	if _, err := h.current(); err != nil {
		return nil, err
	}
	return h, nil
}

type cardHandler struct {
	srv  *mcp.Server
	opts Options

	mu   sync.Mutex
	info []byte  // the serverInfo the cached card was made from
	doc  *served // the cached card
}

// served is a document with its entity tag.
type served struct {
	body []byte
	etag string
}

func newServed(body []byte) *served {
	sum := sha256.Sum256(body)
	return &served{body: body, etag: `"` + hex.EncodeToString(sum[:16]) + `"`}
}

// current returns the card, made again when serverInfo changed.
func (h *cardHandler) current() (*served, error) {
	info, err := json.Marshal(h.srv.Implementation())
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.doc != nil && string(info) == string(h.info) {
		return h.doc, nil
	}
	_, body, err := generate(h.srv, &h.opts)
	if err != nil {
		return nil, err
	}
	h.info, h.doc = info, newServed(body)
	return h.doc, nil
}

func (h *cardHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	doc, err := h.current()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	serveDocument(w, r, doc, MediaType, h.opts.MaxAge)
}

// serveDocument answers r with doc: the public headers, then 304, the
// document, a preflight's 204 or 405.
func serveDocument(w http.ResponseWriter, r *http.Request, doc *served, mediaType string, maxAge time.Duration) {
	hd := w.Header()
	hd.Set("Access-Control-Allow-Origin", "*")
	hd.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
	hd.Set("Access-Control-Allow-Headers", "Content-Type, If-None-Match")
	hd.Set("Access-Control-Expose-Headers", "ETag")
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodOptions:
		hd.Set("Access-Control-Max-Age", "86400")
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		hd.Set("Allow", "GET, HEAD, OPTIONS")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	switch {
	case maxAge < 0:
		hd.Set("Cache-Control", "no-cache")
	case maxAge == 0:
		hd.Set("Cache-Control", "public, max-age=3600")
	default:
		hd.Set("Cache-Control", "public, max-age="+strconv.Itoa(int(maxAge/time.Second)))
	}
	hd.Set("ETag", doc.etag)
	if etagMatches(r.Header.Values("If-None-Match"), doc.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	hd.Set("Content-Type", mediaType)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Length", strconv.Itoa(len(doc.body)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(doc.body)
	}
}

// etagMatches applies If-None-Match's weak comparison (RFC 9110 13.1.2)
// of each listed tag, or "*", with etag.
func etagMatches(values []string, etag string) bool {
	for _, v := range values {
		for _, t := range strings.Split(v, ",") {
			t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
			if t == "*" || t == etag {
				return true
			}
		}
	}
	return false
}

// errNoEntries is returned by AICatalog without entries.
var errNoEntries = errors.New("servercard: a catalog needs at least one entry")
