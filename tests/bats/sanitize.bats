#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# The command and the helper built with ASan+UBSan (make asan-bins), run
# through their subcommands, success and failure paths: no memory error,
# no undefined behaviour, no leak at exit.

load common

ASAN_BIN=$BUILD/asan-bin

setup() {
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
	export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	nobody_dirs
	# The sanitized command next to the shim, as installed.  The sanitized
	# helper runs on its own: under the shim ASan would not load first.
	cp "$ASAN_BIN/envshim" "$BATS_TEST_TMPDIR/bin/"
	cp "$ASAN_BIN/envshim-sandbox" "$BATS_TEST_TMPDIR/bin/asan-helper"
	chmod -R a+rX "$BATS_TEST_TMPDIR/bin"
	HELPER=$BATS_TEST_TMPDIR/bin/asan-helper
	printf 'drop FOO_*\nset EDITOR=vi\nnetwork off\nhide ~/.private\n' >"$BATS_TEST_TMPDIR/p"
	printf 'dorp X\n' >"$BATS_TEST_TMPDIR/bad"
	chmod 644 "$BATS_TEST_TMPDIR/p" "$BATS_TEST_TMPDIR/bad"
	cd "$BATS_TEST_TMPDIR/ws"
}

clean() {
	if grep -E 'Sanitizer|runtime error' <<<"$output"; then
		echo "sanitizer report above"
		return 1
	fi
}

# Control: the programs under test really carry both sanitizers, or every
# "clean" below would hold for want of a sanitizer to speak.
@test "the command and the helper under test are built with ASan and UBSan" {
	local p
	for p in "$ENVSHIM" "$HELPER"; do
		run env ASAN_OPTIONS=help=1 "$p" --version
		[ "$status" -eq 0 ]
		grep -q '^Available flags for AddressSanitizer:' <<<"$output"
		nm "$p" | grep -q '__ubsan_handle_'
	done
}

@test "envshim check, policy and --help are clean under ASan+UBSan" {
	run "$ENVSHIM" check --format=json --policy "$BATS_TEST_TMPDIR/p" -- \
		GITHUB_TOKEN="$GH" PATH=/bin:.:/usr/bin FOO_X=1 'BASH_FUNC_x%%=() { :; }' NOEQ
	[ "$status" -eq 0 ]
	clean
	for f in table tsv; do
		run "$ENVSHIM" check --format=$f
		[ "$status" -eq 0 ]
		clean
	done
	run "$ENVSHIM" policy --builtin --policy "$BATS_TEST_TMPDIR/p"
	[ "$status" -eq 0 ]
	clean
	run "$ENVSHIM" --help
	[ "$status" -eq 0 ]
	clean
	run "$ENVSHIM" check --policy "$BATS_TEST_TMPDIR/bad"
	[ "$status" -eq 125 ]
	clean
}

@test "envshim log and doctor are clean under ASan+UBSan" {
	run as_nobody env -i HOME="$HOME" PATH=/usr/bin:/bin XDG_STATE_HOME="$BATS_TEST_TMPDIR/state" \
		GITHUB_TOKEN="$GH" "$ENVSHIM" -- "$SPAWN" execvp bash -c 'env >/dev/null; /usr/bin/true'
	[ "$status" -eq 0 ]
	clean
	run "$ENVSHIM" log "$BATS_TEST_TMPDIR/state/envshim/audit.jsonl"
	[ "$status" -eq 0 ]
	clean
	grep -q "sandboxed: 1" <<<"$output"
	run "$ENVSHIM" log --json --since 1h "$BATS_TEST_TMPDIR/state/envshim/audit.jsonl"
	[ "$status" -eq 0 ]
	clean
	run as_nobody env HOME="$HOME" XDG_STATE_HOME="$BATS_TEST_TMPDIR/state" "$ENVSHIM" doctor
	[ "$status" -eq 0 ]
	clean
}

@test "envshim run mode and its refusals are clean under ASan+UBSan" {
	run "$ENVSHIM" -- /usr/bin/true
	[ "$status" -eq 0 ]
	clean
	run "$ENVSHIM" -- "$BATS_TEST_TMPDIR/bin/static_hello"
	[ "$status" -eq 125 ]
	clean
	run -127 "$ENVSHIM" -- /nonexistent/prog
	[ "$status" -eq 127 ]
	clean
	run "$ENVSHIM" --policy "$BATS_TEST_TMPDIR/bad" -- /usr/bin/true
	[ "$status" -eq 125 ]
	clean
}

@test "envshim-sandbox is clean under ASan+UBSan: success, exit status, refusals" {
	mkdir -p "$HOME/.private"
	run as_nobody env -i HOME="$HOME" PATH=/usr/bin:/bin "$HELPER" \
		--policy "$BATS_TEST_TMPDIR/p" -- sh -c 'ls ~/.private; exit 3'
	[ "$status" -eq 3 ]
	clean
	run -127 as_nobody env -i HOME="$HOME" PATH=/usr/bin:/bin "$HELPER" -- /nonexistent/x
	[ "$status" -eq 127 ]
	clean
	run as_nobody env -i HOME="$HOME" PATH=/usr/bin:/bin "$HELPER" \
		--policy "$BATS_TEST_TMPDIR/bad" -- true
	[ "$status" -eq 125 ]
	clean
}
