#!/usr/bin/env bats
# Code a sandboxed command plants and the agent itself then runs (issue 20,
# item 6).  The agent runs outside the sandbox, so whatever it launches
# must not execute a file the model's commands could write: repository
# config and hooks in a workspace that had no .git, a program where the
# agent's own PATH lookup lands, a module an interpreter imports from the
# working directory.  Each case: the agent (a Python launch root, as the
# other tests' agents) runs `bash -c PLANT`, which the shim sends into the
# sandbox, then runs a program itself.  The planted program appends its
# mount namespace to the workspace's `ran` file and tries to write the
# real home.  Every case runs as nobody and as root.

load ../common

setup() {
	# Outside /tmp: the sandbox's /tmp is the session's, and a home or
	# workspace under it would hide what the planted program did.
	R=$(mktemp -d /var/tmp/envshim-plant.XXXXXX)
	chmod 755 "$R"
	mkdir -p "$R/bin"
	cp "$SHIM" "$HELPER" "$BUILD/progs/static_agent" "$ENVSHIM" "$R/bin/"
	chmod -R a+rX "$R/bin"
	SHIM=$R/bin/libenvshim.so
}

teardown() {
	cd /
	rm -rf "$R"
}

# as WHO: a home and a workspace (without .git) for nobody or root, and
# AS, the prefix that runs a command as that user.
as() {
	H=$R/$1/home WS=$R/$1/ws ST=$R/$1/state
	rm -rf "$WS"
	mkdir -p "$H" "$WS" "$ST"
	printf '[user]\n\tname = from-home\n\temail = home@example.org\n' >"$H/.gitconfig"
	AS=()
	if [ "$1" = nobody ]; then
		AS=(as_nobody)
		[ "$(id -u)" != 0 ] || chown -R 65534:65534 "$R/$1"
	fi
	cd "$WS"
}

# The planted program: a Python script (a shell script would be a shell,
# which the shim already sends to the sandbox from anywhere), run as a
# hook, an alias, a program found on PATH, or imported as a module.
EVIL='import os
open(os.environ["WS"] + "/ran", "a").write(os.readlink("/proc/self/ns/mnt") + "\n")
try:
    open(os.environ["HOME"] + "/pwned", "w").write("planted code ran here\n")
except OSError:
    pass'

# agent PLANT CMD...: the agent runs `bash -c PLANT` (sandboxed), then
# CMD itself, from the workspace; prints its own mount namespace first.
# AGENT_ENV (NAME=VALUE words) is added to CMD's environment only, as an
# agent hardens its own git.
agent() {
	local plant=$1
	shift
	"${AS[@]}" env -i HOME="$H" PATH="$WS/node_modules/.bin:/usr/bin:/bin" \
		LANG=C.UTF-8 XDG_STATE_HOME="$ST" WS="$WS" EVIL="$EVIL" \
		AGENT_ENV="${AGENT_ENV:-}" ${POLICY:+ENVSHIM_POLICY=$POLICY} \
		LD_PRELOAD="$SHIM" /usr/bin/python3 -c '
import os, subprocess, sys
print("agent", os.readlink("/proc/self/ns/mnt"), flush=True)
subprocess.run(["bash", "-c", sys.argv[1]], check=True)
env = dict(os.environ)
env.update(w.split("=", 1) for w in os.environ.get("AGENT_ENV", "").split())
r = subprocess.run(sys.argv[2:], env=env, capture_output=True, text=True)
print("rc", r.returncode)
print(r.stdout, end="")
print(r.stderr, end="", file=sys.stderr)' "$plant" "$@"
}

# The planted program ran (so the case proves something), never in the
# agent's mount namespace, and the real home was not written.
confined() {
	local mine
	mine=$(grep '^agent ' <<<"$output" | cut -d' ' -f2)
	[ -n "$mine" ]
	[ -s "$WS/ran" ] || { echo "the planted program never ran"; return 1; }
	if grep -qxF "$mine" "$WS/ran"; then
		echo "the planted program ran in the agent's namespace: $(cat "$WS/ran")"
		return 1
	fi
	[ ! -e "$H/pwned" ] || { echo "the planted program wrote the real home"; return 1; }
}

# A .git the sandboxed command makes itself: `ro .git/config` has nothing
# to cover when the workspace had none.
GITINIT='git init -q . && printf "#!/usr/bin/python3\n%s\n" "$EVIL" >evil && chmod +x evil'

@test "core.fsmonitor in a .git the sandbox made: the agent's own git status does not run it outside" {
	local who
	for who in nobody root; do
		as $who
		run agent "$GITINIT && git config core.fsmonitor \"\$PWD/evil\"" git status --short
		echo "$who: $output"
		[ "$status" -eq 0 ]
		confined
	done
}

@test "a hook under core.hooksPath and an alias: the agent's own commit and alias do not run them outside" {
	local who
	for who in nobody root; do
		as $who
		run agent "$GITINIT && mkdir hooks && cp evil hooks/pre-commit && git config core.hooksPath \"\$PWD/hooks\"" \
			git commit -q --allow-empty -m x
		echo "$who hook: $output"
		[ "$status" -eq 0 ]
		confined
		as $who
		run agent "$GITINIT && git config alias.st \"!\$PWD/evil\"" git st
		echo "$who alias: $output"
		[ "$status" -eq 0 ]
		confined
	done
}

@test "a program planted in node_modules/.bin, which the agent finds on its PATH, is not run outside" {
	local who
	for who in nobody root; do
		as $who
		run agent 'mkdir -p node_modules/.bin && printf "#!/usr/bin/python3\n%s\n" "$EVIL" >node_modules/.bin/prettier && chmod +x node_modules/.bin/prettier' \
			prettier --check .
		echo "$who: $output"
		[ "$status" -eq 0 ]
		confined
	done
}

@test "a module planted in the working directory, which the agent's python3 imports, is not run outside" {
	local who
	for who in nobody root; do
		as $who
		run agent 'printf "%s\n" "$EVIL" >json.py' python3 -c 'import json'
		echo "$who: $output"
		[ "$status" -eq 0 ]
		confined
	done
}

@test "contain mode: the static agent's own git does not run the fsmonitor a sandboxed command set" {
	local who
	for who in nobody root; do
		as $who
		"${AS[@]}" env -i HOME="$H" PATH=/usr/bin:/bin WS="$WS" EVIL="$EVIL" \
			XDG_STATE_HOME="$ST" "$R/bin/envshim" --contain -- \
			"$R/bin/static_agent" run /bin/bash -c "$GITINIT && git config core.fsmonitor \"\$PWD/evil\""
		[ -x "$WS/evil" ]
		run "${AS[@]}" env -i HOME="$H" PATH=/usr/bin:/bin WS="$WS" \
			XDG_STATE_HOME="$ST" "$R/bin/envshim" --contain -- \
			"$R/bin/static_agent" run /usr/bin/git status --short
		echo "$who: $output"
		[ "$status" -eq 0 ]
		# The agent's namespace is contain mode's own: the home tells.
		[ -s "$WS/ran" ]
		[ ! -e "$H/pwned" ]
	done
}

@test "the agent's own git keeps the GIT_CONFIG_* hardening it set (Gemini CLI's)" {
	local who
	for who in nobody root; do
		as $who
		AGENT_ENV='GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/dev/null' \
			run agent 'git init -q .' git config --show-origin --get-regexp '^(user\.name|core\.hookspath)$'
		echo "$who: $output"
		[ "$status" -eq 0 ]
		# The hooks path the agent set reached git, the home's config did not.
		grep -q 'command line:.*core.hookspath /dev/null' <<<"$output"
		lacks from-home
	done
}

# pol WHO LINE...: the agent's policy file, owned by its user.
pol() {
	local who=$1
	shift
	POLICY=$R/$who/policy
	printf '%s\n' "$@" >"$POLICY"
	chmod 644 "$POLICY"
	[ "$who" != nobody ] || [ "$(id -u)" != 0 ] || chown 65534:65534 "$POLICY"
}

# What Gemini CLI gives its own git (getSafeGitEnv, gemini-cli 0.61).
GEMINI_GIT='GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_SYSTEM=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_COUNT=8 GIT_CONFIG_KEY_0=credential.helper GIT_CONFIG_VALUE_0= GIT_CONFIG_KEY_1=core.fsmonitor GIT_CONFIG_VALUE_1= GIT_CONFIG_KEY_2=core.hooksPath GIT_CONFIG_VALUE_2= GIT_CONFIG_KEY_3=core.sshCommand GIT_CONFIG_VALUE_3= GIT_CONFIG_KEY_4=core.pager GIT_CONFIG_VALUE_4=cat GIT_CONFIG_KEY_5=core.editor GIT_CONFIG_VALUE_5= GIT_CONFIG_KEY_6=sequence.editor GIT_CONFIG_VALUE_6= GIT_CONFIG_KEY_7=diff.external GIT_CONFIG_VALUE_7='

@test "sandbox shells, the way back: the agent's own git runs outside again, keeping the hardening it set" {
	local who mine
	for who in nobody root; do
		as $who
		pol $who 'sandbox shells'
		# What it gives up: the planted fsmonitor runs in the agent's namespace.
		run agent "$GITINIT && git config core.fsmonitor \"\$PWD/evil\"" git status --short
		echo "$who: $output"
		[ "$status" -eq 0 ]
		mine=$(grep '^agent ' <<<"$output" | cut -d' ' -f2)
		grep -qxF "$mine" "$WS/ran"
		rm -f "$H/pwned"
		# Gemini CLI's hardening reaches its git outside too, and runs nothing planted.
		as $who
		AGENT_ENV=$GEMINI_GIT run agent "$GITINIT && git config core.fsmonitor \"\$PWD/evil\"" \
			git config --show-origin --get-regexp '^(user\.name|core\.(fsmonitor|pager))$'
		echo "$who gemini: $output"
		[ "$status" -eq 0 ]
		grep -q 'command line:.*core.fsmonitor $' <<<"$output"
		grep -q 'command line:.*core.pager cat' <<<"$output"
		lacks from-home
		AGENT_ENV=$GEMINI_GIT run agent true git status --short
		[ "$status" -eq 0 ]
		[ ! -e "$WS/ran" ]
		unset POLICY
	done
}

@test "envshim's own files in the workspace: a build tree or a --policy file there is refused at the start" {
	local who
	for who in nobody root; do
		as $who
		# A build tree in the project: a sandboxed command replaces the
		# helper, which the agent's next launch executes, outside.
		mkdir -p "$WS/build"
		cp "$R/bin/envshim" "$R/bin/libenvshim.so" "$R/bin/envshim-sandbox" "$WS/build/"
		[ "$who" != nobody ] || [ "$(id -u)" != 0 ] || chown -R 65534:65534 "$WS/build"
		run "${AS[@]}" env -i HOME="$H" PATH=/usr/bin:/bin WS="$WS" XDG_STATE_HOME="$ST" \
			"$WS/build/envshim" -- /usr/bin/python3 -c '
import os, subprocess
print("agent", os.readlink("/proc/self/ns/mnt"), flush=True)
subprocess.run(["bash", "-c", "rm -f build/envshim-sandbox && printf \"#!/bin/sh\\necho planted helper ran >>$WS/ran\\n\" >build/envshim-sandbox && chmod +x build/envshim-sandbox"])
subprocess.run(["bash", "-c", "true"])'
		echo "$who: $output"
		[ "$status" -eq 125 ]
		grep -q "^envshim: $WS/build/envshim is inside the working directory $WS\.$" <<<"$output"
		[ ! -e "$WS/ran" ]
		# A policy the commands could rewrite for the next run.
		printf 'keep HARMLESS\n' >"$WS/p.policy"
		[ "$who" != nobody ] || [ "$(id -u)" != 0 ] || chown 65534:65534 "$WS/p.policy"
		run "${AS[@]}" env -i HOME="$H" PATH=/usr/bin:/bin XDG_STATE_HOME="$ST" \
			"$R/bin/envshim" --policy "$WS/p.policy" -- /usr/bin/true
		[ "$status" -eq 125 ]
		grep -q "^envshim: $WS/p.policy is inside the working directory" <<<"$output"
		# The same policy outside the project is used.
		cp -p "$WS/p.policy" "$R/$who/p.policy"
		run "${AS[@]}" env -i HOME="$H" PATH=/usr/bin:/bin XDG_STATE_HOME="$ST" \
			"$R/bin/envshim" --policy "$R/$who/p.policy" -- /usr/bin/true
		[ "$status" -eq 0 ]
	done
}
