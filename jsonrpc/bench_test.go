package jsonrpc

import (
	"context"
	"encoding/json"
	"testing"
)

// toolsCallLine is a typical MCP tools/call request, about 200 bytes.
const toolsCallLine = `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"get_weather","arguments":{"location":"San Francisco, CA","units":"metric","days":3},"_meta":{"progressToken":"tok-42"}}}`

func BenchmarkDecodeRequest(b *testing.B) {
	data := []byte(toolsCallLine)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if m := Decode(data); m.Invalid != nil {
			b.Fatal(m.Invalid)
		}
	}
}

func BenchmarkDecodeResponse(b *testing.B) {
	data := []byte(`{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":"Sunny, 18°C, light wind from the west"}],"isError":false}}`)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if m := Decode(data); m.Invalid != nil {
			b.Fatal(m.Invalid)
		}
	}
}

func BenchmarkDecodeBatch(b *testing.B) {
	data := []byte(`[` + toolsCallLine + `,` + toolsCallLine + `,` + toolsCallLine + `,{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}]`)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if m := Decode(data); m.Invalid != nil {
			b.Fatal(m.Invalid)
		}
	}
}

func BenchmarkAppendJSON(b *testing.B) {
	m := Decode([]byte(toolsCallLine))
	buf := make([]byte, 0, 512)
	b.SetBytes(int64(len(m.AppendJSON(nil))))
	b.ReportAllocs()
	for b.Loop() {
		buf = m.AppendJSON(buf[:0])
	}
}

func BenchmarkAppendJSONError(b *testing.B) {
	m := NewErrorResponse(StringID("req-1"), NewError(CodeInvalidParams, "invalid params: missing \"location\"").WithData(map[string]string{"field": "location"}))
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		buf = m.AppendJSON(buf[:0])
	}
}

// echo answers every request with its raw params.
var echo = HandlerFunc(func(_ context.Context, m *Message) (any, error) { return m.Params, nil })

func benchmarkRoundTrip(b *testing.B, wire bool) {
	client, _ := newConnPair(b, wire, ConnOptions{}, ConnOptions{Handler: echo})
	params := json.RawMessage(`{"name":"get_weather","arguments":{"location":"San Francisco, CA","units":"metric","days":3}}`)
	ctx := context.Background()
	var result json.RawMessage
	b.ReportAllocs()
	for b.Loop() {
		if err := client.Call(ctx, "tools/call", params, &result); err != nil {
			b.Fatal(err)
		}
	}
	if string(result) != string(params) {
		b.Fatalf("echo returned %s", result)
	}
}

// BenchmarkConnCallRoundTrip measures one Call between two Conns whose stream
// hands messages over whole: the cost of the Conn engine alone.
func BenchmarkConnCallRoundTrip(b *testing.B) { benchmarkRoundTrip(b, false) }

// BenchmarkConnCallRoundTripWire is the same with each message encoded with
// AppendJSON and decoded with Decode, as a byte transport would.
func BenchmarkConnCallRoundTripWire(b *testing.B) { benchmarkRoundTrip(b, true) }

// BenchmarkConnCallParallel measures concurrent Calls over one pair of Conns.
func BenchmarkConnCallParallel(b *testing.B) {
	client, _ := newConnPair(b, false, ConnOptions{}, ConnOptions{Handler: echo})
	params := json.RawMessage(`{"name":"get_weather"}`)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var result json.RawMessage
		for pb.Next() {
			if err := client.Call(context.Background(), "tools/call", params, &result); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkConnNotify measures notifications flowing through the lane.
func BenchmarkConnNotify(b *testing.B) {
	done := make(chan struct{}, 1)
	n := 0
	var target int
	h := HandlerFunc(func(_ context.Context, m *Message) (any, error) {
		n++ // the lane runs one notification at a time
		if n == target {
			done <- struct{}{}
		}
		return nil, nil
	})
	// No notification may be dropped for the lane being full (a loaded
	// machine): the benchmark waits for the last one.
	client, _ := newConnPair(b, false, ConnOptions{}, ConnOptions{Handler: h, MaxQueuedNotifications: 1 << 30})
	target = b.N
	params := json.RawMessage(`{"progressToken":"t","progress":1}`)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := client.Notify(context.Background(), "notifications/progress", params); err != nil {
			b.Fatal(err)
		}
	}
	<-done
}

func BenchmarkDecodeStringID(b *testing.B) {
	data := []byte(`{"jsonrpc":"2.0","id":"7b0c1e52-req","method":"ping"}`)
	b.ReportAllocs()
	for b.Loop() {
		if m := Decode(data); m.Invalid != nil {
			b.Fatal(m.Invalid)
		}
	}
}
