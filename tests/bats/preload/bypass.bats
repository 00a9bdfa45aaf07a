#!/usr/bin/env bats
# The bypass corpus: environment tricks and escape attempts by a command
# the agent runs, each judged by what the GRANDCHILD really saw - the
# program that hostile command starts.  Runs under the real shim with the
# builtin lists; shells run unsandboxed here (a "sandbox off" policy) so
# the filter is what is tested.  Where LD_PRELOAD cannot reach, a test
# shows the gap is real (it fails if the gap closes silently) and what
# still covers it.
#
# Shape of most cases: agent (spawn) -> child (craft, the hostile
# command, building its child's environment by hand) -> grandchild
# (/usr/bin/env or a shell printing what it got).

load ../common

CRAFT=$BUILD/progs/craft
SCRAFT=$BUILD/progs/static_craft

setup() {
	HOME=$BATS_TEST_TMPDIR/home
	mkdir -p "$HOME"
	printf 'sandbox off\n' >"$BATS_TEST_TMPDIR/nosandbox"
	chmod 644 "$BATS_TEST_TMPDIR/nosandbox"
	NOSBX="ENVSHIM_POLICY=$BATS_TEST_TMPDIR/nosandbox"
	M=$BATS_TEST_TMPDIR/marker
}

# policy LINE...: a policy file with sandbox off plus LINEs, in $POL.
policy() {
	printf '%s\n' 'sandbox off' "$@" >"$BATS_TEST_TMPDIR/policy"
	chmod 644 "$BATS_TEST_TMPDIR/policy"
	POL="ENVSHIM_POLICY=$BATS_TEST_TMPDIR/policy"
}

# hostile CRAFT-ARGS -- GRANDCHILD...: the agent runs craft, which execs
# the grandchild with the environment the arguments describe.
hostile() {
	agent "$NOSBX" -- "$SPAWN" execve "$CRAFT" "$@"
}

# The grandchild's environment carries the shim, exactly once, and none of
# the agent's secrets.
assert_shim_no_secrets() {
	[ "$(grep -c '^LD_PRELOAD=' <<<"$output")" = 1 ] || { echo "LD_PRELOAD count"; return 1; }
	grep -qx "LD_PRELOAD=$SHIM" <<<"$output" || { echo "LD_PRELOAD not the shim"; return 1; }
	! grep -q -e "$GH" -e "$AWSK" <<<"$output" || { echo "secret leaked"; return 1; }
}

# ---- environment tricks ----

@test "duplicates: benign copy first, secret second - no copy survives" {
	run hostile -e FOO=benign -e "FOO=$GH" -- /usr/bin/env
	[ "$status" -eq 0 ]
	assert_shim_no_secrets
	[ "$(grep -c '^FOO=' <<<"$output")" -le 1 ]
}

@test "duplicates: secret copy first, benign second - no secret, one copy at most" {
	run hostile -e "FOO=$GH" -e FOO=benign -- /usr/bin/env
	[ "$status" -eq 0 ]
	assert_shim_no_secrets
	[ "$(grep -c '^FOO=' <<<"$output")" -le 1 ]
}

@test "duplicates: a second LD_PRELOAD after the shim's (ld.so takes the last)" {
	run hostile -e LD_PRELOAD=/tmp/evil.so -e "LD_PRELOAD=$SHIM /tmp/evil.so" -- /usr/bin/env
	[ "$status" -eq 0 ]
	assert_shim_no_secrets
	! grep -q evil <<<"$output"
}

@test "duplicates: an injection name twice, harmless value first" {
	run hostile -e NODE_OPTIONS= -e "NODE_OPTIONS=--require $M.js" -- /usr/bin/env
	[ "$status" -eq 0 ]
	assert_shim_no_secrets
	! grep -q '^NODE_OPTIONS=' <<<"$output"
}

@test "case variants added by the command: ld_preload Node_Options gh_token Https_Proxy" {
	run hostile -e ld_preload=/tmp/evil.so -e "Node_Options=--require $M.js" \
		-e "gh_token=$GH" -e "Https_Proxy=http://user:hunter2pass@proxy.invalid:3128" \
		-e Ld_Library_Path=/tmp/evil -e "Bash_Env=$M.sh" -- /usr/bin/env
	[ "$status" -eq 0 ]
	assert_shim_no_secrets
	# Any case, except the one LD_PRELOAD the shim itself puts there.
	! grep -vx "LD_PRELOAD=$SHIM" <<<"$output" | grep -qi -e '^ld_preload=' \
		-e '^node_options=' -e '^gh_token=' -e '^ld_library_path=' -e '^bash_env=' || false
	! grep -q hunter2pass <<<"$output"
}

@test "entries with no '=', an empty name, a lone '=' never reach the grandchild" {
	run hostile -e NOEQUALS -e =nokey -e = -e "=$GH" -e "LD_PRELOAD" -- /usr/bin/env
	[ "$status" -eq 0 ]
	assert_shim_no_secrets
	! grep -q -e '^NOEQUALS$' -e '^=' -e '^LD_PRELOAD$' <<<"$output"
}

@test "exported bash function BASH_FUNC_ls%% does not replace ls (control: it does without the shim)" {
	local fn='() { echo pwned; }'
	# Control: bash 5.2 imports this encoding, so the test can fail.
	run env "BASH_FUNC_ls%%=$fn" bash -c 'ls /'
	grep -qx pwned <<<"$output"
	run hostile -e "BASH_FUNC_ls%%=$fn" -- /bin/bash -c 'ls / >/dev/null; env'
	[ "$status" -eq 0 ]
	! grep -q pwned <<<"$output" || false
	! grep -q '^BASH_FUNC_' <<<"$output" || false
	assert_shim_no_secrets
}

@test "exported bash function in the old BASH_FUNC_ls() and bare '() {' encodings" {
	local fn='() { echo pwned; }'
	run hostile -e "BASH_FUNC_ls()=$fn" -e "__BASH_FUNC<ls>()=$fn" -e "ls=$fn" \
		-e "X=$fn" -- /bin/bash -c 'ls / >/dev/null; env'
	[ "$status" -eq 0 ]
	assert_shim_no_secrets
	! grep -q pwned <<<"$output" || false
	! grep -q -e 'BASH_FUNC' -e '^ls=' -e '^X=()' <<<"$output"
}

@test "values with newlines arrive intact, and a fake LD_PRELOAD line inside one is inert" {
	run hostile -e "MULTI=line1
line2" -e "SNEAKY=x
LD_PRELOAD=/tmp/evil.so
GITHUB_TOKEN=$GH" -- /usr/bin/python3 -c '
import os
print(repr(os.environ.get("MULTI")))
print(os.environ["LD_PRELOAD"])
print("SNEAKY" in os.environ, "GITHUB_TOKEN" in os.environ)'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "'line1\\nline2'" ]
	[ "${lines[1]}" = "$SHIM" ]
	# The value with a secret shape in it goes as a whole.
	[ "${lines[2]}" = "False False" ]
}

@test "PYTHONWARNINGS cannot import antigravity and run BROWSER (control: it does without the shim)" {
	printf '#!/bin/sh\ntouch %s\n' "$M" >"$BATS_TEST_TMPDIR/browser"
	chmod +x "$BATS_TEST_TMPDIR/browser"
	local pw='PYTHONWARNINGS=ignore::antigravity.Foo'
	env -i PATH=/usr/bin:/bin HOME="$HOME" "$pw" BROWSER="$BATS_TEST_TMPDIR/browser" \
		python3 -c 'pass'
	local i; for i in $(seq 50); do [ -e "$M" ] && break; sleep 0.1; done
	[ -e "$M" ]
	rm -f "$M"
	# BROWSER is the user's own (in the launch env); the command adds the warning filter.
	run agent "$NOSBX" BROWSER="$BATS_TEST_TMPDIR/browser" -- "$SPAWN" execve "$CRAFT" \
		-e "$pw" -- /usr/bin/python3 -c 'import os; print(os.environ.get("PYTHONWARNINGS"))'
	[ "$status" -eq 0 ]
	[ "$output" = None ]
	sleep 1
	[ ! -e "$M" ]
}

@test "GIT_CONFIG_COUNT + core.sshCommand does not run (control: it does without the shim)" {
	local cfg=(-e GIT_CONFIG_COUNT=1 -e GIT_CONFIG_KEY_0=core.sshCommand
		-e "GIT_CONFIG_VALUE_0=touch $M; false")
	env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.sshCommand GIT_CONFIG_VALUE_0="touch $M; false" \
		git ls-remote ssh://example.invalid/x 2>/dev/null || true
	[ -e "$M" ]
	rm -f "$M"
	run hostile "${cfg[@]}" -e GIT_CONFIG_PARAMETERS="'core.sshcommand'='touch $M'" \
		-e "GIT_SSH_COMMAND=touch $M" -- /usr/bin/git ls-remote ssh://example.invalid/x
	# git got as far as its transport, and the ssh it ran was the real one.
	[ "$status" -eq 128 ]
	grep -q '^ssh: Could not resolve hostname example.invalid' <<<"$output"
	[ ! -e "$M" ]
}

@test "npm_config_script_shell (any case) does not pick the shell for npm run (control: it does)" {
	mkdir -p "$BATS_TEST_TMPDIR/pkg"
	printf '{"name":"t","version":"1.0.0","scripts":{"show":"echo ran"}}\n' \
		>"$BATS_TEST_TMPDIR/pkg/package.json"
	printf '#!/bin/sh\ntouch %s\nexec /bin/sh "$@"\n' "$M" >"$BATS_TEST_TMPDIR/evilsh"
	chmod +x "$BATS_TEST_TMPDIR/evilsh"
	env npm_config_script_shell="$BATS_TEST_TMPDIR/evilsh" npm_config_update_notifier=false \
		npm --prefix "$BATS_TEST_TMPDIR/pkg" run -s show >/dev/null
	[ -e "$M" ]
	rm -f "$M"
	local v
	for v in npm_config_script_shell NPM_CONFIG_SCRIPT_SHELL Npm_Config_Script_Shell; do
		run hostile -e "$v=$BATS_TEST_TMPDIR/evilsh" -e npm_config_update_notifier=false \
			-- /usr/bin/npm --prefix "$BATS_TEST_TMPDIR/pkg" run -s show
		echo "$v: $output"
		[ "$status" -eq 0 ]
		grep -qx ran <<<"$output"
		[ ! -e "$M" ]
	done
}

@test "proxies with credentials lose them in every case spelling" {
	run agent "$NOSBX" HTTPS_PROXY=http://alice:hunter2pass@proxy.invalid:3128 \
		https_proxy=http://alice:hunter2pass@proxy.invalid:3128 \
		ALL_PROXY=socks5://bob:s3cr3tpass@proxy.invalid:1080 -- "$SPAWN" execve "$CRAFT" \
		-e "Http_Proxy=http://eve:addedpass@proxy.invalid:8080" -- /usr/bin/env
	[ "$status" -eq 0 ]
	assert_shim_no_secrets
	! grep -q -e hunter2pass -e s3cr3tpass -e addedpass -e 'alice:' -e 'bob:' -e 'eve:' <<<"$output"
}

# Up to 6 MiB of argv+env on a 64 MiB stack (the kernel allows a quarter).
big_env() {
	ulimit -s 65536
	agent "$NOSBX" -- "$SPAWN" execve "$CRAFT" -n 20000 -e "GH_TOKEN=$GH" \
		-e "HIDDEN=x$GH" -e NODE_OPTIONS=--inspect -- /usr/bin/env
}

@test "a 2 MiB environment (20,000 variables) starts the grandchild, filtered" {
	run big_env
	[ "$status" -eq 0 ]
	[ "$(grep -c '^BIG_' <<<"$output")" -eq 20000 ]
	grep -qx "BIG_19999=$(printf '%090d' 19999)" <<<"$output"
	assert_shim_no_secrets
	! grep -q -e '^GH_TOKEN=' -e '^NODE_OPTIONS=' -e '^HIDDEN=' <<<"$output"
}

@test "GAP: a secret with no known shape under an innocent name passes (no entropy guessing)" {
	run hostile -e "HIDDEN=$AWSK" -e "AWS_SECRET_ACCESS_KEY=$AWSK" -- /usr/bin/env
	[ "$status" -eq 0 ]
	# The leak is real: an AWS secret key has no prefix to recognise.
	grep -qx "HIDDEN=$AWSK" <<<"$output"
	# What covers it: only its usual name.
	! grep -q '^AWS_SECRET_ACCESS_KEY=' <<<"$output"
}

# ---- escape attempts ----

@test "env -i and env -u LD_PRELOAD one level down: the grandchild still has the shim" {
	run hostile -e NODE_OPTIONS=--inspect -- /usr/bin/env -i /usr/bin/env
	[ "$status" -eq 0 ]
	grep -qx "LD_PRELOAD=$SHIM" <<<"$output"
	grep -q '^ENVSHIM_LAUNCH=' <<<"$output"
	run hostile -- /usr/bin/env -u LD_PRELOAD -u ENVSHIM_LAUNCH -u ENVSHIM_CONFIG /usr/bin/env
	[ "$status" -eq 0 ]
	assert_shim_no_secrets
	grep -q '^ENVSHIM_LAUNCH=' <<<"$output"
	! grep -q -e '^GITHUB_TOKEN=' -e '^NODE_OPTIONS=' <<<"$output"
}

@test "craft -u LD_PRELOAD -u ENVSHIM_*: the command's own exec puts them back" {
	run hostile -u LD_PRELOAD -u ENVSHIM_LAUNCH -u ENVSHIM_CONFIG -u ENVSHIM_AGENT \
		-- /usr/bin/env
	[ "$status" -eq 0 ]
	assert_shim_no_secrets
	grep -q '^ENVSHIM_LAUNCH=' <<<"$output"
}

@test "shell assignment prefixes: LD_PRELOAD=x GITHUB_TOKEN=... cmd" {
	run agent "$NOSBX" -- "$SPAWN" execve /bin/sh -c \
		"LD_PRELOAD=/tmp/evil.so GITHUB_TOKEN=$GH NODE_OPTIONS=--inspect ENVSHIM_CONFIG='mode audit' ENVSHIM_LAUNCH= /usr/bin/env"
	[ "$status" -eq 0 ]
	assert_shim_no_secrets
	! grep -q -e evil -e '^GITHUB_TOKEN=' -e '^NODE_OPTIONS=' -e 'mode audit' <<<"$output"
}

@test "setenv of LD_PRELOAD and ENVSHIM_* in a Python child changes nothing for its child" {
	run agent "$NOSBX" -- "$SPAWN" execve /usr/bin/python3 -c '
import os, subprocess
os.environ["LD_PRELOAD"] = "/tmp/evil.so"
os.environ["ENVSHIM_CONFIG"] = "mode audit"
os.environ["ENVSHIM_LAUNCH"] = ""
os.environ["ENVSHIM_SANDBOX_NS"] = "1:1"
os.environ["GITHUB_TOKEN"] = "'"$GH"'"
subprocess.run(["/usr/bin/env"])'
	[ "$status" -eq 0 ]
	assert_shim_no_secrets
	! grep -q -e evil -e 'mode audit' -e '^ENVSHIM_SANDBOX_NS=' -e '^GITHUB_TOKEN=' <<<"$output"
}

@test "swapping environ for a hostile list before execv" {
	run hostile -m environ -e LD_PRELOAD=/tmp/evil.so -e "GH_TOKEN=$GH" \
		-e ENVSHIM_CONFIG='mode audit' -- /usr/bin/env
	[ "$status" -eq 0 ]
	assert_shim_no_secrets
	! grep -q -e evil -e 'mode audit' <<<"$output"
}

@test "a relative LD_PRELOAD pointing at a planted library, then chdir" {
	mkdir -p "$BATS_TEST_TMPDIR/plant"
	# A library with the shim's name that would announce itself if loaded.
	printf '#include <unistd.h>\n__attribute__((constructor)) static void p(void) { write(2, "PLANTED\\n", 8); }\n' \
		>"$BATS_TEST_TMPDIR/plant/p.c"
	cc -shared -fPIC -o "$BATS_TEST_TMPDIR/plant/libenvshim.so" "$BATS_TEST_TMPDIR/plant/p.c"
	run agent "$NOSBX" -- "$SPAWN" execve /usr/bin/python3 -c '
import os, subprocess
os.chdir("'"$BATS_TEST_TMPDIR/plant"'")
os.environ["LD_PRELOAD"] = "./libenvshim.so"
subprocess.run(["/usr/bin/env"])
os.execv("/usr/bin/env", ["env"])'
	[ "$status" -eq 0 ]
	! grep -q PLANTED <<<"$output" || false
	[ "$(grep -c "^LD_PRELOAD=$SHIM\$" <<<"$output")" -eq 2 ]
}

@test "Python ctypes CDLL(None).system in a child: its shell's env is filtered" {
	run agent "$NOSBX" -- "$SPAWN" execve /usr/bin/python3 -c '
import ctypes, os
os.environ["NODE_OPTIONS"] = "--inspect"
os.environ["GH_TOKEN"] = "'"$GH"'"
ctypes.CDLL(None).system(b"/usr/bin/env")'
	[ "$status" -eq 0 ]
	assert_shim_no_secrets
	! grep -q -e '^NODE_OPTIONS=' -e '^GH_TOKEN=' <<<"$output"
}

@test "syscall(SYS_execve) from a child with an injected env" {
	run hostile -m syscall -e NODE_OPTIONS=--inspect -e "GH_TOKEN=$GH" \
		-e LD_PRELOAD=/tmp/evil.so -- /usr/bin/env
	[ "$status" -eq 0 ]
	assert_shim_no_secrets
	! grep -q -e '^NODE_OPTIONS=' -e '^GH_TOKEN=' -e evil <<<"$output"
}

@test "a static helper binary is refused when the sandbox is off (default unfollowable)" {
	run hostile -- "$SCRAFT" -- /usr/bin/env
	[ "$status" -eq 122 ]
	grep -q "refused $SCRAFT: statically linked program" <<<"$output"
	! grep -q '^PATH=' <<<"$output"
}

@test "a setuid binary (the shim cannot load into it) is refused when the sandbox is off" {
	nobody_dirs
	cp "$BUILD/progs/craft" "$BATS_TEST_TMPDIR/suid-craft"
	# Set-user-ID to another unprivileged uid: AT_SECURE, so ld.so drops LD_PRELOAD.
	chown 65533 "$BATS_TEST_TMPDIR/suid-craft"
	chmod 4755 "$BATS_TEST_TMPDIR/suid-craft"
	cp "$BATS_TEST_TMPDIR/nosandbox" "$BATS_TEST_TMPDIR/home/p"
	run as_nobody env -i HOME="$HOME" PATH=/usr/bin:/bin GITHUB_TOKEN="$GH" \
		ENVSHIM_POLICY="$HOME/p" XDG_STATE_HOME="$BATS_TEST_TMPDIR/state" \
		LD_PRELOAD="$SHIM" "$SPAWN" execve "$BATS_TEST_TMPDIR/suid-craft" \
		-e NODE_OPTIONS=--inspect -- /usr/bin/env
	[ "$status" -eq 122 ]
	grep -q "setuid or setgid program" <<<"$output"
	! grep -q '^NODE_OPTIONS=' <<<"$output"
}

# A program interpreter that is not ld.so: it runs argv[1] with raw
# syscalls and drops every LD_* entry, as any static program could.
fake_loader() {
	cat >"$BATS_TEST_TMPDIR/myld.c" <<'EOF'
#include <sys/syscall.h>
static long
sys3(long n, long a, long b, long c)
{
#if defined(__x86_64__)
	long r;
	__asm__ volatile ("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c)
	    : "rcx", "r11", "memory");
	return r;
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = n, x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b, x2 __asm__("x2") = c;
	__asm__ volatile ("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
	return x0;
#endif
}
__attribute__((used)) void
cmain(long *sp)
{
	char **argv = (char **)(sp + 1), **envp = argv + sp[0] + 1, *env[512];
	int i, n = 0;

	for (i = 0; envp[i] != 0 && n < 511; i++)
		if (envp[i][0] != 'L' || envp[i][1] != 'D' || envp[i][2] != '_')
			env[n++] = envp[i];
	env[n] = 0;
	if (sp[0] > 1)
		sys3(SYS_execve, (long)argv[1], (long)(argv + 1), (long)env);
	sys3(SYS_exit, 127, 0, 0);
}
#if defined(__x86_64__)
__asm__(".globl _start\n_start:\n mov %rsp, %rdi\n and $-16, %rsp\n call cmain\n hlt\n");
#elif defined(__aarch64__)
__asm__(".globl _start\n_start:\n mov x0, sp\n bl cmain\n brk #0\n");
#endif
EOF
	cc -O1 -nostdlib -static-pie -fPIE -fno-stack-protector \
		-o "$BATS_TEST_TMPDIR/myld" "$BATS_TEST_TMPDIR/myld.c"
	printf 'int main(void) { return 0; }\n' >"$BATS_TEST_TMPDIR/main.c"
	cc -o "$BATS_TEST_TMPDIR/fakedyn" "$BATS_TEST_TMPDIR/main.c" \
		-Wl,--dynamic-linker="$BATS_TEST_TMPDIR/myld"
}

@test "an ELF whose PT_INTERP is not ld.so is unfollowable (it bypassed the shim before)" {
	fake_loader
	# Control: the "loader" really runs the command, and no shim comes along.
	run env LD_PRELOAD="$SHIM" "$BATS_TEST_TMPDIR/fakedyn" /bin/sh -c 'echo "ran preload=$LD_PRELOAD"'
	[ "$output" = "ran preload=" ]
	run hostile -- "$BATS_TEST_TMPDIR/fakedyn" /bin/sh -c 'echo ran'
	[ "$status" -eq 122 ]
	grep -q "refused $BATS_TEST_TMPDIR/fakedyn: program whose loader (PT_INTERP) is not ld.so" <<<"$output"
	! grep -qx ran <<<"$output" || false
	# Ordinary dynamic programs keep running under the same judgement.
	run hostile -- /usr/bin/env
	[ "$status" -eq 0 ]
	assert_shim_no_secrets
}

@test "a #! script: the kernel starts its shell, whose children are filtered" {
	printf '#!/bin/sh\nexport NODE_OPTIONS=--inspect GH_TOKEN=%s LD_PRELOAD=/tmp/evil.so\nexec /usr/bin/env\n' \
		"$GH" >"$BATS_TEST_TMPDIR/s.sh"
	chmod +x "$BATS_TEST_TMPDIR/s.sh"
	printf '#!/usr/bin/env -S VAR=1 bash\nexport NODE_OPTIONS=--inspect\nexec /usr/bin/env\n' \
		>"$BATS_TEST_TMPDIR/s2.sh"
	chmod +x "$BATS_TEST_TMPDIR/s2.sh"
	local s
	for s in s.sh s2.sh; do
		run hostile -e "BASH_FUNC_ls%%=() { echo pwned; }" -- "$BATS_TEST_TMPDIR/$s"
		[ "$status" -eq 0 ]
		assert_shim_no_secrets
		! grep -q -e '^NODE_OPTIONS=' -e '^GH_TOKEN=' -e evil -e BASH_FUNC <<<"$output" || false
	done
}

@test "glibc's ENOEXEC fallback one level down (env execvp's a file with no #!)" {
	printf 'export NODE_OPTIONS=--inspect\nexec /usr/bin/env\n' >"$BATS_TEST_TMPDIR/noshebang"
	chmod +x "$BATS_TEST_TMPDIR/noshebang"
	run hostile -e "GH_TOKEN=$GH" -- /usr/bin/env "$BATS_TEST_TMPDIR/noshebang"
	[ "$status" -eq 0 ]
	assert_shim_no_secrets
	! grep -q -e '^NODE_OPTIONS=' -e '^GH_TOKEN=' <<<"$output" || false
	audit_log | grep '"path":"/bin/sh"' | grep -q noshebang
}

@test "nested shells 20 deep, each adding injections: the innermost is filtered and has the shim" {
	# Each level exports injections and a secret, then starts the next
	# bash with this same text as its script ($0).
	local cmd='export NODE_OPTIONS=--level$D GH_TOKEN='"$GH"' LD_PRELOAD=/tmp/evil$D.so
if [ "$D" -lt 20 ]; then D=$((D + 1)) exec bash -c "$0" "$0"; fi
echo "depth=$D"; exec /usr/bin/env'
	run agent "$NOSBX" D=1 -- "$SPAWN" execve /bin/bash -c "$cmd" "$cmd"
	[ "$status" -eq 0 ]
	grep -qx depth=20 <<<"$output"
	assert_shim_no_secrets
	! grep -q -e '^NODE_OPTIONS=' -e '^GH_TOKEN=' -e evil <<<"$output" || false
	# Every level was a launch the shim saw.
	[ "$(audit_log | grep -c '"path":"[a-z/]*/bash"')" -ge 20 ]
}

@test "nested shells 20 deep under the default policy: one sandbox, the shim in the innermost" {
	# Inside, what a shell sets reaches its children (docs/policy.md, "The
	# boundary"): the innermost sees the last level's values, never the
	# agent's secret, and the shim's LD_PRELOAD once, in front.
	local cmd='export NODE_OPTIONS=--level$D GH_TOKEN=inside$D LD_PRELOAD=/tmp/evil$D.so
if [ "$D" -lt 20 ]; then D=$((D + 1)) exec bash -c "$0" "$0"; fi
readlink /proc/self/ns/user; exec /usr/bin/env'
	run agent D=1 -- "$SPAWN" execve /bin/bash -c "$cmd" "$cmd"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^LD_PRELOAD=' <<<"$output")" = 1 ]
	grep -qx "LD_PRELOAD=$SHIM:/tmp/evil20.so" <<<"$output"
	lacks -e "$GH" -e "$AWSK"
	grep -qx 'NODE_OPTIONS=--level20' <<<"$output"
	grep -qx 'GH_TOKEN=inside20' <<<"$output"
	# The innermost shell is in a user namespace of the sandbox, not ours.
	grep -q '^user:\[[0-9]*\]$' <<<"$output"
	[ "$(grep '^user:' <<<"$output")" != "$(readlink /proc/self/ns/user)" ]
	grep -q '^ENVSHIM_SANDBOX_NS=' <<<"$output"
	# One redirect into the helper; the 19 shells below it ran inside.
	[ "$(audit_log | grep -c '"action":"sandbox"')" -eq 1 ]
	[ "$(audit_log | grep '"path":"[a-z/]*/bash"' | grep -c '"inside":true')" -ge 19 ]
}

# ---- through real tools, each re-adding what was dropped ----

@test "make, xargs, find -exec, nohup, setsid, timeout, script: re-added injections never arrive" {
	mkdir -p "$BATS_TEST_TMPDIR/mk"
	printf 'all:\n\t@LD_PRELOAD=/tmp/evil.so GH_TOKEN=%s NODE_OPTIONS=--inspect /usr/bin/env\n' "$GH" \
		>"$BATS_TEST_TMPDIR/mk/Makefile"
	local add="LD_PRELOAD=/tmp/evil.so GH_TOKEN=$GH NODE_OPTIONS=--inspect"
	local cmd
	for cmd in "make -s -C $BATS_TEST_TMPDIR/mk" \
		"echo /usr/bin/env | xargs env $add" \
		"find /usr/bin/env -exec env $add {} ';'" \
		"nohup env $add /usr/bin/env 2>/dev/null" \
		"setsid -w env $add /usr/bin/env" \
		"timeout 10 env $add /usr/bin/env" \
		"script -qec 'env $add /usr/bin/env' /dev/null"
	do
		run agent "$NOSBX" -- "$SPAWN" execve /bin/sh -c "$cmd"
		echo "cmd: $cmd"
		[ "$status" -eq 0 ]
		output=${output//$'\r'/}
		assert_shim_no_secrets
		! grep -q -e evil -e '^GH_TOKEN=' -e '^NODE_OPTIONS=' <<<"$output" || false
	done
}

@test "a git hook that re-adds secrets and injections runs filtered" {
	local repo=$BATS_TEST_TMPDIR/repo
	git init -q "$repo"
	printf '#!/bin/sh\nexport GH_TOKEN=%s NODE_OPTIONS=--inspect\n/usr/bin/env >"%s/hook.out"\n' \
		"$GH" "$BATS_TEST_TMPDIR" >"$repo/.git/hooks/pre-commit"
	chmod +x "$repo/.git/hooks/pre-commit"
	run agent "$NOSBX" -- "$SPAWN" execve /usr/bin/git -C "$repo" -c user.name=t \
		-c user.email=t@t commit -q --allow-empty -m x
	[ "$status" -eq 0 ]
	output=$(cat "$BATS_TEST_TMPDIR/hook.out")
	assert_shim_no_secrets
	! grep -q -e '^GH_TOKEN=' -e '^NODE_OPTIONS=' <<<"$output"
}

@test "an npm script that re-adds secrets runs filtered" {
	mkdir -p "$BATS_TEST_TMPDIR/pkg"
	printf '{"name":"t","version":"1.0.0","scripts":{"show":"GH_TOKEN=%s NODE_OPTIONS=--inspect /usr/bin/env"}}\n' \
		"$GH" >"$BATS_TEST_TMPDIR/pkg/package.json"
	run agent "$NOSBX" npm_config_update_notifier=false -- "$SPAWN" execve /usr/bin/npm \
		--prefix "$BATS_TEST_TMPDIR/pkg" run -s show
	[ "$status" -eq 0 ]
	assert_shim_no_secrets
	! grep -q -e '^GH_TOKEN=' -e '^NODE_OPTIONS=' <<<"$output"
}

# ---- where LD_PRELOAD cannot reach: the gaps, shown to be real ----

# contained ARGS: the same agent started by `envshim --contain`, where
# ld.so.preload in the agent's namespace brings the shim back into programs
# started behind its back.
contained() {
	env -i HOME="$HOME" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
		XDG_STATE_HOME="$BATS_TEST_TMPDIR/state" GITHUB_TOKEN="$GH" \
		"$ENVSHIM" --policy "$BATS_TEST_TMPDIR/nosandbox" --contain -- "$@"
}

@test "GAP: an inline execve syscall (Go, static code) skips the filter for one hop; the next hop is filtered" {
	# The leak is real: the grandchild gets the injected function.
	run hostile -m inline -e "BASH_FUNC_ls%%=() { echo pwned; }" -e NODE_OPTIONS=--inspect \
		-- /bin/bash -c 'ls /; echo "node_options=$NODE_OPTIONS"; env'
	[ "$status" -eq 0 ]
	grep -qx pwned <<<"$output"
	grep -qx 'node_options=--inspect' <<<"$output"
	# What covers it: the secrets were never in the command's env, and the
	# shim still rides along, so the next exec is filtered again.
	assert_shim_no_secrets
	run hostile -m inline -e "BASH_FUNC_ls%%=() { echo pwned; }" -e NODE_OPTIONS=--inspect \
		-- /usr/bin/env /bin/bash -c 'ls / >/dev/null; env'
	[ "$status" -eq 0 ]
	assert_shim_no_secrets
	grep -qx HARMLESS=yes <<<"$output"
	! grep -q pwned <<<"$output" || false
	! grep -q '^NODE_OPTIONS=' <<<"$output" || false
	# And contain mode closes the hop: ld.so.preload loads the shim into the
	# program the raw syscall started, which filters itself before main.
	run contained "$SPAWN" execve "$CRAFT" -m inline -e "BASH_FUNC_ls%%=() { echo pwned; }" \
		-e NODE_OPTIONS=--inspect -- /bin/bash -c 'ls / >/dev/null; echo "node_options=$NODE_OPTIONS"'
	[ "$status" -eq 0 ]
	! grep -q pwned <<<"$output" || false
	grep -qx 'node_options=' <<<"$output"
}

@test "GAP: execve looked up on dlopen(libc.so.6) skips the filter for one hop; the next hop is filtered" {
	run hostile -m dlsym -e NODE_OPTIONS=--inspect -- /usr/bin/env
	[ "$status" -eq 0 ]
	grep -q '^NODE_OPTIONS=--inspect' <<<"$output"
	assert_shim_no_secrets
	run hostile -m dlsym -e NODE_OPTIONS=--inspect -- /usr/bin/env /usr/bin/env
	[ "$status" -eq 0 ]
	grep -qx HARMLESS=yes <<<"$output"
	! grep -q '^NODE_OPTIONS=' <<<"$output" || false
	run contained "$SPAWN" execve "$CRAFT" -m dlsym -e NODE_OPTIONS=--inspect -- /usr/bin/env
	[ "$status" -eq 0 ]
	grep -qx LANG=C.UTF-8 <<<"$output"
	! grep -q '^NODE_OPTIONS=' <<<"$output"
}

@test "GAP: the agent itself calling execve through dlsym hands its child its secrets; the grandchild is filtered" {
	run agent "$NOSBX" -- "$CRAFT" -m dlsym -- /usr/bin/env
	[ "$status" -eq 0 ]
	grep -qx "GITHUB_TOKEN=$GH" <<<"$output"
	# The child, a new launch root with the shim, filters the children it
	# starts (not a re-launch of itself, nor a shell's or env's exec in
	# place, which hand the agent on).
	run agent "$NOSBX" -- "$CRAFT" -m dlsym -- /usr/bin/timeout 60 /usr/bin/printenv
	[ "$status" -eq 0 ]
	grep -qx HARMLESS=yes <<<"$output"
	! grep -q '^GITHUB_TOKEN=' <<<"$output" || false
	grep -qx "LD_PRELOAD=$SHIM" <<<"$output"
}

@test "GAP: with unfollowable allow, a static program drops the shim for everything below it" {
	policy 'unfollowable allow'
	cp "$BATS_TEST_TMPDIR/policy" "$BATS_TEST_TMPDIR/nosandbox"
	run agent "$POL" -- "$SPAWN" execve "$SCRAFT" -u LD_PRELOAD \
		-e "BASH_FUNC_ls%%=() { echo pwned; }" -- /bin/bash -c 'ls /; env'
	[ "$status" -eq 0 ]
	# The leak is real: no shim below the static program, injections arrive.
	grep -qx pwned <<<"$output"
	! grep -q '^LD_PRELOAD=' <<<"$output" || false
	# What covers it: the agent's exec filtered what the static program got.
	! grep -q -e "$GH" -e "$AWSK" -e '^NODE_OPTIONS=' <<<"$output" || false
	# And contain mode brings the shim back below the static program.
	run contained "$SPAWN" execve "$SCRAFT" -u LD_PRELOAD \
		-e "BASH_FUNC_ls%%=() { echo pwned; }" -- /bin/bash -c 'ls / >/dev/null; echo done'
	[ "$status" -eq 0 ]
	grep -qx done <<<"$output"
	! grep -q pwned <<<"$output"
}
