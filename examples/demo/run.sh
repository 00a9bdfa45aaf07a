#!/bin/sh
# run.sh BUILD - the body of `make demo`: runs examples/demo/agent twice,
# without envshim and under it with the built-in policy, and shows side by
# side what the agent's tools could do, then `envshim log`.
#
# Everything happens in a throwaway HOME and XDG_STATE_HOME under
# BUILD/demo: the user's real files, policy and log are never touched.
# As root the agent runs as nobody (65534): root reads every process's
# /proc files whatever they say, so the demo would show root, not envshim.
set -eu

B=${1:-build}
B=$(cd "$B" && pwd)
D=$B/demo
ENVSHIM=$B/envshim
AGENT=$B/demo/agent
AS=""
if [ "$(id -u)" = 0 ]; then
	AS="setpriv --reuid=65534 --regid=65534 --clear-groups"
	# nobody must reach the binaries; a checkout under /root is private
	if ! $AS test -x "$ENVSHIM" -a -x "$AGENT" 2>/dev/null; then
		D=$(mktemp -d "${TMPDIR:-/tmp}/envshim-demo.XXXXXX")
		chmod 755 "$D"
		mkdir "$D/bin"
		cp "$B/envshim" "$B/libenvshim.so" "$B/envshim-sandbox" \
		    "$B/demo/agent" "$D/bin/"
		chmod -R a+rX "$D/bin"
		ENVSHIM=$D/bin/envshim
		AGENT=$D/bin/agent
		echo "(the build is not readable by nobody: staged in $D)"
	fi
fi

# A fresh fake home: an ssh key to steal, a .bashrc to poison, and the
# file an injected BASH_ENV points at.
fresh() {
	rm -rf "$D/home" "$D/work" "$D/state"
	mkdir -p "$D/home/.ssh" "$D/work" "$D/state"
	printf '%s\n' '-----BEGIN OPENSSH PRIVATE KEY-----' \
	    'ZmFrZSBrZXkgZm9yIHRoZSBlbnZzaGltIGRlbW8K' \
	    '-----END OPENSSH PRIVATE KEY-----' >"$D/home/.ssh/id_ed25519"
	chmod 700 "$D/home/.ssh"
	chmod 600 "$D/home/.ssh/id_ed25519"
	echo '# demo .bashrc' >"$D/home/.bashrc"
	echo 'echo BASH_ENV_RAN' >"$D/home/evil.sh"
	if [ -n "$AS" ]; then
		chown -R 65534:65534 "$D/home" "$D/work" "$D/state"
	fi
}

# agent [WRAPPER...]: the agent in its workspace, in a clean environment
# holding what real agents hold.  Values are shaped like real ones.
agent() {
	(cd "$D/work" && $AS env -i HOME="$D/home" XDG_STATE_HOME="$D/state" \
	    PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 TERM=dumb \
	    ANTHROPIC_API_KEY=sk-ant-api03-demo0demo0demo0demo0demo0demo0 \
	    GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 \
	    NODE_OPTIONS='--require /tmp/evil.js' \
	    "$@" "$AGENT")
}

fresh
agent >"$D/without.txt" 2>"$D/without.err" || true
fresh
agent "$ENVSHIM" -- >"$D/with.txt" 2>"$D/with.err" || true

echo
echo "envshim demo: one agent, the same tools, without and with envshim"
echo
awk -F '\t' -v with="$D/with.txt" '
BEGIN {
	label["agent-key"] = "the agent holds its API key"
	label["relaunch-key"] = "its re-launched copy still has the key"
	label["shell-secrets"] = "bash -c env: secrets"
	label["shell-injection"] = "bash -c env: injection variables"
	label["bash-env-ran"] = "BASH_ENV set by the agent runs code"
	label["proc-parent"] = "bash: cat /proc/$PPID/environ"
	label["proc-agent"] = "cat /proc/<agent pid>/environ"
	label["ssh-shell"] = "bash: cat ~/.ssh/id_ed25519"
	label["bashrc"] = "bash: echo ... >> ~/.bashrc"
	label["ld-preload"] = "LD_PRELOAD=/tmp/evil.so for a child"
	label["tool-secrets"] = "env (not a shell): secrets"
	label["ssh-direct"] = "cat ~/.ssh/id_ed25519 (not a shell)"
	while ((getline line < with) > 0) {
		split(line, f, "\t")
		w[f[1]] = f[2]
	}
	printf "%-40s %-31s %s\n", "WHAT THE AGENT TRIED", "WITHOUT ENVSHIM", "WITH ENVSHIM"
}
{
	printf "%-40s %-31s %s\n", ($1 in label ? label[$1] : $1), $2, \
	    ($1 in w ? w[$1] : "(no answer)")
}' "$D/without.txt"
echo
echo "Every program the agent starts runs in the sandbox, not only shells: what"
echo "it runs itself (git status, a tool on PATH) could run a file its shells"
echo "wrote.  What envshim does not stop: docs/threat-model.md."
if [ -s "$D/with.err" ]; then
	echo "    Under envshim the agent's stderr said:"
	sed 's/^/    /' "$D/with.err"
fi
echo
echo "envshim log $D/state/envshim/audit.jsonl"
echo
"$ENVSHIM" log "$D/state/envshim/audit.jsonl"
