package servercard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gomcp/sdk/internal/origin"
)

// CatalogSpecVersion is the AI Catalog version this package writes.
const CatalogSpecVersion = "1.0"

// maxEntries bounds the entries of a catalog read or served.
const maxEntries = 1000

// Catalog is an AI Catalog: the entries a host advertises. Only entries of
// type MediaType are Server Cards; others are kept and ignored.
type Catalog struct {
	SpecVersion string         `json:"specVersion"`
	Entries     []CatalogEntry `json:"entries"`
}

// CatalogEntry points at one Server Card by URL, or holds it inline in
// Data: exactly one of the two.
type CatalogEntry struct {
	// Identifier is a logical discovery identifier, such as
	// urn:air:example.com:mcp:weather.
	Identifier string          `json:"identifier"`
	Type       string          `json:"type"`
	URL        string          `json:"url,omitempty"`
	Data       json.RawMessage `json:"data,omitempty"`
}

// check validates one entry; an inline card must be a valid card.
func (e *CatalogEntry) check() error {
	switch {
	case e.Identifier == "":
		return errors.New("identifier is empty")
	case e.Type == "":
		return errors.New("type is empty")
	case (e.URL == "") == (len(e.Data) == 0):
		return errors.New("exactly one of url and data is required")
	}
	if e.Type != MediaType {
		return nil
	}
	if len(e.Data) > 0 {
		if err := validateCard(e.Data); err != nil {
			return fmt.Errorf("data: %w", err)
		}
		return nil
	}
	if u, err := url.Parse(e.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("url %q is not an http(s) URL", e.URL)
	}
	return nil
}

// ParseCatalog decodes and checks an AI Catalog: a specVersion, entries
// with an identifier, a type and one of url and data, inline cards valid.
// Errors name the entry by its JSON pointer.
func ParseCatalog(doc []byte) (*Catalog, error) {
	c, err := parseCatalog(doc)
	if err != nil {
		return nil, fmt.Errorf("servercard: %w", err)
	}
	return c, nil
}

func parseCatalog(doc []byte) (*Catalog, error) {
	if len(doc) > MaxSize {
		return nil, fmt.Errorf("catalog is %d bytes, over the limit of %d", len(doc), MaxSize)
	}
	var c Catalog
	if err := json.Unmarshal(doc, &c); err != nil {
		return nil, fmt.Errorf("catalog: invalid JSON: %w", err)
	}
	if c.SpecVersion == "" {
		return nil, errors.New("catalog: /specVersion is missing")
	}
	if len(c.Entries) > maxEntries {
		return nil, fmt.Errorf("catalog: more than %d entries", maxEntries)
	}
	for i := range c.Entries {
		if err := c.Entries[i].check(); err != nil {
			return nil, fmt.Errorf("catalog: /entries/%d: %w", i, err)
		}
	}
	return &c, nil
}

// ErrInvalid is wrapped by Fetch's errors about the document itself (not
// JSON, not a valid card, not a valid catalog), as against failures to
// get it.
var ErrInvalid = errors.New("invalid Server Card or AI Catalog")

// Cards returns the entries that are Server Cards.
func (c *Catalog) Cards() []CatalogEntry {
	var out []CatalogEntry
	for _, e := range c.Entries {
		if e.Type == MediaType {
			out = append(out, e)
		}
	}
	return out
}

// AICatalog returns the handler of an AI Catalog listing entries (use
// Entry for a card served elsewhere, or set Data to a card inline), for a
// host that serves several servers; mount it at WellKnownCatalogPath. It
// is served as cards are: public, CORS, cached, with a strong ETag.
func AICatalog(maxAge time.Duration, entries ...CatalogEntry) (http.Handler, error) {
	if len(entries) == 0 {
		return nil, errNoEntries
	}
	body, err := json.Marshal(Catalog{SpecVersion: CatalogSpecVersion, Entries: entries})
	if err != nil {
		return nil, err
	}
	if _, err := ParseCatalog(body); err != nil {
		return nil, err
	}
	doc := newServed(body)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		serveDocument(w, r, doc, CatalogMediaType, maxAge)
	}), nil
}

// Entry is the catalog entry of the card at cardURL.
func Entry(identifier, cardURL string) CatalogEntry {
	return CatalogEntry{Identifier: identifier, Type: MediaType, URL: cardURL}
}

// Document is what Fetch read: a card or a catalog.
type Document struct {
	Card    *Card
	Catalog *Catalog
	Raw     []byte
}

// FetchTimeout bounds Fetch when its context has no deadline.
const FetchTimeout = 10 * time.Second

// Fetch gets the card or catalog at rawURL and validates it. It sends no
// credentials (no cookies, no Authorization: a card is public) and, when
// client is nil, uses one that refuses redirects to another origin. A
// document with "entries" is a catalog; anything else must be a card.
func Fetch(ctx context.Context, client *http.Client, rawURL string) (*Document, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("servercard: %q is not an http(s) URL", rawURL)
	}
	if client == nil {
		client = &http.Client{CheckRedirect: origin.CheckRedirect("servercard", 5, nil)}
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, FetchTimeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", MediaType+", "+CatalogMediaType+", application/json;q=0.5")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("servercard: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("servercard: GET %s: %s", u.Redacted(), resp.Status)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "" && !strings.HasSuffix(mt, "json") {
		return nil, fmt.Errorf("servercard: GET %s: Content-Type %q is not JSON", u.Redacted(), mt)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("servercard: %w", err)
	}
	if len(body) > MaxSize {
		return nil, fmt.Errorf("servercard: GET %s: over %d bytes", u.Redacted(), MaxSize)
	}
	return parseDocument(body)
}

func parseDocument(body []byte) (*Document, error) {
	var probe struct {
		Entries json.RawMessage `json:"entries"`
	}
	if json.Unmarshal(body, &probe) == nil && probe.Entries != nil {
		c, err := parseCatalog(body)
		if err != nil {
			return nil, fmt.Errorf("servercard: %w: %w", ErrInvalid, err)
		}
		return &Document{Catalog: c, Raw: bytes.Clone(body)}, nil
	}
	if err := validateCard(body); err != nil {
		return nil, fmt.Errorf("servercard: %w: %w", ErrInvalid, err)
	}
	var c Card
	if err := json.Unmarshal(body, &c); err != nil {
		return nil, fmt.Errorf("servercard: %w: %w", ErrInvalid, err)
	}
	return &Document{Card: &c, Raw: body}, nil
}
