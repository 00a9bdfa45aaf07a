#!/usr/bin/env bats
# envshim-sandbox, run directly.  Every property is checked from inside, by
# what the confined command actually sees, as an unprivileged user: when the
# suite runs as root, the helper runs as uid 65534 (setpriv).

bats_require_minimum_version 1.5.0
# await and the suite's leftover check; ROOT is set again below
load ../common

SBX="$BATS_TEST_DIRNAME/../../../build/envshim-sandbox"

setup_file() {
	[ -x "$SBX" ] || { echo "build/envshim-sandbox missing: run make" >&2; return 1; }
	# user namespaces are the ground this stands on: no skipping
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups unshare -Ur true
	else
		unshare -Ur true
	fi || { echo "unshare -Ur true fails: no user namespaces" >&2; return 1; }
}

setup() {
	# outside /tmp on purpose: the sandbox's /tmp is private
	ROOT=$(mktemp -d /var/tmp/envshim-sbx.XXXXXX)
	H="$ROOT/home"
	WS="$ROOT/ws"
	mkdir -p "$H" "$WS"
	if [ "$(id -u)" = 0 ]; then
		chown -R 65534:65534 "$ROOT"
		AS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	else
		AS=()
	fi
	# the same, for "&": a simple command, so $! is the process itself
	ASUSER=("${AS[@]}" env -i HOME="$H" PATH=/usr/local/bin:/usr/bin:/bin LANG=C)
	cd "$WS"
}

teardown() {
	[ -n "${BGPID:-}" ] && kill -9 "$BGPID" 2>/dev/null
	cd /
	rm -rf "$ROOT"
}

# Runs argv as the test user with a clean, predictable environment.
user() {
	"${ASUSER[@]}" "$@"
}

sbx() {
	user "$SBX" "$@"
}

# A policy file the helper accepts: the test user's, not writable by others.
policy() {
	printf '%s\n' "$@" >"$ROOT/policy"
	chmod 644 "$ROOT/policy"
	[ "$(id -u)" != 0 ] || chown 65534:65534 "$ROOT/policy"
}

@test "the command runs in new user, mount, pid, ipc and uts namespaces" {
	out=$(user sh -c 'for n in user mnt pid ipc uts net; do
	    printf "%s " $(readlink /proc/self/ns/$n); done')
	run sbx -- sh -c 'for n in user mnt pid ipc uts net; do
	    printf "%s " $(readlink /proc/self/ns/$n); done'
	[ "$status" -eq 0 ]
	read -r -a o <<<"$out"
	read -r -a i <<<"$output"
	[ "${#i[@]}" -eq 6 ]
	for k in 0 1 2 3 4; do
		[ "${o[$k]}" != "${i[$k]}" ]
	done
	# network on (the default): the host's network namespace
	[ "${o[5]}" = "${i[5]}" ]
}

@test "ENVSHIM_SANDBOX_NS names the user and mount namespaces the command sees" {
	run sbx -- sh -c 'echo "$ENVSHIM_SANDBOX_NS";
	    echo "$(stat -L -c %i /proc/self/ns/user):$(stat -L -c %i /proc/self/ns/mnt)"'
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[ -n "${lines[0]}" ]
	# namespaces, then the helper's own pid outside (for the log's tree),
	# then the inode of the socket records go over
	IFS=: read -r u m pid ino <<<"${lines[0]}"
	[ "$u:$m" = "${lines[1]}" ]
	[[ "$pid" =~ ^[1-9][0-9]*$ ]]
	[[ "$ino" =~ ^[1-9][0-9]*$ ]]
	# that is the socket in the command's own /dev/shm, which it reaches
	# by its path, not by a descriptor: still only 0, 1 and 2 cross
	run sbx -- sh -c 'stat -c "%F %i" /dev/shm/.envshim-log; echo "${ENVSHIM_SANDBOX_NS##*:}"; echo $(ls /proc/self/fd/)'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "socket ${lines[1]}" ]
	[ "${lines[2]}" = "0 1 2 3" ]	# 3: ls's own
}

@test "a forged ENVSHIM_SANDBOX_NS is replaced" {
	run user ENVSHIM_SANDBOX_NS=1:2 "$SBX" -- sh -c 'env | grep -c "^ENVSHIM_SANDBOX_NS="; echo $ENVSHIM_SANDBOX_NS'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 1 ]
	[[ "${lines[1]}" =~ ^[1-9][0-9]*:[1-9][0-9]*:[1-9][0-9]*:[1-9][0-9]*$ ]]
	[ "${lines[1]}" != "1:2" ]
}

@test "nested shells stay in the same namespaces" {
	run sbx -- sh -c 'readlink /proc/self/ns/user /proc/self/ns/mnt;
	    sh -c "bash -c \"readlink /proc/self/ns/user /proc/self/ns/mnt\""'
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 4 ]
	[ "${lines[0]}" = "${lines[2]}" ]
	[ "${lines[1]}" = "${lines[3]}" ]
}

@test "only a handful of pids are visible, pid 1 is the helper" {
	run sbx -- sh -c 'ls /proc | grep -c "^[0-9][0-9]*$"; cat /proc/1/comm'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" -ge 2 ]
	[ "${lines[0]}" -le 5 ]
	[ "${lines[1]}" = envshim-sandbox ]
}

@test "another process of the same user cannot be read, not even its environ" {
	"${ASUSER[@]}" SECRET_TOKEN=do-not-leak-42 sleep 300 >/dev/null 2>&1 3>&- &
	BGPID=$!
	sleep 0.2
	grep -q do-not-leak-42 /proc/$BGPID/environ	# it is there outside
	run sbx -- sh -c "echo inside; cat /proc/$BGPID/environ; ls /proc/$BGPID; grep -l do-not-leak-42 /proc/[0-9]*/environ"
	[ "$status" -ne 0 ]
	# the command ran, and its reads failed for want of the process
	[ "${lines[0]}" = inside ]
	[[ "$output" == *"/proc/$BGPID/environ: No such file or directory"* ]]
	[[ "$output" != *do-not-leak-42* ]]
}

@test "HOME and everything outside the workspace are read-only; the workspace is writable" {
	mkdir -p "$ROOT/outside"
	[ "$(id -u)" = 0 ] && chown 65534 "$ROOT/outside"
	run sbx -- sh -c "touch \$HOME/x 2>&1; touch $ROOT/outside/y 2>&1; echo kept >$WS/result; mkdir $WS/d && echo made"
	[ "$status" -eq 0 ]
	[[ "$output" == *"$H/x"*"Read-only file system"* ]]
	[[ "$output" == *"$ROOT/outside/y"*"Read-only file system"* ]]
	[ "${lines[-1]}" = made ]
	[ ! -e "$H/x" ]
	[ ! -e "$ROOT/outside/y" ]
	[ "$(cat "$WS/result")" = kept ]
	[ -d "$WS/d" ]
}

@test "without mount_setattr (Linux < 5.12) the remount fallback makes the same tree read-only" {
	NOSA="$BATS_TEST_DIRNAME/../../../build/progs/nosetattr"
	mkdir -p "$ROOT/outside" "$WS/.git/hooks"
	[ "$(id -u)" = 0 ] && chown -R 65534 "$ROOT/outside" "$WS/.git"
	# Control: under nosetattr the call really fails as on an old kernel.
	run user "$NOSA" python3 -c 'import ctypes, os
r = ctypes.CDLL(None, use_errno=True).syscall(442, -100, b"/", 0, None, 0)
print(r, os.strerror(ctypes.get_errno()))'
	[ "$output" = "-1 Function not implemented" ]
	run user "$NOSA" "$SBX" -- sh -c "touch \$HOME/x 2>&1; touch $ROOT/outside/y 2>&1; touch $WS/.git/hooks/h 2>&1; echo kept >$WS/result; echo done"
	[ "$status" -eq 0 ]
	[[ "$output" == *"$H/x"*"Read-only file system"* ]]
	[[ "$output" == *"$ROOT/outside/y"*"Read-only file system"* ]]
	[[ "$output" == *"$WS/.git/hooks/h"*"Read-only file system"* ]]
	[ "${lines[-1]}" = done ]
	[ ! -e "$H/x" ]
	[ ! -e "$ROOT/outside/y" ]
	[ ! -e "$WS/.git/hooks/h" ]
	[ "$(cat "$WS/result")" = kept ]
}

@test "/tmp and /dev/shm are private" {
	marker=$(mktemp /tmp/envshim-host.XXXXXX)
	chmod 644 "$marker"
	run sbx -- sh -c "ls -A /tmp; test -e $marker && echo leak; echo inside >/tmp/in; echo x >/dev/shm/in; cat /tmp/in"
	rm -f "$marker"
	[ "$status" -eq 0 ]
	[ "$output" = inside ]
	[ ! -e /tmp/in ]
	[ ! -e /dev/shm/in ]
}

@test "/dev is minimal and its devices work" {
	run sbx -- sh -c 'ls /dev | tr "\n" " "; echo; head -c 4 /dev/zero | od -An -tx1; head -c 16 /dev/urandom | wc -c; echo gone >/dev/null && echo null-ok; test -e /dev/sda || echo no-disks'
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *"null"*"ptmx"*"pts"*"shm"*"tty"*"urandom"*"zero"* ]]
	[ "$(echo ${lines[1]})" = "00 00 00 00" ]
	[ "${lines[2]}" = 16 ]
	[ "${lines[3]}" = null-ok ]
	[ "${lines[4]}" = no-disks ]
}

@test "credential directories and files look empty" {
	mkdir -p "$H/.ssh" "$H/.aws" "$H/.config/gh"
	echo PRIVATE-KEY-MATERIAL >"$H/.ssh/id_ed25519"
	echo aws_secret_access_key=AKIAEXAMPLE >"$H/.aws/credentials"
	echo "machine example.com password hunter2" >"$H/.netrc"
	[ "$(id -u)" = 0 ] && chown -R 65534:65534 "$H"
	run sbx -- sh -c 'ls -A ~/.ssh ~/.aws ~/.config/gh; cat ~/.ssh/id_ed25519 ~/.aws/credentials ~/.netrc; wc -c <~/.netrc; touch ~/.ssh/new'
	[[ "$output" != *PRIVATE-KEY-MATERIAL* ]]
	[[ "$output" != *AKIAEXAMPLE* ]]
	[[ "$output" != *hunter2* ]]
	[[ "$output" == *"$H/.ssh:"* ]]
	[[ "$output" == *"$H/.aws:"* ]]
	# a key is an empty file in its place; a new one cannot be made
	[ "$(grep -cx "$H/.ssh:" <<<"$output")" = 1 ]
	[[ "$output" == *"$H/.ssh:"$'\n'"id_ed25519"$'\n'* ]]
	[[ "$output" == *"touch: cannot touch"*"Read-only file system"* ]]
	# and they are untouched outside
	[ "$(cat "$H/.ssh/id_ed25519")" = PRIVATE-KEY-MATERIAL ]
}

@test "XDG_RUNTIME_DIR is hidden: its sockets are unreachable" {
	mkdir -p "$ROOT/run"
	[ "$(id -u)" = 0 ] && chown 65534 "$ROOT/run"
	"${ASUSER[@]}" python3 -c 'import socket,sys,time
s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1); time.sleep(60)' "$ROOT/run/agent.sock" \
		>/dev/null 2>&1 3>&- &
	BGPID=$!
	for _ in $(seq 50); do [ -S "$ROOT/run/agent.sock" ] && break; sleep 0.1; done
	run user XDG_RUNTIME_DIR="$ROOT/run" "$SBX" -- python3 -c 'import socket,sys,os
print(os.listdir(sys.argv[1]))
s=socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1]+"/agent.sock"); print("connected")
except OSError as e:
    print("refused", e.errno)' "$ROOT/run"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "[]" ]
	[[ "${lines[1]}" == refused* ]]
}

@test "--cap: what the capability variables the shim dropped name is hidden, in each form they take" {
	mkdir -p "$ROOT/caps"
	echo 'token: kube-secret' >"$ROOT/caps/kubeconfig"
	echo 'more' >"$ROOT/caps/kube2"
	[ "$(id -u)" = 0 ] && chown -R 65534 "$ROOT/caps"
	"${ASUSER[@]}" python3 -c 'import socket,sys,time
ss=[]
for p in sys.argv[1:]:
    s=socket.socket(socket.AF_UNIX); s.bind(p); s.listen(1); ss.append(s)
time.sleep(60)' "$ROOT/caps/bus" "$ROOT/caps/docker.sock" >/dev/null 2>&1 3>&- &
	BGPID=$!
	for _ in $(seq 50); do [ -S "$ROOT/caps/docker.sock" ] && break; sleep 0.1; done
	probe='import socket,sys
for p in sys.argv[1:3]:
    s=socket.socket(socket.AF_UNIX)
    try:
        s.connect(p); print("connected")
    except OSError as e:
        print("refused", e.errno)
for p in sys.argv[3:]:
    print(repr(open(p).read()))'
	args=("$ROOT/caps/bus" "$ROOT/caps/docker.sock" "$ROOT/caps/kubeconfig" "$ROOT/caps/kube2")
	run sbx -- python3 -c "$probe" "${args[@]}"
	[ "${lines[0]}" = connected ]
	[ "${lines[2]}" = "'token: kube-secret\n'" ]
	run sbx --cap "DBUS_SESSION_BUS_ADDRESS=unix:path=$ROOT/caps/bus,guid=0123" \
		--cap "DOCKER_HOST=unix://$ROOT/caps/docker.sock" \
		--cap "KUBECONFIG=$ROOT/caps/kubeconfig:$ROOT/caps/kube2" \
		--cap "DOCKER_HOST=tcp://127.0.0.1:2376" \
		-- python3 -c "$probe" "${args[@]}"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "refused 111" ]
	[ "${lines[1]}" = "refused 111" ]
	[ "${lines[2]}" = "''" ]
	[ "${lines[3]}" = "''" ]
	# a value can never hide the workspace or the home
	run sbx --cap "KUBECONFIG=$WS:$H:/" -- sh -c 'echo x >f && ls ~ >/dev/null && echo fine'
	[ "$output" = fine ]
}

@test ".git/hooks and .git/config are read-only and cannot be moved away" {
	git init -q "$WS"
	[ "$(id -u)" = 0 ] && chown -R 65534:65534 "$WS"
	run sbx -- sh -c 'echo evil >.git/hooks/pre-commit 2>&1 || echo hooks-ro
	    echo "[core] hooksPath = /x" >>.git/config 2>&1 || echo config-ro
	    mv .git .git-old 2>&1 || echo git-pinned
	    mv .git/hooks .git/h2 2>&1 || echo hooks-pinned
	    echo fine >.git/description && echo git-writable
	    echo ok >file && echo ws-writable'
	[ "$status" -eq 0 ]
	[[ "$output" == *hooks-ro* ]]
	[[ "$output" == *config-ro* ]]
	[[ "$output" == *git-pinned* ]]
	[[ "$output" == *hooks-pinned* ]]
	[[ "$output" == *git-writable* ]]
	[[ "$output" == *ws-writable* ]]
	[ ! -e "$WS/.git/hooks/pre-commit" ]
	! grep -q hooksPath "$WS/.git/config"
}

@test "a repository without .git/hooks gets an empty, read-only one" {
	git init -q "$WS"
	rm -rf "$WS/.git/hooks"
	[ "$(id -u)" = 0 ] && chown -R 65534:65534 "$WS"
	run sbx -- sh -c 'mkdir -p .git/hooks 2>/dev/null; echo evil >.git/hooks/post-checkout 2>&1 || echo hooks-ro'
	[ "$status" -eq 0 ]
	[[ "$output" == *hooks-ro* ]]
	[ -d "$WS/.git/hooks" ]
	[ ! -e "$WS/.git/hooks/post-checkout" ]
}

@test "a symlink planted at a protected path is covered, not followed, and later commands run" {
	mkdir -p "$WS/elsewhere"
	[ "$(id -u)" = 0 ] && chown -hR 65534:65534 "$WS"
	# a shell in a workspace without a repository plants the links git
	# would follow: its hooks, and a whole .git in another one
	run sbx -- sh -c 'mkdir .git && ln -s ../elsewhere .git/hooks && ln -s elsewhere/cfg .git/config && echo planted'
	[ "$status" -eq 0 ]
	run sbx -- sh -c 'echo evil >.git/hooks/pre-commit 2>&1 || echo hooks-ro
	    echo "[core] fsmonitor = x" >.git/config 2>&1 || echo config-ro
	    rm .git/hooks 2>&1 || echo pinned; wc -c <.git/hooks; echo ran'
	[ "$status" -eq 0 ]
	[[ "$output" == *hooks-ro* ]]
	[[ "$output" == *config-ro* ]]
	[[ "$output" == *pinned* ]]
	[ "${lines[-2]}" = 0 ]
	[ "${lines[-1]}" = ran ]
	[ ! -e "$WS/elsewhere/pre-commit" ]
	[ ! -e "$WS/elsewhere/cfg" ]
	[ -L "$WS/.git/hooks" ]
	rm -rf "$WS/.git"
	run sbx -- sh -c 'ln -s elsewhere .git && echo planted'
	[ "$status" -eq 0 ]
	run sbx -- sh -c 'echo evil >.git/config 2>&1 || echo git-ro; echo ran'
	[ "$status" -eq 0 ]
	[[ "$output" == *git-ro* ]]
	[ "${lines[-1]}" = ran ]
	[ ! -e "$WS/elsewhere/config" ]
}

@test "a policy ro path is read-only too" {
	mkdir -p "$WS/.vscode"
	echo '{}' >"$WS/.vscode/tasks.json"
	[ "$(id -u)" = 0 ] && chown -R 65534:65534 "$WS"
	policy "ro .vscode"
	run sbx --policy "$ROOT/policy" -- sh -c 'echo x >>.vscode/tasks.json || echo vscode-ro'
	[ "$status" -eq 0 ]
	[[ "$output" == *vscode-ro* ]]
	[ "$(cat "$WS/.vscode/tasks.json")" = '{}' ]
}

# A loopback listener outside; its port in $port.  Not in a $(subshell):
# teardown must know its pid, and it must not hold bats' fd 3 open.
listen() {
	python3 -c 'import socket,sys,time
s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(5)
print(s.getsockname()[1], flush=True)
while True:
    c,_=s.accept(); c.sendall(b"hello\n"); c.close()' >"$ROOT/port" 2>/dev/null 3>&- &
	BGPID=$!
	for _ in $(seq 50); do [ -s "$ROOT/port" ] && break; sleep 0.1; done
	port=$(cat "$ROOT/port")
}

CONNECT='import socket,sys
try:
    s=socket.create_connection(("127.0.0.1",int(sys.argv[1])),timeout=3); print(s.recv(6).decode().strip())
except OSError as e:
    print("unreachable", e.errno)'

@test "network off: a loopback listener outside is unreachable" {
	listen
	policy "network off"
	run sbx --policy "$ROOT/policy" -- python3 -c "$CONNECT" "$port"
	[ "$status" -eq 0 ]
	[[ "$output" == unreachable* ]]
	run sbx --policy "$ROOT/policy" -- sh -c 'readlink /proc/self/ns/net'
	[ "$status" -eq 0 ]
	[[ "$output" == net:* ]]
	[ "$output" != "$(readlink /proc/self/ns/net)" ]
}

@test "network on: the same listener is reachable" {
	listen
	policy "network on"
	run sbx --policy "$ROOT/policy" -- python3 -c "$CONNECT" "$port"
	[ "$status" -eq 0 ]
	[ "$output" = hello ]
}

@test "no new privileges, no capabilities" {
	run sbx -- sh -c 'grep -E "^(NoNewPrivs|CapInh|CapPrm|CapEff|CapBnd|CapAmb):" /proc/self/status'
	[ "$status" -eq 0 ]
	[[ "$output" == *"NoNewPrivs:	1"* ]]
	for c in CapInh CapPrm CapEff CapBnd CapAmb; do
		[[ "$output" == *"$c:	0000000000000000"* ]]
	done
}

@test "capabilities are dropped when the caller is root, too" {
	[ "$(id -u)" = 0 ] || skip "needs root to check the root caller"
	# root's own workspace: uid 0 is all the sandbox maps
	mkdir -p "$ROOT/rootws" "$ROOT/roothome"
	chown 0:0 "$ROOT" "$ROOT/rootws" "$ROOT/roothome"
	cd "$ROOT/rootws"
	run env -i HOME="$ROOT/roothome" PATH=/usr/bin:/bin "$SBX" -- sh -c 'id -u; grep -E "^(CapEff|CapBnd|NoNewPrivs):" /proc/self/status; touch /etc/envshim-test 2>&1 || echo etc-ro; touch ok && echo ws-ok'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 0 ]
	[[ "$output" == *"CapEff:	0000000000000000"* ]]
	[[ "$output" == *"CapBnd:	0000000000000000"* ]]
	[[ "$output" == *"NoNewPrivs:	1"* ]]
	[[ "$output" == *"Read-only file system"* ]]
	[ "${lines[-1]}" = ws-ok ]
	[ ! -e /etc/envshim-test ]
}

@test "the command leads a new session: TIOCSTI does not reach the caller's terminal" {
	run sbx -- sh -c 'read -r pid _ _ _ _ sid _ </proc/$$/stat; [ "$pid" = "$sid" ] && echo leader'
	[ "$output" = leader ]
	cat >"$ROOT/sti.py" <<'EOF'
import fcntl, termios
for c in "echo INJECTED\n":
    fcntl.ioctl(0, termios.TIOCSTI, c.encode())
EOF
	chmod 644 "$ROOT/sti.py"
	# A real pty, whose shell reads a line after the command: outside
	# the helper, the injected one (unless the kernel forbids TIOCSTI).
	local pty=("$BATS_TEST_DIRNAME/../../progs/ptyrun.py" expect:DONE 'send:typed\n' --
		sh -c '"$@"; echo DONE; read -r l; echo "GOT:$l"' sh
		"${AS[@]}" env -i HOME="$H" PATH=/usr/bin:/bin)
	run python3 "${pty[@]}" python3 "$ROOT/sti.py"
	if [ "$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null)" != 0 ]; then
		[[ "$output" == *"GOT:echo INJECTED"* ]]
	fi
	run python3 "${pty[@]}" "$SBX" -- python3 "$ROOT/sti.py"
	[[ "$output" == *"GOT:typed"* ]]
	[[ "$output" != *"GOT:echo"* ]]
}

@test "exit status passes through" {
	run sbx -- sh -c 'exit 42'
	[ "$status" -eq 42 ]
	run sbx -- false
	[ "$status" -eq 1 ]
	run -127 sbx -- no-such-command-here
}

# Runs the helper under python and prints its raw returncode (-N: signal N).
rawstatus() {
	user python3 -c 'import subprocess,sys; print(subprocess.run(sys.argv[1:]).returncode)' "$SBX" "$@"
}

@test "death by a signal shows as that signal" {
	run rawstatus -- sh -c 'kill -TERM $$'
	[ "$output" = -15 ]
	run rawstatus -- sh -c 'kill -KILL $$'
	[ "$output" = -9 ]
	run rawstatus -- sh -c 'exit 143'
	[ "$output" = 143 ]
}

@test "stdin is the caller's" {
	run bash -c 'echo hi | "$@"' _ "${AS[@]}" env -i HOME="$H" PATH=/usr/bin:/bin "$SBX" -- sh -c 'read x; echo "got $x"'
	[ "$status" -eq 0 ]
	[ "$output" = "got hi" ]
}

# Starts the helper in the background with SIGINT at its default (not the
# ignore a non-interactive shell gives background jobs); waits for "ready".
start_bg() {
	"${ASUSER[@]}" perl -e '$SIG{INT}="DEFAULT"; $SIG{QUIT}="DEFAULT"; exec @ARGV' \
	    "$SBX" -- "$@" >"$ROOT/out" 2>&1 3>&- &
	BGPID=$!
	for _ in $(seq 100); do grep -q ready "$ROOT/out" 2>/dev/null && break; sleep 0.05; done
	grep -q ready "$ROOT/out"
}

# SIGINT to the background helper, as a terminal's Ctrl-C; its status in st.
interrupt() {
	kill -INT "$BGPID"
	st=0
	wait "$BGPID" || st=$?
}

@test "Ctrl-C (SIGINT to the helper) reaches the command" {
	start_bg sh -c 'trap "echo got-int; exit 3" INT; echo ready; while :; do sleep 0.05; done'
	interrupt
	[ "$st" -eq 3 ]
	grep -q got-int "$ROOT/out"
}

@test "SIGINT kills a command that does not catch it, and the helper dies of it" {
	start_bg sh -c 'echo ready; sleep 30'
	interrupt
	[ "$st" -eq 130 ]
}

@test "orphans are reaped by the helper" {
	run sbx -- sh -c 'sh -c "sleep 0.2 & sleep 0.1 & exit 0"; sleep 1;
	    for s in /proc/[0-9]*/stat; do read -r _ c st _ <$s; echo "$c $st"; done'
	[ "$status" -eq 0 ]
	[[ "$output" != *" Z"* ]]
	[[ "$output" == *"(envshim-sandbox) S"* ]]
}

@test "nothing the command left running outlives the helper" {
	marker="envshim-left-$$-$RANDOM"
	# a job, one that ignores TERM and HUP, one in a session of its own;
	# each says it runs on a fifo, of which the command reads three lines
	# (holding a writer itself, so no early end of file): a count, not a
	# race with processes seen between their fork and their exec
	run sbx -- sh -c "mkfifo /tmp/up && exec 3<>/tmp/up
	    sh -c 'echo up >/tmp/up; sleep 100; :' $marker &
	    sh -c 'trap \"\" TERM HUP; echo up >/tmp/up; sleep 100; :' $marker &
	    setsid -f sh -c 'echo up >/tmp/up; sleep 100; :' $marker
	    echo \"started \$(head -n 3 <&3 | wc -l)\""
	[ "$status" -eq 0 ]
	# all three were running when the command returned
	[ "$output" = "started 3" ]
	# the helper has returned: not one of them may still exist
	run pgrep -f "$marker"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
}

@test "killing the helper's caller kills the sandboxed command" {
	# a sleep no other suite on the machine runs
	nap="31337.$$$RANDOM"
	"${ASUSER[@]}" bash -c '"$1" -- sleep "$2" & wait' _ "$SBX" "$nap" >/dev/null 2>&1 3>&- &
	BGPID=$!
	await "$BGPID" pgrep -f "^sleep $nap\$"
	spid=$(pgrep -f "^sleep $nap\$")
	kill -9 "$BGPID"
	# the end the helper's PDEATHSIG chain makes
	ended "$spid"
}

@test "without user namespaces the launch is refused with the reason" {
	run user unshare -Ur sh -c 'echo 0 >/proc/sys/user/max_user_namespaces && exec "$0" -- sh -c "echo ran"' "$SBX"
	[ "$status" -eq 125 ]
	[[ "$output" == "envshim: refused sh: user namespaces are disabled (user.max_user_namespaces=0); fix: "* ]]
	[[ "$output" != *ran* ]]
}

@test "sandbox optional without user namespaces runs unconfined and logs it" {
	policy "sandbox optional" "log $ROOT/audit.jsonl"
	[ "$(id -u)" = 0 ] && chown 65534 "$ROOT"
	run user unshare -Ur sh -c 'echo 0 >/proc/sys/user/max_user_namespaces && exec "$0" --policy "$1" -- sh -c "echo ran; grep NoNewPrivs /proc/self/status"' "$SBX" "$ROOT/policy"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = ran ]
	[[ "${lines[1]}" == *"NoNewPrivs:	1"* ]]
	# the helper's record of what it hides, then this one
	python3 -c 'import json,sys
r=[json.loads(l) for l in open(sys.argv[1])]
assert [x["action"] for x in r]==["hidden","unconfined"], r
r=r[1]
assert "user.max_user_namespaces=0" in r["reason"], r
assert r["argv"]==["sh","-c","echo ran; grep NoNewPrivs /proc/self/status"], r' "$ROOT/audit.jsonl"
}

@test "sandbox off runs the command in the caller's namespaces" {
	policy "sandbox off"
	run sbx --policy "$ROOT/policy" -- sh -c 'readlink /proc/self/ns/mnt'
	[ "$status" -eq 0 ]
	[ "$output" = "$(readlink /proc/self/ns/mnt)" ]
}

# The log holds the argv of every launch the agent made, and a line
# written there would pass for a record: inside it can be neither read
# nor written.  In envshim's own directory (the default) the directory
# goes; elsewhere the log and its .1.  What comes over the records'
# socket instead is written by the outer, marked as from inside.
@test "the audit log can be neither read nor written inside; a record sent instead is marked by the outer" {
	mkdir -p "$H/.local/state/envshim" "$ROOT/logs"
	for d in "$H/.local/state/envshim" "$ROOT/logs"; do
		echo '{"first":1}' >"$d/audit.jsonl"
		echo '{"old":1}' >"$d/audit.jsonl.1"
	done
	echo other >"$ROOT/logs/other"
	cat >"$ROOT/send.py" <<'PY'
import socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.sendto(b'{"time":"t","pid":1,"action":"run","inside":false}', "/dev/shm/.envshim-log")
print("sent")
PY
	[ "$(id -u)" != 0 ] || chown -R 65534:65534 "$H" "$ROOT/logs" "$ROOT/send.py"
	policy "log $ROOT/logs/audit.jsonl"
	for log in "$H/.local/state/envshim/audit.jsonl" "$ROOT/logs/audit.jsonl"; do
		p=()
		[ "$log" = "$H/.local/state/envshim/audit.jsonl" ] || p=(--policy "$ROOT/policy")
		run sbx "${p[@]}" -- sh -c 'cat "$1" "$1.1"; echo x >>"$1" && echo appended
			cat </dev/null >"$1" && echo truncated; mv "$1.1" "$1" && echo moved
			ls -A "${1%/*}"; python3 "$2"' _ "$log" "$ROOT/send.py"
		[ "$status" -eq 0 ]
		[[ ! "$output" =~ first|old|appended|truncated|moved ]]
		grep -qx sent <<<"$output"
		[ "$(head -n1 "$log")" = '{"first":1}' ]
		[ "$(cat "$log.1")" = '{"old":1}' ]
		run -0 python3 -c 'import json, sys
r = json.loads(open(sys.argv[1]).readlines()[-1])
assert r["inside"] is True and r["sandbox"] > 0 and r["action"] == "run", r
print(sorted(r))' "$log"
		[ "$output" = "['action', 'inside', 'pid', 'sandbox', 'time']" ]
	done
	# whatever the caller's umask (a connect needs write permission)
	log=$H/.local/state/envshim/audit.jsonl
	n=$(wc -l <"$log")
	run -0 user sh -c 'umask 0277; exec "$0" -- python3 "$1"' "$SBX" "$ROOT/send.py"
	[ "$output" = sent ]
	[ "$(wc -l <"$log")" -gt "$n" ]
	[[ "$(tail -n1 "$log")" == *'"inside":true,"sandbox":'* ]]
	# envshim's directory is empty inside; another keeps what else it holds
	run -0 sbx -- ls -A "$H/.local/state/envshim"
	[ -z "$output" ]
	run -0 sbx --policy "$ROOT/policy" -- ls -A "$ROOT/logs"
	[ "$(echo $output)" = "audit.jsonl audit.jsonl.1 other" ]
	# a log that is a link (to /dev/null: logging off) hides no file
	ln -s /dev/null "$ROOT/logs/null.jsonl"
	policy "log $ROOT/logs/null.jsonl"
	run -0 sbx --policy "$ROOT/policy" -- sh -c 'echo x >/dev/null && echo null-ok'
	[ "$output" = null-ok ]
}

@test "a workspace that is / or holds HOME is refused" {
	run user ENVSHIM_WORKSPACE=/ "$SBX" -- true
	[ "$status" -eq 125 ]
	[[ "$output" == "envshim: refused true: the workspace is /"* ]]
	cd "$H"
	run sbx -- true
	[ "$status" -eq 125 ]
	[[ "$output" == *"is your home directory or contains it"* ]]
	run user ENVSHIM_WORKSPACE="$ROOT" "$SBX" -- true
	[ "$status" -eq 125 ]
}

@test "without HOME the home comes from /etc/passwd; a uid without one is refused" {
	[ "$(id -u)" = 0 ] || skip "needs root to run as a uid with no passwd entry"
	# root's entry says /root: the home check uses it
	run env -i PATH=/usr/bin:/bin ENVSHIM_WORKSPACE=/root "$SBX" -- true
	[ "$status" -eq 125 ]
	[[ "$output" == *"the workspace /root is your home directory"* ]]
	run setpriv --reuid=54321 --regid=54321 --clear-groups \
	    env -i PATH=/usr/bin:/bin "$SBX" -- sh -c 'echo ran'
	[ "$status" -eq 125 ]
	[[ "$output" == *"HOME is not set and uid 54321 has no home in /etc/passwd; set HOME"* ]]
	[[ "$output" != *ran* ]]
}

@test "the helper refuses to run setuid" {
	[ "$(id -u)" = 0 ] || skip "needs root to make a setuid copy"
	cp "$SBX" "$ROOT/suid-sbx"
	chown root:root "$ROOT/suid-sbx"
	chmod 4755 "$ROOT/suid-sbx"
	run user "$ROOT/suid-sbx" -- sh -c 'echo ran'
	[ "$status" -eq 125 ]
	[[ "$output" == *"refusing to run setuid"* ]]
	[[ "$output" != *ran* ]]
}

@test "--argv0 sets the command's argv[0]" {
	run sbx --argv0 weird-name -- /bin/sh -c 'echo $0'
	[ "$status" -eq 0 ]
	[ "$output" = weird-name ]
}

@test "--help and --version answer on stdout with 0; a bad option is 125" {
	run --separate-stderr "$SBX" --help
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "usage: envshim-sandbox "* ]]
	run --separate-stderr "$SBX" --version
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^envshim-sandbox\ [0-9]+\.[0-9]+ ]]
	run --separate-stderr "$SBX" --bogus
	[ "$status" -eq 125 ]
	[ -z "$output" ]
	[[ "$stderr" == "usage: envshim-sandbox "* ]]
}
