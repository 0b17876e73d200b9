package apps_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/gomcp/sdk/apps"
	"github.com/gomcp/sdk/mcp"
)

// FuzzToolUI reads a peer's tool _meta as a host does: no input crashes
// it, every error wraps ErrInvalidMeta, and what it accepts names a ui://
// view (or none) and only the visibilities the specification defines.
func FuzzToolUI(f *testing.F) {
	for _, s := range []string{
		`{"ui":{"resourceUri":"ui://a/v","visibility":["model","app"]}}`,
		`{"ui/resourceUri":"ui://a/old"}`,
		`{"ui":{"visibility":["app"]},"ui/resourceUri":"ui://x"}`,
		`{"ui":{"resourceUri":"https://x"}}`,
		`{"ui":{"visibility":["user"]}}`,
		`{"ui":null,"ui/resourceUri":null}`,
		`{"ui":{"csp":{"connectDomains":["https://x"]},"prefersBorder":true}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var meta mcp.Meta
		if json.Unmarshal(data, &meta) != nil {
			return
		}
		m, err := apps.ToolUI(&mcp.Tool{Name: "t", Meta: &meta})
		if err != nil {
			if !errors.Is(err, apps.ErrInvalidMeta) {
				t.Fatalf("error %v does not wrap ErrInvalidMeta", err)
			}
		} else if m != nil {
			if m.ResourceURI != "" && !apps.IsUIURI(m.ResourceURI) {
				t.Fatalf("accepted resource %q", m.ResourceURI)
			}
			for _, v := range m.Visibility {
				if v != apps.VisibilityModel && v != apps.VisibilityApp {
					t.Fatalf("accepted visibility %q", v)
				}
			}
		}
		if _, err := apps.ResourceUI(&meta); err != nil && !errors.Is(err, apps.ErrInvalidMeta) {
			t.Fatalf("ResourceUI: error %v does not wrap ErrInvalidMeta", err)
		}
	})
}
