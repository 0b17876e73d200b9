package oauth_test

import (
	"context"
	"log"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/oauth"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// An MCP client whose requests log in when the server answers 401. The
// default configuration registers dynamically and completes the login
// headlessly; give a LoopbackUserAgent for a person with a browser.
func Example() {
	ctx := context.Background()
	url := "https://mcp.example.com/mcp"
	az, err := oauth.New(url, &oauth.Config{
		ClientMetadataURL: "https://client.example.com/client-metadata.json",
		UserAgent:         &oauth.LoopbackUserAgent{},
	})
	if err != nil {
		log.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1.0.0"}, nil)
	cs, err := c.Connect(ctx, mcphttp.NewClientStream(url, &mcphttp.ClientOptions{Authorizer: az}))
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
}

// A service calling an MCP server on its own behalf, with a client secret
// (the client credentials extension).
func ExampleConfig_clientCredentials() {
	az, err := oauth.New("https://mcp.example.com/mcp", &oauth.Config{
		Grant:        oauth.ClientCredentials,
		ClientID:     "reporting-service",
		ClientSecret: "s3cret",
	})
	if err != nil {
		log.Fatal(err)
	}
	_ = mcphttp.ClientOptions{Authorizer: az}
}
