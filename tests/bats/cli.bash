# Shared setup for the envshim command's bats files: the built binary and a
# private HOME, so the user's own ~/.config/envshim/policy never leaks in.
ENVSHIM="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/envshim"
# shellcheck source=leftovers.bash
source "$(dirname "${BASH_SOURCE[0]}")/leftovers.bash"

cli_setup() {
	[ -x "$ENVSHIM" ] || { echo "build/envshim missing: run make" >&2; return 1; }
	export HOME="$BATS_TEST_TMPDIR/home"
	export XDG_CONFIG_HOME="$HOME/.config"
	mkdir -p "$XDG_CONFIG_HOME"
	unset ENVSHIM_POLICY ENVSHIM_MODE NO_COLOR
}

# A policy file with safe permissions: policy NAME < text
policy_file() {
	cat > "$BATS_TEST_TMPDIR/$1"
	chmod 600 "$BATS_TEST_TMPDIR/$1"
	echo "$BATS_TEST_TMPDIR/$1"
}
