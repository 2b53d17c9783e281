# shellcheck shell=bash
# Shared by the tmux tests: revline in a real terminal (tmux, on a private
# server), in a fixture repository. Source it with $name set, then call
# tmux_start [ARGS...], send keys, expect what the screen shows, and
# tmux_quit to check that q gives the terminal back as it was: exit status
# 0, the alternate screen gone, icanon and echo on again, nothing on stderr.
set -u

if ! command -v tmux >/dev/null 2>&1; then
	echo "SKIP: tmux not installed"
	exit 0
fi

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source_dir=${REVLINE_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
revline=${REVLINE:-$source_dir/build/bin/revline}
[ -x "$revline" ] || { echo "tmux/$name: no revline binary at $revline" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/revline-tmux.XXXXXX") || exit 1
socket=revline-test-$$
session=t

tm()
{
	tmux -L "$socket" -f /dev/null "$@"
}

# The server, a fake LLM when there is one, and any `revline detect-fixes`
# left behind (their environment names $tmp) go with the directory.
# shellcheck source=tests/detached.sh
. "$here/../detached.sh"
cleanup()
{
	local path

	path=$(tm display-message -p '#{socket_path}' 2>/dev/null)
	tm kill-server >/dev/null 2>&1
	[ -n "$path" ] && rm -f "$path"
	detached_stop "$tmp"
	[ -n "${FAKELLM_PID:-}" ] && fakellm_stop
	rm -rf "$tmp"
}
trap cleanup EXIT

unset REVLINE_THEME NO_COLOR REVLINE_SCREEN_SIZE REVLINE_SCRIPT REVLINE_DATADIR TMUX
unset OPENAI_API_KEY ANTHROPIC_API_KEY REVLINE_PROVIDER REVLINE_BASE_URL OPENAI_BASE_URL REVLINE_MODEL
unset REVLINE_CONCURRENCY REVLINE_TIMEOUT REVLINE_RETRIES
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE LC_ALL LC_CTYPE LANGUAGE
export LANG=C.UTF-8 HOME=$tmp/home XDG_CONFIG_HOME=$tmp/home/.config
export GIT_CONFIG_NOSYSTEM=1 TERM=${TERM:-xterm-256color}
export REVLINE_DB=$tmp/revline.db
mkdir -p "$HOME" "$XDG_CONFIG_HOME"

# shellcheck source=tests/screen/fixture.sh
. "$source_dir/tests/screen/fixture.sh"
repo=$tmp/work/demo
fixture_build basic "$repo" >"$tmp/fixture.log" 2>&1 ||
	{ cat "$tmp/fixture.log" >&2; echo "tmux/$name: cannot build the fixture" >&2; exit 1; }

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

	if wait_for "$pattern" "${3:-20}"; then
		ok "$what"
	else
		fail "$what: no line matches /$pattern/"
	fi
}

keys()
{
	tm send-keys -t "$session" "$@"
}

# tmux_start [ARGS...]: revline ARGS in a 100x30 pane. The pane then shows
# how it exited and the terminal modes, and stays open to be read.
tmux_start()
{
	local terminal=screen command

	infocmp tmux-256color >/dev/null 2>&1 && terminal=tmux-256color
	printf -v command 'cd %q && %q' "$repo" "$revline"
	[ $# -gt 0 ] && printf -v command '%s %q' "$command" "$@"
	printf -v command '%s 2>%q; echo "EXIT=$?"; stty -a; exec sleep 600' "$command" "$tmp/stderr"
	tm -u start-server \; set-option -g default-terminal "$terminal" \; \
		set-option -g history-limit 0 \; \
		new-session -d -s "$session" -x 100 -y 30 "$command" ||
		{ echo "tmux/$name: cannot start tmux" >&2; exit 1; }
}

# tmux_stop: the server killed and gone (its socket removed) before
# another tmux_start; a start racing a dying server fails with "server
# exited unexpectedly".
tmux_stop()
{
	local path deadline=$((SECONDS + 10))

	path=$(tm display-message -p '#{socket_path}' 2>/dev/null)
	tm kill-server >/dev/null 2>&1
	while tm has-session >/dev/null 2>&1 && [ $SECONDS -lt $deadline ]; do
		sleep 0.1
	done
	[ -n "$path" ] && rm -f "$path"
	socket=revline-test-$$-$SECONDS-$RANDOM
}

# q, then revline must be gone and the terminal as it was.
tmux_quit()
{
	local modes

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
}

tmux_finish()
{
	if [ $failures -ne 0 ]; then
		echo "tmux/$name: $failures failed" >&2
		exit 1
	fi
	echo "tmux/$name: all passed"
}
