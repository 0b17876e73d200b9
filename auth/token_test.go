package auth_test

import (
	"testing"

	"github.com/gomcp/sdk/auth"
)

// TestPrincipalUnambiguous: no two different callers share a principal,
// whatever their subjects, client ids and issuers spell.
func TestPrincipalUnambiguous(t *testing.T) {
	callers := []auth.TokenInfo{
		{Issuer: "https://as", ClientID: "svc"},
		{Issuer: "https://as", Subject: "client:svc"},
		{Issuer: "https://as", Subject: "svc"},
		{Issuer: "https://as", Subject: `svc" client "x`},
		{Issuer: "https://as", ClientID: "x"},
		{Issuer: "https://as a", Subject: "b"},
		{Issuer: "https://as", Subject: "a b"},
		{Issuer: "https://as", Subject: "b", ClientID: "c"}, // the subject names the caller
		{Issuer: "https://other", Subject: "b"},
		{Issuer: `https://as" sub "b`, Subject: "b"},
	}
	seen := map[string]auth.TokenInfo{}
	for _, c := range callers {
		p := c.Principal()
		if prev, ok := seen[p]; ok {
			t.Errorf("%+v and %+v share the principal %s", prev, c, p)
		}
		seen[p] = c
	}
	same := auth.TokenInfo{Issuer: "https://as", Subject: "b", ClientID: "other"}
	if got, want := same.Principal(), (&auth.TokenInfo{Issuer: "https://as", Subject: "b"}).Principal(); got != want {
		t.Errorf("one subject through two clients: %s and %s, want one principal", got, want)
	}
}
