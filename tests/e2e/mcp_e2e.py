#!/usr/bin/python3
"""mcp_e2e.py - the stdio MCP server the real agents start in the e2e suite.

    python3 mcp_e2e.py --label L --report VAR --write FILE

tests/progs/mcp_server.py with one tool: it answers `initialize` (with the
client's protocol version, and a tools capability), lists one tool,
`e2e_report_L`, and answers a call of it with "E2E-MCP-TOOL L marker=N",
N being how many times the e2e token marker (E2ESECRETmcp) is in VAR: what
the model sees says whether the server got its token, never the value.
At each `initialize` it appends mcp_server.py's report of VAR
("set:LEN:SHA8" or "unset", never the value) to FILE, with the label,
so that the runner can tell which token reached it.  The runner copies
it next to mcp_server.py, which it imports.  Standard library only.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcp_server import report  # noqa: E402

MARKER = "E2ESECRETmcp"


def answer(msg, label, var, write_to):
    """The result for one request."""
    method = msg.get("method")
    tool = "e2e_report_" + label
    if method == "initialize":
        with open(write_to, "a") as f:
            f.write(json.dumps(dict(report([var]), label=label)) + "\n")
        ver = (msg.get("params") or {}).get("protocolVersion") or "2025-06-18"
        return {"protocolVersion": ver, "capabilities": {"tools": {}},
                "serverInfo": {"name": "envshim-e2e-" + label, "version": "1"}}
    if method == "tools/list":
        return {"tools": [{"name": tool,
                           "description": "Reports whether this server got its token.",
                           "inputSchema": {"type": "object", "properties": {}}}]}
    if method == "tools/call":
        n = os.environ.get(var, "").count(MARKER)
        return {"content": [{"type": "text", "text": "E2E-MCP-TOOL %s marker=%d"
                             % (label, n)}], "isError": False}
    if method in ("prompts/list", "resources/list"):
        return {method.split("/")[0]: []}
    if method == "resources/templates/list":
        return {"resourceTemplates": []}
    return {}


def main():
    args = sys.argv[1:]
    opts = {}
    for i in range(0, len(args) - 1, 2):
        opts[args[i]] = args[i + 1]
    label, var, write_to = opts["--label"], opts["--report"], opts["--write"]
    for line in sys.stdin:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if "id" not in msg or "method" not in msg:
            continue        # a notification, or an answer to nothing we asked
        res = answer(msg, label, var, write_to)
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"],
                                     "result": res}) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
