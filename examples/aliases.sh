# aliases.sh - run popular AI agents under envshim.  Source it from
# ~/.bashrc or ~/.zshrc:
#
#	. /usr/local/share/doc/envshim/examples/aliases.sh
#
# Each alias starts the agent with libenvshim.so preloaded: the agent keeps
# its API key, the commands it runs lose it, and its shells run in
# envshim-sandbox.  `command claude` (or `\claude`) still runs the agent
# without envshim.  Add --policy FILE after envshim for a stricter policy,
# or --audit to try envshim without changing anything.

# Claude Code: a dynamically linked program (Bun); it starts bash for every
# tool call, so every tool call is sandboxed.
alias claude='envshim -- claude'

# Gemini CLI: node.  It re-launches itself once, and the re-launched copy
# keeps GEMINI_API_KEY (envshim recognises the agent's own executable).
alias gemini='envshim -- gemini'

# aider: python.  Its /run and /test commands go through a shell.
alias aider='envshim -- aider'

# opencode: started like the others.  If envshim refuses it with exit 125
# ("is statically linked"), the build you have cannot take LD_PRELOAD;
# use contain mode as for codex below.
alias opencode='envshim -- opencode'

# Codex CLI: `codex` is a node launcher that hands itself over to a
# statically linked (musl) binary of its platform package, which
# LD_PRELOAD cannot enter, and Codex deletes every LD_* variable at start.
# envshim sees that and runs it in contain mode by itself (one line on
# stderr says so): in a user + mount namespace /etc/ld.so.preload names
# the shim, so every dynamically linked program Codex starts loads it
# whatever its environment, filters itself before main, and shells go to
# the sandbox.  Codex keeps its own key.
alias codex='envshim -- codex'

# Qwen Code: node.  cli-entry.js re-launches `node --expose-gc cli.js`, a
# hand-over to another file of its own package: it keeps OPENAI_API_KEY.
alias qwen='envshim -- qwen'

# Copilot CLI: a node loader that starts the native binary of its platform
# package (@github/copilot-linux-x64), another hand-over.
alias copilot='envshim -- copilot'
