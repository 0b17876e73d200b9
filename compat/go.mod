module github.com/gomcp/sdk/compat

go 1.26

require github.com/gomcp/sdk v0.0.0-00010101000000-000000000000

require (
	github.com/mark3labs/mcp-go v1.2.1 // indirect
	github.com/modelcontextprotocol/go-sdk v1.8.0 // indirect
)

replace github.com/gomcp/sdk => ../
