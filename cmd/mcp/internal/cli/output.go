package cli

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/gomcp/sdk/mcp"
)

// outFlag is call --out: a path ending in .json names the file that gets
// the whole result, as --json prints it (so that the output on the
// terminal stays readable while the result is kept, say as a fixture for
// mcp mock); anything else names the directory where images and audio are
// saved. A flag of its own (--raw) would only repeat --json, which already
// prints the whole result on stdout.
type outFlag struct{ dir, file string }

func (o *outFlag) String() string { return o.dir + o.file }

func (o *outFlag) Set(v string) error {
	*o = outFlag{}
	if strings.EqualFold(filepath.Ext(v), ".json") {
		o.file = v
	} else {
		o.dir = v
	}
	return nil
}

// saveResult writes res to the --out FILE.json, if one is given.
func (inv *invocation) saveResult(res *mcp.CallToolResult) error {
	if inv.out.file == "" {
		return nil
	}
	b, err := json.MarshalIndent(res, "", "  ")
	if err == nil {
		err = os.WriteFile(inv.out.file, append(b, '\n'), 0o644)
	}
	if err != nil {
		return usageError{fmt.Errorf("--out: %w", err)}
	}
	return nil
}

// printCallResult prints a tool's content blocks, then its structured
// output. A block that --out could not save is reported once all are
// printed.
func (inv *invocation) printCallResult(res *mcp.CallToolResult) error {
	if res.IsError {
		fmt.Fprintln(inv.stdout, "error:")
	}
	var saveErr error
	for i, c := range res.Content {
		if err := inv.printContent(i, c); err != nil && saveErr == nil {
			saveErr = err
		}
	}
	if saveErr != nil {
		return saveErr
	}
	if len(res.StructuredContent) > 0 {
		var v any
		if err := json.Unmarshal(res.StructuredContent, &v); err != nil {
			return err
		}
		if textHolds(res.Content, v) {
			return nil // printed already, as the text the tool gave
		}
		b, _ := json.MarshalIndent(v, "", "  ")
		fmt.Fprintf(inv.stdout, "structuredContent:\n%s\n", b)
	}
	return nil
}

// textHolds reports whether a text block of content is the JSON of v, as
// a tool with structured output usually sends it for older clients.
func textHolds(content []mcp.Content, v any) bool {
	for _, c := range content {
		t, ok := c.(*mcp.TextContent)
		if !ok {
			continue
		}
		var tv any
		if json.Unmarshal([]byte(t.Text), &tv) == nil && reflect.DeepEqual(tv, v) {
			return true
		}
	}
	return false
}

// printContent prints one content block: text as it is, other blocks
// described, and images and audio saved under --out when given. The error
// is --out's: the block could not be saved.
func (inv *invocation) printContent(i int, c mcp.Content) error {
	switch c := c.(type) {
	case *mcp.TextContent:
		fmt.Fprintln(inv.stdout, c.Text)
	case *mcp.ImageContent:
		return inv.printBinary(i, "image", c.MIMEType, c.Data)
	case *mcp.AudioContent:
		return inv.printBinary(i, "audio", c.MIMEType, c.Data)
	case *mcp.ResourceLink:
		fmt.Fprintf(inv.stdout, "[resource link %s %s]\n", c.URI, strings.TrimSpace(c.Name+" "+c.MIMEType))
	case *mcp.EmbeddedResource:
		inv.printResourceContents(c.Resource)
	default:
		b, _ := json.Marshal(c)
		fmt.Fprintf(inv.stdout, "%s\n", b)
	}
	return nil
}

// printBinary describes base64 data, or saves it as content-I.EXT in the
// --out directory, which it makes if need be. It fails (a usage error: the
// --out given cannot be used) when the file cannot be written.
func (inv *invocation) printBinary(i int, kind, mimeType, data string) error {
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		fmt.Fprintf(inv.stdout, "[%s %s, invalid base64]\n", kind, mimeType)
		return nil
	}
	if inv.out.dir == "" {
		fmt.Fprintf(inv.stdout, "[%s %s, %d bytes; --out DIR saves it]\n", kind, mimeType, len(raw))
		return nil
	}
	ext := ".bin"
	if exts, _ := mime.ExtensionsByType(mimeType); len(exts) > 0 {
		ext = exts[0]
	}
	path := filepath.Join(inv.out.dir, fmt.Sprintf("content-%d%s", i, ext))
	err = os.MkdirAll(inv.out.dir, 0o755)
	if err == nil {
		err = os.WriteFile(path, raw, 0o644)
	}
	if err != nil {
		fmt.Fprintf(inv.stdout, "[%s %s, %d bytes, not saved]\n", kind, mimeType, len(raw))
		return usageError{fmt.Errorf("--out: %w", err)}
	}
	fmt.Fprintf(inv.stdout, "[%s %s, %d bytes, saved to %s]\n", kind, mimeType, len(raw), path)
	return nil
}

// printResourceContents prints a text resource, or describes a blob.
func (inv *invocation) printResourceContents(rc mcp.ResourceContents) {
	switch rc := rc.(type) {
	case *mcp.TextResourceContents:
		fmt.Fprintf(inv.stdout, "[resource %s]\n%s\n", strings.TrimSpace(rc.URI+" "+rc.MIMEType), rc.Text)
	case *mcp.BlobResourceContents:
		n := base64.StdEncoding.DecodedLen(len(rc.Blob))
		if raw, err := base64.StdEncoding.DecodeString(rc.Blob); err == nil {
			n = len(raw)
		}
		fmt.Fprintf(inv.stdout, "[resource %s, %d bytes of binary data; use --json for the blob]\n", strings.TrimSpace(rc.URI+" "+rc.MIMEType), n)
	}
}
