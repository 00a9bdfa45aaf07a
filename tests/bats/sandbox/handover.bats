#!/usr/bin/env bats
# What an agent hands its own shells from inside a hidden directory:
# Claude Code saves a long tool result under its transcripts
# (~/.claude/projects/PROJECT/SESSION/tool-results/ID.txt) and tells the
# model to read it there.  The agent is python3 under the shim, in a
# session, setting CLAUDE_CODE_SESSION_ID for its shells as Claude Code
# does; as an unprivileged user and, when the suite is root, as root.

bats_require_minimum_version 1.5.0

load ../common

setup() {
	# outside /tmp on purpose: the sandbox's /tmp is private
	T=$(mktemp -d /var/tmp/envshim-hand.XXXXXX)
	chmod 755 "$T"
	WHO=(nobody)
	[ "$(id -u)" = 0 ] && WHO+=(root)
	MARK=TRANSCRIPT-$RANDOM$RANDOM
}

teardown() {
	cd /
	rm -rf "$T"
}

# claude_home WHO: WHO's home, workspace and Claude Code's projects: this
# session S1's transcript and one saved result, another session's and
# another project's results, and a subagent transcript of S1.
claude_home() {
	H=$T/$1/home
	P=$H/.claude/projects
	mkdir -p "$T/$1/ws" "$T/$1/state" "$P/-ws/S1/tool-results" "$P/-ws/S1/subagents" \
		"$P/-ws/S2/tool-results" "$P/-other/S3/tool-results"
	echo 'SAVED ONE' >"$P/-ws/S1/tool-results/toolu_1.txt"
	echo "$MARK" >"$P/-ws/S1.jsonl"
	echo "$MARK" >"$P/-ws/S1/subagents/agent-1.jsonl"
	echo "$MARK" >"$P/-ws/S2/tool-results/toolu_9.txt"
	echo "$MARK" >"$P/-other/S3/tool-results/toolu_3.txt"
	chmod -R go-rwx "$H/.claude"
	if [ "$1" = nobody ] && [ "$(id -u)" = 0 ]; then
		chown -R 65534:65534 "$T/$1"
	fi
}

# agent WHO CODE: python3 as the agent, as WHO, with the shim preloaded;
# CODE's tool(cmd, sid) runs bash -c cmd as one tool call, with
# CLAUDE_CODE_SESSION_ID=sid when sid is given.
agent() {
	local as=()
	if [ "$1" = nobody ] && [ "$(id -u)" = 0 ]; then
		as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	fi
	cd "$T/$1/ws"
	"${as[@]}" env -i HOME="$T/$1/home" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
		XDG_STATE_HOME="$T/$1/state" LD_PRELOAD="$SHIM" P="$P" HELPER="$HELPER" \
		python3 -u -c '
import os, subprocess
def tool(cmd, sid=None):
    env = dict(os.environ)
    if sid is not None:
        env["CLAUDE_CODE_SESSION_ID"] = sid
    subprocess.run(["bash", "-c", cmd], env=env)
P = os.environ["P"]
'"$2"
}

@test "the shell's own session's saved results are readable, read-only; the rest of the transcripts stays hidden" {
	local who
	for who in "${WHO[@]}"; do
		claude_home "$who"
		run agent "$who" '
tool("cat $P/-ws/S1/tool-results/toolu_1.txt; ls -A $P; ls -A $P/-ws; ls -A $P/-ws/S1", "S1")
tool("cat $P/-ws/S1.jsonl $P/-ws/S1/subagents/agent-1.jsonl $P/-ws/S2/tool-results/toolu_9.txt $P/-other/S3/tool-results/toolu_3.txt 2>&1 | grep -c \"No such file\"", "S1")
tool("{ echo x >$P/-ws/S1/tool-results/new; } 2>&1 | grep -c Read-only", "S1")
# a result saved after the session'"'"'s view was built
open(P + "/-ws/S1/tool-results/toolu_2.txt", "w").write("SAVED TWO\n")
tool("cat $P/-ws/S1/tool-results/toolu_2.txt", "S1")
tool("cat $P/-ws/S1/tool-results/toolu_1.txt 2>&1 | grep -c \"No such file\"")'
		echo "$who: $output"
		[ "$status" -eq 0 ]
		[ "${lines[*]}" = 'SAVED ONE -ws S1 tool-results 4 1 SAVED TWO 1' ]
		[ ! -e "$P/-ws/S1/tool-results/new" ]
		lacks -e "$MARK"
	done
}

@test "results saved after the run's first shell are shown to the next one" {
	local who
	for who in "${WHO[@]}"; do
		claude_home "$who"
		rm -r "$P/-ws/S1"
		run agent "$who" '
tool("ls -A $P/-ws", "S1")
os.makedirs(P + "/-ws/S1/tool-results", mode=0o700)
open(P + "/-ws/S1/tool-results/toolu_5.txt", "w").write("SAVED FIVE\n")
tool("cat $P/-ws/S1/tool-results/toolu_5.txt", "S1")'
		echo "$who: $output"
		[ "$status" -eq 0 ]
		[[ "${lines[0]}" == *"-ws': No such file or directory" ]]
		[ "${lines[1]}" = 'SAVED FIVE' ]
	done
}

@test "a shell cannot reach another session's results: not by naming it, nor from a sandbox of its own, nor by a path" {
	local who
	for who in "${WHO[@]}"; do
		claude_home "$who"
		run agent "$who" '
tool("CLAUDE_CODE_SESSION_ID=S2 bash -c \"cat $P/-ws/S2/tool-results/toolu_9.txt\"; CLAUDE_CODE_SESSION_ID=S2 $HELPER -- cat $P/-ws/S2/tool-results/toolu_9.txt; ls -A $P/-ws", "S1")
tool("ls -A $P $P/-other/S3/tool-results", "S1/../../-other/S3")
tool("ls -A $P", "..")'
		echo "$who: $output"
		[ "$status" -eq 0 ]
		lacks -e "$MARK" -e toolu_3
		lacks -x -e S2 -e -other
		grep -qx S1 <<<"$output"
	done
}

@test "without the home's overlay (a comma in the home's path) the same holds" {
	local who T=$T/no,overlay
	mkdir -m 755 "$T"
	for who in "${WHO[@]}"; do
		claude_home "$who"
		run agent "$who" '
tool("cat $P/-ws/S1/tool-results/toolu_1.txt; ls -A $P/-ws; cat $P/-ws/S2/tool-results/toolu_9.txt $P/-ws/S1.jsonl 2>&1 | grep -c \"No such file\"; grep -c \" - overlay \" /proc/self/mountinfo", "S1")'
		echo "$who: $output"
		[ "$status" -eq 0 ]
		[ "${lines[*]}" = 'SAVED ONE S1 2 0' ]
	done
}
