#!/usr/bin/env bats
# envshim check: one verdict per variable, and never a value.

bats_require_minimum_version 1.5.0
load ../cli

setup() {
	cli_setup
}

@test "tsv is exactly action, name and reason per input variable" {
	run -0 "$ENVSHIM" check --format=tsv -- HOME=/home/u \
	    GITHUB_TOKEN=ghp_notreal LD_PRELOAD=/tmp/x.so \
	    PATH=/usr/bin:.:/bin FOO=bar
	[ "$output" = "$(printf '%s\t%s\t%s\n' \
	    keep HOME safe \
	    drop GITHUB_TOKEN secret-name \
	    drop LD_PRELOAD injection \
	    rewrite PATH normalised \
	    keep FOO default)" ]
}

@test "tsv without -- lists the environment it runs in" {
	run -0 env -i FOO=1 MY_API_KEY=x "$ENVSHIM" check --format=tsv
	[ "$output" = "$(printf 'keep\tFOO\tdefault\ndrop\tMY_API_KEY\tsecret-name')" ]
}

@test "check -- with no words checks nothing" {
	run -0 "$ENVSHIM" check --format=tsv --
	[ -z "$output" ]
}

@test "no format ever prints a value, dropped or kept" {
	local f vals="ghp_0123456789abcdefghijABCDEFGHIJ0123 sekrit-db-pw-77 plainvalue-kept-31 /opt/value/path-52"
	for f in table tsv json; do
		run -0 "$ENVSHIM" check --format=$f -- \
		    GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ0123 \
		    DB_PASSWORD=sekrit-db-pw-77 FOO=plainvalue-kept-31 \
		    PATH=/opt/value/path-52:. \
		    "URL=https://u:sekrit-db-pw-77@example.com/"
		for v in $vals; do
			if grep -qF -- "$v" <<<"$output"; then
				echo "format $f printed $v: $output"
				return 1
			fi
		done
		grep -q DB_PASSWORD <<<"$output"
	done
	# The same from the environment, the default input.
	run -0 env GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ0123 \
	    FOO=plainvalue-kept-31 "$ENVSHIM" check
	grep -q GITHUB_TOKEN <<<"$output"
	grep -qw FOO <<<"$output"
	run ! grep -qF -e ghp_0123456789abcdefghij -e plainvalue-kept <<<"$output"
}

@test "json is one valid array with an entry per input" {
	run -0 "$ENVSHIM" check --format=json -- 'A=1' 'QUOTE"NAME=2' \
	    GITHUB_TOKEN=x
	python3 -c '
import json, sys
a = json.loads(sys.stdin.read())
assert [e["name"] for e in a] == ["A", "QUOTE\"NAME", "GITHUB_TOKEN"], a
assert a[2] == {"action": "drop", "name": "GITHUB_TOKEN", "reason": "secret-name"}, a
' <<<"$output"
}

@test "odd names are escaped, not printed raw" {
	run -0 "$ENVSHIM" check --format=tsv -- "$(printf 'A\tB=1')" \
	    "$(printf 'C\nD=2')"
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" == *"A\\x09B"* ]]
	[[ "${lines[1]}" == *"C\\x0aD"* ]]
}

@test "table is aligned and ends with a summary" {
	run -0 "$ENVSHIM" check -- HOME=/h GITHUB_TOKEN=x
	[ "${lines[0]}" = "ACTION   NAME         REASON" ]
	[ "${lines[1]}" = "keep     HOME         safe" ]
	[ "${lines[2]}" = "drop     GITHUB_TOKEN secret-name" ]
	[ "${lines[3]}" = "2 variables: 1 kept, 1 dropped, 0 rewritten" ]
}

@test "table has colour on a terminal, none with NO_COLOR or in a pipe" {
	command -v script >/dev/null || skip "script(1) not installed"
	run -0 script -qec "'$ENVSHIM' check -- GITHUB_TOKEN=x" /dev/null
	[[ "$output" == *$'\033['* ]]
	run -0 env NO_COLOR=1 script -qec "'$ENVSHIM' check -- GITHUB_TOKEN=x" /dev/null
	[[ "$output" != *$'\033'* ]]
	[[ "$output" == *GITHUB_TOKEN* ]]
	run -0 "$ENVSHIM" check -- GITHUB_TOKEN=x
	[[ "$output" != *$'\033'* ]]
	[[ "$output" == *GITHUB_TOKEN* ]]
}

@test "a policy rule changes the verdict and the reason" {
	p=$(policy_file p <<'P'
drop FOO
keep GITHUB_TOKEN
P
)
	run -0 "$ENVSHIM" check --policy "$p" --format=tsv -- FOO=1 GITHUB_TOKEN=x
	[ "$output" = "$(printf 'drop\tFOO\tpolicy\nkeep\tGITHUB_TOKEN\tpolicy')" ]
}

@test "ENVSHIM_POLICY names the policy file when --policy does not" {
	p=$(policy_file p <<<'drop FOO')
	ENVSHIM_POLICY="$p" run -0 "$ENVSHIM" check --format=tsv -- FOO=1
	[ "$output" = "$(printf 'drop\tFOO\tpolicy')" ]
}

@test "a bad policy exits 125 and names file and line" {
	p=$(policy_file bad <<'P'
# fine
drop A

dorp B
P
)
	run -125 "$ENVSHIM" check --policy "$p" -- A=1
	[ "$output" = "envshim: $p:4: unknown keyword 'dorp'" ]
}

@test "usage mistakes exit 125" {
	run -125 "$ENVSHIM" check --format=xml -- A=1
	[[ "$output" == *"--format takes table, tsv or json"* ]]
	run -125 "$ENVSHIM" check A=1
	[[ "$output" == *"put variables after --"* ]]
	run -125 "$ENVSHIM" check --nonsense
}

@test "check --program shows what the agent's launch of that program keeps, and which rule" {
	p=$(policy_file p <<'P'
keep HARMLESS
program npx -y @modelcontextprotocol/server-github keep GITHUB_PERSONAL_ACCESS_TOKEN
P
)
	run -0 "$ENVSHIM" check --policy "$p" --program npx -y @modelcontextprotocol/server-github \
		-- GITHUB_PERSONAL_ACCESS_TOKEN=ghp_0123456789abcdefghijklmnopqrstuvwxyzAB GITHUB_TOKEN=x
	[ "${lines[0]}" = "program rule $p:2 matches npx" ]
	grep -qE '^keep +GITHUB_PERSONAL_ACCESS_TOKEN program$' <<<"$output"
	grep -qE '^drop +GITHUB_TOKEN +secret-name$' <<<"$output"
	[[ "$output" != *ghp_* ]]
	# Another package, and a shell: the usual filter.
	run -0 "$ENVSHIM" check --policy "$p" --format=tsv --program npx -y other \
		-- GITHUB_PERSONAL_ACCESS_TOKEN=x
	[ "$output" = "$(printf 'drop\tGITHUB_PERSONAL_ACCESS_TOKEN\tsecret-name')" ]
	run -0 "$ENVSHIM" check --policy "$p" --program sh -c npx -- GITHUB_PERSONAL_ACCESS_TOKEN=x
	[ "${lines[0]}" = "sh is a shell: no program rule applies to a shell" ]
	run -125 "$ENVSHIM" check --policy "$p" --program
	[[ "$output" == *"--program needs a command"* ]]
	run -125 "$ENVSHIM" check --policy "$p" --program no-such-program-here -- A=1
	[[ "$output" == *"no-such-program-here: not found"* ]]
}
