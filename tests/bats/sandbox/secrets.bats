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
	    OPENCLAW_STATE_DIR GEMINI_CLI_HOME CODEX_SQLITE_HOME OPENCODE_CONFIG \
	    OPENCODE_CONFIG_DIR OPENCLAW_CONFIG_PATH PI_CODING_AGENT_SESSION_DIR \
	    CRUSH_GLOBAL_CONFIG CRUSH_GLOBAL_DATA CURSOR_CONFIG_DIR GOOSE_PATH_ROOT \
	    GH_CONFIG_DIR NETRC DOCKER_CONFIG REGISTRY_AUTH_FILE AZURE_CONFIG_DIR \
	    AWS_CONFIG_FILE GRADLE_USER_HOME PIP_CONFIG_FILE TF_CLI_CONFIG_FILE; do
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

@test "agent plumbing and ssh's known_hosts and config stay; the agents' settings and the rest of ~/.ssh go" {
	mkdir -p "$H/.claude/shell-snapshots" "$H/.claude/session-env/s1" \
		"$H/.codex/tmp/path2/codex-arg0x" "$H/.codex/shell_snapshots" \
		"$H/.ssh/config.d" "$H/.gemini"
	echo snap >"$H/.claude/shell-snapshots/snapshot-bash-1.sh"
	echo hook >"$H/.claude/session-env/s1/sessionstart-hook-1.sh"
	echo "$MARK" >"$H/.claude/.credentials.json"
	echo "$MARK" >"$H/.claude/history.jsonl"
	echo "{\"env\":{\"ANTHROPIC_API_KEY\":\"$MARK\"}}" >"$H/.claude/settings.json"
	ln -s /bin/true "$H/.codex/tmp/path2/codex-arg0x/apply_patch"
	echo snap >"$H/.codex/shell_snapshots/s.1.sh"
	echo "$MARK" >"$H/.codex/auth.json"
	echo "$MARK" >"$H/.gemini/oauth_creds.json"
	echo "{\"mcpServers\":{\"gh\":{\"env\":{\"T\":\"$MARK\"}}}}" >"$H/.gemini/settings.json"
	echo "$MARK" >"$H/.ssh/id_ed25519"
	echo "$MARK" >"$H/.ssh/id_rsa"
	echo "example.org ssh-ed25519 AAAAC3kept" >"$H/.ssh/known_hosts"
	printf 'Include %s/.ssh/config.d/*\nHost gitbox\n  Port 2222\n' "$H" >"$H/.ssh/config"
	printf 'Host gitbox\n  User kept-user\n' >"$H/.ssh/config.d/work"
	own
	run sbx -- sh -c 'cat ~/.claude/shell-snapshots/snapshot-bash-1.sh \
	    ~/.claude/session-env/s1/sessionstart-hook-1.sh \
	    ~/.codex/shell_snapshots/s.1.sh ~/.ssh/known_hosts
	    ~/.codex/tmp/path2/codex-arg0x/apply_patch && echo apply-ok
	    cat ~/.claude/.credentials.json ~/.claude/history.jsonl ~/.codex/auth.json \
	        ~/.gemini/oauth_creds.json ~/.ssh/id_ed25519 ~/.ssh/id_rsa \
	        ~/.claude/settings.json ~/.gemini/settings.json
	    # ssh finds its config by the passwd entry, not HOME: name it
	    ssh -F ~/.ssh/config -G gitbox </dev/null | grep -E "^(port|user) "'
	[ "$status" -eq 0 ]
	lacks "$MARK"
	[ "${lines[0]}" = snap ]
	[ "${lines[1]}" = hook ]
	[ "${lines[2]}" = snap ]
	[ "${lines[3]}" = "example.org ssh-ed25519 AAAAC3kept" ]
	[ "${lines[4]}" = apply-ok ]
	[[ "$output" == *"user kept-user"* ]]
	[[ "$output" == *"port 2222"* ]]
}

# sbx_root ARGS: the helper as the user running the suite, without
# as_nobody: root in CI and devcontainers, where agents run as root.
sbx_root() {
	env -i HOME="$H" PATH=/usr/local/bin:/usr/bin:/bin LANG=C \
		"${VARS[@]}" "$HELPER" ${POLICY:+--policy "$POLICY"} "$@"
}

# plant_settings: the agents' settings, IDE lock files, transcripts and
# the tools' key files the list did not name before issue 20, each
# written the way its tool writes it with the marker (@S@) as the secret
# (moved/VAR: under the moved home VARS names); prints each path.
plant_settings() {
	local f body
	while IFS='|' read -r f body; do
		mkdir -p "$(dirname "$H/$f")"
		printf '%b\n' "${body//@S@/$MARK}" >"$H/$f"
		echo "$H/$f"
	done <<'EOF'
.claude/settings.json|{"env":{"ANTHROPIC_AUTH_TOKEN":"@S@"},"apiKeyHelper":"echo @S@"}
.claude/settings.local.json|{"env":{"OTEL_EXPORTER_OTLP_HEADERS":"Authorization=Bearer @S@"}}
.claude/ide/41723.lock|{"pid":1,"workspaceFolders":["/w"],"ideName":"VS Code","transport":"ws","authToken":"@S@"}
.claude/.config.json|{"mcpServers":{"gh":{"env":{"GITHUB_PERSONAL_ACCESS_TOKEN":"@S@"}}}}
.claude-custom-oauth.json|{"oauthAccount":{"accessToken":"@S@"}}
.codex/config.toml|[mcp_servers.github.env]\nGITHUB_PERSONAL_ACCESS_TOKEN = "@S@"
.codex/state_5.sqlite|SQLite format 3 @S@
.codex/logs_2.sqlite|SQLite format 3 @S@
.gemini/settings.json|{"mcpServers":{"gh":{"command":"github-mcp-server","env":{"GITHUB_PERSONAL_ACCESS_TOKEN":"@S@"}}}}
.gemini/tmp/proj/chats/session-1.json|{"messages":[{"content":"my key is @S@"}]}
.gemini/tmp/proj/shell_history|export API_KEY=@S@
.gemini/tmp/proj/logs.json|[{"message":"@S@"}]
.gemini/tmp/proj/checkpoint-fix.json|[{"text":"@S@"}]
.gemini/history/proj/notes.txt|@S@
.qwen/channels/telegram-credentials.json|{"botToken":"@S@"}
.qwen/projects/-w/chats/s.jsonl|{"content":"@S@"}
.qwen/tmp/abc/shell_history|export API_KEY=@S@
.copilot/mcp-config.json|{"mcpServers":{"gh":{"env":{"GITHUB_TOKEN":"@S@"}}}}
.copilot/ide/vscode.lock|{"token":"@S@"}
.copilot/session-state/s1/events.jsonl|{"content":"@S@"}
.copilot/session-store.db|SQLite format 3 @S@
.config/opencode/opencode.json|{"provider":{"corp":{"options":{"apiKey":"@S@"}}}}
.config/opencode/opencode.jsonc|{"mcp":{"gh":{"environment":{"GITHUB_TOKEN":"@S@"}}}}
.local/share/opencode/opencode.db|SQLite format 3 @S@
.local/share/opencode/storage/part/p1.json|{"text":"@S@"}
.pi/agent/sessions/--w--/s.jsonl|{"content":"@S@"}
.openclaw/openclaw.json|{"gateway":{"auth":{"token":"@S@"}},"channels":{"telegram":{"botToken":"@S@"}}}
.openclaw/openclaw.json.bak|{"gateway":{"auth":{"token":"@S@"}}}
.openclaw/.env|OPENAI_API_KEY=@S@
.openclaw/gateway.token|@S@
.openclaw/secrets.json|{"xai":"@S@"}
.openclaw/agents/main/sessions/s.jsonl|{"content":"@S@"}
.aider.conf.yml|openai-api-key: @S@
.continue/config.yaml|models:\n  - apiKey: @S@
.cursor/mcp.json|{"mcpServers":{"gh":{"env":{"GITHUB_TOKEN":"@S@"}}}}
.config/cursor/cli-config.json|{"token":"@S@"}
.config/crush/crush.json|{"providers":{"corp":{"api_key":"@S@"}}}
.config/goose/config.yaml|extensions:\n  gh:\n    envs:\n      GITHUB_TOKEN: @S@
.local/share/goose/sessions/s.jsonl|{"content":"@S@"}
.config/amp/settings.json|{"amp.mcpServers":{"gh":{"env":{"GITHUB_TOKEN":"@S@"}}}}
.augment/settings.json|{"mcpServers":{"gh":{"env":{"GITHUB_TOKEN":"@S@"}}}}
.cline/data/globalState.json|{"apiKey":"@S@"}
.kilocode/cli/config.json|{"apiKey":"@S@"}
.config/kilo/opencode.json|{"provider":{"corp":{"options":{"apiKey":"@S@"}}}}
.codeium/config.json|{"api_key":"@S@"}
.vscode-server/data/User/globalStorage/state.vscdb|SQLite format 3 @S@
.cursor-server/data/User/globalStorage/state.vscdb|SQLite format 3 @S@
.config/Windsurf/User/globalStorage/state.vscdb|SQLite format 3 @S@
.sbt/.credentials|realm=Sonatype Nexus Repository Manager\nhost=s01.oss.sonatype.org\nuser=me\npassword=@S@
.ivy2/.credentials|realm=Artifactory Realm\nhost=jfrog.example.org\nuser=me\npassword=@S@
.bundle/config|---\nBUNDLE_GEMS__EXAMPLE__ORG: "me:@S@"
.jfrog/jfrog-cli.conf.v6|{"servers":[{"accessToken":"@S@"}]}
.authinfo|machine imap.example.org login me password @S@
.envrc|export API_TOKEN=@S@
.secrets|@S@
.credentials|@S@
.gcloud/credentials.json|{"refresh_token":"@S@"}
.s3cmd|secret_key = @S@
.m2/settings.xml|<settings>\n  <servers><server><id>deploy</id><username>me</username><password>@S@</password></server></servers>\n</settings>
.gradle/gradle.properties|org.gradle.jvmargs=-Xmx2g\nsigning.password=@S@
.config/pip/pip.conf|[global]\nindex-url = https://me:@S@@pypi.example.org/simple
.pip/pip.conf|[global]\nextra-index-url = https://me:@S@@pypi.example.org/simple
.cargo/config.toml|[registries.corp]\nindex = "sparse+https://crates.example.org/"\ntoken = "@S@"
.nuget/NuGet/NuGet.Config|<configuration>\n  <packageSourceCredentials><corp>\n    <add key="Username" value="me" />\n    <add key="ClearTextPassword" value="@S@" />\n  </corp></packageSourceCredentials>\n</configuration>
.terraformrc|credentials "app.terraform.io" {\n  token = "@S@"\n}
moved/CLAUDE_CONFIG_DIR/settings.json|{"env":{"ANTHROPIC_API_KEY":"@S@"}}
moved/CLAUDE_CONFIG_DIR/ide/1.lock|{"authToken":"@S@"}
moved/CODEX_HOME/config.toml|[mcp_servers.gh.env]\nGITHUB_TOKEN = "@S@"
moved/GEMINI_CLI_HOME/.gemini/settings.json|{"mcpServers":{"gh":{"env":{"GITHUB_TOKEN":"@S@"}}}}
moved/GEMINI_CLI_HOME/.gemini/oauth_creds.json|{"access_token":"@S@"}
moved/COPILOT_HOME/mcp-config.json|{"mcpServers":{"gh":{"env":{"GITHUB_TOKEN":"@S@"}}}}
moved/OPENCODE_CONFIG|{"provider":{"corp":{"options":{"apiKey":"@S@"}}}}
moved/OPENCODE_CONFIG_DIR/opencode.json|{"provider":{"corp":{"options":{"apiKey":"@S@"}}}}
moved/OPENCLAW_CONFIG_PATH|{"gateway":{"auth":{"token":"@S@"}}}
moved/OPENCLAW_STATE_DIR/.env|OPENAI_API_KEY=@S@
moved/CODEX_SQLITE_HOME/state_5.sqlite|SQLite format 3 @S@
moved/PI_CODING_AGENT_SESSION_DIR/s.jsonl|{"content":"@S@"}
moved/CRUSH_GLOBAL_CONFIG/crush.json|{"providers":{"corp":{"api_key":"@S@"}}}
moved/CURSOR_CONFIG_DIR/auth.json|{"accessToken":"@S@"}
moved/GOOSE_PATH_ROOT/config/secrets.yaml|OPENAI_API_KEY: @S@
moved/GH_CONFIG_DIR/hosts.yml|github.com:\n  oauth_token: @S@
moved/NETRC|machine api.example.org login me password @S@
moved/DOCKER_CONFIG/config.json|{"auths":{"registry.example.org":{"auth":"@S@"}}}
moved/REGISTRY_AUTH_FILE|{"auths":{"registry.example.org":{"auth":"@S@"}}}
moved/AZURE_CONFIG_DIR/msal_token_cache.json|{"AccessToken":{"x":{"secret":"@S@"}}}
moved/AWS_CONFIG_FILE|[default]\naws_secret_access_key = @S@
moved/GRADLE_USER_HOME/gradle.properties|ossrhPassword=@S@
moved/PIP_CONFIG_FILE|[global]\nindex-url = https://me:@S@@pypi.example.org/simple
moved/TF_CLI_CONFIG_FILE|credentials "app.terraform.io" {\n  token = "@S@"\n}
EOF
}

# settings_hidden RUNNER: every planted file reads empty through RUNNER
# (or is gone, in a directory shown empty; Maven's and NuGet's hold the
# least their tool reads).
settings_hidden() {
	plant_settings >"$R/planted"
	[ "$(grep -c . "$R/planted")" -ge 80 ]
	[ "$1" != sbx ] || own
	run "$1" -- sh -c 'n=0; while read -r f; do
	    if [ -s "$f" ] && grep -qvx -e "<settings/>" -e "<configuration/>" "$f"; then
	        echo "NOT-EMPTY $f"; fi
	    cat "$f" 2>/dev/null; n=$((n + 1)); done <"$1"
	    echo "read $n"' sh "$R/planted"
	[ "$status" -eq 0 ]
	lacks -e "$MARK" -e NOT-EMPTY
	[ "${lines[-1]}" = "read $(grep -c . "$R/planted")" ]
}

@test "the agents' settings, IDE lock files and the tools' key files are hidden, as the test user (issue 20)" {
	settings_hidden sbx
	# the agents read them as before: they are not sandboxed
	run -0 agent 'import sys
print(sum(sys.argv[2] in open(l.strip()).read() for l in open(sys.argv[1])))' \
	    "$R/planted" "$MARK"
	[ "$output" = "$(grep -c . "$R/planted")" ]
}

@test "the agents' settings, IDE lock files and the tools' key files are hidden, as root (issue 20)" {
	settings_hidden sbx_root
	grep -q "$MARK" "$H/.gemini/settings.json"
}

# mvn_pip: what sandboxed Maven and pip take from their user configuration
# (Java's user.home comes from the passwd entry: named here).
mvn_pip() {
	printf '<project><modelVersion>4.0.0</modelVersion><groupId>e</groupId>'\
'<artifactId>t</artifactId><version>1</version><packaging>pom</packaging></project>\n' \
		>"$WS/pom.xml"
	own
	run sbx -- sh -c 'MAVEN_OPTS=-Duser.home=$HOME mvn -X -o -B -q validate 2>&1 |
	        grep -o "Using local repository at .*"
	    env -u PIP_CONFIG_FILE -u XDG_CONFIG_HOME python3 -m pip --no-cache-dir config list 2>&1 | grep index-url
	    echo gradle: $(cat ~/.gradle/gradle.properties)'
	[ "$status" -eq 0 ]
}

@test "build configuration without a credential stays readable, and Maven and pip use it (issue 20)" {
	mkdir -p "$H/.m2" "$H/.config/pip" "$H/.gradle"
	# the deploy password from the environment, as Maven's settings allow
	cat >"$H/.m2/settings.xml" <<EOF
<settings>
  <localRepository>$R/m2-from-settings</localRepository>
  <mirrors><mirror><id>corp</id><mirrorOf>*</mirrorOf><url>https://maven.example.org/all</url></mirror></mirrors>
  <servers><server><id>deploy</id><username>me</username><password>\${env.DEPLOY_PASSWORD}</password></server></servers>
</settings>
EOF
	printf '[global]\nindex-url = https://pypi.example.org/simple\n' >"$H/.config/pip/pip.conf"
	printf 'org.gradle.jvmargs=-Xmx2g\n' >"$H/.gradle/gradle.properties"
	mvn_pip
	[ "${lines[0]}" = "Using local repository at $R/m2-from-settings" ]
	[ "${lines[1]}" = "global.index-url='https://pypi.example.org/simple'" ]
	[ "${lines[2]}" = "gradle: org.gradle.jvmargs=-Xmx2g" ]
}

@test "build configuration holding a credential reads as empty; Maven and pip run without it (issue 20)" {
	mkdir -p "$H/.m2" "$H/.config/pip" "$H/.gradle"
	cat >"$H/.m2/settings.xml" <<EOF
<settings>
  <localRepository>$R/m2-from-settings</localRepository>
  <servers><server><id>deploy</id><username>me</username><password>$MARK</password></server></servers>
</settings>
EOF
	printf '[global]\nindex-url = https://me:%s@pypi.example.org/simple\n' "$MARK" \
		>"$H/.config/pip/pip.conf"
	printf 'org.gradle.jvmargs=-Xmx2g\nsigning.password=%s\n' "$MARK" >"$H/.gradle/gradle.properties"
	mvn_pip
	lacks -e "$MARK" -e m2-from-settings
	[ "${lines[0]}" = "Using local repository at $H/.m2/repository" ]
	[ "${lines[-1]}" = "gradle:" ]
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
# the 400 keys and the directory of the log itself, and what the host
# holds itself (a /run/docker.sock), a few at most
host = sum(1 for p in h[0]["hidden"] if not p.startswith("~"))
assert 0 < n < 400 and 401 <= n + h[0]["hidden_more"] <= 401 + max(host, 8), (n, h[0].get("hidden_more"))
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
