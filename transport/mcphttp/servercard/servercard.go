// Package servercard serves and reads MCP Server Cards, the experimental
// extension io.modelcontextprotocol/server-card (SEP-2127): a small public
// JSON document that describes a remote server (identity, endpoint,
// protocol versions) so that a client can find it and connect before
// speaking MCP, and AI Catalogs, which list the cards a host serves.
//
// The extension is experimental and may change; this package tracks its
// schema at a pinned commit, embedded here (schema/README.md). A card
// validates against that schema's ServerCard definition.
//
// # Serving
//
// Handler serves the card of an mcp.Server at <endpoint>/server-card,
// generated from the server at each request (its serverInfo: name, title,
// version, description, icons, website; the revisions this SDK speaks;
// the endpoint's URL), so it cannot contradict what a client sees once
// connected. As the schema requires, a card lists no tools, prompts or
// resources: those stay behind the protocol's list requests, where
// per-caller visibility rules apply. What a card shows is the same for
// every caller, authenticated or not, so it is served to anyone, with
// Access-Control-Allow-Origin: * (it is public metadata, read-only, and
// the extension requires CORS for browser clients), Cache-Control, a
// strong ETag and 304 answers to If-None-Match. Never put a secret in a
// card: header descriptions say what a client must supply, not its value.
//
// mcphttp.HandlerOptions.ServerCard hands the card's requests from an
// MCP endpoint's Handler to this Handler; or mount it yourself at
// the endpoint's path plus Suffix. AICatalog serves a catalog of several
// cards, normally at WellKnownCatalogPath.
//
// # Reading
//
// Fetch gets a card or a catalog over HTTP with bounded size and time,
// sending no credentials and following no redirect to another origin;
// ParseCard and ParseCatalog validate one already read.
package servercard

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/gomcp/sdk/jsonschema"
	"github.com/gomcp/sdk/mcp"
)

const (
	// ExtensionID names the extension.
	ExtensionID = "io.modelcontextprotocol/server-card"
	// MediaType is a card's media type.
	MediaType = "application/mcp-server-card+json"
	// CatalogMediaType is an AI Catalog's media type.
	CatalogMediaType = "application/ai-catalog+json"
	// SchemaURL is the $schema every card names (the extension's v1 URL).
	SchemaURL = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
	// SchemaSHA256 is the hash of the embedded schema, pinned by a test.
	SchemaSHA256 = "2c772b51edb367f154771d84ddbae87ddba00a624422c8e46f218a9ac03bf042"
	// Suffix is appended to a Streamable HTTP endpoint's URL to get the
	// location the extension reserves for its card.
	Suffix = "/server-card"
	// WellKnownCatalogPath is where a host publishes its AI Catalog for
	// domain-level discovery.
	WellKnownCatalogPath = "/.well-known/ai-catalog.json"
	// MaxSize bounds a card or catalog read or served.
	MaxSize = 256 << 10
)

//go:embed schema/server-card.schema.json
var schemaBytes []byte

var cardSchema = sync.OnceValues(func() (*jsonschema.Validator, error) {
	v, err := jsonschema.Compile(schemaBytes)
	if err != nil {
		return nil, err
	}
	return v.Ref("#/$defs/ServerCard")
})

// Card is a Server Card.
type Card struct {
	Schema      string         `json:"$schema"`
	Name        string         `json:"name"`
	Title       string         `json:"title,omitempty"`
	Description string         `json:"description"`
	Version     string         `json:"version"`
	WebsiteURL  string         `json:"websiteUrl,omitempty"`
	Icons       []mcp.Icon     `json:"icons,omitempty"`
	Repository  *Repository    `json:"repository,omitempty"`
	Remotes     []Remote       `json:"remotes,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

// Repository locates a server's source code.
type Repository struct {
	URL       string `json:"url"`
	Source    string `json:"source"`
	Subfolder string `json:"subfolder,omitempty"`
	ID        string `json:"id,omitempty"`
}

// Remote is one endpoint of the server. URL may hold {variables}, which
// a client fills in before connecting.
type Remote struct {
	Type                      string   `json:"type"` // "streamable-http" or "sse"
	URL                       string   `json:"url"`
	Headers                   []Header `json:"headers,omitempty"`
	SupportedProtocolVersions []string `json:"supportedProtocolVersions,omitempty"`
}

// Header describes an HTTP header a client sends to a remote: what it
// is, whether it is required or secret. It never carries a secret value.
type Header struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	IsRequired  bool   `json:"isRequired,omitempty"`
	IsSecret    bool   `json:"isSecret,omitempty"`
}

// ValidateCard checks a card against the pinned schema. A failure is a
// *jsonschema.ValidationError whose problems carry JSON pointers.
func ValidateCard(doc []byte) error {
	err := validateCard(doc)
	var ve *jsonschema.ValidationError
	if err != nil && !errors.As(err, &ve) {
		return fmt.Errorf("servercard: %w", err)
	}
	return err
}

func validateCard(doc []byte) error {
	if len(doc) > MaxSize {
		return fmt.Errorf("card is %d bytes, over the limit of %d", len(doc), MaxSize)
	}
	v, err := cardSchema()
	if err != nil {
		return fmt.Errorf("the embedded schema does not compile: %w", err)
	}
	return v.Validate(doc)
}

// ParseCard validates doc and decodes it.
func ParseCard(doc []byte) (*Card, error) {
	if err := ValidateCard(doc); err != nil {
		return nil, err
	}
	var c Card
	if err := json.Unmarshal(doc, &c); err != nil {
		return nil, err
	}
	return &c, nil
}

// Endpoint returns the first remote a client can connect to as it is: a
// Streamable HTTP (else SSE) endpoint whose URL has no variables.
func (c *Card) Endpoint() (Remote, error) {
	var sse *Remote
	for i, r := range c.Remotes {
		if strings.Contains(r.URL, "{") {
			continue
		}
		if r.Type == "streamable-http" {
			return r, nil
		}
		if r.Type == "sse" && sse == nil {
			sse = &c.Remotes[i]
		}
	}
	if sse != nil {
		return *sse, nil
	}
	return Remote{}, fmt.Errorf("servercard: card %q has no remote without variables to connect to", c.Name)
}

// reverseDNS is the schema's pattern for a card's name.
var reverseDNS = regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`)
