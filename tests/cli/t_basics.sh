# --version, --help, help COMMAND, and one-line errors with exit status 2.
. "$(dirname "$0")/lib.sh"

run --version
expect_status 0 "--version"
expect_out '^revline [0-9][0-9.]*$' "--version prints the version"

run --help
expect_status 0 "--help"
expect_out 'usage: revline' "--help shows usage"
expect_out '--staged' "--help lists the target options"
expect_out 'diff ' "--help lists the commands"

run help diff
expect_status 0 "help diff"
expect_out 'usage: revline diff' "help diff shows the diff usage"
expect_out '--name-status' "help diff lists its options"

run diff --help
expect_status 0 "diff --help"
expect_out 'usage: revline diff' "diff --help is help diff"

run help nosuch
expect_status 2 "help for an unknown command"
expect_err_line "'nosuch' is not a revline command" "help nosuch names the command"

run --frobnicate
expect_status 2 "unknown option"
expect_err_line "unknown option '--frobnicate'" "unknown option is named"

run diff --frobnicate=3
expect_status 2 "unknown option of a command"
expect_err_line "unknown option '--frobnicate'" "unknown command option is named"

run frobnicate
expect_status 2 "unknown command"
expect_err_line "'frobnicate' is not a revline command" "unknown command is named"

run diff --base
expect_status 2 "missing option value"
expect_err_line "needs a value" "missing value is explained"

mkdir -p "$TMP/plain/sub"
cd "$TMP/plain/sub"
run diff
expect_status 2 "diff outside a repository"
expect_err_line "not a git repository" "not a repository is explained"
run
expect_status 2 "revline outside a repository"
expect_err_line "not a git repository" "the TUI says it too"

repo=$(new_repo r)
echo one >"$repo/a.txt"
git -C "$repo" add a.txt
git -C "$repo" commit -q -m one
mkdir -p "$repo/deep/dir"
cd "$repo/deep/dir"

# libcurl and libpq are loaded the first time a request or a team store needs them (src/base/dl.c),
# not at every start: the program does not link them, and a diff does not load them.
needed=$(objdump -p "$REVLINE" | grep -E 'NEEDED +lib(curl|pq)\.' || true)
[ -z "$needed" ] && pass "neither libcurl nor libpq is linked" || fail "revline links: $needed"
echo two >"$repo/a.txt"
set +e
LD_DEBUG=files "$REVLINE" diff --stat >"$TMP/out" 2>"$TMP/ld"
status=$?
set -e
expect_status 0 "diff --stat with the loader's trace"
expect_out "a.txt" "the diff is listed"
if grep -qE 'file=lib(curl|pq|gnutls|ldap)' "$TMP/ld"; then
	fail "a diff loaded: $(grep -oE 'file=lib(curl|pq|gnutls|ldap)[^ ]*' "$TMP/ld" | sort -u | tr '\n' ' ')"
elif grep -q 'file=libgit2' "$TMP/ld"; then
	pass "a diff loads neither libcurl nor libpq (nor libldap, GnuTLS)"
else
	fail "the loader's trace names no library (LD_DEBUG=files not honoured?): $(head -c 300 "$TMP/ld")"
fi
git -C "$repo" checkout -q a.txt
run diff --base no-such-branch
expect_status 2 "bad ref"
expect_err_line "unknown revision 'no-such-branch'" "bad ref is named"
run diff main..nope
expect_status 2 "bad ref in a range"
expect_err_line "unknown revision 'nope'" "bad range ref is named"
run diff --staged --untracked
expect_status 2 "--untracked with --staged"
expect_err_line "--untracked needs the working tree" "conflicting options are explained"

# A revision where a target goes: the hint to compare it, in check, diff and the TUI.
hint="to compare HEAD with the working tree, use --base HEAD; a range is A..B or A...B"
for cmd in check diff; do
	run $cmd HEAD
	expect_status 2 "$cmd HEAD"
	expect_err_line "unexpected argument 'HEAD': $hint" "$cmd HEAD: use --base HEAD"
done
run HEAD
expect_status 2 "revline HEAD"
expect_err_line "'HEAD' is not a revline command: $hint" "revline HEAD: use --base HEAD"
run --staged main
expect_status 2 "revline --staged main"
expect_err_line "'main' is not a revline command: to compare main with the index, use --base main" \
	"with --staged the hint compares with the index"
run check no-such-thing
expect_status 2 "check with a word that is no revision"
expect_err_line "unexpected argument 'no-such-thing' (a target is A..B or A...B; see 'revline help check')" \
	"no revision, no --base hint"
run no-such-thing
expect_err_line "'no-such-thing' is not a revline command (see 'revline --help')" "the TUI: not a command"
run diff main..main main..main
expect_err_line "one range at a time" "two ranges"

# Did you mean: commands, options and option values, from one function.
run check --fail-of major
expect_status 2 "a misspelt option"
expect_err_line "unknown option '--fail-of'; did you mean --fail-on? (see 'revline help check')" \
	"check --fail-of: did you mean --fail-on?"
run diff --name-stat
expect_err_line "unknown option '--name-stat'; did you mean --name-status?" "diff --name-stat"
run --stagd
expect_err_line "unknown option '--stagd'; did you mean --staged? (see 'revline --help')" \
	"the TUI's options, and where its help is"
run check --format=jsn
expect_err_line "unknown format 'jsn'; did you mean json? (--format takes" "an option's value"
run check --zzzzzzzz
expect_err_line "unknown option '--zzzzzzzz' (see 'revline help check')" "nothing close: no guess"
run chek
expect_err_line "'chek' is not a revline command; did you mean check?" "a command"

# Options that exclude each other: one message, exit 2, nothing done.
conflict() { # conflict "A and B" ARGS...
	local want=$1
	shift
	run "$@"
	expect_status 2 "$*"
	expect_err_line "^revline: $want cannot be used together$" "$*: refused"
}
conflict "--pre-push and --pre-commit" hook install --pre-push --pre-commit
[ ! -e "$repo/.git/hooks/pre-commit" ] && [ ! -e "$repo/.git/hooks/pre-push" ] &&
	pass "no hook installed" || fail "a hook was installed: $(ls "$repo/.git/hooks")"
conflict "--stat and --json" diff --stat --json
conflict "--json and --name-status" diff --json --name-status
conflict "--show and --revoke" trust --show --revoke
conflict "--import and --run" signals --import - --run
conflict "--wait-fix-detection and --no-fix-detection" check --wait-fix-detection --no-fix-detection
run diff --stat --stat
expect_status 0 "the same option twice is no conflict"

# The TUI needs a terminal; without one it says what to use instead.
run </dev/null
expect_status 2 "revline without a terminal"
expect_err_line "needs a terminal" "no terminal is explained"

finish
