#!/usr/bin/env bats
# envshim session: the agent runs of this workspace and what their
# sandboxed commands wrote outside it (the home's layer, /tmp), with
# sizes; --discard removes those whose agent is gone.  As nobody.

load ../common

setup() {
	nobody_dirs
	WS=$BATS_TEST_TMPDIR/ws
	cd "$WS"
	# where the agents below keep their sessions: envshim session looks
	# where a run of this environment would
	export XDG_STATE_HOME=$BATS_TEST_TMPDIR/state
}

teardown() {
	[ -z "${BGPID:-}" ] || kill_tree "$BGPID"
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
	await "$BGPID" test -s "$WS/ready"
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
	# the shim and the helper live under /tmp here (nobody's copy): the
	# mount points the sandbox made to bind them back are not the shells'
	lacks -F "$(basename "$SHIM")"
	lacks -F "$(basename "$HELPER")"
	[ "$(grep -c '^    ' <<<"$output")" = 3 ]
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
	[ "$status" -eq 1 ]
	[ "$output" = "envshim log: no session no-such in $log (envshim session lists them)" ]
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

# Where the sessions go: below the user's own runtime directory when it
# is safe, else below the state directory in the home; never at a name
# in /tmp that another user (or this user inside a user namespace, where
# it is uid 0) could make first.

# sess_agent: python3 as the agent (env: HOME, XDG_*; SHIM), printing its
# TMPDIR and what a sandboxed shell of it can write.
SESS_PY='
import os, subprocess
print("tmpdir", os.environ.get("TMPDIR", "none"))
subprocess.run(["bash", "-c", "mkdir -p ~/.cache/t && echo home-layer-ok; echo x >/tmp/f && echo tmp-ok"])
'

@test "a directory another user made at /tmp/envshim-UID costs no run its session, root's or nobody's" {
	[ "$(id -u)" = 0 ] || skip "needs root to be both users"
	mkdir -p "$BATS_TEST_TMPDIR/roothome"
	export SHIM BATS_TEST_TMPDIR SESS_PY HOME
	# nobody got to root's first, and root to nobody's, as any user can
	run in_private_tmp '
		as_nobody mkdir -m 700 /tmp/envshim-0
		mkdir -m 700 /tmp/envshim-65534
		cd "$BATS_TEST_TMPDIR/ws"
		env -i HOME="$BATS_TEST_TMPDIR/roothome" PATH=/usr/bin:/bin \
			LD_PRELOAD="$SHIM" python3 -u -c "$SESS_PY"
		as_nobody env -i HOME="$HOME" PATH=/usr/bin:/bin \
			LD_PRELOAD="$SHIM" python3 -u -c "$SESS_PY"'
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "tmpdir $BATS_TEST_TMPDIR/roothome/.local/state/envshim/sessions/"*/tmp ]]
	[[ "${lines[3]}" == "tmpdir $HOME/.local/state/envshim/sessions/"*/tmp ]]
	[ "$(grep -cx home-layer-ok <<<"$output")" = 2 ]
	[ "$(grep -cx tmp-ok <<<"$output")" = 2 ]
	lacks "no session"
}

@test "a run as uid 0 of a user namespace leaves no base another uid's run would use" {
	[ "$(id -u)" = 0 ] || skip "needs root to look at /tmp as the host does"
	mkdir -p "$BATS_TEST_TMPDIR/roothome"
	export SHIM BATS_TEST_TMPDIR SESS_PY HOME
	run in_private_tmp '
		cd "$BATS_TEST_TMPDIR/ws"
		as_nobody unshare -Ur env -i HOME="$HOME" PATH=/usr/bin:/bin \
			LD_PRELOAD="$SHIM" python3 -u -c "$SESS_PY"
		echo "left:" $(ls -A /tmp | grep -vx "$(cut -d/ -f3 <<<"$BATS_TEST_TMPDIR")")
		# and root, after it, still has its session
		env -i HOME="$BATS_TEST_TMPDIR/roothome" PATH=/usr/bin:/bin \
			LD_PRELOAD="$SHIM" python3 -u -c "$SESS_PY"'
	[ "$status" -eq 0 ]
	grep -qx "left:" <<<"$output"
	[[ "${lines[0]}" == "tmpdir $HOME/.local/state/envshim/sessions/"*/tmp ]]
	[ "$(grep -cx home-layer-ok <<<"$output")" = 2 ]
	[ "$(grep -cx tmp-ok <<<"$output")" = 2 ]
	lacks "no session"
}

@test "the user's own runtime directory holds the sessions; one that is not safe does not" {
	rt=$BATS_TEST_TMPDIR/rt
	mkdir -m 700 "$rt"
	[ "$(id -u)" != 0 ] || chown 65534:65534 "$rt"
	run as_nobody env -i HOME="$HOME" XDG_RUNTIME_DIR="$rt" PATH=/usr/bin:/bin \
		LD_PRELOAD="$SHIM" python3 -u -c "$SESS_PY"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "tmpdir $rt/envshim/"*/tmp ]]
	grep -qx home-layer-ok <<<"$output"
	# open to others: the state directory instead, without a word
	chmod 755 "$rt"
	run as_nobody env -i HOME="$HOME" XDG_RUNTIME_DIR="$rt" PATH=/usr/bin:/bin \
		LD_PRELOAD="$SHIM" python3 -u -c "$SESS_PY"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "tmpdir $HOME/.local/state/envshim/sessions/"*/tmp ]]
	grep -qx home-layer-ok <<<"$output"
	lacks "no session"
}

@test "no shell sees another run's session in the base, under the runtime or the state directory" {
	rt=$BATS_TEST_TMPDIR/rt
	mkdir -m 700 "$rt"
	[ "$(id -u)" != 0 ] || chown 65534:65534 "$rt"
	mkfifo -m 666 "$WS/ready" "$WS/go"
	# opened both ways: neither side blocks on a peer that died
	exec 4<>"$WS/ready" 5<>"$WS/go"
	for env in "XDG_RUNTIME_DIR=$rt" "XDG_RUNTIME_DIR="; do
		# the first run holds its session until go is written
		as_nobody env -i HOME="$HOME" "$env" PATH=/usr/bin:/bin LD_PRELOAD="$SHIM" \
			python3 -c "import os; open('$WS/ready', 'w').write(os.environ['TMPDIR'] + '\n'); open('$WS/go').readline()" &
		BGPID=$!
		read -r -t 120 first <&4
		first=$(basename "$(dirname "$first")")
		run as_nobody env -i HOME="$HOME" "$env" PATH=/usr/bin:/bin LD_PRELOAD="$SHIM" \
			python3 -u -c '
import os, subprocess
print("mine", os.path.basename(os.path.dirname(os.environ["TMPDIR"])))
subprocess.run(["sh", "-c", "ls -A \"$(dirname \"$(dirname \"$TMPDIR\")\")\""])'
		echo done >&5
		wait "$BGPID"
		BGPID=
		[ "$status" -eq 0 ]
		mine=$(sed -n 's/^mine //p' <<<"$output")
		[ -n "$first" ]
		[ -n "$mine" ]
		[ "$first" != "$mine" ]
		# the shell lists its own session only
		[ "${lines[1]}" = "$mine" ]
		[ "${#lines[@]}" = 2 ]
	done
	exec 4<&- 5<&-
}

@test "with no safe place for sessions the run says why and how to fix it, in one line" {
	[ "$(id -u)" = 0 ] || skip "needs root to own nobody's home"
	# nobody's home is root's: nothing can be made in it
	mkdir -p "$BATS_TEST_TMPDIR/roothome/ws"
	chmod 755 "$BATS_TEST_TMPDIR/roothome"
	cd "$BATS_TEST_TMPDIR/roothome/ws"
	chown 65534:65534 .
	run as_nobody env -i HOME="$BATS_TEST_TMPDIR/roothome" PATH=/usr/bin:/bin \
		LD_PRELOAD="$SHIM" python3 -u -c "$SESS_PY"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^envshim: no session for this run' <<<"$output")" = 1 ]
	grep -q "^envshim: no session for this run (each shell gets an empty /tmp and a read-only home): cannot make $BATS_TEST_TMPDIR/roothome/.local: Permission denied; fix: " <<<"$output"
	grep -qx "tmpdir none" <<<"$output"
	# doctor tells the same, from the same place
	run as_nobody env -i HOME="$BATS_TEST_TMPDIR/roothome" PATH=/usr/bin:/bin "$ENVSHIM" doctor
	grep -q "^FAIL session: cannot make $BATS_TEST_TMPDIR/roothome/.local: Permission denied" <<<"$output"
	grep -q "^     fix: make it a 0700 directory of yours" <<<"$output"
	# root's home open to others: the same, as root
	chmod 777 "$BATS_TEST_TMPDIR/roothome"
	run env -i HOME="$BATS_TEST_TMPDIR/roothome" PATH=/usr/bin:/bin \
		LD_PRELOAD="$SHIM" python3 -u -c "$SESS_PY"
	chmod 755 "$BATS_TEST_TMPDIR/roothome"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^envshim: no session for this run' <<<"$output")" = 1 ]
	grep -q ": $BATS_TEST_TMPDIR/roothome is writable by other users" <<<"$output"
}

@test "doctor probes the sessions' base a run would use" {
	run as_nobody env -i HOME="$HOME" PATH=/usr/bin:/bin "$ENVSHIM" doctor
	grep -qx "     sessions in: $HOME/.local/state/envshim/sessions" <<<"$output"
	rt=$BATS_TEST_TMPDIR/rt
	mkdir -m 700 "$rt"
	[ "$(id -u)" != 0 ] || chown 65534:65534 "$rt"
	run as_nobody env -i HOME="$HOME" XDG_RUNTIME_DIR="$rt" PATH=/usr/bin:/bin "$ENVSHIM" doctor
	grep -qx "     sessions in: $rt/envshim" <<<"$output"
	# and nothing of the probe is left there
	[ -z "$(find "$rt/envshim" -maxdepth 1 -name 'envshim-probe.*')" ]
}

@test "sessions in the home's state directory: /tmp and TMPDIR are one directory both ways, home private too" {
	printf 'home private\n' >"$BATS_TEST_TMPDIR/private.policy"
	chmod 644 "$BATS_TEST_TMPDIR/private.policy"
	for pol in "" "ENVSHIM_POLICY=$BATS_TEST_TMPDIR/private.policy"; do
		# no XDG_STATE_HOME, no XDG_RUNTIME_DIR: the base is below the home
		run as_nobody env -i HOME="$HOME" PATH=/usr/bin:/bin $pol \
			LD_PRELOAD="$SHIM" python3 -u -c '
import os, subprocess
t = os.environ["TMPDIR"]
print("tmpdir", t)
open(t + "/from-agent", "w").write("a\n")
subprocess.run(["bash", "-c", "cat /tmp/from-agent; echo s >/tmp/from-shell; echo d >\"$TMPDIR/direct\""])
print("agent reads", open(t + "/from-shell").read().strip(), open(t + "/direct").read().strip())
'
		[ "$status" -eq 0 ]
		[[ "${lines[0]}" == "tmpdir $HOME/.local/state/envshim/sessions/"*/tmp ]]
		[ "${lines[1]}" = a ]
		[ "${lines[2]}" = "agent reads s d" ]
	done
}
