#!/usr/bin/env bats
# The agent's lifetime under envshim --: it ends with envshim, and so does
# everything it started, however envshim ends; what a run leaves to be
# reaped (a session's keeper, a sandbox's init) is reaped even where
# pid 1 reaps nothing.  As root and as nobody.

load ../common

bats_require_minimum_version 1.5.0

setup() {
	nobody_ws
}

teardown() {
	[ -z "${BGPID:-}" ] || kill_tree "$BGPID"
	return 0
}

# The users a test runs as: root and nobody when the suite is root.
users() {
	if [ "$(id -u)" = 0 ]; then echo root nobody; else echo self; fi
}

# as WHO: AS, the words that run a command as that user in a clean
# environment, with a state directory of its own: "${AS[@]}" CMD & is
# a simple command, so $! is CMD itself (setpriv and env execute it).
as() {
	AS=()
	[ "$1" != nobody ] || AS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	AS+=(env -i HOME="$HOME" PATH=/usr/bin:/bin LANG=C.UTF-8
		XDG_STATE_HOME="$BATS_TEST_TMPDIR/state-$1")
	mkdir -p "$BATS_TEST_TMPDIR/state-$1"
	[ "$1" != nobody ] || chown 65534:65534 "$BATS_TEST_TMPDIR/state-$1"
}

# The agent: a tool outside the sandbox (python3 is no shell), one that
# left for a session of its own, and a sandboxed shell, each sleeping
# NAP; their pids and its own go to $WS/pids, then it waits forever.
LIFE_PY='
import os, subprocess, sys, time
nap = sys.argv[1]
code = "import time; time.sleep(%s)" % nap
tool = subprocess.Popen(["python3", "-c", code])
gone = subprocess.Popen(["python3", "-c", code], start_new_session=True)
shell = subprocess.Popen(["bash", "-c", "exec sleep %s" % nap])
open(sys.argv[2] + ".tmp", "w").write("%d %d %d\n" % (os.getpid(), tool.pid, gone.pid))
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
while True:
    time.sleep(1000)
'

@test "kill -KILL of envshim ends the agent and everything it started" {
	for who in $(users); do
		as "$who"
		nap="4711.$$$RANDOM"
		rm -f "$WS/pids"
		"${AS[@]}" "$ENVSHIM" -- python3 -c "$LIFE_PY" "$nap" "$WS/pids" 3>&- &
		BGPID=$!
		await "$BGPID" test -s "$WS/pids"
		await "$BGPID" pgrep -f "^sleep $nap\$"
		read -r agent tool gone <"$WS/pids"
		sleep=$(pgrep -f "^sleep $nap\$")
		# envshim itself, as an OOM killer or a closed terminal's kill -9
		kill -KILL "$BGPID"
		wait "$BGPID" || true
		BGPID=
		ended "$agent"
		ended "$tool"
		ended "$gone"
		ended "$sleep"
	done
}

@test "a run leaves no zombie where pid 1 reaps nothing: keepers and sandbox inits are reaped" {
	for who in $(users); do
		as "$who"
		# a pid 1 as in many containers: a subreaper that waits for its
		# own child alone, and counts what else is left to it
		run "${AS[@]}" python3 -c '
import ctypes, os, subprocess, sys
ctypes.CDLL(None).prctl(36, 1)
p = subprocess.Popen(sys.argv[1:])
os.waitpid(p.pid, 0)
left = []
for d in os.listdir("/proc"):
    try:
        st = open("/proc/%s/stat" % d).read()
    except (OSError, ValueError):
        continue
    f = st.rsplit(") ", 1)[1].split()
    if d.isdigit() and f[1] == str(os.getpid()):
        left.append(st.split(" (")[1].split(")")[0] + " " + f[0])
print("left:" + "".join(" " + x for x in sorted(left)))
' "$ENVSHIM" -- python3 -c '
import subprocess
for i in range(3):
    subprocess.run(["bash", "-c", "echo ran $$"], check=True)
'
		[ "$status" -eq 0 ]
		[ "$(grep -c '^ran 2$' <<<"$output")" = 3 ]
		grep -qx "left:" <<<"$output"
	done
}
