#!/usr/bin/env bats
# The redirect: every shell the agent starts runs in envshim-sandbox, and
# what runs there is still filtered and still logged.  Run as nobody, from
# a copy of the build under /tmp - which the sandbox's private /tmp covers,
# so these also prove the shim stays loadable inside.

load ../common

setup() {
	nobody_dirs
	cd "$BATS_TEST_TMPDIR/ws"
	OUTER_NS=$(readlink /proc/self/ns/user)
}

# agent_nobody [VAR=VALUE...] -- PROG ARGS: an agent run by uid 65534.
agent_nobody() {
	local vars=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do vars+=("$1"); shift; done
	shift
	as_nobody env -i HOME="$HOME" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
		XDG_STATE_HOME="$BATS_TEST_TMPDIR/state" GITHUB_TOKEN="$GH" \
		AWS_SECRET_ACCESS_KEY="$AWSK" NODE_OPTIONS="--require /tmp/evil.js" \
		SSH_AUTH_SOCK=/tmp/agent.sock BASH_ENV=/tmp/evil.sh HARMLESS=yes \
		"${vars[@]}" LD_PRELOAD="$SHIM" "$@"
}

records() {
	cat "$BATS_TEST_TMPDIR/state/envshim/audit.jsonl"
}

# The way back, for the agent_nobody runs that say SHELLS: only shells,
# shell scripts and unfollowable programs go to the sandbox.
SHELLS() {
	printf 'sandbox shells\n' >"$BATS_TEST_TMPDIR/shells.policy"
	chmod 644 "$BATS_TEST_TMPDIR/shells.policy"
	echo "ENVSHIM_POLICY=$BATS_TEST_TMPDIR/shells.policy"
}

@test "bash -c runs in new namespaces, filtered, with the shim loaded inside" {
	run agent_nobody -- "$SPAWN" execvp bash -c \
		'readlink /proc/self/ns/user; grep -c libenvshim /proc/self/maps; env; ls /proc | grep -c "^[0-9]"'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" != "$OUTER_NS" ]
	[ "${lines[1]}" -ge 1 ]
	assert_filtered
	grep -q '^ENVSHIM_SANDBOX_NS=' <<<"$output"
	[ "${lines[-1]}" -le 6 ]
	records | grep '"path":"/usr/bin/bash"' | grep -q '"action":"sandbox"'
}

@test "what a sandboxed shell sets reaches what it runs, logged as from inside" {
	run agent_nobody -- "$SPAWN" execvp bash -c \
		'export NODE_OPTIONS=--inspect GH_TOKEN=ghp_0123456789abcdefghijklmnopqrstuvwxyz ENVSHIM_AGENT=1:2; /usr/bin/env'
	[ "$status" -eq 0 ]
	# inside, nothing set can leave the sandbox: it reaches the child
	grep -qx 'NODE_OPTIONS=--inspect' <<<"$output"
	grep -qx 'GH_TOKEN=ghp_0123456789abcdefghijklmnopqrstuvwxyz' <<<"$output"
	# but the agent's own secret never came in, and the shim's state holds
	lacks -e "$GH" -e "$AWSK"
	lacks -x 'ENVSHIM_AGENT=1:2'
	rec=$(records | grep '"path":"/usr/bin/env"')
	grep '"inside":true' <<<"$rec" |
		grep -q '{"name":"ENVSHIM_AGENT","reason":"locked"}'
	[[ "$rec" != *GH_TOKEN* ]]
}

@test "nested shells stay in the sandbox's namespace, wrapped once" {
	run agent_nobody -- "$SPAWN" execvp bash -c \
		'readlink /proc/self/ns/user; bash -c "readlink /proc/self/ns/user; sh -c \"readlink /proc/self/ns/user\""'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" != "$OUTER_NS" ]
	[ "${lines[0]}" = "${lines[1]}" ]
	[ "${lines[1]}" = "${lines[2]}" ]
	[ "$(records | grep -c '"action":"sandbox"')" -eq 1 ]
}

@test "system(), popen(), a #! script and the ENOEXEC fallback all go to the sandbox" {
	printf '#!/bin/sh\nreadlink /proc/self/ns/user\n' >"$BATS_TEST_TMPDIR/ws/s.sh"
	printf 'readlink /proc/self/ns/user\n' >"$BATS_TEST_TMPDIR/ws/noshebang"
	chmod 755 "$BATS_TEST_TMPDIR/ws/s.sh" "$BATS_TEST_TMPDIR/ws/noshebang"
	local how
	for how in "system readlink\ /proc/self/ns/user" "popen readlink\ /proc/self/ns/user" \
		"execve $BATS_TEST_TMPDIR/ws/s.sh" "execvp $BATS_TEST_TMPDIR/ws/noshebang"; do
		eval "set -- $how"
		run agent_nobody -- "$SPAWN" "$@"
		echo "$how: $output"
		[ "$status" -eq 0 ]
		[ "$output" != "$OUTER_NS" ]
		[[ "$output" == user:* ]]
	done
}

@test "a shell is known by the file its symlinks lead to, whatever they are called" {
	ln -s /bin/bash "$BATS_TEST_TMPDIR/ws/build-step"
	ln -s build-step "$BATS_TEST_TMPDIR/ws/step"
	ln -s /usr/bin/readlink "$BATS_TEST_TMPDIR/ws/rl"
	local how
	for how in execve vfork posix_spawn; do
		run agent_nobody -- "$SPAWN" "$how" "$BATS_TEST_TMPDIR/ws/step" -c \
			'readlink /proc/self/ns/user'
		echo "$how: $output"
		[ "$status" -eq 0 ]
		[ "$output" != "$OUTER_NS" ]
		[[ "$output" == user:* ]]
	done
	# Control: under `sandbox shells` a link to a tool that is no shell
	# runs where the agent does.
	run agent_nobody "$(SHELLS)" -- "$SPAWN" execve "$BATS_TEST_TMPDIR/ws/rl" /proc/self/ns/user
	[ "$status" -eq 0 ]
	[ "$output" = "$OUTER_NS" ]
}

# The last run was static_hello, launched as $1: it ran, in a user
# namespace other than the agent's (what it printed), and the log agrees.
hello_in_sandbox() {
	[ "${lines[0]}" = "static hello" ]
	[[ "${lines[1]}" == "ns user:"* ]]
	[ "${lines[1]}" != "ns $OUTER_NS" ]
	records | grep '"path":"'"$1"'"' | grep -q '"action":"sandbox"'
}

@test "a static program goes to the sandbox by default (unfollowable sandbox)" {
	run agent_nobody -- "$SPAWN" execve "$BATS_TEST_TMPDIR/bin/static_hello"
	[ "$status" -eq 0 ]
	hello_in_sandbox "$BATS_TEST_TMPDIR/bin/static_hello"
}

@test "a dynamic program whose program headers sit past 1 MiB is followed, not sandboxed (sandbox shells)" {
	# As postject leaves a Node single-executable app (Copilot CLI): the
	# kernel and ld.so read the headers wherever e_phoff says.
	"$BATS_TEST_TMPDIR/bin/farphdr" /usr/bin/env "$BATS_TEST_TMPDIR/bin/far_env"
	[ "$(od -An -t u8 -j 32 -N 8 "$BATS_TEST_TMPDIR/bin/far_env" | tr -d ' ')" -ge 1048576 ]
	run agent_nobody "$(SHELLS)" -- "$SPAWN" posix_spawn "$BATS_TEST_TMPDIR/bin/far_env" bash -c env
	[ "$status" -eq 0 ]
	assert_filtered
	records | grep '"path":"'"$BATS_TEST_TMPDIR"'/bin/far_env"' | grep -q '"action":"run"'
	# Only a shim loaded into far_env itself records its execvp of bash.
	records | grep '"hook":"execvp"' | grep '"path":"/usr/bin/bash"' |
		grep '"inside":false' | grep -q '"action":"sandbox"'
}

@test "a relative program spawned after a chdir file action is not judged in the wrong directory" {
	# The parent's cwd has no "bash"; the child's (/bin) does.
	run agent_nobody -- "$SPAWN" spawn-chdir /bin bash -c 'readlink /proc/self/ns/user'
	[ "$status" -eq 0 ]
	[ -n "$output" ]
	[ "$output" != "$OUTER_NS" ]
	records | grep '"hook":"posix_spawn"' | grep '"path":"bash"' | grep -q '"action":"sandbox"'
}

@test "an unreadable static program run through an O_PATH descriptor goes to the sandbox" {
	# nobody may execute but not read it: the shim cannot sniff its head.
	install -o root -m 0711 "$BUILD/progs/static_craft" "$BATS_TEST_TMPDIR/bin/xonly"
	run agent_nobody -- python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_PATH)
os.set_inheritable(fd, True)
os.execve(fd, ["xonly", "-u", "LD_PRELOAD", "--", "/usr/bin/readlink", "/proc/self/ns/user"], dict(os.environ))' \
		"$BATS_TEST_TMPDIR/bin/xonly"
	[ "$status" -eq 0 ]
	[ -n "$output" ]
	[ "$output" != "$OUTER_NS" ]
}

@test "a script whose static interpreter nobody may read goes to the sandbox" {
	# In the workspace: the sandbox's private /tmp would hide bin/.
	install -o root -m 0711 "$BUILD/progs/static_hello" "$BATS_TEST_TMPDIR/ws/xhello"
	printf '#!%s\n' "$BATS_TEST_TMPDIR/ws/xhello" >"$BATS_TEST_TMPDIR/ws/xscript"
	chmod 0755 "$BATS_TEST_TMPDIR/ws/xscript"
	run agent_nobody -- "$SPAWN" execve "$BATS_TEST_TMPDIR/ws/xscript"
	[ "$status" -eq 0 ]
	hello_in_sandbox "$BATS_TEST_TMPDIR/ws/xscript"
}

@test "no environment variable makes the shim skip the sandbox" {
	local mine
	mine=$(stat -L -c %i /proc/self/ns/user):$(stat -L -c %i /proc/self/ns/mnt)
	run agent_nobody ENVSHIM_SANDBOX_NS="$mine" -- "$SPAWN" execvp bash -c 'readlink /proc/self/ns/user'
	[ "$status" -eq 0 ]
	[[ "$output" == user:* ]]
	[ "$output" != "$OUTER_NS" ]
	# Nor does a namespace a tool makes itself, with the variable to match:
	# python in its own user namespace execs bash claiming to be inside
	# (a tool outside the sandbox: `sandbox shells`).
	run agent_nobody "$(SHELLS)" -- "$SPAWN" execvp unshare -Ur python3 -c '
import os
ns = "%d:%d" % (os.stat("/proc/self/ns/user").st_ino, os.stat("/proc/self/ns/mnt").st_ino)
print(os.readlink("/proc/self/ns/user"), flush=True)
os.execve("/bin/bash", ["bash", "-c", "readlink /proc/self/ns/user"], dict(os.environ, ENVSHIM_SANDBOX_NS=ns))'
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" != "${lines[1]}" ]
	[ "$(records | grep '"path":"/bin/bash"' | grep -c '"action":"sandbox"')" -eq 1 ]
}

# peek_agent: a Python agent holding the secret runs a shell that prints
# every environment line it can read with a piece of the secret in it,
# its parent's first (the agent, when nothing is in between).
peek_agent() {
	agent_nobody "$@" -- python3 -c '
import subprocess, sys
sys.exit(subprocess.run(["bash", "-c", sys.argv[1], "bash", sys.argv[2]]).returncode)' \
		'echo "parent $PPID"; tr "\0" "\n" </proc/$PPID/environ 2>/dev/null | grep -F "$1"
for p in /proc/[0-9]*; do tr "\0" "\n" <$p/environ 2>/dev/null; done | grep -F "$1"
echo peek done' "${GH:0:14}"
}

@test "a sandboxed shell cannot read the agent's environment through /proc" {
	run peek_agent
	[ "$status" -eq 0 ]
	grep -qx 'peek done' <<<"$output"
	! grep -q "$GH" <<<"$output" || false
	records | grep '"path":"/usr/bin/bash"' | grep -q '"action":"sandbox"'
	# Control: unsandboxed and dumpable, the same shell reads the agent.
	printf 'sandbox off\nprotect-self no\n' >"$BATS_TEST_TMPDIR/p"
	chmod 644 "$BATS_TEST_TMPDIR/p"
	run peek_agent ENVSHIM_POLICY="$BATS_TEST_TMPDIR/p"
	[ "$status" -eq 0 ]
	grep -qx "GITHUB_TOKEN=$GH" <<<"$output"
}

@test "sandbox off runs shells directly (and says so in the record)" {
	printf 'sandbox off\n' >"$BATS_TEST_TMPDIR/p"
	chmod 644 "$BATS_TEST_TMPDIR/p"
	run agent_nobody ENVSHIM_POLICY="$BATS_TEST_TMPDIR/p" -- "$SPAWN" execvp bash -c 'readlink /proc/self/ns/user'
	[ "$status" -eq 0 ]
	[ "$output" = "$OUTER_NS" ]
	records | grep '"path":"/usr/bin/bash"' | grep -q '"action":"run"'
}

@test "sandbox all (the default): an agent that interprets commands itself (no shell) has every program confined" {
	# As crush's Go shell: tests/progs/inproc_agent.c splits each command
	# and spawns the program named, never a shell.
	mkdir -p "$HOME/.ssh"
	echo "PRIVATE KEY MATERIAL" >"$HOME/.ssh/id_ed25519"
	[ "$(id -u)" != 0 ] || chown -R 65534:65534 "$HOME/.ssh"
	local A=$BATS_TEST_TMPDIR/bin/inproc_agent
	# Under `sandbox shells` the programs run outside: the check can fail.
	printf 'sandbox shells\n' >"$BATS_TEST_TMPDIR/p"
	chmod 644 "$BATS_TEST_TMPDIR/p"
	run agent_nobody ENVSHIM_POLICY="$BATS_TEST_TMPDIR/p" -- "$A" \
		"cat $HOME/.ssh/id_ed25519" "readlink /proc/self/ns/user"
	[ "$status" -eq 0 ]
	grep -qx "PRIVATE KEY MATERIAL" <<<"$output"
	[ "${lines[1]}" = "$OUTER_NS" ]
	rm -f "$BATS_TEST_TMPDIR/state/envshim/audit.jsonl"
	run agent_nobody -- "$A" \
		"readlink /proc/self/ns/user" "cat $HOME/.ssh/id_ed25519" \
		"touch $HOME/planted" "touch $BATS_TEST_TMPDIR/ws/made" "/usr/bin/env"
	lacks -x "PRIVATE KEY MATERIAL"
	[ "${lines[0]}" != "$OUTER_NS" ]
	[ ! -e "$HOME/planted" ]
	[ -e "$BATS_TEST_TMPDIR/ws/made" ]
	assert_filtered
	# Each program went to the sandbox; none was the agent.
	python3 - "$BATS_TEST_TMPDIR/state/envshim/audit.jsonl" <<'PY'
import json, sys
# (the helper's own records of what each sandbox hid aside)
recs = [json.loads(l) for l in open(sys.argv[1])
        if '"inside":false' in l and '"hook":"sandbox"' not in l]
assert len(recs) == 5, recs
assert all(r["action"] == "sandbox" and not r["agent"] for r in recs), recs
PY
}

@test "only the agent is undumpable: the tools it runs are not" {
	run agent_nobody -- python3 -c '
import subprocess
def me():
    try:
        open("/proc/self/environ").read(); return "dumpable"
    except PermissionError:
        return "undumpable"
print("agent", me(), flush=True)
subprocess.run(["python3", "-c", "open(\"/proc/self/environ\").read(); print(\"tool dumpable\")"])'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "agent undumpable" ]
	[ "${lines[1]}" = "tool dumpable" ]
}

@test "envshim log hangs what ran inside a sandbox under the launch that went in" {
	run agent_nobody -- "$SPAWN" execvp bash -c '/usr/bin/true; /usr/bin/true'
	[ "$status" -eq 0 ]
	# Records from inside carry the sandboxed launch's outer pid.
	local outer
	outer=$(records | python3 -c '
import json, sys
for l in sys.stdin:
    r = json.loads(l)
    if r["path"] == "/usr/bin/bash": print(r["pid"])')
	[ "$(records | grep '"path":"/usr/bin/true"' | grep -c "\"sandbox\":$outer")" -eq 2 ]
	run "$ENVSHIM" log "$BATS_TEST_TMPDIR/state/envshim/audit.jsonl"
	[ "$status" -eq 0 ]
	echo "$output"
	# The agent exec'ed bash in place: bash is the root, both trues under it.
	grep -Eq "^$outer bash -c .*\[sandbox\]" <<<"$output"
	[ "$(grep -Ec '^[|`]- [0-9]+ /usr/bin/true  \[run\] \(inside sandbox\)' <<<"$output")" -eq 2 ]
}

@test "fexecve of a close-on-exec descriptor still reaches the sandbox" {
	# Python opens files close-on-exec, and os.execve(fd) is fexecve.
	run agent_nobody -- python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.execve(fd, ["static_hello"], dict(os.environ))' "$BATS_TEST_TMPDIR/bin/static_hello"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "static hello" ]
	# where it really ran: not the agent's namespace
	[[ "${lines[1]}" == "ns user:"* ]]
	[ "${lines[1]}" != "ns $OUTER_NS" ]
	records | grep '"hook":"fexecve"' | grep -q '"action":"sandbox"'
}
