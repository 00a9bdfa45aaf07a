#!/usr/bin/env bats
# Policy files on disk: who may write them, what they may be, how layers
# stack, and "envshim policy" showing the result.

bats_require_minimum_version 1.5.0
load ../cli

setup() {
	cli_setup
}

teardown() {
	[ -z "${SHARED:-}" ] || rm -rf "$SHARED"
}

@test "a world-writable policy is refused" {
	p=$(policy_file p <<<'drop FOO')
	chmod 606 "$p"
	run -125 "$ENVSHIM" policy --policy "$p"
	[ "$output" = "envshim: $p: refused: writable by group or others (chmod go-w)" ]
}

@test "a group-writable policy is refused" {
	p=$(policy_file p <<<'drop FOO')
	chmod 620 "$p"
	run -125 "$ENVSHIM" check --policy "$p" -- FOO=1
	[[ "$output" == *"refused: writable by group or others"* ]]
}

@test "a group-writable ~/.config policy is refused too" {
	mkdir -p "$XDG_CONFIG_HOME/envshim"
	echo 'drop FOO' > "$XDG_CONFIG_HOME/envshim/policy"
	chmod 660 "$XDG_CONFIG_HOME/envshim/policy"
	run -125 "$ENVSHIM" policy
	[ "$output" = "envshim: $XDG_CONFIG_HOME/envshim/policy: refused: writable by group or others (chmod go-w)" ]
}

@test "a policy linked into the user's dotfiles is read: stow, chezmoi, home-manager" {
	# stow: ~/.config/envshim is a link to a directory of the dotfiles
	mkdir -p "$HOME/dotfiles/envshim/.config/envshim"
	printf 'drop STOWED\n' >"$HOME/dotfiles/envshim/.config/envshim/policy"
	chmod 600 "$HOME/dotfiles/envshim/.config/envshim/policy"
	ln -s ../dotfiles/envshim/.config/envshim "$XDG_CONFIG_HOME/envshim"
	run -0 "$ENVSHIM" policy
	grep -q "^drop STOWED" <<<"$output"
	rm "$XDG_CONFIG_HOME/envshim"
	# home-manager: a chain of links into a store root owns
	mkdir -p "$BATS_TEST_TMPDIR/store/a-policy" "$BATS_TEST_TMPDIR/store/b-files/envshim"
	printf 'drop MANAGED\n' >"$BATS_TEST_TMPDIR/store/a-policy/policy"
	chmod 444 "$BATS_TEST_TMPDIR/store/a-policy/policy"
	ln -s ../../a-policy/policy "$BATS_TEST_TMPDIR/store/b-files/envshim/policy"
	chmod 1775 "$BATS_TEST_TMPDIR/store"
	mkdir -p "$XDG_CONFIG_HOME/envshim"
	ln -s "$BATS_TEST_TMPDIR/store/b-files/envshim/policy" "$XDG_CONFIG_HOME/envshim/policy"
	run -0 "$ENVSHIM" policy
	grep -q "^drop MANAGED" <<<"$output"
	# a named link, as --policy gets it
	run -0 "$ENVSHIM" policy --policy "$XDG_CONFIG_HOME/envshim/policy"
	grep -q "^drop MANAGED" <<<"$output"
}

@test "a linked policy is refused when a directory on the way, or the target, is open to others" {
	p=$(policy_file real <<<'drop FOO')
	# the link in a directory anyone may write: anyone could point it
	mkdir -m 777 "$BATS_TEST_TMPDIR/open"
	ln -s "$p" "$BATS_TEST_TMPDIR/open/link"
	run -125 "$ENVSHIM" policy --policy "$BATS_TEST_TMPDIR/open/link"
	[ "$output" = "envshim: $BATS_TEST_TMPDIR/open/link: refused: $BATS_TEST_TMPDIR/open is writable by group or others (chmod go-w $BATS_TEST_TMPDIR/open)" ]
	# the target in one: anyone could replace it
	mkdir -m 775 "$BATS_TEST_TMPDIR/grp"
	mv "$p" "$BATS_TEST_TMPDIR/grp/real"
	ln -s "$BATS_TEST_TMPDIR/grp/real" "$BATS_TEST_TMPDIR/link"
	run -125 "$ENVSHIM" policy --policy "$BATS_TEST_TMPDIR/link"
	[ "$output" = "envshim: $BATS_TEST_TMPDIR/link: refused: $BATS_TEST_TMPDIR/grp is writable by group or others (chmod go-w $BATS_TEST_TMPDIR/grp)" ]
	# the target itself
	chmod 755 "$BATS_TEST_TMPDIR/grp"
	chmod 666 "$BATS_TEST_TMPDIR/grp/real"
	run -125 "$ENVSHIM" policy --policy "$BATS_TEST_TMPDIR/link"
	[ "$output" = "envshim: $BATS_TEST_TMPDIR/link: refused: writable by group or others (chmod go-w)" ]
}

@test "a world-writable ~/.config/envshim is refused, and so is an agent started under it" {
	mkdir -p "$XDG_CONFIG_HOME/envshim"
	printf 'drop FOO\n' >"$XDG_CONFIG_HOME/envshim/policy"
	chmod 600 "$XDG_CONFIG_HOME/envshim/policy"
	chmod 777 "$XDG_CONFIG_HOME/envshim"
	run -125 "$ENVSHIM" policy
	[ "$output" = "envshim: $XDG_CONFIG_HOME/envshim/policy: refused: $XDG_CONFIG_HOME/envshim is writable by group or others (chmod go-w $XDG_CONFIG_HOME/envshim)" ]
	run -125 "$ENVSHIM" -- touch "$BATS_TEST_TMPDIR/ran"
	[ ! -e "$BATS_TEST_TMPDIR/ran" ]
	# no file there, no layer: what could be planted later is refused then
	rm "$XDG_CONFIG_HOME/envshim/policy"
	run -0 "$ENVSHIM" policy
}

@test "a directory or a FIFO is refused, not read" {
	mkdir "$BATS_TEST_TMPDIR/dir"
	run -125 "$ENVSHIM" policy --policy "$BATS_TEST_TMPDIR/dir"
	[[ "$output" == *"refused: not a regular file" ]]
	mkfifo -m 600 "$BATS_TEST_TMPDIR/fifo"
	run -125 timeout 10 "$ENVSHIM" policy --policy "$BATS_TEST_TMPDIR/fifo"
	[[ "$output" == *"refused: not a regular file" ]]
}

@test "a policy owned by another user is refused" {
	[ "$(id -u)" = 0 ] || skip "needs root to chown"
	p=$(policy_file p <<<'drop FOO')
	chown 65534:65534 "$p"
	run -125 "$ENVSHIM" policy --policy "$p"
	[ "$output" = "envshim: $p: refused: owned by another user (must be yours or root's)" ]
}

@test "as another user: root's and one's own policy are accepted, a third user's is not" {
	[ "$(id -u)" = 0 ] || skip "needs root to switch users"
	command -v setpriv >/dev/null || skip "setpriv not installed"
	SHARED=$(mktemp -d)
	chmod 755 "$SHARED"
	mkdir -m 755 "$SHARED/home"
	chown 65534:65534 "$SHARED/home"
	printf 'drop FOO\n' > "$SHARED/root.policy"
	chmod 644 "$SHARED/root.policy"
	printf 'drop BAR\n' > "$SHARED/own.policy"
	chown 65534:65534 "$SHARED/own.policy"
	chmod 644 "$SHARED/own.policy"
	printf 'drop BAZ\n' > "$SHARED/other.policy"
	chown 65533:65533 "$SHARED/other.policy"
	chmod 644 "$SHARED/other.policy"
	as_nobody() {
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		    env HOME="$SHARED/home" XDG_CONFIG_HOME= "$@"
	}
	run -0 as_nobody "$ENVSHIM" check --policy "$SHARED/root.policy" --format=tsv -- FOO=1
	[ "$output" = "$(printf 'drop\tFOO\tpolicy')" ]
	run -0 as_nobody "$ENVSHIM" check --policy "$SHARED/own.policy" --format=tsv -- BAR=1
	[ "$output" = "$(printf 'drop\tBAR\tpolicy')" ]
	run -125 as_nobody "$ENVSHIM" check --policy "$SHARED/other.policy" -- BAZ=1
	[[ "$output" == *"refused: owned by another user"* ]]
}

@test "a syntax error names file and line, and what is wrong" {
	p=$(policy_file bad <<'P'
mode audit
# comment

mode strict
P
)
	run -125 "$ENVSHIM" policy --policy "$p"
	[ "$output" = "envshim: $p:4: mode takes enforce or audit" ]
	p=$(policy_file bad2 <<<'set EDITOR')
	run -125 "$ENVSHIM" policy --policy "$p"
	[ "$output" = "envshim: $p:1: set needs NAME=VALUE" ]
}

@test "a missing named file is an error, missing optional layers are not" {
	run -125 "$ENVSHIM" policy --policy "$BATS_TEST_TMPDIR/none"
	[ "$output" = "envshim: $BATS_TEST_TMPDIR/none: cannot open: No such file or directory" ]
	rm -rf "$XDG_CONFIG_HOME"
	run -0 "$ENVSHIM" policy
}

@test "a policy larger than 65536 bytes is refused" {
	head -c 65537 /dev/zero | tr '\0' '#' > "$BATS_TEST_TMPDIR/big"
	chmod 600 "$BATS_TEST_TMPDIR/big"
	run -125 "$ENVSHIM" policy --policy "$BATS_TEST_TMPDIR/big"
	[[ "$output" == *"refused: larger than 65536 bytes" ]]
	truncate -s 65536 "$BATS_TEST_TMPDIR/big"
	run -0 "$ENVSHIM" policy --policy "$BATS_TEST_TMPDIR/big"
}

@test "layers stack: ~/.config, then --policy; each line shows its origin" {
	mkdir -p "$XDG_CONFIG_HOME/envshim"
	printf 'mode audit\ndrop FOO\n' > "$XDG_CONFIG_HOME/envshim/policy"
	chmod 600 "$XDG_CONFIG_HOME/envshim/policy"
	p=$(policy_file p <<'P'
# the user's file
mode enforce
keep FOO
P
)
	run -0 "$ENVSHIM" policy --policy "$p"
	u="$XDG_CONFIG_HOME/envshim/policy"
	[[ "${lines[0]}" == "# effective envshim policy; layers: builtin"*" $u $p" ]]
	[ "${lines[1]}" = "mode enforce	# $p:2" ]
	[ "${lines[2]}" = "sandbox all	# builtin" ]
	[ "${lines[6]}" = "home visible	# builtin" ]
	[ "${lines[7]}" = "home-layer session	# builtin" ]
	[ "${lines[8]}" = "log-required no	# builtin" ]
	[ "${lines[9]}" = "drop FOO	# $u:2" ]
	[ "${lines[10]}" = "keep FOO	# $p:3" ]
	[ "${#lines[@]}" -eq 12 ]
	# Last match wins: the later keep beats the earlier drop.
	run -0 "$ENVSHIM" check --policy "$p" --format=tsv -- FOO=1
	[ "$output" = "$(printf 'keep\tFOO\tpolicy')" ]
}

@test "without XDG_CONFIG_HOME the layer is ~/.config/envshim/policy" {
	unset XDG_CONFIG_HOME
	mkdir -p "$HOME/.config/envshim"
	printf 'drop FOO\n' > "$HOME/.config/envshim/policy"
	chmod 600 "$HOME/.config/envshim/policy"
	run -0 "$ENVSHIM" check --format=tsv -- FOO=1
	[ "$output" = "$(printf 'drop\tFOO\tpolicy')" ]
}

@test "envshim policy output is itself a policy that reads back the same" {
	p=$(policy_file p <<'P'
mode audit
sandbox optional
set "PS1= $ "
secret-value "tok #1"
hide .env
rw ~/.cache
drop AWS_*
P
)
	run -0 "$ENVSHIM" policy --policy "$p"
	first=$(grep -v '^#' <<<"$output" | sed 's/\t# .*//')
	printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/again"
	chmod 600 "$BATS_TEST_TMPDIR/again"
	run -0 "$ENVSHIM" policy --policy "$BATS_TEST_TMPDIR/again"
	second=$(grep -v '^#' <<<"$output" | sed 's/\t# .*//')
	[ "$first" = "$second" ]
	[[ "$first" == *'set "PS1= $ "'* ]]
}

@test "policy with no layers shows the builtin settings, and where the lists are" {
	run -0 "$ENVSHIM" policy
	[ "${lines[1]}" = "mode enforce	# builtin" ]
	[ "${lines[2]}" = "sandbox all	# builtin" ]
	[ "${lines[3]}" = "network on	# builtin" ]
	[ "${lines[4]}" = "unfollowable sandbox	# builtin" ]
	[ "${lines[5]}" = "protect-self yes	# builtin" ]
	[ "${lines[6]}" = "home visible	# builtin" ]
	[ "${lines[7]}" = "home-layer session	# builtin" ]
	[ "${lines[8]}" = "log-required no	# builtin" ]
	[ "${lines[9]}" = "# and the builtin lists (injection, secret names and shapes, capabilities, hidden files): envshim policy --builtin" ]
	[ "${#lines[@]}" -eq 10 ]
	run -125 "$ENVSHIM" policy extra
}

@test "policy shows a program rule with its line, and reads it back" {
	p=$(policy_file p <<'P'
keep HARMLESS
program npx -y @modelcontextprotocol/server-github keep GITHUB_PERSONAL_ACCESS_TOKEN
program npx -y @modelcontextprotocol/server-github keep GITHUB_HOST
P
)
	run -0 "$ENVSHIM" policy --policy "$p"
	grep -qx "program npx -y @modelcontextprotocol/server-github keep GITHUB_PERSONAL_ACCESS_TOKEN	# $p:2" <<<"$output"
	grep -qx "program npx -y @modelcontextprotocol/server-github keep GITHUB_HOST	# $p:3" <<<"$output"
	printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/again"
	chmod 600 "$BATS_TEST_TMPDIR/again"
	run -0 "$ENVSHIM" check --policy "$BATS_TEST_TMPDIR/again" --format=tsv \
		--program npx -y @modelcontextprotocol/server-github -- GITHUB_HOST=x
	[ "$output" = "$(printf 'keep\tGITHUB_HOST\tprogram')" ]
}

@test "policy names the file and line of a program rule naming a shell" {
	p=$(policy_file p <<'P'
keep HARMLESS
program dash -c serve keep TOKEN
P
)
	run -125 "$ENVSHIM" policy --policy "$p"
	[[ "$output" == *"$p:2: program: dash is a shell, and a shell runs whatever it is told; name the program it starts"* ]]
}

@test "policy --builtin adds the compiled-in lists, and still reads back" {
	run -0 "$ENVSHIM" policy --builtin
	grep -qx 'injection LD_\*	# builtin' <<<"$output"
	grep -q '^secret-name GITHUB_TOKEN	# builtin' <<<"$output"
	printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/all"
	chmod 600 "$BATS_TEST_TMPDIR/all"
	run -0 "$ENVSHIM" policy --policy "$BATS_TEST_TMPDIR/all"
}
