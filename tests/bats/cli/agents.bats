#!/usr/bin/env bats
# Who is the agent: a launcher hands itself over to its install (the npm
# package of its script, and the platform packages its package.json lists
# under optionalDependencies), and nothing else becomes the agent.  The
# stand-ins are laid out as the real CLIs are on disk: Qwen Code's
# cli-entry.js re-launching `node --expose-gc cli.js`, Copilot CLI's
# loader spawning a native binary of @github/copilot-linux-x64.  Run as
# nobody, through `envshim --`, the way users type it.

load ../common

KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD

setup() {
	nobody_dirs
	# In the home, as a user's npm prefix: the tools, which run in the
	# sandbox, see the home but not the host's /tmp.
	PREFIX=$HOME/prefix
	WS=$BATS_TEST_TMPDIR/ws
	cd "$WS"
}

# qwen_like DIR: an npm prefix holding a stand-in of Qwen Code's package.
qwen_like() {
	local pkg=$1/node_modules/@qwen-code/qwen-code
	mkdir -p "$pkg" "$1/node_modules/.bin"
	printf '{"name":"@qwen-code/qwen-code","bin":{"qwen":"cli-entry.js"}}\n' >"$pkg/package.json"
	cat >"$pkg/cli-entry.js" <<'JS'
#!/usr/bin/env node
// As Qwen Code's: the bundled CLI again, with --expose-gc.
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const r = spawnSync(process.execPath,
  ['--expose-gc', path.join(__dirname, 'cli.js'), ...process.argv.slice(2)],
  { stdio: 'inherit' });
process.exit(r.status ?? 1);
JS
	cat >"$pkg/cli.js" <<'JS'
const { execSync, spawnSync } = require('node:child_process');
const path = require('node:path');
console.log('agent=' + (process.env.OPENAI_API_KEY || ''));
// Its shell tool: a shell never keeps the key.
console.log(execSync('echo "tool=$OPENAI_API_KEY"', { encoding: 'utf8' }).trim());
// The agent runs a worker of its own install: still the agent.
spawnSync(process.execPath, [path.join(__dirname, 'probe.js'), 'agent'], { stdio: 'inherit' });
// A tool (no shell) runs that worker with a key it set itself: a tool
// never becomes the agent.
spawnSync('python3', ['-c', 'import os, subprocess, sys; ' +
  'os.environ["OPENAI_API_KEY"] = sys.argv[1]; ' +
  'subprocess.run([sys.argv[2], sys.argv[3], "tool"])',
  process.env.OPENAI_API_KEY || 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD',
  process.execPath, path.join(__dirname, 'probe.js')], { stdio: 'inherit' });
JS
	printf '%s\n' "console.log('probe-' + process.argv[2] + '=' + (process.env.OPENAI_API_KEY || ''));" \
		>"$pkg/probe.js"
	chmod 755 "$pkg/cli-entry.js"
	ln -s ../@qwen-code/qwen-code/cli-entry.js "$1/node_modules/.bin/qwen"
	chmod -R a+rX "$1"
}

# envshim_nobody ARGS...: envshim as nobody, with a key and the usual hijacks.
envshim_nobody() {
	as_nobody env -i HOME="$HOME" PATH="$PREFIX/node_modules/.bin:/usr/bin:/bin" \
		LANG=C.UTF-8 XDG_STATE_HOME="$BATS_TEST_TMPDIR/state" \
		OPENAI_API_KEY="$KEY" GITHUB_TOKEN="$GH" BASH_ENV=/tmp/evil.sh \
		"$ENVSHIM" "$@"
}

@test "Qwen Code's re-launch of another script of its package keeps the key; its tools do not (sandbox shells)" {
	qwen_like "$PREFIX"
	# Under `sandbox shells` the tool runs outside, where it could hand
	# the key on: it never becomes the agent.
	printf 'sandbox shells\n' >"$BATS_TEST_TMPDIR/p"
	chmod 644 "$BATS_TEST_TMPDIR/p"
	run envshim_nobody --policy "$BATS_TEST_TMPDIR/p" -- qwen
	[ "$status" -eq 0 ]
	grep -qx "agent=$KEY" <<<"$output"
	grep -qx "probe-agent=$KEY" <<<"$output"
	grep -qx 'tool=' <<<"$output"
	grep -qx 'probe-tool=' <<<"$output"
	# Each hand-over is on record, as the file of the install it went to.
	run as_nobody env XDG_STATE_HOME="$BATS_TEST_TMPDIR/state" "$ENVSHIM" log
	[ "$status" -eq 0 ]
	grep -qF "agent: handed to $PREFIX/node_modules/@qwen-code/qwen-code/cli.js" <<<"$output"
	grep -qF "agent: handed to $PREFIX/node_modules/@qwen-code/qwen-code/probe.js" <<<"$output"
	[ "$(grep -c 'agent: handed to' <<<"$output")" -eq 2 ]
}

@test "an install in the workspace is never the agent: a sandboxed command could write it" {
	qwen_like "$WS/local"
	chown -R 65534:65534 "$WS/local" 2>/dev/null || true
	run envshim_nobody -- "$WS/local/node_modules/.bin/qwen"
	[ "$status" -eq 0 ]
	# The program named is the agent; what it hands to in the workspace is
	# not (a tool, sandboxed).  (Its own tool types the key for its child
	# in the sandbox: probe-tool shows that one.)
	grep -qx 'agent=' <<<"$output"
	grep -qx 'probe-agent=' <<<"$output"
	lacks -e "^agent=sk" -e "^probe-agent=sk" -e "^tool=sk"
}

@test "a package.json outside node_modules makes nothing the agent" {
	mkdir -p "$HOME/checkout"
	qwen_like "$HOME/checkout"
	mv "$HOME/checkout/node_modules/@qwen-code/qwen-code" "$HOME/checkout/src"
	run envshim_nobody -- node "$HOME/checkout/src/cli-entry.js"
	[ "$status" -eq 0 ]
	grep -qx 'agent=' <<<"$output"
	grep -qx 'probe-agent=' <<<"$output"
}

@test "Copilot CLI's loader hands itself over to the native binary of its platform package" {
	local pkg=$PREFIX/node_modules/@github/copilot plat=$PREFIX/node_modules/@github/copilot-linux-x64
	mkdir -p "$pkg" "$plat" "$PREFIX/node_modules/.bin"
	printf '{"name":"@github/copilot","bin":{"copilot":"npm-loader.js"},"optionalDependencies":{"@github/copilot-linux-x64":"1.0.102","@github/copilot-linux-arm64":"1.0.102"}}\n' \
		>"$pkg/package.json"
	printf '{"name":"@github/copilot-linux-x64"}\n' >"$plat/package.json"
	cat >"$pkg/npm-loader.js" <<'JS'
#!/usr/bin/env node
const { spawnSync } = require('node:child_process');
const r = spawnSync(require.resolve('@github/copilot-linux-x64/copilot'),
  process.argv.slice(2), { stdio: 'inherit' });
process.exit(r.status ?? 1);
JS
	chmod 755 "$pkg/npm-loader.js"
	# The native binary: a dynamic program with its program headers 1 MiB in,
	# as the real one's sit 46 MB in.  It shows its key and runs a tool.
	cp "$BUILD/progs/spawn" "$BATS_TEST_TMPDIR/spawn.orig"
	"$BUILD/progs/farphdr" "$BATS_TEST_TMPDIR/spawn.orig" "$plat/copilot"
	ln -s ../@github/copilot/npm-loader.js "$PREFIX/node_modules/.bin/copilot"
	chmod -R a+rX "$PREFIX"
	run envshim_nobody -- copilot execvp sh -c 'echo "agent=$OPENAI_API_KEY"'
	[ "$status" -eq 0 ]
	# The shell it ran lost the key ...
	grep -qx 'agent=' <<<"$output"
	# ... and the binary itself kept it: it ran in place, not sandboxed.
	python3 - "$BATS_TEST_TMPDIR/state/envshim/audit.jsonl" "$plat/copilot" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
bin_ = [r for r in recs if r["path"] == sys.argv[2]]
assert bin_ and bin_[0]["agent"] and bin_[0]["action"] == "run", recs
assert bin_[0]["handover"] == sys.argv[2], bin_
assert not any(d["name"] == "OPENAI_API_KEY" for d in bin_[0]["dropped"]), bin_
sh = [r for r in recs if r["argv"][:1] == ["sh"]]
assert sh and sh[0]["action"] == "sandbox" and not sh[0]["agent"], sh
assert any(d["name"] == "OPENAI_API_KEY" for d in sh[0]["dropped"]), sh
PY
}

# codex_like LAUNCHER: a stand-in of Codex's install: a launcher script of
# @openai/codex that hands itself over to the static binary of the
# platform package its package.json lists (tests/progs/static_agent.c).
codex_like() {
	local pkg=$PREFIX/node_modules/@openai/codex
	local bin=$PREFIX/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin
	mkdir -p "$pkg/bin" "$bin" "$PREFIX/node_modules/.bin"
	printf '{"name":"@openai/codex","bin":{"codex":"bin/codex.js"},"optionalDependencies":{"@openai/codex-linux-x64":"npm:@openai/codex@0.171.0-linux-x64","@openai/codex-darwin-arm64":"npm:@openai/codex@0.171.0-darwin-arm64"}}\n' \
		>"$pkg/package.json"
	printf '{"name":"@openai/codex","version":"0.171.0-linux-x64"}\n' \
		>"$PREFIX/node_modules/@openai/codex-linux-x64/package.json"
	cp "$BUILD/progs/static_agent" "$bin/codex"
	# A static helper next to it, found first, is not what is named.
	cp "$BUILD/progs/static_hello" "$bin/../aaa-helper"
	case $1 in
	node)	# Node 20: spawn, and wait.
		cat >"$pkg/bin/codex.js" <<'JS'
#!/usr/bin/env node
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const bin = path.join(require.resolve('@openai/codex-linux-x64/package.json'),
  '..', 'vendor', 'x86_64-unknown-linux-musl', 'bin', 'codex');
const r = spawnSync(bin, process.argv.slice(2), { stdio: 'inherit' });
process.exit(r.status ?? 1);
JS
		;;
	exec)	# Node 22+: process.execve, an exec in place (here Python's).
		cat >"$pkg/bin/codex.js" <<'PY'
#!/usr/bin/env python3
import os, sys
d = os.path.dirname(os.path.realpath(__file__))
b = os.path.join(d, "..", "..", "codex-linux-x64", "vendor",
                 "x86_64-unknown-linux-musl", "bin", "codex")
os.execv(b, [b] + sys.argv[1:])
PY
		;;
	esac
	chmod 755 "$pkg/bin/codex.js"
	ln -s ../@openai/codex/bin/codex.js "$PREFIX/node_modules/.bin/codex"
	chmod -R a+rX "$PREFIX"
}

@test "envshim -- codex: a launcher that spawns its static binary gets contain mode, said in one line" {
	codex_like node
	run envshim_nobody -- codex env
	[ "$status" -eq 0 ]
	[ "$(grep -c '^envshim: ' <<<"$output")" -eq 1 ]
	grep -qxF "envshim: codex hands itself over to $PREFIX/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex, a static program the shim cannot enter: running it in contain mode (envshim --contain)" <<<"$output"
	# The static binary is the agent: it kept its key.
	grep -qx "OPENAI_API_KEY=$KEY" <<<"$output"
	# What it starts by raw execve is filtered (/etc/ld.so.preload) ...
	run envshim_nobody -- codex run /usr/bin/env
	[ "$status" -eq 0 ]
	lacks -F "$KEY"
	lacks '^GITHUB_TOKEN='
	grep -qx "LD_PRELOAD=$SHIM" <<<"$output"
	# ... and its shell runs in the sandbox.
	run envshim_nobody -- codex run /bin/sh -c 'echo "tool=$OPENAI_API_KEY"; readlink /proc/self/ns/user'
	[ "$status" -eq 0 ]
	grep -qx 'tool=' <<<"$output"
	[ "${lines[-1]}" != "$(readlink /proc/self/ns/user)" ]
}

@test "envshim -- codex: a launcher that execs its static binary in place works the same" {
	codex_like exec
	run envshim_nobody -- codex env
	[ "$status" -eq 0 ]
	grep -q '^envshim: codex hands itself over to .*/bin/codex, a static program' <<<"$output"
	grep -qx "OPENAI_API_KEY=$KEY" <<<"$output"
	run envshim_nobody -- codex run /usr/bin/env
	[ "$status" -eq 0 ]
	lacks -F "$KEY"
	grep -qx "LD_PRELOAD=$SHIM" <<<"$output"
}

@test "a static tool in the agent's own package is sandboxed, and picks no contain mode" {
	qwen_like "$PREFIX"
	local pkg=$PREFIX/node_modules/@qwen-code/qwen-code
	mkdir -p "$pkg/vendor"
	cp "$BUILD/progs/static_agent" "$pkg/vendor/rg"
	chmod -R a+rX "$pkg"
	cat >"$pkg/cli.js" <<'JS'
const { spawnSync } = require('node:child_process');
const path = require('node:path');
spawnSync(path.join(__dirname, 'vendor', 'rg'), ['env'], { stdio: 'inherit' });
JS
	run envshim_nobody -- qwen
	[ "$status" -eq 0 ]
	lacks '^envshim: '
	lacks -F "$KEY"
	python3 - "$BATS_TEST_TMPDIR/state/envshim/audit.jsonl" "$pkg/vendor/rg" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
rg = [r for r in recs if r["path"] == sys.argv[2]]
assert rg and rg[0]["action"] == "sandbox" and not rg[0]["agent"], rg
PY
}

@test "the default (sandbox all) confines every tool, but the agent's hand-overs stay the agent" {
	qwen_like "$PREFIX"
	run envshim_nobody -- qwen
	[ "$status" -eq 0 ]
	grep -qx "agent=$KEY" <<<"$output"
	grep -qx "probe-agent=$KEY" <<<"$output"
	grep -qx 'tool=' <<<"$output"
	# The tool ran in the sandbox, where what it sets reaches its child:
	# the key it typed itself (from its argv) reaches the probe.
	grep -qx "probe-tool=$KEY" <<<"$output"
	python3 - "$BATS_TEST_TMPDIR/state/envshim/audit.jsonl" <<'PY'
import json, sys
# (the helper's own records of what each sandbox hid aside)
recs = [json.loads(l) for l in open(sys.argv[1]) if '"hook":"sandbox"' not in l]
out = [r for r in recs if not r["inside"]]
assert [r["action"] for r in out if r["agent"]] == ["run", "run"], out
# the helper's own record of what a sandbox hid (the log's directory, at
# least) is no launch
tools = [r for r in out if not r["agent"] and r["hook"] != "sandbox"]
assert tools and all(r["action"] == "sandbox" for r in tools), tools
assert any(r["argv"][0] == "python3" for r in tools), tools
PY
}
