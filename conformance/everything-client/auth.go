package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gomcp/sdk/oauth"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// cimdURL is the Client ID Metadata Document URL the suite expects.
const cimdURL = "https://conformance-test.local/client-metadata.json"

// authContext is MCP_CONFORMANCE_CONTEXT for the auth/* scenarios.
type authContext struct {
	ClientID         string `json:"client_id"`
	ClientSecret     string `json:"client_secret"`
	Issuer           string `json:"issuer"`
	PrivateKeyPEM    string `json:"private_key_pem"`
	SigningAlgorithm string `json:"signing_algorithm"`
	IDPClientID      string `json:"idp_client_id"`
	IDPIDToken       string `json:"idp_id_token"`
	IDPTokenEndpoint string `json:"idp_token_endpoint"`
	ValidJWT         string `json:"valid_jwt"`
}

// authConfig turns a scenario and its context into the OAuth configuration.
func authConfig(scenario, rawContext string) (*oauth.Config, error) {
	var ac authContext
	if rawContext != "" {
		if err := json.Unmarshal([]byte(rawContext), &ac); err != nil {
			return nil, fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
		}
	}
	cfg := &oauth.Config{
		ClientMetadataURL: cimdURL,
		ClientName:        "gomcp-everything-client",
		DPoP:              true,
	}
	switch strings.TrimPrefix(scenario, "auth/") {
	case "client-credentials-jwt":
		key, err := oauth.ParsePrivateKeyPEM([]byte(ac.PrivateKeyPEM))
		if err != nil {
			return nil, err
		}
		cfg.Grant, cfg.ClientID, cfg.PrivateKey, cfg.SigningAlgorithm = oauth.ClientCredentials, ac.ClientID, key, ac.SigningAlgorithm
	case "client-credentials-basic":
		cfg.Grant, cfg.ClientID, cfg.ClientSecret = oauth.ClientCredentials, ac.ClientID, ac.ClientSecret
	case "enterprise-managed-authorization":
		cfg.Grant, cfg.ClientID, cfg.ClientSecret = oauth.EnterpriseManaged, ac.ClientID, ac.ClientSecret
		idt := ac.IDPIDToken
		cfg.Enterprise = &oauth.Enterprise{
			TokenEndpoint: ac.IDPTokenEndpoint,
			ClientID:      ac.IDPClientID,
			IDToken:       func(context.Context) (string, error) { return idt, nil },
		}
	case "wif-jwt-bearer":
		jwt := ac.ValidJWT
		cfg.Grant, cfg.ClientID = oauth.JWTBearer, ac.ClientID
		cfg.Assertion = func(context.Context) (string, error) { return jwt, nil }
	default:
		cfg.ClientID, cfg.ClientSecret, cfg.ClientIssuer = ac.ClientID, ac.ClientSecret, ac.Issuer
	}
	return cfg, nil
}

// runAuth acts out an auth/* scenario: connect through the OAuth layer,
// list the tools and call test-tool.
func runAuth(ctx context.Context, url, scenario, version, rawContext string) error {
	cfg, err := authConfig(scenario, rawContext)
	if err != nil {
		return err
	}
	az, err := oauth.New(url, cfg)
	if err != nil {
		return err
	}
	cs, err := newClient(version).Connect(ctx, mcphttp.NewClientStream(url, &mcphttp.ClientOptions{Authorizer: az}))
	if err != nil {
		return err
	}
	defer cs.Close()
	if _, err := listTools(ctx, cs); err != nil {
		return err
	}
	return call(ctx, cs, "test-tool", `{}`)
}
