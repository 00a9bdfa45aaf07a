#!/usr/bin/env bats
# The suite's own hygiene: checks that look like assertions but cannot fail.

load leftovers

# unchecked REGEX: every line of the bats files that matches REGEX (a
# Python regex), unless the statement it starts ends in '|| false' or is
# the last of its test.  Prints them as file:line: text; fails if any.
unchecked() {
	python3 - "$BATS_TEST_DIRNAME" "$1" <<'PY'
import glob, os, re, sys
bad = []
pat = re.compile(sys.argv[2])
for f in sorted(glob.glob(os.path.join(sys.argv[1], "**", "*.ba*"), recursive=True)):
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

# A plain `run` always succeeds: what it ran is judged only by what comes
# after it.  One whose $status and $output nobody looks at before the next
# `run` or the end of the test checks nothing (`run -N` and `run !` check
# the status themselves).
@test "every plain run is looked at before the next run" {
	run python3 - "$BATS_TEST_DIRNAME" <<'PY'
import glob, os, re, sys
used = re.compile(r"\$\{?(status|output|lines|stderr|#lines)|<<<|\b(assert_\w+|no_secrets|lacks|clean|ns_cmp)\b")
bad = []
for f in sorted(glob.glob(os.path.join(sys.argv[1], "**", "*.bats"), recursive=True)):
    raw = open(f).read().split("\n")
    stmts, j = [], 0
    while j < len(raw):
        n, s = j + 1, raw[j]
        while s.rstrip().endswith("\\") and j + 1 < len(raw):
            j += 1
            s = s.rstrip()[:-1] + " " + raw[j].strip()
        stmts.append((n, s.strip()))
        j += 1
    for k, (n, s) in enumerate(stmts):
        if not re.match(r"run (?!-\d|!)", s):
            continue
        m = k + 1
        while m < len(stmts) and not re.match(r"run\b", stmts[m][1]) and stmts[m][1] != "}":
            if used.search(stmts[m][1]):
                break
            m += 1
        else:
            bad.append("%s:%d: %s" % (os.path.basename(f), n, s[:80]))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
	[ "$status" -eq 0 ] || { echo "$output"; false; }
}

# The rooms of shim/ (docs/design.md): dependencies run cli -> preload and
# sandbox -> engine, with no circle between two files, read from the
# objects the build made.  A room's private header is out of reach of the
# others by construction: only include/ is on the include path.
@test "the rooms' dependencies run one way, with no circle" {
	[ -d "$BATS_TEST_DIRNAME/../../build/obj/engine" ] || { echo "build first"; false; }
	run python3 "$BATS_TEST_DIRNAME/../rooms.py" "$BATS_TEST_DIRNAME/../../build"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ -z "$output" ]
}
