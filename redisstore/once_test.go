package redisstore

import (
	"fmt"
	"testing"

	"github.com/gomcp/sdk/transport/mcphttp"
	"github.com/redis/go-redis/v9"
)

// TestEventStoreAppendOnce: the event of one notice is stored once per
// stream, however many Handlers append it, within mcphttp.OnceWindow
// events; other streams, sessions and notices are not affected, and
// replays read the data alone.
func TestEventStoreAppendOnce(t *testing.T) { eachRedis(t, testEventStoreAppendOnce) }

func testEventStoreAppendOnce(t *testing.T, rdb redis.UniversalClient, prefix string) {
	ctx := testCtx(t)
	s := NewEventStore(rdb, &Options{Prefix: prefix})
	id, dup, err := s.AppendOnce(ctx, "s", "0", "n1", []byte("a"))
	if err != nil || dup || id == "" {
		t.Fatalf("first: %q %v %v", id, dup, err)
	}
	if id, dup, err := s.AppendOnce(ctx, "s", "0", "n1", []byte("a")); err != nil || !dup || id != "" {
		t.Fatalf("second: %q %v %v, want a duplicate", id, dup, err)
	}
	for _, tc := range []struct{ session, stream, key string }{{"s", "0", "n2"}, {"s", "1", "n1"}, {"t", "0", "n1"}} {
		if _, dup, err := s.AppendOnce(ctx, tc.session, tc.stream, tc.key, []byte("a")); err != nil || dup {
			t.Errorf("%+v: duplicate %v, %v", tc, dup, err)
		}
	}
	for i := range mcphttp.OnceWindow {
		if _, err := s.Append(ctx, "s", "0", fmt.Appendf(nil, "b%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, dup, _ := s.AppendOnce(ctx, "s", "0", "n1", []byte("c")); dup {
		t.Error("a notice OnceWindow events back is still compared")
	}
	var got []string
	if err := s.Replay(ctx, "s", "0", "", func(_ string, data []byte) error {
		got = append(got, string(data))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3+mcphttp.OnceWindow || got[0] != "a" || got[1] != "a" || got[len(got)-1] != "c" {
		t.Fatalf("replayed %d events: %q…%q", len(got), got[:2], got[len(got)-1])
	}
}
