#!/usr/bin/env bats
# The audit log, attacked from inside the sandbox as a prompt-injected
# model would: the agent (python3 under the real shim, or `envshim --`)
# makes a launch outside, runs `bash -c ATTACK` (which goes to the
# sandbox, joining the session's held view), then makes another launch
# outside.  Whatever ATTACK does, the records of the launches outside
# stay whole and true, nothing from inside passes for a record of
# outside or makes envshim advise a program rule, and ATTACK cannot read
# the log, which holds the argv of every launch of the agent.  Each case
# runs as an unprivileged user (uid 65534 when the suite is root, with a
# home outside /tmp) and, when the suite is root, as root.

bats_require_minimum_version 1.5.0

load ../common

setup() {
	R=$(mktemp -d /var/tmp/envshim-alog.XXXXXX)
	chmod 755 "$R"
	mkdir "$R/bin"
	cp "$SHIM" "$HELPER" "$ENVSHIM" "$R/bin/"
	chmod -R a+rX "$R/bin"
	SHIM=$R/bin/libenvshim.so
	ENVSHIM=$R/bin/envshim
	WHO=(nobody)
	[ "$(id -u)" != 0 ] || WHO+=(root)
}

teardown() {
	cd /
	rm -rf "$R"
}

# as WHO CMD...: CMD as the unprivileged user (nobody) or as root.
as() {
	local who=$1
	shift
	if [ "$who" = nobody ]; then as_nobody "$@"; else "$@"; fi
}

# dirs WHO: WHO's home, workspace and state directory under $R/WHO;
# sets D, and L (the default log, as the agent's shim writes it).
dirs() {
	D=$R/$1
	mkdir -p "$D/home" "$D/ws" "$D/state"
	[ "$1" != nobody ] || [ "$(id -u)" != 0 ] || chown -R 65534:65534 "$D"
	L=$D/state/envshim/audit.jsonl
	cd "$D/ws"
}

# The agent: one launch outside, the sandboxed `bash -c ATTACK`, one more
# launch outside.
AGENT_PY='
import subprocess, sys
subprocess.run(["/usr/bin/env", "MARK=before"], stdout=subprocess.DEVNULL)
rc = subprocess.run(["bash", "-c", sys.argv[1]]).returncode
subprocess.run(["/usr/bin/env", "MARK=after"], stdout=subprocess.DEVNULL)
sys.exit(rc)'

# What the attacks run first in python3: every socket the command holds
# or finds in its /dev/shm (where the records' socket is), and a way to
# send to one.  A socket of the command's own is an open one; one found
# by path gets its own socket connected to it.
SOCKETS='
import os, socket, stat
def sockets():
    found = []
    for fd in map(int, os.listdir("/proc/self/fd")):
        try:
            if stat.S_ISSOCK(os.fstat(fd).st_mode):
                found.append(fd)
        except OSError:
            pass
    for name in os.listdir("/dev/shm"):
        if stat.S_ISSOCK(os.lstat("/dev/shm/" + name).st_mode):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            s.connect("/dev/shm/" + name)
            found.append(s.fileno())
            found_keep.append(s)
    return found
found_keep = []
'

# agent WHO ATTACK: python3 as the agent, the shim preloaded.
agent() {
	as "$1" env -i HOME="$D/home" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
		XDG_STATE_HOME="$D/state" ANTHROPIC_API_KEY=sk-ant-api03-notarealkey0000000000 \
		LD_PRELOAD="$SHIM" python3 -c "$AGENT_PY" "$2"
}

# envshim_agent WHO ATTACK: the same agent under `envshim --`, which
# reports at the agent's exit what programs lost (the lost report).
envshim_agent() {
	as "$1" env -i HOME="$D/home" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
		XDG_STATE_HOME="$D/state" ANTHROPIC_API_KEY=sk-ant-api03-notarealkey0000000000 \
		"$ENVSHIM" -- python3 -c "$AGENT_PY" "$2"
}

# check_log [ARGV-JSON...]: the log is whole records only (one JSON
# object a line, no key twice); both launches outside are there, and the
# sandboxed bash's; every record from inside carries the sandbox of that
# bash, as its outer says; nothing the attack wrote (FORGED) passes for a
# record of outside; and each ARGV-JSON is the argv of a record from
# inside.
check_log() {
	python3 - "$L" "$@" <<'PY'
import json, sys

def once(pairs):
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), ("a key twice", keys)
    return dict(pairs)

recs = []
for n, l in enumerate(open(sys.argv[1], "rb"), 1):
    assert l.endswith(b"\n"), ("cut line", n, l[:200])
    assert all(0x20 <= b < 0x7f for b in l[:-1]), ("raw bytes", n, l[:200])
    r = json.loads(l.decode("ascii"), object_pairs_hook=once)
    assert isinstance(r, dict), (n, l[:200])
    recs.append((l.decode(), r))
out = [r for _, r in recs if r.get("inside") is False]
argvs = [r.get("argv") for r in out]
assert ["/usr/bin/env", "MARK=before"] in argvs, argvs
assert ["/usr/bin/env", "MARK=after"] in argvs, argvs
sbx = [r for r in out if r.get("action") == "sandbox" and (r.get("argv") or [""])[0] == "bash"]
assert len(sbx) == 1, sbx
bash = sbx[0]["pid"]
for l, r in recs:
    assert r.get("inside") in (True, False), l[:300]
    if r["inside"]:
        assert r.get("sandbox") == bash, ("not the outer's mark", bash, l[:300])
    # the attack's text is in the argv of the agent's own launch of it
    assert "FORGED" not in l or r["inside"] or r is sbx[0], ("forged outside", l[:300])
    assert "lost" not in r or not r["inside"] or "FORGED" in l, l[:300]
inside = [r.get("argv") for _, r in recs if r["inside"]]
for want in sys.argv[2:]:
    assert json.loads(want) in inside, ("not recorded inside", want, inside[:20])
print("inside records:", len(inside))
PY
}

@test "a sandboxed command cannot read, truncate, rewrite or append to the log, by path or /proc; its launches are still recorded, marked" {
	for who in "${WHO[@]}"; do
		dirs "$who"
		# shellcheck disable=SC2016
		run agent "$who" '
L="$XDG_STATE_HOME/envshim/audit.jsonl"
cat "$L" "$L.1"
ls -A "${L%/*}"
grep -h MARK "$L" "$L.1" && echo read-it
: >"$L"
truncate -s 0 "$L"
printf "%s\n" "{\"FORGED\":1}" >"$L"
echo FORGED-append >>"$L"
sed -i s/MARK/FORGED/ "$L"
python3 -c "f = open(\"$L\", \"r+\"); f.write(\"FORGED\"); f.close()"
rm -f "$L"
mv "$L" "$L.x"
ln -s /dev/null "$L.new" && mv -f "$L.new" "$L"
(exec 7>>"$L" && echo FORGED-fd >&7; : >/proc/self/fd/7)
for f in /proc/[0-9]*/fd/*; do
	case $(readlink "$f") in
	*audit.jsonl*) echo "open: $f"; echo FORGED-proc >"$f"; : >"$f";;
	esac
done
env >/dev/null
/usr/bin/true marker-inside
python3 -c "import subprocess; subprocess.run([\"/usr/bin/true\", \"from-python\"])"
echo attack-done'
		[ "$status" -eq 0 ]
		grep -qx attack-done <<<"$output"
		lacks -e MARK= -e read-it -e 'open: '
		lacks -x audit.jsonl
		# Python closes what it inherited before it executes: the socket
		# is reached by its path
		run -0 check_log '["env"]' '["/usr/bin/true","marker-inside"]' \
			'["/usr/bin/true","from-python"]'
		echo "$output"
	done
}

@test "a record forged inside, in the log or over the records' socket, never passes for one of outside nor makes envshim advise a program rule" {
	for who in "${WHO[@]}"; do
		dirs "$who"
		# shellcheck disable=SC2016
		run envshim_agent "$who" '
python3 - <<"PY"
'"$SOCKETS"'
import json, os, stat, time
L = os.environ["XDG_STATE_HOME"] + "/envshim/audit.jsonl"
now = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
rec = {"time": now, "pid": 4242, "ppid": 1, "hook": "execve",
       "action": "run", "inside": False, "agent": False, "mode": "enforce",
       "path": "/opt/helper/mcp.py",
       "dropped": [{"name": "ANTHROPIC_API_KEY", "reason": "secret-name"}],
       "rewritten": [],
       "lost": [{"name": "ANTHROPIC_API_KEY", "reason": "secret-name"}],
       "argv": ["python3", "/opt/helper/mcp.py", "FORGED"]}
line = json.dumps(rec, separators=(",", ":"))
payloads = [
    line + "\n",
    line.replace("\"inside\":false", "\"insid\\u0065\":false") + "\n",
    line[:-1] + ",\"inside\":false,\"sandbox\":0}\n",
    "{\"time\":\"" + now + "\",\"pid\":1,\"action\":\"run\",\"argv\":[\n" + line + "\n]}\n",
    "{\"a\":\"FORGED\"}\n" + line + "\n",
]
try:
    with open(L, "a") as f:
        f.write(line + "\n")
    print("appended by path")
except OSError as e:
    print("by path:", e.strerror)
sent = 0
for fd in sockets():
    for p in payloads:
        os.write(fd, p.encode())
        sent += 1
print("sent", sent)
PY
env >/dev/null'
		[ "$status" -eq 0 ]
		lacks -e 'let it through' -e 'appended by path' -e 'lost '
		grep -qx "sent 5" <<<"$output"
		run -0 check_log '["env"]'
		run -0 as "$who" env HOME="$D/home" XDG_STATE_HOME="$D/state" "$ENVSHIM" log
		lacks 'let it through'
		# shown, and marked as what it is
		grep -Eq '^[|`]- 4242 python3 /opt/helper/mcp.py FORGED  \[run\] \(inside sandbox\)$' <<<"$output"
		grep -q 'lost: ANTHROPIC_API_KEY (secret-name)$' <<<"$output"
	done
}

@test "garbage, oversized messages and a flood over the records' socket: whole records only, the command is not held up, its launches are still recorded, and a socket put in its place gets none" {
	for who in "${WHO[@]}"; do
		dirs "$who"
		# shellcheck disable=SC2016
		run agent "$who" '
printf "%s\n" "FORGED garbage by path" >>"$XDG_STATE_HOME/envshim/audit.jsonl"
python3 - <<"PY"
'"$SOCKETS"'
import array, fcntl, termios, time
socks = sockets()
print("sockets", len(socks))
for fd in socks:
    for p in [b"FORGED garbage\x00\xff\x1b[2J", b"", b"{" * 100000,
              b"{\"time\":\"FORGED\",\"pid\":1,\"action\":\"run\"",
              b"{\"time\":\"FORGED\",\"pid\":1.5,\"action\":\"run\"}",
              b"{\"time\":\"FORGED\",\"pid\":1,\"action\":\"r\xc3\xbcn\"}",
              b"[\"FORGED\"]"]:
        os.write(fd, p)
    # blocking sends: the outer must keep reading while the command runs
    for i in range(3000):
        os.write(fd, b"{\"FORGED\":%d}" % i)
    # what is still queued has been read once nothing is left to send
    q = array.array("i", [1])
    for _ in range(600):
        fcntl.ioctl(fd, termios.TIOCOUTQ, q)
        if q[0] == 0:
            break
        time.sleep(0.05)
    print("drained", q[0] == 0)
PY
env >/dev/null
/usr/bin/true after-the-flood
rm /dev/shm/.envshim-log
python3 -c "
import os, socket, subprocess
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(\"/dev/shm/.envshim-log\")
subprocess.run([\"/usr/bin/true\", \"FORGED-diverted\"])
s.setblocking(False)
try:
    print(\"got\", s.recv(9000)[:60])
except BlockingIOError:
    print(\"got nothing\")
"'
		[ "$status" -eq 0 ]
		grep -qx "sockets 1" <<<"$output"
		grep -qx "drained True" <<<"$output"
		grep -qx "got nothing" <<<"$output"
		run -0 check_log '["env"]' '["/usr/bin/true","after-the-flood"]'
		# what was no record is kept as a string, marked, never as it came
		run -0 python3 - "$L" <<'PY'
import json, sys
rej = [json.loads(l) for l in open(sys.argv[1]) if '"rejected"' in l]
assert all(r["inside"] and r["hook"] == "sandbox" for r in rej), rej[:3]
assert sum("FORGED" in r.get("raw", "") for r in rej) >= 3005, len(rej)
assert any(r["reason"] == "longer than one record" for r in rej), rej[:3]
PY
	done
}
