#!/usr/bin/env bats
# envshim --contain with a real static Go agent (tests/progs/go_agent:
# CGO_ENABLED=0, tools started through os/exec and syscall.Exec, that is
# raw clone and execve).  Run as nobody, with the sandbox helper next to
# the shim, so that shells really go into the sandbox; every property is
# checked against the same agent run without envshim, which leaks.

load ../common

setup_file() {
	[ -x "$BUILD/progs/go_agent" ] || {
		echo "build/progs/go_agent missing: make bats builds it with go" \
			"(tests/deps.sh installs golang-go)" >&2
		return 1
	}
}

setup() {
	# Outside /tmp: the sandbox has a /tmp of its own (and in a session a
	# /var/tmp too), and the BASH_ENV script (in the workspace) must be
	# readable from inside it for that check to mean much.
	R=$(mktemp -d /var/tmp/envshim-go.XXXXXX)
	chmod 755 "$R"
	BIN=$R/bin
	mkdir -p "$BIN" "$R/home" "$R/state" "$R/ws"
	cp "$BUILD/libenvshim.so" "$BUILD/envshim" "$BUILD/envshim-sandbox" \
		"$BUILD/progs/go_agent" "$BIN/"
	chmod -R a+rX "$BIN"
	[ "$(id -u)" != 0 ] || chown 65534:65534 "$R/home" "$R/state" "$R/ws"
	AGENT=$BIN/go_agent
	printf 'echo EVIL RAN\n' >"$R/ws/evil.sh"
	chmod 644 "$R/ws/evil.sh"
	policy 'sandbox all'
	cd "$R/ws"
}

teardown() {
	# a tool left waiting on the fifo (a failed check) gets its EOF
	[ ! -p "$R/ws/done" ] || { exec 4<>"$R/ws/done"; exec 4>&-; }
	cd /
	rm -rf "$R"
}

policy() {
	printf '%s\n' "$@" >"$R/policy"
	chmod 644 "$R/policy"
}

# plain COMMAND... / contain COMMAND...: as nobody, with the secrets and
# injections of common.bash and no LD_PRELOAD; contain adds envshim
# --contain in front.
plain() {
	as_nobody env -i HOME="$R/home" PATH=/usr/bin:/bin LANG=C.UTF-8 \
		XDG_STATE_HOME="$R/state" \
		GITHUB_TOKEN="$GH" AWS_SECRET_ACCESS_KEY="$AWSK" \
		NODE_OPTIONS="--require /tmp/evil.js" SSH_AUTH_SOCK=/tmp/agent.sock \
		BASH_ENV="$R/ws/evil.sh" HARMLESS=yes "$@"
}

contain() {
	plain "$BIN/envshim" --contain --policy "$R/policy" -- "$@"
}

# A shell prints its own namespaces the way the agent prints its own.
NS='for n in user mnt pid; do echo "tool ns $n $(readlink /proc/self/ns/$n)"; done'
# ... its parent's environment (the agent's, when nothing is between) ...
PARENT='tr "\0" "\n" </proc/$PPID/environ | sed "s/^/parent: /"'
# ... and every other one it can find.
PEEK="$PARENT"'; for f in /proc/[0-9]*/environ; do
	tr "\0" "\n" <$f | sed "s|^|$f: |"; done'

# ns_cmp same|differ [NS...]: both the agent's and the tool's user, mnt
# and pid namespaces (or the ones named) are in $output (from the same
# run), and are all the same or all different.  A tool in the sandbox
# differs in all three.
ns_cmp() {
	local n a t fail=0 how=$1
	shift
	for n in ${@:-user mnt pid}; do
		a=$(sed -n "s/^agent ns $n //p" <<<"$output")
		t=$(sed -n "s/^tool ns $n //p" <<<"$output")
		if [ -z "$a" ] || [ -z "$t" ]; then
			echo "no $n namespace reported"; fail=1
		elif [ "$how" = same ] && [ "$a" != "$t" ]; then
			echo "the tool is not in the agent's $n namespace $a"; fail=1
		elif [ "$how" = differ ] && [ "$a" = "$t" ]; then
			echo "the tool shares the agent's $n namespace $a"; fail=1
		fi
	done
	return $fail
}

@test "control: without envshim the Go agent's shells see the secrets, run BASH_ENV and read the agent" {
	run plain "$AGENT" run /bin/bash -c "$NS; env; $PARENT"
	[ "$status" -eq 0 ]
	grep -qx "GITHUB_TOKEN=$GH" <<<"$output"
	grep -qx "EVIL RAN" <<<"$output"
	grep -qx "parent: AWS_SECRET_ACCESS_KEY=$AWSK" <<<"$output"
	ns_cmp same
	run plain "$AGENT" exec /bin/bash -c env
	grep -qx "GITHUB_TOKEN=$GH" <<<"$output"
	run plain "$AGENT" bare /bin/bash -c "echo bash ran"
	grep -qx "EVIL RAN" <<<"$output"
}

@test "the Go agent itself keeps its own variables under --contain" {
	run contain "$AGENT" env
	[ "$status" -eq 0 ]
	grep -qx "GITHUB_TOKEN=$GH" <<<"$output"
	grep -qx "AWS_SECRET_ACCESS_KEY=$AWSK" <<<"$output"
	grep -qx "BASH_ENV=$R/ws/evil.sh" <<<"$output"
	grep -qx "HARMLESS=yes" <<<"$output"
}

@test "bash -c env through os/exec: nothing of the agent's secrets, and the shell is in the sandbox" {
	run contain "$AGENT" run /bin/bash -c "$NS; env"
	[ "$status" -eq 0 ]
	no_secrets
	ns_cmp differ
	# with the sandbox off the same shell shares the agent's namespaces:
	# ns_cmp tells the two apart
	policy 'sandbox off'
	run contain "$AGENT" run /bin/bash -c "$NS; env"
	[ "$status" -eq 0 ]
	no_secrets
	ns_cmp same
}

@test "a shell cannot read the Go agent's environment from /proc" {
	run contain "$AGENT" run /bin/bash -c "$NS; env; $PEEK"
	[ "$status" -eq 0 ]
	no_secrets
	ns_cmp differ
	lacks -e NODE_OPTIONS -e SSH_AUTH_SOCK
	# outside the sandbox it could (docs/threat-model.md: the static
	# agent is dumpable); so the check above can fail
	policy 'sandbox off'
	run contain "$AGENT" run /bin/bash -c "$PARENT"
	grep -qx "parent: GITHUB_TOKEN=$GH" <<<"$output"
}

@test "env -i sh -c env: a shell with no ENVSHIM_* at all still goes into the sandbox" {
	run contain "$AGENT" run /usr/bin/env -i /bin/sh -c "$NS; env"
	[ "$status" -eq 0 ]
	lacks -e "$GH" -e "$AWSK" -e HARMLESS
	grep -q "^ENVSHIM_CONFIG=" <<<"$output"
	ns_cmp differ
}

@test "the BASH_ENV trick: a bare environment of BASH_ENV and PATH runs no script" {
	# the script is readable inside the sandbox: only the dropped
	# variable keeps it from running (the control test shows it runs)
	run contain "$AGENT" bare /bin/bash -c "$NS; echo bash ran; cat \"\$1\"; env" sh "$R/ws/evil.sh"
	[ "$status" -eq 0 ]
	grep -qx "bash ran" <<<"$output"
	grep -qx "echo EVIL RAN" <<<"$output"
	lacks -x "EVIL RAN"
	lacks "^BASH_ENV="
	ns_cmp differ
}

@test "a Go agent that strips every LD_* still gets the shim into its shells" {
	run contain "$AGENT" strip /bin/bash -c "$NS; env"
	[ "$status" -eq 0 ]
	no_secrets
	ns_cmp differ
	# the preload came back, from /etc/ld.so.preload's shim
	grep -qx "LD_PRELOAD=$BIN/libenvshim.so" <<<"$output"
	# Control: strip strips.  plain() sets no LD_* of its own, so give it
	# one that run passes on.
	run plain LD_LIBRARY_PATH=/nonexistent "$AGENT" run /usr/bin/env
	grep -qx LD_LIBRARY_PATH=/nonexistent <<<"$output"
	run plain LD_LIBRARY_PATH=/nonexistent "$AGENT" strip /usr/bin/env
	[ "$status" -eq 0 ]
	grep -qx HARMLESS=yes <<<"$output"
	lacks "^LD_"
}

@test "syscall.Exec: a Go agent that becomes a shell or a tool is no longer the agent" {
	run contain "$AGENT" exec /bin/bash -c "$NS; env"
	[ "$status" -eq 0 ]
	no_secrets
	# the agent's process became the helper, which left the agent's mount
	# namespace for the session's view: the last member gone, the kernel
	# may give the command's new one the freed number
	ns_cmp differ user pid
	grep -q "^ENVSHIM_SANDBOX_NS=" <<<"$output"
	run contain "$AGENT" exec /usr/bin/env
	[ "$status" -eq 0 ]
	no_secrets
}

@test "nothing changes outside the Go agent's namespace, during the run and after it" {
	[ ! -e /etc/ld.so.preload ]
	before=$(awk '$5 ~ "^/(etc|tmp)(/|$)"' /proc/self/mountinfo)
	mkfifo "$R/ws/started" "$R/ws/done"
	[ "$(id -u)" != 0 ] || chown 65534:65534 "$R/ws/started" "$R/ws/done"
	contain "$AGENT" run /bin/sh -c 'cat /etc/ld.so.preload; echo >started; read x <done' \
		>"$R/out" 2>&1 3>&- &
	bg=$!
	# the bound is against a hang if the agent never starts, not a timing check
	timeout 60 sh -c 'read x <"$1"' sh "$R/ws/started"
	[ ! -e /etc/ld.so.preload ]
	[ ! -e /etc/envshim/contain ]
	[ ! -e /tmp/ld.so.preload ]
	[ "$(awk '$5 ~ "^/(etc|tmp)(/|$)"' /proc/self/mountinfo)" = "$before" ]
	echo >"$R/ws/done"
	wait $bg
	grep -qx "$BIN/libenvshim.so" "$R/out"
	[ ! -e /etc/ld.so.preload ]
	[ ! -e /tmp/envshim ]
	[ "$(awk '$5 ~ "^/(etc|tmp)(/|$)"' /proc/self/mountinfo)" = "$before" ]
}

@test "without --contain, envshim refuses the static Go agent and points to --contain" {
	run plain "$BIN/envshim" -- "$AGENT" env
	[ "$status" -eq 125 ]
	grep -q "statically linked" <<<"$output"
	grep -q "envshim --contain" <<<"$output"
	lacks "^GITHUB_TOKEN="
}
