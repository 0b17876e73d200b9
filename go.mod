module github.com/gomcp/sdk

go 1.26.0

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/go-jose/go-jose/v4 v4.1.9
	github.com/redis/go-redis/v9 v9.23.0
	github.com/yosida95/uritemplate/v3 v3.0.2
	go.uber.org/goleak v1.3.0
	golang.org/x/term v0.47.0
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/kr/text v0.2.0 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)
