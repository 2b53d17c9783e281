#!/bin/bash
# The terminal UI in a real terminal: tmux, on a private server. Starts
# revline in a fixture repository, waits for the first screen, sends keys
# and checks what they do, resizes the window (side by side, then
# stacked), quits, and checks that the terminal is given back as it was:
# exit status 0, the alternate screen gone, icanon and echo on again.
name=t_tmux
# shellcheck source=tests/tmux/lib.sh
. "$(dirname "$0")/lib.sh"
tmux_start

# The first screen: the files pane on the first file, its diff beside it.
expect "first screen: files pane title" '^Files  1/12 {19}│Makefile  modified  file 1/12'
expect "first screen: the first file selected" '^M Makefile +\+2 -1│diff --git a/Makefile b/Makefile'
expect "first screen: status bar" '^demo \[main\] HEAD \([0-9a-f]{7}\)\.\.working tree  Enter diff  c check( +[^ ]+ [a-z]+)* +12 files  \+37 -18$'

keys j
expect "j: the second file" '^Files  2/12 +│big\.txt  modified  file 2/12'

keys Tab n
expect "Tab n: the first hunk of big.txt" '│big\.txt  modified  file 2/12  \+4 -4  line 5/40$'

keys ']'
expect "]: the next file" '│cjk\.txt  modified  file 3/12  \+3 -2  line 1/13$'
expect "]: wide characters drawn whole" '│ +1 +│-日本語のテキスト: 幅の広い文字の表示を確かめる行です'

# Smaller, still side by side.
tm resize-window -t "$session" -x 70 -y 20
# The files pane is 24 columns wide at 70 columns, 30 at 100.
expect "resize 70x20: redrawn side by side" '^Files  3/12 {13}│cjk\.txt  modified  file 3/12'
rows=$(screen | grep -Ec '^.{24}│')
if [ "$rows" = 19 ]; then
	ok "resize 70x20: the line between the panes on all 19 rows"
else
	fail "resize 70x20: the line between the panes on $rows rows, not 19"
fi
expect "resize 70x20: status bar at the new width" '^demo \[main\] HEAD \([0-9a-f]{7}\)\.\.working tree  n N hunk +12 files  \+37 -18$'
width=$(screen | awk '/^demo \[main\]/ { print length }')
if [ "$width" = 70 ]; then
	ok "resize 70x20: the status bar ends at column 70"
else
	fail "resize 70x20: the status bar is ${width:-no} columns wide"
fi

# Below 70 columns: the files above the diff.
tm resize-window -t "$session" -x 60 -y 20
expect "resize 60x20: stacked, files title alone" '^Files  3/12$'
expect "resize 60x20: stacked, diff title at the left edge" '^cjk\.txt  modified  file 3/12'
expect "resize 60x20: status bar" '^demo \[main\] HEAD \([0-9a-f]{7}\)\.\.working tree +12 files  \+37 -18$'

tm resize-window -t "$session" -x 100 -y 30
expect "resize back to 100x30" '^Files  3/12 {19}│cjk\.txt  modified  file 3/12'

# Help over the whole screen, then the panes back whole.
keys '?'
expect "?: help" '^Help: revline [0-9.]+  \(q, Esc or \? to close\)$'
keys q
expect "q: help closed" '^Files  3/12 {19}│cjk\.txt  modified  file 3/12'
rows=$(screen | grep -Ec '^.{30}│')
if [ "$rows" = 29 ]; then
	ok "help closed: the line between the panes on all 29 rows"
else
	fail "help closed: the line between the panes on $rows rows, not 29"
fi

tmux_quit
tmux_finish
