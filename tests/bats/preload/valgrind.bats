#!/usr/bin/env bats
# The shim under valgrind's memcheck, in a real process, through each kind
# of entry point: no invalid access, no use of uninitialised memory, no
# definite leak.  (ASan cannot be preloaded; valgrind can watch the shim.)

load ../common

setup() {
	HOME=$BATS_TEST_TMPDIR/home
	mkdir -p "$HOME"
	printf 'sandbox off\n' >"$BATS_TEST_TMPDIR/p"
	chmod 644 "$BATS_TEST_TMPDIR/p"
}

# memcheck PROG ARGS: PROG is the launch root, the shim preloaded, under
# memcheck.  Its tool binary runs directly (static: it does not load the
# shim itself; /usr/bin/valgrind is a script the shim would see).
memcheck() {
	env -i HOME="$HOME" PATH=/usr/bin:/bin XDG_STATE_HOME="$BATS_TEST_TMPDIR/state" \
		ENVSHIM_POLICY="$BATS_TEST_TMPDIR/p" GITHUB_TOKEN="$GH" NODE_OPTIONS=x \
		VALGRIND_LIB=/usr/libexec/valgrind VALGRIND_LAUNCHER=/usr/bin/valgrind.bin \
		bash -c 'LD_PRELOAD="$0" exec /usr/libexec/valgrind/memcheck-amd64-linux \
			--tool=memcheck -q --error-exitcode=99 --leak-check=full \
			--errors-for-leak-kinds=definite "$@"' "$SHIM" "$@"
}

@test "memcheck finds nothing in the shim on every kind of launch" {
	local how
	for how in "execve /usr/bin/true" "execvp true" "execl /usr/bin/true" \
		"vfork /usr/bin/true" "fork-environ true" "posix_spawn /usr/bin/true" \
		"posix_spawnp true" "system true" "popen true" "syscall /usr/bin/true"; do
		run memcheck "$SPAWN" $how
		echo "$how: status $status: $output"
		[ "$status" -eq 0 ]
	done
	# The shim was there: every launch left its record, the token dropped.
	[ "$(grep -c '"name":"GITHUB_TOKEN","reason":"secret-name"' \
		"$BATS_TEST_TMPDIR/state/envshim/audit.jsonl")" -eq 10 ]
}

@test "memcheck does report a fault in the same set-up (the test can fail)" {
	cat >"$BATS_TEST_TMPDIR/bad.c" <<'C'
#include <stdlib.h>
int main(void) { int *p = malloc(4); free(p); return p[0] == 7; }
C
	cc -o "$BATS_TEST_TMPDIR/bad" "$BATS_TEST_TMPDIR/bad.c"
	run memcheck "$BATS_TEST_TMPDIR/bad"
	[ "$status" -eq 99 ]
}
