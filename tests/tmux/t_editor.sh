#!/bin/bash
# Keeping up with the editor, in a real terminal: e gives the terminal to
# $EDITOR at the cursor's line (the path an argument, the screen restored
# after, the diff read again); a file changed in another program shows
# without a key (inotify); y puts a finding on the clipboard through OSC 52
# (tmux's paste buffer, with set-clipboard on).
name=t_editor
# shellcheck source=tests/tmux/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/fakellm/fakellm.sh
. "$source_dir/tests/fakellm/fakellm.sh"

fakellm_start "$source_dir/tests/screen/llm/review.json" "$tmp" ||
	{ echo "tmux/$name: the fake LLM server did not start" >&2; exit 1; }
export REVLINE_BASE_URL=$FAKELLM_URL/v1 REVLINE_MODEL=fake-model
mkdir -p "$tmp/data/rules"
ln -s "$source_dir/share/prompts" "$tmp/data/prompts"
cp "$source_dir/tests/screen/rules/review/fast.md" "$tmp/data/rules/"
export REVLINE_DATADIR=$tmp/data
unset VISUAL
# An editor that shows what it was given, waits for a key, then adds a line.
# shellcheck disable=SC2016 # expanded by the shell revline starts
export EDITOR='sh -c '\''printf "EDITING %s AT %s\n" "$(basename "$2")" "$1"; read -r answer; echo "/* from the editor */" >>"$2"'\'' ed'

tmux_start
expect "the UI is up" '^Files  1/12 '
keys -l '/main.c'
keys Enter Escape Enter
expect "src/main.c in the diff" '│src/main\.c  modified  file 9/12 '
keys G k k
expect "the cursor near the end" 'line 36/38$'
keys e
expect "e: the editor has the terminal, at the cursor's line" '^EDITING main\.c AT \+71$'
keys Enter
expect "the screen is back, the diff read again" '^Edited src/main\.c$'
expect "the editor's line counted" '^M src/main\.c +\+7 -4│'
expect "the cursor kept its line" 'line 36/39$'
keys G
expect "the editor's line in the diff" '│ +74 │\+/\* from the editor \*/'

echo '/* from another terminal */' >>"$repo/src/main.c"
expect "a change made elsewhere shows without a key" '^M src/main\.c +\+8 -4│'
expect "and says so" '^The working tree changed: the diff is read again$'

tm set-option -g set-clipboard on
keys c
expect "the check completes" '^Check 1 complete' 20
keys Tab Tab Tab j y
expect "y copies the finding" '^Copied finding [0-9]+ as Markdown'
if tm show-buffer 2>/dev/null | grep -q '^\*\*last is set inside the condition\*\* (major) `src/main.c:22`'; then
	ok "the finding is on the clipboard as Markdown"
else
	fail "the clipboard lacks the finding: $(tm show-buffer 2>&1 | head -3)"
fi
tmux_quit
tmux_finish
