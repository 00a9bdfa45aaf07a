# Loaded by every bats file (common.bash, cli.bash, or directly): after
# the file's tests, teardown_file fails the file if they left a process
# running or another user's /tmp/envshim-* directory behind, and kills
# the processes, so the suite goes on at once (bats waits for every
# process holding its output).  Processes are found as the children of
# the reaper `make bats` runs the suite under (tests/progs/reaper.c),
# which every orphan is re-parented to; a file run by bats alone checks
# only /tmp.

ES_LEFTOVERS_REAPER="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/progs/reaper"

# The /tmp/envshim-UID entries (where sessions once went: a base another
# user's run could never use again) of the other user the tests run as
# (nobody, as_nobody's, when the suite is root), one "NAME OWNER" a line.
# Only those: another suite on the machine (make e2e's users, a doctor's
# scratch directory of a moment) is not this file's doing.
es_foreign_tmp() {
	[ "$(id -u)" = 0 ] || return 0
	find /tmp -maxdepth 1 -name 'envshim-[0-9]*' -user 65534 -printf '%f %u\n' 2>/dev/null | sort
}

# What /tmp held when the file started: what the file is not to blame for.
if [ -n "${BATS_FILE_TMPDIR:-}" ] && [ ! -e "$BATS_FILE_TMPDIR/.foreign-tmp" ]; then
	es_foreign_tmp >"$BATS_FILE_TMPDIR/.foreign-tmp"
fi

teardown_file() {
	local fail=0 new
	if [ -n "${ES_TEST_REAPER:-}" ] && ! "$ES_LEFTOVERS_REAPER" --leftovers; then
		echo "the tests of $(basename "$BATS_TEST_FILENAME") left the processes above running" >&2
		fail=1
	fi
	new=$(es_foreign_tmp | comm -13 "$BATS_FILE_TMPDIR/.foreign-tmp" -)
	if [ -n "$new" ]; then
		echo "the tests of $(basename "$BATS_TEST_FILENAME") left another user's files in /tmp:" >&2
		echo "$new" >&2
		fail=1
	fi
	return $fail
}
