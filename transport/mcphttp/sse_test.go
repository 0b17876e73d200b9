package mcphttp

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func TestAppendEventRoundTrip(t *testing.T) {
	tests := []struct {
		name  string
		id    string
		event string
		retry time.Duration
		data  string
		want  string // data as a reader sees it
	}{
		{"plain", "1_2", "message", 0, `{"a":1}`, `{"a":1}`},
		{"empty data (priming)", "3_0", "", 500 * time.Millisecond, "", ""},
		{"LF in data", "", "message", 0, "{\n\"a\": 1\n}", "{\n\"a\": 1\n}"},
		{"CRLF in data", "", "", 0, "{\r\n\"a\":1}", "{\n\n\"a\":1}"},
		{"lone CR in data", "", "", 0, "{\r\"a\":1}", "{\n\"a\":1}"},
		{"unicode", "9_9", "message", 0, `{"s":"héllo ✓"}`, `{"s":"héllo ✓"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := appendEvent(nil, tt.id, tt.event, tt.retry, []byte(tt.data))
			r := newSSEReader(strings.NewReader(string(b)+": comment\n\n"), 1<<20)
			ev, err := r.next()
			if err != nil {
				t.Fatalf("next: %v (stream %q)", err, b)
			}
			if string(ev.data) != tt.want || ev.id != tt.id || ev.hasID != (tt.id != "") || ev.event != tt.event || ev.retry != tt.retry {
				t.Errorf("got %+v data %q from %q", ev, ev.data, b)
			}
			if _, err := r.next(); err != io.EOF {
				t.Errorf("after the event: %v, want EOF", err)
			}
		})
	}
}

func TestSSEReader(t *testing.T) {
	tests := []struct {
		name   string
		stream string
		want   []string // "id|event|data|retryms" per event
		err    error
	}{
		{"CRLF lines", "id: 1\r\ndata: a\r\n\r\n", []string{"1||a|0"}, io.EOF},
		{"CR lines", "id: 1\rdata: a\r\r\n", []string{"1||a|0"}, io.EOF},
		{"multi data lines", "data: a\ndata: b\n\n", []string{"||a\nb|0"}, io.EOF},
		{"no space after colon", "data:x\nid:7\n\n", []string{"7||x|0"}, io.EOF},
		{"field without colon", "data\n\n", []string{"|||0"}, io.EOF},
		{"comments only", ": hi\n\n: there\n\n", nil, io.EOF},
		{"bad retry ignored", "retry: soon\ndata: a\n\n", []string{"||a|0"}, io.EOF},
		{"retry", "retry: 250\n\n", []string{"||||250"}, io.EOF},
		{"unknown field", "foo: bar\ndata: a\n\n", []string{"||a|0"}, io.EOF},
		{"id with NUL ignored", "id: a\x00b\ndata: x\n\n", []string{"||x|0"}, io.EOF},
		{"unterminated last event dropped", "data: a\n\ndata: b\n", []string{"||a|0"}, io.EOF},
		{"cut mid-line", "data: a\n\ndata: b", []string{"||a|0"}, io.ErrUnexpectedEOF},
		{"two events", "event: endpoint\ndata: /x\n\nevent: message\ndata: {}\n\n", []string{"|endpoint|/x|0", "|message|{}|0"}, io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newSSEReader(strings.NewReader(tt.stream), 1<<10)
			var got []string
			var err error
			for {
				var ev sseEvent
				if ev, err = r.next(); err != nil {
					break
				}
				s := ev.id + "|" + ev.event + "|" + string(ev.data) + "|"
				if ev.retry > 0 {
					s += "|" + itoaTest(ev.retry.Milliseconds())
				} else {
					s += "0"
				}
				got = append(got, s)
			}
			if strings.Join(got, ";") != strings.Join(tt.want, ";") {
				t.Errorf("events %q, want %q", got, tt.want)
			}
			if !errors.Is(err, tt.err) {
				t.Errorf("err %v, want %v", err, tt.err)
			}
		})
	}
}

func itoaTest(n int64) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

func TestSSEReaderLimits(t *testing.T) {
	big := strings.Repeat("x", 5000)
	tests := []struct {
		name, stream string
	}{
		{"one long line", "data: " + big + "\n\n"},
		{"many data lines", strings.Repeat("data: "+big[:500]+"\n", 20) + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newSSEReader(strings.NewReader(tt.stream), 4096)
			if _, err := r.next(); !errors.Is(err, errEventTooLarge) {
				t.Errorf("err %v, want errEventTooLarge", err)
			}
		})
	}
	// Just under the limit is fine, even past the bufio buffer size.
	ok := strings.Repeat("y", 30000)
	r := newSSEReader(strings.NewReader("data: "+ok+"\n\n"), 40000)
	if ev, err := r.next(); err != nil || string(ev.data) != ok {
		t.Errorf("long event: %v, %d bytes", err, len(ev.data))
	}
}

func TestEventID(t *testing.T) {
	for _, tt := range []struct{ stream, id string }{{"0", ""}, {"0", "7"}, {"ABCDEFGHIJ.12", "345"}, {"0", "1-2:x"}} {
		id := eventID(tt.stream, tt.id)
		s, q, err := parseEventID(id)
		if err != nil || s != tt.stream || q != tt.id {
			t.Errorf("parseEventID(%q) = %q, %q, %v", id, s, q, err)
		}
	}
	for _, bad := range []string{"", "_", "_1", "12", "garbage", "1_a\x00b"} {
		if _, _, err := parseEventID(bad); err == nil {
			t.Errorf("parseEventID(%q) succeeded", bad)
		}
	}
}

func FuzzSSEReader(f *testing.F) {
	f.Add("id: 1\nretry: 10\ndata: {}\n\n")
	f.Add("data: a\r\ndata: b\rdata\n\n: c\n")
	f.Fuzz(func(t *testing.T, s string) {
		r := newSSEReader(strings.NewReader(s), 256)
		for range 1000 {
			ev, err := r.next()
			if err != nil {
				return
			}
			if len(ev.data) > 256 {
				t.Fatalf("event data of %d bytes passed a 256-byte limit", len(ev.data))
			}
		}
	})
}

func TestAppendStoredEvent(t *testing.T) {
	got := string(appendStoredEvent(nil, "ABC.1", "42", true, []byte(`{"a":1}`)))
	want := string(appendEvent(nil, eventID("ABC.1", "42"), "message", 0, []byte(`{"a":1}`)))
	if got != want {
		t.Errorf("stored event %q, want %q", got, want)
	}
	got = string(appendStoredEvent(nil, "ABC.1", "", false, []byte(`{}`)))
	if want := string(appendEvent(nil, "", "message", 0, []byte(`{}`))); got != want {
		t.Errorf("unstored event %q, want %q", got, want)
	}
}
