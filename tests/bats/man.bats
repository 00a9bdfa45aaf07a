#!/usr/bin/env bats
# The man pages render without a single warning, through man(1) as a user
# would read them and through groff with every warning turned on.

load common

PAGES="envshim.1 envshim-sandbox.1 envshim-policy.5"

@test "every man page exists" {
	for p in $PAGES; do
		[ -s "$ROOT/docs/$p" ] || { echo "missing docs/$p"; return 1; }
	done
}

@test "man --warnings=all renders every page silently" {
	for p in $PAGES; do
		out=$(MANWIDTH=80 man --warnings=all -l "$ROOT/docs/$p" 2>&1 >/dev/null)
		[ -z "$out" ] || { echo "$p: $out"; return 1; }
		# and it really rendered: the NAME line is there
		MANWIDTH=80 man -l "$ROOT/docs/$p" 2>/dev/null | grep -q '^NAME'
	done
}

@test "groff -ww -mandoc finds nothing to warn about" {
	for p in $PAGES; do
		out=$(groff -ww -mandoc -Tutf8 -z "$ROOT/docs/$p" 2>&1)
		[ -z "$out" ] || { echo "$p: $out"; return 1; }
	done
}

@test "a page with a mistake does make the check fail" {
	# The check above is only worth something if a broken page is caught.
	sed 's/^\.Sh DESCRIPTION/.Sh DESCRIPTION\n.Bl -tag/' "$ROOT/docs/envshim.1" \
		>"$BATS_TEST_TMPDIR/broken.1"
	out=$(groff -ww -mandoc -Tutf8 -z "$BATS_TEST_TMPDIR/broken.1" 2>&1)
	[ -n "$out" ]
}

@test "envshim --help and the SYNOPSIS of envshim(1) name the same options and subcommands" {
	# --contain was in --help and nowhere in the man page.
	words() {
		grep -o -e '--[a-z][a-z-]*' -e '^ *\(usage: \)\?envshim [a-z]\+' | sed 's/.* //' | sort -u
	}
	help=$("$BUILD/envshim" --help | words)
	page=$(LC_ALL=C MANWIDTH=200 man -l "$ROOT/docs/envshim.1" 2>/dev/null |
		sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' | words)
	[[ "$help" == *--contain* ]]
	[[ "$help" == *doctor* ]]
	diff <(echo "$help") <(echo "$page")
	# and each option is described, not only listed in the SYNOPSIS
	body=$(LC_ALL=C MANWIDTH=200 man -l "$ROOT/docs/envshim.1" 2>/dev/null |
		sed -n '/^DESCRIPTION/,$p')
	for o in $(grep -- '^--' <<<"$help"); do
		grep -q -e "^ *$o\b" <<<"$body" || { echo "$o is not described"; return 1; }
	done
}

@test "every paragraph of every page closes the parentheses it opens" {
	# A .Pq that closed at the end of its line left envshim-sandbox(1)
	# saying "(sh, bash, ..., busybox's sh), and the names of shell lines),".
	for p in $PAGES; do
		LC_ALL=C MANWIDTH=80 man -l "$ROOT/docs/$p" 2>/dev/null | awk -v p="$p" '
			BEGIN { RS = ""; bad = 0 }
			{ o = gsub(/\(/, "("); c = gsub(/\)/, ")")
			  if (o != c) { print p ": " substr($0, 1, 200); bad = 1 } }
			END { exit bad }'
	done
}
