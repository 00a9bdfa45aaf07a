#!/usr/bin/env bats
# make install / uninstall with PREFIX and DESTDIR, in a private build dir.

bats_require_minimum_version 1.5.0
load leftovers

@test "make install DESTDIR=... PREFIX=/usr lays out the tree, uninstall removes it" {
	top="$BATS_TEST_DIRNAME/../.."
	root="$BATS_TEST_TMPDIR/root"
	run -0 make -C "$top" --no-print-directory -s B="$BATS_TEST_TMPDIR/build" \
	    install DESTDIR="$root" PREFIX=/usr
	[ -x "$root/usr/bin/envshim" ]
	[ -f "$root/usr/lib/envshim/libenvshim.so" ]
	[ -x "$root/usr/libexec/envshim/envshim-sandbox" ]
	[ "$(stat -c %a "$root/usr/libexec/envshim/envshim-sandbox")" = 755 ]
	[ "$(stat -c %a "$root/usr/lib/envshim/libenvshim.so")" = 644 ]
	# The installed command looks for the installed shim and helper.
	grep -q /usr/lib/envshim "$root/usr/bin/envshim"
	grep -q /usr/libexec/envshim "$root/usr/bin/envshim"
	for f in "$top"/docs/*.1; do
		[ -e "$f" ] || continue
		[ -f "$root/usr/share/man/man1/$(basename "$f")" ]
	done
	for f in "$top"/docs/*.5; do
		[ -e "$f" ] || continue
		[ -f "$root/usr/share/man/man5/$(basename "$f")" ]
	done
	for f in "$top"/examples/*; do
		[ -e "$f" ] || continue
		[ -e "$root/usr/share/doc/envshim/examples/$(basename "$f")" ]
	done
	"$root/usr/bin/envshim" --version
	run -0 make -C "$top" --no-print-directory -s B="$BATS_TEST_TMPDIR/build" \
	    uninstall DESTDIR="$root" PREFIX=/usr
	[ -z "$(find "$root" -type f)" ]
}

@test "an installed envshim uses the installed shim and helper, with no build tree left" {
	top="$BATS_TEST_DIRNAME/../.."
	pfx="$BATS_TEST_TMPDIR/pfx"
	run -0 make -C "$top" --no-print-directory -s B="$BATS_TEST_TMPDIR/build" \
	    install PREFIX="$pfx"
	rm -rf "$BATS_TEST_TMPDIR/build"
	mkdir -p "$BATS_TEST_TMPDIR/ws" "$BATS_TEST_TMPDIR/home"
	cd "$BATS_TEST_TMPDIR/ws"
	gh=ghp_abcdefghijklmnopqrstuvwxyz0123456789
	# A perl agent: its sh -c goes to the installed helper's sandbox.
	run -0 env -i HOME="$BATS_TEST_TMPDIR/home" PATH=/usr/bin:/bin \
	    XDG_STATE_HOME="$BATS_TEST_TMPDIR/state" GITHUB_TOKEN="$gh" \
	    "$pfx/bin/envshim" -- perl -e 'system("sh", "-c",
	        "readlink /proc/self/ns/user; echo \"token=\$GITHUB_TOKEN\"");
	        print readlink("/proc/self/ns/user"), "\n", "agent=$ENV{GITHUB_TOKEN}\n"'
	[ "${#lines[@]}" -eq 4 ]
	[ "${lines[0]}" != "${lines[2]}" ]
	[ "${lines[1]}" = "token=" ]
	[ "${lines[3]}" = "agent=$gh" ]
	grep -q "\"path\":\"/usr/bin/sh\",\|\"path\":\"/bin/sh\"," "$BATS_TEST_TMPDIR/state/envshim/audit.jsonl"
	grep -q '"action":"sandbox"' "$BATS_TEST_TMPDIR/state/envshim/audit.jsonl"
	run -0 env HOME="$BATS_TEST_TMPDIR/home" XDG_STATE_HOME="$BATS_TEST_TMPDIR/state" \
	    "$pfx/bin/envshim" doctor
	grep -qx "ok   shim: $pfx/lib/envshim/libenvshim.so" <<<"$output"
	grep -qx "ok   sandbox helper: $pfx/libexec/envshim/envshim-sandbox" <<<"$output"
	[ -f "$pfx/share/doc/envshim/examples/strict.policy" ]
	[ -f "$pfx/share/man/man1/envshim.1" ]
}
