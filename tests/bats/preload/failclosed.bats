#!/usr/bin/env bats
# A security tool fails closed: what the shim refuses, and how it says so.

load ../common

setup() {
	HOME=$BATS_TEST_TMPDIR/home
	mkdir -p "$HOME"
}

policy() {
	printf '%s\n' "$@" >"$BATS_TEST_TMPDIR/policy"
	chmod 644 "$BATS_TEST_TMPDIR/policy"
	P="ENVSHIM_POLICY=$BATS_TEST_TMPDIR/policy"
}

@test "a policy with a syntax error refuses every launch, naming file:line" {
	policy 'mode enforce' 'dorp GITHUB_TOKEN'
	run agent "$P" -- "$SPAWN" execve /usr/bin/env
	[ "$status" -eq 122 ]
	grep -q "envshim: refused /usr/bin/env: bad policy: $BATS_TEST_TMPDIR/policy:2" <<<"$output"
	grep -qx "errno=1" <<<"$output"
}

@test "posix_spawn returns EPERM under a bad policy and the agent keeps running" {
	policy 'network sideways'
	run agent "$P" -- "$SPAWN" posix_spawn /usr/bin/env
	[ "$status" -eq 122 ]
	grep -qx "errno=1" <<<"$output"
	grep -q "envshim: refused" <<<"$output"
}

@test "a world-writable policy file is refused" {
	policy 'sandbox off'
	chmod 666 "$BATS_TEST_TMPDIR/policy"
	run agent "$P" -- "$SPAWN" execve /usr/bin/env
	[ "$status" -eq 122 ]
	grep -q "envshim: refused" <<<"$output"
}

@test "a statically linked program is refused under unfollowable refuse" {
	policy 'unfollowable refuse'
	run agent "$P" -- "$SPAWN" execve "$BUILD/progs/static_hello"
	[ "$status" -eq 122 ]
	grep -q "refused $BUILD/progs/static_hello: statically linked program" <<<"$output"
	! grep -q "static hello" <<<"$output"
}

@test "a static program runs with unfollowable allow (and is logged)" {
	policy 'unfollowable allow'
	run agent "$P" -- "$SPAWN" execve "$BUILD/progs/static_hello"
	[ "$status" -eq 0 ]
	grep -q "static hello" <<<"$output"
}

@test "setuid and file-capability programs are refused under unfollowable refuse" {
	policy 'unfollowable refuse'
	cp /usr/bin/env "$BATS_TEST_TMPDIR/suid-env"
	chmod u+s "$BATS_TEST_TMPDIR/suid-env"
	run agent "$P" -- "$SPAWN" execve "$BATS_TEST_TMPDIR/suid-env"
	[ "$status" -eq 122 ]
	grep -q "setuid or setgid program" <<<"$output"
	cp /usr/bin/env "$BATS_TEST_TMPDIR/cap-env"
	setcap cap_net_raw+ep "$BATS_TEST_TMPDIR/cap-env"
	run agent "$P" -- "$SPAWN" execve "$BATS_TEST_TMPDIR/cap-env"
	[ "$status" -eq 122 ]
	grep -q "file capabilities" <<<"$output"
}

@test "a script whose interpreter is static is judged by its interpreter" {
	policy 'unfollowable refuse'
	printf '#!%s\n' "$BUILD/progs/static_hello" >"$BATS_TEST_TMPDIR/s"
	chmod +x "$BATS_TEST_TMPDIR/s"
	run agent "$P" -- "$SPAWN" execve "$BATS_TEST_TMPDIR/s"
	[ "$status" -eq 122 ]
	grep -q "interpreter the shim cannot follow" <<<"$output"
}

@test "a shell launch with no helper next to the shim or installed is refused" {
	mkdir -p "$BATS_TEST_TMPDIR/lone"
	cp "$SHIM" "$BATS_TEST_TMPDIR/lone/"
	SHIM=$BATS_TEST_TMPDIR/lone/libenvshim.so
	run agent -- "$SPAWN" execve /bin/sh -c 'echo ran'
	[ "$status" -eq 122 ]
	grep -q "envshim-sandbox is not installed" <<<"$output"
	! grep -qx ran <<<"$output"
}

@test "argc == 0 is refused (pwnkit)" {
	run agent -- python3 -c 'import ctypes; l=ctypes.CDLL(None); a=(ctypes.c_char_p*1)(None); print(l.execve(b"/usr/bin/env", a, a), ctypes.get_errno())'
	grep -q "argc 0" <<<"$output"
}

@test "execl with a thousand arguments (ctypes' most) is gathered and filtered" {
	run agent -- python3 -c '
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
args = [b"A%d=1" % i for i in range(1000)] + [b"/usr/bin/env", None]
libc.execl(b"/usr/bin/env", b"env", *args)'
	[ "$status" -eq 0 ]
	grep -qx 'A999=1' <<<"$output"
	assert_filtered
}

@test "execveat with AT_EMPTY_PATH and a NULL path is fexecve, not a crash" {
	run agent -- python3 -c '
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open("/usr/bin/env", os.O_RDONLY)
argv = (ctypes.c_char_p * 2)(b"env", None)
envp = (ctypes.c_char_p * (len(os.environ) + 1))(*[("%s=%s" % kv).encode() for kv in os.environ.items()], None)
libc.execveat(fd, None, argv, envp, 0x1000)
print("errno=%d" % ctypes.get_errno())'
	[ "$status" -eq 0 ]
	assert_filtered
}
