#!/usr/bin/env bats
# A threaded agent that churns malloc, stdio and setenv while it forks,
# vforks and spawns: the shim must never hang or crash it.  Bounded by
# timeout; no timing is asserted.

load ../common

setup() {
	HOME=$BATS_TEST_TMPDIR/home
	mkdir -p "$HOME"
}

@test "10,000 fork+execve launches from 8 threads while 8 threads churn" {
	run timeout 600 env -i HOME="$HOME" PATH=/usr/bin:/bin \
		XDG_STATE_HOME="$BATS_TEST_TMPDIR/state" LD_PRELOAD="$SHIM" \
		"$BUILD/progs/storm" fork 10000
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "10000 launches, 0 failures" ]
	# Every launch was seen and filtered, not passed through.
	[ "$(grep -c '{"name":"AWS_SECRET_ACCESS_KEY","reason":"secret-name"}' \
		"$BATS_TEST_TMPDIR/state/envshim/audit.jsonl")" -eq 10000 ]
}

@test "a vfork storm from 8 threads" {
	run timeout 300 env -i HOME="$HOME" PATH=/usr/bin:/bin \
		XDG_STATE_HOME="$BATS_TEST_TMPDIR/state" LD_PRELOAD="$SHIM" \
		"$BUILD/progs/storm" vfork 3000
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "3000 launches, 0 failures" ]
}

@test "posix_spawn from 8 threads at once" {
	run timeout 300 env -i HOME="$HOME" PATH=/usr/bin:/bin \
		XDG_STATE_HOME="$BATS_TEST_TMPDIR/state" LD_PRELOAD="$SHIM" \
		"$BUILD/progs/storm" spawn 3000
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "3000 launches, 0 failures" ]
	# one record a launch (beside the helper's own: what each sandbox hid,
	# what came from inside)
	[ "$(grep -c '"hook":"posix_spawn"' "$BATS_TEST_TMPDIR/state/envshim/audit.jsonl")" -eq 3000 ]
}
