package gateway

import (
	"encoding/json"
	"testing"
)

// TestCallerCaps: the capabilities declared upstream for a caller are its
// sampling, elicitation and roots exactly, one value for each set, and no
// extensions: the gateway's own join them as the request is sent (it
// renders views: TestAppsThroughGateway).
func TestCallerCaps(t *testing.T) {
	for k := range 256 {
		in := capsOf(uint8(k))
		got := callerCaps(in)
		if got != callerCaps(capsOf(uint8(k))) {
			t.Fatalf("%d: not interned", k)
		}
		a, _ := json.Marshal(in)
		b, _ := json.Marshal(got)
		if string(a) != string(b) {
			t.Errorf("%d: declared %s for %s", k, b, a)
		}
	}
	if got, _ := json.Marshal(callerCaps(nil)); string(got) != `{}` {
		t.Errorf("no capabilities: declared %s", got)
	}
}
