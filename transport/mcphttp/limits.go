package mcphttp

import "sync"

// clientCounter counts things held at once (requests being handled,
// sessions open), in all and by client, against a bound for all (max) and
// one for each client (perClient); a bound that is not positive is no
// bound. The client "" is counted in all only. The zero value counts
// without bounds; a nil *clientCounter counts nothing.
type clientCounter struct {
	max, perClient int

	mu       sync.Mutex
	total    int
	byClient map[string]int
}

func newClientCounter(max, perClient int) *clientCounter {
	return &clientCounter{max: max, perClient: perClient}
}

// acquire counts one more for client, or reports false (counting nothing)
// when a bound is reached, and whether it is the client's own (overQuota)
// rather than the bound for all.
func (c *clientCounter) acquire(client string) (ok, overQuota bool) {
	if c == nil {
		return true, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if client != "" && c.perClient > 0 && c.byClient[client] >= c.perClient {
		return false, true // the client's own bound first: it is the one to slow down
	}
	if c.max > 0 && c.total >= c.max {
		return false, false
	}
	c.total++
	if client != "" {
		if c.byClient == nil {
			c.byClient = make(map[string]int)
		}
		c.byClient[client]++
	}
	return true, false
}

// release stops counting one of client's.
func (c *clientCounter) release(client string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total--
	if client == "" {
		return
	}
	if n := c.byClient[client] - 1; n > 0 {
		c.byClient[client] = n
	} else {
		delete(c.byClient, client)
	}
}

// held reports how many client holds (all clients' when client is "").
func (c *clientCounter) held(client string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if client == "" {
		return c.total
	}
	return c.byClient[client]
}
