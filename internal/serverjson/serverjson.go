// Package serverjson reads, writes and validates server.json, the document
// a server publishes to the official MCP Registry, against the registry's
// schema of 2025-12-11, embedded here (schema/README.md says where it comes
// from). The mcp command's registry init and registry validate use it; it is
// no part of the SDK's API.
package serverjson

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/gomcp/sdk/jsonschema"
)

// SchemaURL is the $schema a server.json of this revision names: the URL
// the embedded schema is published at.
const SchemaURL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

// SchemaSHA256 is the hash of the embedded schema, pinned by a test: the
// schema is a copy of a published file and must not drift from it.
const SchemaSHA256 = "3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0"

// MaxSize bounds a server.json read for validation. The registry's own
// documents are a few kilobytes.
const MaxSize = 1 << 20

//go:embed schema/server.schema.json
var schemaBytes []byte

// Schema returns the embedded schema's bytes (a copy).
func Schema() []byte { return bytes.Clone(schemaBytes) }

var compiled = sync.OnceValues(func() (*jsonschema.Validator, error) {
	return jsonschema.Compile(schemaBytes)
})

// Server is the part of server.json that gomcp writes and checks. Fields it
// does not model survive Validate, which works on the raw document.
type Server struct {
	Schema      string      `json:"$schema"`
	Name        string      `json:"name"`
	Title       string      `json:"title,omitempty"`
	Description string      `json:"description"`
	Version     string      `json:"version"`
	WebsiteURL  string      `json:"websiteUrl,omitempty"`
	Repository  *Repository `json:"repository,omitempty"`
	Packages    []Package   `json:"packages,omitempty"`
	Remotes     []Transport `json:"remotes,omitempty"`
}

// Repository locates the server's source.
type Repository struct {
	URL       string `json:"url"`
	Source    string `json:"source"`
	Subfolder string `json:"subfolder,omitempty"`
}

// Package is one way to install and run the server locally.
type Package struct {
	RegistryType string    `json:"registryType"`
	Identifier   string    `json:"identifier"`
	Version      string    `json:"version,omitempty"`
	RuntimeHint  string    `json:"runtimeHint,omitempty"`
	Transport    Transport `json:"transport"`
}

// Transport is a package's transport or a remote endpoint: Type is
// "stdio", "streamable-http" or "sse"; URL is empty for stdio.
type Transport struct {
	Type string `json:"type"`
	URL  string `json:"url,omitempty"`
}

// Validate checks a server.json document against the embedded schema. A
// failure is a *jsonschema.ValidationError whose problems carry the JSON
// pointer of each failing value, or an error about the JSON itself.
func Validate(doc []byte) error {
	if len(doc) > MaxSize {
		return fmt.Errorf("server.json is %d bytes, over the limit of %d", len(doc), MaxSize)
	}
	v, err := compiled()
	if err != nil {
		return fmt.Errorf("the embedded schema does not compile: %w", err)
	}
	return v.Validate(doc)
}

// Parse validates doc and decodes it.
func Parse(doc []byte) (*Server, error) {
	if err := Validate(doc); err != nil {
		return nil, err
	}
	var s Server
	if err := json.Unmarshal(doc, &s); err != nil {
		return nil, err
	}
	return &s, nil
}
