package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"time"
)

// A DPoPNonce issues and checks the server nonces of RFC 9449 §9, which
// bound how long a proof can be used to the nonce's life rather than to
// the clock of the client. Implementations must be safe for concurrent
// use.
type DPoPNonce interface {
	// Current is the nonce to give clients (the DPoP-Nonce header).
	Current() string
	// Valid reports whether a proof's nonce is acceptable.
	Valid(nonce string) bool
}

// NewRotatingNonce returns a DPoPNonce whose nonce changes every period
// (default 5 minutes), accepting the current and the previous one. Nonces
// are an HMAC of the period's number under a random key, so they cost no
// memory; processes behind one load balancer need one shared DPoPNonce of
// their own (or sticky sessions).
func NewRotatingNonce(period time.Duration) DPoPNonce {
	if period <= 0 {
		period = 5 * time.Minute
	}
	key := make([]byte, 32)
	rand.Read(key)
	return &rotatingNonce{key: key, period: period, now: time.Now}
}

type rotatingNonce struct {
	key    []byte
	period time.Duration
	now    func() time.Time
}

func (n *rotatingNonce) at(window int64) string {
	m := hmac.New(sha256.New, n.key)
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(window))
	m.Write(b[:])
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:18])
}

func (n *rotatingNonce) window() int64 { return n.now().UnixNano() / int64(n.period) }

func (n *rotatingNonce) Current() string { return n.at(n.window()) }

func (n *rotatingNonce) Valid(nonce string) bool {
	w := n.window()
	return nonce != "" && (hmac.Equal([]byte(nonce), []byte(n.at(w))) || hmac.Equal([]byte(nonce), []byte(n.at(w-1))))
}
