#!/usr/bin/python3
"""mcp_server.py - a small stdio MCP server for the program-rule tests.

Reads JSON-RPC lines on stdin and answers `initialize` the way an MCP
server does (and every other request as a server with no tools would).  Its result says, for each NAME given with --report, whether
this process has it, as "unset" or "set:LEN:SHA8" (never the value), the
user namespace it runs in, whether it is dumpable, and with --child the
same report from a child it starts: itself again, directly or with
--child-shell through `sh -c` (as npx starts a server), or with
--child-exec FILE that program; --child-cmd CMD runs `sh -c CMD` instead
and reports its exit status (a command the test holds on a fifo).  --reexec makes it exec itself once first, as some Python
servers do.  --require NAME makes it exit 1 at once when NAME is unset,
as a server does without its token.  --write FILE appends the report to
FILE too (for an agent that keeps the answer to itself).  --report-only prints the report and
exits (the child's part).
Standard library only.
"""
import ctypes
import hashlib
import json
import os
import subprocess
import sys


def report(names):
    seen = {}
    for n in names:
        v = os.environ.get(n)
        if v is None:
            seen[n] = "unset"
        else:
            h = hashlib.sha256(v.encode()).hexdigest()[:8]
            seen[n] = "set:%d:%s" % (len(v), h)
    dumpable = ctypes.CDLL(None, use_errno=True).prctl(3, 0, 0, 0, 0)
    return {"env": seen, "userns": os.readlink("/proc/self/ns/user"),
            "pid": os.getpid(), "dumpable": dumpable}


def main():
    args = sys.argv[1:]
    names, child, shell, reexec, only = [], False, False, False, False
    cmd_only = None
    prog = [sys.executable, os.path.abspath(__file__)]
    need, write_to = [], None
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--report":
            names.append(args[i + 1])
            i += 1
        elif a == "--child":
            child = True
        elif a == "--child-shell":
            child = shell = True
        elif a == "--child-exec":
            child = True
            prog = [args[i + 1]]
            i += 1
        elif a == "--child-cmd":
            cmd_only = args[i + 1]
            i += 1
        elif a == "--reexec":
            reexec = True
        elif a == "--report-only":
            only = True
        elif a == "--write":
            write_to = args[i + 1]
            i += 1
        elif a == "--require":
            need.append(args[i + 1])
            i += 1
        i += 1
    if only:
        print(json.dumps(report(names)))
        return 0
    for n in need:
        if n not in os.environ:
            sys.stderr.write("mcp_server.py: %s is not set\n" % n)
            return 1
    if reexec:
        rest = [a for a in sys.argv[1:] if a != "--reexec"]
        os.execv(sys.executable, [sys.executable, os.path.abspath(__file__)] + rest)
    for line in sys.stdin:
        msg = json.loads(line)
        if "id" not in msg:
            continue        # a notification: nothing to answer
        if msg.get("method") != "initialize":
            # An empty server, so that agents list it as healthy.
            res = {"tools": []} if msg.get("method") == "tools/list" else {}
            if msg.get("method") in ("prompts/list", "resources/list"):
                res = {msg["method"].split("/")[0]: []}
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"],
                                         "result": res}) + "\n")
            sys.stdout.flush()
            continue
        info = report(names)
        if cmd_only is not None:
            info["child"] = {"status": subprocess.run(
                ["/bin/sh", "-c", cmd_only], stdout=subprocess.DEVNULL).returncode}
        elif child:
            cmd = prog + ["--report-only"]
            for n in names:
                cmd += ["--report", n]
            if shell:
                cmd = ["/bin/sh", "-c", " ".join(cmd)]
            out = subprocess.run(cmd, stdout=subprocess.PIPE, check=True)
            info["child"] = json.loads(out.stdout)
        if write_to is not None:
            with open(write_to, "a") as f:
                f.write(json.dumps(info) + "\n")
        reply = {"jsonrpc": "2.0", "id": msg.get("id"), "result": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "serverInfo": {"name": "envshim-test-mcp", "version": "1"},
            "report": info}}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
