#!/usr/bin/env bats
# make install / uninstall with PREFIX and DESTDIR, in a private build dir.

bats_require_minimum_version 1.5.0

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
