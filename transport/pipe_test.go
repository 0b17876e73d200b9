package transport

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
)

func TestPipeHandsOverMessages(t *testing.T) {
	a, b := Pipe()
	defer a.Close()
	ctx := context.Background()
	for _, dir := range []struct {
		name     string
		from, to jsonrpc.Stream
	}{{"a to b", a, b}, {"b to a", b, a}} {
		t.Run(dir.name, func(t *testing.T) {
			m := jsonrpc.NewRequest(jsonrpc.Int64ID(1), "tools/call", json.RawMessage(`{"name":"x"}`))
			if err := dir.from.Write(ctx, m); err != nil {
				t.Fatal(err)
			}
			got, err := dir.to.Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got != m {
				t.Fatal("message was copied, want it handed over")
			}
		})
	}
}

func TestPipeCanonical(t *testing.T) {
	bad := jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "bad")
	tests := []struct {
		name string
		in   *jsonrpc.Message
		same bool // delivered as the very same value
	}{
		{"request", jsonrpc.NewRequest(jsonrpc.Int64ID(1), "m", json.RawMessage(`{}`)), true},
		{"notification", jsonrpc.NewNotification("m", nil), true},
		{"response", jsonrpc.NewResponse(jsonrpc.Int64ID(1), json.RawMessage(`[]`)), true},
		{"error response", jsonrpc.NewErrorResponse(jsonrpc.Int64ID(1), bad), true},
		{"batch", &jsonrpc.Message{Batch: []*jsonrpc.Message{jsonrpc.NewNotification("m", nil)}}, true},
		{"response with nil result", &jsonrpc.Message{ID: jsonrpc.Int64ID(3)}, false},
		{"invalid becomes an error response", &jsonrpc.Message{ID: jsonrpc.Int64ID(4), Invalid: bad}, false},
		{"request carrying a result", &jsonrpc.Message{ID: jsonrpc.Int64ID(5), Method: "m", Result: json.RawMessage(`1`)}, false},
		{"both result and error", &jsonrpc.Message{ID: jsonrpc.Int64ID(6), Result: json.RawMessage(`1`), Error: bad}, false},
		{"batch with odd element", &jsonrpc.Message{Batch: []*jsonrpc.Message{
			jsonrpc.NewNotification("m", nil), {ID: jsonrpc.Int64ID(7), Invalid: bad}}}, false},
		{"batch with extra fields", &jsonrpc.Message{Method: "m", Batch: []*jsonrpc.Message{jsonrpc.NewNotification("m", nil)}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := Pipe()
			defer a.Close()
			ctx := context.Background()
			if err := a.Write(ctx, tt.in); err != nil {
				t.Fatal(err)
			}
			got, err := b.Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if (got == tt.in) != tt.same {
				t.Errorf("delivered the same value: %v, want %v", got == tt.in, tt.same)
			}
			// The pipe delivers what a line stream would have decoded.
			want := jsonrpc.Decode(tt.in.AppendJSON(nil))
			if describe(got) != describe(want) || got.Invalid != nil {
				t.Errorf("got %s, want %s", describe(got), describe(want))
			}
		})
	}
}

func TestPipeClose(t *testing.T) {
	ctx := context.Background()
	a, b := Pipe()
	for i := range 3 {
		if err := a.Write(ctx, jsonrpc.NewRequest(jsonrpc.Int64ID(int64(i)), "m", nil)); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Write(ctx, jsonrpc.NewNotification("to a", nil)); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	// Writes fail both ways.
	for _, s := range []jsonrpc.Stream{a, b} {
		if err := s.Write(ctx, jsonrpc.NewNotification("late", nil)); err != jsonrpc.ErrClosed {
			t.Fatalf("Write after Close: %v", err)
		}
	}
	// The closed end does not read any more.
	if _, err := a.Read(ctx); err != jsonrpc.ErrClosed {
		t.Fatalf("Read on the closed end: %v", err)
	}
	// The other end drains, then sees EOF.
	for i := range 3 {
		m, err := b.Read(ctx)
		if err != nil {
			t.Fatalf("drain %d: %v", i, err)
		}
		if id, _ := m.ID.Int64(); id != int64(i) {
			t.Fatalf("drain %d: got id %v", i, m.ID)
		}
	}
	for range 2 {
		if _, err := b.Read(ctx); err != io.EOF {
			t.Fatalf("Read after drain: %v, want io.EOF", err)
		}
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Read(ctx); err != jsonrpc.ErrClosed {
		t.Fatalf("Read after closing both: %v", err)
	}
}

func TestPipeBlocking(t *testing.T) {
	t.Run("Read honours ctx", func(t *testing.T) {
		a, _ := Pipe()
		defer a.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		if _, err := a.Read(ctx); err != context.DeadlineExceeded {
			t.Fatalf("Read: %v", err)
		}
	})
	t.Run("Write blocks when full and honours ctx", func(t *testing.T) {
		a, b := Pipe()
		defer a.Close()
		bg := context.Background()
		for i := range pipeBuffer {
			if err := a.Write(bg, jsonrpc.NewNotification("m", nil)); err != nil {
				t.Fatalf("write %d: %v", i, err)
			}
		}
		ctx, cancel := context.WithTimeout(bg, 20*time.Millisecond)
		defer cancel()
		if err := a.Write(ctx, jsonrpc.NewNotification("m", nil)); err != context.DeadlineExceeded {
			t.Fatalf("Write to a full pipe: %v", err)
		}
		if _, err := b.Read(bg); err != nil {
			t.Fatal(err)
		}
		// With room again, even a done ctx does not stop delivery.
		if err := a.Write(ctx, jsonrpc.NewNotification("m", nil)); err != nil {
			t.Fatalf("Write with room: %v", err)
		}
	})
	t.Run("Close wakes blocked Read and Write", func(t *testing.T) {
		a, b := Pipe()
		bg := context.Background()
		for range pipeBuffer {
			if err := a.Write(bg, jsonrpc.NewNotification("m", nil)); err != nil {
				t.Fatal(err)
			}
		}
		errs := make(chan error, 2)
		go func() { errs <- a.Write(bg, jsonrpc.NewNotification("m", nil)) }()
		go func() { _, err := a.Read(bg); errs <- err }()
		time.Sleep(20 * time.Millisecond)
		b.Close()
		for range 2 {
			select {
			case err := <-errs:
				if err != jsonrpc.ErrClosed && err != io.EOF {
					t.Fatalf("got %v", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("still blocked after Close")
			}
		}
	})
}

// TestPipeNoLostMessages closes a pipe while writers are busy: every Write
// that reported success must be read by the other end before io.EOF.
func TestPipeNoLostMessages(t *testing.T) {
	for round := range 500 {
		a, b := Pipe()
		var sent atomic.Int64
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for {
					err := a.Write(context.Background(), jsonrpc.NewNotification("m", nil))
					if errors.Is(err, jsonrpc.ErrClosed) {
						return
					}
					if err != nil {
						t.Error(err)
						return
					}
					sent.Add(1)
				}
			})
		}
		var read int64
		closed := make(chan struct{})
		for {
			if read == 100 {
				go func() { a.Close(); close(closed) }()
			}
			_, err := b.Read(context.Background())
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			read++
		}
		wg.Wait()
		<-closed
		if read != sent.Load() {
			t.Fatalf("round %d: %d messages acknowledged, %d read", round, sent.Load(), read)
		}
	}
}
