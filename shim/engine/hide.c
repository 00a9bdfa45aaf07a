/*
 * hide.c - the builtin hide list: every credential store of a developer
 * machine that no sandboxed shell should read, in groups, each with the
 * one-line reason `envshim policy --builtin` prints.  docs/policy.md gives
 * the sources of each group.
 *
 * Pure: const tables and matching only.  The sandbox expands the entries
 * against the real home at each start, so a login made after the agent
 * started is hidden from the next shell.  Inside the agents' own
 * directories the entries name files, not the directory: their shells
 * read ~/.claude/shell-snapshots/ and ~/.codex/tmp/ (docs/policy.md).
 * Build configuration that builds need is hidden only when its text holds
 * a credential (es_hide_secret_in), with a stub where its tool refuses
 * an empty file.
 */
#include <string.h>

#include "es_hide.h"
#include "es_policy.h"

enum {
	G_AGENTS, G_HISTORY, G_GIT, G_REGISTRIES, G_INFRA, G_CLOUDS,
	G_DATABASES, G_KEYRINGS, G_BROWSERS, G_APPS, G_KEYS, G_TOKENS,
	G_MAIL, G_SYSTEM
};

const struct es_hide_group es_hide_groups[] = {
	[G_AGENTS] = { "agents", "agent CLIs' logins, API keys, MCP server "
	    "env blocks and transcripts; their shell plumbing stays" },
	[G_HISTORY] = { "history", "shell and tool history, dotenv and secrets "
	    "files: typed and exported secrets" },
	[G_GIT] = { "git", "git credential stores and forge CLI tokens" },
	[G_REGISTRIES] = { "registries", "package registry tokens "
	    "(publish, private registries)" },
	[G_INFRA] = { "infra", "container registries, root-equivalent "
	    "daemon sockets, clusters, infrastructure tokens" },
	[G_CLOUDS] = { "clouds", "cloud and PaaS CLI keys and sessions" },
	[G_DATABASES] = { "databases", "database passwords" },
	[G_KEYRINGS] = { "keyrings", "password managers and keyrings" },
	[G_BROWSERS] = { "browsers", "browser profiles: cookies, saved "
	    "logins, session tokens" },
	[G_APPS] = { "apps", "chat app sessions, IDE and editor secret "
	    "stores" },
	[G_KEYS] = { "keys", "private keys and certificates; ssh keeps "
	    "known_hosts and config" },
	[G_TOKENS] = { "tokens", "ML hub and tunnel tokens" },
	[G_MAIL] = { "mail", "mail, SMB and WebDAV passwords" },
	[G_SYSTEM] = { "system", "systemd credentials" }
};
const size_t es_hide_ngroups = sizeof(es_hide_groups) /
    sizeof(es_hide_groups[0]);

#define E(p, g)	{ p, g, 0, NULL }
#define KEEP(p, g) { p, g, ES_HIDE_KEEP, NULL }
#define IFSECRET(p, g) { p, g, ES_HIDE_IFSECRET, NULL }
#define IFSECRET_STUB(p, g, s) { p, g, ES_HIDE_IFSECRET, s }

const struct es_hide_entry es_hide_list[] = {
	/*
	 * Claude Code: shell-snapshots/ and session-env/ stay.  Its global
	 * config is .claude.json (-custom-oauth and the like for other
	 * logins, .config.json where that exists), its settings' env block
	 * reaches every tool, and the lock files in ide/ hold the IDE's MCP
	 * auth token.
	 */
	E("~/.claude/.credentials.json", G_AGENTS),
	E("$CLAUDE_CONFIG_DIR/.credentials.json", G_AGENTS),
	E("~/.claude.json", G_AGENTS),
	E("~/.claude.json.backup*", G_AGENTS),
	E("~/.claude-*.json", G_AGENTS),
	E("~/.claude/.config.json", G_AGENTS),
	E("$CLAUDE_CONFIG_DIR/.claude.json", G_AGENTS),
	E("$CLAUDE_CONFIG_DIR/.claude-*.json", G_AGENTS),
	E("$CLAUDE_CONFIG_DIR/.config.json", G_AGENTS),
	E("~/.claude/*settings*.json", G_AGENTS),
	E("$CLAUDE_CONFIG_DIR/*settings*.json", G_AGENTS),
	E("~/.claude/ide/", G_AGENTS),
	E("$CLAUDE_CONFIG_DIR/ide/", G_AGENTS),
	E("~/.claude/hfi-auth.json", G_AGENTS),
	E("$CLAUDE_CONFIG_DIR/hfi-auth.json", G_AGENTS),
	E("~/.claude/backups/", G_AGENTS),
	E("$CLAUDE_CONFIG_DIR/backups/", G_AGENTS),
	E("~/.claude/history.jsonl", G_AGENTS),
	E("~/.claude/projects/", G_AGENTS),
	E("$CLAUDE_CONFIG_DIR/history.jsonl", G_AGENTS),
	E("$CLAUDE_CONFIG_DIR/projects/", G_AGENTS),
	/* managed settings: an env block for every user (OTLP headers) */
	E("/etc/claude-code/", G_AGENTS),
	/* Codex: tmp/ (apply_patch on PATH) and shell_snapshots/ stay */
	E("~/.codex/auth.json", G_AGENTS),
	E("~/.codex/.credentials.json", G_AGENTS),
	E("~/.codex/.env", G_AGENTS),
	E("~/.codex/history.jsonl", G_AGENTS),
	E("~/.codex/sessions/", G_AGENTS),
	/* MCP servers' env, providers' bearer tokens; threads and logs */
	E("~/.codex/config.toml", G_AGENTS),
	E("~/.codex/*.sqlite*", G_AGENTS),
	E("$CODEX_HOME/auth.json", G_AGENTS),
	E("$CODEX_HOME/.credentials.json", G_AGENTS),
	E("$CODEX_HOME/.env", G_AGENTS),
	E("$CODEX_HOME/history.jsonl", G_AGENTS),
	E("$CODEX_HOME/sessions/", G_AGENTS),
	E("$CODEX_HOME/config.toml", G_AGENTS),
	E("$CODEX_HOME/*.sqlite*", G_AGENTS),
	E("$CODEX_SQLITE_HOME/*.sqlite*", G_AGENTS),
	E("/etc/codex/", G_AGENTS),
	/*
	 * Gemini CLI, Qwen Code.  settings.json holds MCP servers' env
	 * blocks; tmp/PROJECT/ the chats, prompts and shell history (its
	 * tool output and bin/ stay), history/ each project's checkpoints.
	 */
	E("~/.gemini/oauth_creds.json", G_AGENTS),
	E("~/.gemini/gemini-credentials.json", G_AGENTS),
	E("~/.gemini/*oauth-tokens*.json", G_AGENTS),
	E("~/.gemini/google_accounts.json", G_AGENTS),
	E("~/.gemini/.env", G_AGENTS),
	E("~/.gemini/settings.json", G_AGENTS),
	E("~/.gemini/tmp/*/chats/", G_AGENTS),
	E("~/.gemini/tmp/*/logs.json", G_AGENTS),
	E("~/.gemini/tmp/*/shell_history", G_AGENTS),
	E("~/.gemini/tmp/*/checkpoint*", G_AGENTS),
	E("~/.gemini/history/", G_AGENTS),
	E("$GEMINI_CLI_HOME/.gemini/oauth_creds.json", G_AGENTS),
	E("$GEMINI_CLI_HOME/.gemini/gemini-credentials.json", G_AGENTS),
	E("$GEMINI_CLI_HOME/.gemini/*oauth-tokens*.json", G_AGENTS),
	E("$GEMINI_CLI_HOME/.gemini/google_accounts.json", G_AGENTS),
	E("$GEMINI_CLI_HOME/.gemini/.env", G_AGENTS),
	E("$GEMINI_CLI_HOME/.gemini/settings.json", G_AGENTS),
	E("/etc/gemini-cli/", G_AGENTS),
	/* Qwen's /auth writes the provider key into settings.json's env */
	E("~/.qwen/oauth_creds.json", G_AGENTS),
	E("~/.qwen/mcp-oauth-tokens.json", G_AGENTS),
	E("~/.qwen/.env", G_AGENTS),
	E("~/.qwen/settings.json", G_AGENTS),
	E("$QWEN_HOME/oauth_creds.json", G_AGENTS),
	E("$QWEN_HOME/mcp-oauth-tokens.json", G_AGENTS),
	E("$QWEN_HOME/.env", G_AGENTS),
	E("$QWEN_HOME/settings.json", G_AGENTS),
	/* chat channels' bot credentials; chats, shell history */
	E("~/.qwen/channels/", G_AGENTS),
	E("$QWEN_HOME/channels/", G_AGENTS),
	E("~/.qwen/projects/*/chats/", G_AGENTS),
	E("~/.qwen/tmp/*/shell_history", G_AGENTS),
	E("~/.qwen/tmp/*/checkpoints/", G_AGENTS),
	/* Copilot: MCP servers' env, IDE state, sessions */
	E("~/.copilot/config.json", G_AGENTS),
	E("~/.copilot/mcp-config.json", G_AGENTS),
	E("~/.copilot/ide/", G_AGENTS),
	E("~/.copilot/session-state/", G_AGENTS),
	E("~/.copilot/history-session-state/", G_AGENTS),
	E("~/.copilot/session-store.db*", G_AGENTS),
	E("$COPILOT_HOME/config.json", G_AGENTS),
	E("$COPILOT_HOME/mcp-config.json", G_AGENTS),
	E("$COPILOT_HOME/ide/", G_AGENTS),
	E("$COPILOT_HOME/session-state/", G_AGENTS),
	E("~/.config/github-copilot/", G_AGENTS),
	/* opencode: keys inline in its config; sessions in the database */
	E("~/.local/share/opencode/auth.json", G_AGENTS),
	E("~/.local/share/opencode/mcp-auth.json", G_AGENTS),
	E("~/.local/share/opencode/opencode*.db*", G_AGENTS),
	E("~/.local/share/opencode/storage/", G_AGENTS),
	E("$XDG_DATA_HOME/opencode/auth.json", G_AGENTS),
	E("$XDG_DATA_HOME/opencode/mcp-auth.json", G_AGENTS),
	E("$XDG_DATA_HOME/opencode/opencode*.db*", G_AGENTS),
	E("$XDG_DATA_HOME/opencode/storage/", G_AGENTS),
	E("~/.config/opencode/opencode.json*", G_AGENTS),
	E("~/.config/opencode/config.json", G_AGENTS),
	E("$XDG_CONFIG_HOME/opencode/opencode.json*", G_AGENTS),
	E("$XDG_CONFIG_HOME/opencode/config.json", G_AGENTS),
	E("$OPENCODE_CONFIG", G_AGENTS),
	E("$OPENCODE_CONFIG_DIR/opencode.json*", G_AGENTS),
	/* crush, pi */
	E("~/.local/share/crush/crush.json", G_AGENTS),
	E("~/.config/crush/crush.json", G_AGENTS),
	E("$CRUSH_GLOBAL_DATA/crush.json", G_AGENTS),
	E("$CRUSH_GLOBAL_CONFIG/crush.json", G_AGENTS),
	E("~/.pi/agent/auth.json", G_AGENTS),
	E("~/.pi/agent/models.json", G_AGENTS),
	E("~/.pi/agent/sessions/", G_AGENTS),
	E("$PI_CODING_AGENT_DIR/auth.json", G_AGENTS),
	E("$PI_CODING_AGENT_DIR/models.json", G_AGENTS),
	E("$PI_CODING_AGENT_DIR/sessions/", G_AGENTS),
	E("$PI_CODING_AGENT_SESSION_DIR", G_AGENTS),
	/*
	 * openclaw: SQLite auth stores since 2026.9, the JSON ones before;
	 * openclaw.json holds the gateway's token, channels' bot tokens and
	 * providers' keys.  Its workspace (~/.openclaw/workspace) stays.
	 */
	E("~/.openclaw/credentials/", G_AGENTS),
	E("~/.openclaw/agents/*/agent/auth*.json", G_AGENTS),
	E("~/.openclaw/agents/*/agent/openclaw-agent.sqlite*", G_AGENTS),
	E("~/.openclaw/agents/*/sessions/", G_AGENTS),
	E("~/.openclaw/state/openclaw*.sqlite*", G_AGENTS),
	E("~/.openclaw/openclaw.json*", G_AGENTS),
	E("~/.openclaw/.env", G_AGENTS),
	E("~/.openclaw/gateway.token", G_AGENTS),
	E("~/.openclaw/secrets.json", G_AGENTS),
	E("~/.openclaw/secrets/", G_AGENTS),
	E("~/.openclaw/*.sock", G_AGENTS),
	E("$OPENCLAW_STATE_DIR/credentials/", G_AGENTS),
	E("$OPENCLAW_STATE_DIR/agents/*/agent/openclaw-agent.sqlite*", G_AGENTS),
	E("$OPENCLAW_STATE_DIR/agents/*/sessions/", G_AGENTS),
	E("$OPENCLAW_STATE_DIR/state/openclaw*.sqlite*", G_AGENTS),
	E("$OPENCLAW_STATE_DIR/openclaw.json*", G_AGENTS),
	E("$OPENCLAW_STATE_DIR/.env", G_AGENTS),
	E("$OPENCLAW_STATE_DIR/gateway.token", G_AGENTS),
	E("$OPENCLAW_CONFIG_PATH", G_AGENTS),
	/* aider, goose, Cursor, Amp, Kilo, Cline, Augment, Continue */
	E("~/.aider/oauth-keys.env", G_AGENTS),
	E("~/.aider.conf.yml", G_AGENTS),
	E("~/.config/goose/secrets.yaml", G_AGENTS),
	E("~/.config/goose/config.yaml", G_AGENTS),
	E("~/.local/share/goose/sessions/", G_AGENTS),
	E("$GOOSE_PATH_ROOT/config/secrets.yaml", G_AGENTS),
	E("$GOOSE_PATH_ROOT/config/config.yaml", G_AGENTS),
	E("~/.config/cursor/auth.json", G_AGENTS),
	E("~/.config/cursor/cli-config.json", G_AGENTS),
	E("$CURSOR_CONFIG_DIR/auth.json", G_AGENTS),
	E("$CURSOR_CONFIG_DIR/cli-config.json", G_AGENTS),
	E("~/.cursor/auth.json", G_AGENTS),
	E("~/.cursor/mcp.json", G_AGENTS),
	E("~/.local/share/amp/secrets.json", G_AGENTS),
	E("~/.config/amp/", G_AGENTS),
	E("~/.local/share/kilo/auth.json", G_AGENTS),
	E("~/.config/kilo/", G_AGENTS),
	E("~/.kilocode/", G_AGENTS),
	E("~/.cline/data/secrets.json", G_AGENTS),
	E("~/.cline/data/globalState.json", G_AGENTS),
	E("~/.augment/session.json", G_AGENTS),
	E("~/.augment/settings.json", G_AGENTS),
	E("~/.continue/.env", G_AGENTS),
	E("~/.continue/config.yaml", G_AGENTS),
	E("~/.continue/config.json", G_AGENTS),

	E("~/.*_history", G_HISTORY),
	E("~/.*_history_*", G_HISTORY),
	E("~/.local/share/fish/fish_history", G_HISTORY),
	E("~/.histfile", G_HISTORY),
	E("~/.history", G_HISTORY),
	E("~/.lesshst", G_HISTORY),
	E("~/.viminfo", G_HISTORY),
	E("~/.env", G_HISTORY),
	E("~/.envrc", G_HISTORY),
	E("~/.secrets", G_HISTORY),
	E("~/.credentials", G_HISTORY),
	E("~/.keys", G_HISTORY),

	E("~/.git-credentials", G_GIT),
	E("~/.config/git/credentials", G_GIT),
	E("$XDG_CONFIG_HOME/git/credentials", G_GIT),
	E("~/.git-credential-cache/", G_GIT),
	E("~/.cache/git/credential/", G_GIT),
	E("~/.config/gh/", G_GIT),
	E("$XDG_CONFIG_HOME/gh/", G_GIT),
	E("$GH_CONFIG_DIR/", G_GIT),
	E("~/.config/glab-cli/", G_GIT),
	E("~/.config/hub", G_GIT),

	E("~/.npmrc", G_REGISTRIES),
	E("~/.yarnrc.yml", G_REGISTRIES),
	E("~/.yarnrc", G_REGISTRIES),
	E("~/.bunfig.toml", G_REGISTRIES),
	E("~/.pypirc", G_REGISTRIES),
	E("~/.local/share/uv/credentials/", G_REGISTRIES),
	E("~/.config/pypoetry/auth.toml", G_REGISTRIES),
	E("~/.cargo/credentials.toml", G_REGISTRIES),
	E("~/.cargo/credentials", G_REGISTRIES),
	E("$CARGO_HOME/credentials.toml", G_REGISTRIES),
	E("$CARGO_HOME/credentials", G_REGISTRIES),
	E("~/.gem/credentials", G_REGISTRIES),
	E("~/.local/share/gem/credentials", G_REGISTRIES),
	E("~/.config/composer/auth.json", G_REGISTRIES),
	E("~/.composer/auth.json", G_REGISTRIES),
	E("~/.m2/settings-security.xml", G_REGISTRIES),
	E("~/.netrc", G_REGISTRIES),
	E("$NETRC", G_REGISTRIES),
	E("~/.sbt/.credentials", G_REGISTRIES),
	E("~/.ivy2/.credentials", G_REGISTRIES),
	E("~/.bundle/config", G_REGISTRIES),
	E("~/.jfrog/", G_REGISTRIES),
	/* what builds read for mirrors and proxies: empty only with a key */
	IFSECRET_STUB("~/.m2/settings.xml", G_REGISTRIES, "<settings/>\n"),
	IFSECRET("~/.gradle/gradle.properties", G_REGISTRIES),
	IFSECRET("$GRADLE_USER_HOME/gradle.properties", G_REGISTRIES),
	IFSECRET("~/.config/pip/pip.conf", G_REGISTRIES),
	IFSECRET("~/.pip/pip.conf", G_REGISTRIES),
	IFSECRET("$XDG_CONFIG_HOME/pip/pip.conf", G_REGISTRIES),
	IFSECRET("$PIP_CONFIG_FILE", G_REGISTRIES),
	IFSECRET("~/.config/uv/uv.toml", G_REGISTRIES),
	IFSECRET("~/.cargo/config.toml", G_REGISTRIES),
	IFSECRET("~/.cargo/config", G_REGISTRIES),
	IFSECRET("$CARGO_HOME/config.toml", G_REGISTRIES),
	IFSECRET("$CARGO_HOME/config", G_REGISTRIES),
	IFSECRET_STUB("~/.nuget/NuGet/NuGet.Config", G_REGISTRIES,
	    "<configuration/>\n"),
	IFSECRET_STUB("~/.config/NuGet/NuGet.Config", G_REGISTRIES,
	    "<configuration/>\n"),

	E("~/.docker/", G_INFRA),
	E("$DOCKER_CONFIG/", G_INFRA),
	E("~/.config/containers/auth.json", G_INFRA),
	E("$REGISTRY_AUTH_FILE", G_INFRA),
	E("/run/docker.sock", G_INFRA),
	E("/var/run/docker.sock", G_INFRA),
	E("/run/podman/podman.sock", G_INFRA),
	E("/var/run/podman/podman.sock", G_INFRA),
	E("/run/containerd/containerd.sock", G_INFRA),
	E("/run/buildkit/buildkitd.sock", G_INFRA),
	E("~/.kube/", G_INFRA),
	E("~/.minikube/", G_INFRA),
	E("~/.config/helm/registry/", G_INFRA),
	E("~/.config/helm/repositories.yaml", G_INFRA),
	E("~/.terraform.d/credentials.tfrc.json", G_INFRA),
	IFSECRET("~/.terraformrc", G_INFRA),
	IFSECRET("$TF_CLI_CONFIG_FILE", G_INFRA),
	E("~/.vault-token", G_INFRA),
	E("~/.pulumi/credentials.json", G_INFRA),

	E("~/.aws/", G_CLOUDS),
	E("$AWS_CONFIG_FILE", G_CLOUDS),
	E("~/.config/gcloud/", G_CLOUDS),
	E("$CLOUDSDK_CONFIG", G_CLOUDS),
	E("~/.gcloud/", G_CLOUDS),
	E("~/.azure/", G_CLOUDS),
	E("$AZURE_CONFIG_DIR/", G_CLOUDS),
	E("~/.azd/", G_CLOUDS),
	E("~/.oci/", G_CLOUDS),
	E("~/.config/doctl/", G_CLOUDS),
	E("~/.config/linode-cli", G_CLOUDS),
	E("~/.config/hcloud/", G_CLOUDS),
	E("~/.fly/", G_CLOUDS),
	E("~/.local/share/com.vercel.cli/", G_CLOUDS),
	E("~/.config/netlify/", G_CLOUDS),
	E("~/.config/.wrangler/", G_CLOUDS),
	E("~/.wrangler/", G_CLOUDS),
	E("~/.config/configstore/firebase-tools.json", G_CLOUDS),
	E("~/.supabase/access-token", G_CLOUDS),
	E("~/.boto", G_CLOUDS),
	E("/etc/boto.cfg", G_CLOUDS),
	E("~/.s3cfg", G_CLOUDS),
	E("~/.s3cmd", G_CLOUDS),
	E("~/.passwd-s3fs", G_CLOUDS),
	E("~/.config/rclone/rclone.conf", G_CLOUDS),

	E("~/.pgpass", G_DATABASES),
	E("~/.my.cnf", G_DATABASES),
	E("~/.mylogin.cnf", G_DATABASES),
	E("~/.mongodb/", G_DATABASES),

	E("~/.password-store/", G_KEYRINGS),
	E("~/.local/share/gopass/", G_KEYRINGS),
	E("~/.config/gopass/", G_KEYRINGS),
	E("~/.config/op/", G_KEYRINGS),
	E("~/.op/", G_KEYRINGS),
	E("~/.1password/", G_KEYRINGS),
	E("~/.config/1Password/", G_KEYRINGS),
	E("~/.config/Bitwarden/", G_KEYRINGS),
	E("~/.config/Bitwarden CLI/", G_KEYRINGS),
	E("~/.local/share/keyrings/", G_KEYRINGS),
	E("~/.gnome2/keyrings/", G_KEYRINGS),
	E("~/.local/share/kwalletd/", G_KEYRINGS),
	E("~/.kde*/share/apps/kwallet/", G_KEYRINGS),
	E("~/*.kdbx", G_KEYRINGS),
	E("~/*.kdb", G_KEYRINGS),
	E("~/.config/keepassxc/", G_KEYRINGS),

	E("~/.mozilla/", G_BROWSERS),
	E("~/.config/mozilla/", G_BROWSERS),
	E("~/.config/google-chrome*/", G_BROWSERS),
	E("~/.config/chromium/", G_BROWSERS),
	E("~/.config/BraveSoftware/", G_BROWSERS),
	E("~/.config/microsoft-edge*/", G_BROWSERS),
	E("~/.config/vivaldi/", G_BROWSERS),
	E("~/.config/opera/", G_BROWSERS),
	E("~/.var/app/", G_BROWSERS),
	E("~/snap/firefox/", G_BROWSERS),
	E("~/snap/chromium/", G_BROWSERS),

	E("~/.config/Slack/", G_APPS),
	E("~/.config/discord*/", G_APPS),
	E("~/.config/Signal/", G_APPS),
	E("~/.local/share/TelegramDesktop/", G_APPS),
	E("~/.config/Element/", G_APPS),
	E("~/.config/Code*/User/globalStorage/", G_APPS),
	E("~/.config/VSCodium/User/globalStorage/", G_APPS),
	E("~/.config/Cursor/User/globalStorage/", G_APPS),
	E("~/.config/Windsurf/User/globalStorage/", G_APPS),
	/* remote development: the editor's server keeps its own store */
	E("~/.vscode-server/data/User/globalStorage/", G_APPS),
	E("~/.cursor-server/data/User/globalStorage/", G_APPS),
	E("~/.codeium/", G_APPS),
	E("~/.config/JetBrains/", G_APPS),
	E("~/.local/share/JetBrains/", G_APPS),

	E("~/.ssh/*", G_KEYS),
	KEEP("~/.ssh/known_hosts", G_KEYS),
	KEEP("~/.ssh/config", G_KEYS),
	KEEP("~/.ssh/config.d", G_KEYS),
	E("~/.gnupg/", G_KEYS),
	E("~/.config/sops/age/keys.txt", G_KEYS),
	E("~/.pki/", G_KEYS),
	E("~/.local/share/pki/", G_KEYS),
	E("~/.cert/", G_KEYS),
	E("~/*.key", G_KEYS),
	E("~/*.pem", G_KEYS),
	E("~/*.p12", G_KEYS),
	E("~/*.pfx", G_KEYS),
	E("~/.minisign/", G_KEYS),
	E("~/.config/keybase/", G_KEYS),
	E("~/.*coin/", G_KEYS),
	E("~/.sui/sui_config/sui.keystore", G_KEYS),

	E("~/.cache/huggingface/token", G_TOKENS),
	E("~/.cache/huggingface/stored_tokens", G_TOKENS),
	E("~/.huggingface/token", G_TOKENS),
	E("$HF_HOME/token", G_TOKENS),
	E("$HF_HOME/stored_tokens", G_TOKENS),
	E("~/.config/ngrok/", G_TOKENS),

	E("~/.msmtprc", G_MAIL),
	E("~/.fetchmailrc", G_MAIL),
	E("~/.mutt/", G_MAIL),
	E("~/.muttrc", G_MAIL),
	E("~/.smbcredentials", G_MAIL),
	E("~/.davfs2/secrets", G_MAIL),
	/* Emacs' auth-source: mail, IRC and forge passwords */
	E("~/.authinfo", G_MAIL),
	E("~/.authinfo.gpg", G_MAIL),

	E("/etc/credstore", G_SYSTEM),
	E("/etc/credstore.encrypted", G_SYSTEM),
	E("/run/credentials", G_SYSTEM)
};
const size_t es_hide_n = sizeof(es_hide_list) / sizeof(es_hide_list[0]);

const char *const es_home_keep[] = {
	/* git: its XDG config is fatal when missing but traversable */
	"~/.gitconfig", "~/.config/git",
	/* ssh host verification for git over ssh */
	"~/.ssh/known_hosts", "~/.ssh/config", "~/.ssh/config.d",
	/* login shells and the agents' snapshot shells source them */
	"~/.bashrc", "~/.bash_profile", "~/.bash_login", "~/.profile",
	"~/.zshrc", "~/.zshenv", "~/.zprofile", "~/.inputrc",
	/* the agents' shell plumbing */
	"~/.claude/shell-snapshots", "~/.claude/session-env",
	"~/.codex/tmp", "~/.codex/shell_snapshots",
	/* build configuration: mirrors, proxies, JVM flags */
	"~/.m2/settings.xml", "~/.gradle/gradle.properties",
	"~/.config/pip", "~/.cargo/config.toml", "~/.cargo/config",
	"~/.npmrc", "~/.yarnrc", "~/.yarnrc.yml",
	/* toolchains and caches */
	"~/.cargo/bin", "~/.cargo/registry", "~/.cargo/git", "~/.rustup",
	"~/.nvm", "~/.fnm", "~/.volta", "~/.npm", "~/.node-gyp",
	"~/.yarn", "~/.pnpm-store", "~/.bun", "~/.deno", "~/.cache",
	"~/.m2/repository", "~/.gradle/caches", "~/.gradle/wrapper",
	"~/.local/bin", "~/.local/lib", "~/.local/share/pnpm",
	"~/.pyenv", "~/.rbenv", "~/.gem", "~/.sdkman", "~/.asdf",
	"~/.ghcup", "~/.opam", "~/.elan", "~/go", "~/.nix-profile"
};
const size_t es_home_nkeep = sizeof(es_home_keep) / sizeof(es_home_keep[0]);

/* What builds write under ~: what other agents' sandboxes open up. */
const struct es_home_cache es_home_cache[] = {
	{ "~/.cache", "XDG cache: Go's build cache, pip, uv, yarn, pnpm, bun, "
	    "node-gyp, ccache 4, pre-commit, gopls, Playwright, Prisma" },
	{ "~/.npm", "npm's cache (_cacache, _logs, _npx); npm ignores XDG" },
	{ "~/go/pkg/mod", "Go's module cache (GOMODCACHE under GOPATH ~/go)" },
	{ "~/.config/go", "go env -w (GOENV)" },
	{ "~/.cargo/registry", "cargo's crate downloads and sources" },
	{ "~/.cargo/git", "cargo's git dependencies" },
	{ "~/.rustup/downloads", "rustup's downloads" },
	{ "~/.m2/repository", "Maven's local repository" },
	{ "~/.gradle/caches", "Gradle's dependency and build caches" },
	{ "~/.gradle/wrapper", "Gradle wrapper distributions" },
	{ "~/.gradle/daemon", "Gradle daemon logs and registry" },
	{ "~/.gradle/native", "Gradle's native libraries" },
	{ "~/.yarn/berry", "yarn 2+ global cache" },
	{ "~/.pnpm-store", "pnpm's store (older layout)" },
	{ "~/.local/share/pnpm", "pnpm's store" },
	{ "~/.bun/install/cache", "bun's package cache" },
	{ "~/.node-gyp", "node-gyp headers (older releases)" },
	{ "~/.local/share/uv", "uv's Python builds and tools" },
	{ "~/.ccache", "ccache 3's cache" },
	{ "~/.ivy2/cache", "sbt and Ivy dependency cache" },
	{ "~/.terraform.d/plugin-cache", "Terraform's plugin cache" }
};
const size_t es_home_ncache = sizeof(es_home_cache) / sizeof(es_home_cache[0]);

const struct es_hide_entry *
es_hide_find(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < es_hide_n; i++)
		if (!(es_hide_list[i].flags & ES_HIDE_KEEP) &&
		    strlen(es_hide_list[i].path) == n &&
		    memcmp(es_hide_list[i].path, s, n) == 0)
			return &es_hide_list[i];
	return NULL;
}

/*
 * '*' only, backtracking to the last star: names are short, and a
 * component holds at most two stars in the list.
 */
int
es_hide_glob(const char *pat, size_t pn, const char *name)
{
	const char *star = NULL, *back = NULL, *pe = pat + pn;

	while (*name != '\0') {
		if (pat < pe && *pat == '*') {
			star = ++pat;
			back = name;
		} else if (pat < pe && *pat == *name) {
			pat++;
			name++;
		} else if (star != NULL) {
			pat = star;
			name = ++back;
		} else
			return 0;
	}
	while (pat < pe && *pat == '*')
		pat++;
	return pat == pe;
}

static char
lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Does s[0..n) hold a word that names a credential, ASCII case ignored? */
static int
names_cred(const char *s, size_t n)
{
	static const char *const word[] = {
		"passw", "passphrase", "secret", "token", "apikey", "api_key",
		"api-key", "auth", "credential", "private"
	};
	size_t i, j, k, wl;

	for (i = 0; i < sizeof(word) / sizeof(word[0]); i++) {
		wl = strlen(word[i]);
		for (j = 0; j + wl <= n; j++) {
			for (k = 0; k < wl && lower(s[j + k]) == word[i][k]; k++)
				;
			if (k == wl)
				return 1;
		}
	}
	return 0;
}

static int
word_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	    (c >= '0' && c <= '9') || c == '_';
}

/*
 * Is the value v[0..n) no secret: empty, a boolean, or a reference to
 * the environment ("${env.NAME}", "${NAME}", "$NAME", "%NAME%"), blanks,
 * a trailing ',' or ';' and one pair of quotes around it aside?
 */
static int
inert(const char *v, size_t n)
{
	static const char *const flag[] = {
		"true", "false", "yes", "no", "on", "off", "null"
	};
	size_t i, k;

	while (n > 0 && (*v == ' ' || *v == '\t' || *v == '\r' || *v == '\n'))
		v++, n--;
	while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t' ||
	    v[n - 1] == '\r' || v[n - 1] == '\n' || v[n - 1] == ',' ||
	    v[n - 1] == ';'))
		n--;
	if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0])
		v++, n -= 2;
	if (n == 0)
		return 1;
	for (i = 0; i < sizeof(flag) / sizeof(flag[0]); i++) {
		if (strlen(flag[i]) != n)
			continue;
		for (k = 0; k < n && lower(v[k]) == flag[i][k]; k++)
			;
		if (k == n)
			return 1;
	}
	if (n >= 3 && v[0] == '$' && v[1] == '{' && v[n - 1] == '}')
		return memchr(v + 2, '}', n - 3) == NULL &&
		    memchr(v + 2, '{', n - 3) == NULL;
	if (v[0] == '$' || (n >= 3 && v[0] == '%' && v[n - 1] == '%')) {
		for (i = 1; i < n - (v[0] == '%'); i++)
			if (!word_char(v[i]))
				return 0;
		return n > 1;
	}
	return 0;
}

/*
 * A line that is not markup: its value is what follows the first '=' or
 * the first ':' that ends a key (before a blank or the end), else the
 * first blank ("key value", yarn 1's form).
 */
static int
line_holds(const char *l, size_t n)
{
	const char *e = l + n, *v;

	if (!names_cred(l, n))
		return 0;
	for (v = l; v < e; v++)
		if (*v == '=' || (*v == ':' && (v + 1 == e || v[1] == ' ' ||
		    v[1] == '\t')))
			return !inert(v + 1, (size_t)(e - v - 1));
	while (l < e && (*l == ' ' || *l == '\t'))
		l++;
	for (v = l; v < e && *v != ' ' && *v != '\t'; v++)
		;
	return v < e && !inert(v, (size_t)(e - v));
}

/*
 * One XML tag at t (its '<'), before e or the next '<'; *open counts the
 * elements around it whose names name a credential.  It holds one when
 * its name names one and the text after it is not inert (<password>...),
 * when an attribute's name does and its value is not, or when its "value"
 * attribute is not inert and another attribute's value names one or an
 * element around it does (NuGet's <add key="ClearTextPassword"
 * value="..." /> and <apikeys>).
 */
static int
tag_holds(const char *t, const char *e, unsigned *open)
{
	const char *p = t + 1, *nm, *an, *av, *named = NULL, *value = NULL;
	size_t nl, al, vl = 0, valuel = 0;
	char q;

	/* a tag ends before the next '<': each byte is read for one tag */
	if ((nm = memchr(p, '<', (size_t)(e - p))) != NULL)
		e = nm;

	if (p < e && *p == '/') {	/* a closing tag */
		for (nm = ++p; p < e && *p != '>'; p++)
			;
		if (*open > 0 && names_cred(nm, (size_t)(p - nm)))
			(*open)--;
		return 0;
	}
	for (nm = p; p < e && (word_char(*p) || *p == '.' || *p == '-' ||
	    *p == ':'); p++)
		;
	if ((nl = (size_t)(p - nm)) == 0)
		return 0;
	for (;;) {
		while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' ||
		    *p == '\r'))
			p++;
		if (p >= e || *p == '>' || *p == '/')
			break;
		for (an = p; p < e && *p != '=' && *p != '>' && *p != ' ' &&
		    *p != '\t' && *p != '\n' && *p != '/'; p++)
			;
		al = (size_t)(p - an);
		/* not the markup this reads: judge what came before it */
		if (al == 0 || p >= e || *p != '=' || p + 1 >= e ||
		    (p[1] != '"' && p[1] != '\''))
			break;
		q = p[1];
		av = p + 2;
		if ((p = memchr(av, q, (size_t)(e - av))) == NULL) {
			p = e;
			break;
		}
		vl = (size_t)(p - av);
		p++;
		if (names_cred(an, al) && !inert(av, vl))
			return 1;
		if (names_cred(av, vl))
			named = av;
		if (al == 5 && memcmp(an, "value", 5) == 0) {
			value = av;
			valuel = vl;
		}
	}
	if ((named != NULL || *open > 0) && value != NULL &&
	    !inert(value, valuel))
		return 1;
	if (p >= e || *p != '>' || !names_cred(nm, nl))
		return 0;
	(*open)++;
	for (av = ++p; p < e && *p != '<'; p++)
		;
	return !inert(av, (size_t)(p - av));
}

int
es_hide_secret_in(const struct es_policy *p, const char *text, size_t n,
    const char **what, unsigned *line)
{
	const char *l = text, *e = text + n, *nl, *t;
	unsigned no = 1, open = 0;
	size_t ln;

	*what = NULL;
	for (; l < e; l = nl + 1, no++) {
		if ((nl = memchr(l, '\n', (size_t)(e - l))) == NULL)
			nl = e;
		ln = (size_t)(nl - l);
		*line = no;
		if (es_secret_value(p, l, ln, what))
			return 1;
		for (t = l; t < nl && (*t == ' ' || *t == '\t'); t++)
			;
		if (t < nl && *t != '<' && line_holds(l, ln))
			return 1;
		/* markup: each tag on the line, its text running on */
		for (t = l; (t = memchr(t, '<', (size_t)(nl - t))) != NULL; t++)
			if (tag_holds(t, e, &open))
				return 1;
		if (nl == e)
			break;
	}
	return 0;
}

/* Appends s to buf[0..len) at *off; counts past the end to measure. */
static void
put(char *buf, size_t len, size_t *off, const char *s)
{
	size_t n = strlen(s);

	if (buf != NULL && *off < len)
		memcpy(buf + *off, s, n < len - *off ? n : len - *off);
	*off += n;
}

long
es_hide_format(char *buf, size_t len)
{
	size_t off = 0, g, i;

	put(buf, len, &off, "# builtin hide list: shells see an empty file or "
	    "directory in each place;\n#   'reveal PATH' re-shows one entry\n");
	for (g = 0; g < es_hide_ngroups; g++) {
		put(buf, len, &off, "# hide ");
		put(buf, len, &off, es_hide_groups[g].name);
		put(buf, len, &off, ": ");
		put(buf, len, &off, es_hide_groups[g].why);
		put(buf, len, &off, "\n");
		for (i = 0; i < es_hide_n; i++) {
			if (es_hide_list[i].group != g)
				continue;
			put(buf, len, &off, es_hide_list[i].flags &
			    ES_HIDE_KEEP ? "#\tkept readable: " :
			    es_hide_list[i].flags & ES_HIDE_IFSECRET ?
			    "#\tif it holds a credential: " : "#\t");
			put(buf, len, &off, es_hide_list[i].path);
			put(buf, len, &off, "\n");
		}
	}
	if (buf == NULL)
		return (long)off;
	if (len > 0)
		buf[off < len ? off : len - 1] = '\0';
	return off < len ? (long)off : -1;
}

/*
 * What the agents hand through their temp directory needs no entry: it
 * is the session's (Claude Code's cwd file, Gemini CLI's and Qwen Code's
 * bgpids and pwd files, pi's output log); Codex writes its shell
 * snapshot itself from the shell's output, and opencode has none.
 */
const struct es_agent_state es_agent_state[] = {
	{ "~/.claude/shell-snapshots", "Claude Code: the shell snapshot its "
	    "first shell writes and every later one sources" },
	{ "~/.claude/session-env", "Claude Code: the exports its SessionStart, "
	    "Setup, CwdChanged and FileChanged hooks write to CLAUDE_ENV_FILE "
	    "(session-env/SESSION/EVENT-hook-N.sh), which it applies to every "
	    "later Bash command" },
};
const size_t es_agent_nstate = sizeof(es_agent_state) / sizeof(es_agent_state[0]);
