#!/usr/bin/env python3
"""The house plan, checked from the objects the build made.

Usage: rooms.py BUILD

Reads every BUILD/{obj,pic,musl}/ROOM/FILE.o with nm(1), links each undefined
symbol to the object that defines it, and fails on a dependency that runs
against the arrows (cli -> preload, sandbox -> engine) or on a circle
between two files.  Prints each file's dependencies on failure.
"""
import glob
import os
import subprocess
import sys

# What each room may use besides itself.
ALLOWED = {
    "engine": set(),
    "preload": {"engine"},
    "sandbox": {"engine"},
    "cli": {"engine", "preload", "sandbox"},
}


def graph(top):
    defs, undef = {}, {}
    for o in sorted(glob.glob(os.path.join(top, "*", "*.o"))):
        name = os.path.relpath(o, top)[:-2]
        out = subprocess.run(["nm", o], capture_output=True, text=True,
                             check=True).stdout
        d, u = set(), set()
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in "TDBRCV":
                d.add(f[2])
            elif len(f) == 2 and f[0] == "U":
                u.add(f[1])
        defs[name], undef[name] = d, u
    who = {s: n for n, d in defs.items() for s in d}
    return {n: sorted({who[s] for s in undef[n] if who.get(s, n) != n})
            for n in defs}


def circles(g):
    found, state = [], {}

    def walk(n, path):
        state[n] = 1
        for m in g[n]:
            if state.get(m) == 1:
                found.append(path[path.index(m):] + [m])
            elif m not in state:
                walk(m, path + [m])
        state[n] = 2

    for n in g:
        if n not in state:
            walk(n, [n])
    return found


def main():
    bad, seen = [], 0
    for kind in ("obj", "pic", "musl"):
        g = graph(os.path.join(sys.argv[1], kind))
        seen += len(g)
        for n, deps in g.items():
            room = n.split("/")[0]
            if room not in ALLOWED:
                bad.append(f"{kind}/{n}: {room} is not a room")
                continue
            for m in deps:
                other = m.split("/")[0]
                if other != room and other not in ALLOWED[room]:
                    bad.append(f"{kind}/{n} uses {m}: {room} may not use {other}")
        for c in circles(g):
            bad.append(f"{kind}: a circle: {' -> '.join(c)}")
        if bad:
            for n, deps in g.items():
                print(f"  {kind}/{n} -> {' '.join(deps)}", file=sys.stderr)
    if seen == 0:
        bad.append("no objects found: build first")
    for b in bad:
        print(b, file=sys.stderr)
    sys.exit(1 if bad else 0)


main()
