#!/usr/bin/env bats
# libenvshim.so: every entry point by which a program starts another, and
# what the started program really saw.

load ../common

setup() {
	HOME=$BATS_TEST_TMPDIR/home
	mkdir -p "$HOME"
	# Shells would go to the sandbox; these tests look at the filter alone.
	printf 'sandbox off\n' >"$BATS_TEST_TMPDIR/nosandbox"
	chmod 644 "$BATS_TEST_TMPDIR/nosandbox"
	NOSBX="ENVSHIM_POLICY=$BATS_TEST_TMPDIR/nosandbox"
}

@test "execve: the child loses secrets, injections and capabilities" {
	run agent -- "$SPAWN" execve /usr/bin/env
	[ "$status" -eq 0 ]
	assert_filtered
}

@test "execv reads environ at call time and is filtered" {
	run agent -- "$SPAWN" execv /usr/bin/env
	[ "$status" -eq 0 ]
	assert_filtered
}

@test "execvp searches PATH and is filtered" {
	run agent -- "$SPAWN" execvp env
	[ "$status" -eq 0 ]
	assert_filtered
}

@test "execvpe is filtered" {
	run agent -- "$SPAWN" execvpe env
	[ "$status" -eq 0 ]
	assert_filtered
}

@test "execl is filtered" {
	run agent -- "$SPAWN" execl /usr/bin/env
	[ "$status" -eq 0 ]
	assert_filtered
}

@test "execle is filtered" {
	run agent -- "$SPAWN" execle /usr/bin/env
	[ "$status" -eq 0 ]
	assert_filtered
}

@test "execlp is filtered" {
	run agent -- "$SPAWN" execlp env
	[ "$status" -eq 0 ]
	assert_filtered
}

@test "fexecve is filtered" {
	run agent -- "$SPAWN" fexecve /usr/bin/env
	[ "$status" -eq 0 ]
	assert_filtered
}

@test "execveat relative to a directory fd is filtered" {
	run agent -- "$SPAWN" execveat /usr/bin/env
	[ "$status" -eq 0 ]
	assert_filtered
}

@test "syscall(SYS_execve) is filtered" {
	run agent -- "$SPAWN" syscall /usr/bin/env
	[ "$status" -eq 0 ]
	assert_filtered
}

@test "posix_spawn is filtered" {
	run agent -- "$SPAWN" posix_spawn /usr/bin/env
	[ "$status" -eq 0 ]
	assert_filtered
}

@test "posix_spawnp searches PATH and is filtered" {
	run agent -- "$SPAWN" posix_spawnp env
	[ "$status" -eq 0 ]
	assert_filtered
}

@test "vfork then execve (Claude Code, CPython, dash) is filtered" {
	run agent -- "$SPAWN" vfork /usr/bin/env
	[ "$status" -eq 0 ]
	assert_filtered
}

@test "system() is filtered" {
	run agent "$NOSBX" -- "$SPAWN" system env
	[ "$status" -eq 0 ]
	assert_filtered
}

@test "popen() is filtered and pclose returns the status" {
	run agent "$NOSBX" -- "$SPAWN" popen 'env; exit 3'
	[ "$status" -eq 3 ]
	assert_filtered
}

@test "fork, environ = hostile env, execvp (Node/libuv) is filtered and locked" {
	run agent -- "$SPAWN" fork-environ env
	[ "$status" -eq 0 ]
	grep -qx 'HARMLESS=yes' <<<"$output"
	[ "$(grep -c '^LD_PRELOAD=' <<<"$output")" = 1 ]
	grep -qx "LD_PRELOAD=$SHIM" <<<"$output"
	! grep -q -e '^NODE_OPTIONS=' -e '^GITHUB_TOKEN=' -e 'ENVSHIM_POLICY=/dev/null' \
		-e 'ENVSHIM_CONFIG=mode audit' -e evil <<<"$output"
}

@test "an explicit envp without LD_PRELOAD still gets the shim" {
	run agent -- "$SPAWN" explicit /usr/bin/env
	[ "$status" -eq 0 ]
	[ "$(grep -c '^LD_PRELOAD=' <<<"$output")" = 1 ]
	grep -qx "LD_PRELOAD=$SHIM" <<<"$output"
}

@test "setenv of LD_PRELOAD and ENVSHIM_* by the agent changes nothing" {
	run agent -- "$SPAWN" setenv env
	[ "$status" -eq 0 ]
	assert_filtered
	! grep -q -e 'evil' -e 'ENVSHIM_POLICY=' -e 'ENVSHIM_MODE=' <<<"$output"
}

@test "env -i and env -u LD_PRELOAD cannot shake the shim off" {
	run agent -- "$SPAWN" execvp env -i /usr/bin/printenv
	[ "$status" -eq 0 ]
	grep -qx "LD_PRELOAD=$SHIM" <<<"$output"
	run agent -- "$SPAWN" execvp env -u LD_PRELOAD /usr/bin/printenv
	[ "$status" -eq 0 ]
	grep -qx "LD_PRELOAD=$SHIM" <<<"$output"
	! grep -q '^GITHUB_TOKEN=' <<<"$output"
}

@test "a relative LD_PRELOAD at launch becomes absolute, also after chdir" {
	cd "$(dirname "$SHIM")"
	run env -i HOME="$HOME" PATH=/usr/bin:/bin GITHUB_TOKEN="$GH" \
		LD_PRELOAD=./libenvshim.so XDG_STATE_HOME="$BATS_TEST_TMPDIR/state" \
		python3 -c 'import os; os.chdir("/"); os.execv("/usr/bin/env", ["env"])'
	[ "$status" -eq 0 ]
	grep -qx "LD_PRELOAD=$SHIM" <<<"$output"
	! grep -q '^GITHUB_TOKEN=' <<<"$output"
}

@test "grandchildren are filtered too: a child cannot re-add what was dropped" {
	# Outside the sandbox (in it, what a command sets is its own business)
	run agent "$NOSBX" -- "$SPAWN" execve /usr/bin/env NODE_OPTIONS=--inspect \
		GH_TOKEN="$GH" LD_PRELOAD=/tmp/evil.so ENVSHIM_POLICY=/dev/null /usr/bin/env
	[ "$status" -eq 0 ]
	! grep -q -e '^NODE_OPTIONS=' -e '^GH_TOKEN=' -e evil -e '^ENVSHIM_POLICY=' <<<"$output" || false
	grep -qx "LD_PRELOAD=$SHIM" <<<"$output"
}

@test "the agent re-launching itself keeps its key; what it then runs does not" {
	run agent -- "$SPAWN" self env
	[ "$status" -eq 0 ]
	grep -qx 'agent-sees-token=yes' <<<"$output"
	grep -qx 'agent-sees-node-options=no' <<<"$output"
	assert_filtered
}

@test "ENVSHIM_* settings are taken once at load and forced into children" {
	run agent -- "$SPAWN" execve /usr/bin/env
	[ "$status" -eq 0 ]
	grep -q '^ENVSHIM_LAUNCH=' <<<"$output"
	grep -q '^ENVSHIM_CONFIG=' <<<"$output"
	# The relaunched agent got the same settings, not the ones it was given.
	run agent -- "$SPAWN" fork-environ /usr/bin/env
	[ "$status" -eq 0 ]
	grep -q '^ENVSHIM_CONFIG=' <<<"$output"
	! grep -q 'ENVSHIM_CONFIG=mode audit' <<<"$output"
}

@test "Python subprocess, os.system, os.exec*, os.posix_spawn are filtered" {
	local py
	for py in \
		'import subprocess; subprocess.run(["env"])' \
		'import subprocess,os; subprocess.run(["env"], env=dict(os.environ))' \
		'import subprocess; subprocess.run(["/usr/bin/env"], close_fds=False)' \
		'import subprocess; subprocess.run("env", shell=True)' \
		'import os; os.system("env")' \
		'import os; os.execvp("env", ["env"])' \
		'import os; os.waitpid(os.posix_spawn("/usr/bin/env", ["env"], os.environ), 0)' \
		'import ctypes; ctypes.CDLL(None).system(b"env")'
	do
		run agent "$NOSBX" -- python3 -c "$py"
		echo "python: $py"
		[ "$status" -eq 0 ]
		assert_filtered
	done
}

@test "Node spawnSync, execFileSync, execSync, spawn and fork children are filtered" {
	local js
	for js in \
		'process.stdout.write(require("child_process").spawnSync("env").stdout)' \
		'process.stdout.write(require("child_process").execFileSync("env"))' \
		'process.stdout.write(require("child_process").execSync("env"))' \
		'require("child_process").spawn("env", {stdio: "inherit"})' \
		'require("child_process").spawn("env", {stdio: "inherit", env: {...process.env, LD_PRELOAD: "/tmp/evil.so"}})'
	do
		# The agent keeps its own NODE_OPTIONS; node as agent must not get ours.
		run agent "$NOSBX" NODE_OPTIONS= -- node -e "$js"
		echo "node: $js"
		[ "$status" -eq 0 ]
		# an empty NODE_OPTIONS is inert: it passes (tame)
		output=$(grep -vx 'NODE_OPTIONS=' <<<"$output")
		assert_filtered
	done
}

@test "Perl system, backticks and exec are filtered" {
	local pl
	for pl in 'system("/usr/bin/env")' 'print `/usr/bin/env`' 'exec("/usr/bin/env")'; do
		run agent "$NOSBX" -- perl -e "$pl"
		echo "perl: $pl"
		[ "$status" -eq 0 ]
		assert_filtered
	done
}

@test "bash exec, xargs, find -exec, make, nohup, timeout, setsid pass the filter on" {
	mkdir -p "$BATS_TEST_TMPDIR/mk"
	printf 'all:\n\t@/usr/bin/env\n' >"$BATS_TEST_TMPDIR/mk/Makefile"
	local cmd
	for cmd in "bash -c 'exec /usr/bin/env'" "echo /usr/bin/env | xargs sh -c" \
		"find /usr/bin/env -exec {} ';'" "make -s -C $BATS_TEST_TMPDIR/mk" \
		"nohup /usr/bin/env 2>/dev/null" "timeout 10 /usr/bin/env" "setsid -w /usr/bin/env"
	do
		run agent "$NOSBX" -- "$SPAWN" execvp sh -c "$cmd"
		echo "cmd: $cmd"
		[ "$status" -eq 0 ]
		assert_filtered
	done
}

@test "a git hook runs filtered" {
	local repo=$BATS_TEST_TMPDIR/repo
	git init -q "$repo"
	printf '#!/bin/sh\n/usr/bin/env >"%s/hook.out"\n' "$BATS_TEST_TMPDIR" >"$repo/.git/hooks/pre-commit"
	chmod +x "$repo/.git/hooks/pre-commit"
	run agent "$NOSBX" -- git -C "$repo" -c user.name=t -c user.email=t@t \
		commit -q --allow-empty -m x
	[ "$status" -eq 0 ]
	output=$(cat "$BATS_TEST_TMPDIR/hook.out")
	assert_filtered
}

@test "npm run scripts are filtered" {
	mkdir -p "$BATS_TEST_TMPDIR/pkg"
	printf '{"name":"t","version":"1.0.0","scripts":{"show":"/usr/bin/env"}}\n' \
		>"$BATS_TEST_TMPDIR/pkg/package.json"
	run agent "$NOSBX" npm_config_update_notifier=false -- npm --prefix "$BATS_TEST_TMPDIR/pkg" \
		run -s show
	[ "$status" -eq 0 ]
	assert_filtered
}

@test "a file the kernel calls ENOEXEC runs through /bin/sh, filtered, as glibc's execvp would" {
	printf '/usr/bin/env\n' >"$BATS_TEST_TMPDIR/noshebang"
	chmod +x "$BATS_TEST_TMPDIR/noshebang"
	run agent "$NOSBX" -- "$SPAWN" execvp "$BATS_TEST_TMPDIR/noshebang"
	[ "$status" -eq 0 ]
	assert_filtered
	audit_log | grep '"path":"/bin/sh"' | grep -q noshebang
}

@test "a FIFO named as the program fails at once with EACCES, as without the shim" {
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	chmod 755 "$BATS_TEST_TMPDIR/fifo"
	local how
	for how in execve vfork posix_spawn; do
		# The exit status says how it failed: 124 is the timeout's.
		run sh -c 'timeout 10 "$@"; echo "exit=$?"' sh \
			env "$SPAWN" "$how" "$BATS_TEST_TMPDIR/fifo"
		[ "$status" -eq 0 ]
		want=$output
		run sh -c 'timeout 10 "$@"; echo "exit=$?"' sh \
			env LD_PRELOAD="$SHIM" "$SPAWN" "$how" "$BATS_TEST_TMPDIR/fifo"
		echo "$how: $output (without the shim: $want)"
		[ "$status" -eq 0 ]
		[ "${lines[-1]}" != "exit=124" ]
		[ "${lines[-1]}" != "exit=0" ]
		# the same failure, said the same way, as without the shim
		[ "$output" = "$want" ]
	done
	run timeout 10 env LD_PRELOAD="$SHIM" "$SPAWN" execve "$BATS_TEST_TMPDIR/fifo"
	grep -qx "errno=13" <<<"$output"
}

@test "syscall() passes every other number through untouched" {
	run agent -- python3 -c 'import ctypes,os; print(ctypes.CDLL(None).syscall(39) == os.getpid())'
	[ "$status" -eq 0 ]
	[ "$output" = True ]
}

@test "the audit log names what was dropped and why, and never a value" {
	run agent -- "$SPAWN" execve /usr/bin/env
	[ "$status" -eq 0 ]
	run audit_log
	[ "$status" -eq 0 ]
	! grep -q -e "$GH" -e "$AWSK" -e evil.js <<<"$output" || false
	python3 - "$BATS_TEST_TMPDIR/state/envshim/audit.jsonl" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
r = [x for x in recs if x["hook"] == "execve" and x["path"] == "/usr/bin/env"][0]
drop = {d["name"]: d["reason"] for d in r["dropped"]}
assert drop["GITHUB_TOKEN"] == "secret-name", drop
assert drop["NODE_OPTIONS"] == "injection", drop
assert drop["SSH_AUTH_SOCK"] == "capability", drop
assert drop["BASH_ENV"] == "injection", drop
assert r["action"] == "sandbox" and r["inside"] is False and r["agent"] is False
assert r["argv"] == ["/usr/bin/env"], r["argv"]
PY
}

@test "secret-shaped arguments are masked in the log" {
	run agent -- "$SPAWN" execve /usr/bin/true "$GH"
	[ "$status" -eq 0 ]
	run audit_log
	! grep -q "$GH" <<<"$output" || false
	grep -q '"argv":\["/usr/bin/true","\*\*\*"\]' <<<"$output"
}

@test "a child cannot read the agent's /proc/PID/environ (protect-self)" {
	nobody_dirs
	# A child outside the sandbox (there the agent is not even visible)
	printf 'sandbox shells\n' >"$BATS_TEST_TMPDIR/p"
	chmod 644 "$BATS_TEST_TMPDIR/p"
	run as_nobody env -i HOME="$HOME" PATH=/usr/bin:/bin GITHUB_TOKEN="$GH" \
		ENVSHIM_POLICY="$BATS_TEST_TMPDIR/p" XDG_STATE_HOME="$BATS_TEST_TMPDIR/state" \
		LD_PRELOAD="$SHIM" \
		python3 -c '
import subprocess
subprocess.run(["python3", "-c", "import os\ntry:\n open(\"/proc/%d/environ\" % os.getppid()).read(); print(\"read\")\nexcept PermissionError: print(\"denied\")"])'
	[ "$status" -eq 0 ]
	[ "$output" = denied ]
}

@test "without protect-self the same read succeeds (the test can fail)" {
	nobody_dirs
	printf 'protect-self no\nsandbox shells\n' >"$BATS_TEST_TMPDIR/p"
	chmod 644 "$BATS_TEST_TMPDIR/p"
	run as_nobody env -i HOME="$HOME" PATH=/usr/bin:/bin GITHUB_TOKEN="$GH" \
		ENVSHIM_POLICY="$BATS_TEST_TMPDIR/p" XDG_STATE_HOME="$BATS_TEST_TMPDIR/state" \
		LD_PRELOAD="$SHIM" python3 -c '
import subprocess
subprocess.run(["python3", "-c", "import os\ntry:\n open(\"/proc/%d/environ\" % os.getppid()).read(); print(\"read\")\nexcept PermissionError: print(\"denied\")"])'
	[ "$output" = read ]
}

@test "the library exports only its hooks" {
	run sh -c "nm -D --defined-only '$SHIM' | awk '{print \$3}' | sort | tr '\n' ' '"
	[ "$output" = "execl execle execlp execv execve execveat execvp execvpe fexecve pclose pidfd_spawn pidfd_spawnp popen posix_spawn posix_spawnp syscall system " ]
}

@test "a Node agent re-launching its own script keeps its key; node running another script does not" {
	cat >"$BATS_TEST_TMPDIR/agent.js" <<'JS'
const cp = require("child_process");
if (process.argv[2] === "again") {
	console.log("relaunch-sees-token=" + (process.env.GITHUB_TOKEN ? "yes" : "no"));
} else {
	cp.spawnSync(process.execPath, [__filename, "again"], { stdio: "inherit" });
	cp.spawnSync(process.execPath, ["-e", 'console.log("tool-sees-token=" + (process.env.GITHUB_TOKEN ? "yes" : "no"))'], { stdio: "inherit" });
	cp.spawnSync(process.execPath, [process.env.HOME + "/other.js"], { stdio: "inherit" });
}
JS
	# In the home: a tool runs in the sandbox, which sees no host /tmp.
	printf 'console.log("other-script-sees-token=" + (process.env.GITHUB_TOKEN ? "yes" : "no"))\n' \
		>"$HOME/other.js"
	run agent NODE_OPTIONS= -- node "$BATS_TEST_TMPDIR/agent.js"
	[ "$status" -eq 0 ]
	grep -qx 'relaunch-sees-token=yes' <<<"$output"
	grep -qx 'tool-sees-token=no' <<<"$output"
	grep -qx 'other-script-sees-token=no' <<<"$output"
}

@test "a policy log file (~/ expanded) receives every record, also from children" {
	printf 'log ~/audit/here.jsonl\n' >"$BATS_TEST_TMPDIR/p"
	chmod 644 "$BATS_TEST_TMPDIR/p"
	mkdir -p "$HOME/audit"
	run agent "ENVSHIM_POLICY=$BATS_TEST_TMPDIR/p" -- "$SPAWN" execve /usr/bin/env /usr/bin/true
	[ "$status" -eq 0 ]
	run cat "$HOME/audit/here.jsonl"
	grep -q '"path":"/usr/bin/env"' <<<"$output"
	grep -q '"path":"/usr/bin/true"' <<<"$output"
	[ ! -e "$BATS_TEST_TMPDIR/state/envshim/audit.jsonl" ] || ! grep -q true "$BATS_TEST_TMPDIR/state/envshim/audit.jsonl"
}
