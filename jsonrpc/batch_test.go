package jsonrpc

import (
	"bytes"
	"context"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/gomcp/sdk/internal/alloctest"
)

// maxCostFactor bounds what decoding and answering a wire message may
// allocate, as a multiple of its size.
const maxCostFactor = 8

// TestBatchMemoryBounded sends a 4 MiB batch of empty objects, the body of
// a pre-authentication memory bomb (≈400 bytes allocated per 3-byte
// element), to Decode and through a Conn: each allocates a small multiple
// of the body at most, and the Conn answers with one short error.
func TestBatchMemoryBounded(t *testing.T) {
	body := alloctest.TinyBatch(4 << 20 / 3)
	limit := uint64(maxCostFactor * len(body))

	var m *Message
	if n := alloctest.Allocated(func() { m = Decode(body) }); n > limit {
		t.Errorf("Decode allocated %d bytes for a %d-byte batch (%.0f×), want at most %d×", n, len(body), float64(n)/float64(len(body)), maxCostFactor)
	}
	if m.Invalid == nil || m.Invalid.Code != CodeInvalidRequest || !m.ID.IsZero() || m.Batch != nil {
		t.Fatalf("Decode(4 MiB of {}) = %.200s, want one invalid-request error", describe(m))
	}

	_, peer := newRawConn(t, ConnOptions{Handler: &specServer{}})
	var reply []byte
	n := alloctest.Allocated(func() {
		if err := peer.stream.in.push(item{b: body}); err != nil {
			t.Fatal(err)
		}
		reply = peer.recv()
	})
	if n > limit {
		t.Errorf("a Conn allocated %d bytes to answer a %d-byte batch (%.0f×), want at most %d×", n, len(body), float64(n)/float64(len(body)), maxCostFactor)
	}
	if len(reply) > 1024 || !bytes.Contains(reply, []byte(`"id":null`)) || !bytes.Contains(reply, []byte(`-32600`)) {
		t.Errorf("reply to an oversized batch (%d bytes): %.300s", len(reply), reply)
	}
	peer.assertAlive()
}

// TestDecoderMaxBatch checks the batch bound: DefaultMaxBatch messages
// decode, one more is refused whole with one error (id null), and a Decoder
// sets its own bound.
func TestDecoderMaxBatch(t *testing.T) {
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	batchOf := func(n int) []byte {
		return []byte("[" + strings.TrimSuffix(strings.Repeat(ping+" , ", n), " , ") + "]")
	}
	if m := Decode(batchOf(DefaultMaxBatch)); m.Invalid != nil || len(m.Batch) != DefaultMaxBatch {
		t.Errorf("a batch of DefaultMaxBatch: %.200s", describe(m))
	}
	over := Decode(batchOf(DefaultMaxBatch + 1))
	if over.Invalid == nil || over.Invalid.Code != CodeInvalidRequest || !over.ID.IsZero() ||
		!strings.Contains(over.Invalid.Message, strconv.Itoa(DefaultMaxBatch)) {
		t.Errorf("a batch of DefaultMaxBatch+1: %.200s", describe(over))
	}
	d := Decoder{MaxBatch: 2}
	if m := d.Decode(batchOf(2)); m.Invalid != nil || len(m.Batch) != 2 {
		t.Errorf("MaxBatch 2, batch of 2: %s", describe(m))
	}
	for _, in := range []string{string(batchOf(3)), "[1,2,3]", "[{},{},{}]", " [ [], [], [] ] "} {
		if m := d.Decode([]byte(in)); m.Invalid == nil || m.Invalid.Code != CodeInvalidRequest || !strings.Contains(m.Invalid.Message, "at most 2") {
			t.Errorf("MaxBatch 2, %s: %s", in, describe(m))
		}
	}
	// Elements are counted as values, whatever they hold.
	if m := d.Decode([]byte(`[{"a":[1,2,3]},"x,y]"]`)); m.Invalid != nil || len(m.Batch) != 2 {
		t.Errorf("MaxBatch 2, two elements with commas and brackets inside: %s", describe(m))
	}
}

// TestDecoderBatchesRefusal checks that Decoder.Batches refuses a batch
// whole, whatever it holds, before its elements are decoded or counted,
// and is not asked about single messages.
func TestDecoderBatchesRefusal(t *testing.T) {
	refusal := NewError(CodeInvalidRequest, "invalid request: no batches in this revision")
	var asked atomic.Int32
	d := Decoder{MaxBatch: 1, Batches: func() *Error { asked.Add(1); return refusal }}
	body := alloctest.TinyBatch(4 << 20 / 3)
	// Goroutines of earlier tests may still be allocating while Decode
	// runs: the least of a few rounds is what Decode itself costs, and a
	// refusal that decoded the elements would cost megabytes in each.
	var m *Message
	const rounds = 5
	n := uint64(math.MaxUint64)
	for range rounds {
		n = min(n, alloctest.Allocated(func() { m = d.Decode(body) }))
	}
	if n > 4096 {
		t.Errorf("a refused batch allocated %d bytes", n)
	}
	if m.Invalid != refusal || !m.ID.IsZero() || m.Batch != nil {
		t.Errorf("refused batch: %.200s", describe(m))
	}
	if m := d.Decode([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); m.Invalid != nil || m.Method != "ping" {
		t.Errorf("single message: %s", describe(m))
	}
	if m := d.Decode([]byte(`[1,`)); m.Invalid == nil || m.Invalid.Code != CodeParseError {
		t.Errorf("broken batch: %s, want a parse error", describe(m))
	}
	if n := asked.Load(); n != rounds {
		t.Errorf("Batches asked %d times, want %d (once for each well-formed batch)", n, rounds)
	}
}

// TestInvalidElementsShareErrors checks that the invalid elements of a
// batch share their error values, so that each costs no error of its own.
func TestInvalidElementsShareErrors(t *testing.T) {
	m := Decode([]byte(`[{},{},1,"x",{"jsonrpc":"2.0","id":1},{"jsonrpc":"2.0","id":2},{"id":1,"result":{}},{"id":2,"result":{}}]`))
	if len(m.Batch) != 8 {
		t.Fatalf("got %s", describe(m))
	}
	for i := 0; i < 8; i += 2 {
		a, b := m.Batch[i], m.Batch[i+1]
		if a.Invalid == nil || a.Invalid != b.Invalid {
			t.Errorf("elements %d and %d, invalid for the same reason, have distinct errors: %s, %s", i, i+1, describe(a), describe(b))
		}
	}
	if m.Batch[0].Invalid == m.Batch[6].Invalid || !m.Batch[6].IsInvalidResponse() || m.Batch[0].IsInvalidResponse() {
		t.Errorf("an invalid response shares the error of an invalid request: %s, %s", describe(m.Batch[0]), describe(m.Batch[6]))
	}
}

// gateStream is a wire memStream that decodes like a byte transport with a
// Decoder, and is a BatchGate.
type gateStream struct {
	*memStream
	dec Decoder
}

func (s *gateStream) GateBatches(batches func() *Error) { s.dec.Batches = batches }

func (s *gateStream) Read(ctx context.Context) (*Message, error) {
	it, err := s.in.pop(ctx)
	if err != nil {
		return nil, err
	}
	return s.dec.Decode(it.b), nil
}

// TestBatchGate checks that NewConn hands ConnOptions.Batches to a
// BatchGate stream, which then refuses batches before decoding them, and
// that the Conn answers the refusal once and reports it to OnReject.
func TestBatchGate(t *testing.T) {
	refusal := NewError(CodeInvalidRequest, "invalid request: no batches here")
	var refuse atomic.Bool
	var asked atomic.Int32
	s := &gateStream{memStream: &memStream{in: newQueue(), out: newQueue(), wire: true}}
	onReject, rejects := rejectRecorder(4)
	c := NewConn(s, ConnOptions{Handler: &specServer{}, OnReject: onReject, Batches: func() *Error {
		asked.Add(1)
		if refuse.Load() {
			return refusal
		}
		return nil
	}})
	t.Cleanup(func() { closeConn(t, c) })
	peer := &rawPeer{t: t, stream: s.memStream}
	if s.dec.Batches == nil {
		t.Fatal("NewConn did not hand Batches to the BatchGate")
	}
	batch := `[{"jsonrpc":"2.0","id":1,"method":"sum","params":[1,2]}]`
	assertJSON(t, peer.roundTrip(batch), `[{"jsonrpc":"2.0","id":1,"result":3}]`)
	refuse.Store(true)
	assertJSON(t, peer.roundTrip(string(alloctest.TinyBatch(10000))), `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: no batches here"}}`)
	if r := recvTimeout(t, rejects, "OnReject"); r.err != refusal || r.m.Invalid != refusal {
		t.Errorf("OnReject(%s, %v), want the refusal", describe(r.m), r.err)
	}
	peer.assertAlive()
	if n := asked.Load(); n != 2 {
		t.Errorf("Batches asked %d times for two batches, want 2 (by the stream alone)", n)
	}
}

// TestInvalidElementsShareReplies checks that a Conn answers consecutive
// id-less elements of a batch, invalid for the same reason, with one reply
// value, while still answering (and counting) each.
func TestInvalidElementsShareReplies(t *testing.T) {
	s := &memStream{in: newQueue(), out: newQueue()}
	c := NewConn(s, ConnOptions{Handler: &specServer{}})
	t.Cleanup(func() { closeConn(t, c) })
	in := Decode([]byte(`[{},{},{"jsonrpc":"2.0","id":1},{},1,1,{"jsonrpc":"2.0","id":2,"method":"sum","params":[1]},1]`))
	if err := s.in.push(item{m: in}); err != nil {
		t.Fatal(err)
	}
	it, err := s.out.pop(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	r := it.m.Batch
	if len(r) != 8 {
		t.Fatalf("reply: %s", describe(it.m))
	}
	if r[0] != r[1] || r[3] != r[0] || r[4] != r[5] || r[5] != r[7] {
		t.Errorf("replies to elements invalid for one reason are distinct values: %s", describe(it.m))
	}
	if r[2].ID != Int64ID(1) || r[2] == r[0] || r[4] == r[0] || r[6].ID != Int64ID(2) {
		t.Errorf("reply: %s", describe(it.m))
	}
	assertJSON(t, it.m.AppendJSON(nil), `[`+
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: \"jsonrpc\" must be \"2.0\""}},`+
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: \"jsonrpc\" must be \"2.0\""}},`+
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"invalid request: a response must carry exactly one of result and error"}},`+
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: \"jsonrpc\" must be \"2.0\""}},`+
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: batch element must be an object"}},`+
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: batch element must be an object"}},`+
		`{"jsonrpc":"2.0","id":2,"result":1},`+
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: batch element must be an object"}}]`)
	if n := c.Stats().Rejected; n != 7 {
		t.Errorf("Stats().Rejected = %d, want 7", n)
	}
}

// FuzzDecodeBatch checks the batch policy of a Decoder against Decode: a
// batch of at most MaxBatch messages decodes as Decode decodes it, a larger
// one is one invalid message (id null), a refused one is the refusal, and
// anything else is untouched by the policy. It also checks that an element
// decodes inside a batch as it does alone, and that the invalid elements
// of a batch share their errors.
func FuzzDecodeBatch(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), uint8(2))
	}
	f.Add(alloctest.TinyBatch(5), uint8(4))
	f.Add([]byte(`[{"a":"],["},[1,[2]],"\"]"]`), uint8(3))
	refusal := NewError(CodeInvalidRequest, "invalid request: refused")
	f.Fuzz(func(t *testing.T, data []byte, max uint8) {
		limit := int(max%8) + 1
		full := (&Decoder{MaxBatch: 1 << 30}).Decode(data)
		capped := (&Decoder{MaxBatch: limit}).Decode(data)
		refused := (&Decoder{Batches: func() *Error { return refusal }}).Decode(data)
		isBatch := full.Batch != nil || (full.Invalid == errEmptyBatch)
		switch {
		case !isBatch:
			if !sameShape(capped, full) || !sameShape(refused, full) {
				t.Fatalf("not a batch, yet the policy changed it: %s / %s / %s", describe(full), describe(capped), describe(refused))
			}
		case len(full.Batch) > limit:
			if capped.Invalid == nil || capped.Invalid.Code != CodeInvalidRequest || !capped.ID.IsZero() || capped.Batch != nil {
				t.Fatalf("a batch of %d over MaxBatch %d: %s", len(full.Batch), limit, describe(capped))
			}
		default:
			if !sameShape(capped, full) {
				t.Fatalf("a batch within MaxBatch: %s, want %s", describe(capped), describe(full))
			}
		}
		if isBatch && refused.Invalid != refusal {
			t.Fatalf("a refused batch: %s", describe(refused))
		}
		reasons := map[string]*Error{}
		for _, e := range full.Batch {
			if e.Invalid == nil {
				continue
			}
			if r, ok := reasons[e.Invalid.Message]; ok && r != e.Invalid {
				t.Fatalf("two elements invalid for %q have distinct errors", e.Invalid.Message)
			}
			reasons[e.Invalid.Message] = e.Invalid
		}

		// An element decodes in a batch as it does alone.
		if d := trimSpace(data); len(d) > 0 && d[0] == '{' && utf8.Valid(d) && validJSON(d) {
			alone := Decode(d)
			in := Decode([]byte("[" + string(d) + ", " + string(d) + "]"))
			if len(in.Batch) != 2 || !sameShape(in.Batch[0], alone) || !sameShape(in.Batch[1], alone) {
				t.Fatalf("%q: alone %s, in a batch %s", d, describe(alone), describe(in))
			}
		}
	})
}
