#!/bin/bash
# The terminal UI in a real terminal: tmux, on a private server. Starts
# revline in a fixture repository, waits for the first screen, sends keys
# and checks what they do, resizes the window (side by side, then
# stacked), quits, and checks that the terminal is given back as it was:
# exit status 0, the alternate screen gone, icanon and echo on again.
set -u

if ! command -v tmux >/dev/null 2>&1; then
	echo "SKIP: tmux not installed"
	exit 0
fi

here=$(cd "$(dirname "$0")" && pwd)
source_dir=${REVLINE_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
revline=${REVLINE:-$source_dir/build/bin/revline}
[ -x "$revline" ] || { echo "tmux/t_tmux: no revline binary at $revline" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/revline-tmux.XXXXXX") || exit 1
socket=revline-test-$$
session=t

tm()
{
	tmux -L "$socket" -f /dev/null "$@"
}

cleanup()
{
	local path

	path=$(tm display-message -p '#{socket_path}' 2>/dev/null)
	tm kill-server >/dev/null 2>&1
	[ -n "$path" ] && rm -f "$path"
	rm -rf "$tmp"
}
trap cleanup EXIT

unset REVLINE_THEME NO_COLOR REVLINE_SCREEN_SIZE REVLINE_SCRIPT REVLINE_DATADIR TMUX
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE LC_ALL LC_CTYPE LANGUAGE
export LANG=C.UTF-8 HOME=$tmp/home XDG_CONFIG_HOME=$tmp/home/.config
export GIT_CONFIG_NOSYSTEM=1 TERM=${TERM:-xterm-256color}
mkdir -p "$HOME" "$XDG_CONFIG_HOME"

# shellcheck source=tests/screen/fixture.sh
. "$source_dir/tests/screen/fixture.sh"
repo=$tmp/work/demo
fixture_build basic "$repo" >"$tmp/fixture.log" 2>&1 ||
	{ cat "$tmp/fixture.log" >&2; echo "tmux/t_tmux: cannot build the fixture" >&2; exit 1; }

failures=0

fail()
{
	echo "FAIL: $*" >&2
	echo "--- the screen:" >&2
	screen >&2
	echo "---" >&2
	failures=$((failures + 1))
}

ok()
{
	echo "ok: $*"
}

# The pane's text, trailing spaces trimmed (-J: wrapped lines joined).
screen()
{
	tm capture-pane -p -t "$session" "$@"
}

# wait_for PATTERN [SECONDS]: poll the screen until a line matches (grep -E).
wait_for()
{
	local deadline=$((SECONDS + ${2:-20}))

	while [ $SECONDS -lt $deadline ]; do
		screen | grep -Eq -- "$1" && return 0
		sleep 0.1
	done
	return 1
}

expect()
{
	local what=$1 pattern=$2

	if wait_for "$pattern"; then
		ok "$what"
	else
		fail "$what: no line matches /$pattern/"
	fi
}

keys()
{
	tm send-keys -t "$session" "$@"
}

terminal=screen
infocmp tmux-256color >/dev/null 2>&1 && terminal=tmux-256color

# The pane runs revline, then shows how it exited and the terminal modes,
# then stays open so that the screen can still be read.
printf -v command 'cd %q && %q 2>%q; echo "EXIT=$?"; stty -a; exec sleep 600' \
	"$repo" "$revline" "$tmp/stderr"
tm -u start-server \; set-option -g default-terminal "$terminal" \; \
	set-option -g history-limit 0 \; \
	new-session -d -s "$session" -x 100 -y 30 "$command" ||
	{ echo "tmux/t_tmux: cannot start tmux" >&2; exit 1; }

# The first screen: the files pane on the first file, its diff beside it.
expect "first screen: files pane title" '^Files  1/12 {19}│Makefile  modified  file 1/12'
expect "first screen: the first file selected" '^M Makefile +\+2 -1│diff --git a/Makefile b/Makefile'
expect "first screen: status bar" '^demo \[main\] HEAD \([0-9a-f]{7}\)\.\.working tree +12 files  \+37 -18$'

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
expect "resize 70x20: status bar at the new width" '^demo \[main\] HEAD \([0-9a-f]{7}\)\.\.working tree +12 files  \+37 -18$'
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

keys q
if wait_for '^EXIT=' 20; then
	if screen | grep -q '^EXIT=0$'; then
		ok "q: exit status 0"
	else
		fail "q: exit status not 0"
	fi
else
	fail "q: revline did not exit"
fi
wait_for 'icanon' 10
if screen | grep -Eq '(^| )(Files  [0-9]|demo \[main\])'; then
	fail "after q: the revline screen is still visible (alternate screen not left)"
else
	ok "after q: the alternate screen is gone"
fi
modes=$(screen -J | tr -s ' ;' '\n')
if printf '%s\n' "$modes" | grep -qx icanon && ! printf '%s\n' "$modes" | grep -qx -- -icanon; then
	ok "after q: icanon on"
else
	fail "after q: icanon is not on"
fi
if printf '%s\n' "$modes" | grep -qx echo && ! printf '%s\n' "$modes" | grep -qx -- -echo; then
	ok "after q: echo on"
else
	fail "after q: echo is not on"
fi
if [ -s "$tmp/stderr" ]; then
	echo "--- revline's stderr:" >&2
	cat "$tmp/stderr" >&2
	fail "revline wrote to stderr"
else
	ok "nothing on stderr"
fi

if [ $failures -ne 0 ]; then
	echo "tmux/t_tmux: $failures failed" >&2
	exit 1
fi
echo "tmux/t_tmux: all passed"
