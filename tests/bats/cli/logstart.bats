#!/usr/bin/env bats
# The audit log at the start of a run: a log that cannot be kept is said
# in one line, with its cause and fix, and the run goes on - unless the
# policy says `log-required yes`, which starts no agent without it.  And
# envshim log says when it cannot read a log or find a session.  As root
# and as nobody.

load ../common

bats_require_minimum_version 1.5.0

setup() {
	nobody_ws
	mkdir -p "$BATS_TEST_TMPDIR/rstate"
}

# The users a test runs as: root and nobody when the suite is root.
users() {
	if [ "$(id -u)" = 0 ]; then echo root nobody; else echo self; fi
}

# as_words WHO: AS, the words that run a command as that user, with a
# state directory of its own (where its sessions go).
as_words() {
	if [ "$1" = nobody ]; then
		AS=(setpriv --reuid=65534 --regid=65534 --clear-groups
			env XDG_STATE_HOME="$BATS_TEST_TMPDIR/state")
	else
		AS=(env XDG_STATE_HOME="$BATS_TEST_TMPDIR/rstate")
	fi
}

# pol TEXT: a policy file the test users may read, its path in $POL.
pol() {
	POL=$BATS_TEST_TMPDIR/p.$RANDOM
	printf '%s\n' "$@" >"$POL"
	chmod 644 "$POL"
}

# no_syslog CMD...: CMD where nothing listens on /dev/log: a socket no
# one serves bound over it, in a mount namespace of the command's own.
no_syslog() {
	if [ ! -e /dev/log ]; then
		"$@"
		return
	fi
	python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(sys.argv[1])' \
		"$BATS_TEST_TMPDIR/dead.sock"
	unshare -m --propagation private sh -c 'mount --bind "$0" /dev/log && exec "$@"' \
		"$BATS_TEST_TMPDIR/dead.sock" "$@"
}

@test "a log that cannot be kept is said in one line at the start, with the fix; the run goes on" {
	[ "$(id -u)" = 0 ] || [ ! -e /dev/log ] || skip "needs root to silence /dev/log"
	mkdir -p "$BATS_TEST_TMPDIR/adir"
	for who in $(users); do
		# a directory
		pol "log $BATS_TEST_TMPDIR/adir"
		as_words "$who"
		run "${AS[@]}" "$ENVSHIM" --policy "$POL" -- true
		[ "$status" -eq 0 ]
		[ "${#lines[@]}" = 1 ]
		[ "${lines[0]}" = "envshim: this run's launches are not recorded: $BATS_TEST_TMPDIR/adir is a directory; fix: name a file in the policy's log line" ]
		# a directory that does not exist, which is not made
		pol "log /nonexistent/dir/x.jsonl"
		as_words "$who"
		run "${AS[@]}" "$ENVSHIM" --policy "$POL" -- true
		[ "$status" -eq 0 ]
		[ "$output" = "envshim: this run's launches are not recorded: /nonexistent/dir does not exist; fix: make the directory, or correct the policy's log line" ]
		[ ! -e /nonexistent ]
		# syslog, with nothing listening
		pol "log syslog"
		as_words "$who"
		run no_syslog "${AS[@]}" "$ENVSHIM" --policy "$POL" -- true
		[ "$status" -eq 0 ]
		[[ "$output" == "envshim: this run's launches are not recorded: syslog: /dev/log: "*"; fix: start a syslog daemon (journald, rsyslog), or set log to a file" ]]
	done
	# read-only, as an unprivileged user sees it (root writes anyway)
	[ "$(id -u)" != 0 ] || chown 65534:65534 "$BATS_TEST_TMPDIR/state"
	mkdir -p "$BATS_TEST_TMPDIR/ro"
	: >"$BATS_TEST_TMPDIR/ro/audit.jsonl"
	[ "$(id -u)" != 0 ] || chown -R 65534:65534 "$BATS_TEST_TMPDIR/ro"
	chmod 444 "$BATS_TEST_TMPDIR/ro/audit.jsonl"
	pol "log $BATS_TEST_TMPDIR/ro/audit.jsonl"
	as_words nobody
	run "${AS[@]}" "$ENVSHIM" --policy "$POL" -- true
	[ "$status" -eq 0 ]
	[ "$output" = "envshim: this run's launches are not recorded: $BATS_TEST_TMPDIR/ro/audit.jsonl is not writable; fix: make it writable (chmod u+w $BATS_TEST_TMPDIR/ro/audit.jsonl), or set log to another file" ]
	# a directory it cannot write, no file yet
	rm "$BATS_TEST_TMPDIR/ro/audit.jsonl"
	chmod 555 "$BATS_TEST_TMPDIR/ro"
	as_words nobody
	run "${AS[@]}" "$ENVSHIM" --policy "$POL" -- true
	[ "$status" -eq 0 ]
	[ "$output" = "envshim: this run's launches are not recorded: cannot make $BATS_TEST_TMPDIR/ro/audit.jsonl: Permission denied; fix: make $BATS_TEST_TMPDIR/ro writable, or set log to another file" ]
	# under a bare LD_PRELOAD the agent says it, once
	as_words nobody
	run "${AS[@]}" env -i HOME="$HOME" PATH=/usr/bin:/bin ENVSHIM_POLICY="$POL" \
		LD_PRELOAD="$SHIM" python3 -c 'import subprocess; subprocess.run(["true"]); subprocess.run(["true"])'
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" = 1 ]
	[[ "${lines[0]}" == "envshim: this run's launches are not recorded: cannot make "* ]]
}

@test "log-required yes starts no agent whose records cannot be kept, and refuses every launch under a bare LD_PRELOAD" {
	mkdir -p "$BATS_TEST_TMPDIR/adir"
	for who in $(users); do
		pol "log $BATS_TEST_TMPDIR/adir" "log-required yes"
		rm -f "$WS/ran"
		as_words "$who"
		run "${AS[@]}" "$ENVSHIM" --policy "$POL" -- touch "$WS/ran"
		[ "$status" -eq 125 ]
		[ "$output" = "envshim: log-required yes, and the audit log cannot be kept: $BATS_TEST_TMPDIR/adir is a directory; fix: name a file in the policy's log line" ]
		[ ! -e "$WS/ran" ]
		as_words "$who"
		run "${AS[@]}" env -i HOME="$HOME" PATH=/usr/bin:/bin ENVSHIM_POLICY="$POL" \
			LD_PRELOAD="$SHIM" python3 -c 'import subprocess; subprocess.run(["touch", "'"$WS/ran"'"])'
		[ ! -e "$WS/ran" ]
		grep -q "^envshim: refused /usr/bin/touch: log-required yes, and the audit log cannot be kept: $BATS_TEST_TMPDIR/adir is a directory" <<<"$output"
		# with a log it can keep, it runs
		[ "$who" != nobody ] || chown 65534:65534 "$WS"
		pol "log $WS/audit.jsonl" "log-required yes"
		as_words "$who"
		run "${AS[@]}" "$ENVSHIM" --policy "$POL" -- touch "$WS/ran"
		[ "$status" -eq 0 ]
		[ -z "$output" ]
		[ -e "$WS/ran" ]
		rm -f "$WS/ran" "$WS/audit.jsonl"
	done
}

@test "envshim log says when it cannot read a log, or finds no such session, and exits non-zero" {
	mkdir -p "$BATS_TEST_TMPDIR/adir"
	run "$ENVSHIM" log "$BATS_TEST_TMPDIR/adir"
	[ "$status" -ne 0 ]
	[ "$output" = "envshim log: $BATS_TEST_TMPDIR/adir: Is a directory" ]
	printf '{"time":"2026-01-01T00:00:00.000Z","pid":1,"ppid":0,"hook":"execve","path":"/bin/true","argv":["true"],"action":"run","inside":false,"agent":true,"mode":"enforce","session":"1.2.abcdef"}\n' >"$BATS_TEST_TMPDIR/log.jsonl"
	chmod 600 "$BATS_TEST_TMPDIR/log.jsonl"
	if [ "$(id -u)" = 0 ]; then
		run setpriv --reuid=65534 --regid=65534 --clear-groups "$ENVSHIM" log "$BATS_TEST_TMPDIR/log.jsonl"
		[ "$status" -ne 0 ]
		[ "$output" = "envshim log: $BATS_TEST_TMPDIR/log.jsonl: Permission denied" ]
	fi
	run "$ENVSHIM" log --session no-such "$BATS_TEST_TMPDIR/log.jsonl"
	[ "$status" -ne 0 ]
	[ "$output" = "envshim log: no session no-such in $BATS_TEST_TMPDIR/log.jsonl (envshim session lists them)" ]
	run "$ENVSHIM" log --json --session no-such "$BATS_TEST_TMPDIR/log.jsonl"
	[ "$status" -ne 0 ]
	run -0 "$ENVSHIM" log --session 1.2.abcdef "$BATS_TEST_TMPDIR/log.jsonl"
	grep -q "true" <<<"$output"
}
