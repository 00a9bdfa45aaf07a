#!/usr/bin/env bats
# envshim session: the agent runs of this workspace and what their
# sandboxed commands wrote outside it (the home's layer, /tmp), with
# sizes; --discard removes those whose agent is gone.  As nobody.

load ../common

setup() {
	nobody_dirs
	WS=$BATS_TEST_TMPDIR/ws
	cd "$WS"
}

teardown() {
	[ -n "${BGPID:-}" ] && kill -9 "$BGPID" 2>/dev/null
	return 0
}

# An agent that writes through a sandboxed shell, then waits for $WS/go.
start_agent() {
	as_nobody env -i HOME="$HOME" PATH=/usr/bin:/bin \
		XDG_STATE_HOME="$BATS_TEST_TMPDIR/state" LD_PRELOAD="$SHIM" \
		python3 -c "
import os, subprocess, time
subprocess.run(['bash', '-c', 'mkdir -p ~/.cache/tool && printf 12345 >~/.cache/tool/blob; printf abc >/tmp/scratch'], check=True)
open('$WS/ready', 'w').write(os.path.dirname(os.environ['TMPDIR']))
while not os.path.exists('$WS/go'):
    time.sleep(0.05)
" &
	BGPID=$!
	for _ in $(seq 100); do [ -s "$WS/ready" ] && break; sleep 0.1; done
	SESS=$(cat "$WS/ready")
	[ -n "$SESS" ]
}

@test "a running session of this workspace is listed with what its commands wrote" {
	start_agent
	run as_nobody "$ENVSHIM" session
	[ "$status" -eq 0 ]
	grep -q "^$(basename "$SESS")  running  $WS\$" <<<"$output"
	grep -qx '    ~/.cache/tool/blob  5' <<<"$output"
	grep -qx '    /tmp/scratch  3' <<<"$output"
	grep -qx '    8 bytes' <<<"$output"
	# another workspace does not list it; --all does
	mkdir -p "$BATS_TEST_TMPDIR/other"
	chmod 755 "$BATS_TEST_TMPDIR/other"
	cd "$BATS_TEST_TMPDIR/other"
	run as_nobody "$ENVSHIM" session
	[ "$status" -eq 0 ]
	[ "$output" = "no sessions of this workspace" ]
	run as_nobody "$ENVSHIM" session --all
	grep -q "^$(basename "$SESS")  running" <<<"$output"
	# a running session is not discarded
	cd "$WS"
	run as_nobody "$ENVSHIM" session --discard
	[ "$status" -eq 0 ]
	grep -qx "1 running session kept: it ends with its agent" <<<"$output"
	[ -d "$SESS" ]
	as_nobody touch "$WS/go"
	wait "$BGPID"
	BGPID=
	[ ! -e "$SESS" ]
}

@test "a killed agent's session shows as ended, and --discard removes it" {
	start_agent
	kill -9 "$(pgrep -f "^python3 -c.*$WS/ready")"
	wait "$BGPID" || true
	BGPID=
	run as_nobody "$ENVSHIM" session
	[ "$status" -eq 0 ]
	grep -q "^$(basename "$SESS")  ended  $WS\$" <<<"$output"
	run as_nobody "$ENVSHIM" session --discard
	[ "$status" -eq 0 ]
	[ "$output" = "discarded $(basename "$SESS")" ]
	[ ! -e "$SESS" ]
	run as_nobody "$ENVSHIM" session
	[ "$output" = "no sessions of this workspace" ]
}

@test "session: a bad option is 125, --help is 0" {
	run "$ENVSHIM" session --bogus
	[ "$status" -eq 125 ]
	run "$ENVSHIM" session --help
	[ "$status" -eq 0 ]
	[ "$output" = "usage: envshim session [--all] [--discard]" ]
}

@test "envshim log names the session each launch belonged to" {
	start_agent
	as_nobody touch "$WS/go"
	wait "$BGPID"
	BGPID=
	log=$BATS_TEST_TMPDIR/state/envshim/audit.jsonl
	grep '"path":"/usr/bin/bash"' "$log" | grep -q "\"session\":\"$(basename "$SESS")\""
	# what ran inside is filed under the same session
	grep '"inside":true' "$log" | grep -q "\"session\":\"$(basename "$SESS")\""
	run as_nobody "$ENVSHIM" log "$log"
	[ "$status" -eq 0 ]
	grep -qx "   session: $(basename "$SESS")" <<<"$output"
}

@test "envshim log --session shows the launches of one agent run only" {
	start_agent
	as_nobody touch "$WS/go"
	wait "$BGPID"
	BGPID=
	first=$(basename "$SESS")
	rm -f "$WS/go" "$WS/ready"
	start_agent
	as_nobody touch "$WS/go"
	wait "$BGPID"
	BGPID=
	second=$(basename "$SESS")
	[ "$first" != "$second" ]
	log=$BATS_TEST_TMPDIR/state/envshim/audit.jsonl
	run as_nobody "$ENVSHIM" log --session "$first" "$log"
	[ "$status" -eq 0 ]
	grep -qx "   session: $first" <<<"$output"
	lacks "$second"
	grep -q "bash" <<<"$output"
	run as_nobody "$ENVSHIM" log --json --session "$second" "$log"
	[ "$status" -eq 0 ]
	grep -q "\"session\":\"$second\"" <<<"$output"
	lacks "\"session\":\"$first\""
	run as_nobody "$ENVSHIM" log --session no-such "$log"
	[ "$status" -eq 0 ]
	grep -q "^no launches recorded" <<<"$output"
}

@test "a kept home layer (home-layer workspace) is listed with what it holds, and --discard removes it" {
	printf 'home-layer workspace\n' >"$BATS_TEST_TMPDIR/kept.policy"
	chmod 644 "$BATS_TEST_TMPDIR/kept.policy"
	[ "$(id -u)" != 0 ] || chown 65534:65534 "$BATS_TEST_TMPDIR/kept.policy"
	st=$BATS_TEST_TMPDIR/state
	run as_nobody env -i HOME="$HOME" PATH=/usr/bin:/bin XDG_STATE_HOME="$st" \
		ENVSHIM_POLICY="$BATS_TEST_TMPDIR/kept.policy" LD_PRELOAD="$SHIM" \
		python3 -c "import subprocess; subprocess.run(['bash', '-c', 'mkdir -p ~/.cache/tool && printf 12345 >~/.cache/tool/blob'], check=True)"
	[ "$status" -eq 0 ]
	layer=$(ls "$st/envshim/layers")
	[ -n "$layer" ]
	run as_nobody env XDG_STATE_HOME="$st" "$ENVSHIM" session
	[ "$status" -eq 0 ]
	grep -qx "$layer  kept  $WS" <<<"$output"
	grep -qx '    ~/.cache/tool/blob  5' <<<"$output"
	run as_nobody env XDG_STATE_HOME="$st" "$ENVSHIM" session --discard
	[ "$status" -eq 0 ]
	[ "$output" = "discarded layer $layer" ]
	[ ! -e "$st/envshim/layers/$layer" ]
}
