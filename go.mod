module github.com/gomcp/sdk

go 1.26.0

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/yosida95/uritemplate/v3 v3.0.2
	go.uber.org/goleak v1.3.0
	golang.org/x/term v0.47.0
	golang.org/x/text v0.14.0
)

require golang.org/x/sys v0.49.0 // indirect
