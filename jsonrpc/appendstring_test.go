package jsonrpc

import (
	"bytes"
	"encoding/json"
	"testing"
)

// AppendString matches encoding/json byte for byte, with and without HTML
// escaping.
func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", `quote " back \ slash`, "<a href='x'>&amp;</a>", "ctl \x00\x01\b\f\n\r\t\x1f",
		"uni 世界 \u2028 \u2029", "bad \xff\xfe utf8", "emoji 😀"} {
		for _, esc := range []bool{true, false} {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(esc)
			if err := enc.Encode(s); err != nil {
				t.Fatal(err)
			}
			want := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
			if got := AppendString(nil, s, esc); !bytes.Equal(got, want) {
				t.Errorf("AppendString(%q, escapeHTML=%v) = %s, want %s", s, esc, got, want)
			}
		}
	}
}
