package jsonrpc

import (
	"bytes"
	"encoding/json"
	"strings"
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

// The string scanners and AppendString look at eight bytes at a time:
// every byte that needs a look must be found wherever it falls in a word,
// and the plain bytes around it (of every length) kept as they are.
func TestStringsWordAtATime(t *testing.T) {
	specials := []string{`"`, `\`, "\x00", "\x1f", "\n", "<", ">", "&", "\x7f", "é", "\u2028", "\xff", " ", "~"}
	for n := range 20 {
		for at := range n + 1 {
			for _, sp := range specials {
				s := strings.Repeat("a", at) + sp + strings.Repeat("b", n-at)
				for _, esc := range []bool{true, false} {
					var buf bytes.Buffer
					enc := json.NewEncoder(&buf)
					enc.SetEscapeHTML(esc)
					if err := enc.Encode(s); err != nil {
						t.Fatal(err)
					}
					want := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
					if got := AppendString(nil, s, esc); !bytes.Equal(got, want) {
						t.Fatalf("AppendString(%q, %v) = %s, want %s", s, esc, got, want)
					}
					if end := skipString(want, 0); end != len(want) {
						t.Fatalf("skipString(%s) = %d, want %d", want, end, len(want))
					}
				}
				raw := []byte(`"` + s + `"`)
				if got, want := validJSON(raw), json.Valid(raw); got != want {
					t.Fatalf("validJSON(%q) = %v, want %v", raw, got, want)
				}
			}
		}
	}
	// An escaped quote, after runs of backslashes of either parity.
	for n := range 12 {
		q := []byte(`"` + strings.Repeat(`\\`, n) + `\"x" tail`)
		if got, want := skipString(q, 0), len(q)-len(" tail"); got != want {
			t.Errorf("skipString(%s) = %d, want %d", q, got, want)
		}
	}
}
