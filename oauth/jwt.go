package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/cryptosigner"
)

// ParsePrivateKeyPEM reads a PKCS #8, SEC 1 (EC) or PKCS #1 (RSA) private
// key in PEM form, for private_key_jwt client authentication.
func ParsePrivateKeyPEM(data []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("oauth: no PEM block in the private key")
	}
	if k, err := x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
		if s, ok := k.(crypto.Signer); ok {
			return s, nil
		}
		return nil, errors.New("oauth: the PKCS #8 key cannot sign")
	}
	if k, err := x509.ParseECPrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	return nil, errors.New("oauth: unsupported private key format")
}

// defaultAlg is the JWS algorithm that suits key.
func defaultAlg(key crypto.Signer) (jose.SignatureAlgorithm, error) {
	switch k := key.Public().(type) {
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256():
			return jose.ES256, nil
		case elliptic.P384():
			return jose.ES384, nil
		case elliptic.P521():
			return jose.ES512, nil
		}
	case *rsa.PublicKey:
		return jose.RS256, nil
	case ed25519.PublicKey:
		return jose.EdDSA, nil
	}
	return "", fmt.Errorf("oauth: unsupported key type %T", key.Public())
}

// signJWT signs claims with key as a compact JWS with header typ (if set)
// and, when embed is true, the public key as jwk.
func signJWT(key crypto.Signer, alg string, typ string, embed bool, claims map[string]any) (string, error) {
	a := jose.SignatureAlgorithm(alg)
	if alg == "" {
		var err error
		if a, err = defaultAlg(key); err != nil {
			return "", err
		}
	}
	var k any = key
	switch key.(type) {
	case *ecdsa.PrivateKey, *rsa.PrivateKey, ed25519.PrivateKey:
	default:
		k = cryptosigner.Opaque(key)
	}
	opts := &jose.SignerOptions{EmbedJWK: embed}
	if typ != "" {
		opts = opts.WithType(jose.ContentType(typ))
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: a, Key: k}, opts)
	if err != nil {
		return "", fmt.Errorf("oauth: signer: %w", err)
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	jws, err := s.Sign(payload)
	if err != nil {
		return "", fmt.Errorf("oauth: signing: %w", err)
	}
	return jws.CompactSerialize()
}

// randomString returns n random bytes, base64url without padding.
func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// s256 is BASE64URL(SHA-256(s)), for PKCE challenges and DPoP ath.
func s256(s string) string {
	h := sha256.Sum256([]byte(s))
	return base64.RawURLEncoding.EncodeToString(h[:])
}

// clientAssertion is an RFC 7523 private_key_jwt assertion for audience aud.
func clientAssertion(key crypto.Signer, alg, clientID, aud string) (string, error) {
	now := time.Now()
	return signJWT(key, alg, "", false, map[string]any{
		"iss": clientID,
		"sub": clientID,
		"aud": aud,
		"iat": now.Unix(),
		"exp": now.Add(5 * time.Minute).Unix(),
		"jti": randomString(16),
	})
}

// dpopProof is an RFC 9449 proof for one request; token, if set, is bound
// through ath, and nonce is the server's latest DPoP-Nonce.
func dpopProof(key crypto.Signer, method, htu, token, nonce string) (string, error) {
	claims := map[string]any{
		"jti": randomString(16),
		"htm": method,
		"htu": htu,
		"iat": time.Now().Unix(),
	}
	if token != "" {
		claims["ath"] = s256(token)
	}
	if nonce != "" {
		claims["nonce"] = nonce
	}
	return signJWT(key, "", "dpop+jwt", true, claims)
}
