package gateway_test

import (
	"context"
	"encoding/json"
	"math"
	"testing"

	"github.com/gomcp/sdk/internal/alloctest"
	"github.com/gomcp/sdk/internal/racetest"
	"github.com/gomcp/sdk/mcp"
)

// What a forwarded tools/call may allocate beyond the same call direct
// (client, gateway and upstream in one process, every hop a pipe, as in
// BenchmarkGatewayCall). Measured on 2026-11-29, after the fourth pass on
// the forwarding path: 58 objects and 5.7 KB more a call (89 and 7.8 KB
// through the gateway, 31 and 2.1 KB direct, the same to a tenth of an
// object from run to run); the bounds leave a little room for noise (a
// timer's goroutine, a map growing), so that a change adding even a few
// allocations to every forwarded call fails here (before the fourth pass:
// 77 objects and 7.1 KB more; before the second: 82 and 8.2 KB). Under
// the race detector (as CI runs every test) sync.Pool drops what is put
// back at random and the figures are a little higher (60 objects, 6.7 to
// 6.9 KB more), so the bounds there are raceObjects and raceBytes.
const (
	maxForwardObjects = 60
	maxForwardBytes   = 6000
	raceObjects       = 62
	raceBytes         = 7300
)

// TestGatewayCallAllocs guards the forwarding path's allocations: a small
// tool call through the gateway against the same call direct, averaged
// over many calls, the least of a few rounds: on a loaded machine a round
// can meet a timer's goroutine or a collection that has nothing to do with
// the path, and such noise only ever adds.
func TestGatewayCallAllocs(t *testing.T) {
	up := benchUpstream()
	g := benchGateway(t, up)
	direct, via := benchConnect(t, up), benchConnect(t, g.Server())
	p := &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"hello"}`)}
	perCall := func(cs *mcp.ClientSession) (objects, bytes float64) {
		const warm, n, rounds = 100, 500, 5
		call := func() {
			if _, err := cs.CallTool(context.Background(), p); err != nil {
				t.Fatal(err)
			}
		}
		for range warm {
			call()
		}
		objects, bytes = math.Inf(1), math.Inf(1)
		for range rounds {
			o, b := alloctest.Mallocs(func() {
				for range n {
					call()
				}
			})
			objects, bytes = min(objects, float64(o)/n), min(bytes, float64(b)/n)
		}
		return objects, bytes
	}
	maxObjects, maxBytes := float64(maxForwardObjects), float64(maxForwardBytes)
	if racetest.Enabled {
		maxObjects, maxBytes = raceObjects, raceBytes
	}
	do, db := perCall(direct)
	vo, vb := perCall(via)
	t.Logf("per call: direct %.1f objects, %.0f B; through the gateway %.1f objects, %.0f B", do, db, vo, vb)
	if vo-do > maxObjects {
		t.Errorf("a forwarded call allocates %.1f objects more than a direct one, want at most %.0f", vo-do, maxObjects)
	}
	if vb-db > maxBytes {
		t.Errorf("a forwarded call allocates %.0f bytes more than a direct one, want at most %.0f", vb-db, maxBytes)
	}
}
