#!/usr/bin/env bats
# The suite's own hygiene: checks that look like assertions but cannot fail.

# unchecked REGEX: every line of the bats files that matches REGEX (a
# Python regex), unless the statement it starts ends in '|| false' or is
# the last of its test.  Prints them as file:line: text; fails if any.
unchecked() {
	python3 - "$BATS_TEST_DIRNAME" "$1" <<'PY'
import glob, os, re, sys
bad = []
pat = re.compile(sys.argv[2])
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.ba*"))):
    lines = open(f).read().split("\n")
    for i, l in enumerate(lines):
        if not pat.match(l):
            continue
        j = i
        while lines[j].rstrip().endswith("\\"):
            j += 1
        if lines[j].rstrip().endswith("|| false"):
            continue
        k = j + 1
        while k < len(lines) and (not lines[k].strip() or lines[k].strip().startswith("#")):
            k += 1
        if k < len(lines) and lines[k].strip() == "}":
            continue
        bad.append("%s:%d: %s" % (os.path.basename(f), i + 1, l.strip()))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
}

# bash's errexit ignores a pipeline negated with '!', so in bats such a
# check fails its test only as the test's (or function's) last command.
# Anywhere else it must end in '|| false' (or use `run !`).
@test "no negated check in the middle of a test is silently ignored" {
	run unchecked '\s*! '
	[ "$status" -eq 0 ] || { echo "$output"; false; }
}

# The same rule spares every command of an && list but the last: in
# "[ A ] && [ B ]" a false A passes silently.  A guard ("[ A ] && cmd")
# is fine; a chain of checks must be one check per line.
@test "no chain of checks joined by && in the middle of a test" {
	run unchecked '\s*\[\[? .*\]\]? && !? ?\[\[? '
	[ "$status" -eq 0 ] || { echo "$output"; false; }
}
