#!/usr/bin/env bats
# `make demo` is the first thing a new user runs: it must build, run the
# example agent both ways, and show each attack stopped - from what the
# agent's tools really saw, not from a script that knows the answers.

load common

setup_file() {
	cd "$ROOT"
	make --no-print-directory demo >"$BATS_FILE_TMPDIR/demo.out" 2>&1 ||
		{ cat "$BATS_FILE_TMPDIR/demo.out"; return 1; }
}

# row LABEL WITHOUT WITH: the table line says so.
row() {
	grep -E "^$1 +$2 +$3\$" "$BATS_FILE_TMPDIR/demo.out" ||
		{ echo "no row: $1 | $2 | $3"; cat "$BATS_FILE_TMPDIR/demo.out"; return 1; }
}

@test "the agent and its re-launched copy keep the API key" {
	row 'the agent holds its API key' yes yes
	row 'its re-launched copy still has the key' yes yes
}

@test "bash -c env loses the secrets and the injection variables" {
	row 'bash -c env: secrets' 'ANTHROPIC_API_KEY GITHUB_TOKEN' none
	row 'bash -c env: injection variables' 'NODE_OPTIONS BASH_ENV' none
	row 'BASH_ENV set by the agent runs code' yes no
}

@test "no tool reads the agent's environment through /proc" {
	row 'bash: cat /proc/\$PPID/environ' 'key read' denied
	row 'cat /proc/<agent pid>/environ' 'key read' denied
}

@test "the sandbox hides ~/.ssh and keeps the real ~/.bashrc unchanged" {
	row 'bash: cat ~/.ssh/id_ed25519' 'key read' hidden
	row 'bash: echo \.\.\. >> ~/.bashrc' written 'kept out'
}

@test "a child's LD_PRELOAD is the shim, never the agent's choice" {
	row 'LD_PRELOAD=/tmp/evil.so for a child' /tmp/evil.so 'the shim only'
	row 'env \(not a shell\): secrets' 'ANTHROPIC_API_KEY GITHUB_TOKEN' none
}

@test "a program the agent starts itself is confined too, and the demo says where the limits are" {
	row 'cat ~/.ssh/id_ed25519 \(not a shell\)' 'key read' hidden
	grep -q 'What envshim does not stop: docs/threat-model.md' "$BATS_FILE_TMPDIR/demo.out"
}

@test "envshim log shows the tree, the drops and the summary" {
	out=$BATS_FILE_TMPDIR/demo.out
	grep -q '^envshim log .*/envshim/audit.jsonl$' "$out"
	grep -qE '^[0-9]+ .*/agent --relaunched +\[run\] \(agent\)$' "$out"
	grep -qE '^\|- [0-9]+ /bin/bash -c env +\[sandbox\]$' "$out"
	grep -q 'ANTHROPIC_API_KEY (secret-name)' "$out"
	grep -q 'BASH_ENV (injection)' "$out"
	grep -qE '^launches: [0-9]+, sandboxed: [1-9][0-9]*, refused: 0, unconfined: 0$' "$out"
}

@test "no secret value appears in the demo's output or its log" {
	! grep -e 'sk-ant-api03-demo' -e 'ghp_abcdefghij' "$BATS_FILE_TMPDIR/demo.out" || false
	log=$(sed -n 's/^envshim log //p' "$BATS_FILE_TMPDIR/demo.out")
	[ -s "$log" ]
	! grep -e 'sk-ant-api03-demo' -e 'ghp_abcdefghij' "$log"
}
