#!/usr/bin/env bash
# scripts/test.sh: every test of the project, as CI runs it.
#
# Installs what it needs (Go modules, staticcheck, Node 22, the MCP conformance
# suite, the TypeScript SDK and reference server) into a cache folder
# (MCP_TEST_CACHE, default ~/.cache/gomcp-test), then runs each stage below.
# Every stage runs even if an earlier one failed; the script exits non-zero if
# any failed, and ends with a "stages: N passed, M failed" line.
#
# FUZZTIME (default 20s) sets how long each fuzz target runs.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

passed=0
failed=0
failures=()

stage() {
	local name=$1
	shift
	printf '\n=== stage: %s\n' "$name"
	local start=$SECONDS
	if "$@"; then
		passed=$((passed + 1))
		printf '=== ok: %s (%ds)\n' "$name" $((SECONDS - start))
	else
		failed=$((failed + 1))
		failures+=("$name")
		printf '=== FAILED: %s (%ds)\n' "$name" $((SECONDS - start))
	fi
}

# shellcheck source=scripts/tools.sh
if ! source scripts/tools.sh; then
	echo "test.sh: installing test tools failed" >&2
	exit 1
fi

fuzztime=${FUZZTIME:-20s}

gofmt_clean() {
	local out
	out=$(gofmt -l . 2>&1)
	[[ -z $out ]] || { echo "not gofmt'ed:"; echo "$out"; return 1; }
}

fuzz() {
	go test -run=NONE -fuzz=FuzzDecode -fuzztime="$fuzztime" ./jsonrpc/ &&
		go test -run=NONE -fuzz=FuzzLineStream -fuzztime="$fuzztime" ./transport/
}

compat() {
	(cd compat && go vet ./... && go test -race -count=1 ./...)
}

stage "go mod download" go mod download
stage "gofmt" gofmt_clean
stage "go vet" go vet ./...
stage "staticcheck" "$STATICCHECK" ./...
stage "go test -race" go test -race -count=1 ./...
stage "fuzz ($fuzztime per target)" fuzz
stage "interop (TypeScript SDK, server-everything)" go test -race -count=1 -tags interop ./interop/
stage "compat (go-sdk, mcp-go)" compat

printf '\n'
for f in "${failures[@]}"; do
	printf 'failed stage: %s\n' "$f"
done
printf 'stages: %d passed, %d failed\n' "$passed" "$failed"
[[ $failed -eq 0 ]]
