#!/bin/bash
# A whole check in a real terminal: revline --check against the fake LLM
# server. The fast rule's findings are on screen while the slow rule runs,
# keys work meanwhile, the check completes, Enter on a finding shows its
# line, f marks it a false positive with a note; q quits cleanly and the
# database has the check, its findings and the feedback. Then a check cut
# short by q: revline leaves at once and keeps what arrived.
name=t_review
# shellcheck source=tests/tmux/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/fakellm/fakellm.sh
. "$source_dir/tests/fakellm/fakellm.sh"

fakellm_start "$source_dir/tests/screen/llm/review.json" "$tmp" ||
	{ echo "tmux/$name: the fake LLM server did not start" >&2; exit 1; }
export REVLINE_BASE_URL=$FAKELLM_URL/v1 REVLINE_MODEL=fake-model
mkdir -p "$tmp/data/rules"
ln -s "$source_dir/share/prompts" "$tmp/data/prompts"
cp "$source_dir/tests/screen/rules/review/fast.md" "$source_dir/tests/screen/rules/review/slow.md" "$tmp/data/rules/"
export REVLINE_DATADIR=$tmp/data

# expect_stored WHAT QUERY VALUE: the query's one value in the database.
expect_stored()
{
	local got

	got=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' \
		"$REVLINE_DB" "$2")
	if [ "$got" = "$3" ]; then
		ok "$1"
	else
		fail "$1: '$got', not '$3' from $2"
	fi
}

tmux_start --check
expect "the fast rule's findings while the slow rule runs" '^fast +! 2 findings, 1 hidden [0-9.]+s'
if screen | grep -Eq '^slow +. running [0-9]+s'; then
	ok "the slow rule is still running"
else
	fail "the slow rule is not shown running next to the fast rule's findings"
fi
expect "the finding under its rule" '^  major +src/main\.c:22  last is set'
keys j
expect "keys work during the check" '^Files  2/12 '
expect "the status bar counts the rules" 'checking 1/2 rules, [0-9.]+k tokens, [0-9.]+s$'
expect "the check completes" '^Check 1 complete: 2 findings \(r shows the report\)' 20
expect "the slow rule's finding" '^  minor +src/util\.c:16  trim_end'

keys Tab j Enter
expect "Enter on a finding: its file in the diff" '│src/main\.c  modified  file 9/12 .* line 22/38$'
expect "the finding's line marked in the gutter" '│●  +22 │\+ +if \(\(last = c\) == '

keys f
expect "f asks for a note" '^False positive\. Why\?'
keys -l 'meant to be'
keys Enter
expect "the mark shows at once" 'Finding 1 marked false positive'
tmux_quit

expect_stored "the check is stored complete" "SELECT status FROM checks WHERE id = 1" complete
expect_stored "its findings are stored" "SELECT count(*) FROM findings WHERE check_id = 1 AND reduced = 0" 3
expect_stored "the false positive is stored with its note" "SELECT kind || ': ' || note FROM feedback" "false_positive: meant to be"

# Quitting mid-check: at once, and what arrived is kept. A change to the
# code, so that no answer comes from the cache.
tmux_stop
echo '/* one more line */' >>"$repo/src/main.c"
: >"$tmp/stderr"
tmux_start --check
expect "a second check: the fast rule done" '^fast +! 2 findings'
started=$SECONDS
tmux_quit
if [ $((SECONDS - started)) -le 2 ]; then
	ok "q mid-check leaves at once"
else
	fail "q mid-check took $((SECONDS - started)) s"
fi
expect_stored "the check cut short is stored as cancelled" "SELECT status FROM checks WHERE id = 2" cancelled
expect_stored "the fast rule's result is kept" "SELECT group_concat(status) FROM check_results r JOIN check_threadlines t ON t.id = r.check_threadline_id WHERE t.check_id = 2 AND t.threadline_id = 'fast'" attention
tmux_finish
