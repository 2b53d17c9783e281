# Shell completions made from the option tables: they parse in each shell
# that is installed, and bash completes commands, options, their values,
# rule ids and refs as a user types them.
. "$(dirname "$0")/lib.sh"

for shell in bash zsh fish; do
	run completion "$shell"
	expect_status 0 "revline completion $shell"
	cp "$TMP/out" "$TMP/completion.$shell"
	if ! command -v "$shell" >/dev/null; then
		printf 'skip: %s is not installed: its script is not parsed\n' "$shell"
	elif "$shell" -n "$TMP/completion.$shell" 2>"$TMP/err"; then
		pass "$shell -n accepts the $shell script"
	else
		fail "$shell -n: $(cat "$TMP/err")"
	fi
done

run completion tcsh
expect_status 2 "an unknown shell"
expect_err_line "unknown shell" "the error says so"
run completion
expect_status 2 "no shell"

# Every option of every command's --help is in the scripts (the same tables).
for cmd in "" check diff rules signals fix feedback history fixes stats undo detect-fixes trust hook completion; do
	run help $cmd
	for opt in $(sed -n '/^Options:/,$p' "$TMP/out" | grep -oE -- '^ +(-[a-zA-Z], )?--[a-z][a-z-]*' | grep -o -- '--[a-z-]*' | sort -u); do
		for shell in bash zsh fish; do
			case $shell in
			fish) want="-l ${opt#--}" ;;
			*) want="$opt" ;;
			esac
			grep -q -- "$want" "$TMP/completion.$shell" || fail "$shell script lacks $opt of '${cmd:-revline}'"
		done
	done
done
pass "the scripts have every option of every --help"

# bash: complete as a user types, in a repository with a rule of its own.
repo=$(new_repo r)
mkdir -p "$repo/threadlines"
cat >"$repo/threadlines/house.md" <<'EOF'
---
id: house-style
severity: minor
---
Keep the house style.
EOF
echo 'int main(void) { return 0; }' >"$repo/main.c"
git -C "$repo" add -A
git -C "$repo" commit -q -m first
git -C "$repo" branch feature-x
bindir=$TMP/bin
mkdir -p "$bindir"
ln -s "$REVLINE" "$bindir/revline"

complete_line() {
	# shellcheck disable=SC2016
	(cd "$repo" && PATH="$bindir:$PATH" bash -c '
		. "$1"
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_revline
		printf "%s\n" "${COMPREPLY[@]}"' _ "$TMP/completion.bash" "$@")
}

expect_completion() {
	local want=$1 what=$2 got
	shift 2
	got=$(complete_line "$@")
	if printf '%s\n' "$got" | grep -qxF -- "$want"; then
		pass "$what"
	else
		fail "$what: '$want' not among: $(printf '%s' "$got" | tr '\n' ' ')"
	fi
}

expect_completion check "revline ch completes to check" revline ch
[ "$(complete_line revline ch | wc -l)" -eq 1 ] || fail "revline ch: more than check: $(complete_line revline ch)"
expect_completion --format= "revline check --fo completes to --format=" revline check --fo
expect_completion sarif "check --format takes sarif" revline check --format ""
expect_completion sarif "check --format=sa (split at = as bash does)" revline check --format = sa
expect_completion critical "check --fail-on takes a severity" revline check --fail-on ""
expect_completion house-style "check --rule takes the repository's rule ids" revline check --rule ""
expect_completion feature-x "the TUI's target completes to a branch" revline feat
expect_completion feature-x "check's --base takes a ref" revline check --base fea
expect_completion --staged "a value taken, the next word is an option again" revline check --format json --st
expect_completion keys "help takes keys" revline help ""
expect_completion detect-fixes "help takes command names" revline help det
expect_completion install "hook takes install" revline hook ins
expect_completion --pre-commit "hook's options" revline hook install --pre-c
finish
