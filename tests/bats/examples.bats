#!/usr/bin/env bats
# Every shipped example must do what its comments say: each policy parses
# (a broken example would refuse every launch of whoever copies it), and
# the alias file is valid shell.

bats_require_minimum_version 1.5.0
load common

setup() {
	export HOME=$BATS_TEST_TMPDIR/home
	export XDG_CONFIG_HOME=$HOME/.config
	mkdir -p "$HOME"
	unset ENVSHIM_POLICY ENVSHIM_MODE
	# As a user would: copied out of the tree, mode 644.  The checkout's own
	# modes depend on the cloner's umask, which the loader rightly judges.
	EX=$BATS_TEST_TMPDIR/examples
	mkdir -p "$EX"
	cp "$ROOT"/examples/*.policy "$EX/"
	chmod 644 "$EX"/*.policy
}

@test "every example policy parses: envshim policy --policy succeeds" {
	local n=0 p
	for p in "$EX"/*.policy; do
		run "$ENVSHIM" policy --policy "$p"
		[ "$status" -eq 0 ] || { echo "$p: $output"; return 1; }
		# the file really was read as a layer
		grep -q "layers:.*$(basename "$p")" <<<"$output" ||
			{ echo "$p not among the layers: $output"; return 1; }
		n=$((n + 1))
	done
	[ "$n" -ge 3 ]
}

@test "the annotated default policy changes nothing the builtin decides" {
	run "$ENVSHIM" check --format=tsv -- GITHUB_TOKEN=x NODE_OPTIONS=y \
		SSH_AUTH_SOCK=/s PAGER=less TERM=xterm
	[ "$status" -eq 0 ]
	builtin=$output
	run "$ENVSHIM" check --format=tsv --policy "$EX/default.policy" \
		-- GITHUB_TOKEN=x NODE_OPTIONS=y SSH_AUTH_SOCK=/s PAGER=less TERM=xterm
	[ "$status" -eq 0 ]
	[ "$output" = "$builtin" ]
}

@test "strict and ci policies drop what they promise" {
	run "$ENVSHIM" check --format=tsv --policy "$EX/strict.policy" \
		-- AWS_REGION=eu HTTPS_PROXY=http://p:3128 LANG=C
	[ "$status" -eq 0 ]
	grep -qx $'drop\tAWS_REGION\tpolicy' <<<"$output"
	grep -qx $'drop\tHTTPS_PROXY\tpolicy' <<<"$output"
	grep -qx $'keep\tLANG\tsafe' <<<"$output"
	run "$ENVSHIM" check --format=tsv --policy "$EX/ci.policy" \
		-- ACTIONS_RUNTIME_TOKEN=t GITHUB_SHA=abc CI=true
	[ "$status" -eq 0 ]
	grep -qx $'drop\tACTIONS_RUNTIME_TOKEN\tpolicy' <<<"$output"
	grep -qx $'keep\tGITHUB_SHA\tpolicy' <<<"$output"
	grep -qx $'keep\tCI\tpolicy' <<<"$output"
}

@test "a broken example would be caught" {
	cp "$EX/strict.policy" "$BATS_TEST_TMPDIR/bad.policy"
	echo 'dorp X' >>"$BATS_TEST_TMPDIR/bad.policy"
	chmod 600 "$BATS_TEST_TMPDIR/bad.policy"
	run "$ENVSHIM" policy --policy "$BATS_TEST_TMPDIR/bad.policy"
	[ "$status" -eq 125 ]
	grep -q "bad.policy:[0-9]*: unknown keyword" <<<"$output"
}

@test "aliases.sh is valid shell and defines the agents' aliases" {
	run bash -n "$ROOT/examples/aliases.sh"
	[ "$status" -eq 0 ]
	run bash -c "shopt -s expand_aliases; . '$ROOT/examples/aliases.sh'; alias"
	[ "$status" -eq 0 ]
	for a in claude gemini codex aider opencode qwen copilot; do
		grep -q "^alias $a=" <<<"$output" || { echo "no alias $a"; return 1; }
	done
	grep -qx "alias claude='envshim -- claude'" <<<"$output"
	grep -qx "alias codex='envshim -- codex'" <<<"$output"
}

@test "the AppArmor profile allows userns for the installed helper path" {
	f=$ROOT/examples/apparmor/envshim-sandbox
	grep -q '^profile envshim-sandbox /usr/local/libexec/envshim/envshim-sandbox ' "$f"
	grep -qx '  userns,' "$f"
}

@test "the README's policy in brief is a policy envshim reads, line for line" {
	# Copied from the README into ~/.config/envshim/policy, as it invites.
	awk '/^## Policy in brief/ { on = 1; next } /^## / { on = 0 }
		on && /^    / { sub(/^    /, ""); print }' "$ROOT/README.md" >"$EX/readme"
	chmod 644 "$EX/readme"
	n=$(grep -c . "$EX/readme")
	[ "$n" -ge 3 ]
	run -0 "$ENVSHIM" policy --policy "$EX/readme"
	[ "$(grep -c "# $EX/readme" <<<"$output")" -eq "$n" ]
}
