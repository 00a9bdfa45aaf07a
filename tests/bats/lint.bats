#!/usr/bin/env bats
# The suite's own hygiene: checks that look like assertions but cannot fail.

# bash's errexit ignores a pipeline negated with '!', so in bats such a
# check fails its test only as the test's (or function's) last command.
# Anywhere else it must end in '|| false' (or use `run !`).
@test "no negated check in the middle of a test is silently ignored" {
	run python3 - "$BATS_TEST_DIRNAME" <<'PY'
import glob, os, re, sys
bad = []
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.ba*"))):
    lines = open(f).read().split("\n")
    for i, l in enumerate(lines):
        if not re.match(r"\s*! ", l):
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
	[ "$status" -eq 0 ] || { echo "$output"; false; }
}
