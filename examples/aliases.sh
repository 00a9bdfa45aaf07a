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
# use the sandbox form shown for codex below.
alias opencode='envshim -- opencode'

# Codex CLI: `codex` is a node launcher that starts a statically linked
# (musl) binary, which LD_PRELOAD cannot enter.  Under `envshim -- codex`
# the shim sees that binary as unfollowable and, by default, runs it inside
# envshim-sandbox with the tool filter - which drops OPENAI_API_KEY, since
# the binary is not the agent's own executable.  envshim's contain mode,
# meant for such agents, does not exist yet.  Until then run the binary
# inside the sandbox yourself: the file system rules then cover everything
# it starts, the variable filter does not, so also set Codex's own
# shell_environment_policy (inherit = "core") in ~/.codex/config.toml.
# Codex writes under ~/.codex, so the sandbox must leave it writable: put
# "rw ~/.codex" in ~/.config/envshim/codex.policy (mode 600).
alias codex='/usr/local/libexec/envshim/envshim-sandbox --policy ~/.config/envshim/codex.policy -- codex'
