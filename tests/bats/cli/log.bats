#!/usr/bin/env bats
# envshim log: the audit log as a tree, a summary, and hostile lines.

bats_require_minimum_version 1.5.0
load ../cli

setup() {
	cli_setup
	# A project of its own: the checkout holds the build, which envshim
	# refuses to run from as a workspace.
	mkdir -p "$BATS_TEST_TMPDIR/project"
	cd "$BATS_TEST_TMPDIR/project"
	LOG="$BATS_TEST_TMPDIR/audit.jsonl"
	cat > "$LOG" <<'J'
{"time":"2025-11-30T09:00:00.100Z","pid":100,"ppid":1,"hook":"execve","path":"/usr/bin/agent","argv":["agent"],"action":"run","inside":false,"agent":true,"mode":"enforce","dropped":[],"rewritten":[]}
{"time":"2025-11-30T09:00:01.000Z","pid":123,"ppid":100,"hook":"execve","path":"/bin/bash","argv":["bash","-c","env"],"action":"sandbox","inside":false,"agent":false,"mode":"enforce","dropped":[{"name":"GITHUB_TOKEN","reason":"secret-name"},{"name":"LD_PRELOAD","reason":"locked"}],"rewritten":[{"name":"PATH","reason":"normalised"}]}
{"time":"2025-11-30T09:00:01.500Z","pid":124,"ppid":123,"hook":"execve","path":"/usr/bin/env","argv":["env"],"action":"run","inside":true,"agent":false,"mode":"enforce","dropped":[]}
this line is not json
{"time":"2025-11-30T09:00:02.000Z","pid":130,"ppid":100,"hook":"posix_spawn","path":"/opt/static","argv":["static","***"],"action":"refused","reason":"statically linked","inside":false,"agent":false,"mode":"enforce","dropped":[{"name":"AWS_SECRET_ACCESS_KEY","reason":"secret-name"},{"name":"X\u001b[31m","reason":"injection"}]}
{"time":"2025-11-30T09:00:03.000Z","pid":131,"ppid":100,"hook":"execve","path":"/usr/bin/git","argv":["git","status"],"action":"run","inside":false,"agent":false,"mode":"enforce"}
{"time":"2025-11-30T09:00:04.000Z","pid":132,"ppid":100,"hook":"execve","path":"/x","argv":["x"],"action":"run","dropped":[{"name":"A","reason":"policy"}
J
}

# what a test made outside the bats directory (for another user), if any
teardown() {
	[ -z "${R:-}" ] || rm -rf "$R"
}

@test "the log shows a tree by pid and ppid, with what each launch lost" {
	run -0 "$ENVSHIM" log "$LOG"
	[ "${lines[0]}" = "100 agent  [run] (agent)" ]
	[ "${lines[1]}" = "|- 123 bash -c env  [sandbox]" ]
	[ "${lines[2]}" = "|     dropped: GITHUB_TOKEN (secret-name), LD_PRELOAD (locked)" ]
	[ "${lines[3]}" = "|     rewritten: PATH (normalised)" ]
	[ "${lines[4]}" = "|  \`- 124 env  [run] (inside sandbox)" ]
	[ "${lines[5]}" = "|- 130 static ***  [refused: statically linked]" ]
	[ "${lines[6]}" = '|     dropped: AWS_SECRET_ACCESS_KEY (secret-name), X\x1b[31m (injection)' ]
	[ "${lines[7]}" = "\`- 131 git status  [run]" ]
	[[ "${lines[8]}" == "launches: "* ]]
}

@test "the summary counts launches, sandboxed, refused and drops by reason" {
	run -0 "$ENVSHIM" log "$LOG"
	[[ "$output" == *"launches: 5, sandboxed: 1, refused: 1, unconfined: 0"* ]]
	[[ "$output" == *"variables dropped: 4 (secret-name 2, locked 1, injection 1)"* ]]
	[[ "$output" == *"malformed lines skipped: 2"* ]]
}

@test "control characters from the log are escaped, not sent to the terminal" {
	run -0 "$ENVSHIM" log "$LOG"
	[[ "$output" != *$'\033'* ]]
	[[ "$output" == *'X\x1b[31m (injection)'* ]]
}

@test "--json is one valid object; --since filters by time" {
	run -0 "$ENVSHIM" log --json --since 2025-11-30T09:00:01.6 "$LOG"
	python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
assert [r["pid"] for r in d["records"]] == [130, 131], d
assert d["summary"]["launches"] == 2 and d["summary"]["refused"] == 1, d
assert d["summary"]["dropped"] == {"secret-name": 1, "injection": 1}, d
' <<<"$output"
	run -0 "$ENVSHIM" log --since 2099-01-01 "$LOG"
	[[ "$output" == *"no launches recorded"* ]]
	now=$(date -u +%Y-%m-%dT%H:%M:%S.000Z)
	echo "{\"time\":\"$now\",\"pid\":7,\"ppid\":1,\"argv\":[\"fresh\"],\"action\":\"run\"}" >> "$LOG"
	run -0 "$ENVSHIM" log --since 10m "$LOG"
	[ "${lines[0]}" = "7 fresh  [run]" ]
	[[ "$output" == *"launches: 1,"* ]]
	run -125 "$ENVSHIM" log --since yesterday "$LOG"
}

@test "the default log is under XDG_STATE_HOME, then ~/.local/state" {
	export XDG_STATE_HOME="$BATS_TEST_TMPDIR/state"
	mkdir -p "$XDG_STATE_HOME/envshim"
	head -1 "$LOG" > "$XDG_STATE_HOME/envshim/audit.jsonl"
	run -0 "$ENVSHIM" log
	[[ "$output" == *"launches: 1,"* ]]
	unset XDG_STATE_HOME
	run -125 "$ENVSHIM" log
	[ "$output" = "envshim log: $HOME/.local/state/envshim/audit.jsonl: No such file or directory (nothing logged yet?)" ]
}

@test "a pid that is reused hangs under its latest record" {
	cat > "$LOG" <<'J'
{"time":"2025-11-30T09:00:00Z","pid":10,"ppid":1,"path":"/a","argv":["a"],"action":"run"}
{"time":"2025-11-30T09:00:01Z","pid":11,"ppid":10,"path":"/b","argv":["b"],"action":"run"}
{"time":"2025-11-30T09:00:02Z","pid":10,"ppid":1,"path":"/c","argv":["c"],"action":"run"}
{"time":"2025-11-30T09:00:03Z","pid":12,"ppid":10,"path":"/d","argv":["d"],"action":"run"}
J
	run -0 "$ENVSHIM" log "$LOG"
	[ "${lines[0]}" = "10 a  [run]" ]
	[ "${lines[1]}" = "\`- 11 b  [run]" ]
	[ "${lines[2]}" = "10 c  [run]" ]
	[ "${lines[3]}" = "\`- 12 d  [run]" ]
}

@test "a real run under envshim produces a log that envshim log reads" {
	export XDG_STATE_HOME="$BATS_TEST_TMPDIR/state"
	run -0 env GITHUB_TOKEN=ghp_notarealtokenvalue0000000000000000 \
	    "$ENVSHIM" -- /bin/sh -c '/usr/bin/env >/dev/null; true'
	[ -s "$XDG_STATE_HOME/envshim/audit.jsonl" ]
	run -0 "$ENVSHIM" log
	# What the agent (here sh) starts goes to the sandbox: `sandbox all`.
	[[ "${lines[0]}" =~ ^[0-9]+\ /usr/bin/env\ \ \[sandbox\]$ ]]
	[[ "$output" == *"GITHUB_TOKEN (secret-name)"* ]]
	[[ "$output" != *ghp_notarealtoken* ]]
	[[ "$output" == *"launches: 1, sandboxed: 1, refused: 0"* ]]
	[[ "$output" != *"malformed"* ]]
}

@test "an agent's start moves a log past 16 MiB to .1, and only then" {
	export XDG_STATE_HOME="$BATS_TEST_TMPDIR/state"
	f="$XDG_STATE_HOME/envshim/audit.jsonl"
	mkdir -p "${f%/*}"
	head -1 "$LOG" > "$f"
	truncate -s $((16 * 1024 * 1024 - 1)) "$f"
	run -0 "$ENVSHIM" -- /bin/sh -c '/usr/bin/true'
	# One byte short: the launch is appended, nothing moves.
	[ ! -e "$f.1" ]
	[ "$(stat -c %s "$f")" -gt $((16 * 1024 * 1024)) ]
	run -0 "$ENVSHIM" -- /bin/sh -c '/usr/bin/env >/dev/null'
	[ "$(stat -c %s "$f.1")" -gt $((16 * 1024 * 1024)) ]
	# (and the helper's record of what that sandbox hid, if it hid any)
	[ "$(grep -vc '"hook":"sandbox"' "$f")" -eq 1 ]
	run -0 "$ENVSHIM" log
	[[ "${lines[0]}" =~ ^[0-9]+\ /usr/bin/env\ \ \[sandbox\]$ ]]
	[[ "$output" == *"launches: 1,"* ]]
	# A log that is not a regular file is never moved.
	rm -f "$f" "$f.1"
	ln -s /dev/null "$f"
	run -0 "$ENVSHIM" -- /bin/sh -c '/usr/bin/true'
	[ -L "$f" ] && [ ! -e "$f.1" ]
}

@test "a dry run says what would have happened, and counts none of it as done" {
	export XDG_STATE_HOME="$BATS_TEST_TMPDIR/state"
	run -0 env -i HOME="$HOME" PATH=/usr/bin:/bin XDG_STATE_HOME="$XDG_STATE_HOME" \
	    GITHUB_TOKEN=ghp_notarealtokenvalue0000000000000000 \
	    "$ENVSHIM" --audit -- /usr/bin/perl -e 'system("/bin/sh", "-c", "/usr/bin/true")'
	run -0 "$ENVSHIM" log
	[[ "${lines[0]}" =~ ^[0-9]+\ /bin/sh\ -c\ /usr/bin/true\ \ \[audit:\ would\ sandbox\]$ ]]
	[[ "${lines[1]}" == "   would drop: GITHUB_TOKEN (secret-name)"* ]]
	[[ "$output" != *"   dropped:"* ]]
	[[ "$output" == *"launches: 2, sandboxed: 0, refused: 0, unconfined: 0"* ]]
	grep -qx 'variables dropped: 0' <<<"$output"
	# sh's own launch of true would go to the sandbox too: it ran outside
	[[ "$output" == *"audit only (nothing changed): 2 launches; would have sandboxed 2, refused 0, dropped "* ]]
	run -0 "$ENVSHIM" log --json
	python3 -c '
import json, sys
s = json.loads(sys.stdin.read())["summary"]
assert s["sandboxed"] == 0 and s["dropped"] == {}, s
assert s["audit"]["launches"] == 2 and s["audit"]["sandbox"] == 2, s
assert s["audit"]["dropped"]["secret-name"] == 2, s
' <<<"$output"
}

@test "an action from a hostile log is escaped like every other field" {
	printf '%s\n' '{"time":"2025-11-30T09:00:00Z","pid":10,"ppid":1,"argv":["a"],"action":"x\u001b[2J","would":"y\u001b[1m"}' >"$LOG"
	run -0 "$ENVSHIM" log "$LOG"
	[[ "$output" != *$'\033'* ]]
	[ "${lines[0]}" = '10 a  [x\x1b[2J]' ]
}

@test "with no FILE the log is where the policy put it, or it says where records went" {
	# It read the default file whatever the policy's log line said.
	export XDG_STATE_HOME="$BATS_TEST_TMPDIR/state"
	p=$(policy_file p <<<"log $BATS_TEST_TMPDIR/custom.jsonl")
	run -0 env -i HOME="$HOME" PATH=/usr/bin:/bin XDG_STATE_HOME="$XDG_STATE_HOME" \
	    "$ENVSHIM" --policy "$p" -- /usr/bin/perl -e 'system("/usr/bin/env", "true")'
	[ -s "$BATS_TEST_TMPDIR/custom.jsonl" ]
	[ ! -e "$XDG_STATE_HOME/envshim/audit.jsonl" ]
	run -0 "$ENVSHIM" log --policy "$p"
	[[ "${lines[0]}" =~ ^[0-9]+\ /usr/bin/env\ true\ \ \[sandbox\]$ ]]
	run -0 env ENVSHIM_POLICY="$p" "$ENVSHIM" log
	[[ "${lines[0]}" =~ ^[0-9]+\ /usr/bin/env\ true\ \ \[sandbox\]$ ]]
	mkdir -p "$XDG_CONFIG_HOME/envshim"
	cp "$p" "$XDG_CONFIG_HOME/envshim/policy"
	run -0 "$ENVSHIM" log --json
	[[ "$output" == *'"path":"/usr/bin/env"'* ]]
	# "-" reads the records from standard input.
	run -0 "$ENVSHIM" log - <"$BATS_TEST_TMPDIR/custom.jsonl"
	[[ "${lines[0]}" =~ ^[0-9]+\ /usr/bin/env\ true\ \ \[sandbox\]$ ]]
	q=$(policy_file q <<<'log syslog')
	run -125 "$ENVSHIM" log --policy "$q"
	[ "${lines[0]}" = "envshim log: $q says 'log syslog': read the records with" ]
	[ "${lines[1]}" = "  journalctl -t envshim -o cat | envshim log -" ]
	q=$(policy_file q <<<'log off')
	run -125 "$ENVSHIM" log --policy "$q"
	[ "$output" = "envshim log: $q says 'log off': nothing was recorded" ]
	q=$(policy_file q <<<'log nowhere-relative')
	run -125 "$ENVSHIM" log --policy "$q"
	[[ "$output" == "envshim: $q:1: "* ]]
}

@test "the agent's own ENVSHIM_POLICY is no news in the log; a changed one is" {
	export XDG_STATE_HOME="$BATS_TEST_TMPDIR/state"
	mkdir "$BATS_TEST_TMPDIR/ws"
	cd "$BATS_TEST_TMPDIR/ws"
	p=$(policy_file ws/p <<<'sandbox off')
	run -0 "$ENVSHIM" --policy "$p" --audit -- /bin/sh -c \
		'/usr/bin/true; ENVSHIM_POLICY=/tmp/other /usr/bin/true'
	run -0 python3 - "$XDG_STATE_HOME/envshim/audit.jsonl" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    print(sorted(d["name"] for d in r.get("dropped", [])))
PY
	# As started: nothing to report.  Changed by the agent: reported.
	[ "${lines[0]}" = "[]" ]
	[ "${lines[1]}" = "['ENVSHIM_POLICY']" ]
}

@test "a sandbox's hidden paths go with its launch, are no launch themselves, and count the rest" {
	cat > "$LOG" <<'J'
{"time":"2025-11-30T09:00:00Z","pid":10,"ppid":1,"path":"/a","argv":["a"],"action":"run","agent":true}
{"time":"2025-11-30T09:00:01Z","pid":11,"ppid":10,"path":"/bin/bash","argv":["bash","-c","x"],"action":"sandbox"}
{"time":"2025-11-30T09:00:01Z","pid":11,"ppid":10,"hook":"sandbox","path":"/bin/bash","action":"hidden","hidden":["~/.npmrc","~/.ssh/id_ed25519"],"hidden_more":3,"argv":[]}
{"time":"2025-11-30T09:00:01Z","pid":13,"ppid":10,"hook":"sandbox","path":"/bin/true","action":"hidden","hidden":["~/.netrc"],"argv":[]}
{"time":"2025-11-30T09:00:01Z","pid":13,"ppid":10,"hook":"posix_spawn","path":"/bin/true","argv":["true"],"action":"sandbox"}
{"time":"2025-11-30T09:00:02Z","pid":12,"ppid":10,"hook":"sandbox","path":"/bin/sh","action":"hidden","hidden":["~/.pgpass"],"argv":[]}
J
	run -0 "$ENVSHIM" log "$LOG"
	[ "${lines[0]}" = "10 a  [run] (agent)" ]
	[ "${lines[1]}" = "|- 11 bash -c x  [sandbox]" ]
	[ "${lines[2]}" = "|     hidden: ~/.npmrc, ~/.ssh/id_ed25519 and 3 more" ]
	# a spawner writes its record once posix_spawn returned: after the helper's
	[ "${lines[3]}" = "|- 13 true  [sandbox]" ]
	[ "${lines[4]}" = "|     hidden: ~/.netrc" ]
	# one whose launch left no record stands alone
	[ "${lines[5]}" = "\`- 12 /bin/sh  [hidden]" ]
	[ "${lines[6]}" = "      path: /bin/sh" ]
	[ "${lines[7]}" = "      hidden: ~/.pgpass" ]
	[[ "$output" == *"launches: 3, sandboxed: 2,"* ]]
	run -0 "$ENVSHIM" log --json "$LOG"
	python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
assert [r["action"] for r in d["records"]] == ["run", "sandbox", "hidden", "hidden", "sandbox",
                                               "hidden"], d
assert d["summary"]["launches"] == 3, d
' <<<"$output"
}

@test "a record from inside a sandbox is shown, marked, and never with a program rule to add" {
	cat > "$LOG" <<'J'
{"time":"2025-11-30T09:00:00Z","pid":10,"ppid":1,"path":"/a","argv":["a"],"action":"run","agent":true,"inside":false}
{"time":"2025-11-30T09:00:01Z","pid":11,"ppid":10,"path":"/usr/bin/python3","argv":["python3","/srv/mcp.py"],"action":"run","inside":false,"lost":[{"name":"GITHUB_TOKEN","reason":"secret-name"}]}
{"time":"2025-11-30T09:00:02Z","pid":12,"ppid":10,"path":"/bin/bash","argv":["bash","-c","x"],"action":"sandbox","inside":false}
{"time":"2025-11-30T09:00:03Z","pid":4242,"ppid":1,"path":"/opt/helper/mcp.py","argv":["python3","/opt/helper/mcp.py"],"action":"run","lost":[{"name":"ANTHROPIC_API_KEY","reason":"secret-name"}],"inside":true,"sandbox":12}
J
	run -0 "$ENVSHIM" log "$LOG"
	[ "${lines[0]}" = "10 a  [run] (agent)" ]
	[ "${lines[1]}" = "|- 11 python3 /srv/mcp.py  [run]" ]
	[ "${lines[2]}" = "|     lost: GITHUB_TOKEN (secret-name); to let it through: program python3 /srv/mcp.py keep GITHUB_TOKEN" ]
	[ "${lines[3]}" = "\`- 12 bash -c x  [sandbox]" ]
	[ "${lines[4]}" = "   \`- 4242 python3 /opt/helper/mcp.py  [run] (inside sandbox)" ]
	[ "${lines[6]}" = "         lost: ANTHROPIC_API_KEY (secret-name)" ]
	[ "$(grep -c 'let it through' <<<"$output")" -eq 1 ]
}

# A record that came from inside, appended by the agent itself (which
# is not confined): the report at its exit says nothing of it, and does
# of the same record from outside (the control).  As the user running
# the suite, and as nobody when that is root.
@test "at the agent's exit, envshim gives no advice for a record from inside" {
	R=$(mktemp -d /var/tmp/envshim-clog.XXXXXX)
	chmod 755 "$R"
	cp "$ENVSHIM" "${ENVSHIM%/*}/libenvshim.so" "${ENVSHIM%/*}/envshim-sandbox" "$R/"
	chmod a+rx "$R"/*
	inside='{"time":"2025-11-30T09:00:03Z","pid":4242,"ppid":1,"hook":"execve","path":"/opt/helper/mcp.py","argv":["python3","/opt/helper/mcp.py"],"action":"run","lost":[{"name":"ANTHROPIC_API_KEY","reason":"secret-name"}],"inside":true,"sandbox":12}'
	outside=${inside/'"inside":true,"sandbox":12'/'"inside":false'}
	users=(me)
	[ "$(id -u)" != 0 ] || users+=(nobody)
	for u in "${users[@]}"; do
		as=()
		[ "$u" = me ] || as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
		for rec in "$inside" "$outside"; do
			rm -rf "$R/u"
			mkdir -p "$R/u/home" "$R/u/state"
			[ "$u" = me ] || chown -R 65534:65534 "$R/u"
			run -0 "${as[@]}" env -i HOME="$R/u/home" PATH=/usr/bin:/bin \
				XDG_STATE_HOME="$R/u/state" REC="$rec" "$R/envshim" -- /bin/sh -c \
				'printf "%s\n" "$REC" >>"$XDG_STATE_HOME/envshim/audit.jsonl"'
			if [ "$rec" = "$inside" ]; then
				[[ "$output" != *"let it through"* ]]
			else
				[ "$output" = "envshim: mcp.py lost ANTHROPIC_API_KEY (secret-name); to let it through: program mcp.py keep ANTHROPIC_API_KEY" ]
			fi
		done
	done
}

@test "a record after a truncated one on the same line is read, and counted apart" {
	# a crash mid-write, or a full disk, left the first without its end
	printf '%s%s\n' '{"time":"2026-01-01T00:00:00.000Z","pid":5,"ppid":1,"hook":"execve","path":"/bin/cut","argv":["cut"],"act' \
		'{"time":"2026-01-01T00:00:01.000Z","pid":6,"ppid":1,"hook":"execve","path":"/bin/whole","argv":["whole"],"action":"run","inside":false,"agent":false,"mode":"enforce"}' \
		>"$BATS_TEST_TMPDIR/cut.jsonl"
	run -0 "$ENVSHIM" log "$BATS_TEST_TMPDIR/cut.jsonl"
	[ "${lines[0]}" = "6 whole  [run]" ]
	[[ "$output" == *"launches: 1,"* ]]
	[[ "$output" == *"malformed lines skipped: 1"* ]]
}

@test "a new record starts on a line of its own after a log whose last line was cut" {
	export XDG_STATE_HOME="$BATS_TEST_TMPDIR/state"
	mkdir -p "$BATS_TEST_TMPDIR/ws" "$XDG_STATE_HOME/envshim"
	cd "$BATS_TEST_TMPDIR/ws"
	log=$XDG_STATE_HOME/envshim/audit.jsonl
	printf '%s' '{"time":"2026-01-01T00:00:00.000Z","pid":5,"ppid":1,"hook":"execve","path":"/bin/cut","argv":["cut"],"act' >"$log"
	chmod 600 "$log"
	run -0 "$ENVSHIM" -- /bin/sh -c '/bin/true; /bin/sh -c true'
	python3 - "$log" <<'PY'
import json, sys
lines = open(sys.argv[1], "rb").read().split(b"\n")
assert lines[0].endswith(b'"act'), lines[0]
assert lines[-1] == b"", lines[-1]
recs = [json.loads(l) for l in lines[1:-1] if l]
assert any(r["path"] == "/bin/true" for r in recs), recs
PY
}

@test "--json is valid UTF-8 JSON whatever bytes a record holds" {
	{
		printf '{"time":"2026-01-01T00:00:00.000Z","pid":1,"ppid":0,"hook":"execve","path":"/bin/\xff\xfe\xc0\xaf\xed\xa0\x80x","argv":["a\xe2\x82"],"action":"run"}\n'
		printf '{"time":"2026-01-01T00:00:01.000Z","pid":2,"ppid":0,"hook":"execve","path":"/bin/\\ud800\\u0041","argv":["\\udc00\\ud83d\\ude00"],"action":"run"}\n'
		printf '{"time":"2026-01-01T00:00:02.000Z","pid":3,"ppid":0,"hook":"execve","path":"/bin/n","argv":["n"],"action":"run","x":0x10,"y":-inf,"z":01,"w":+1,"v":nan}\n'
	} >"$BATS_TEST_TMPDIR/bytes.jsonl"
	run -0 "$ENVSHIM" log --json "$BATS_TEST_TMPDIR/bytes.jsonl"
	python3 -c '
import json, sys
raw = sys.stdin.buffer.read()
text = raw.decode("utf-8")          # strict: invalid bytes fail
def no_constant(c):
    raise ValueError("not JSON: " + c)
d = json.loads(text, parse_constant=no_constant)
recs = [r for r in d["records"] if r is not None]
# the third holds what is no JSON number (0x10, -inf, 01, +1, nan)
assert [r["pid"] for r in recs] == [1, 2], d
assert d["summary"]["malformed"] == 1, d
assert recs[0]["path"].startswith("/bin/") and recs[0]["path"].endswith("x"), recs[0]
assert "A" in recs[1]["path"], recs[1]
' <<<"$output"
}

@test "--since refuses what is no time, and takes a time zone offset" {
	for t in 99999999999999999999h 9223372036854775807d -5m 2026-13-45 2026-02-30 \
		2026-11-30T25:99 2026-11-30T09:60 2026-11-30T09:00+25:00 2026-11-30Z+02 T09:00; do
		run -125 "$ENVSHIM" log --since "$t" "$LOG"
		[[ "$output" == "envshim log: --since takes "* ]]
	done
	# 11:00:01 two hours east of UTC is 09:00:01 UTC
	run -0 "$ENVSHIM" log --json --since 2025-11-30T11:00:01+02:00 "$LOG"
	python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
assert [r["pid"] for r in d["records"]] == [123, 124, 130, 131], d
' <<<"$output"
	run -0 "$ENVSHIM" log --json --since 2025-11-30T03:00:01.6-0600 "$LOG"
	python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
assert [r["pid"] for r in d["records"]] == [130, 131], d
' <<<"$output"
	# Z is UTC: 09:00:01Z takes the record at 09:00:01.000
	run -0 "$ENVSHIM" log --json --since 2025-11-30T09:00:01Z "$LOG"
	python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
assert [r["pid"] for r in d["records"]] == [123, 124, 130, 131], d
' <<<"$output"
}
