#!/bin/sh
# Installs what the tests need when it is missing: as root through apt-get,
# otherwise it prints the exact command and fails.
set -u
pkgs=""
have_cmocka() {
	[ -f /usr/include/cmocka.h ] && { ls /usr/lib/*/libcmocka.so* ||
		ls /usr/lib/libcmocka.so*; } >/dev/null 2>&1
}
have_cmocka || pkgs="$pkgs libcmocka-dev"
command -v bats >/dev/null 2>&1 || pkgs="$pkgs bats"
command -v clang >/dev/null 2>&1 || pkgs="$pkgs clang"
# libFuzzer (make fuzz, fuzz-short) comes with clang's runtime libraries.
ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1 ||
	pkgs="$pkgs libclang-rt-14-dev"
command -v setpriv >/dev/null 2>&1 || pkgs="$pkgs util-linux"
command -v script >/dev/null 2>&1 || pkgs="$pkgs bsdutils"
command -v python3 >/dev/null 2>&1 || pkgs="$pkgs python3"
command -v perl >/dev/null 2>&1 || pkgs="$pkgs perl"
command -v git >/dev/null 2>&1 || pkgs="$pkgs git"
command -v make >/dev/null 2>&1 || pkgs="$pkgs make"
# hooks.bats runs real Node agents and npm scripts; failclosed.bats setcap.
command -v node >/dev/null 2>&1 || pkgs="$pkgs nodejs"
command -v npm >/dev/null 2>&1 || pkgs="$pkgs npm"
command -v setcap >/dev/null 2>&1 || pkgs="$pkgs libcap2-bin"
command -v pgrep >/dev/null 2>&1 || pkgs="$pkgs procps"
# contain_go.bats builds a static Go agent (stdlib only, CGO_ENABLED=0).
command -v go >/dev/null 2>&1 || pkgs="$pkgs golang-go"
[ -x /usr/libexec/valgrind/memcheck-amd64-linux ] || pkgs="$pkgs valgrind"
command -v man >/dev/null 2>&1 || pkgs="$pkgs man-db"
command -v groff >/dev/null 2>&1 || pkgs="$pkgs groff-base"
[ -f /usr/lib/x86_64-linux-gnu/libc.a ] || [ -n "$(ls /usr/lib/*/libc.a 2>/dev/null)" ] || pkgs="$pkgs libc6-dev"
# The sandbox helper links statically against musl when it is there.
ls /usr/lib/*-linux-musl/rcrt1.o >/dev/null 2>&1 || pkgs="$pkgs musl-dev"
[ -z "$pkgs" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "deps: installing$pkgs"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null && apt-get install -y -qq $pkgs >/dev/null || {
		echo "deps: apt-get install$pkgs failed" >&2; exit 1; }
	exit 0
fi
echo "deps: missing$pkgs; install them with:" >&2
echo "  sudo apt-get install$pkgs" >&2
exit 1
