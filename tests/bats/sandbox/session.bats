#!/usr/bin/env bats
# One session per agent run: every sandboxed command of one run shares one
# private temp directory, which is also the agent's own TMPDIR; two runs
# never share one; it goes when the agent ends, or at the next start when
# the agent was killed.  The agent is python3 under bare LD_PRELOAD (no
# envshim command), each subprocess call a separate sandboxed shell, as an
# agent's tool calls are.  The session's keeper builds the view once and
# every call joins it.  Run as nobody.

load ../common

bats_require_minimum_version 1.5.0

setup() {
	nobody_dirs
	WS=$BATS_TEST_TMPDIR/ws
	cd "$WS"
	BASE=$BATS_TEST_TMPDIR/state/envshim/sessions
}

teardown() {
	[ -z "${BGPID:-}" ] || kill_tree "$BGPID"
	[ -z "${sock:-}" ] || rm -f "$sock"
	if [ -n "${R:-}" ]; then
		cd /
		rm -rf "$R"
	fi
	return 0
}


# py CODE: python3 as the agent, uid 65534, the shim preloaded.
py() {
	as_nobody env -i HOME="$HOME" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
		XDG_STATE_HOME="$BATS_TEST_TMPDIR/state" LD_PRELOAD="$SHIM" \
		python3 -u -c "$1"
}

@test "a file in /tmp and in TMPDIR from one call is read by the next, and by the agent" {
	run py '
import os, subprocess
t = os.environ["TMPDIR"]
print("agent-tmpdir", t)
open(t + "/from-agent", "w").write("agent wrote\n")
subprocess.run(["bash", "-c", "echo one >/tmp/f; echo two >\"$TMPDIR/g\"; readlink /proc/self/ns/user"], check=True)
subprocess.run(["bash", "-c", "cat /tmp/f \"$TMPDIR/g\" \"$TMPDIR/from-agent\"; echo \"$TMPDIR\"; readlink /proc/self/ns/user"], check=True)
print("agent-read", open(t + "/g").read().strip())
print("outside", os.readlink("/proc/self/ns/user"))
'
	[ "$status" -eq 0 ]
	tmpdir=$(sed -n 's/^agent-tmpdir //p' <<<"$output")
	[[ "$tmpdir" == "$BASE"/*/tmp ]]
	[ "${lines[2]}" = one ]
	[ "${lines[3]}" = two ]
	[ "${lines[4]}" = "agent wrote" ]
	[ "${lines[5]}" = "$tmpdir" ]
	grep -qx "agent-read two" <<<"$output"
	# two calls, one session: its user namespace, not the agent's
	[ "${lines[1]}" = "${lines[6]}" ]
	outside=$(sed -n 's/^outside //p' <<<"$output")
	[ "${lines[1]}" != "$outside" ]
	# the agent ended: its session went with it
	[ ! -e "$(dirname "$tmpdir")" ]
}

@test "TMPDIR, TMP, TEMP and CLAUDE_CODE_TMPDIR are the session's tmp, a 0700 directory" {
	run py '
import os, subprocess
for n in ("TMPDIR", "TMP", "TEMP", "CLAUDE_CODE_TMPDIR"):
    print(n, os.environ[n])
print("mode", oct(os.stat(os.environ["TMPDIR"]).st_mode & 0o777))
print("sess", oct(os.stat(os.path.dirname(os.environ["TMPDIR"])).st_mode & 0o777))
subprocess.run(["bash", "-c", "echo in $TMPDIR $CLAUDE_CODE_TMPDIR"], check=True)
'
	[ "$status" -eq 0 ]
	t=$(sed -n 's/^TMPDIR //p' <<<"$output")
	[[ "$t" == "$BASE"/*/tmp ]]
	grep -qx "TMP $t" <<<"$output"
	grep -qx "TEMP $t" <<<"$output"
	grep -qx "CLAUDE_CODE_TMPDIR $t" <<<"$output"
	grep -qx "mode 0o700" <<<"$output"
	grep -qx "sess 0o700" <<<"$output"
	grep -qx "in $t $t" <<<"$output"
}

@test "/var/tmp is the session's too, and not the host's" {
	marker=$(mktemp /var/tmp/envshim-host.XXXXXX)
	chmod 644 "$marker"
	run py "
import subprocess
subprocess.run(['bash', '-c', 'test -e $marker && echo leak; echo v >/var/tmp/v'], check=True)
subprocess.run(['bash', '-c', 'cat /var/tmp/v'], check=True)
"
	rm -f "$marker"
	[ "$status" -eq 0 ]
	[ "$output" = v ]
	[ ! -e /var/tmp/v ]
}

@test "a listening unix socket in the host /tmp cannot be reached" {
	sock=/tmp/envshim-host-$$.sock
	rm -f "$sock"
	# serves until 20 s pass without a connection: nothing outlives the test
	as_nobody /usr/bin/python3 -c "
import socket, os
s = socket.socket(socket.AF_UNIX); s.bind('$sock'); os.chmod('$sock', 0o777); s.listen(8)
s.settimeout(20)
try:
    while True:
        c, _ = s.accept(); c.send(b'hello\n'); c.close()
except socket.timeout:
    pass
" >/dev/null 2>&1 &
	BGPID=$!
	await "$BGPID" test -S "$sock"
	probe=$BATS_TEST_TMPDIR/ws/probe.py
	printf '%s\n' 'import socket, sys' 's = socket.socket(socket.AF_UNIX)' \
		"s.connect('$sock')" 'print(s.recv(9).decode().strip())' >"$probe"
	chmod 644 "$probe"
	# reachable from outside: the probe can succeed
	run as_nobody /usr/bin/python3 "$probe"
	[ "$status" -eq 0 ]
	[ "$output" = hello ]
	run py "
import subprocess
subprocess.run(['bash', '-c', 'python3 $probe 2>&1; echo status \$?'])
"
	rm -f "$sock"
	[ "$status" -eq 0 ]
	lacks -x hello
	grep -q "No such file or directory" <<<"$output"
	grep -qx "status 1" <<<"$output"
}

@test "two concurrent agent runs see neither each other's temp dir nor its files" {
	go=$BATS_TEST_TMPDIR/ws/go
	py "
import os, subprocess, time
subprocess.run(['bash', '-c', 'echo A >/tmp/mark-a; echo A >\"\$TMPDIR/tmark-a\"'], check=True)
open('$BATS_TEST_TMPDIR/ws/a-tmpdir', 'w').write(os.environ['TMPDIR'])
while not os.path.exists('$go'):
    time.sleep(0.05)
" &
	BGPID=$!
	await "$BGPID" test -s "$BATS_TEST_TMPDIR/ws/a-tmpdir"
	a=$(cat "$BATS_TEST_TMPDIR/ws/a-tmpdir")
	[ -n "$a" ]
	run py "
import os, subprocess
print(os.environ['TMPDIR'])
subprocess.run(['bash', '-c', 'ls -A /tmp; cat /tmp/mark-a $a/tmark-a 2>&1; echo done'])
"
	as_nobody touch "$go"
	wait "$BGPID"
	BGPID=
	[ "$status" -eq 0 ]
	[ "${lines[0]}" != "$a" ]
	[[ "${lines[0]}" == "$BASE"/*/tmp ]]
	lacks -x A
	lacks -x mark-a
	grep -qx done <<<"$output"
}

@test "after SIGKILL of the agent nothing of its session runs or is mounted; the next start removes it" {
	# a sleep no other suite on the machine runs
	nap="4242.$$$RANDOM"
	py "
import os, subprocess, time
open('$BATS_TEST_TMPDIR/ws/tmpdir', 'w').write(os.environ['TMPDIR'])
subprocess.Popen(['bash', '-c', 'echo left >/tmp/left; exec sleep $nap'])
time.sleep(600)
" &
	BGPID=$!
	await "$BGPID" pgrep -f "^sleep $nap\$"
	spid=$(pgrep -f "^sleep $nap\$")
	t=$(cat "$BATS_TEST_TMPDIR/ws/tmpdir")
	sess=$(dirname "$t")
	[ -e "$t/left" ]
	# the python3 process itself, not as_nobody's wrapper
	kill -9 "$(pgrep -f "^python3 -u -c.*$BATS_TEST_TMPDIR/ws/tmpdir")"
	wait "$BGPID" || true
	BGPID=
	ended "$spid"
	run grep -c "$sess" /proc/self/mountinfo
	[ "$output" = 0 ]
	# the keeper went with the agent
	kpid=$(cut -d' ' -f1 "$sess/keeper")
	ended "$kpid"
	# killed: no destructor ran, the files are still there
	[ -e "$t/left" ]
	run py 'import os; print(os.environ["TMPDIR"])'
	[ "$status" -eq 0 ]
	[ "$output" != "$t" ]
	[ ! -e "$sess" ]
}

@test "the session's view is built once: every call joins the keeper's, in a pid namespace of its own" {
	run py '
import os, subprocess
sess = os.path.dirname(os.environ["TMPDIR"])
for i in range(3):
    subprocess.run(["bash", "-c", "readlink /proc/self/ns/user; echo pid $$; ls /proc | grep -c \"^[0-9]\""], check=True)
k = open(sess + "/keeper").read().split()
print("keeper", k[0], "user:[%s]" % k[4])
st = open("/proc/%s/stat" % k[0]).read().rsplit(") ", 1)[1].split()
print("keeper-uid", os.stat("/proc/" + k[0]).st_uid, "ppid-not-agent", st[1] != str(os.getpid()))
# ps shows the keeper without the text of the first call
print("cmdline", open("/proc/%s/cmdline" % k[0]).read().replace("\0", " ").strip())
'
	[ "$status" -eq 0 ]
	read -r _ kpid kns <<<"$(grep '^keeper ' <<<"$output")"
	# the same user namespace three times: the keeper's
	[ "$(grep -c "^user:" <<<"$output")" = 3 ]
	[ "$(grep "^user:" <<<"$output" | sort -u)" = "$kns" ]
	# each call is pid 2 of its own pid namespace (init is 1), and sees
	# only its own few processes, never an earlier call's
	[ "$(grep -c '^pid 2$' <<<"$output")" = 3 ]
	for n in ${lines[2]} ${lines[5]} ${lines[8]}; do [ "$n" -le 4 ]; done
	grep -qx "keeper-uid 65534 ppid-not-agent True" <<<"$output"
	grep -qx "cmdline envshim-sandbox" <<<"$output"
	# the keeper ends with the agent (a zombie at most, where pid 1 does
	# not reap)
	ended "$kpid"
}

@test "overlapping calls share one mount of the home's layer and one keeper" {
	run py '
import os, subprocess, time
ws = os.getcwd()
a = subprocess.Popen(["bash", "-c", "stat -c %d ~; : >started; while [ ! -e done ]; do sleep 0.05; done"])
while not os.path.exists("started"):
    time.sleep(0.05)
subprocess.run(["bash", "-c", "stat -c %d ~; echo b >~/from-b"], check=True)
subprocess.run(["bash", "-c", "cat ~/from-b"], check=True)
open("done", "w").close()
a.wait()
sess = os.path.dirname(os.environ["TMPDIR"])
print("keepers", len([l for l in open(sess + "/keeper")]))
'
	[ "$status" -eq 0 ]
	# one overlay superblock: the same device in both calls
	[ "${lines[0]}" = "${lines[1]}" ]
	[ "${lines[2]}" = b ]
	grep -qx "keepers 1" <<<"$output"
	[ ! -e "$HOME/from-b" ]
}

@test "a credential file made or renamed into place between two calls is hidden in the second" {
	echo '{"old":1}' >"$HOME/.claude.json"
	[ "$(id -u)" != 0 ] || chown 65534:65534 "$HOME/.claude.json"
	run py '
import os, subprocess
h = os.environ["HOME"]
subprocess.run(["bash", "-c", "wc -c <~/.claude.json"], check=True)
open(h + "/.npmrc", "w").write("//r/:_authToken=NEWSECRET\n")
open(h + "/key.pem", "w").write("NEWSECRET\n")
open(h + "/.claude.json.tmp", "w").write("NEWSECRET\n")
os.rename(h + "/.claude.json.tmp", h + "/.claude.json")
subprocess.run(["bash", "-c", "cat ~/.npmrc ~/key.pem ~/.claude.json; wc -c <~/.npmrc"], check=True)
print("agent", open(h + "/.npmrc").read().strip())
'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 0 ]
	[ "${lines[1]}" = 0 ]
	grep -qx "agent //r/:_authToken=NEWSECRET" <<<"$output"
	[ "$(grep -c NEWSECRET <<<"$output")" = 1 ]
}

@test "a call running when the agent renames a file over a hidden one still reads the placeholder" {
	echo '{"old":1}' >"$HOME/.claude.json"
	[ "$(id -u)" != 0 ] || chown 65534:65534 "$HOME/.claude.json"
	# the placeholder is bound on the home's overlay, whose entry the
	# rename below it does not touch (without a session: the GAP test
	# in secrets.bats)
	run py '
import os, subprocess, time
h = os.environ["HOME"]
p = subprocess.Popen(["bash", "-c", "wc -c <~/.claude.json; : >started; while [ ! -e renamed ]; do sleep 0.05; done; cat ~/.claude.json; echo end"])
while not os.path.exists("started"):
    time.sleep(0.05)
open(h + "/.claude.json.tmp", "w").write("NEWSECRET\n")
os.rename(h + "/.claude.json.tmp", h + "/.claude.json")
open("renamed", "w").close()
p.wait()
'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 0 ]
	[ "${lines[1]}" = end ]
	grep -qx NEWSECRET "$HOME/.claude.json"
}

@test "what changes in the real home between two calls is seen by the second: a new view" {
	mkdir -p "$HOME/.local/bin" "$HOME/.cargo"
	printf '[user]\n\temail = old@x\n' >"$HOME/.gitconfig"
	[ "$(id -u)" != 0 ] || chown -R 65534:65534 "$HOME"
	run py '
import os, subprocess
h = os.environ["HOME"]
sess = os.path.dirname(os.environ["TMPDIR"])
def call(c):
    subprocess.run(["bash", "-c", c])
call("command -v ruffx || echo none; git config --global user.email; cat ~/.cargo/credentials.toml 2>&1 | sed s/^.*:/cat:/")
k1 = open(sess + "/keeper").read().split()[0]
# the user, outside: installs a tool, fixes git config (lock file and
# rename), logs cargo in below a directory no key watches
open(h + "/.local/bin/ruffx", "w").write("#!/bin/sh\necho ruffx 1.0\n")
os.chmod(h + "/.local/bin/ruffx", 0o755)
subprocess.run(["git", "config", "--global", "user.email", "new@x"], env=dict(os.environ, LD_PRELOAD=""))
open(h + "/.cargo/credentials.toml", "w").write("token = \"NEWSECRET\"\n")
call("PATH=~/.local/bin:$PATH ruffx; git config --global user.email; wc -c <~/.cargo/credentials.toml")
k2 = open(sess + "/keeper").read().split()[0]
print("new keeper", k1 != k2, "old gone", not os.path.exists("/proc/%s/cwd" % k1) or open("/proc/%s/stat" % k1).read().rsplit(") ", 1)[1][0] == "Z")
'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = none ]
	[ "${lines[1]}" = old@x ]
	[ "${lines[2]}" = "cat: No such file or directory" ]
	[ "${lines[3]}" = "ruffx 1.0" ]
	[ "${lines[4]}" = new@x ]
	[ "${lines[5]}" = 0 ]
	grep -qx "new keeper True old gone True" <<<"$output"
	lacks NEWSECRET
}

@test "the agent rewriting its own files in the home keeps the view; so does home private" {
	mkdir -p "$HOME/.ssh"
	echo 'PRIVATE KEY' >"$HOME/.ssh/id_ed25519"
	echo '{}' >"$HOME/.claude.json"
	printf 'home private\n' >"$BATS_TEST_TMPDIR/private.policy"
	chmod 644 "$BATS_TEST_TMPDIR/private.policy"
	[ "$(id -u)" != 0 ] || chown -R 65534:65534 "$HOME"
	code='
import os, subprocess
h = os.environ["HOME"]
subprocess.run(["bash", "-c", "readlink /proc/self/ns/user"])
# what Claude Code does at every turn: a new ~/.claude.json by rename
open(h + "/.claude.json.tmp", "w").write("{\"n\": 1}\n")
os.rename(h + "/.claude.json.tmp", h + "/.claude.json")
subprocess.run(["bash", "-c", "readlink /proc/self/ns/user; cat ~/.ssh/id_ed25519 2>&1 | wc -c"])
'
	run py "$code"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "${lines[1]}" ]
	[ "${lines[2]}" = 0 ]
	run as_nobody env -i HOME="$HOME" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
		XDG_STATE_HOME="$BATS_TEST_TMPDIR/state" LD_PRELOAD="$SHIM" \
		ENVSHIM_POLICY="$BATS_TEST_TMPDIR/private.policy" python3 -u -c "$code"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "${lines[1]}" ]
	lacks "PRIVATE KEY"
}

@test "a hidden path missing from the held view is not left unhidden: the view is replaced" {
	# ~/.cargo is watched by nothing: only the check of the planned hidden
	# paths against the view sees that credentials.toml is new
	mkdir -p "$HOME/.cargo"
	[ "$(id -u)" != 0 ] || chown -R 65534:65534 "$HOME"
	run py '
import os, subprocess
h = os.environ["HOME"]
subprocess.run(["bash", "-c", "cat ~/.cargo/credentials.toml 2>&1 | sed s/^.*:/cat:/"])
open(h + "/.cargo/credentials.toml", "w").write("token = \"NEWSECRET\"\n")
subprocess.run(["bash", "-c", "wc -c <~/.cargo/credentials.toml; cat ~/.cargo/credentials.toml"])
'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "cat: No such file or directory" ]
	[ "${lines[1]}" = 0 ]
	lacks NEWSECRET
}

@test "each call has its own ptys and /dev/shm, and its records after a rotation go to the new log" {
	run py '
import os, subprocess, time
st = os.environ["XDG_STATE_HOME"] + "/envshim"
# A, a pty of its own (not a shell: run outside), held until B is done
a = subprocess.Popen(["python3", "-c", "import os, pty, time\nm, s = pty.openpty()\nprint(os.ttyname(s).startswith(\"/dev/pts/\"), flush=True)\nshm = \"/dev/shm/envshim-a.%d\" % os.getpid()\nopen(shm, \"w\").close()\nopen(\"pty.tmp\", \"w\").write(os.ttyname(s))\nos.rename(\"pty.tmp\", \"pty\")\nwhile not os.path.exists(\"b-done\"):\n    time.sleep(0.05)\nos.unlink(shm)\nos.set_blocking(m, False)\ntry:\n    print(\"read\", os.read(m, 100))\nexcept BlockingIOError:\n    print(\"read nothing\")"])
while not os.path.exists("pty"):
    time.sleep(0.05)
# B, sandboxed: the pty of A by its name
subprocess.run(["bash", "-c", "(echo injected >\"$(cat pty)\") 2>/dev/null || echo refused; echo pts $(ls /dev/pts); echo shm $(ls -A /dev/shm)"])
open("b-done", "w").close()
a.wait()
os.rename(st + "/audit.jsonl", st + "/audit.jsonl.1")
open(st + "/audit.jsonl", "w").close()
subprocess.run(["bash", "-c", "/usr/bin/true probe && echo ran"])
print("new log", "probe" in open(st + "/audit.jsonl").read(), "old log", "probe" in open(st + "/audit.jsonl.1").read())
'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = True ]
	# B has a pty instance of its own (no pts/0 but its ptmx), and
	# a /dev/shm holding only its records socket: A's file is not there
	grep -qx refused <<<"$output"
	grep -qx "pts ptmx" <<<"$output"
	grep -qx "shm .envshim-log" <<<"$output"
	grep -qx "read nothing" <<<"$output"
	lacks injected
	grep -qx ran <<<"$output"
	grep -qx "new log True old log False" <<<"$output"
}

@test "a keeper file forged to name a namespace a sandboxed command made is not joined" {
	nap="4343.$$$RANDOM"
	py "
import os, subprocess, time
sess = os.path.dirname(os.environ['TMPDIR'])
open('$WS/sess', 'w').write(sess)
# a tool leaves a process in a user namespace of its own
p = subprocess.Popen(['bash', '-c', 'exec unshare -Ur sleep $nap'])
while not os.path.exists('$WS/forged'):
    time.sleep(0.05)
subprocess.run(['bash', '-c', 'readlink /proc/self/ns/user >after'], timeout=30)
p.kill()
" &
	BGPID=$!
	await "$BGPID" pgrep -u 65534 -f "^sleep $nap\$"
	pid=$(pgrep -u 65534 -f "^sleep $nap\$")
	sess=$(cat "$WS/sess")
	read -r _ key fresh dev _ _ <"$sess/keeper"
	u=$(stat -L -c %i "/proc/$pid/ns/user")
	m=$(stat -L -c %i "/proc/$pid/ns/mnt")
	# what a command that could write the session directory would write:
	# its own process, with the real key, freshness and device
	echo "$pid $key $fresh $dev $u $m" >"$sess/keeper.new"
	mv "$sess/keeper.new" "$sess/keeper"
	: >"$WS/forged"
	wait "$BGPID"
	BGPID=
	[ -s "$WS/after" ]
	[ "$(cat "$WS/after")" != "user:[$u]" ]
}

@test "a call whose policy differs from the session's builds its own view" {
	mkdir -p "$HOME/extra"
	[ "$(id -u)" != 0 ] || chown 65534:65534 "$HOME/extra"
	printf 'rw ~/extra\n' >"$BATS_TEST_TMPDIR/extra.policy"
	chmod 644 "$BATS_TEST_TMPDIR/extra.policy"
	# the agent holds its session until the test is done with it
	py "
import os, subprocess, time
subprocess.run(['bash', '-c', 'readlink /proc/self/ns/user >ns1'], check=True)
open('$WS/sess', 'w').write(os.path.dirname(os.environ['TMPDIR']))
while not os.path.exists('$WS/go'):
    time.sleep(0.05)
" &
	BGPID=$!
	await "$BGPID" test -s "$WS/sess"
	sess=$(cat "$WS/sess")
	# in the agent's session: the helper as the shim runs it, and with a
	# policy of the tool's own that names one more writable path
	sbxs() {
		as_nobody env -i HOME="$HOME" PATH=/usr/bin:/bin ENVSHIM_SESSION="$sess" \
			ENVSHIM_WORKSPACE="$WS" XDG_STATE_HOME="$BATS_TEST_TMPDIR/state" \
			LD_PRELOAD="$SHIM" "$HELPER" "$@"
	}
	run -0 sbxs -- bash -c 'readlink /proc/self/ns/user; echo a >~/extra/f'
	[ "$output" = "$(cat "$WS/ns1")" ]
	run -0 sbxs --policy "$BATS_TEST_TMPDIR/extra.policy" -- bash -c 'readlink /proc/self/ns/user; echo b >~/extra/g'
	[ "$output" != "$(cat "$WS/ns1")" ]
	as_nobody touch "$WS/go"
	wait "$BGPID"
	BGPID=
	# the first wrote to the session's layer, the second to the home
	[ ! -e "$HOME/extra/f" ]
	[ "$(cat "$HOME/extra/g")" = b ]
}

@test "a session whose agent still runs is not removed by another start" {
	go=$BATS_TEST_TMPDIR/ws/go
	py "
import os, time
open('$BATS_TEST_TMPDIR/ws/tmpdir', 'w').write(os.environ['TMPDIR'])
while not os.path.exists('$go'):
    time.sleep(0.05)
print(os.path.isdir(os.environ['TMPDIR']))
" >"$BATS_TEST_TMPDIR/a.out" &
	BGPID=$!
	await "$BGPID" test -s "$BATS_TEST_TMPDIR/ws/tmpdir"
	t=$(cat "$BATS_TEST_TMPDIR/ws/tmpdir")
	run py 'print("b")'
	[ "$status" -eq 0 ]
	[ -d "$t" ]
	as_nobody touch "$go"
	wait "$BGPID"
	BGPID=
	[ "$(cat "$BATS_TEST_TMPDIR/a.out")" = True ]
	[ ! -e "$t" ]
}

@test "a forged ENVSHIM_SESSION outside the user's base gets a private /tmp" {
	mkdir -p "$BATS_TEST_TMPDIR/ws/fake/tmp" "$BATS_TEST_TMPDIR/ws/fake/var-tmp"
	chmod -R 700 "$BATS_TEST_TMPDIR/ws/fake"
	[ "$(id -u)" != 0 ] || chown -R 65534:65534 "$BATS_TEST_TMPDIR/ws/fake"
	echo planted >"$BATS_TEST_TMPDIR/ws/fake/tmp/p"
	run as_nobody env -i HOME="$HOME" PATH=/usr/bin:/bin \
		ENVSHIM_SESSION="$BATS_TEST_TMPDIR/ws/fake" "$HELPER" -- sh -c 'test -e /tmp/p && echo leak; echo end'
	[ "$status" -eq 0 ]
	[ "$output" = end ]
}

@test "sandbox off and audit mode make no session and leave TMPDIR alone" {
	printf 'sandbox off\n' >"$BATS_TEST_TMPDIR/ws/off.policy"
	chmod 644 "$BATS_TEST_TMPDIR/ws/off.policy"
	[ "$(id -u)" != 0 ] || chown 65534:65534 "$BATS_TEST_TMPDIR/ws/off.policy"
	run as_nobody env -i HOME="$HOME" PATH=/usr/bin:/bin TMPDIR=/var/tmp \
		ENVSHIM_POLICY="$BATS_TEST_TMPDIR/ws/off.policy" LD_PRELOAD="$SHIM" \
		sh -c 'echo "$TMPDIR ${ENVSHIM_SESSION:-none}"'
	[ "$status" -eq 0 ]
	[ "$output" = "/var/tmp none" ]
	run as_nobody env -i HOME="$HOME" PATH=/usr/bin:/bin TMPDIR=/var/tmp \
		ENVSHIM_MODE=audit LD_PRELOAD="$SHIM" sh -c 'echo "$TMPDIR ${ENVSHIM_SESSION:-none}"'
	[ "$status" -eq 0 ]
	[ "$output" = "/var/tmp none" ]
}

# ---- the home: a copy-on-write layer of the session ----

# home_hash: every path, mode, size and content under the real home.
home_hash() {
	(cd "$HOME" && find . -printf '%p %m %s %l\n' | LC_ALL=C sort &&
		find . -type f -exec sha256sum {} + | LC_ALL=C sort) | sha256sum
}

@test "home: writes land in the session's layer, later calls see them, the real home never does" {
	mkdir -p "$HOME/.ssh"
	echo 'PRIVATE KEY' >"$HOME/.ssh/id_ed25519"
	echo '# bashrc' >"$HOME/.bashrc"
	[ "$(id -u)" != 0 ] || chown -R 65534:65534 "$HOME"
	before=$(home_hash)
	run py '
import os, subprocess
sess = os.path.dirname(os.environ["TMPDIR"])
subprocess.run(["bash", "-c", "echo evil >>~/.bashrc; mkdir -p ~/.cache/tool && echo c >~/.cache/tool/f; cat ~/.ssh/id_ed25519 2>&1; rm ~/.bashrc && echo removed; echo new >~/.bashrc"])
subprocess.run(["bash", "-c", "cat ~/.bashrc ~/.cache/tool/f; wc -c <~/.ssh/id_ed25519"])
print("layer", sorted(os.listdir(sess + "/home")))
print("sess", sess)
'
	[ "$status" -eq 0 ]
	# the hide list still holds on top of the layer: the key is empty
	lacks "PRIVATE KEY"
	grep -qx removed <<<"$output"
	grep -qx new <<<"$output"
	grep -qx c <<<"$output"
	grep -qx 0 <<<"$output"
	grep -qx "layer \['.bashrc', '.cache'\]" <<<"$output"
	[ "$(home_hash)" = "$before" ]
	[ "$(cat "$HOME/.bashrc")" = '# bashrc' ]
	# discarded with the session
	sess=$(sed -n 's/^sess //p' <<<"$output")
	[ ! -e "$sess" ]
}

# Python for py: call(S) runs S in one sandboxed shell and prints its status.
PY_CALL='
import subprocess
def call(s):
    r = subprocess.run(["bash", "-c", s])
    print("status", r.returncode)
'

# make_projects: a Go module, an npm package tarball and a wheel, all
# local, in $WS, for nobody.
make_projects() {
	mkdir -p "$WS/gomod" "$WS/pkg/package" "$WS/app"
	printf 'module example.com/m\n\ngo 1.19\n' >"$WS/gomod/go.mod"
	printf 'package main\n\nfunc add(a, b int) int { return a + b }\n\nfunc main() { println(add(1, 2)) }\n' >"$WS/gomod/main.go"
	printf 'package main\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif add(1, 2) != 3 {\n\t\tt.Fatal("add")\n\t}\n}\n' >"$WS/gomod/main_test.go"
	printf '{"name":"localpkg","version":"1.0.0","main":"index.js"}\n' >"$WS/pkg/package/package.json"
	printf 'module.exports = 42;\n' >"$WS/pkg/package/index.js"
	tar -C "$WS/pkg" -czf "$WS/localpkg-1.0.0.tgz" package
	printf '{"name":"app","version":"1.0.0"}\n' >"$WS/app/package.json"
	/usr/bin/python3 - "$WS/m-1.0-py3-none-any.whl" <<'PY'
import sys, zipfile, hashlib, base64
files = {"m.py": b"VALUE = 7\n",
         "m-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: m\nVersion: 1.0\n",
         "m-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
rec = []
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for n, d in files.items():
        z.writestr(n, d)
        h = base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode()
        rec.append("%s,sha256=%s,%d" % (n, h, len(d)))
    rec.append("m-1.0.dist-info/RECORD,,")
    z.writestr("m-1.0.dist-info/RECORD", "\n".join(rec) + "\n")
PY
	chmod -R a+rwX "$WS"
	[ "$(id -u)" != 0 ] || chown -R 65534:65534 "$WS"
}

@test "home: go build && go test, npm install of a local tarball, venv + pip install of a local wheel" {
	[ "$(id -u)" != 0 ] || chown -R 65534:65534 "$HOME"
	make_projects
	before=$(home_hash)
	run py "$PY_CALL"'
call("cd gomod && go build -o m . && ./m && go test ./... 2>&1 | tail -1")
call("ls ~/.cache/go-build | head -1 | wc -l")
call("cd app && npm install --no-audit --no-fund --offline ../localpkg-1.0.0.tgz >/dev/null 2>&1; echo npm $?; node -e \"console.log(require(\\\"localpkg\\\"))\"")
call("ls -d ~/.npm/_cacache")
call("python3 -m venv venv && venv/bin/pip install --no-index -q ./m-1.0-py3-none-any.whl && venv/bin/python -c \"import m; print(\\\"m\\\", m.VALUE)\"")
'
	[ "$status" -eq 0 ]
	[ "$(grep -cx 'status 0' <<<"$output")" -eq 5 ]
	grep -qx 3 <<<"$output"
	grep -q "^ok.*example.com/m" <<<"$output"
	grep -qx "npm 0" <<<"$output"
	grep -qx 42 <<<"$output"
	grep -qx "m 7" <<<"$output"
	[ "$(home_hash)" = "$before" ]
	[ ! -e "$HOME/.cache/go-build" ]
	[ ! -e "$HOME/.npm" ]
}

@test "home: two concurrent runs do not see each other's layer" {
	go=$WS/go
	[ "$(id -u)" != 0 ] || chown -R 65534:65534 "$HOME"
	py "
import os, subprocess, time
subprocess.run(['bash', '-c', 'echo A >~/.run-a'], check=True)
open('$WS/a-ready', 'w').write('1')
while not os.path.exists('$go'):
    time.sleep(0.05)
" &
	BGPID=$!
	await "$BGPID" test -e "$WS/a-ready"
	run py "
import subprocess
subprocess.run(['bash', '-c', 'cat ~/.run-a 2>&1; echo done'])
"
	as_nobody touch "$go"
	wait "$BGPID"
	BGPID=
	[ "$status" -eq 0 ]
	lacks -x A
	grep -q "No such file" <<<"$output"
	grep -qx done <<<"$output"
	[ ! -e "$HOME/.run-a" ]
}

@test "home: Claude Code's shell-snapshots directory is bound writable at its real path" {
	mkdir -p "$HOME/.claude/shell-snapshots"
	[ "$(id -u)" != 0 ] || chown -R 65534:65534 "$HOME"
	run py '
import subprocess
subprocess.run(["bash", "-c", "echo \"export X=1\" >~/.claude/shell-snapshots/snapshot-bash-1.sh && echo wrote; echo no >~/.claude/other 2>&1"])
'
	[ "$status" -eq 0 ]
	grep -qx wrote <<<"$output"
	[ "$(cat "$HOME/.claude/shell-snapshots/snapshot-bash-1.sh")" = "export X=1" ]
	# the rest of ~/.claude went to the layer, not the real home
	[ ! -e "$HOME/.claude/other" ]
}

@test "home: Claude Code's session-env, where its hooks write CLAUDE_ENV_FILE, is bound writable at its real path" {
	# Claude makes session-env/SESSION before it runs a SessionStart hook
	# with CLAUDE_ENV_FILE pointing in it, then reads the file back
	mkdir -p "$HOME/.claude/session-env/s1"
	[ "$(id -u)" != 0 ] || chown -R 65534:65534 "$HOME"
	run py "
import os, subprocess
env = dict(os.environ, CLAUDE_ENV_FILE='$HOME/.claude/session-env/s1/sessionstart-hook-0.sh')
subprocess.run(['bash', '-c', 'echo \"export FROM_HOOK=1\" >\"\$CLAUDE_ENV_FILE\" && echo wrote'], env=env)
print('agent-read', open(env['CLAUDE_ENV_FILE']).read().strip())
"
	[ "$status" -eq 0 ]
	grep -qx wrote <<<"$output"
	grep -qx "agent-read export FROM_HOOK=1" <<<"$output"
	[ "$(cat "$HOME/.claude/session-env/s1/sessionstart-hook-0.sh")" = "export FROM_HOOK=1" ]
}

@test "home without its overlay (a ':' in the home's path): go build and npm write the session's cache directories, never the real home" {
	HOME=$BATS_TEST_TMPDIR/ho:me
	mkdir -p "$HOME/.cache/tool" "$HOME/.npm"
	echo real >"$HOME/.cache/tool/kept"
	[ "$(id -u)" != 0 ] || chown -R 65534:65534 "$HOME"
	make_projects
	before=$(home_hash)
	run py "$PY_CALL"'
import os
sess = os.path.dirname(os.environ["TMPDIR"])
call("cd gomod && GOFLAGS=-mod=mod GOPROXY=off go build -o m . && ./m")
call("cd app && npm install --no-audit --no-fund --offline ../localpkg-1.0.0.tgz >/dev/null 2>&1; echo npm $?; node -e \"console.log(require(\\\"localpkg\\\"))\"")
call("ls ~/.cache/go-build | head -1 | wc -l; cat ~/.cache/tool/kept 2>&1 | head -1")
call("touch ~/new 2>&1")
print("layer", sorted(os.listdir(sess + "/home")))
'
	[ "$status" -eq 0 ]
	[ "$(grep -cx 'status 0' <<<"$output")" -eq 3 ]
	grep -qx 3 <<<"$output"
	grep -qx "npm 0" <<<"$output"
	grep -qx 42 <<<"$output"
	grep -qx 1 <<<"$output"
	# the fallback: the rest of the home stays read-only, and the real
	# ~/.cache is not seen (its directory is the session's)
	grep -q "touch: cannot touch.*Read-only file system" <<<"$output"
	grep -q "tool/kept.*No such file" <<<"$output"
	grep -qx "layer \['.cache', '.npm'\]" <<<"$output"
	[ "$(home_hash)" = "$before" ]
	[ ! -e "$HOME/.cache/go-build" ]
	[ -z "$(ls -A "$HOME/.npm")" ]
}

# kept RUN WS CMD: one agent run in workspace WS under `home-layer
# workspace`, its state directory the default one in the home.
kept() {
	(cd "$1" && as_nobody env -i HOME="$HOME" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
		ENVSHIM_POLICY="$BATS_TEST_TMPDIR/kept.policy" LD_PRELOAD="$SHIM" \
		python3 -c 'import subprocess, sys; subprocess.run(["bash", "-c", sys.argv[1]])' "$2")
}

@test "home-layer workspace: ~/.cache written in run 1 is seen by run 2 of the workspace, not by another one, never by the real home" {
	printf 'home-layer workspace\n' >"$BATS_TEST_TMPDIR/kept.policy"
	mkdir -p "$BATS_TEST_TMPDIR/ws2" "$HOME/.cache"
	chmod 644 "$BATS_TEST_TMPDIR/kept.policy"
	[ "$(id -u)" != 0 ] || chown -R 65534:65534 "$BATS_TEST_TMPDIR/kept.policy" "$BATS_TEST_TMPDIR/ws2" "$HOME"
	run kept "$WS" 'mkdir -p ~/.cache/tool && echo warm >~/.cache/tool/blob && echo wrote'
	[ "$status" -eq 0 ]
	[ "$output" = wrote ]
	[ ! -e "$HOME/.cache/tool" ]
	# run 2 sees it; the kept layers themselves are not seen (nor loop):
	# the layers' directory and the log are empty inside.  (The sessions'
	# base is in the state directory too when there is no runtime
	# directory, and this home lies under /tmp: the session's own tmp/,
	# bound back at its path, holds the home again, so find skips it.)
	run kept "$WS" 'cat ~/.cache/tool/blob; ls -A ~/.local/state/envshim/layers | wc -l; wc -c <~/.local/state/envshim/audit.jsonl; find ~ -path "*/envshim/sessions" -prune -o -print >/dev/null; echo find $?'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = warm ]
	[ "${lines[1]}" = 0 ]
	[ "${lines[2]}" = 0 ]
	[ "${lines[3]}" = "find 0" ]
	run kept "$BATS_TEST_TMPDIR/ws2" 'cat ~/.cache/tool/blob 2>&1; echo x >~/.cache/other'
	[ "$status" -eq 0 ]
	grep -q "No such file" <<<"$output"
	# the layers live in the state directory, one per workspace, outside /tmp
	layers=$HOME/.local/state/envshim/layers
	[ "$(ls "$layers" | wc -l)" = 2 ]
	grep -rlx warm "$layers"/*/home/.cache/tool/blob
	[ "$(for f in "$layers"/*/workspace; do cat "$f"; echo; done | sort)" = "$(printf '%s\n' "$WS" "$BATS_TEST_TMPDIR/ws2" | sort)" ]
	[ ! -e "$HOME/.cache/tool" ]
	[ ! -e "$HOME/.cache/other" ]
	# the overlays' work directories of ended runs are removed: after
	# three runs in $WS and one in ws2, one is left in each layer, the
	# last run's keeper's (kROOT.PID)
	run kept "$WS" 'echo ran'
	[ "$output" = ran ]
	[ "$(ls "$layers"/*/work | grep -c '^k\?[0-9]')" -eq 2 ]
	[ "$(ls "$layers"/*/work | grep -c '^k[0-9]')" -eq 2 ]
}

@test "home-layer workspace, overlay options longer than the kernel reads: the fallback, in the kept layer" {
	printf 'home-layer workspace\n' >"$BATS_TEST_TMPDIR/kept.policy"
	chmod 644 "$BATS_TEST_TMPDIR/kept.policy"
	# lowerdir, and the upper and work directories below it: over 4 KiB
	HOME=$HOME/$(printf 'h%.0s' $(seq 200))/$(printf 'o%.0s' $(seq 200))/$(printf 'm%.0s' $(seq 200))/$(printf 'e%.0s' $(seq 200))/$(printf 'x%.0s' $(seq 200))/$(printf 'y%.0s' $(seq 200))/$(printf 'z%.0s' $(seq 200))
	mkdir -p "$HOME/.cache"
	[ "$(id -u)" != 0 ] || chown -R 65534:65534 "$BATS_TEST_TMPDIR/kept.policy" "$BATS_TEST_TMPDIR/home"
	run kept "$WS" 'echo warm >~/.cache/blob && echo wrote; touch ~/new 2>&1'
	[ "$status" -eq 0 ]
	grep -qx wrote <<<"$output"
	grep -q "Read-only file system" <<<"$output"
	[ ! -e "$HOME/.cache/blob" ]
	[ ! -e "$HOME/new" ]
	[ "$(cat "$HOME"/.local/state/envshim/layers/*/home/.cache/blob)" = warm ]
	run kept "$WS" 'cat ~/.cache/blob'
	[ "$output" = warm ]
}

# ---- a login made during a run; what a call leaves where the session's mounts go ----

# lr WHO: a home, workspace and state directory outside /tmp (in /var/tmp,
# the session's /var/tmp covers it: the helper binds them back) for WHO,
# nobody or the suite's own user (root in CI), and the build where WHO
# reaches it.
lr() {
	WHO=$1
	R=$(mktemp -d /var/tmp/envshim-login.XXXXXX)
	chmod 755 "$R"
	mkdir -p "$R/home" "$R/ws" "$R/state" "$R/bin"
	cp "$SHIM" "$R/bin/libenvshim.so"
	cp "$HELPER" "$R/bin/envshim-sandbox"
	chmod -R a+rX "$R/bin"
	LSHIM=$R/bin/libenvshim.so
	LH=$R/home
	WS=$R/ws
	cd "$WS"
}

# lr_own: the tree is WHO's.
lr_own() {
	if [ "$WHO" = nobody ] && [ "$(id -u)" = 0 ]; then
		chown -hR 65534:65534 "$R/home" "$R/ws" "$R/state"
	fi
	return 0
}

# lpy CODE: python3 as the agent, as WHO, the shim preloaded; call(S)
# runs S in one sandboxed shell, up() waits until a call has written
# "up" to the fifo up, go() lets it on through the fifo go, rebuild()
# changes a path the held view watches, so the next call gets a new one.
lpy() {
	local as=()
	if [ "$WHO" = nobody ] && [ "$(id -u)" = 0 ]; then
		as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	fi
	"${as[@]}" env -i HOME="$LH" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
		XDG_STATE_HOME="$R/state" LD_PRELOAD="$LSHIM" ${LPOLICY:+ENVSHIM_POLICY=$LPOLICY} \
		python3 -u -c '
import os, subprocess, sys
h = os.environ["HOME"]
sess = os.path.dirname(os.environ["TMPDIR"])
def call(s):
    r = subprocess.run(["bash", "-c", s])
    print("status", r.returncode, flush=True)
def up():
    open("up").read()
def go():
    open("go", "w").write("go\n")
def keeper():
    return open(sess + "/keeper").read().split()[0]
def rebuild():
    open(h + "/.gitconfig", "a").write("# view %s\n" % keeper())
'"$1" "${@:2}"
}

# lr_fifos: the two fifos a running call and the agent meet at.
lr_fifos() {
	mkfifo "$WS/up" "$WS/go"
	chmod 666 "$WS/up" "$WS/go"
	lr_own
}

# A call holds on until the agent has logged in (to gh, AWS, Claude
# Code, a new ssh key, Claude's backup of ~/.claude.json, docker), then
# reads every file the login made.
LOGIN_CALL='cat ~/.ssh/known_hosts; echo up >up; read _ <go
for f in ~/.config/gh/hosts.yml ~/.aws/credentials ~/.claude/.credentials.json \
    ~/.ssh/id_new ~/.claude.json.backup ~/.docker/config.json ~/.claude.json; do
	cat "$f" 2>/dev/null
done
cat ~/notes.txt; ls -A ~/.ssh; echo end'
LOGIN='
os.makedirs(h + "/.config/gh")
open(h + "/.config/gh/hosts.yml", "w").write("oauth_token: LOGINSECRET\n")
os.makedirs(h + "/.aws")
open(h + "/.aws/credentials", "w").write("aws_secret_access_key = LOGINSECRET\n")
open(h + "/.claude/.credentials.json", "w").write("{\"LOGINSECRET\": 1}\n")
open(h + "/.ssh/id_new", "w").write("LOGINSECRET\n")
open(h + "/.claude.json.backup", "w").write("{\"LOGINSECRET\": 1}\n")
os.makedirs(h + "/.docker")
open(h + "/.docker/config.json", "w").write("{\"auths\": \"LOGINSECRET\"}\n")
open(h + "/.claude.json.new", "w").write("{\"LOGINSECRET\": 1}\n")
os.rename(h + "/.claude.json.new", h + "/.claude.json")
open(h + "/notes.txt", "w").write("visible\n")
'

# login_running: the login while a call runs, then the next call.
login_running() {
	mkdir -p "$LH/.ssh" "$LH/.claude" "$LH/.config"
	echo "example.org ssh-ed25519 AAAAkept" >"$LH/.ssh/known_hosts"
	echo '{}' >"$LH/.claude.json"
	lr_fifos
	run lpy '
p = subprocess.Popen(["bash", "-c", sys.argv[1]])
up()
'"$LOGIN"'
go()
p.wait()
call("cat ~/.config/gh/hosts.yml ~/.aws/credentials ~/.claude/.credentials.json ~/.ssh/id_new ~/.claude.json.backup ~/.docker/config.json 2>/dev/null; cat ~/notes.txt")
' "$LOGIN_CALL"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "example.org ssh-ed25519 AAAAkept" ]
	lacks LOGINSECRET
	# the running call still sees the home as it is (the control: the
	# test can fail), and ~/.ssh as it was, but for the new key
	[ "$(grep -cx visible <<<"$output")" = 2 ]
	grep -qx known_hosts <<<"$output"
	lacks -x id_new
	grep -qx end <<<"$output"
	grep -qx "status 0" <<<"$output"
	grep -q LOGINSECRET "$LH/.ssh/id_new"
}

@test "a login made while a call runs is hidden from that call, and from the next (nobody)" {
	lr nobody
	login_running
}

@test "a login made while a call runs is hidden from that call, and from the next (root)" {
	lr "$(id -un)"
	login_running
}

@test "a reveal line still shows what a login makes during a run; a kept layer keeps nothing of the mask" {
	lr nobody
	mkdir -p "$LH/.claude"
	lr_fifos
	printf 'home-layer workspace\n' >"$R/kept.policy"
	printf 'home-layer workspace\nreveal ~/.npmrc\n' >"$R/reveal.policy"
	chmod 644 "$R"/*.policy
	[ "$WHO" != nobody ] || [ "$(id -u)" != 0 ] || chown 65534:65534 "$R"/*.policy
	# run 1: the token and the login appear while a call runs: hidden
	LPOLICY=$R/kept.policy run lpy '
p = subprocess.Popen(["bash", "-c", "echo up >up; read _ <go; cat ~/.npmrc ~/.claude/.credentials.json 2>&1 | sed s/^.*:/cat:/; echo end"])
up()
open(h + "/.npmrc", "w").write("//r/:_authToken=REVEALED\n")
open(h + "/.claude/.credentials.json", "w").write("LOGINSECRET\n")
go()
p.wait()
'
	[ "$status" -eq 0 ]
	lacks -e REVEALED -e LOGINSECRET
	grep -qx end <<<"$output"
	# run 2, the same kept layer, revealing ~/.npmrc: a running call sees
	# it rewritten, and the rest stays hidden
	LPOLICY=$R/reveal.policy run lpy '
p = subprocess.Popen(["bash", "-c", "cat ~/.npmrc; echo up >up; read _ <go; cat ~/.npmrc ~/.claude/.credentials.json 2>/dev/null; echo end"])
up()
open(h + "/.npmrc", "w").write("//r/:_authToken=REVEALED-AGAIN\n")
go()
p.wait()
'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "//r/:_authToken=REVEALED" ]
	[ "${lines[1]}" = "//r/:_authToken=REVEALED-AGAIN" ]
	lacks LOGINSECRET
	grep -qx end <<<"$output"
}

# plant PATH SHAPE: what a call puts where a mount of the session goes:
# the path moved away (or removed), then a link, a file, a fifo, or a
# directory of another shape, full of entries.
PLANT='plant() {
	mv "$1" "$1.moved.$$" 2>/dev/null || rm -rf "$1" 2>/dev/null
	case $2 in
	link) ln -s /nonexistent "$1" ;;
	file) echo planted >"$1" ;;
	fifo) mkfifo "$1" ;;
	dir) mkdir -p "$1" && for i in $(seq 200); do : >"$1/f$i"; done && : >"$1/$3" ;;
	esac 2>/dev/null
	true
}'

# planted_tmp SHAPE: a call plants SHAPE where the session's own /tmp
# path (the agent's TMPDIR) and the workspace's and the home's mount
# points in /var/tmp are made; the next call, in the same view, and the
# one after, in a view built anew, still run in their workspace with
# their TMPDIR.
planted_tmp() {
	lr_own
	run lpy '
call(sys.argv[1] + """
for p in "$TMPDIR" "$PWD"; do
	case $p in /tmp/*) d=/tmp ;; /var/tmp/*) d=/var/tmp ;; *) continue ;; esac
	t=${p#$d/}; rest=${t#*/}
	plant "$d/${t%%/*}" "$SHAPE" "${rest%%/*}"
done
echo planted
""")
check = "echo ok >\"$TMPDIR/f\" && cat \"$TMPDIR/f\" && pwd && echo x >in-ws && cat in-ws"
call(check)
k = keeper()
rebuild()
call(check)
print("new view", keeper() != k)
' "$PLANT"$'\n'"SHAPE=$1"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = planted ]
	[ "${lines[1]}" = "status 0" ]
	for i in 2 6; do
		[ "${lines[i]}" = ok ]
		[ "${lines[i+1]}" = "$WS" ]
		[ "${lines[i+2]}" = x ]
		[ "${lines[i+3]}" = "status 0" ]
	done
	[ "${lines[-1]}" = "new view True" ]
	[ "$(cat "$WS/in-ws")" = x ]
}

@test "the session's /tmp and /var/tmp mount points replaced by a link: later calls still run (nobody)" {
	lr nobody
	planted_tmp link
}

@test "the session's /tmp and /var/tmp mount points replaced by a file: later calls still run (nobody)" {
	lr nobody
	planted_tmp file
}

@test "the session's /tmp and /var/tmp mount points replaced by a fifo: later calls still run (nobody)" {
	lr nobody
	planted_tmp fifo
}

@test "the session's /tmp and /var/tmp mount points replaced by a full directory of another shape: later calls still run (nobody)" {
	lr nobody
	planted_tmp dir
}

@test "the session's /tmp and /var/tmp mount points replaced by a link: later calls still run (root)" {
	lr "$(id -un)"
	planted_tmp link
}

@test "the session's /tmp and /var/tmp mount points replaced by a full directory of another shape: later calls still run (root)" {
	lr "$(id -un)"
	planted_tmp dir
}

# planted_home: a call plants a link, a file and a fifo where a login
# will make a hidden directory, and a directory where one will make a
# hidden file; then the login comes, outside.  The next calls, in the
# same view and in a new one, run, and the secrets stay hidden.
planted_home() {
	mkdir -p "$LH/.claude" "$LH/.config"
	lr_own
	run lpy '
call("ln -s /usr ~/.config/gh; : >~/.azure; mkfifo ~/.kube; mkdir -p ~/.claude/.credentials.json/x; echo planted")
os.makedirs(h + "/.config/gh")
open(h + "/.config/gh/hosts.yml", "w").write("oauth_token: LOGINSECRET\n")
os.makedirs(h + "/.azure")
open(h + "/.azure/msal_token_cache.json", "w").write("LOGINSECRET\n")
os.makedirs(h + "/.kube")
open(h + "/.kube/config", "w").write("token: LOGINSECRET\n")
open(h + "/.claude/.credentials.json", "w").write("LOGINSECRET\n")
read = "cat ~/.config/gh/hosts.yml ~/.azure/msal_token_cache.json ~/.kube/config ~/.claude/.credentials.json 2>/dev/null; ls /usr | grep -cx bin"
call("echo joined; " + read)
rebuild()
call("echo rebuilt; " + read)
'
	[ "$status" -eq 0 ]
	lacks LOGINSECRET
	[ "${lines[0]}" = planted ]
	[ "${lines[1]}" = "status 0" ]
	[ "${lines[2]}" = joined ]
	[ "${lines[3]}" = 1 ]
	[ "${lines[4]}" = "status 0" ]
	[ "${lines[5]}" = rebuilt ]
	[ "${lines[6]}" = 1 ]
	[ "${lines[7]}" = "status 0" ]
}

@test "a call's link, file, fifo or directory where a login will make a hidden path stops no later call (nobody)" {
	lr nobody
	planted_home
}

@test "a call's link, file, fifo or directory where a login will make a hidden path stops no later call (root)" {
	lr "$(id -un)"
	planted_home
}

# planted_state SHAPE: a call plants SHAPE where Claude Code's
# session-env (bound writable at its real path) will appear; Claude makes
# it, outside.  The next call writes a hook's exports there.
planted_state() {
	mkdir -p "$LH/.claude"
	lr_own
	run lpy '
call(sys.argv[1] + "\nplant ~/.claude/session-env " + sys.argv[2] + " s1; echo planted")
os.makedirs(h + "/.claude/session-env/s1")
call("echo export X=1 >~/.claude/session-env/s1/hook.sh && echo hook")
' "$PLANT" "$1"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = planted ]
	[ "${lines[2]}" = hook ]
	[ "${lines[3]}" = "status 0" ]
	[ "$(cat "$LH/.claude/session-env/s1/hook.sh")" = "export X=1" ]
}

@test "Claude Code's session-env made where a call left a link, a file or a fifo: the next call writes it (nobody)" {
	lr nobody
	for shape in link file fifo; do
		planted_state "$shape"
		rm -rf "$LH/.claude/session-env" "$R/state/envshim"
	done
}

@test "Claude Code's session-env made where a call left a link, a file or a fifo: the next call writes it (root)" {
	lr "$(id -un)"
	for shape in link file fifo; do
		planted_state "$shape"
		rm -rf "$LH/.claude/session-env" "$R/state/envshim"
	done
}

@test "a file the agent runs from its TMPDIR, replaced by a link to the host's /tmp, does not bring that file in" {
	lr nobody
	lr_own
	host=$(mktemp /tmp/envshim-host.XXXXXX)
	printf '#!/bin/sh\necho HOSTMARK\n' >"$host"
	chmod 755 "$host"
	run lpy '
t = os.environ["TMPDIR"]
open(t + "/tool.sh", "w").write("#!/bin/sh\necho tool\n")
os.chmod(t + "/tool.sh", 0o755)
print("first", subprocess.run([t + "/tool.sh"], capture_output=True, text=True).stdout.strip())
call("ln -sf " + sys.argv[1] + " \"$TMPDIR/tool.sh\"; echo planted")
r = subprocess.run([t + "/tool.sh"], capture_output=True, text=True)
print("second", r.returncode, r.stdout.strip())
call("cat " + sys.argv[1] + " 2>&1 | sed s/^.*:/cat:/")
' "$host"
	rm -f "$host"
	[ "$status" -eq 0 ]
	grep -qx "first tool" <<<"$output"
	grep -qx planted <<<"$output"
	lacks HOSTMARK
	grep -qx "cat: No such file or directory" <<<"$output"
}

@test "home-layer workspace without the overlay: a link an earlier run left where a cache's directory is does not stop the run" {
	printf 'home-layer workspace\n' >"$BATS_TEST_TMPDIR/kept.policy"
	chmod 644 "$BATS_TEST_TMPDIR/kept.policy"
	# options longer than the kernel reads: the fallback binds the caches
	HOME=$HOME/$(printf 'h%.0s' $(seq 200))/$(printf 'o%.0s' $(seq 200))/$(printf 'm%.0s' $(seq 200))/$(printf 'e%.0s' $(seq 200))/$(printf 'x%.0s' $(seq 200))/$(printf 'y%.0s' $(seq 200))/$(printf 'z%.0s' $(seq 200))
	mkdir -p "$HOME/.cache" "$HOME/.npm"
	[ "$(id -u)" != 0 ] || chown -R 65534:65534 "$BATS_TEST_TMPDIR/kept.policy" "$BATS_TEST_TMPDIR/home"
	run kept "$WS" 'echo warm >~/.cache/blob && echo wrote'
	[ "$output" = wrote ]
	# what a command of a run with the overlay can leave in the kept
	# layer: its ~/.npm a link, its ~/.cache a file
	layer=$(echo "$HOME"/.local/state/envshim/layers/*)
	rm -rf "$layer/home/.npm" "$layer/home/.cache"
	ln -s /nonexistent "$layer/home/.npm"
	echo planted >"$layer/home/.cache"
	[ "$(id -u)" != 0 ] || chown -h 65534:65534 "$layer/home/.npm" "$layer/home/.cache"
	run kept "$WS" 'echo again >~/.cache/blob && cat ~/.cache/blob && ls -A ~/.npm | wc -l'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = again ]
	[ "${lines[1]}" = 0 ]
	[ ! -e "$HOME/.cache/blob" ]
}
