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
 */
#include <string.h>

#include "es_hide.h"

enum {
	G_AGENTS, G_HISTORY, G_GIT, G_REGISTRIES, G_INFRA, G_CLOUDS,
	G_DATABASES, G_KEYRINGS, G_BROWSERS, G_APPS, G_KEYS, G_TOKENS,
	G_MAIL, G_SYSTEM
};

const struct es_hide_group es_hide_groups[] = {
	[G_AGENTS] = { "agents", "agent CLIs' logins, API keys, MCP server "
	    "env blocks and transcripts; their shell plumbing stays" },
	[G_HISTORY] = { "history", "shell and tool history and dotenv files: "
	    "typed and exported secrets" },
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
	[G_APPS] = { "apps", "chat app sessions and IDE secret stores" },
	[G_KEYS] = { "keys", "private keys and certificates; ssh keeps "
	    "known_hosts and config" },
	[G_TOKENS] = { "tokens", "ML hub and tunnel tokens" },
	[G_MAIL] = { "mail", "mail, SMB and WebDAV passwords" },
	[G_SYSTEM] = { "system", "systemd credentials" }
};
const size_t es_hide_ngroups = sizeof(es_hide_groups) /
    sizeof(es_hide_groups[0]);

#define E(p, g)	{ p, g, 0 }
#define KEEP(p, g) { p, g, ES_HIDE_KEEP }

const struct es_hide_entry es_hide_list[] = {
	/* Claude Code: shell-snapshots/ and session-env/ stay */
	E("~/.claude/.credentials.json", G_AGENTS),
	E("$CLAUDE_CONFIG_DIR/.credentials.json", G_AGENTS),
	E("~/.claude.json", G_AGENTS),
	E("~/.claude.json.backup*", G_AGENTS),
	E("$CLAUDE_CONFIG_DIR/.claude.json", G_AGENTS),
	E("~/.claude/backups/", G_AGENTS),
	E("~/.claude/history.jsonl", G_AGENTS),
	E("~/.claude/projects/", G_AGENTS),
	E("$CLAUDE_CONFIG_DIR/history.jsonl", G_AGENTS),
	E("$CLAUDE_CONFIG_DIR/projects/", G_AGENTS),
	/* Codex: tmp/ (apply_patch on PATH) and shell_snapshots/ stay */
	E("~/.codex/auth.json", G_AGENTS),
	E("~/.codex/.credentials.json", G_AGENTS),
	E("~/.codex/.env", G_AGENTS),
	E("~/.codex/history.jsonl", G_AGENTS),
	E("~/.codex/sessions/", G_AGENTS),
	E("$CODEX_HOME/auth.json", G_AGENTS),
	E("$CODEX_HOME/.credentials.json", G_AGENTS),
	E("$CODEX_HOME/.env", G_AGENTS),
	E("$CODEX_HOME/history.jsonl", G_AGENTS),
	E("$CODEX_HOME/sessions/", G_AGENTS),
	/* Gemini CLI, Qwen Code */
	E("~/.gemini/oauth_creds.json", G_AGENTS),
	E("~/.gemini/gemini-credentials.json", G_AGENTS),
	E("~/.gemini/*oauth-tokens*.json", G_AGENTS),
	E("~/.gemini/google_accounts.json", G_AGENTS),
	E("~/.gemini/.env", G_AGENTS),
	/* Qwen's /auth writes the provider key into settings.json's env */
	E("~/.qwen/oauth_creds.json", G_AGENTS),
	E("~/.qwen/mcp-oauth-tokens.json", G_AGENTS),
	E("~/.qwen/.env", G_AGENTS),
	E("~/.qwen/settings.json", G_AGENTS),
	E("$QWEN_HOME/oauth_creds.json", G_AGENTS),
	E("$QWEN_HOME/mcp-oauth-tokens.json", G_AGENTS),
	E("$QWEN_HOME/.env", G_AGENTS),
	E("$QWEN_HOME/settings.json", G_AGENTS),
	/* Copilot, opencode, crush, pi, openclaw, aider, goose, ... */
	E("~/.copilot/config.json", G_AGENTS),
	E("$COPILOT_HOME/config.json", G_AGENTS),
	E("~/.config/github-copilot/", G_AGENTS),
	E("~/.local/share/opencode/auth.json", G_AGENTS),
	E("~/.local/share/opencode/mcp-auth.json", G_AGENTS),
	E("$XDG_DATA_HOME/opencode/auth.json", G_AGENTS),
	E("$XDG_DATA_HOME/opencode/mcp-auth.json", G_AGENTS),
	E("~/.local/share/crush/crush.json", G_AGENTS),
	E("~/.pi/agent/auth.json", G_AGENTS),
	E("~/.pi/agent/models.json", G_AGENTS),
	E("$PI_CODING_AGENT_DIR/auth.json", G_AGENTS),
	E("$PI_CODING_AGENT_DIR/models.json", G_AGENTS),
	/* openclaw: SQLite auth stores since 2026.9; the JSON ones before */
	E("~/.openclaw/credentials/", G_AGENTS),
	E("~/.openclaw/agents/*/agent/auth*.json", G_AGENTS),
	E("~/.openclaw/agents/*/agent/openclaw-agent.sqlite*", G_AGENTS),
	E("~/.openclaw/state/openclaw*.sqlite*", G_AGENTS),
	E("$OPENCLAW_STATE_DIR/agents/*/agent/openclaw-agent.sqlite*", G_AGENTS),
	E("$OPENCLAW_STATE_DIR/state/openclaw*.sqlite*", G_AGENTS),
	E("~/.aider/oauth-keys.env", G_AGENTS),
	E("~/.config/goose/secrets.yaml", G_AGENTS),
	E("~/.config/cursor/auth.json", G_AGENTS),
	E("~/.cursor/auth.json", G_AGENTS),
	E("~/.local/share/amp/secrets.json", G_AGENTS),
	E("~/.local/share/kilo/auth.json", G_AGENTS),
	E("~/.cline/data/secrets.json", G_AGENTS),
	E("~/.augment/session.json", G_AGENTS),
	E("~/.continue/.env", G_AGENTS),

	E("~/.*_history", G_HISTORY),
	E("~/.*_history_*", G_HISTORY),
	E("~/.local/share/fish/fish_history", G_HISTORY),
	E("~/.histfile", G_HISTORY),
	E("~/.history", G_HISTORY),
	E("~/.lesshst", G_HISTORY),
	E("~/.viminfo", G_HISTORY),
	E("~/.env", G_HISTORY),

	E("~/.git-credentials", G_GIT),
	E("~/.config/git/credentials", G_GIT),
	E("$XDG_CONFIG_HOME/git/credentials", G_GIT),
	E("~/.git-credential-cache/", G_GIT),
	E("~/.cache/git/credential/", G_GIT),
	E("~/.config/gh/", G_GIT),
	E("$XDG_CONFIG_HOME/gh/", G_GIT),
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

	E("~/.docker/", G_INFRA),
	E("~/.config/containers/auth.json", G_INFRA),
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
	E("~/.vault-token", G_INFRA),
	E("~/.pulumi/credentials.json", G_INFRA),

	E("~/.aws/", G_CLOUDS),
	E("~/.config/gcloud/", G_CLOUDS),
	E("$CLOUDSDK_CONFIG", G_CLOUDS),
	E("~/.azure/", G_CLOUDS),
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
			    ES_HIDE_KEEP ? "#\tkept readable: " : "#\t");
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
