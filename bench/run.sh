#!/usr/bin/env bash
# bench/run.sh: build the benchmark's servers and driver, run every figure
# against every server, and print the Markdown table (medians of the rounds;
# throughput as a ratio to the floor), then a second one of the gomcp server
# direct and behind mcp gateway, and a third of both beside a byte relay
# and a plain proxy built on the SDK.
# Progress goes to stderr.
#
#   bench/run.sh [mcpbench flags...]     e.g. bench/run.sh -rounds 5 -d 3s
#
# Needs Go, and for the TypeScript SDK servers Node 22 with
# @modelcontextprotocol/sdk (SDK 1) and @modelcontextprotocol/server and
# node (SDK 2) (scripts/tools.sh installs them into ~/.cache/gomcp-test).
# Without them the TypeScript columns are left out. SDK 1 serves no
# stateless revision: the 2026-07-28 figure leaves it out (-legacy).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
(cd "$here" && go build -o "$bin/" ./cmd/mcpbench ./servers/floor ./servers/gomcp ./servers/gosdk ./servers/mcpgo)
servers=(-server "floor=$bin/floor" -server "go-sdk=$bin/gosdk" -server "mcp-go=$bin/mcpgo")
if [[ -z ${NODE22:-} || -z ${MCP_TS_SDK_DIR:-} ]] && [[ -f $here/../scripts/tools.sh ]]; then
	# shellcheck source=../scripts/tools.sh
	source "$here/../scripts/tools.sh" >/dev/null 2>&1 || true
fi
if [[ -n ${NODE22:-} && -n ${MCP_TS_SDK_DIR:-} ]]; then
	export MCP_TS_SDK_DIR
	servers+=(-server "TS SDK 1=$NODE22 $here/servers/ts/server.mjs" -legacy "TS SDK 1")
	servers+=(-server "TS SDK 2=$NODE22 $here/servers/tsv2/server.mjs")
else
	echo "run.sh: no Node 22 or TypeScript SDK: leaving the TS SDKs out" >&2
fi
servers+=(-server "gomcp=$bin/gomcp")
"$bin/mcpbench" "${servers[@]}" "$@"
# A second table: the gomcp server direct and through mcp gateway as its
# one upstream (so without a prefix), what the gateway adds to a call. The
# gateway's server CPU is its own process's; the upstream's is not counted.
# (The idle figure is left out: mcp gateway --http keeps the default limit
# of 100 sessions per client.)
(cd "$here/.." && go build -o "$bin/" ./cmd/mcp)
printf '{"mcpServers": {"bench": {"command": "%s"}}}\n' "$bin/gomcp" >"$bin/gateway.json"
echo
"$bin/mcpbench" -server "gomcp=$bin/gomcp" -server "gomcp via gateway=$bin/mcp gateway $bin/gateway.json" "$@" -figures stdio1,stdio32,http1,http16
# A third: the same over stdio beside a byte relay (cmd/relay), the floor of
# any process in between: two more pipes, nothing parsed; and beside the
# least typed proxy this SDK makes (cmd/sdkproxy: a server whose tools call
# a client session), what its server and client cost by themselves.
(cd "$here" && go build -o "$bin/" ./cmd/relay ./cmd/sdkproxy)
echo
"$bin/mcpbench" -server "gomcp=$bin/gomcp" -server "byte relay=$bin/relay $bin/gomcp" -server "SDK proxy=$bin/sdkproxy $bin/gomcp" -server "gomcp via gateway=$bin/mcp gateway $bin/gateway.json" "$@" -figures stdio1,stdio32
