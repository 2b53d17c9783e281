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
run diff --base no-such-branch
expect_status 2 "bad ref"
expect_err_line "unknown revision 'no-such-branch'" "bad ref is named"
run diff main..nope
expect_status 2 "bad ref in a range"
expect_err_line "unknown revision 'nope'" "bad range ref is named"
run diff --staged --untracked
expect_status 2 "--untracked with --staged"
expect_err_line "--untracked needs the working tree" "conflicting options are explained"

# The TUI needs a terminal; without one it says what to use instead.
run </dev/null
expect_status 2 "revline without a terminal"
expect_err_line "needs a terminal" "no terminal is explained"

finish
