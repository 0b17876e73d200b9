package gateway

// HeldFor returns the downstream URIs whose subscriptions this gateway
// process has taken up for the downstream session with id sid, sorted. A
// session rebuilt from the store has its subscriptions taken up in the
// background (sessionRegistered): the replica tests wait on this to know
// that path has run before they check what it did not do.
func HeldFor(g *Gateway, sid string) []string {
	g.subs.mu.Lock()
	defer g.subs.mu.Unlock()
	for ss, m := range g.subs.held {
		if ss.ID() == sid {
			return sortedKeys(m)
		}
	}
	return nil
}
