#!/usr/bin/env bats
# envshim's run mode: what it hands the agent, and its exit statuses.

bats_require_minimum_version 1.5.0
load ../cli

setup() {
	cli_setup
	BUILD=$(cd "$BATS_TEST_DIRNAME/../../../build" && pwd)
	[ -f "$BUILD/libenvshim.so" ]
	# A project of its own: the checkout holds the build, which envshim
	# refuses to run from as a workspace.
	mkdir -p "$BATS_TEST_TMPDIR/project"
	cd "$BATS_TEST_TMPDIR/project"
}

@test "the agent gets the absolute shim path and absolute policy path" {
	mkdir "$BATS_TEST_TMPDIR/ws"
	# outside the project: a policy in it is refused
	p=$(policy_file p <<<'drop FOO')
	# a project directory: one that holds HOME is refused
	cd "$BATS_TEST_TMPDIR/ws"
	run -0 "$ENVSHIM" --policy ../p -- /usr/bin/env
	grep -qx "LD_PRELOAD=$BUILD/libenvshim.so" <<<"$output"
	grep -qx "ENVSHIM_POLICY=$BATS_TEST_TMPDIR/ws/../p" <<<"$output"
	run ! grep -q '^ENVSHIM_MODE=' <<<"$output"
}

@test "--audit sets ENVSHIM_MODE=audit" {
	run -0 "$ENVSHIM" --audit /usr/bin/env
	grep -qx 'ENVSHIM_MODE=audit' <<<"$output"
}

@test "inherited launch state is removed, so the agent is the launch root" {
	run -0 env ENVSHIM_LAUNCH=stale-launch-1 ENVSHIM_CONFIG=stale-config-2 \
	    ENVSHIM_AGENT=stale-agent-3 ENVSHIM_WORKSPACE=stale-ws-4 \
	    ENVSHIM_SANDBOX_NS=stale-ns-5 LD_PRELOAD=/stale/preload-6.so \
	    "$ENVSHIM" -- /usr/bin/env
	# The agent ran, with the shim alone preloaded ('stale-' below does
	# not match /stale/preload-6.so).
	grep -qx "LD_PRELOAD=$BUILD/libenvshim.so" <<<"$output"
	run ! grep -q 'stale-' <<<"$output"
}

@test "a bad policy stops the launch with 125 before anything runs" {
	p=$(policy_file bad <<<'sandbox perhaps')
	run -125 "$ENVSHIM" --policy "$p" -- touch "$BATS_TEST_TMPDIR/ran"
	[ "$output" = "envshim: $p:1: sandbox takes all, shells, optional or off" ]
	[ ! -e "$BATS_TEST_TMPDIR/ran" ]
}

@test "a bad ENVSHIM_MODE stops the launch with 125, as a bad policy does" {
	# The shim would refuse every launch the agent made; say so up front.
	run -125 env ENVSHIM_MODE=bogus "$ENVSHIM" -- touch "$BATS_TEST_TMPDIR/ran"
	[ "$output" = "envshim: ENVSHIM_MODE must be audit or enforce, or unset" ]
	[ ! -e "$BATS_TEST_TMPDIR/ran" ]
	run -125 env ENVSHIM_MODE=bogus "$ENVSHIM" --contain -- true
	run -0 env ENVSHIM_MODE=enforce "$ENVSHIM" -- true
	run -0 env ENVSHIM_MODE= "$ENVSHIM" -- true
	run -0 env ENVSHIM_MODE=audit "$ENVSHIM" -- true
}

@test "with no sandbox helper to find, the agent is not started" {
	# Every shell it ran would be refused; say so before it starts.
	mkdir "$BATS_TEST_TMPDIR/lone"
	cp "$ENVSHIM" "$BUILD/libenvshim.so" "$BATS_TEST_TMPDIR/lone/"
	run -125 "$BATS_TEST_TMPDIR/lone/envshim" -- touch "$BATS_TEST_TMPDIR/ran"
	[[ "${lines[0]}" == "envshim: the sandbox helper envshim-sandbox is neither next to $BATS_TEST_TMPDIR/lone/libenvshim.so nor in /"*", so every shell the agent started would be refused." ]]
	[ "${lines[1]}" = "Reinstall envshim, or set 'sandbox off' in a policy." ]
	[ ! -e "$BATS_TEST_TMPDIR/ran" ]
	# Nothing goes to the sandbox with sandbox off, or in a dry run.
	p=$(policy_file off <<<'sandbox off')
	run -0 "$BATS_TEST_TMPDIR/lone/envshim" --policy "$p" -- true
	run -0 "$BATS_TEST_TMPDIR/lone/envshim" --audit -- true
	cp "$BUILD/envshim-sandbox" "$BATS_TEST_TMPDIR/lone/"
	run -0 "$BATS_TEST_TMPDIR/lone/envshim" -- true
}

@test "an agent started in the home directory or / is not started" {
	# The sandbox refuses such a workspace: every shell would fail.
	mkdir -p "$HOME/proj"
	cd "$HOME"
	run -125 "$ENVSHIM" -- touch "$BATS_TEST_TMPDIR/ran"
	[ "${lines[0]}" = "envshim: the working directory $(realpath "$HOME") is your home directory." ]
	[[ "${lines[2]}" == "Start the agent from its project (cd ~/src/project)"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/ran" ]
	cd "$(dirname "$HOME")"
	run -125 "$ENVSHIM" -- true
	[ "${lines[0]}" = "envshim: the working directory $(realpath "$PWD") holds your home directory." ]
	cd /
	run -125 "$ENVSHIM" -- true
	[ "${lines[0]}" = "envshim: the working directory / is the root directory." ]
	run -125 "$ENVSHIM" --contain -- true
	# Not found stays 127; a dry run or sandbox off needs no workspace.
	run -127 "$ENVSHIM" -- no-such-command-envshim
	run -0 "$ENVSHIM" --audit -- true
	p=$(policy_file off <<<'sandbox off')
	run -0 "$ENVSHIM" --policy "$p" -- true
	cd "$HOME/proj"
	run -0 "$ENVSHIM" -- true
}

@test "exit statuses: 127 not found, 126 not executable, else the command's" {
	run -127 "$ENVSHIM" -- no-such-command-envshim
	[ "$output" = "envshim: no-such-command-envshim: command not found" ]
	printf 'x\n' > "$BATS_TEST_TMPDIR/noexec"
	run -126 "$ENVSHIM" -- "$BATS_TEST_TMPDIR/noexec"
	[ "$output" = "envshim: $BATS_TEST_TMPDIR/noexec: Permission denied" ]
	run -1 "$ENVSHIM" -- false
	run -0 "$ENVSHIM" -- true
}

@test "usage: --help and --version exit 0, no command exits 125" {
	run -0 "$ENVSHIM" --help
	[[ "${lines[0]}" == "usage: envshim [--policy FILE] [--audit] [--] COMMAND [ARGS...]" ]]
	run -0 "$ENVSHIM" --version
	[[ "$output" =~ ^envshim\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
	run -125 "$ENVSHIM"
	run -125 "$ENVSHIM" --bogus-option true
}

@test "a usage error names the command that could not parse it, and exits 125" {
	# getopt spoke as the full path of the binary, or as a bare "check:".
	# One line, and where to read more: not the whole usage.
	run -125 "$ENVSHIM" --bogus
	[ "${lines[0]}" = "envshim: unrecognized option '--bogus'" ]
	[ "${lines[1]}" = "Try 'envshim --help' for more information." ]
	[ "${#lines[@]}" = 2 ]
	for c in check policy log doctor session; do
		run -125 "$ENVSHIM" "$c" --bogus
		[ "${lines[0]}" = "envshim $c: unrecognized option '--bogus'" ]
		[ "${lines[1]}" = "Try 'envshim $c --help' for more information." ]
		[ "${#lines[@]}" = 2 ]
	done
	run -125 "$ENVSHIM" doctor extra
	[ "${lines[0]}" = "envshim doctor: unexpected 'extra'" ]
	run -125 "$ENVSHIM" log a b
	[ "${lines[0]}" = "envshim log: one FILE at most, not also 'b'" ]
}

@test "envshim -- with no command says so, in one line and where to read more" {
	run -125 "$ENVSHIM" --
	[ "${lines[0]}" = "envshim: no command to run after --" ]
	[ "${lines[1]}" = "Try 'envshim --help' for more information." ]
	[ "${#lines[@]}" = 2 ]
	run -125 "$ENVSHIM" --policy /dev/null
	[ "${lines[0]}" = "envshim: no command to run" ]
	[ "${#lines[@]}" = 2 ]
}

@test "a shell as the agent says, in one line, that what is typed into it is not sandboxed" {
	mkdir "$BATS_TEST_TMPDIR/ws"
	cd "$BATS_TEST_TMPDIR/ws"
	export XDG_STATE_HOME="$BATS_TEST_TMPDIR/state"
	# what a user types, on stdin: not confined, but a shell it starts is
	# (the default, sandbox all: the shell's own programs are sandboxed,
	# its builtins and redirections are not)
	# its redirection reaches the host's /tmp, which a sandboxed one would not
	run -0 "$ENVSHIM" -- bash <<<"echo outside >$BATS_TEST_TMPDIR/mark; readlink /proc/self/ns/mnt"
	[ "${lines[0]}" = "envshim: bash is the agent: it runs outside the sandbox, with its builtins and redirections; the programs it starts (bash too) are sandboxed" ]
	[ "${#lines[@]}" = 2 ]
	[ "$(cat "$BATS_TEST_TMPDIR/mark")" = outside ]
	[ "${lines[1]}" != "$(readlink /proc/self/ns/mnt)" ]
	printf 'sandbox shells\n' >"$BATS_TEST_TMPDIR/shells.policy"
	chmod 644 "$BATS_TEST_TMPDIR/shells.policy"
	run -0 "$ENVSHIM" --policy "$BATS_TEST_TMPDIR/shells.policy" -- bash <<<'readlink /proc/self/ns/mnt; bash -c "readlink /proc/self/ns/mnt"'
	[ "${lines[0]}" = "envshim: bash is the agent: what is typed into it runs outside the sandbox; for a sandboxed shell, start one from it (bash)" ]
	[ "${#lines[@]}" = 3 ]
	[ "${lines[1]}" = "$(readlink /proc/self/ns/mnt)" ]
	[ "${lines[2]}" != "${lines[1]}" ]
	for sh in "sh -i" "bash -l" "dash"; do
		run -0 "$ENVSHIM" -- $sh </dev/null
		grep -q "^envshim: ${sh%% *} is the agent: it runs outside the sandbox" <<<"$output"
	done
	# a shell running a script or -c is a wrapper, as version managers
	# make them: no word
	printf 'echo script\n' >s.sh
	for args in "-c true" "-lc true" "s.sh" "-- s.sh" "--rcfile /dev/null -c true"; do
		run -0 "$ENVSHIM" -- bash $args </dev/null
		[[ "$output" != *"envshim: "* ]]
	done
	# with sandbox off nothing is sandboxed: nothing to say either
	p=$(policy_file ws/off <<<'sandbox off')
	run -0 "$ENVSHIM" --policy "$p" -- bash </dev/null
	[[ "$output" != *"envshim: "* ]]
}

@test "commands the shim cannot enter are refused with 125 and the reason" {
	[ -x "$BUILD/progs/static_hello" ]
	run -125 "$ENVSHIM" -- "$BUILD/progs/static_hello"
	[[ "$output" == "envshim: refusing $BUILD/progs/static_hello: it is statically linked"* ]]
	[[ "$output" == *"Run a dynamically linked"* ]]
	cp /usr/bin/true "$BATS_TEST_TMPDIR/suid"
	chmod u+s "$BATS_TEST_TMPDIR/suid"
	run -125 "$ENVSHIM" -- "$BATS_TEST_TMPDIR/suid"
	[[ "$output" == *"it is setuid: the loader ignores LD_PRELOAD"* ]]
	cp /usr/bin/true "$BATS_TEST_TMPDIR/sgid"
	chmod g+s "$BATS_TEST_TMPDIR/sgid"
	run -125 "$ENVSHIM" -- "$BATS_TEST_TMPDIR/sgid"
	[[ "$output" == *"it is setgid"* ]]
	printf '#!%s\n' "$BUILD/progs/static_hello" > "$BATS_TEST_TMPDIR/script"
	chmod 755 "$BATS_TEST_TMPDIR/script"
	run -125 "$ENVSHIM" -- "$BATS_TEST_TMPDIR/script"
	[[ "$output" == *"is a script whose interpreter the shim cannot enter"* ]]
	# Found through PATH too.
	PATH="$BUILD/progs:$PATH" run -125 "$ENVSHIM" static_hello
}

@test "a command with file capabilities is refused" {
	[ "$(id -u)" = 0 ] || skip "needs root to set file capabilities"
	cp /usr/bin/true "$BATS_TEST_TMPDIR/capped"
	# vfs_cap_data revision 2: cap_net_raw permitted.
	python3 -c 'import os, struct, sys
os.setxattr(sys.argv[1], "security.capability", struct.pack("<5I", 0x02000000, 1 << 13, 0, 0, 0))' \
	    "$BATS_TEST_TMPDIR/capped"
	run -125 "$ENVSHIM" -- "$BATS_TEST_TMPDIR/capped"
	[[ "$output" == *"it has file capabilities"* ]]
}

@test "a #!/usr/bin/env script is its interpreter's agent: it keeps its key, its tools do not" {
	# npm installs claude and gemini as "#!/usr/bin/env node" scripts; env
	# must not become the launch root that takes the key from the agent.
	gh=ghp_abcdefghijklmnopqrstuvwxyz0123456789
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	for line in '#!/usr/bin/env python3' '#!/usr/bin/env -S python3 -O'; do
		printf '%s\n' "$line" 'import os, subprocess, sys' \
		    'print("agent sees", os.environ.get("GITHUB_TOKEN"), sys.argv[1:], sys.flags.optimize)' \
		    'subprocess.run(["/usr/bin/env"])' >"$BATS_TEST_TMPDIR/bin/pyagent"
		chmod 755 "$BATS_TEST_TMPDIR/bin/pyagent"
		run -0 env -i HOME="$HOME" PATH="$BATS_TEST_TMPDIR/bin:/usr/bin:/bin" \
		    XDG_STATE_HOME="$BATS_TEST_TMPDIR/state" GITHUB_TOKEN="$gh" \
		    "$ENVSHIM" -- pyagent one 'two words'
		opt=0
		[[ "$line" != *-O ]] || opt=1
		grep -qxF "agent sees $gh ['one', 'two words'] $opt" <<<"$output"
		grep -qx "LD_PRELOAD=$BUILD/libenvshim.so" <<<"$output"
		run ! grep -q -e GITHUB_TOKEN -e "$gh" <<<"$(grep -v '^agent sees' <<<"$output")"
	done
}

@test "a shell as the agent keeps its key, but the shells it starts do not" {
	mkdir "$BATS_TEST_TMPDIR/ws"
	cd "$BATS_TEST_TMPDIR/ws"
	p=$(policy_file ws/p <<<'sandbox off')
	export XDG_STATE_HOME="$BATS_TEST_TMPDIR/state"
	run -0 env GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 \
		"$ENVSHIM" --policy "$p" -- /bin/bash -c \
		'echo "outer=$GITHUB_TOKEN"; /bin/bash -c "echo inner=\$GITHUB_TOKEN"; exec /bin/bash -c "echo exec=\$GITHUB_TOKEN"'
	# The agent itself keeps it (the set-up works)...
	grep -qx 'outer=ghp_abcdefghijklmnopqrstuvwxyz0123456789' <<<"$output"
	# ...but a shell it runs is a tool like any other...
	grep -qx 'inner=' <<<"$output"
	# ...while its own exec in place hands the agent on (a wrapper).
	grep -qx 'exec=ghp_abcdefghijklmnopqrstuvwxyz0123456789' <<<"$output"
}

@test "a wrapper that execs the agent in place (a version manager's shim) leaves it the agent" {
	mkdir "$BATS_TEST_TMPDIR/ws"
	cd "$BATS_TEST_TMPDIR/ws"
	cat >agent.py <<'PY'
import os, subprocess, sys
key = os.environ.get("GITHUB_TOKEN", "")
if sys.argv[1:] == ["again"]:
    print("relaunch=" + key, flush=True)
    sys.exit(0)
print("agent=" + key, "ns=" + os.readlink("/proc/self/ns/user"), flush=True)
subprocess.run([sys.executable, os.path.abspath(__file__), "again"])
subprocess.run(["bash", "-c", 'echo "tool=$GITHUB_TOKEN"'])
PY
	# Two hops in place, as pyenv, asdf or Volta make them: sh, env, python.
	printf '#!/bin/sh\nexec /usr/bin/env python3 "%s/agent.py"\n' "$PWD" >wrapper
	chmod +x wrapper
	export XDG_STATE_HOME="$BATS_TEST_TMPDIR/state"
	run -0 env GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 \
		"$ENVSHIM" -- ./wrapper
	grep -qx 'relaunch=ghp_abcdefghijklmnopqrstuvwxyz0123456789' <<<"$output"
	grep -qx 'tool=' <<<"$output"
	# The agent ran where it was started, not in the sandbox.
	grep -qxF "agent=ghp_abcdefghijklmnopqrstuvwxyz0123456789 ns=$(readlink /proc/self/ns/user)" <<<"$output"
	# Each hop is on record as the agent; the tool's shell went to the sandbox.
	python3 - "$XDG_STATE_HOME/envshim/audit.jsonl" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
hops = [r for r in recs if r.get("agent")]
assert [r["action"] for r in hops][:2] == ["run", "run"], recs
tool = [r for r in recs if r["argv"][:2] == ["bash", "-c"]]
assert tool and tool[0]["action"] == "sandbox" and not tool[0]["agent"], tool
PY
}
