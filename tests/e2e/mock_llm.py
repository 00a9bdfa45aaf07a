#!/usr/bin/env python3
"""A scripted mock LLM server for the end-to-end suite.

Speaks four APIs on 127.0.0.1 (a free port, printed on stdout as
"PORT <n>" once listening):

  Anthropic Messages       POST .../v1/messages (stream or not),
                           .../v1/messages/count_tokens
  Gemini                   POST .../models/M:generateContent,
                           :streamGenerateContent (?alt=sse or JSON array),
                           :countTokens; GET .../models
  OpenAI Responses         POST .../responses (stream or not)
  OpenAI Chat Completions  POST .../chat/completions (stream or not)
  and GET .../models for the OpenAI-style model lists.

The script (a JSON file given with --script) holds the API key every
request must carry, the shell commands to ask for, and the final text.
The conversation state is read from each request itself: a request whose
tools list holds the agent's shell tool and that carries k tool results
gets tool call k+1, or the final text once every command has its result.
A command "@mcp NAME" is a call of the MCP tool whose name ends with NAME
(no arguments) instead of the shell tool.
A request without the shell tool (title generation, summaries, routing)
is a side request and gets a short text (or JSON, when JSON is asked for).

Every request is appended to the log (--log, JSON lines): path, flavour,
whether the key was right and where it came (bearer, x-api-key, ...),
the tool results it carried, what was answered, and the process on the
other end of the socket (pid, exe, namespaces), found through
/proc/net/tcp: that process is the agent.
Stdlib only.
"""

import argparse
import json
import os
import re
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlparse, parse_qs

SHELL_TOOL_NAMES = ["Bash", "bash", "run_shell_command", "shell_command",
                    "shell", "exec_command", "exec", "run_command",
                    "execute_command", "terminal", "run_terminal_cmd"]

SCRIPT = {}
LOG_LOCK = threading.Lock()
LOG_PATH = None


def log(rec):
    rec["t"] = round(time.time(), 3)
    with LOG_LOCK:
        with open(LOG_PATH, "a") as f:
            f.write(json.dumps(rec) + "\n")


# ---- who is on the other end -------------------------------------------

def peer_process(client_port, server_port):
    """The pid owning the client end of the connection, its exe and
    namespaces.  Needs root to see other users' fds (the runner is)."""
    want_local = "0100007F:%04X" % client_port
    want_rem = "0100007F:%04X" % server_port
    inode = None
    try:
        with open("/proc/net/tcp") as f:
            next(f)
            for line in f:
                p = line.split()
                if p[1] == want_local and p[2] == want_rem:
                    inode = p[9]
                    break
    except OSError:
        return None
    if not inode or inode == "0":
        return None
    target = "socket:[%s]" % inode
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        fddir = "/proc/%s/fd" % pid
        try:
            fds = os.listdir(fddir)
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(fddir + "/" + fd) == target:
                    return describe(int(pid))
            except OSError:
                pass
    return None


def describe(pid):
    d = {"pid": pid}
    try:
        d["exe"] = os.readlink("/proc/%d/exe" % pid)
    except OSError:
        d["exe"] = None
    ns = {}
    for n in ("pid", "mnt", "user", "net", "ipc", "uts"):
        try:
            ns[n] = os.readlink("/proc/%d/ns/%s" % (pid, n))
        except OSError:
            ns[n] = None
    d["ns"] = ns
    return d


# ---- tools ----------------------------------------------------------------

def pick_tool(names):
    want = SCRIPT.get("tool")
    if want:
        return want if want in names else None
    for n in SHELL_TOOL_NAMES:
        if n in names:
            return n
    return None


def build_args(schema, cmd):
    """Arguments for the shell tool from its JSON schema."""
    schema = schema or {}
    props = schema.get("properties") or {}
    required = schema.get("required") or []
    args = {}
    override = SCRIPT.get("tool_args")
    if override:
        for k, v in override.items():
            args[k] = v
    cmd_key = None
    for k in ("command", "cmd", "script", "commandLine", "code"):
        if k in props:
            cmd_key = k
            break
    if cmd_key is None:
        cmd_key = "command"
    ptype = (props.get(cmd_key) or {}).get("type")
    if ptype == "array":
        args[cmd_key] = ["bash", "-lc", cmd]
    else:
        args[cmd_key] = cmd
    for k in required:
        if k in args:
            continue
        p = props.get(k) or {}
        t = p.get("type")
        if isinstance(t, list):
            t = t[0]
        if "enum" in p and p["enum"]:
            args[k] = p["enum"][0]
        elif t == "boolean":
            args[k] = False
        elif t in ("integer", "number"):
            args[k] = 60000 if "timeout" in k.lower() else 1
        elif t == "array":
            args[k] = []
        elif t == "object":
            args[k] = {}
        else:
            args[k] = "e2e step" if "desc" in k.lower() else "e2e"
    return args


def next_call(tools, tool, what, schema_of):
    """(name, arguments) of the next tool call: the shell tool with the
    command, or for "@mcp NAME" the MCP tool whose name ends with NAME
    (agents prefix it with the server's name).  An agent that does not
    offer that tool gets a shell command saying so instead, so that the
    results stay in step and the runner sees what was missing."""
    if what.startswith("@mcp "):
        want = what[len("@mcp "):]
        for n in sorted(tools):
            if n.endswith(want):
                return n, {}
        what = "echo E2E-MCP-NOTOOL " + want
    return tool, build_args(schema_of(tools[tool]), what)


def json_for_schema(schema):
    """A small value matching a JSON schema (for side requests that ask for
    JSON: Gemini's next-speaker check, routing classifiers)."""
    if not isinstance(schema, dict):
        return {}
    t = schema.get("type")
    if isinstance(t, str):
        t = t.lower()
    if "enum" in schema and schema["enum"]:
        return schema["enum"][0]
    if t == "object" or "properties" in schema:
        out = {}
        for k, v in (schema.get("properties") or {}).items():
            if k == "next_speaker":
                out[k] = "user"
            else:
                out[k] = json_for_schema(v)
        return out
    if t == "array":
        return []
    if t == "boolean":
        return False
    if t in ("integer", "number"):
        return 0
    return "e2e"


def state(results):
    """What to do next given the tool results seen so far."""
    cmds = SCRIPT["commands"]
    n = len(results)
    if n < len(cmds):
        return ("call", n, cmds[n])
    return ("final", n, SCRIPT.get("final", "E2E-FINAL-DONE"))


def text_of(content):
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        out = []
        for c in content:
            if isinstance(c, str):
                out.append(c)
            elif isinstance(c, dict):
                if "text" in c and isinstance(c["text"], str):
                    out.append(c["text"])
                elif "content" in c:
                    out.append(text_of(c["content"]))
                elif "output" in c:
                    out.append(text_of(c["output"]))
        return "\n".join(out)
    if isinstance(content, dict):
        for k in ("text", "output", "content", "result", "llmContent"):
            if k in content:
                return text_of(content[k])
        return json.dumps(content)
    return str(content)


# ---- the handler ------------------------------------------------------------

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "envshim-e2e-mock/1"

    def log_message(self, fmt, *a):
        pass

    # -- plumbing
    def body_json(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            raw = self.read_chunked()
        enc = self.headers.get("Content-Encoding", "")
        if enc == "gzip":
            import gzip
            raw = gzip.decompress(raw)
        elif enc == "br" or enc == "zstd":
            return None, raw
        try:
            return (json.loads(raw) if raw else {}), raw
        except ValueError:
            return None, raw

    def read_chunked(self):
        out = b""
        while True:
            line = self.rfile.readline().strip()
            size = int(line.split(b";")[0], 16)
            if size == 0:
                self.rfile.readline()
                return out
            out += self.rfile.read(size)
            self.rfile.readline()

    def send_json(self, code, obj, extra=None):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def start_sse(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def sse(self, data, event=None):
        s = ""
        if event:
            s += "event: %s\n" % event
        s += "data: %s\n\n" % (data if isinstance(data, str) else json.dumps(data))
        self.wfile.write(s.encode())
        self.wfile.flush()

    def key_seen(self):
        """(where, value) of every credential the request carries."""
        h = self.headers
        q = parse_qs(urlparse(self.path).query)
        cands = []
        for name in ("x-api-key", "x-goog-api-key", "api-key"):
            if h.get(name):
                cands.append((name, h.get(name)))
        auth = h.get("Authorization")
        if auth and auth.lower().startswith("bearer "):
            cands.append(("bearer", auth[7:].strip()))
        for v in q.get("key", []):
            cands.append(("query", v))
        return cands

    def check_key(self):
        keys = self.key_seen()
        return SCRIPT["key"] in [v for _, v in keys], bool(keys)

    def key_via(self):
        """Where the right key came (bearer for an OAuth login), or None."""
        for where, v in self.key_seen():
            if v == SCRIPT["key"]:
                return where
        return None

    def base_rec(self, flavour):
        rec = {"method": self.command, "path": self.path, "flavour": flavour,
               "ua": self.headers.get("User-Agent"), "via": self.key_via()}
        try:
            rec["peer"] = peer_process(self.client_address[1],
                                       self.server.server_address[1])
        except Exception as e:  # never let the lookup break a request
            rec["peer"] = {"error": str(e)}
        return rec

    # -- routing
    def do_GET(self):
        path = urlparse(self.path).path
        if path.endswith("/models") or "/models" in path:
            flavour = "gemini" if "/v1beta" in path or "/v1alpha" in path else "openai"
            rec = self.base_rec(flavour + "-models")
            ok, _ = self.check_key()
            rec["auth"] = ok
            log(rec)
            if flavour == "gemini":
                return self.send_json(200, {"models": [{
                    "name": "models/" + SCRIPT.get("model", "mock-model"),
                    "supportedGenerationMethods": ["generateContent",
                                                   "streamGenerateContent"]}]})
            m = SCRIPT.get("model", "mock-model")
            return self.send_json(200, {"object": "list", "data": [
                {"id": m, "object": "model", "created": 0, "owned_by": "e2e"}]})
        rec = self.base_rec("unknown")
        log(rec)
        self.send_json(404, {"error": {"message": "no such path in the mock"}})

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        path = urlparse(self.path).path
        body, raw = self.body_json()
        if path.endswith("/messages/count_tokens"):
            return self.simple(body, "anthropic-count", {"input_tokens": 12})
        if path.endswith("/messages"):
            return self.anthropic(body)
        if ":countTokens" in path:
            return self.simple(body, "gemini-count", {"totalTokens": 12})
        if ":generateContent" in path or ":streamGenerateContent" in path:
            return self.gemini(body, path)
        if path.endswith("/responses"):
            return self.openai_responses(body)
        if path.endswith("/chat/completions"):
            return self.chat(body)
        rec = self.base_rec("unknown")
        rec["body_head"] = raw[:200].decode("utf-8", "replace")
        log(rec)
        self.send_json(404, {"error": {"message": "no such path in the mock"}})

    def simple(self, body, flavour, answer):
        rec = self.base_rec(flavour)
        ok, _ = self.check_key()
        rec["auth"] = ok
        log(rec)
        if not ok:
            return self.send_json(401, {"error": {"message": "bad key"}})
        self.send_json(200, answer)

    def reject(self, rec, flavour):
        rec["auth"] = False
        rec["answer"] = "401"
        log(rec)
        if flavour == "anthropic":
            return self.send_json(401, {"type": "error", "error": {
                "type": "authentication_error", "message": "invalid x-api-key"}})
        if flavour == "gemini":
            return self.send_json(401, {"error": {"code": 401, "status":
                                                  "UNAUTHENTICATED",
                                                  "message": "API key not valid"}})
        return self.send_json(401, {"error": {"message": "Incorrect API key",
                                              "type": "invalid_request_error",
                                              "code": "invalid_api_key"}})

    # -- Anthropic Messages
    def anthropic(self, body):
        rec = self.base_rec("anthropic")
        ok, _ = self.check_key()
        if body is None:
            rec["error"] = "unparsable body"
            log(rec)
            return self.send_json(400, {"type": "error", "error": {
                "type": "invalid_request_error", "message": "bad body"}})
        if not ok:
            return self.reject(rec, "anthropic")
        rec["auth"] = True
        tools = {t.get("name"): t for t in body.get("tools") or [] if isinstance(t, dict)}
        rec["tools"] = sorted(n for n in tools if n)[:80]
        results = []
        for m in body.get("messages") or []:
            if m.get("role") != "user" or not isinstance(m.get("content"), list):
                continue
            for c in m["content"]:
                if isinstance(c, dict) and c.get("type") == "tool_result":
                    results.append(text_of(c.get("content")))
        tool = pick_tool(list(tools))
        model = body.get("model", "claude-mock")
        stream = bool(body.get("stream"))
        if tool is None:
            kind, text = "side", SCRIPT.get("side_text", "E2E side answer")
            blocks = [{"type": "text", "text": text}]
            stop = "end_turn"
        else:
            rec["tool"] = tool
            rec["results"] = results
            kind, n, what = state(results)
            if kind == "call":
                name, args = next_call(tools, tool, what, lambda t: t.get("input_schema"))
                blocks = [{"type": "tool_use", "id": "toolu_e2e_%d_%s" % (n, uuid.uuid4().hex[:8]),
                           "name": name, "input": args}]
                stop = "tool_use"
                rec["call"] = n
                rec["called"] = name
            else:
                blocks = [{"type": "text", "text": what}]
                stop = "end_turn"
        rec["answer"] = kind
        log(rec)
        mid = "msg_e2e_" + uuid.uuid4().hex[:12]
        usage = {"input_tokens": 10, "output_tokens": 5,
                 "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        if not stream:
            return self.send_json(200, {"id": mid, "type": "message", "role": "assistant",
                                        "model": model, "content": blocks,
                                        "stop_reason": stop, "stop_sequence": None,
                                        "usage": usage})
        self.start_sse()
        self.sse({"type": "message_start", "message": {
            "id": mid, "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": dict(usage, output_tokens=1)}}, "message_start")
        for i, b in enumerate(blocks):
            if b["type"] == "text":
                self.sse({"type": "content_block_start", "index": i,
                          "content_block": {"type": "text", "text": ""}}, "content_block_start")
                self.sse({"type": "content_block_delta", "index": i,
                          "delta": {"type": "text_delta", "text": b["text"]}},
                         "content_block_delta")
            else:
                self.sse({"type": "content_block_start", "index": i, "content_block": {
                    "type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}},
                    "content_block_start")
                self.sse({"type": "content_block_delta", "index": i, "delta": {
                    "type": "input_json_delta", "partial_json": json.dumps(b["input"])}},
                    "content_block_delta")
            self.sse({"type": "content_block_stop", "index": i}, "content_block_stop")
        self.sse({"type": "message_delta", "delta": {"stop_reason": stop,
                                                      "stop_sequence": None},
                  "usage": {"output_tokens": 5}}, "message_delta")
        self.sse({"type": "message_stop"}, "message_stop")

    # -- Gemini
    def gemini(self, body, path):
        rec = self.base_rec("gemini")
        ok, _ = self.check_key()
        if body is None:
            rec["error"] = "unparsable body"
            log(rec)
            return self.send_json(400, {"error": {"code": 400, "message": "bad body"}})
        if not ok:
            return self.reject(rec, "gemini")
        rec["auth"] = True
        tools = {}
        for t in body.get("tools") or []:
            for fd in t.get("functionDeclarations") or t.get("function_declarations") or []:
                tools[fd.get("name")] = fd
        rec["tools"] = sorted(n for n in tools if n)[:80]
        results = []
        for c in body.get("contents") or []:
            for p in c.get("parts") or []:
                fr = p.get("functionResponse") or p.get("function_response")
                if fr:
                    results.append(text_of(fr.get("response")))
        tool = pick_tool(list(tools))
        gc = body.get("generationConfig") or {}
        if tool is None:
            kind = "side"
            if gc.get("responseMimeType") == "application/json":
                schema = gc.get("responseJsonSchema") or gc.get("responseSchema") or {}
                text = json.dumps(json_for_schema(schema))
            else:
                text = SCRIPT.get("side_text", "E2E side answer")
            parts = [{"text": text}]
        else:
            rec["tool"] = tool
            rec["results"] = results
            kind, n, what = state(results)
            if kind == "call":
                name, args = next_call(tools, tool, what, lambda fd: fd.get(
                    "parametersJsonSchema") or fd.get("parameters"))
                parts = [{"functionCall": {"name": name, "args": args}}]
                rec["call"] = n
                rec["called"] = name
            else:
                parts = [{"text": what}]
        rec["answer"] = kind
        log(rec)
        resp = {"candidates": [{"content": {"role": "model", "parts": parts},
                                "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5,
                                  "totalTokenCount": 15},
                "modelVersion": SCRIPT.get("model", "gemini-mock"),
                "responseId": uuid.uuid4().hex[:16]}
        if ":streamGenerateContent" not in path:
            return self.send_json(200, resp)
        q = parse_qs(urlparse(self.path).query)
        if q.get("alt") == ["sse"]:
            self.start_sse()
            self.sse(resp)
            return
        self.send_json(200, [resp])

    # -- OpenAI Responses
    def openai_responses(self, body):
        rec = self.base_rec("responses")
        ok, _ = self.check_key()
        if body is None:
            rec["error"] = "unparsable body"
            log(rec)
            return self.send_json(400, {"error": {"message": "bad body"}})
        if not ok:
            return self.reject(rec, "openai")
        rec["auth"] = True
        tools = {}
        for t in body.get("tools") or []:
            name = t.get("name") or (t.get("function") or {}).get("name")
            if name:
                tools[name] = t
            elif t.get("type") == "local_shell":
                tools["local_shell"] = t
        rec["tools"] = sorted(tools)[:80]
        results = []
        inp = body.get("input")
        for it in inp if isinstance(inp, list) else []:
            if isinstance(it, dict) and it.get("type") in ("function_call_output",
                                                           "custom_tool_call_output",
                                                           "local_shell_call_output"):
                results.append(text_of(it.get("output")))
        tool = pick_tool(list(tools))
        model = body.get("model", "gpt-mock")
        rid = "resp_e2e_" + uuid.uuid4().hex[:12]
        if tool is None:
            kind = "side"
            item = {"type": "message", "id": "msg_" + uuid.uuid4().hex[:12],
                    "status": "completed", "role": "assistant",
                    "content": [{"type": "output_text", "annotations": [],
                                 "text": SCRIPT.get("side_text", "E2E side answer")}]}
        else:
            rec["tool"] = tool
            rec["results"] = results
            kind, n, what = state(results)
            if kind == "call":
                name, args = next_call(tools, tool, what, lambda t: t.get("parameters") or (
                    t.get("function") or {}).get("parameters"))
                item = {"type": "function_call", "id": "fc_" + uuid.uuid4().hex[:12],
                        "call_id": "call_e2e_%d_%s" % (n, uuid.uuid4().hex[:8]),
                        "name": name, "arguments": json.dumps(args), "status": "completed"}
                rec["call"] = n
                rec["called"] = name
            else:
                item = {"type": "message", "id": "msg_" + uuid.uuid4().hex[:12],
                        "status": "completed", "role": "assistant",
                        "content": [{"type": "output_text", "annotations": [],
                                     "text": what}]}
        rec["answer"] = kind
        log(rec)
        usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": 15}
        full = {"id": rid, "object": "response", "created_at": int(time.time()),
                "status": "completed", "model": model, "output": [item],
                "usage": usage, "error": None, "incomplete_details": None}
        if not body.get("stream"):
            return self.send_json(200, full)
        self.start_sse()
        seq = [0]

        def ev(name, obj):
            obj = dict(obj, type=name, sequence_number=seq[0])
            seq[0] += 1
            self.sse(obj, name)
        ev("response.created", {"response": dict(full, status="in_progress", output=[])})
        ev("response.in_progress", {"response": dict(full, status="in_progress", output=[])})
        if item["type"] == "message":
            added = dict(item, status="in_progress", content=[])
            ev("response.output_item.added", {"output_index": 0, "item": added})
            ev("response.content_part.added", {"output_index": 0, "item_id": item["id"],
                                               "content_index": 0,
                                               "part": {"type": "output_text", "text": "",
                                                        "annotations": []}})
            ev("response.output_text.delta", {"output_index": 0, "item_id": item["id"],
                                              "content_index": 0,
                                              "delta": item["content"][0]["text"]})
            ev("response.output_text.done", {"output_index": 0, "item_id": item["id"],
                                             "content_index": 0,
                                             "text": item["content"][0]["text"]})
            ev("response.content_part.done", {"output_index": 0, "item_id": item["id"],
                                              "content_index": 0,
                                              "part": item["content"][0]})
        else:
            added = dict(item, status="in_progress", arguments="")
            ev("response.output_item.added", {"output_index": 0, "item": added})
            ev("response.function_call_arguments.delta", {"output_index": 0,
                                                         "item_id": item["id"],
                                                         "delta": item["arguments"]})
            ev("response.function_call_arguments.done", {"output_index": 0,
                                                        "item_id": item["id"],
                                                        "arguments": item["arguments"]})
        ev("response.output_item.done", {"output_index": 0, "item": item})
        ev("response.completed", {"response": full})

    # -- OpenAI Chat Completions
    def chat(self, body):
        rec = self.base_rec("chat")
        ok, _ = self.check_key()
        if body is None:
            rec["error"] = "unparsable body"
            log(rec)
            return self.send_json(400, {"error": {"message": "bad body"}})
        if not ok:
            return self.reject(rec, "openai")
        rec["auth"] = True
        tools = {}
        for t in body.get("tools") or []:
            f = t.get("function") or {}
            if f.get("name"):
                tools[f["name"]] = f
        rec["tools"] = sorted(tools)[:80]
        results = [text_of(m.get("content")) for m in body.get("messages") or []
                   if m.get("role") == "tool"]
        tool = pick_tool(list(tools))
        model = body.get("model", "gpt-mock")
        cid = "chatcmpl-e2e" + uuid.uuid4().hex[:12]
        call = None
        if tool is None:
            kind, text = "side", SCRIPT.get("side_text", "E2E side answer")
        else:
            rec["tool"] = tool
            rec["results"] = results
            kind, n, what = state(results)
            text = None
            if kind == "call":
                name, args = next_call(tools, tool, what, lambda t: t.get("parameters"))
                call = {"id": "call_e2e_%d_%s" % (n, uuid.uuid4().hex[:8]),
                        "type": "function",
                        "function": {"name": name, "arguments": json.dumps(args)}}
                rec["call"] = n
                rec["called"] = name
            else:
                text = what
        rec["answer"] = kind
        log(rec)
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        finish = "tool_calls" if call else "stop"
        if not body.get("stream"):
            msg = {"role": "assistant", "content": text}
            if call:
                msg["tool_calls"] = [call]
            return self.send_json(200, {"id": cid, "object": "chat.completion",
                                        "created": int(time.time()), "model": model,
                                        "choices": [{"index": 0, "message": msg,
                                                     "finish_reason": finish}],
                                        "usage": usage})
        self.start_sse()
        base = {"id": cid, "object": "chat.completion.chunk",
                "created": int(time.time()), "model": model}
        self.sse(dict(base, choices=[{"index": 0, "delta": {"role": "assistant",
                                                            "content": ""},
                                      "finish_reason": None}]))
        if call:
            self.sse(dict(base, choices=[{"index": 0, "delta": {"tool_calls": [
                dict(call, index=0)]}, "finish_reason": None}]))
        else:
            self.sse(dict(base, choices=[{"index": 0, "delta": {"content": text},
                                          "finish_reason": None}]))
        self.sse(dict(base, choices=[{"index": 0, "delta": {},
                                      "finish_reason": finish}]))
        self.sse(dict(base, choices=[], usage=usage))
        self.sse("[DONE]")


def main():
    global SCRIPT, LOG_PATH
    ap = argparse.ArgumentParser()
    ap.add_argument("--script", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--port", type=int, default=0)
    a = ap.parse_args()
    with open(a.script) as f:
        SCRIPT = json.load(f)
    LOG_PATH = a.log
    open(LOG_PATH, "a").close()
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    srv.daemon_threads = True
    print("PORT %d" % srv.server_address[1], flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
