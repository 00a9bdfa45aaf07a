#!/usr/bin/env bats
# The sandbox is the boundary, so the filter works at the boundary.  Inside
# a sandboxed shell what a command sets for its own children reaches them
# (nothing can leave); at the boundary, agent -> sandboxed command, what
# the agent sets to tame its tools passes when inert, while secrets,
# capabilities and classic injections are dropped as before; under
# `sandbox shells` a program the agent starts directly gets the same
# taming values, but a git pair naming a program only as the pager or an
# editor.  Only fds 0-2 cross into the sandbox.  The agent is python3
# under the real shim, as uid 65534.

load ../common

setup() {
	nobody_dirs
	WS=$BATS_TEST_TMPDIR/ws
	cd "$WS"
}

# py CODE: python3 as the agent, uid 65534, the shim preloaded.
py() {
	as_nobody env -i HOME="$HOME" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
		XDG_STATE_HOME="$BATS_TEST_TMPDIR/state" GITHUB_TOKEN="$GH" \
		${POLICY:+ENVSHIM_POLICY=$POLICY} LD_PRELOAD="$SHIM" python3 -u -c "$1" "${@:2}"
}

# shells: the way back, `sandbox shells`, for the next py: what the agent
# starts directly, but shells, runs outside the sandbox again.
shells() {
	POLICY=$BATS_TEST_TMPDIR/shells.policy
	printf 'sandbox shells\n' >"$POLICY"
	chmod 644 "$POLICY"
}

# sh_in SCRIPT: one sandboxed bash -c SCRIPT, from an agent with nothing set.
sh_in() {
	py "import subprocess, sys; sys.exit(subprocess.run(['bash', '-c', sys.argv[1]]).returncode)" "$1"
}

# A shared library whose constructor says it is loaded, and a program
# linked against another one found only through LD_LIBRARY_PATH.
build_libs() {
	mkdir -p "$WS/lib"
	printf '%s\n' '#include <stdio.h>' \
		'__attribute__((constructor)) static void hi(void) { fputs("mine loaded\n", stderr); }' >"$WS/mine.c"
	gcc -shared -fPIC -o "$WS/lib/libmine.so" "$WS/mine.c"
	printf '%s\n' 'int answer(void) { return 42; }' >"$WS/ans.c"
	gcc -shared -fPIC -o "$WS/lib/libans.so" "$WS/ans.c"
	printf '%s\n' '#include <stdio.h>' 'int answer(void);' \
		'int main(void) { printf("answer %d\n", answer()); return 0; }' >"$WS/prog.c"
	gcc -o "$WS/prog" "$WS/prog.c" -L"$WS/lib" -lans
	chmod -R a+rX "$WS"
}

@test "inside: PYTHONPATH, CFLAGS, GOFLAGS and NODE_OPTIONS a shell sets reach its children" {
	mkdir -p "$WS/src"
	echo 'print("m imported")' >"$WS/src/m.py"
	chmod -R a+rX "$WS/src"
	run sh_in 'PYTHONPATH=src python3 -c "import m"
CFLAGS=-O0 sh -c "echo cflags \$CFLAGS"
export GOFLAGS=-mod=mod GOPROXY=off; go env GOFLAGS GOPROXY
NODE_OPTIONS=--max-old-space-size=4096 node -e "console.log(\"node\", process.env.NODE_OPTIONS)"
export GH_TOKEN=ghp_0123456789abcdefghijklmnopqrstuvwxyz; sh -c "echo gh \$GH_TOKEN"'
	[ "$status" -eq 0 ]
	grep -qx "m imported" <<<"$output"
	grep -qx "cflags -O0" <<<"$output"
	[ "${lines[2]}" = -mod=mod ]
	[ "${lines[3]}" = off ]
	grep -qx "node --max-old-space-size=4096" <<<"$output"
	# set inside, for inside: nothing of it can leave the sandbox
	grep -qx "gh ghp_0123456789abcdefghijklmnopqrstuvwxyz" <<<"$output"
}

@test "inside: LD_LIBRARY_PATH reaches ./prog, and a shell's own LD_PRELOAD goes after the shim's" {
	build_libs
	run sh_in 'LD_LIBRARY_PATH=lib ./prog
LD_PRELOAD=$PWD/lib/libmine.so sh -c "echo \"preload \$LD_PRELOAD\"; grep -c libenvshim /proc/self/maps"
LD_PRELOAD="$LD_PRELOAD:$PWD/lib/libmine.so" sh -c "echo \"again \$LD_PRELOAD\""
LD_PRELOAD= sh -c "echo \"empty \$LD_PRELOAD\""'
	[ "$status" -eq 0 ]
	grep -qx "answer 42" <<<"$output"
	grep -qx "preload $SHIM:$WS/lib/libmine.so" <<<"$output"
	grep -qx "again $SHIM:$WS/lib/libmine.so" <<<"$output"
	grep -qx "empty $SHIM" <<<"$output"
	[ "$(grep -c "mine loaded" <<<"$output")" -ge 2 ]
	# the shim stayed loaded in the child that asked for a preload of its own
	grep -qx '[1-9][0-9]*' <<<"$output"
}

@test "inside: the shim keeps its own state, whatever a shell sets" {
	run sh_in 'ENVSHIM_CONFIG="sandbox off" ENVSHIM_SESSION=/x ENVSHIM_WORKSPACE=/ env | grep "^ENVSHIM_" | sort'
	[ "$status" -eq 0 ]
	lacks -x "ENVSHIM_CONFIG=sandbox off"
	lacks -x "ENVSHIM_SESSION=/x"
	lacks -x "ENVSHIM_WORKSPACE=/"
	grep -qx "ENVSHIM_WORKSPACE=$WS" <<<"$output"
}

@test "boundary: what the agent sets to tame git reaches a sandboxed git; amend and a long log finish" {
	as_nobody git init -q "$WS/repo"
	as_nobody git -C "$WS/repo" -c user.name=t -c user.email=t@t commit -q --allow-empty -m one
	run py "
import os, subprocess
env = dict(os.environ, GIT_EDITOR='true', PAGER='cat', GIT_PAGER='cat',
           GIT_CONFIG_GLOBAL='/dev/null', GIT_CONFIG_COUNT='2',
           GIT_CONFIG_KEY_0='core.hooksPath', GIT_CONFIG_VALUE_0='/dev/null',
           GIT_CONFIG_KEY_1='credential.helper', GIT_CONFIG_VALUE_1='')
sh = '''cd repo
git var GIT_EDITOR; git var GIT_PAGER; echo \"pager \$PAGER\"
git config --get core.hooksPath; echo \"global \$GIT_CONFIG_GLOBAL\"
git -c user.name=t -c user.email=t@t commit -q --amend --allow-empty && echo amended
for i in \$(seq 300); do echo \$i; done >big; git add big
git -c user.name=t -c user.email=t@t commit -q -m big
timeout 20 script -qec \"git log -p\" /dev/null </dev/null | grep -c \"^+[0-9]\"
echo \"log \${PIPESTATUS[0]}\"'''
subprocess.run(['bash', '-c', sh], env=env)
"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = true ]
	[ "${lines[1]}" = cat ]
	[ "${lines[2]}" = "pager cat" ]
	[ "${lines[3]}" = /dev/null ]
	[ "${lines[4]}" = "global /dev/null" ]
	grep -qx amended <<<"$output"
	# the whole log came through cat, and git ended: no less waiting on a tty
	grep -qx 300 <<<"$output"
	grep -qx "log 0" <<<"$output"
}

@test "boundary: sandbox shells, a program the agent starts directly keeps the same taming values; a pair naming a program only as the pager" {
	shells
	run py "
import os, subprocess
env = dict(os.environ, GIT_EDITOR='true', PAGER='cat', GIT_PAGER='cat',
           GIT_CONFIG_GLOBAL='/dev/null', GIT_CONFIG_COUNT='2',
           GIT_CONFIG_KEY_0='core.hooksPath', GIT_CONFIG_VALUE_0='/dev/null',
           GIT_CONFIG_KEY_1='core.pager', GIT_CONFIG_VALUE_1='cat',
           NODE_OPTIONS='--max-old-space-size=4096')
subprocess.run(['/usr/bin/env'], env=env)
print('SECOND', flush=True)
# core.hooksPath=cat outside would run the working tree's cat/pre-commit
env = dict(os.environ, GIT_CONFIG_COUNT='1', GIT_CONFIG_KEY_0='core.hooksPath',
           GIT_CONFIG_VALUE_0='cat')
subprocess.run(['/usr/bin/env'], env=env)
"
	[ "$status" -eq 0 ]
	local first=${output%%SECOND*} second=${output#*SECOND}
	# run outside: no sandbox's namespaces
	[[ "$output" != *ENVSHIM_SANDBOX_NS=* ]]
	local v
	for v in GIT_EDITOR=true PAGER=cat GIT_PAGER=cat GIT_CONFIG_GLOBAL=/dev/null \
		GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/dev/null \
		GIT_CONFIG_KEY_1=core.pager GIT_CONFIG_VALUE_1=cat \
		NODE_OPTIONS=--max-old-space-size=4096; do
		grep -qx "$v" <<<"$first" || { echo "lost $v"; false; }
	done
	output=$second
	grep -q '^HOME=' <<<"$output"
	lacks -e '^GIT_CONFIG_COUNT=' -e '^GIT_CONFIG_VALUE_0='
}

@test "boundary: injections the agent hands a sandboxed shell are still dropped" {
	build_libs
	printf 'echo EVIL RAN\n' >"$WS/evil.sh"
	printf 'console.log("EVIL RAN")\n' >"$WS/evil.js"
	chmod a+r "$WS/evil.sh" "$WS/evil.js"
	run py "
import os, subprocess
env = dict(os.environ, BASH_ENV='$WS/evil.sh', LD_PRELOAD='$SHIM:$WS/lib/libmine.so',
           NODE_OPTIONS='--require $WS/evil.js', **{'BASH_FUNC_ls%%': '() { echo EVIL RAN; }'},
           GIT_EDITOR='sh -c \"echo EVIL RAN\"', PAGER='less -+F',
           GIT_CONFIG_COUNT='1', GIT_CONFIG_KEY_0='core.pager', GIT_CONFIG_VALUE_0='!echo EVIL RAN',
           GIT_CONFIG_KEY_1='url.https://evil/.insteadOf', GIT_CONFIG_VALUE_1='')
subprocess.run(['bash', '-c', 'ls >/dev/null; node -e 1; env; echo \"preload \$LD_PRELOAD\"'], env=env)
"
	[ "$status" -eq 0 ]
	lacks -x "EVIL RAN"
	lacks "mine loaded"
	lacks -e '^BASH_ENV=' -e '^NODE_OPTIONS=' -e '^BASH_FUNC' -e '^GIT_EDITOR=' -e '^PAGER='
	lacks -e '^GIT_CONFIG_VALUE_0=' -e '^GIT_CONFIG_KEY_1='
	lacks "$GH"
	grep -qx "preload $SHIM" <<<"$output"
	# the key of an inert pair may pass; its value without it is harmless
	grep -q '^GIT_CONFIG_KEY_0=core.pager$' <<<"$output"
}

@test "boundary: only fds 0-2 cross into the sandbox; a direct program (sandbox shells) still inherits them" {
	shells
	echo 'secret in a file' >"$HOME/cred"
	[ "$(id -u)" != 0 ] || chown 65534:65534 "$HOME/cred"
	run py "
import os, subprocess
fd = os.open('$HOME/cred', os.O_RDONLY)
os.dup2(fd, 3)
os.set_inheritable(3, True)
subprocess.run(['bash', '-c', 'cat <&3 2>&1 | sed s/^/shell:/; ls /proc/self/fd | tr \"\\\\n\" \" \" | sed \"s/^/fds: /\"; echo'], pass_fds=(3,))
subprocess.run(['/usr/bin/cat', '/proc/self/fd/3'], pass_fds=(3,))
"
	[ "$status" -eq 0 ]
	lacks "^shell:secret"
	grep -q "3: Bad file descriptor" <<<"$output"
	grep -q "^fds: 0 1 2 3 *$" <<<"$output"
	# control: the same descriptor reaches a program started directly
	grep -qx "secret in a file" <<<"$output"
}
