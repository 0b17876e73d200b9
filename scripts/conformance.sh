#!/usr/bin/env bash
# scripts/conformance.sh: run the MCP conformance suite (npm @modelcontextprotocol/conformance) and
# decide pass/fail from the per-check results it writes, not from its console text.
#
# Source it (it sources scripts/tools.sh itself when CONFORMANCE is not set yet) and call:
#
#   conformance_server URL SPEC_VERSION [EXTRA_CLI_ARGS...]
#       Runs `conformance server --url URL --suite all --spec-version SPEC_VERSION -o DIR`
#       against an already running server. Returns 0 only if every scenario ran and no check
#       reported FAILURE (nor WARNING when CONFORMANCE_STRICT=1).
#
#   conformance_server_scenario URL SCENARIO [EXTRA_CLI_ARGS...]
#       Runs one server scenario alone, by name and without --spec-version (extension scenarios
#       are on no spec timeline): `conformance server --url URL --scenario SCENARIO -o DIR`.
#       Returns 0 only if the scenario wrote results, no check reported FAILURE (nor WARNING when
#       CONFORMANCE_STRICT=1) and at least one check succeeded.
#
#   conformance_client SCENARIO CMD [ARGS...]
#       Runs `conformance client --scenario SCENARIO --command "CMD ARGS..." -o DIR`. The suite
#       starts a mock server, then runs CMD ARGS... <server-url> through /bin/sh with
#       MCP_CONFORMANCE_SCENARIO=SCENARIO and MCP_CONFORMANCE_PROTOCOL_VERSION set (plus
#       MCP_CONFORMANCE_CONTEXT for scenarios that need extra data). Returns 0 only if the suite
#       says so (no FAILURE/WARNING check, client exited 0 and in time) and the summary agrees.
#
# Or run it:  scripts/conformance.sh server URL SPEC_VERSION [EXTRA...]
#             scripts/conformance.sh server-scenario URL SCENARIO [EXTRA...]
#             scripts/conformance.sh client SCENARIO CMD [ARGS...]
#
# Settings (environment):
#   CONFORMANCE_OUT_DIR          keep results here (checks.json per scenario, the CLI log);
#                                default: a fresh temporary folder, removed when the run passes
#   CONFORMANCE_TIMEOUT_MS       per-scenario timeout passed to the CLI (default 30000)
#   CONFORMANCE_SPEC_VERSION     client runs only: --spec-version (default: the scenario's own)
#   CONFORMANCE_EXPECTED_FAILURES YAML baseline passed as --expected-failures; the verdict is then
#                                the CLI's exit code (which applies the baseline)
#   CONFORMANCE_STRICT=1         server runs: WARNING checks fail the run too
#   CONFORMANCE_VERBOSE=1        stream the CLI output instead of only keeping it in the log
#
# Return codes: 0 pass, 1 fail, 2 usage error, 3 scenario skipped (not applicable at the version).

_conformance_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

_conformance_log() { printf 'conformance.sh: %s\n' "$*" >&2; }

# _conformance_tools: make sure CONFORMANCE and NODE22 are set (installing if needed).
_conformance_tools() {
	if [[ -n ${CONFORMANCE:-} && -x ${CONFORMANCE:-} && -n ${NODE22:-} ]]; then
		return 0
	fi
	# shellcheck source=SCRIPTDIR/tools.sh
	source "$_conformance_dir/tools.sh"
}

# _conformance_shquote S: S single-quoted for /bin/sh.
_conformance_shquote() {
	local q="'\\''"
	printf "'%s'" "${1//\'/$q}"
}

# _conformance_outdir NAME: print the folder results go to (created).
_conformance_outdir() {
	local d
	if [[ -n ${CONFORMANCE_OUT_DIR:-} ]]; then
		d=$CONFORMANCE_OUT_DIR/$1
		rm -rf "$d" && mkdir -p "$d" || return 1
	else
		d=$(mktemp -d "${TMPDIR:-/tmp}/conformance.XXXXXX") || return 1
	fi
	printf '%s' "$d"
}

# _conformance_run LOG CMD...: run CMD with output to LOG (and to stdout if verbose); returns CMD's status.
_conformance_run() {
	local log=$1 rc=0
	shift
	if [[ ${CONFORMANCE_VERBOSE:-} == 1 ]]; then
		"$@" </dev/null 2>&1 | tee "$log" || rc=${PIPESTATUS[0]}
	else
		"$@" </dev/null >"$log" 2>&1 || rc=$?
	fi
	return "$rc"
}

# _conformance_finish OUT RC: print where results are; remove a temporary OUT after a pass.
_conformance_finish() {
	local out=$1 rc=$2
	if ((rc == 0)) && [[ -z ${CONFORMANCE_OUT_DIR:-} ]]; then
		rm -rf "$out"
	else
		_conformance_log "results kept in $out"
	fi
	return "$rc"
}

conformance_server() {
	if (($# < 2)); then
		_conformance_log "usage: conformance_server URL SPEC_VERSION [EXTRA_CLI_ARGS...]"
		return 2
	fi
	local url=$1 spec=$2
	shift 2
	_conformance_tools || return 1
	local out log rc=0 expect verdict=0
	out=$(_conformance_outdir "server-$spec") || return 1
	log=$out/cli.log
	local -a cmd=("$CONFORMANCE" server --url "$url" --suite all --spec-version "$spec"
		--timeout "${CONFORMANCE_TIMEOUT_MS:-30000}" -o "$out")
	if [[ -n ${CONFORMANCE_EXPECTED_FAILURES:-} ]]; then
		cmd+=(--expected-failures "$CONFORMANCE_EXPECTED_FAILURES")
	fi
	cmd+=("$@")
	_conformance_log "server suite at $spec against $url"
	_conformance_run "$log" "${cmd[@]}" || rc=$?
	# The CLI announces "Running all suite (N scenarios) against URL".
	expect=$(sed -n 's/^Running .* (\([0-9][0-9]*\) scenarios).*/\1/p' "$log" | head -n1)
	local -a sum=("$NODE22" "$_conformance_dir/conformance-summary.mjs" "$out"
		--label "conformance server $spec" --expect "${expect:-1}")
	if [[ ${CONFORMANCE_STRICT:-} == 1 ]]; then
		sum+=(--strict)
	fi
	"${sum[@]}" || verdict=$?
	if [[ -z $expect ]]; then
		_conformance_log "the CLI did not start the suite; log follows"
		cat "$log" >&2
		verdict=1
	elif [[ -n ${CONFORMANCE_EXPECTED_FAILURES:-} ]]; then
		# With a baseline, failures listed in it are expected: the CLI's exit code is the verdict.
		verdict=$rc
	elif ((rc != 0 && verdict == 0)); then
		_conformance_log "the CLI exited $rc although every check passed; log tail follows"
		tail -n 40 "$log" >&2
		verdict=$rc
	fi
	_conformance_finish "$out" "$((verdict == 0 ? 0 : 1))"
}

conformance_server_scenario() {
	if (($# < 2)); then
		_conformance_log "usage: conformance_server_scenario URL SCENARIO [EXTRA_CLI_ARGS...]"
		return 2
	fi
	local url=$1 scenario=$2
	shift 2
	_conformance_tools || return 1
	local out log rc=0 verdict=0
	out=$(_conformance_outdir "server-${scenario//\//_}") || return 1
	log=$out/cli.log
	_conformance_log "server scenario $scenario against $url"
	_conformance_run "$log" "$CONFORMANCE" server --url "$url" --scenario "$scenario" \
		--timeout "${CONFORMANCE_TIMEOUT_MS:-30000}" -o "$out" "$@" || rc=$?
	local -a sum=("$NODE22" "$_conformance_dir/conformance-summary.mjs" "$out"
		--label "conformance server $scenario" --expect 1)
	if [[ ${CONFORMANCE_STRICT:-} == 1 ]]; then
		sum+=(--strict)
	fi
	"${sum[@]}" || verdict=$?
	if ((rc != 0 && verdict == 0)); then
		_conformance_log "the CLI exited $rc although every check passed; log tail follows"
		tail -n 40 "$log" >&2
		verdict=$rc
	fi
	_conformance_finish "$out" "$((verdict == 0 ? 0 : 1))"
}

conformance_client() {
	if (($# < 2)); then
		_conformance_log "usage: conformance_client SCENARIO CMD [ARGS...]"
		return 2
	fi
	local scenario=$1
	shift
	_conformance_tools || return 1
	# The CLI splits --command on single spaces and hands the pieces, plus the server URL, to
	# /bin/sh joined by single spaces again: a quoted command line survives intact.
	local command="" a
	for a in "$@"; do
		command+="${command:+ }$(_conformance_shquote "$a")"
	done
	local out log rc=0 verdict=0
	out=$(_conformance_outdir "client-${scenario//\//_}") || return 1
	log=$out/cli.log
	local -a cmd=("$CONFORMANCE" client --scenario "$scenario" --command "$command"
		--timeout "${CONFORMANCE_TIMEOUT_MS:-30000}" -o "$out")
	if [[ -n ${CONFORMANCE_SPEC_VERSION:-} ]]; then
		cmd+=(--spec-version "$CONFORMANCE_SPEC_VERSION")
	fi
	if [[ -n ${CONFORMANCE_EXPECTED_FAILURES:-} ]]; then
		cmd+=(--expected-failures "$CONFORMANCE_EXPECTED_FAILURES")
	fi
	_conformance_log "client scenario $scenario${CONFORMANCE_SPEC_VERSION:+ at $CONFORMANCE_SPEC_VERSION}: $command"
	_conformance_run "$log" "${cmd[@]}" || rc=$?
	if grep -q "^SKIPPED: scenario '" "$log"; then
		grep "^SKIPPED: " "$log" >&2
		_conformance_finish "$out" 3
		return
	fi
	"$NODE22" "$_conformance_dir/conformance-summary.mjs" "$out" --strict \
		--label "conformance client $scenario" --expect 1 || verdict=$?
	# The CLI also fails a scenario when the client timed out or exited non-zero; show why.
	if ((rc != 0)); then
		grep -E 'CLIENT TIMED OUT|CLIENT EXITED WITH ERROR|Client exited with code|Client timed out|OVERALL' "$log" >&2 || true
		if ((verdict == 0)); then
			_conformance_log "log tail follows"
			tail -n 40 "$log" >&2
		fi
		verdict=1
	elif [[ -n ${CONFORMANCE_EXPECTED_FAILURES:-} ]]; then
		verdict=0
	fi
	_conformance_finish "$out" "$((verdict == 0 ? 0 : 1))"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	set -euo pipefail
	case ${1:-} in
	server)
		shift
		conformance_server "$@"
		;;
	server-scenario)
		shift
		conformance_server_scenario "$@"
		;;
	client)
		shift
		conformance_client "$@"
		;;
	*)
		echo "usage: $0 server URL SPEC_VERSION [EXTRA_CLI_ARGS...]" >&2
		echo "       $0 server-scenario URL SCENARIO [EXTRA_CLI_ARGS...]" >&2
		echo "       $0 client SCENARIO CMD [ARGS...]" >&2
		exit 2
		;;
	esac
fi
