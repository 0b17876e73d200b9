package authtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// DPoPKey is a client's DPoP key (ES256), making proofs (RFC 9449 §4) for
// tests of servers.
type DPoPKey struct {
	key    *ecdsa.PrivateKey
	signer jose.Signer
	jkt    string
}

// NewDPoPKey makes a fresh key.
func NewDPoPKey() (*DPoPKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	jwk := jose.JSONWebKey{Key: &key.PublicKey}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key},
		(&jose.SignerOptions{EmbedJWK: true}).WithType("dpop+jwt"))
	if err != nil {
		return nil, err
	}
	jkt, err := Thumbprint(jwk.Key)
	if err != nil {
		return nil, err
	}
	return &DPoPKey{key: key, signer: signer, jkt: jkt}, nil
}

// JKT is the key's thumbprint, what tokens bound to it carry as cnf.jkt.
func (k *DPoPKey) JKT() string { return k.jkt }

// ProofClaims are the claims of a proof; Proof fills what is left zero.
type ProofClaims struct {
	JTI   string `json:"jti"`
	HTM   string `json:"htm"`
	HTU   string `json:"htu"`
	IAT   int64  `json:"iat"`
	ATH   string `json:"ath,omitempty"`
	Nonce string `json:"nonce,omitempty"`
}

// Proof returns a proof for a request of method to uri, presenting
// accessToken ("" for a token request): a fresh jti, iat now.
func (k *DPoPKey) Proof(method, uri, accessToken string) (string, error) {
	return k.ProofWith(ProofClaims{HTM: method, HTU: uri}, accessToken)
}

// ProofWith returns a proof with the given claims, filling an empty jti
// with a fresh one, a zero iat with now, and ath from accessToken when it
// is not "" and ATH is empty. Tests use it to make bad proofs.
func (k *DPoPKey) ProofWith(c ProofClaims, accessToken string) (string, error) {
	if c.JTI == "" {
		c.JTI = randomString(16)
	}
	if c.IAT == 0 {
		c.IAT = time.Now().Unix()
	}
	if accessToken != "" && c.ATH == "" {
		sum := sha256.Sum256([]byte(accessToken))
		c.ATH = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	return jwt.Signed(k.signer).Claims(c).Serialize()
}
