package authtest_test

import (
	"context"
	"fmt"

	"github.com/gomcp/sdk/auth"
	"github.com/gomcp/sdk/auth/authtest"
)

// A test of a resource server mints the tokens it needs directly, and
// verifies them against the server's JWKS as production code would.
func ExampleStart() {
	as, err := authtest.Start(&authtest.Options{Scopes: []string{"notes"}})
	if err != nil {
		panic(err)
	}
	defer as.Close()
	tok, _ := as.Mint(authtest.Token{Subject: "alice", Audience: []string{"https://mcp.example.com/mcp"}, Scopes: []string{"notes"}})
	v, _ := auth.NewJWTVerifier(auth.JWTOptions{Issuer: as.Issuer, Audience: "https://mcp.example.com/mcp", JWKSURL: as.JWKSURL()})
	info, err := v.Verify(context.Background(), tok)
	fmt.Println(info.Subject, info.Scopes, err)
	// Output: alice [notes] <nil>
}
