#!/usr/bin/env bats
# A terminal stays a terminal: a command started on one gets a terminal of
# the sandbox's own, relayed to the caller's by the helper's outer, while
# the caller's terminal stays out of the command's reach.  Each case runs
# on a real pty (tests/progs/ptyrun.py), as an unprivileged user and, when
# the suite is root, as root, and asserts on what the command saw and what
# the terminal showed.

bats_require_minimum_version 1.5.0

load ../common

SBX="$BATS_TEST_DIRNAME/../../../build/envshim-sandbox"
PTYRUN="$BATS_TEST_DIRNAME/../../progs/ptyrun.py"

setup() {
	# outside /tmp on purpose: the sandbox's /tmp is private
	T=$(mktemp -d /var/tmp/envshim-tty.XXXXXX)
	chmod 755 "$T"
	mkdir -p "$T/nobody/home" "$T/nobody/ws" "$T/root/home" "$T/root/ws"
	WHO=(nobody)
	if [ "$(id -u)" = 0 ]; then
		chown -R 65534:65534 "$T/nobody"
		WHO+=(root)
	fi
}

teardown() {
	cd /
	rm -rf "$T"
}

# as_of WHO: how WHO runs a command, in AS: as nobody (uid 65534 when the
# suite is root, else the caller) or root, in WHO's workspace, with a
# clean environment.
as_of() {
	AS=()
	if [ "$1" = nobody ] && [ "$(id -u)" = 0 ]; then
		AS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	fi
	AS+=(env -i HOME="$T/$1/home" PATH=/usr/local/bin:/usr/bin:/bin LANG=C TERM=xterm)
	cd "$T/$1/ws"
}

# as_who WHO COMMAND...: COMMAND as WHO, on the caller's descriptors.
as_who() {
	as_of "$1"
	"${AS[@]}" "${@:2}"
}

# on_tty WHO STEP... -- COMMAND...: COMMAND as WHO on a new terminal,
# which ptyrun.py plays the STEPs on.
on_tty() {
	local who=$1 steps=()
	shift
	while [ "$1" != -- ]; do steps+=("$1"); shift; done
	shift
	as_of "$who"
	python3 "$PTYRUN" "${steps[@]}" -- "${AS[@]}" "$@"
}

# tty_run WHO STEP... -- COMMAND...: on_tty into $output and $lines,
# shown on failure; the terminal's harness itself must succeed.
tty_run() {
	run on_tty "$@"
	echo "$1: $output"
	[ "$status" -eq 0 ]
}

# has LINE...: each LINE is a whole line of $output.
has() {
	local l
	for l; do
		grep -qx -- "$l" <<<"$output" || { echo "no line: $l"; return 1; }
	done
}

@test "a command started on a terminal has one: tty, test -t, /dev/tty, its size" {
	local who
	for who in "${WHO[@]}"; do
		tty_run "$who" -- "$SBX" -- sh -c 'tty; for f in 0 1 2; do [ -t $f ] && echo "fd$f tty"; done
		    stty size </dev/tty; echo "via /dev/tty" >/dev/tty'
		[[ "${lines[0]}" =~ ^/dev/pts/[0-9]+$ ]]
		has 'fd0 tty' 'fd1 tty' 'fd2 tty' '24 80' 'via /dev/tty'
		[ "${lines[-1]}" = 'exit 0' ]
	done
}

@test "an agent's tool calls on terminals of their own (node-pty's way) each get one, in the session's view" {
	local who
	for who in "${WHO[@]}"; do
		# the agent, under the shim, runs each tool call as Gemini CLI
		# does: bash -c on a new pty, whose output it reads and into
		# which it types
		run as_who "$who" XDG_STATE_HOME="$T/$who/state" LD_PRELOAD="$SHIM" python3 -c '
import os, pty
def tool(cmd, typed):
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp("bash", ["bash", "-c", cmd])
    out = b""
    while True:
        try:
            b = os.read(fd, 4096)
        except OSError:
            b = b""
        if not b:
            break
        if b"name? " in out + b and b"name? " not in out:
            os.write(fd, typed)
        out += b
    _, st = os.waitpid(pid, 0)
    print(out.decode().replace("\r\n", "\n"), "status", st)
for i in (1, 2):
    tool("tty; printf \"name? \" >/dev/tty; read -r n </dev/tty; echo \"hi $n\"; readlink /proc/self/ns/user", b"ada%d\n" % i)
print("agent", os.readlink("/proc/self/ns/user"))'
		[ "$(grep -c '^/dev/pts/[0-9]*$' <<<"$output")" = 2 ]
		has 'hi ada1' 'hi ada2'
		[ "$(grep -c '^user:' <<<"$output")" = 2 ]
		# both in the session's namespace, which is not the agent's
		[ "$(grep '^user:' <<<"$output" | sort -u | wc -l)" = 1 ]
		lacks -x "$(sed -n 's/^agent //p' <<<"$output")"
		[ "$(grep -c '^ status 0$' <<<"$output")" = 2 ]
	done
}

@test "a program that opens /dev/tty reads what is typed there, echo off as it asked" {
	local who
	for who in "${WHO[@]}"; do
		# getpass opens /dev/tty and turns echo off, as ssh and sudo do
		tty_run "$who" 'expect:Password: ' 'send:hunter2\n' 'expect:got ' \
		    'expect:name? ' 'send:ada\n' -- "$SBX" -- sh -c \
		    'python3 -c "import getpass; print(\"got\", getpass.getpass()[::-1])"
		    printf "name? " >/dev/tty; read -r n </dev/tty; echo "hi $n"'
		has 'got 2retnuh'
		lacks -e hunter2 -e 'may be echoed'
		has 'hi ada'
		[ "${lines[-1]}" = 'exit 0' ]
	done
}

@test "^D is the end of input, and the command's exit status comes back" {
	local who
	for who in "${WHO[@]}"; do
		tty_run "$who" 'send:abc\n' 'expect:abc' 'expect:abc' 'send:\x04' -- \
		    "$SBX" -- sh -c 'cat /dev/tty; echo "cat $?"; exit 7'
		has 'cat 0'
		[ "${lines[-1]}" = 'exit 7' ]
	done
}

@test "a resize of the caller's terminal reaches the command's: SIGWINCH and stty size" {
	local who
	for who in "${WHO[@]}"; do
		tty_run "$who" 'expect:READY' 'size:30x100' -- "$SBX" -- sh -c \
		    'stty size </dev/tty; trap "stty size </dev/tty; exit 0" WINCH
		    echo READY; sleep 1000 & wait'
		has '24 80' '30 100'
		[ "${lines[-1]}" = 'exit 0' ]
	done
}

@test "^C goes through the command's terminal to its foreground group" {
	local who
	for who in "${WHO[@]}"; do
		# a job-control shell's way: the child in a group of its own,
		# made the terminal's foreground; ^C reaches it, not the parent.
		# The child says READY once it is sh, which SIGINT ends.
		tty_run "$who" 'expect:READY' 'send:\x03' -- "$SBX" -- python3 -c '
import os, signal
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.setpgid(0, 0)
    os.dup2(r, 9)
    os.execvp("sh", ["sh", "-c", "read go <&9; echo READY; exec sleep 1000"])
os.setpgid(pid, pid)
signal.signal(signal.SIGTTOU, signal.SIG_IGN)
os.tcsetpgrp(0, pid)
os.write(w, b"go\n")
_, st = os.waitpid(pid, 0)
os.tcsetpgrp(0, os.getpgrp())
print("child signal", os.WTERMSIG(st) if os.WIFSIGNALED(st) else "none")'
		grep -q 'child signal 2$' <<<"$output"
		[ "${lines[-1]}" = 'exit 0' ]
		# and a plain command on its own ends by it, as its caller sees
		tty_run "$who" 'expect:READY' 'send:\x03' -- "$SBX" -- sh -c \
		    '[ -t 0 ] && echo READY; exec sleep 1000'
		[ "${lines[-1]}" = 'signal 2' ]
	done
}

@test "output keeps its order across stdout, stderr and /dev/tty, and none is lost at the end" {
	local who
	for who in "${WHO[@]}"; do
		tty_run "$who" -- "$SBX" -- sh -c 'i=0; while [ $i -lt 300 ]; do
		    echo "o$i"; echo "e$i" >&2; echo "t$i" >/dev/tty; i=$((i+1)); done
		    head -c 300000 /dev/zero | tr "\0" x; echo; echo END; exit 3'
		[ "${lines[-1]}" = 'exit 3' ]
		[ "${lines[-2]}" = END ]
		[ "${lines[-3]}" = "$(head -c 300000 /dev/zero | tr '\0' x)" ]
		[ "$(printf '%s\n' "${lines[@]:0:900}")" = "$(for i in $(seq 0 299); do
		    printf 'o%s\ne%s\nt%s\n' "$i" "$i" "$i"; done)" ]
	done
}

@test "the command cannot set the modes or size of the caller's terminal" {
	local who
	for who in "${WHO[@]}"; do
		# before the change, the command's stdin was the caller's terminal
		tty_run "$who" -- sh -c 'stty -g; stty size; "$0" -- sh -c \
		    "stty raw -echo rows 5 cols 7; stty size; stty size </dev/tty"
		    stty -g; stty size' "$SBX"
		[ "${lines[1]}" = '24 80' ]
		[ "${lines[2]}" = '5 7' ]
		[ "${lines[3]}" = '5 7' ]
		[ "${lines[4]}" = "${lines[0]}" ]
		[ "${lines[5]}" = '24 80' ]
	done
}

@test "stdin a terminal, stdout a pipe: the pipe stays a pipe" {
	local who
	for who in "${WHO[@]}"; do
		tty_run "$who" -- sh -c '"$0" -- sh -c "tty; [ -t 1 ] || echo out-pipe" | cat' "$SBX"
		[[ "${lines[0]}" =~ ^/dev/pts/[0-9]+$ ]]
		has 'out-pipe'
	done
}

@test "not on a terminal: pipes stay pipes, and nothing takes a terminal" {
	local who
	for who in "${WHO[@]}"; do
		run -1 as_who "$who" "$SBX" -- sh -c 'echo in | cat; tty' </dev/null
		echo "$who: $output"
		[ "${lines[0]}" = in ]
		[ "${lines[1]}" = 'not a tty' ]
		# started in the background of its terminal (a job of its own),
		# the command leaves the terminal to the foreground: no raw mode
		tty_run "$who" -- bash -mc 'stty -g; "$0" -- sh -c "tty; echo bg-done" & wait
		    stty -g' "$SBX"
		has 'not a tty' 'bg-done'
		[ "${lines[0]}" = "$(grep -x '[0-9a-f]*:[0-9a-f:]*' <<<"$output" | tail -1)" ]
	done
}
