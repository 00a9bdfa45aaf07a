#!/usr/bin/env bats
# envshim --contain: a static agent (tests/progs/static_agent.c, raw
# execve, no shim of its own) in a namespace whose /etc/ld.so.preload
# loads the shim into every dynamically linked tool it starts.  Run as
# nobody: the properties must hold for an ordinary user.

load ../common

setup() {
	d=$BATS_TEST_TMPDIR
	while [ "$d" != / ] && [ "$d" != /tmp ]; do chmod o+x "$d"; d=$(dirname "$d"); done
	BIN=$BATS_TEST_TMPDIR/bin
	mkdir -p "$BIN" "$BATS_TEST_TMPDIR/home" "$BATS_TEST_TMPDIR/state"
	cp "$BUILD/libenvshim.so" "$BUILD/envshim" "$BUILD/progs/static_agent" \
		"$BUILD/progs/spawn" "$BIN/"
	chmod -R a+rX "$BIN"
	[ "$(id -u)" != 0 ] || chown 65534:65534 "$BATS_TEST_TMPDIR/home" "$BATS_TEST_TMPDIR/state"
	AGENT=$BIN/static_agent
	printf 'echo EVIL RAN\n' >"$BATS_TEST_TMPDIR/evil.sh"
	chmod 644 "$BATS_TEST_TMPDIR/evil.sh"
	policy 'sandbox off'
}

policy() {
	printf '%s\n' "$@" >"$BATS_TEST_TMPDIR/policy"
	chmod 644 "$BATS_TEST_TMPDIR/policy"
}

# contain [ENVSHIM ARGS...] -- COMMAND...: as nobody, with the agent()
# environment of common.bash (secrets, injections) and no LD_PRELOAD.
contain() {
	local opts=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do opts+=("$1"); shift; done
	shift
	as_nobody env -i HOME="$BATS_TEST_TMPDIR/home" PATH=/usr/bin:/bin LANG=C.UTF-8 \
		XDG_STATE_HOME="$BATS_TEST_TMPDIR/state" \
		GITHUB_TOKEN="$GH" AWS_SECRET_ACCESS_KEY="$AWSK" \
		NODE_OPTIONS="--require /tmp/evil.js" SSH_AUTH_SOCK=/tmp/agent.sock \
		BASH_ENV="$BATS_TEST_TMPDIR/evil.sh" HARMLESS=yes \
		"$BIN/envshim" --contain --policy "$BATS_TEST_TMPDIR/policy" "${opts[@]}" -- "$@"
}

@test "the static agent keeps its own variables; a tool it runs by raw execve gets them filtered" {
	run contain -- "$AGENT" env
	[ "$status" -eq 0 ]
	grep -qx "GITHUB_TOKEN=$GH" <<<"$output"
	grep -qx "BASH_ENV=$BATS_TEST_TMPDIR/evil.sh" <<<"$output"
	run contain -- "$AGENT" run /usr/bin/env
	[ "$status" -eq 0 ]
	no_secrets
	grep -qx "LD_PRELOAD=$BIN/libenvshim.so" <<<"$output"
	grep -q "^ENVSHIM_AGENT=" <<<"$output"
}

@test "an agent that strips every LD_* (Codex) still gets the shim into its tools" {
	run contain -- "$AGENT" strip /usr/bin/env
	[ "$status" -eq 0 ]
	no_secrets
	grep -q "^ENVSHIM_CONFIG=" <<<"$output"
}

@test "bash -c env, env -i sh -c env and a bare BASH_ENV launch see nothing of the agent's" {
	run contain -- "$AGENT" run /bin/bash -c env
	[ "$status" -eq 0 ]
	no_secrets
	run contain -- "$AGENT" run /usr/bin/env -i /bin/sh -c env
	[ "$status" -eq 0 ]
	lacks -e "$GH" -e "$AWSK" -e HARMLESS
	grep -q "^ENVSHIM_CONFIG=" <<<"$output"
	# No ENVSHIM_* at all: the launch state comes from the namespace.
	run contain -- "$AGENT" bare /bin/bash -c 'echo bash ran; env'
	[ "$status" -eq 0 ]
	grep -qx "bash ran" <<<"$output"
	lacks -x "EVIL RAN"
	lacks "^BASH_ENV="
}

@test "the secrets are gone from a tool's /proc/self/environ, not only from getenv" {
	policy 'sandbox off' 'protect-self no'
	run contain -- "$AGENT" run /bin/cat /proc/self/environ
	[ "$status" -eq 0 ]
	lacks -a -e "$GH" -e "$AWSK" -e NODE_OPTIONS
	grep -a -q "HARMLESS=yes" <<<"$output"
	# The same tool outside contain mode shows them: the check can fail.
	run as_nobody env GITHUB_TOKEN="$GH" "$AGENT" run /bin/cat /proc/self/environ
	grep -a -q "$GH" <<<"$output"
}

@test "every record of a tool the shim could not see says hook contain, with what it dropped" {
	run contain -- "$AGENT" run /usr/bin/true
	[ "$status" -eq 0 ]
	rec=$(grep '"hook":"contain"' "$BATS_TEST_TMPDIR/state/envshim/audit.jsonl")
	grep -q '"path":"/usr/bin/true"' <<<"$rec"
	grep -q '{"name":"GITHUB_TOKEN","reason":"secret-name"}' <<<"$rec"
	! grep -q -e "$GH" -e "$AWSK" "$BATS_TEST_TMPDIR/state/envshim/audit.jsonl"
}

@test "the agent holds no capabilities and cannot remove the overlay, not even from a namespace of its own" {
	run contain -- /bin/grep -E '^Cap(Eff|Prm|Bnd)' /proc/self/status
	[ "$status" -eq 0 ]
	[ "$(grep -c ':	0000000000000000$' <<<"$output")" = 3 ]
	run contain -- "$AGENT" escape
	[ "$status" -eq 0 ]
	grep -qx "umount: Operation not permitted" <<<"$output"
	grep -qx "nested umount: Invalid argument" <<<"$output"
	grep -qx "preload: $BIN/libenvshim.so" <<<"$output"
}

teardown() {
	# a tool left waiting on the fifo (a failed check) gets its EOF
	local f=$BATS_TEST_TMPDIR/home/done
	[ ! -p "$f" ] || { exec 4<>"$f"; exec 4>&-; }
}

@test "nothing changes outside the namespace, during the run and after it" {
	[ ! -e /etc/ld.so.preload ]
	local h=$BATS_TEST_TMPDIR/home
	mkfifo "$h/started" "$h/done"
	[ "$(id -u)" != 0 ] || chown 65534:65534 "$h/started" "$h/done"
	# The checks run while the tool is inside, not after a guessed delay.
	contain -- "$AGENT" run /bin/sh -c 'cat /etc/ld.so.preload; echo >"$1"; read x <"$2"' \
		sh "$h/started" "$h/done" >"$BATS_TEST_TMPDIR/out" 2>&1 3>&- &
	local bg=$!
	# the bound is against a hang if the agent never starts, not a timing check
	timeout 60 sh -c 'read x <"$1"' sh "$h/started"
	[ ! -e /etc/ld.so.preload ]
	[ ! -e /etc/envshim/contain ]
	[ ! -e /tmp/ld.so.preload ]
	echo >"$h/done"
	wait $bg
	grep -qx "$BIN/libenvshim.so" "$BATS_TEST_TMPDIR/out"
	[ ! -e /etc/ld.so.preload ]
	[ ! -e /tmp/envshim ]
}

@test "a dynamic agent under --contain keeps its key; its tools do not get it" {
	run contain -- /usr/bin/env
	grep -qx "GITHUB_TOKEN=$GH" <<<"$output"
	run contain -- "$BIN/spawn" execve /usr/bin/env
	[ "$status" -eq 0 ]
	no_secrets
}

@test "a shell outside the sandbox with no helper installed is refused, not run unconfined" {
	policy 'sandbox all'
	run contain -- "$AGENT" run /bin/bash -c 'echo SHELL RAN'
	[ "$status" -eq 126 ]
	grep -q "envshim: refused /usr/bin/bash: the sandbox helper envshim-sandbox is not installed" <<<"$output"
	! grep -q "SHELL RAN" <<<"$output"
}

@test "without user namespaces --contain refuses in one line, exit 125, and leaves no session" {
	# uid 0 in the namespace: its sessions go below its home
	run as_nobody unshare -Ur sh -c 'echo 0 >/proc/sys/user/max_user_namespaces &&
		HOME='"$BATS_TEST_TMPDIR/home"' '"$BIN/envshim"' --contain -- /bin/true;
		st=$?; ls -A '"$BATS_TEST_TMPDIR/home/.local/state/envshim/sessions"' 2>/dev/null | wc -l; exit $st'
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 2 ]
	grep -q "^envshim: --contain: cannot create a user and mount namespace" <<<"$output"
	# the agent never started: its session is gone with the refusal (and
	# the start removed any stale one of that uid)
	[ "${lines[1]}" = 0 ]
}

@test "the run mode refuses a static agent and points to --contain" {
	run as_nobody env HOME="$BATS_TEST_TMPDIR/home" "$BIN/envshim" -- "$AGENT" env
	[ "$status" -eq 125 ]
	grep -q "statically linked" <<<"$output"
	grep -q "envshim --contain" <<<"$output"
}

@test "doctor reports that contain mode works, having run it" {
	cp "$BUILD/envshim-sandbox" "$BIN/"
	run as_nobody env HOME="$BATS_TEST_TMPDIR/home" "$BIN/envshim" doctor
	grep -qx "ok   contain mode: envshim --contain ran a shell, filtered and sandboxed" <<<"$output"
}

@test "an interpreter named directly keeps its own secrets, as through its #! script" {
	mkdir -p "$BATS_TEST_TMPDIR/agentbin"
	printf '%s\n' 'import os, subprocess' \
		'print("agent sees", os.environ.get("GITHUB_TOKEN"))' \
		'subprocess.run(["/usr/bin/env"])' >"$BATS_TEST_TMPDIR/agentbin/agent.py"
	chmod 755 "$BATS_TEST_TMPDIR/agentbin"
	chmod 644 "$BATS_TEST_TMPDIR/agentbin/agent.py"
	run contain -- /usr/bin/python3 "$BATS_TEST_TMPDIR/agentbin/agent.py"
	[ "$status" -eq 0 ]
	grep -qx "agent sees $GH" <<<"$output"
	output=$(grep -v '^agent sees' <<<"$output")
	no_secrets
}

@test "as the user running the tests (root in CI and devcontainers) shells are sandboxed and the overlay holds" {
	# contain() runs as nobody; this runs as whoever runs the suite.
	policy 'sandbox all'
	cp "$BUILD/envshim-sandbox" "$BIN/"
	mkdir -p "$BATS_TEST_TMPDIR/ws"
	cd "$BATS_TEST_TMPDIR/ws"
	local me
	me=$(id -u)
	# a state directory of its own: root keeps no session in nobody's
	mkdir -p "$BATS_TEST_TMPDIR/mystate"
	run env -i HOME="$BATS_TEST_TMPDIR/home" PATH=/usr/bin:/bin \
		XDG_STATE_HOME="$BATS_TEST_TMPDIR/mystate" GITHUB_TOKEN="$GH" \
		"$BIN/envshim" --contain --policy "$BATS_TEST_TMPDIR/policy" -- \
		"$AGENT" run /bin/sh -c 'id -u; echo "tok=${GITHUB_TOKEN:-none}"; readlink /proc/self/ns/user'
	[ "$status" -eq 0 ]
	# Root is an ordinary id inside (a sandbox can map it); others are themselves.
	if [ "$me" = 0 ]; then [ "${lines[0]}" = 65533 ]; else [ "${lines[0]}" = "$me" ]; fi
	[ "${lines[1]}" = "tok=none" ]
	[ "${lines[2]}" != "$(readlink /proc/self/ns/user)" ]
	run env -i HOME="$BATS_TEST_TMPDIR/home" PATH=/usr/bin:/bin \
		"$BIN/envshim" --contain --policy "$BATS_TEST_TMPDIR/policy" -- "$AGENT" escape
	[ "$status" -eq 0 ]
	grep -qx "umount: Operation not permitted" <<<"$output"
	grep -qx "nested umount: Invalid argument" <<<"$output"
	grep -qx "preload: $BIN/libenvshim.so" <<<"$output"
	[ ! -e /etc/ld.so.preload ]
}

@test "a script agent (a node launcher) is its interpreter running it: it keeps its key, its tools do not" {
	mkdir -p "$BATS_TEST_TMPDIR/agentbin"
	printf '%s\n' '#!/usr/bin/env python3' 'import os, subprocess' \
		'print("agent sees", os.environ.get("GITHUB_TOKEN"))' \
		'subprocess.run(["/usr/bin/env"])' >"$BATS_TEST_TMPDIR/agentbin/pyagent"
	chmod 755 "$BATS_TEST_TMPDIR/agentbin" "$BATS_TEST_TMPDIR/agentbin/pyagent"
	run contain -- "$BATS_TEST_TMPDIR/agentbin/pyagent"
	[ "$status" -eq 0 ]
	grep -qx "agent sees $GH" <<<"$output"
	output=$(grep -v '^agent sees' <<<"$output")
	no_secrets
}

@test "sandbox all under --contain: a program the static agent runs by raw execve is confined too" {
	cp "$BUILD/envshim-sandbox" "$BIN/"
	mkdir -p "$BATS_TEST_TMPDIR/ws"
	[ "$(id -u)" != 0 ] || chown 65534:65534 "$BATS_TEST_TMPDIR/ws"
	cd "$BATS_TEST_TMPDIR/ws"
	# a program that is no shell says whether it runs in a sandbox: the
	# namespace the helper named, and its own (inode numbers of ended
	# namespaces are reused, so two runs are not compared)
	local where='import os; print(os.environ.get("ENVSHIM_SANDBOX_NS", "-:").split(":")[0], os.stat("/proc/self/ns/user").st_ino)'
	policy 'sandbox shells'
	run contain -- "$AGENT" run /usr/bin/python3 -c "$where"
	[ "$status" -eq 0 ]
	[[ "$output" == "- "* ]]
	policy 'sandbox all'
	run contain -- "$AGENT" run /usr/bin/python3 -c "$where"
	[ "$status" -eq 0 ]
	read -r named own <<<"$output"
	[ "$named" = "$own" ]
	grep '"hook":"contain"' "$BATS_TEST_TMPDIR/state/envshim/audit.jsonl" |
		grep '"path":"/usr/bin/python3' | grep -q '"action":"sandbox"'
}
