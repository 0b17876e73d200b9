module github.com/gomcp/sdk/cmd/mcp/browsertest

go 1.26.0

require (
	github.com/chromedp/chromedp v0.23.0
	go.uber.org/goleak v1.3.0
)

require github.com/yosida95/uritemplate/v3 v3.0.2 // indirect

require (
	github.com/chromedp/cdproto v0.159.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/gomcp/sdk v0.0.0
)

replace github.com/gomcp/sdk => ../../..
