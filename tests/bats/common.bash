# Shared by the bats files: where the build is, and how to run an "agent"
# under the real shim in a known environment.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=leftovers.bash
source "$ROOT/tests/bats/leftovers.bash"
BUILD=$ROOT/build
SHIM=$BUILD/libenvshim.so
HELPER=$BUILD/envshim-sandbox
ENVSHIM=$BUILD/envshim
SPAWN=$BUILD/progs/spawn

# Secrets and hijacks every agent test starts with.  Values are shaped like
# real ones so the value rules see them too.
GH=ghp_abcdefghijklmnopqrstuvwxyz0123456789
AWSK=wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY12

# agent [VAR=VALUE...] -- PROG ARGS: PROG runs as the launch root, with
# the shim preloaded, in a clean environment plus the given variables.
agent() {
	local vars=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do vars+=("$1"); shift; done
	shift
	env -i HOME="$HOME" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
		TERM=xterm XDG_STATE_HOME="$BATS_TEST_TMPDIR/state" \
		GITHUB_TOKEN="$GH" AWS_SECRET_ACCESS_KEY="$AWSK" \
		NODE_OPTIONS="--require /tmp/evil.js" SSH_AUTH_SOCK=/tmp/agent.sock \
		BASH_ENV=/tmp/evil.sh HARMLESS=yes \
		"${vars[@]}" LD_PRELOAD="$SHIM" "$@"
}

# The audit log the last agent run wrote.
audit_log() {
	cat "$BATS_TEST_TMPDIR/state/envshim/audit.jsonl"
}

# Asserts that an env listing in $output is filtered the way the default
# policy promises, and carries exactly one LD_PRELOAD: the shim.
assert_filtered() {
	local fail=0 v
	for v in GITHUB_TOKEN AWS_SECRET_ACCESS_KEY NODE_OPTIONS SSH_AUTH_SOCK BASH_ENV; do
		if grep -q "^$v=" <<<"$output"; then echo "child saw $v"; fail=1; fi
	done
	grep -qx 'HARMLESS=yes' <<<"$output" || { echo "child lost HARMLESS"; fail=1; }
	grep -qx 'LANG=C.UTF-8' <<<"$output" || { echo "child lost LANG"; fail=1; }
	[ "$(grep -c '^LD_PRELOAD=' <<<"$output")" = 1 ] || { echo "LD_PRELOAD count wrong"; fail=1; }
	grep -qx "LD_PRELOAD=$SHIM" <<<"$output" || { echo "LD_PRELOAD is not the shim"; fail=1; }
	if grep -q -e "$GH" -e "$AWSK" <<<"$output"; then echo "a secret value leaked"; fail=1; fi
	return $fail
}

# lacks GREP-ARGS...: nothing in $output matches.  A bare "! grep" in the
# middle of a test never fails it (errexit ignores a "!" pipeline); the
# status of a function call is not ignored.
lacks() {
	! grep "$@" <<<"$output"
}

# The tools' output in $output shows none of agent()'s secrets and
# injections, anywhere on a line, BASH_ENV's script did not run, and the
# harmless variable survived.
no_secrets() {
	local fail=0 v
	for v in GITHUB_TOKEN AWS_SECRET_ACCESS_KEY NODE_OPTIONS SSH_AUTH_SOCK BASH_ENV; do
		if grep -q "$v=" <<<"$output"; then echo "a tool saw $v"; fail=1; fi
	done
	if grep -q -e "$GH" -e "$AWSK" <<<"$output"; then echo "a secret value leaked"; fail=1; fi
	if grep -qx "EVIL RAN" <<<"$output"; then echo "BASH_ENV ran"; fail=1; fi
	grep -qx 'HARMLESS=yes' <<<"$output" || { echo "a tool lost HARMLESS"; fail=1; }
	return $fail
}

# Runs a command as nobody when we are root: root sees through too much.
as_nobody() {
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	else
		"$@"
	fi
}

# A home, workspace and state directory an unprivileged user owns, and a
# copy of the build it can reach (the checkout may sit under /root).
nobody_dirs() {
	local d=$BATS_TEST_TMPDIR
	while [ "$d" != / ] && [ "$d" != /tmp ]; do chmod o+x "$d"; d=$(dirname "$d"); done
	mkdir -p "$BATS_TEST_TMPDIR/home" "$BATS_TEST_TMPDIR/ws" "$BATS_TEST_TMPDIR/state" \
		"$BATS_TEST_TMPDIR/bin"
	cp "$BUILD/libenvshim.so" "$BUILD/envshim-sandbox" "$BUILD/envshim" \
		"$BUILD"/progs/* "$BATS_TEST_TMPDIR/bin/"
	chmod -R a+rX "$BATS_TEST_TMPDIR/bin"
	SHIM=$BATS_TEST_TMPDIR/bin/libenvshim.so
	HELPER=$BATS_TEST_TMPDIR/bin/envshim-sandbox
	ENVSHIM=$BATS_TEST_TMPDIR/bin/envshim
	SPAWN=$BATS_TEST_TMPDIR/bin/spawn
	if [ "$(id -u)" = 0 ]; then
		chown -R 65534:65534 "$BATS_TEST_TMPDIR/home" "$BATS_TEST_TMPDIR/ws" \
			"$BATS_TEST_TMPDIR/state"
	fi
	HOME=$BATS_TEST_TMPDIR/home
}

# The setup of a test whose agents run as nobody, in its workspace.
nobody_ws() {
	nobody_dirs
	WS=$BATS_TEST_TMPDIR/ws
	cd "$WS"
}

# in_private_tmp SCRIPT: SCRIPT (bash, as root, with as_nobody and the
# exported variables) in a mount namespace of its own whose /tmp is an
# empty tmpfs but for this test's directory, bound back at its path: what
# it makes in /tmp (another user's directory there) is never seen by the
# host or by the tests running beside it.  The tmpfs is built on /mnt
# and moved: once it covers /tmp, the test's directory is out of reach.
in_private_tmp() {
	unshare -m --propagation private bash -c '
		t=$BATS_TEST_TMPDIR
		mount -t tmpfs -o mode=1777 tmpfs /mnt || exit
		if [ "${t#/tmp/}" != "$t" ]; then
			mkdir -p "/mnt/${t#/tmp/}" &&
			mount --bind "$t" "/mnt/${t#/tmp/}" || exit
		fi
		mount --move /mnt /tmp && eval "$1"' _ "$(declare -f as_nobody); $1"
}

# await PID CMD...: waits until CMD succeeds while PID (the background
# agent CMD waits on) runs, then runs CMD once more for its status.  No
# time bound, so no assertion depends on how busy the machine is, and no
# hang when the agent died instead.
await() {
	local pid=$1
	shift
	while ! "$@" && kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
	"$@"
}

# kill_tree PID: SIGKILL to PID and everything below it, deepest first:
# a background agent under as_nobody is setpriv's child, not PID itself.
kill_tree() {
	local c
	for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do kill_tree "$c"; done
	kill -9 "$1" 2>/dev/null
	return 0
}

# The state letter of a process (R, S, Z, ...), or nothing when it is gone.
proc_state() {
	[ -r "/proc/$1/stat" ] && sed 's/.*) //; s/ .*//' "/proc/$1/stat"
	return 0
}

# ended PID: waits for PID to end (gone, or a zombie where nothing reaps
# it), which the product makes happen without a test's help; the bound
# (60 s) only keeps a regression from hanging the suite.
ended() {
	local s _
	for _ in $(seq 600); do
		s=$(proc_state "$1")
		if [ -z "$s" ] || [ "$s" = Z ]; then return 0; fi
		sleep 0.1
	done
	return 1
}
