package cli

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"os"
	"path/filepath"
	"strings"

	"github.com/gomcp/sdk/mcp"
)

// printCallResult prints a tool's content blocks, then its structured
// output.
func (inv *invocation) printCallResult(res *mcp.CallToolResult) error {
	if res.IsError {
		fmt.Fprintln(inv.stdout, "error:")
	}
	for i, c := range res.Content {
		inv.printContent(i, c)
	}
	if len(res.StructuredContent) > 0 {
		var v any
		if err := json.Unmarshal(res.StructuredContent, &v); err != nil {
			return err
		}
		b, _ := json.MarshalIndent(v, "", "  ")
		fmt.Fprintf(inv.stdout, "structuredContent:\n%s\n", b)
	}
	return nil
}

// printContent prints one content block: text as it is, other blocks
// described, and images and audio saved under --out when given.
func (inv *invocation) printContent(i int, c mcp.Content) {
	switch c := c.(type) {
	case *mcp.TextContent:
		fmt.Fprintln(inv.stdout, c.Text)
	case *mcp.ImageContent:
		inv.printBinary(i, "image", c.MIMEType, c.Data)
	case *mcp.AudioContent:
		inv.printBinary(i, "audio", c.MIMEType, c.Data)
	case *mcp.ResourceLink:
		fmt.Fprintf(inv.stdout, "[resource link %s %s]\n", c.URI, strings.TrimSpace(c.Name+" "+c.MIMEType))
	case *mcp.EmbeddedResource:
		inv.printResourceContents(c.Resource)
	default:
		b, _ := json.Marshal(c)
		fmt.Fprintf(inv.stdout, "%s\n", b)
	}
}

// printBinary describes base64 data, or saves it as content-I.EXT in the
// --out directory.
func (inv *invocation) printBinary(i int, kind, mimeType, data string) {
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		fmt.Fprintf(inv.stdout, "[%s %s, invalid base64]\n", kind, mimeType)
		return
	}
	if inv.outDir == "" {
		fmt.Fprintf(inv.stdout, "[%s %s, %d bytes; --out DIR saves it]\n", kind, mimeType, len(raw))
		return
	}
	ext := ".bin"
	if exts, _ := mime.ExtensionsByType(mimeType); len(exts) > 0 {
		ext = exts[0]
	}
	path := filepath.Join(inv.outDir, fmt.Sprintf("content-%d%s", i, ext))
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		fmt.Fprintf(inv.stderr, "mcp: %v\n", err)
		fmt.Fprintf(inv.stdout, "[%s %s, %d bytes, not saved]\n", kind, mimeType, len(raw))
		return
	}
	fmt.Fprintf(inv.stdout, "[%s %s, %d bytes, saved to %s]\n", kind, mimeType, len(raw), path)
}

// printResourceContents prints a text resource, or describes a blob.
func (inv *invocation) printResourceContents(rc mcp.ResourceContents) {
	switch rc := rc.(type) {
	case *mcp.TextResourceContents:
		fmt.Fprintf(inv.stdout, "[resource %s %s]\n%s\n", rc.URI, rc.MIMEType, rc.Text)
	case *mcp.BlobResourceContents:
		n := base64.StdEncoding.DecodedLen(len(rc.Blob))
		if raw, err := base64.StdEncoding.DecodeString(rc.Blob); err == nil {
			n = len(raw)
		}
		fmt.Fprintf(inv.stdout, "[resource %s %s, %d bytes of binary data; use --json for the blob]\n", rc.URI, rc.MIMEType, n)
	}
}
