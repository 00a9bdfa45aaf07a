#!/usr/bin/env bats
# Secrets at rest: the credential files of the builtin hide list, seen from
# a sandboxed shell (empty, in their place) and from the agent itself (as
# they are).  The home is seeded from `envshim policy --builtin`, one file
# per entry and pattern, each holding a marker; everything runs as an
# unprivileged user (uid 65534 when the suite is root).

bats_require_minimum_version 1.5.0

load ../common

MARK=envshim-secret-marker-7f3a

setup() {
	# outside /tmp: the sandbox's /tmp is private
	R=$(mktemp -d /var/tmp/envshim-sec.XXXXXX)
	chmod 755 "$R"
	H=$R/home
	WS=$R/ws
	mkdir -p "$H" "$WS" "$R/state" "$R/bin"
	cp "$SHIM" "$HELPER" "$ENVSHIM" "$R/bin/"
	chmod -R a+rX "$R/bin"
	SHIM=$R/bin/libenvshim.so
	HELPER=$R/bin/envshim-sandbox
	ENVSHIM=$R/bin/envshim
	# the variables naming a tool's moved home, inside the home here
	VARS=()
	for v in CLAUDE_CONFIG_DIR CODEX_HOME QWEN_HOME COPILOT_HOME XDG_DATA_HOME \
	    PI_CODING_AGENT_DIR XDG_CONFIG_HOME CARGO_HOME CLOUDSDK_CONFIG HF_HOME \
	    OPENCLAW_STATE_DIR; do
		VARS+=("$v=$H/moved/$v")
	done
	cd "$WS"
}

teardown() {
	[ -n "${BGPID:-}" ] && kill "$BGPID" 2>/dev/null
	cd /
	rm -rf "$R"
}

# own: hand the tree to the test user.
own() {
	[ "$(id -u)" != 0 ] || chown -R 65534:65534 "$R/home" "$R/ws" "$R/state"
}

# The builtin entries, one a line, as `envshim policy --builtin` prints them.
entries() {
	"$ENVSHIM" policy --builtin | sed -n 's/^#\t\([~$].*\)$/\1/p'
}

# seed: a file or directory with the marker for every entry under the home;
# prints each path made ("d PATH" or "f PATH").
seed() {
	local e p v
	while IFS= read -r e; do
		p=${e//\*/x}
		if [[ $p == '$'* ]]; then
			v=${p%%/*}
			v=${v#\$}
			p=$H/moved/$v${p#\$"$v"}
		else
			p=$H${p#\~}
		fi
		if [[ $p == */ ]]; then
			mkdir -p "$p"
			echo "$MARK" >"$p/inside-$MARK"
			echo "d ${p%/}"
		else
			mkdir -p "$(dirname "$p")"
			echo "$MARK" >"$p"
			echo "f $p"
		fi
	done < <(entries)
}

# sbx ARGS: the helper as the test user, with the moved-home variables.
sbx() {
	as_nobody env -i HOME="$H" PATH=/usr/local/bin:/usr/bin:/bin LANG=C \
		"${VARS[@]}" "$HELPER" ${POLICY:+--policy "$POLICY"} "$@"
}

# pol LINE...: the test user's policy file.
pol() {
	printf '%s\n' "$@" >"$R/policy"
	chmod 644 "$R/policy"
	[ "$(id -u)" != 0 ] || chown 65534:65534 "$R/policy"
	POLICY=$R/policy
}

# agent PYTHON: a Python launch root under the real shim, holding the
# moved-home variables; its subprocesses are its tools.
agent() {
	as_nobody env -i HOME="$H" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
		XDG_STATE_HOME="$R/state" "${VARS[@]}" ${POLICY:+ENVSHIM_POLICY=$POLICY} \
		LD_PRELOAD="$SHIM" /usr/bin/python3 -c "$1" "${@:2}"
}

@test "the list has every group of the research, each entry once" {
	run -0 "$ENVSHIM" policy --builtin
	for g in agents history git registries infra clouds databases keyrings \
	    browsers apps keys tokens mail system; do
		grep -q "^# hide $g: ." <<<"$output"
	done
	run -0 entries
	[ "${#lines[@]}" -ge 100 ]
	[ -z "$(printf '%s\n' "${lines[@]}" | sort | uniq -d)" ]
}

@test "a shell walking the whole home finds no marker; the agent reads every file" {
	seed >"$R/seeded"
	mkdir -p "$H/.ssh/config.d" "$H/.claude/shell-snapshots" "$H/.codex/tmp/path2"
	echo "Host kept" >"$H/.ssh/config"
	own
	[ "$(grep -c . "$R/seeded")" -ge 100 ]
	# the agent itself reads each one, then runs the walk as its tool
	run agent '
import subprocess, sys
seen = 0
for line in open(sys.argv[1]):
    kind, path = line.rstrip("\n").split(" ", 1)
    f = path + "/inside-" + sys.argv[2] if kind == "d" else path
    seen += sys.argv[2] in open(f).read()
print("agent read", seen, flush=True)
sys.exit(subprocess.run(["bash", "-c", sys.argv[3]]).returncode)' "$R/seeded" "$MARK" '
	    grep -r '"$MARK"' ~ && echo FOUND-CONTENT
	    find ~ | grep '"$MARK"' && echo FOUND-NAME
	    ls -laR ~ | grep '"$MARK"' && echo FOUND-LS
	    find ~ -exec stat -c "%s %n" {} + >/tmp/stat; grep '"$MARK"' /tmp/stat
	    while read -r k p; do
	        if [ "$k" = d ]; then [ -z "$(ls -A "$p")" ] || echo "NOT-EMPTY $p"
	        else [ -f "$p" ] && [ ! -s "$p" ] || echo "NOT-EMPTY $p"; fi
	    done <'"$R/seeded"'
	    cat ~/.ssh/config; echo walked'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "agent read $(grep -c . "$R/seeded")" ]
	lacks -e FOUND -e NOT-EMPTY -e "$MARK"
	[ "${lines[-2]}" = "Host kept" ]
	[ "${lines[-1]}" = walked ]
	# untouched outside
	grep -q "$MARK" "$H/.claude/.credentials.json"
}

@test "agent plumbing and ssh's known_hosts and config stay; the rest of ~/.ssh goes" {
	mkdir -p "$H/.claude/shell-snapshots" "$H/.claude/session-env/s1" \
		"$H/.codex/tmp/path2/codex-arg0x" "$H/.codex/shell_snapshots" \
		"$H/.ssh/config.d" "$H/.gemini"
	echo snap >"$H/.claude/shell-snapshots/snapshot-bash-1.sh"
	echo hook >"$H/.claude/session-env/s1/sessionstart-hook-1.sh"
	echo "$MARK" >"$H/.claude/.credentials.json"
	echo "$MARK" >"$H/.claude/history.jsonl"
	echo '{"settings":1}' >"$H/.claude/settings.json"
	ln -s /bin/true "$H/.codex/tmp/path2/codex-arg0x/apply_patch"
	echo snap >"$H/.codex/shell_snapshots/s.1.sh"
	echo "$MARK" >"$H/.codex/auth.json"
	echo "$MARK" >"$H/.gemini/oauth_creds.json"
	echo '{}' >"$H/.gemini/settings.json"
	echo "$MARK" >"$H/.ssh/id_ed25519"
	echo "$MARK" >"$H/.ssh/id_rsa"
	echo "example.org ssh-ed25519 AAAAC3kept" >"$H/.ssh/known_hosts"
	printf 'Include %s/.ssh/config.d/*\nHost gitbox\n  Port 2222\n' "$H" >"$H/.ssh/config"
	printf 'Host gitbox\n  User kept-user\n' >"$H/.ssh/config.d/work"
	own
	run sbx -- sh -c 'cat ~/.claude/shell-snapshots/snapshot-bash-1.sh \
	    ~/.claude/session-env/s1/sessionstart-hook-1.sh ~/.claude/settings.json \
	    ~/.codex/shell_snapshots/s.1.sh ~/.gemini/settings.json ~/.ssh/known_hosts
	    ~/.codex/tmp/path2/codex-arg0x/apply_patch && echo apply-ok
	    cat ~/.claude/.credentials.json ~/.claude/history.jsonl ~/.codex/auth.json \
	        ~/.gemini/oauth_creds.json ~/.ssh/id_ed25519 ~/.ssh/id_rsa
	    # ssh finds its config by the passwd entry, not HOME: name it
	    ssh -F ~/.ssh/config -G gitbox </dev/null | grep -E "^(port|user) "'
	[ "$status" -eq 0 ]
	lacks "$MARK"
	[ "${lines[0]}" = snap ]
	[ "${lines[1]}" = hook ]
	[ "${lines[2]}" = '{"settings":1}' ]
	[ "${lines[3]}" = snap ]
	[ "${lines[4]}" = '{}' ]
	[ "${lines[5]}" = "example.org ssh-ed25519 AAAAC3kept" ]
	[ "${lines[6]}" = apply-ok ]
	[[ "$output" == *"user kept-user"* ]]
	[[ "$output" == *"port 2222"* ]]
}

@test "npm and git run without error with their config hidden" {
	printf '//registry.example.org/:_authToken=%s\nregistry=https://registry.example.org/\n' \
		"$MARK" >"$H/.npmrc"
	echo "https://u:$MARK@example.org" >"$H/.git-credentials"
	mkdir -p "$H/.config/git" "$H/.cache"
	echo "https://u:$MARK@example.org" >"$H/.config/git/credentials"
	printf '[user]\n\tname = Kept\n\temail = kept@example.org\n[credential]\n\thelper = store\n' \
		>"$H/.gitconfig"
	own
	run sbx -- sh -c 'export npm_config_cache=/tmp/npm-cache
	    npm config get registry && npm config list >/dev/null && echo npm-ok
	    git init -q . && echo x >f && git add f && git commit -qm one && echo git-ok
	    git log -1 --format=%an
	    printf "protocol=https\nhost=example.org\n" | git credential fill 2>&1 </dev/null
	    true'
	[ "$status" -eq 0 ]
	lacks "$MARK"
	[ "${lines[0]}" = "https://registry.npmjs.org/" ]
	[ "${lines[1]}" = npm-ok ]
	[ "${lines[2]}" = git-ok ]
	[ "${lines[3]}" = Kept ]
}

@test "yarn 1 runs without error with its config hidden" {
	local y=$BUILD/yarn-1.22.22/node_modules/yarn
	[ -x "$y/bin/yarn" ] || { echo "no yarn in the build: make bats installs it" >&2; false; }
	cp -r "$y" "$R/yarn"
	chmod -R a+rX "$R/yarn"
	printf '"//registry.example.org/:_authToken" "%s"\nregistry "https://registry.example.org/"\n' \
		"$MARK" >"$H/.yarnrc"
	printf 'npmAuthToken: "%s"\nnpmRegistryServer: "https://registry.example.org"\n' \
		"$MARK" >"$H/.yarnrc.yml"
	printf '//registry.example.org/:_authToken=%s\n' "$MARK" >"$H/.npmrc"
	mkdir -p "$WS/pkg" "$WS/app"
	printf '{"name":"tiny","version":"1.0.0","main":"index.js"}\n' >"$WS/pkg/package.json"
	echo 'module.exports = "yarn-ran";' >"$WS/pkg/index.js"
	printf '{"name":"app","version":"1.0.0","license":"MIT","dependencies":{"tiny":"file:../pkg"}}\n' \
		>"$WS/app/package.json"
	own
	run sbx -- sh -c "cd app && $R/yarn/bin/yarn --version && echo version-ok
	    $R/yarn/bin/yarn config list && echo config-ok
	    $R/yarn/bin/yarn install --offline --non-interactive --no-progress && echo install-ok
	    node -p 'require(\"tiny\")'"
	[ "$status" -eq 0 ]
	lacks "$MARK"
	[ "${lines[0]}" = 1.22.22 ]
	[ "${lines[1]}" = version-ok ]
	[[ "$output" == *config-ok* ]]
	[[ "$output" == *install-ok* ]]
	[ "${lines[-1]}" = yarn-ran ]
	# the registry of the hidden files is not the one yarn uses
	[[ "$output" != *registry.example.org* ]]
}

@test "a credential file renamed into place, or made later, is hidden from the next shell" {
	mkdir -p "$H/.claude"
	echo '{"old":1}' >"$H/.claude.json"
	own
	run -0 sbx -- sh -c 'wc -c <~/.claude.json; ls -A ~/.claude'
	[ "${lines[0]}" = 0 ]
	# the agent rewrites its file the way Claude Code does: write, rename over
	as_nobody sh -c "echo '{\"mcp\":\"$MARK\"}' >'$H/.claude.json.tmp.1' &&
	    mv '$H/.claude.json.tmp.1' '$H/.claude.json'"
	# and logs in to another tool after the first shell
	as_nobody sh -c "mkdir -p '$H/.codex' && echo '$MARK' >'$H/.codex/auth.json' &&
	    echo '$MARK' >'$H/.vault-token'"
	run -0 sbx -- sh -c 'cat ~/.claude.json ~/.codex/auth.json ~/.vault-token; wc -c <~/.claude.json'
	lacks "$MARK"
	[ "${lines[-1]}" = 0 ]
	grep -q "$MARK" "$H/.claude.json"
}

@test "GAP: a shell already running when the file is renamed over reads the new file" {
	echo '{"old":1}' >"$H/.claude.json"
	own
	# the kernel detaches a bind whose file is renamed over in another
	# mount namespace; the next shell is hidden again (test above).  The
	# shell and the rename take turns through files in the workspace.
	sbx -- sh -c 'wc -c <~/.claude.json; : >started
	    for _ in $(seq 200); do [ -e renamed ] && break; sleep 0.05; done
	    cat ~/.claude.json' >"$R/out" 2>&1 &
	BGPID=$!
	for _ in $(seq 200); do [ -e "$WS/started" ] && break; sleep 0.05; done
	[ -e "$WS/started" ]
	as_nobody sh -c "echo '$MARK' >'$H/.claude.json.tmp' && mv '$H/.claude.json.tmp' '$H/.claude.json' &&
	    : >'$WS/renamed'"
	wait "$BGPID"
	BGPID=
	[ "$(head -1 "$R/out")" = 0 ]
	grep -qx "$MARK" "$R/out"
}

@test "GAP: without the session's copy-on-write home, a credential file made while a shell runs is readable by it" {
	mkdir -p "$H/.config"
	mkfifo "$WS/up" "$WS/go"
	chmod 666 "$WS/up" "$WS/go"
	own
	# the helper run directly: no session, the home is the real one, read
	# only, with placeholders on what exists when the shell starts
	sbx -- sh -c 'echo up >up; read _ <go; cat ~/.config/gh/hosts.yml' >"$R/out" 2>&1 &
	BGPID=$!
	cat "$WS/up" >/dev/null
	as_nobody sh -c "mkdir -p '$H/.config/gh' && echo 'oauth_token: $MARK' >'$H/.config/gh/hosts.yml'"
	echo go >"$WS/go"
	wait "$BGPID"
	BGPID=
	grep -q "$MARK" "$R/out"
	# the next shell does not read it
	run -0 sbx -- sh -c 'cat ~/.config/gh/hosts.yml; echo end'
	lacks "$MARK"
}

@test "a link a shell leaves in the workspace where a hide line matches moves no placeholder elsewhere" {
	echo "$MARK" >"$WS/.env"
	own
	pol 'hide .env*'
	# a link to the system's programs, to the C library, to the home
	run -0 sbx -- sh -c 'cat .env; ln -s /usr/bin .env.bin; ln -s /lib .env.lib; ln -s ~ .env.home; echo planted'
	[ "$output" = planted ]
	run -0 sbx -- sh -c 'cat .env; ls /usr/bin | grep -cx sh; ls ~ | grep -c .; echo ran'
	lacks "$MARK"
	[ "${lines[0]}" = 1 ]
	[ "${lines[-1]}" = ran ]
}

@test "reveal re-shows exactly its one entry, and envshim policy shows where" {
	echo "$MARK-npmrc" >"$H/.npmrc"
	echo "$MARK-yarnrc" >"$H/.yarnrc"
	echo "$MARK-netrc" >"$H/.netrc"
	echo "$MARK-pgpass" >"$H/.pgpass"
	own
	pol '# mine' 'reveal ~/.npmrc'
	run -0 sbx -- sh -c 'cat ~/.npmrc ~/.yarnrc ~/.netrc ~/.pgpass'
	[ "$output" = "$MARK-npmrc" ]
	run -0 as_nobody env HOME="$H" "$ENVSHIM" policy --policy "$R/policy"
	grep -qx "reveal ~/.npmrc	# $R/policy:2" <<<"$output"
	# the agent hands it to its shells through ENVSHIM_CONFIG
	run agent 'import subprocess, sys
sys.exit(subprocess.run(["sh", "-c", "cat ~/.npmrc ~/.pgpass"]).returncode)'
	[ "$status" -eq 0 ]
	[ "$output" = "$MARK-npmrc" ]
}

@test "reveal refuses a path that is not a builtin entry" {
	pol 'reveal ~/.bash_history'
	run -125 as_nobody env HOME="$H" "$ENVSHIM" policy --policy "$R/policy"
	[[ "$output" == *"$R/policy:1: reveal: ~/.bash_history is not in the builtin hide list"* ]]
	run sbx -- true
	[ "$status" -eq 125 ]
	[[ "$output" == *"is not in the builtin hide list"* ]]
}

@test "hide takes the same patterns for the user's own paths" {
	mkdir -p "$H/work/a" "$H/work/b"
	echo "$MARK" >"$H/work/a/deploy.secret"
	echo "$MARK" >"$H/work/b/prod.secret"
	echo kept >"$H/work/a/readme"
	echo "$MARK" >"$WS/.env.local"
	own
	pol 'hide ~/work/*/*.secret' 'hide .env*'
	run -0 sbx -- sh -c 'cat ~/work/*/* .env.local; ls ~/work/a'
	lacks "$MARK"
	[ "${lines[0]}" = kept ]
	[ "${lines[1]}" = deploy.secret ]
}

@test "a credential file that is a link (a dotfile manager's) is hidden, and so is its target" {
	mkdir -p "$H/dotfiles" "$H/.config"
	echo "$MARK" >"$H/dotfiles/npmrc"
	ln -s dotfiles/npmrc "$H/.npmrc"
	mkdir -p "$H/dotfiles/gh"
	echo "$MARK" >"$H/dotfiles/gh/hosts.yml"
	ln -s ../dotfiles/gh "$H/.config/gh"
	own
	run -0 sbx -- sh -c 'cat ~/.npmrc ~/dotfiles/npmrc; ls -A ~/.config/gh ~/dotfiles/gh; echo done'
	lacks "$MARK"
	lacks hosts.yml
	[ "${lines[-1]}" = done ]
}

@test "contain mode's shells see the same empty files" {
	echo "$MARK" >"$H/.npmrc"
	mkdir -p "$H/.claude"
	echo "$MARK" >"$H/.claude/.credentials.json"
	own
	# the agent (a shell here) and its shell go to the sandbox
	run as_nobody env -i HOME="$H" PATH=/usr/local/bin:/usr/bin:/bin LANG=C \
		XDG_STATE_HOME="$R/state" "$ENVSHIM" --contain -- /bin/sh -c \
		'cat ~/.npmrc ~/.claude/.credentials.json; /bin/sh -c "cat ~/.npmrc; echo inner"'
	[ "$status" -eq 0 ]
	lacks "$MARK"
	[ "${lines[-1]}" = inner ]
}

@test "envshim log names what each sandbox hid, by path, never what it held" {
	echo "$MARK" >"$H/.npmrc"
	mkdir -p "$H/.ssh"
	echo "$MARK" >"$H/.ssh/id_ed25519"
	own
	run agent 'import subprocess; subprocess.run(["bash", "-c", "cat ~/.npmrc; echo ran"])'
	[ "$status" -eq 0 ]
	[ "$output" = ran ]
	# contain mode: the contained agent's shell, through the same helper
	run as_nobody env -i HOME="$H" PATH=/usr/local/bin:/usr/bin:/bin LANG=C \
		XDG_STATE_HOME="$R/state" "$ENVSHIM" --contain -- /bin/sh -c \
		'/bin/sh -c "cat ~/.ssh/id_ed25519; echo contained"'
	[ "$status" -eq 0 ]
	[ "$output" = contained ]
	run -0 grep -c . "$R/state/envshim/audit.jsonl"
	run -1 grep -e "$MARK" -e '"size"' "$R/state/envshim/audit.jsonl"
	run -0 as_nobody env -i HOME="$H" XDG_STATE_HOME="$R/state" "$ENVSHIM" log
	lacks "$MARK"
	[[ "$output" != *"[hidden]"* ]]
	# under the launch it belongs to: the agent's bash, contain's sandboxed sh
	for l in 'bash -c cat ~/.npmrc; echo ran  [sandbox]' \
	    '/bin/sh -c /bin/sh -c "cat ~/.ssh/id_ed25519; echo contained"  [sandbox]'; do
		h=$(grep -A3 -F "$l" <<<"$output" | grep '^ *hidden: ')
		[[ "$h" == *"~/.npmrc"* && "$h" == *"~/.ssh/id_ed25519"* ]]
	done
}

@test "a record of what was hidden stays in ES_LOG_LINE and counts the rest" {
	local i
	mkdir -p "$H/.ssh"
	for i in $(seq 1 400); do
		echo "$MARK" >"$H/.ssh/id_ed25519-a-rather-long-key-name-for-the-bound-$i"
	done
	own
	run -0 sbx -- true
	LOGF=$H/.local/state/envshim/audit.jsonl
	run -0 python3 -c '
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
h = [r for r in recs if r["action"] == "hidden"]
assert len(h) == 1, recs
assert all(len(l) <= 8192 for l in open(sys.argv[1]).read().splitlines()), "a long line"
n = len(h[0]["hidden"])
assert 0 < n < 400 and n + h[0]["hidden_more"] == 400, (n, h[0].get("hidden_more"))
assert "truncated" not in h[0], h[0]
print(h[0]["hidden_more"])' "$LOGF"
	more=$output
	run -0 as_nobody env -i HOME="$H" "$ENVSHIM" log
	[[ "$output" == *" and $more more"* ]]
	lacks "$MARK"
}

@test "home private: a Go build, an npm install from a tarball and a git commit work; the rest of home is gone" {
	mkdir -p "$H/.unknown-tool" "$H/.cache/huggingface" "$H/.ssh"
	echo "$MARK" >"$H/.unknown-tool/session"
	echo "$MARK" >"$H/.cache/huggingface/token"
	echo "$MARK" >"$H/.ssh/id_ed25519"
	echo "example.org ssh-ed25519 AAAAkept" >"$H/.ssh/known_hosts"
	printf '[user]\n\tname = Kept\n\temail = kept@example.org\n' >"$H/.gitconfig"
	mkdir -p "$WS/gomod" "$WS/pkg" "$WS/app"
	printf 'module example.org/hello\n\ngo 1.19\n' >"$WS/gomod/go.mod"
	printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("go-ran") }\n' \
		>"$WS/gomod/main.go"
	printf '{"name":"tiny","version":"1.0.0","main":"index.js"}\n' >"$WS/pkg/package.json"
	echo 'module.exports = "npm-ran";' >"$WS/pkg/index.js"
	printf '{"name":"app","version":"1.0.0"}\n' >"$WS/app/package.json"
	own
	pol 'home private'
	run sbx -- sh -c 'export GOCACHE=/tmp/gocache GOPATH=/tmp/gopath GOFLAGS=-mod=mod \
	        GOTOOLCHAIN=local GOPROXY=off npm_config_cache=/tmp/npm-cache
	    (cd gomod && go build -o /tmp/hello . && /tmp/hello)
	    (cd pkg && npm pack --silent >/dev/null) &&
	    (cd app && npm install --offline --no-audit --no-fund ../pkg/tiny-1.0.0.tgz >/dev/null &&
	        node -e "console.log(require(\"tiny\"))")
	    git init -q . && git add app/package.json && git commit -qm one && git log -1 --format=%an
	    cat ~/.ssh/known_hosts
	    ls -A ~/.unknown-tool 2>&1; cat ~/.cache/huggingface/token ~/.ssh/id_ed25519 2>&1
	    echo done'
	[ "$status" -eq 0 ]
	lacks "$MARK"
	[ "${lines[0]}" = go-ran ]
	[ "${lines[1]}" = npm-ran ]
	[ "${lines[2]}" = Kept ]
	[ "${lines[3]}" = "example.org ssh-ed25519 AAAAkept" ]
	[[ "${lines[4]}" == *".unknown-tool"*"No such file or directory" ]]
	[ "${lines[-1]}" = done ]
	# without it, the unknown store is there to read
	pol '# visible'
	run -0 sbx -- cat "$H/.unknown-tool/session"
	[ "$output" = "$MARK" ]
}

@test "home private keeps the shim and the helper when they live in the home" {
	mkdir -p "$H/tools"
	cp "$SHIM" "$HELPER" "$H/tools/"
	own
	pol 'home private'
	# the agent preloads the shim from the home; its shells' children keep it
	run as_nobody env -i HOME="$H" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
		XDG_STATE_HOME="$R/state" ENVSHIM_POLICY="$POLICY" GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 \
		LD_PRELOAD="$H/tools/libenvshim.so" /usr/bin/python3 -c 'import subprocess, sys
sys.exit(subprocess.run(["sh", "-c", "cat /proc/self/maps | grep -c libenvshim; env | grep -c GITHUB_TOKEN; echo ran"]).returncode)'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" -ge 1 ]
	[ "${lines[1]}" = 0 ]
	[ "${lines[-1]}" = ran ]
	lacks "cannot be preloaded"
}

@test "a moved-home variable hides below it, never the system's trees" {
	mkdir -p "$H/elsewhere"
	echo "$MARK" >"$H/elsewhere/auth.json"
	own
	run -0 as_nobody env -i HOME="$H" PATH=/usr/local/bin:/usr/bin:/bin LANG=C \
		CODEX_HOME="$H/elsewhere" CLOUDSDK_CONFIG=/usr HF_HOME=/ "$HELPER" -- \
		sh -c 'cat ~/elsewhere/auth.json; ls /usr | grep -cx bin; ls / | grep -cx usr'
	lacks "$MARK"
	[ "${lines[0]}" = 1 ]
	[ "${lines[1]}" = 1 ]
}
