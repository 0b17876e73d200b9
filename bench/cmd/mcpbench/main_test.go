package main

import (
	"encoding/json"
	"strconv"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestMedian(t *testing.T) {
	tests := []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
	}
	for _, tt := range tests {
		if got := median(tt.in); got != tt.want {
			t.Errorf("median(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// TestCheckEcho: the driver refuses every answer that is not the echo of
// what it sent.
func TestCheckEcho(t *testing.T) {
	want := func(id int64) string { return "m" + strconv.FormatInt(id, 10) }
	tests := []struct {
		name, answer string
		id           int64
		ok           bool
	}{
		{"right", `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"m7"}]}}`, 7, true},
		{"any id", `{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"m9"}]}}`, -1, true},
		{"wrong id", `{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"m8"}]}}`, 7, false},
		{"wrong text", `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"m8"}]}}`, 7, false},
		{"tool error", `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"m7"}],"isError":true}}`, 7, false},
		{"error", `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"no"}}`, 7, false},
		{"no id", `{"jsonrpc":"2.0","result":{}}`, 7, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a answer
			if err := json.Unmarshal([]byte(tt.answer), &a); err != nil {
				t.Fatal(err)
			}
			if err := checkEcho(&a, tt.id, want); (err == nil) != tt.ok {
				t.Errorf("checkEcho: %v, want ok=%v", err, tt.ok)
			}
		})
	}
}
