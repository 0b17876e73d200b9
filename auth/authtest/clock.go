package authtest

import (
	"sync"
	"time"
)

// Clock is a clock a test moves forward, to expire tokens at once instead
// of waiting for them: pass its Now as Options.Now and as the resource
// server's verifier's clock (auth.JWTOptions.Now). The zero value reads
// the wall clock; it is safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	off time.Duration
}

// Now returns the wall clock's time plus every Advance so far.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.off)
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.off += d
}
