#!/usr/bin/env bats
# Program rules: a program the user configured (an MCP server) gets what
# its rule keeps when the agent itself starts it, and so do its children;
# a shell the agent starts, or one the model runs typing the same command,
# does not.  A real stdio MCP server (tests/progs/mcp_server.py) started by
# a plain test agent (tests/progs/mcp_agent.c), as nobody, from outside /tmp
# (the sandbox's /tmp is private, and npx's cache must be seen inside).
# What the model could have written (files a sandboxed command can write
# or create) never gets a rule's names; those tests run as nobody and, when
# the suite is root, as root too (each_user).

load ../common

TOK=ghp_0123456789abcdefghijklmnopqrstuvwxyzAB
OAI=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD
DBU=postgres://u:hunter2@db.example:5432/app

setup() {
	nobody_dirs
	# Home, workspace and tools outside /tmp, as a user's are; the tools in
	# the home, since a session's /var/tmp is its own too.
	V=$(mktemp -d /var/tmp/envshim-prog.XXXXXX)
	chmod 755 "$V"
	mkdir -p "$V/home" "$V/ws" "$V/home/tools"
	cp "$ROOT/tests/progs/mcp_server.py" "$ROOT/tests/progs/mcp_launch.js" \
		"$BUILD/progs/mcp_agent" "$V/home/tools/"
	chmod -R a+rX "$V/home/tools"
	[ "$(id -u)" != 0 ] || chown -R 65534:65534 "$V/home" "$V/ws"
	HOME=$V/home
	SRV=$V/home/tools/mcp_server.py
	AGENT=$V/home/tools/mcp_agent
	cd "$V/ws"
	OUTER_NS=$(readlink /proc/self/ns/user)
	WHO=nobody
	STATE=$BATS_TEST_TMPDIR/state
}

teardown() {
	[ -z "${REGPID:-}" ] || kill "$REGPID" 2>/dev/null || true
	[ -z "${BGPID:-}" ] || kill -9 "$BGPID" 2>/dev/null || true
	cd /
	rm -rf "$V"
}

# as_who CMD...: CMD as the user the test runs its agent as ($WHO).
as_who() {
	if [ "$WHO" = root ]; then "$@"; else as_nobody "$@"; fi
}

# each_user FUNCTION: FUNCTION as nobody, then (the suite being root) as
# root, each with a state directory of its own (a kept layer is its user's)
# and owning the home and the workspace (root in the sandbox has no
# capability: another user's files are as closed to it as to anyone).
each_user() {
	local u
	for u in nobody $([ "$(id -u)" != 0 ] || echo root); do
		WHO=$u
		STATE=$V/state-$u
		mkdir -p "$STATE"
		if [ "$(id -u)" = 0 ]; then
			[ "$u" = root ] && chown -R 0:0 "$V/home" "$V/ws" ||
				chown 65534:65534 "$STATE"
		fi
		echo "# as $u"
		"$1"
	done
}

# policy LINE...: the policy file every run below names.
policy() {
	printf '%s\n' "$@" >"$V/policy"
	chmod 644 "$V/policy"
	POL=ENVSHIM_POLICY=$V/policy
}

# mcp [VAR=VALUE...] -- ARGS: the test agent, as nobody, under the shim.
mcp() {
	local vars=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do vars+=("$1"); shift; done
	shift
	as_who env -i HOME="$HOME" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
		XDG_STATE_HOME="$STATE" GITHUB_TOKEN="$GH" \
		SSH_AUTH_SOCK=/tmp/agent.sock HARMLESS=yes "$POL" "${vars[@]}" \
		LD_PRELOAD="$SHIM" "$AGENT" "$@"
}

# What the server reported, by a dotted path into its answer's "report".
rep() {
	python3 -c '
import json, sys
line = [l for l in sys.stdin.read().split("\n") if l.startswith("server: ")][0]
d = json.loads(line[8:])["result"]["report"]
for k in sys.argv[1].split("."):
    d = d[k]
print(d)' "$1" <<<"$output"
}

# How the server reports a variable holding $1: never the value itself.
seen() {
	python3 -c 'import hashlib, sys; v = sys.argv[1]
print("set:%d:%s" % (len(v), hashlib.sha256(v.encode()).hexdigest()[:8]))' "$1"
}

records() {
	cat "$STATE/envshim/audit.jsonl"
}

# The name the answering server gave (serverInfo): which copy ran.
served_by() {
	python3 -c '
import json, sys
line = [l for l in sys.stdin.read().split("\n") if l.startswith("server: ")][0]
print(json.loads(line[8:])["result"]["serverInfo"]["name"])' <<<"$output"
}

@test "the server and its child get the token the agent set for it (MCP config env)" {
	policy "program mcp_server.py keep GITHUB_PERSONAL_ACCESS_TOKEN"
	run mcp -- -e GITHUB_PERSONAL_ACCESS_TOKEN="$TOK" -- "$SRV" \
		--report GITHUB_PERSONAL_ACCESS_TOKEN --report GITHUB_TOKEN --child
	[ "$status" -eq 0 ]
	[ "$(rep env.GITHUB_PERSONAL_ACCESS_TOKEN)" = "$(seen "$TOK")" ]
	[ "$(rep child.env.GITHUB_PERSONAL_ACCESS_TOKEN)" = "$(seen "$TOK")" ]
	# Only the names the rule keeps: the agent's other secrets stay out.
	[ "$(rep env.GITHUB_TOKEN)" = unset ]
	[ "$(rep child.env.GITHUB_TOKEN)" = unset ]
	# Run as today: not sandboxed, but as secret as the agent (undumpable).
	[ "$(rep userns)" = "$OUTER_NS" ]
	[ "$(rep dumpable)" = 0 ]
	run records
	grep '"path":"'"$SRV"'"' <<<"$output" | grep -F '"program":"'"$V"'/policy:1"' |
		grep -qF '"kept":[{"name":"GITHUB_PERSONAL_ACCESS_TOKEN","reason":"program","rule":"'"$V"'/policy:1"}]'
	lacks -F "$TOK"
	run "$ENVSHIM" log "$BATS_TEST_TMPDIR/state/envshim/audit.jsonl"
	[ "$status" -eq 0 ]
	grep -qx "   kept: GITHUB_PERSONAL_ACCESS_TOKEN (program rule $V/policy:1)" <<<"$output"
	grep -q "^\`- [0-9]* /usr/bin/python3 $SRV --report-only" <<<"$output"
	lacks -F "$TOK"
}

@test "without the rule the server loses the token, and the record says it was set for it" {
	policy "keep HARMLESS"
	run mcp -- -e GITHUB_PERSONAL_ACCESS_TOKEN="$TOK" -- "$SRV" \
		--report GITHUB_PERSONAL_ACCESS_TOKEN
	[ "$status" -eq 0 ]
	[ "$(rep env.GITHUB_PERSONAL_ACCESS_TOKEN)" = unset ]
	run records
	grep '"path":"'"$SRV"'"' <<<"$output" |
		grep -qF '"lost":[{"name":"GITHUB_PERSONAL_ACCESS_TOKEN","reason":"secret-name"}]'
	# The agent's own GITHUB_TOKEN was not set for the server: not "lost".
	lacks -F '"lost":[{"name":"GITHUB_TOKEN"'
	lacks -F "$TOK"
	run "$ENVSHIM" log "$BATS_TEST_TMPDIR/state/envshim/audit.jsonl"
	[ "$status" -eq 0 ]
	grep -qx "   lost: GITHUB_PERSONAL_ACCESS_TOKEN (secret-name); to let it through: program mcp_server.py keep GITHUB_PERSONAL_ACCESS_TOKEN" <<<"$output"
	lacks -F "$TOK"
}

@test "a shell the agent starts next gets none of the kept names, from its env or the one it built" {
	policy "program mcp_server.py keep GITHUB_PERSONAL_ACCESS_TOKEN OPENAI_API_KEY DATABASE_URL"
	# The token exported in the agent's environment, the others in the
	# environment it builds for the server - and hands the shell too.
	run mcp GITHUB_PERSONAL_ACCESS_TOKEN="$TOK" -- -e OPENAI_API_KEY="$OAI" \
		-e DATABASE_URL="$DBU" -s 'env; echo shell-done' -- "$SRV" \
		--report GITHUB_PERSONAL_ACCESS_TOKEN --report OPENAI_API_KEY --report DATABASE_URL
	[ "$status" -eq 0 ]
	[ "$(rep env.GITHUB_PERSONAL_ACCESS_TOKEN)" = "$(seen "$TOK")" ]
	[ "$(rep env.OPENAI_API_KEY)" = "$(seen "$OAI")" ]
	[ "$(rep env.DATABASE_URL)" = "$(seen "$DBU")" ]
	grep -qx shell-done <<<"$output"
	grep -qx HARMLESS=yes <<<"$output"
	lacks -e '^GITHUB_PERSONAL_ACCESS_TOKEN=' -e '^OPENAI_API_KEY=' -e '^DATABASE_URL=' \
		-e '^ENVSHIM_PROGRAM=' -e "$TOK" -e "$OAI" -e hunter2
}

@test "a shell command the model runs that starts the same server gets nothing" {
	policy "program mcp_server.py keep GITHUB_PERSONAL_ACCESS_TOKEN" \
		"program $SRV keep GITHUB_PERSONAL_ACCESS_TOKEN"
	local cmd="$SRV --report-only --report GITHUB_PERSONAL_ACCESS_TOKEN"
	run mcp GITHUB_PERSONAL_ACCESS_TOKEN="$TOK" -- -s "$cmd" -s "exec $cmd" \
		-- "$SRV" --report GITHUB_PERSONAL_ACCESS_TOKEN
	[ "$status" -eq 0 ]
	[ "$(rep env.GITHUB_PERSONAL_ACCESS_TOKEN)" = "$(seen "$TOK")" ]
	[ "$(grep -c '"GITHUB_PERSONAL_ACCESS_TOKEN": "unset"' <<<"$output")" -eq 2 ]
	# Outside the sandbox too: what matches is who starts it, not the words.
	policy "sandbox off" "program mcp_server.py keep GITHUB_PERSONAL_ACCESS_TOKEN"
	run mcp GITHUB_PERSONAL_ACCESS_TOKEN="$TOK" -- -s "$cmd" -- "$SRV"
	[ "$status" -eq 0 ]
	[ "$(grep -c '"GITHUB_PERSONAL_ACCESS_TOKEN": "unset"' <<<"$output")" -eq 1 ]
	lacks -F "$TOK"
}

@test "a matched subtree keeps its sandbox through sh -c, and the kept names go in with it" {
	policy "program mcp_server.py keep GITHUB_PERSONAL_ACCESS_TOKEN"
	run mcp -- -e GITHUB_PERSONAL_ACCESS_TOKEN="$TOK" -- "$SRV" \
		--report GITHUB_PERSONAL_ACCESS_TOKEN --child-shell
	[ "$status" -eq 0 ]
	[ "$(rep userns)" = "$OUTER_NS" ]
	[ "$(rep child.userns)" != "$OUTER_NS" ]
	[[ "$(rep child.userns)" == user:* ]]
	[ "$(rep child.env.GITHUB_PERSONAL_ACCESS_TOKEN)" = "$(seen "$TOK")" ]
	run records
	grep '"path":"/bin/sh"' <<<"$output" | grep '"action":"sandbox"' |
		grep -qF '"program":"'"$V"'/policy:1"'
	grep '"inside":true' <<<"$output" | grep -qF '"kept":[{"name":"GITHUB_PERSONAL_ACCESS_TOKEN","reason":"program","rule":"'"$V"'/policy:1"}]'
}

@test "a server that execs itself again keeps the token" {
	policy "program mcp_server.py keep GITHUB_PERSONAL_ACCESS_TOKEN"
	run mcp -- -e GITHUB_PERSONAL_ACCESS_TOKEN="$TOK" -- "$SRV" --reexec \
		--report GITHUB_PERSONAL_ACCESS_TOKEN --child
	[ "$status" -eq 0 ]
	[ "$(rep env.GITHUB_PERSONAL_ACCESS_TOKEN)" = "$(seen "$TOK")" ]
	[ "$(rep child.env.GITHUB_PERSONAL_ACCESS_TOKEN)" = "$(seen "$TOK")" ]
	run records
	[ "$(grep -c '"path":"/usr/bin/python3".*"program":' <<<"$output")" -ge 1 ]
}

@test "leading arguments name the script: python3 SERVER matches, python3 OTHER does not" {
	cp "$SRV" "$V/home/tools/other.py"
	policy "program python3 $SRV keep GITHUB_PERSONAL_ACCESS_TOKEN"
	run mcp -- -e GITHUB_PERSONAL_ACCESS_TOKEN="$TOK" -- python3 "$SRV" \
		--report GITHUB_PERSONAL_ACCESS_TOKEN
	[ "$status" -eq 0 ]
	[ "$(rep env.GITHUB_PERSONAL_ACCESS_TOKEN)" = "$(seen "$TOK")" ]
	run mcp -- -e GITHUB_PERSONAL_ACCESS_TOKEN="$TOK" -- python3 "$V/home/tools/other.py" \
		--report GITHUB_PERSONAL_ACCESS_TOKEN
	[ "$status" -eq 0 ]
	[ "$(rep env.GITHUB_PERSONAL_ACCESS_TOKEN)" = unset ]
}

@test "a launcher that starts the server through sh -c (node, as npx does) hands it on" {
	policy "program node $V/home/tools/mcp_launch.js keep GITHUB_PERSONAL_ACCESS_TOKEN"
	run mcp -- -e GITHUB_PERSONAL_ACCESS_TOKEN="$TOK" -- node "$V/home/tools/mcp_launch.js" \
		"$SRV" --report GITHUB_PERSONAL_ACCESS_TOKEN --child
	[ "$status" -eq 0 ]
	[ "$(rep env.GITHUB_PERSONAL_ACCESS_TOKEN)" = "$(seen "$TOK")" ]
	[ "$(rep child.env.GITHUB_PERSONAL_ACCESS_TOKEN)" = "$(seen "$TOK")" ]
	[ "$(rep userns)" != "$OUTER_NS" ]
}

@test "npx -y PACKAGE: the server npm starts through sh -c gets the token, a shell does not" {
	mkdir -p "$V/home/pkg"
	cp "$SRV" "$V/home/pkg/"
	printf '{"name":"envshim-test-mcp","version":"1.0.0","bin":{"envshim-test-mcp":"mcp_server.py"}}\n' \
		>"$V/home/pkg/package.json"
	chmod -R a+rX "$V/home/pkg"
	# npm makes the bin executable in place: the package is the user's.
	[ "$(id -u)" != 0 ] || chown -R 65534:65534 "$V/home/pkg"
	policy "program npx -y $V/home/pkg keep GITHUB_PERSONAL_ACCESS_TOKEN"
	run mcp -- -e GITHUB_PERSONAL_ACCESS_TOKEN="$TOK" \
		-s 'echo "shell: ${GITHUB_PERSONAL_ACCESS_TOKEN:-none}"' \
		-- npx -y "$V/home/pkg" --report GITHUB_PERSONAL_ACCESS_TOKEN --child
	[ "$status" -eq 0 ]
	[ "$(rep env.GITHUB_PERSONAL_ACCESS_TOKEN)" = "$(seen "$TOK")" ]
	[ "$(rep child.env.GITHUB_PERSONAL_ACCESS_TOKEN)" = "$(seen "$TOK")" ]
	grep -qx 'shell: none' <<<"$output"
}

@test "a tool cannot forge the mark: ENVSHIM_PROGRAM it sets is dropped" {
	# The tool outside the sandbox (in it, what it sets is its own, and
	# reaches only the sandbox): `sandbox shells`.
	policy "program mcp_server.py keep GITHUB_PERSONAL_ACCESS_TOKEN" "sandbox shells"
	# The agent is spawn; the test agent is its tool, and sets the mark
	# and the token for a server it starts itself.
	run as_nobody env -i HOME="$HOME" PATH=/usr/local/bin:/usr/bin:/bin \
		XDG_STATE_HOME="$BATS_TEST_TMPDIR/state" "$POL" LD_PRELOAD="$SHIM" \
		"$SPAWN" execve "$AGENT" -e "ENVSHIM_PROGRAM=0:$V/policy:1" \
		-e GITHUB_PERSONAL_ACCESS_TOKEN="$TOK" -- "$SRV" --report GITHUB_PERSONAL_ACCESS_TOKEN
	[ "$status" -eq 0 ]
	[ "$(rep env.GITHUB_PERSONAL_ACCESS_TOKEN)" = unset ]
	[ "$(rep dumpable)" = 1 ]
	run records
	grep '"path":"'"$SRV"'"' <<<"$output" | grep -qF '{"name":"ENVSHIM_PROGRAM","reason":"locked"}'
	lacks -F '"program":'
}

@test "a rule naming a shell is refused at load, with file:line and the reason" {
	policy "keep HARMLESS" "program bash -c serve keep GITHUB_PERSONAL_ACCESS_TOKEN"
	run mcp -- -- "$SRV"
	[ "$status" -ne 0 ]
	[[ "$output" == *"refused $SRV: bad policy: $V/policy:2: program: bash is a shell, and a shell runs whatever it is told; name the program it starts"* ]]
}

@test "a named program that is a shell script, or a link to a shell, is refused at load" {
	printf '#!/bin/sh\nexec "$@"\n' >"$V/home/tools/mcp-wrapper"
	ln -s /bin/dash "$V/home/tools/mcp-dash"
	chmod 755 "$V/home/tools/mcp-wrapper"
	policy "keep HARMLESS" "program $V/home/tools/mcp-wrapper keep GITHUB_PERSONAL_ACCESS_TOKEN"
	run mcp -- -- "$SRV"
	[ "$status" -ne 0 ]
	[[ "$output" == *"bad policy: $V/policy:2: program $V/home/tools/mcp-wrapper is a shell script, and a shell runs whatever it is told; name the program it starts"* ]]
	# By name, found on PATH as the agent would find it.
	policy "program mcp-dash keep GITHUB_PERSONAL_ACCESS_TOKEN"
	run mcp PATH="$V/home/tools:/usr/bin:/bin" -- -- "$SRV"
	[ "$status" -ne 0 ]
	[[ "$output" == *"bad policy: $V/policy:1: program mcp-dash leads to a shell, and a shell runs whatever it is told; name the program it starts"* ]]
}

@test "once the agent has exited, envshim says which program lost what, and the line to add" {
	policy "keep HARMLESS"
	run as_nobody env -i HOME="$HOME" PATH=/usr/local/bin:/usr/bin:/bin \
		XDG_STATE_HOME="$BATS_TEST_TMPDIR/state" GITHUB_TOKEN="$GH" "$ENVSHIM" \
		--policy "$V/policy" -- "$AGENT" -e GITHUB_PERSONAL_ACCESS_TOKEN="$TOK" \
		-e OPENAI_API_KEY="$OAI" -s 'exit 0' -- "$SRV" --report GITHUB_PERSONAL_ACCESS_TOKEN
	[ "$status" -eq 0 ]
	[ "$(rep env.GITHUB_PERSONAL_ACCESS_TOKEN)" = unset ]
	# After the agent's own output, one line for the one program.
	[[ "${lines[0]}" == "server: "* ]]
	[ "${lines[-1]}" = "envshim: mcp_server.py lost GITHUB_PERSONAL_ACCESS_TOKEN (secret-name), OPENAI_API_KEY (secret-name); to let it through: program mcp_server.py keep GITHUB_PERSONAL_ACCESS_TOKEN OPENAI_API_KEY" ]
	[ "$(grep -c '^envshim: .* lost ' <<<"$output")" -eq 1 ]
	lacks -e "$TOK" -e "$OAI" -e 'envshim: sh '
	# With the line added, nothing is lost and nothing is said.
	policy "program mcp_server.py keep GITHUB_PERSONAL_ACCESS_TOKEN OPENAI_API_KEY"
	run as_nobody env -i HOME="$HOME" PATH=/usr/local/bin:/usr/bin:/bin \
		XDG_STATE_HOME="$BATS_TEST_TMPDIR/state" "$ENVSHIM" --policy "$V/policy" \
		-- "$AGENT" -e GITHUB_PERSONAL_ACCESS_TOKEN="$TOK" -e OPENAI_API_KEY="$OAI" \
		-- "$SRV" --report GITHUB_PERSONAL_ACCESS_TOKEN
	[ "$status" -eq 0 ]
	[ "$(rep env.GITHUB_PERSONAL_ACCESS_TOKEN)" = "$(seen "$TOK")" ]
	lacks -e '^envshim: .* lost '
	# The agent's status comes back, and a signal that ended it ends envshim.
	run as_nobody env -i HOME="$HOME" PATH=/usr/bin:/bin XDG_STATE_HOME="$BATS_TEST_TMPDIR/state" \
		"$ENVSHIM" --policy "$V/policy" -- "$SPAWN" execve /bin/false
	[ "$status" -eq 1 ]
	run as_nobody env -i HOME="$HOME" PATH=/usr/bin:/bin XDG_STATE_HOME="$BATS_TEST_TMPDIR/state" \
		"$ENVSHIM" --policy "$V/policy" -- python3 -c 'import os, signal; os.kill(os.getpid(), signal.SIGTERM)'
	[ "$status" -eq 143 ]
}

@test "a program of that name in the workspace, which the model's shells write, is not matched" {
	# A project's MCP configuration naming ./mcp_server.py, or a PATH that
	# finds the workspace's copy first: the model could have written it.
	cp "$SRV" "$V/ws/mcp_server.py"
	chmod 755 "$V/ws/mcp_server.py"
	policy "program mcp_server.py keep GITHUB_PERSONAL_ACCESS_TOKEN"
	run mcp -- -e GITHUB_PERSONAL_ACCESS_TOKEN="$TOK" -- ./mcp_server.py \
		--report GITHUB_PERSONAL_ACCESS_TOKEN
	[ "$status" -eq 0 ]
	[ "$(rep env.GITHUB_PERSONAL_ACCESS_TOKEN)" = unset ]
	run mcp PATH="$V/ws:/usr/bin:/bin" -- -e GITHUB_PERSONAL_ACCESS_TOKEN="$TOK" -- mcp_server.py \
		--report GITHUB_PERSONAL_ACCESS_TOKEN
	[ "$status" -eq 0 ]
	[ "$(rep env.GITHUB_PERSONAL_ACCESS_TOKEN)" = unset ]
	# Control: the same file outside the workspace is.
	run mcp -- -e GITHUB_PERSONAL_ACCESS_TOKEN="$TOK" -- "$SRV" \
		--report GITHUB_PERSONAL_ACCESS_TOKEN
	[ "$status" -eq 0 ]
	[ "$(rep env.GITHUB_PERSONAL_ACCESS_TOKEN)" = "$(seen "$TOK")" ]
}

@test "in a matched subtree, a program in the workspace gets none of the rule's names" {
	# npm runs a project .npmrc's script-shell: the model's shells could
	# have written both.
	cp "$SRV" "$V/ws/evil.py"
	chmod 755 "$V/ws/evil.py"
	policy "program mcp_server.py keep GITHUB_PERSONAL_ACCESS_TOKEN"
	run mcp -- -e GITHUB_PERSONAL_ACCESS_TOKEN="$TOK" -- "$SRV" \
		--report GITHUB_PERSONAL_ACCESS_TOKEN --child-exec "$V/ws/evil.py"
	[ "$status" -eq 0 ]
	[ "$(rep env.GITHUB_PERSONAL_ACCESS_TOKEN)" = "$(seen "$TOK")" ]
	[ "$(rep child.env.GITHUB_PERSONAL_ACCESS_TOKEN)" = unset ]
	# Control: the same program outside the workspace keeps them.
	run mcp -- -e GITHUB_PERSONAL_ACCESS_TOKEN="$TOK" -- "$SRV" \
		--report GITHUB_PERSONAL_ACCESS_TOKEN --child-exec "$SRV"
	[ "$status" -eq 0 ]
	[ "$(rep child.env.GITHUB_PERSONAL_ACCESS_TOKEN)" = "$(seen "$TOK")" ]
}

# ---- what the model could have written never gets a rule's names ----

# no_names: the last run's server, if it ran at all, got none of the
# rule's names.  A planted file is no configured program: under sandbox
# all it goes to the sandbox, where a session's or layer's own directory
# is hidden, so it may not run.
no_names() {
	lacks -F "$TOK"
	if [[ "$output" == *"server: "* ]]; then
		[ "$(rep env.GITHUB_PERSONAL_ACCESS_TOKEN)" = unset ]
	else
		[[ "$output" == *"No such file or directory"* ]]
	fi
}

# plant_cmd FILE: the shell command that copies the server to FILE.
plant_cmd() {
	printf 'mkdir -p "$(dirname "%s")" && cp %s "%s" && chmod 755 "%s"' "$1" "$SRV" "$1" "$1"
}

files_planted_in_the_session() {
	policy "program mcp_server.py keep GITHUB_PERSONAL_ACCESS_TOKEN"
	# A sandboxed command writes copies to /tmp (the session's, the agent's
	# TMPDIR) and to the home (the session's layer); the project's MCP
	# configuration then names them, as the model can make it do.
	run mcp -- -b "$(plant_cmd '$TMPDIR/mcp_server.py')" \
		-e GITHUB_PERSONAL_ACCESS_TOKEN="$TOK" -- @TMPDIR@/mcp_server.py \
		--report GITHUB_PERSONAL_ACCESS_TOKEN
	[ "$status" -eq 0 ]
	[[ "$(rep pid)" == [0-9]* ]]
	[ "$(rep env.GITHUB_PERSONAL_ACCESS_TOKEN)" = unset ]
	run mcp -- -b "$(plant_cmd '$HOME/planted/mcp_server.py')" \
		-e GITHUB_PERSONAL_ACCESS_TOKEN="$TOK" -- @SESSION@/home/planted/mcp_server.py \
		--report GITHUB_PERSONAL_ACCESS_TOKEN
	lacks -F "$TOK"
	no_names
	# The real server reached through a link the model can swap.
	run mcp -- -b "ln -sf $SRV ./mcp_server.py" -e GITHUB_PERSONAL_ACCESS_TOKEN="$TOK" \
		-- "$V/ws/mcp_server.py" --report GITHUB_PERSONAL_ACCESS_TOKEN
	[ "$status" -eq 0 ]
	[ "$(rep env.GITHUB_PERSONAL_ACCESS_TOKEN)" = unset ]
	rm -f "$V/ws/mcp_server.py"
	# The record says why the rule's names stayed out.
	run records
	grep -F '"path":"'"$V/ws/mcp_server.py"'"' <<<"$output" |
		grep -qF '{"name":"GITHUB_PERSONAL_ACCESS_TOKEN","reason":"writable"}'
	# Control: the real server, in the same kind of run, gets it.
	run mcp -- -b 'true' -e GITHUB_PERSONAL_ACCESS_TOKEN="$TOK" -- "$SRV" \
		--report GITHUB_PERSONAL_ACCESS_TOKEN
	[ "$status" -eq 0 ]
	[ "$(rep env.GITHUB_PERSONAL_ACCESS_TOKEN)" = "$(seen "$TOK")" ]
	lacks -F "$TOK"
}

@test "a program of that name the model wrote to the session's /tmp or home layer, or a link it made, is not matched" {
	each_user files_planted_in_the_session
}

files_planted_in_kept_layers_and_binds() {
	mkdir -p "$V/shared" "$HOME/.claude/session-env"
	[ "$WHO" != nobody ] || [ "$(id -u)" != 0 ] ||
		chown -R 65534:65534 "$V/shared" "$HOME/.claude"
	policy "home-layer workspace" "rw $V/shared" \
		"program mcp_server.py keep GITHUB_PERSONAL_ACCESS_TOKEN"
	# Run 1 plants in the workspace's kept layer, a policy rw path and
	# Claude Code's session-env (bound writable into every sandbox).
	run mcp -- -b "$(plant_cmd '$HOME/planted/mcp_server.py')" \
		-b "$(plant_cmd "$V/shared/mcp_server.py")" \
		-b "$(plant_cmd '$HOME/.claude/session-env/mcp_server.py')" -- "$SRV"
	[ "$status" -eq 0 ]
	local kept
	kept=$(echo "$STATE"/envshim/layers/*/home/planted/mcp_server.py)
	[ -x "$kept" ]
	[ -x "$V/shared/mcp_server.py" ]
	for f in "$kept" "$V/shared/mcp_server.py" "$HOME/.claude/session-env/mcp_server.py"; do
		run mcp -- -e GITHUB_PERSONAL_ACCESS_TOKEN="$TOK" -- "$f" \
			--report GITHUB_PERSONAL_ACCESS_TOKEN
		lacks -F "$TOK"
		no_names || { echo "$f got it"; return 1; }
	done
	rm -rf "$V/shared" "$HOME/.claude"
}

@test "a program of that name in a kept layer, a policy rw path or an agent's state directory is not matched" {
	each_user files_planted_in_kept_layers_and_binds
}

subtree_starts_a_planted_file() {
	policy "program mcp_server.py keep GITHUB_PERSONAL_ACCESS_TOKEN"
	run mcp -- -b "$(plant_cmd '$TMPDIR/evil.py')" -e GITHUB_PERSONAL_ACCESS_TOKEN="$TOK" \
		-- "$SRV" --report GITHUB_PERSONAL_ACCESS_TOKEN --child-exec @TMPDIR@/evil.py
	[ "$status" -eq 0 ]
	[ "$(rep env.GITHUB_PERSONAL_ACCESS_TOKEN)" = "$(seen "$TOK")" ]
	[[ "$(rep child.pid)" == [0-9]* ]]
	[ "$(rep child.env.GITHUB_PERSONAL_ACCESS_TOKEN)" = unset ]
	lacks -F "$TOK"
}

@test "a server the agent started that runs a file the model wrote to the session's /tmp hands it none of the rule's names" {
	each_user subtree_starts_a_planted_file
}

# npx_setup: a registry on 127.0.0.1 serving envshim-test-mcp (the test
# server as its bin), where the README's npx recipe gets its package.
npx_setup() {
	mkdir -p "$HOME/pkg"
	cp "$SRV" "$HOME/pkg/"
	printf '{"name":"envshim-test-mcp","version":"1.0.0","bin":{"envshim-test-mcp":"mcp_server.py"}}\n' \
		>"$HOME/pkg/package.json"
	mkfifo "$V/port"
	python3 "$ROOT/tests/progs/npm_registry.py" "$HOME/pkg" "$V/port" 3>&- &
	REGPID=$!
	read -r PORT <"$V/port"
	# npm_config_* is dropped as injection: the user's own ~/.npmrc says it
	printf 'registry=http://127.0.0.1:%s/\nupdate-notifier=false\nfund=false\naudit=false\n' \
		"$PORT" >"$HOME/.npmrc"
	chmod 644 "$HOME/.npmrc"
}

# The model's package in the workspace's node_modules, which npx prefers.
PLANT_PKG='mkdir -p node_modules/.bin node_modules/envshim-test-mcp &&
	cp "$HOME"/pkg/package.json node_modules/envshim-test-mcp/ &&
	sed s/envshim-test-mcp/planted-mcp/ "$HOME"/pkg/mcp_server.py >node_modules/envshim-test-mcp/mcp_server.py &&
	chmod 755 node_modules/envshim-test-mcp/mcp_server.py &&
	ln -sf ../envshim-test-mcp/mcp_server.py node_modules/.bin/envshim-test-mcp'

npx_recipe_and_a_planted_package() {
	policy "program npx -y envshim-test-mcp keep GITHUB_PERSONAL_ACCESS_TOKEN"
	# The recipe: the server npx fetched runs in the sandbox, with the token.
	run mcp -- -e GITHUB_PERSONAL_ACCESS_TOKEN="$TOK" \
		-- npx -y envshim-test-mcp --report GITHUB_PERSONAL_ACCESS_TOKEN
	[ "$status" -eq 0 ]
	[ "$(served_by)" = envshim-test-mcp ]
	[ "$(rep env.GITHUB_PERSONAL_ACCESS_TOKEN)" = "$(seen "$TOK")" ]
	[ "$(rep userns)" != "$OUTER_NS" ]
	# npx runs the package of that name in the workspace's node_modules
	# (through sh -c, in the sandbox): the model's shells wrote it.
	run mcp -- -b "$PLANT_PKG" -e GITHUB_PERSONAL_ACCESS_TOKEN="$TOK" \
		-- npx -y envshim-test-mcp --report GITHUB_PERSONAL_ACCESS_TOKEN
	[ "$status" -eq 0 ]
	[ "$(served_by)" = planted-mcp ]
	[ "$(rep env.GITHUB_PERSONAL_ACCESS_TOKEN)" = unset ]
	rm -rf node_modules
	lacks -F "$TOK"
}

@test "npx -y PACKAGE from a registry: its server gets the token; the workspace's node_modules copy npx prefers does not" {
	npx_setup
	each_user npx_recipe_and_a_planted_package
}

npx_cache_poisoned_in_the_layer() {
	policy "program npx -y envshim-test-mcp keep GITHUB_PERSONAL_ACCESS_TOKEN"
	run mcp -- -- npx -y envshim-test-mcp
	[ "$status" -eq 0 ]
	ls "$HOME"/.npm/_npx/*/node_modules/envshim-test-mcp/mcp_server.py
	# A sandboxed command rewrites npx's cached copy: in the session's
	# layer of the home, which the next sandboxed command would see.
	run mcp -- \
		-b 'for f in "$HOME"/.npm/_npx/*/node_modules/envshim-test-mcp/mcp_server.py; do
			sed s/envshim-test-mcp/planted-mcp/ "$f" >"$TMPDIR/x" && cat "$TMPDIR/x" >"$f" &&
			grep -c planted-mcp "$f"; done' \
		-e GITHUB_PERSONAL_ACCESS_TOKEN="$TOK" \
		-- npx -y envshim-test-mcp --report GITHUB_PERSONAL_ACCESS_TOKEN
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 1 ]
	[ "$(served_by)" = envshim-test-mcp ]
	[ "$(rep env.GITHUB_PERSONAL_ACCESS_TOKEN)" = "$(seen "$TOK")" ]
	lacks -F "$TOK"
}

@test "npx's cache rewritten in the session's home layer: the server npm starts is the real one" {
	npx_setup
	each_user npx_cache_poisoned_in_the_layer
}

# peek PID SECRET...: what a process of the agent's user reads of the
# helper's processes below PID (tests/progs/peek_procs.py).  Root with
# CAP_SYS_PTRACE, CAP_SYS_ADMIN or CAP_PERFMON reads any process; root in
# a container's default set (Docker's) has none of them, as here.
peek() {
	if [ "$WHO" = root ]; then
		setpriv --bounding-set -sys_ptrace,-sys_admin,-perfmon \
			/usr/bin/python3 "$ROOT/tests/progs/peek_procs.py" "$@"
	else
		as_nobody /usr/bin/python3 "$ROOT/tests/progs/peek_procs.py" "$@"
	fi
}

# hold: two fifos a sandboxed command meets, in the workspace (bound at its
# path in every view): it says "up" on one, then waits on the other.
# up_then_go CMD...: waits for "up" (two minutes at most: a hang guard),
# runs CMD, then lets the command go; neither end blocks if it died.
hold() {
	rm -f "$V/ws/.up" "$V/ws/.hold"
	mkfifo -m 666 "$V/ws/.up" "$V/ws/.hold"
	HOLD="echo up >$V/ws/.up; read x <$V/ws/.hold"
}

up_then_go() {
	local up go r=0
	exec {up}<>"$V/ws/.up" {go}<>"$V/ws/.hold"
	read -r -t 120 _ <&"$up" || r=1
	[ "$r" != 0 ] || "$@" || r=1
	echo go >&"$go"
	exec {up}<&- {go}<&-
	return "$r"
}

# peek_held ARGS...: the agent (mcp ARGS, its output in $V/out) while a
# sandboxed command of it is held (hold), peeked at for $TOK; the lines
# in $output.  No helper process may show it.
peek_held() {
	mcp "$@" >"$V/out" 2>&1 3>&- &
	BGPID=$!
	up_then_go run peek "$BGPID" "$TOK"
	wait "$BGPID"
	BGPID=
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q ' outer ' <<<"$output"
	lacks leak
}

helpers_of_a_marked_command() {
	policy "program mcp_server.py keep GITHUB_PERSONAL_ACCESS_TOKEN"
	hold
	peek_held -- -e GITHUB_PERSONAL_ACCESS_TOKEN="$TOK" -- "$SRV" \
		--report GITHUB_PERSONAL_ACCESS_TOKEN --child-cmd "$HOLD"
	# root's init is uid 65532 (idmap): no process of root's to peek at
	[ "$WHO" = root ] || grep -q ' init ' <<<"$output"
	output=$(cat "$V/out")
	[ "$(rep child.status)" = 0 ]
}

@test "while a marked command runs, the helper's outer, init and keeper show the token to no process of the user" {
	each_user helpers_of_a_marked_command
}

the_keeper_of_a_session() {
	policy "keep KEPT_FOR_SHELLS"
	hold
	peek_held KEPT_FOR_SHELLS="$TOK" -- -s "$HOLD" -- "$SRV"
	# the view's keeper, built for that first command, holds none of its environment
	grep -q ' keeper environ:clean mem:clean$' <<<"$output"
}

@test "a session's keeper holds nothing of its first command's environment" {
	each_user the_keeper_of_a_session
}
