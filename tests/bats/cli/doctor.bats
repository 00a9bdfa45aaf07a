#!/usr/bin/env bats
# envshim doctor: real checks, a fix for each failure, exit 0 only if all pass.

bats_require_minimum_version 1.5.0
load ../cli

# a token shape the value scan knows (never a real one)
GH_SHAPE=ghp_abcdefghijklmnopqrstuvwxyz0123456789

setup() {
	cli_setup
	BUILD=$(cd "$BATS_TEST_DIRNAME/../../../build" && pwd)
	export XDG_STATE_HOME="$BATS_TEST_TMPDIR/state"
	# A private copy of the products, to break one at a time.
	COPY="$BATS_TEST_TMPDIR/bin"
	mkdir "$COPY"
	cp "$BUILD/envshim" "$BUILD/libenvshim.so" "$BUILD/envshim-sandbox" "$COPY/"
}

@test "the user-namespace verdict agrees with unshare(1)" {
	run "$COPY/envshim" doctor
	if unshare -Um true 2>/dev/null; then
		grep -qx 'ok   user namespaces: the sandbox helper ran a command confined' <<<"$output"
	else
		grep -q '^FAIL user namespaces' <<<"$output"
		grep -q '^     fix: ' <<<"$output"
	fi
}

@test "a healthy build tree passes every other check" {
	run "$COPY/envshim" doctor
	grep -qx "ok   shim: $COPY/libenvshim.so" <<<"$output"
	grep -qx "ok   sandbox helper: $COPY/envshim-sandbox" <<<"$output"
	grep -q '^ok   policy: 1 layer valid: builtin' <<<"$output"
	grep -qx "ok   log: $XDG_STATE_HOME/envshim/audit.jsonl (writable)" <<<"$output"
	[ -d "$XDG_STATE_HOME/envshim" ]
	if unshare -Um true 2>/dev/null; then
		[ "$status" -eq 0 ]
		[ "${lines[-1]}" = "all checks passed" ]
	fi
}

@test "doctor says whether Landlock scopes the sandbox, as the kernel does" {
	run "$COPY/envshim" doctor
	abi=$(python3 -c 'import ctypes; print(max(0, ctypes.CDLL(None).syscall(444, None, 0, 1)))')
	if [ "$abi" -ge 6 ]; then
		grep -qx "ok   landlock: ABI $abi: abstract sockets and signals outside the sandbox are out of reach" <<<"$output"
	else
		grep -q "^ok   landlock: no scoping (ABI $abi, needs 6" <<<"$output"
	fi
}

@test "a setuid helper fails with the fix" {
	chmod u+s "$COPY/envshim-sandbox"
	run -1 "$COPY/envshim" doctor
	grep -qx "FAIL sandbox helper: $COPY/envshim-sandbox is setuid or setgid" <<<"$output"
	grep -q 'fix: chmod ug-s' <<<"$output"
}

@test "a missing or non-executable helper fails" {
	chmod 644 "$COPY/envshim-sandbox"
	run -1 "$COPY/envshim" doctor
	grep -q "^FAIL sandbox helper: $COPY/envshim-sandbox is not executable" <<<"$output"
	rm "$COPY/envshim-sandbox"
	run -1 "$COPY/envshim" doctor
	grep -q '^FAIL sandbox helper: not found' <<<"$output"
}

@test "a helper that is there but does not work fails the check it is for" {
	# doctor asks the helper, not itself: an AppArmor profile or a
	# container decides for the helper.  This one runs and exits 1.
	cp /bin/false "$COPY/envshim-sandbox"
	run -1 "$COPY/envshim" doctor
	grep -qx "ok   sandbox helper: $COPY/envshim-sandbox" <<<"$output"
	grep -qx 'FAIL user namespaces: the sandbox helper refused: it failed (status 1)' <<<"$output"
	grep -q '^     fix: .*or set sandbox optional in your policy' <<<"$output"
}

@test "without user namespaces doctor gives the helper's reason and fix, as nobody" {
	d=$BATS_TEST_TMPDIR
	while [ "$d" != / ] && [ "$d" != /tmp ]; do chmod o+x "$d"; d=$(dirname "$d"); done
	chmod -R a+rX "$COPY"
	mkdir -p "$BATS_TEST_TMPDIR/nbhome"
	if [ "$(id -u)" = 0 ]; then
		chown 65534:65534 "$BATS_TEST_TMPDIR/nbhome"
		set -- setpriv --reuid=65534 --regid=65534 --clear-groups
	fi
	run "$@" unshare -Ur sh -c 'echo 0 >/proc/sys/user/max_user_namespaces &&
		HOME='"$BATS_TEST_TMPDIR/nbhome"' XDG_STATE_HOME= '"$COPY/envshim"' doctor'
	[ "$status" -eq 1 ]
	grep -qx 'FAIL user namespaces: the sandbox helper refused: user namespaces are disabled (user.max_user_namespaces=0)' <<<"$output"
	grep -qx '     fix: sysctl -w user.max_user_namespaces=10000, or set sandbox optional in your policy' <<<"$output"
}

@test "a bad policy fails with file and line" {
	p=$(policy_file p <<<'network maybe')
	run -1 "$COPY/envshim" doctor --policy "$p"
	grep -qx "FAIL policy: $p:1: network takes on or off" <<<"$output"
	# the fix names what an installed system has: the man page
	grep -qx '     fix: correct that line; envshim-policy(5) lists the keywords' <<<"$output"
}

@test "an unwritable log fails, with its cause" {
	p=$(policy_file p <<<'log /proc/envshim-no/audit.jsonl')
	run -1 "$COPY/envshim" doctor --policy "$p"
	grep -qx 'FAIL log: /proc/envshim-no does not exist (runs go on, unrecorded)' <<<"$output"
	grep -qx "     fix: make the directory, or correct the policy's log line" <<<"$output"
}

# contain_both RUNNER...: doctor's contain-mode verdict, then the real
# thing run the same way (a shell with a token, which must come up
# filtered and in a sandbox of its own): the verdict must say what the
# real thing did.
contain_both() {
	mkdir -p "$BATS_TEST_TMPDIR/ws"
	cd "$BATS_TEST_TMPDIR/ws"
	run "$@" "$COPY/envshim" doctor
	verdict=$(grep 'contain mode' <<<"$output")
	run "$@" env GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 \
		"$COPY/envshim" --contain -- /bin/sh -c \
		'echo "tok=${GITHUB_TOKEN:-none} $(readlink /proc/self/ns/user)"'
	real=$output
	if [ "$status" -eq 0 ] && [[ "$real" == "tok=none user:"* ]] &&
		[ "${real#tok=none }" != "$(readlink /proc/self/ns/user)" ]; then
		[ "$verdict" = "ok   contain mode: envshim --contain ran a shell, filtered and sandboxed" ]
	else
		[[ "$verdict" == "--   contain mode: unavailable: "* ]]
		[[ "$real" != "tok=ghp_"* ]]
	fi
}

# Let nobody reach the copy of the build.
reachable() {
	local d=$BATS_TEST_TMPDIR
	while [ "$d" != / ] && [ "$d" != /tmp ]; do chmod o+x "$d"; d=$(dirname "$d"); done
	chmod -R a+rX "$COPY"
}

@test "doctor and --contain agree, as the user running the tests (root in CI and devcontainers)" {
	contain_both env
	# Where namespaces work, contain mode must work, as root too: root is
	# an ordinary id inside, so a shell's sandbox can map it.
	if unshare -Um true 2>/dev/null; then
		[ "$status" -eq 0 ]
		[[ "$real" == "tok=none user:"* ]]
	fi
}

@test "doctor and --contain agree as an ordinary user" {
	reachable
	# a state directory of its own, where its runs keep their sessions
	mkdir -m 700 "$BATS_TEST_TMPDIR/nstate"
	[ "$(id -u)" != 0 ] || chown 65534:65534 "$BATS_TEST_TMPDIR/nstate"
	contain_both setpriv --reuid=65534 --regid=65534 --clear-groups \
		env XDG_STATE_HOME="$BATS_TEST_TMPDIR/nstate"
	if setpriv --reuid=65534 --regid=65534 --clear-groups unshare -Um true 2>/dev/null; then
		[ "$status" -eq 0 ]
		[[ "$real" == "tok=none user:"* ]]
	fi
}

@test "doctor and --contain agree when contain mode cannot work (no shim)" {
	rm "$COPY/libenvshim.so"
	contain_both env
	[ "$status" -eq 125 ]
}

@test "doctor and --contain agree without user namespaces" {
	reachable
	contain_both unshare -Ur sh -c 'echo 0 >/proc/sys/user/max_user_namespaces && exec "$@"' sh
	[ "$status" -eq 125 ]
}

@test "doctor names the credential stores it finds and which shells see empty, never their contents" {
	mkdir -p "$HOME/.ssh" "$HOME/.claude" "$HOME/.config/gh"
	echo "SECRET-KEY-CONTENT" >"$HOME/.ssh/id_ed25519"
	echo "example.org ssh-ed25519 AAAA" >"$HOME/.ssh/known_hosts"
	echo '{"token":"SECRET-CLAUDE"}' >"$HOME/.claude/.credentials.json"
	echo "//r/:_authToken=SECRET-NPM" >"$HOME/.npmrc"
	echo "h: SECRET-GH" >"$HOME/.config/gh/hosts.yml"
	p=$(policy_file p <<<$'# mine\nreveal ~/.npmrc')
	run "$COPY/envshim" doctor --policy "$p"
	# what the home holds; the host's own (a /run/docker.sock) may come on top
	grep -qxE 'ok   credential files: [0-9]+ credential stores on this machine that shells see empty' <<<"$output"
	[ "$(grep -c '^     hidden ([a-z]*): ~/' <<<"$output")" -eq 3 ]
	grep -qx '     hidden (keys): ~/.ssh/id_ed25519' <<<"$output"
	grep -qx '     hidden (agents): ~/.claude/.credentials.json' <<<"$output"
	grep -qx '     hidden (git): ~/.config/gh' <<<"$output"
	grep -qx "     revealed ($p:2): ~/.npmrc" <<<"$output"
	# known_hosts stays readable: neither hidden nor a warning
	[[ "$output" != *known_hosts* ]]
	[[ "$output" != *SECRET* ]]
	# what the policy reveals passes, and the summary says so
	if unshare -Um true 2>/dev/null; then
		[ "$status" -eq 0 ]
		[ "${lines[-1]}" = "all checks passed; shells read the 1 credential store your policy reveals" ]
	fi
}

@test "doctor names the agents' settings and IDE lock files as hidden, and build configuration only with its key (issue 20)" {
	mkdir -p "$HOME/.claude/ide" "$HOME/.gemini" "$HOME/.codex" "$HOME/.m2" "$HOME/.gradle"
	echo '{"authToken":"SECRET-IDE"}' >"$HOME/.claude/ide/41723.lock"
	echo '{"mcpServers":{"gh":{"env":{"T":"SECRET-MCP"}}}}' >"$HOME/.gemini/settings.json"
	printf '[mcp_servers.gh.env]\nT = "SECRET-MCP"\n' >"$HOME/.codex/config.toml"
	printf '<settings>\n  <servers><server><id>d</id>\n    <password>SECRET-M2</password>\n  </server></servers>\n</settings>\n' \
		>"$HOME/.m2/settings.xml"
	printf 'org.gradle.jvmargs=-Xmx2g\n' >"$HOME/.gradle/gradle.properties"
	run "$COPY/envshim" doctor
	grep -qxE 'ok   credential files: [0-9]+ credential stores on this machine that shells see empty' <<<"$output"
	[ "$(grep -c '^     hidden ([a-z]*): ~/' <<<"$output")" -eq 4 ]
	grep -qx '     hidden (agents): ~/.claude/ide' <<<"$output"
	grep -qx '     hidden (agents): ~/.gemini/settings.json' <<<"$output"
	grep -qx '     hidden (agents): ~/.codex/config.toml' <<<"$output"
	grep -qx '     hidden (registries): ~/.m2/settings.xml (line 3 names a credential)' <<<"$output"
	# Gradle's file holds no key: shells read it, and it is no warning
	[[ "$output" != *gradle.properties* ]]
	[[ "$output" != *SECRET* ]]
	if unshare -Um true 2>/dev/null; then
		[ "$status" -eq 0 ]
		[ "${lines[-1]}" = "all checks passed" ]
	fi
}

@test "doctor fails on credential-like files the list does not know, with the hide line (issue 20)" {
	mkdir -p "$HOME/.config/acme" "$HOME/work" "$HOME/deep/er/est"
	echo x >"$HOME/.config/acme/api-token.json"
	echo "note $GH_SHAPE" >"$HOME/work/notes.txt"
	echo "export GITHUB_TOKEN=$GH_SHAPE" >"$HOME/.bashrc"
	echo "just words" >"$HOME/work/readme.txt"
	echo "words" >"$HOME/work/tokenizer.json"
	echo "$GH_SHAPE" >"$HOME/deep/er/est/too-deep.txt"
	echo "$GH_SHAPE" >"$HOME/.npmrc"
	run "$COPY/envshim" doctor
	grep -qxE 'FAIL credential files: [0-9]+ credential stores? that shells see empty; 3 credential-like files they can read' <<<"$output"
	[ "$(grep -c '^     hidden ([a-z]*): ~/' <<<"$output")" -eq 1 ]
	grep -qx -- '--   credential-like, not hidden: ~/.config/acme/api-token.json (by its name)' <<<"$output"
	grep -qx '     fix: add to your policy: hide ~/.config/acme/api-token.json' <<<"$output"
	grep -qx -- '--   credential-like, not hidden: ~/work/notes.txt (its first 4 KiB hold a github-pat shape)' <<<"$output"
	grep -qx '     fix: add to your policy: hide ~/work/notes.txt' <<<"$output"
	grep -qx -- '--   credential-like, not hidden: ~/.bashrc (its first 4 KiB hold a github-pat shape)' <<<"$output"
	grep -qx '     fix: shells read it: move the secret out of it' <<<"$output"
	# hidden already, harmless, a word inside a longer one, or below the
	# top two levels: no warning
	[[ "$output" != *"not hidden: ~/.npmrc"* ]]
	[[ "$output" != *readme* ]]
	[[ "$output" != *tokenizer* ]]
	[[ "$output" != *too-deep* ]]
	[[ "$output" != *"$GH_SHAPE"* ]]
	# a readable credential is never "passed"
	[ "$status" -eq 1 ]
	[[ "${lines[-1]}" == *"check"*" failed" ]]
	[[ "$output" != *"all checks passed"* ]]
	# the hide lines (and moving the secret out of ~/.bashrc) make it pass
	echo 'export EDITOR=vi' >"$HOME/.bashrc"
	p=$(policy_file p <<<$'hide ~/work/notes.txt\nhide ~/.config/acme/api-token.json')
	run "$COPY/envshim" doctor --policy "$p"
	[[ "$output" != *'not hidden:'* ]]
	grep -qxE 'ok   credential files: [0-9]+ credential stores? on this machine that shells see empty' <<<"$output"
	[ "$(grep -c '^     hidden ([a-z]*): ~/' <<<"$output")" -eq 1 ]
	if unshare -Um true 2>/dev/null; then
		[ "$status" -eq 0 ]
		[ "${lines[-1]}" = "all checks passed" ]
	fi
}

@test "doctor says whether the session's home is copy-on-write or the fallback, and why" {
	run "$COPY/envshim" doctor
	if unshare -Urm true 2>/dev/null; then
		grep -qx 'ok   session: each agent run gets its own /tmp and a copy-on-write home (overlayfs in a user namespace)' <<<"$output"
		grep -qx '     home layer: discarded with the session' <<<"$output"
		# the mask, tried as the sandbox makes it
		grep -qx '     a credential file made in the home while a shell runs is hidden from it too (whiteouts below the layer)' <<<"$output"
	fi
	# a home overlay's options cannot carry: the fallback, with the caches it takes
	h="$BATS_TEST_TMPDIR/ho:me"
	mkdir -p "$h/.cache" "$h/.npm"
	HOME=$h run "$COPY/envshim" doctor
	grep -qx -- "--   session home: fallback: the home's path $h holds ',', ':' or '\\\\', which overlay's options cannot carry" <<<"$output"
	grep -qx "     the caches' directories are the session's, writable: ~/.cache ~/.npm" <<<"$output"
	grep -q "a credential file made or renamed into place in the home while a shell runs is readable by that shell until it ends; fix: a home path without ',' ':' '\\\\'" <<<"$output"
	# home-layer workspace: where the kept layers are
	printf 'home-layer workspace\n' >"$BATS_TEST_TMPDIR/p"
	chmod 600 "$BATS_TEST_TMPDIR/p"
	if unshare -Urm true 2>/dev/null; then
		run "$COPY/envshim" doctor --policy "$BATS_TEST_TMPDIR/p"
		grep -qx "     home layer: kept per workspace in $XDG_STATE_HOME/envshim/layers" <<<"$output"
	fi
}

# nobody_doctor: envshim doctor as nobody (the suite's user when not
# root), home and workspace its own under $BATS_TEST_TMPDIR/n.
nobody_doctor() {
	reachable
	mkdir -p "$BATS_TEST_TMPDIR/n/home/.config/envshim" "$BATS_TEST_TMPDIR/n/ws"
	[ "$(id -u)" != 0 ] || chown -R 65534:65534 "$BATS_TEST_TMPDIR/n"
	chmod 755 "$BATS_TEST_TMPDIR/n"
	cd "$BATS_TEST_TMPDIR/n/ws"
}

@test "an unreadable policy: doctor says so, with its fix, and does not blame the kernel for contain mode" {
	nobody_doctor
	p=$BATS_TEST_TMPDIR/n/home/.config/envshim/policy
	printf 'drop X\n' >"$p"
	[ "$(id -u)" != 0 ] || chown 65534:65534 "$p"
	chmod 000 "$p"
	run setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$BATS_TEST_TMPDIR/n/home" \
		XDG_CONFIG_HOME= XDG_STATE_HOME= "$COPY/envshim" doctor
	[ "$status" -eq 1 ]
	grep -qx "FAIL policy: $p: cannot open: Permission denied" <<<"$output"
	grep -qx "     fix: make it readable (chmod u+r $p)" <<<"$output"
	grep -qx -- "--   contain mode: not tried: the policy is refused (above)" <<<"$output"
	[[ "$output" != *"user namespaces and overlayfs"* ]]
}

@test "a read-only log file: doctor says the file, not its directory, is to be made writable" {
	nobody_doctor
	f=$BATS_TEST_TMPDIR/n/audit.jsonl
	: >"$f"
	[ "$(id -u)" != 0 ] || chown 65534:65534 "$f"
	chmod 444 "$f"
	printf 'log %s\n' "$f" >"$BATS_TEST_TMPDIR/n/p"
	chmod 644 "$BATS_TEST_TMPDIR/n/p"
	run setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$BATS_TEST_TMPDIR/n/home" \
		XDG_CONFIG_HOME= XDG_STATE_HOME= "$COPY/envshim" doctor --policy "$BATS_TEST_TMPDIR/n/p"
	[ "$status" -eq 1 ]
	grep -qx "FAIL log: $f is not writable (runs go on, unrecorded)" <<<"$output"
	grep -qx "     fix: make it writable (chmod u+w $f), or set log to another file" <<<"$output"
}

@test "contain mode without the shim names the install as the fix, not the kernel" {
	rm "$COPY/libenvshim.so"
	mkdir -p "$BATS_TEST_TMPDIR/ws"
	cd "$BATS_TEST_TMPDIR/ws"
	run "$COPY/envshim" doctor
	grep -q "^--   contain mode: unavailable: " <<<"$output"
	grep -qx "     fix: make && sudo make install" <<<"$output"
	[[ "$output" != *"user namespaces and overlayfs"* ]]
}
