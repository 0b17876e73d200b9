package transport

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"
)

// A line stream keeps the watch of its last Read's context for the next
// one. A context that ends between two Reads ends the next Read with it at
// once, and leaves a Read with another context unharmed: the deadline it
// moved into the past is cleared first.
func TestReadWatchOutlivesRead(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	s := NewLineStream(r, w, closers{r, w}, nil)
	defer s.Close()
	write := func(line string) {
		t.Helper()
		if _, err := w.WriteString(line + "\n"); err != nil {
			t.Fatal(err)
		}
	}
	a, cancelA := context.WithCancel(context.Background())
	write(`{"jsonrpc":"2.0","method":"one"}`)
	if m, err := s.Read(a); err != nil || m.Method != "one" {
		t.Fatalf("Read = %v, %v", m, err)
	}
	cancelA()
	time.Sleep(10 * time.Millisecond) // let the watch move the deadline, as it may at any time
	write(`{"jsonrpc":"2.0","method":"two"}`)
	if _, err := s.Read(a); !errors.Is(err, context.Canceled) {
		t.Fatalf("Read with the ended context: %v, want context.Canceled", err)
	}
	b, cancelB := context.WithCancel(context.Background())
	defer cancelB()
	if m, err := s.Read(b); err != nil || m.Method != "two" {
		t.Fatalf("Read with another context = %v, %v, want the next message", m, err)
	}
	// A Read blocked with b still ends when b does.
	go func() {
		time.Sleep(20 * time.Millisecond)
		cancelB()
	}()
	if _, err := s.Read(b); !errors.Is(err, context.Canceled) {
		t.Fatalf("blocked Read: %v, want context.Canceled", err)
	}
}
