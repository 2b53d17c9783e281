#!/bin/bash
# Headless screen-dump tests, in the manner of tig's test suite.
#
#   bash tests/screen/run.sh NAME          run tests/screen/NAME.script
#   UPDATE=1 bash tests/screen/run.sh NAME write its expected dumps instead
#
# The script's header comments choose the setting:
#
#   # fixture: basic          a repository from fixture.sh (basic by default)
#   # env: NO_COLOR=1         an environment variable (the line may repeat)
#   # args: --staged          revline's arguments (split on spaces)
#   # size: 100x30            the screen size (80x24 by default)
#
# revline runs in the fixture's working tree; every "$OUT" in the script
# stands for the output directory (outside the working tree), so
# ":save-display $OUT/first.screen" writes a dump that is then compared
# with tests/screen/expected/NAME.first.screen. Every dump must have its
# expected file and every expected file of NAME must have been written.
set -u

name=${1:?usage: run.sh NAME}
here=$(cd "$(dirname "$0")" && pwd)
source_dir=${REVLINE_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
revline=${REVLINE:-$source_dir/build/bin/revline}
script=$here/$name.script
expected=$here/expected

fail()
{
	echo "screen/$name: $*" >&2
	exit 1
}

[ -f "$script" ] || fail "no such script: $script"
[ -x "$revline" ] || fail "no revline binary at $revline (set REVLINE)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/revline-screen.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# A clean, fixed environment: no user or system configuration, UTF-8.
unset REVLINE_THEME NO_COLOR REVLINE_SCREEN_SIZE REVLINE_SCRIPT REVLINE_DATADIR
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE LC_ALL LC_CTYPE LANGUAGE
export LANG=C.UTF-8 HOME=$tmp/home XDG_CONFIG_HOME=$tmp/home/.config
export GIT_CONFIG_NOSYSTEM=1 TERM=xterm-256color
mkdir -p "$HOME" "$XDG_CONFIG_HOME"

header()
{
	sed -n "s/^# $1: *//p" "$script"
}

fixture=$(header fixture | tail -n 1)
size=$(header size | tail -n 1)
args=$(header args | tail -n 1)

# shellcheck source=tests/screen/fixture.sh
. "$here/fixture.sh"
# The status bar shows the directory's name: always "demo".
repo=$tmp/work/demo
fixture_build "${fixture:-basic}" "$repo" >"$tmp/fixture.log" 2>&1 ||
	{ cat "$tmp/fixture.log" >&2; fail "cannot build the fixture '${fixture:-basic}'"; }
git -C "$repo" status --porcelain=v1 --untracked-files=all >"$tmp/status.before"

out=$tmp/out
mkdir -p "$out"
sed "s|\\\$OUT|$out|g" "$script" >"$tmp/script"

env_args=()
while IFS= read -r line; do
	[ -n "$line" ] && env_args+=("$line")
done < <(header env)

# shellcheck disable=SC2086 # args are split on spaces on purpose
(cd "$repo" && env "${env_args[@]}" REVLINE_SCRIPT="$tmp/script" \
	REVLINE_SCREEN_SIZE="${size:-80x24}" timeout 60 "$revline" $args \
	</dev/null >"$tmp/stdout" 2>"$tmp/stderr")
rc=$?
if [ $rc -ne 0 ] || [ -s "$tmp/stderr" ] || [ -s "$tmp/stdout" ]; then
	cat "$tmp/stdout" "$tmp/stderr" >&2
	[ $rc -ne 0 ] && fail "revline exited with status $rc"
	fail "revline printed something (a headless run must print nothing)"
fi

git -C "$repo" status --porcelain=v1 --untracked-files=all >"$tmp/status.after"
diff -u "$tmp/status.before" "$tmp/status.after" >&2 ||
	fail "the run changed the fixture's working tree"

status=0
if [ -n "${UPDATE:-}" ]; then
	mkdir -p "$expected"
	rm -f "$expected/$name".*
	for dump in "$out"/*; do
		[ -e "$dump" ] || fail "the script wrote no dumps"
		cp "$dump" "$expected/$name.$(basename "$dump")"
		echo "wrote tests/screen/expected/$name.$(basename "$dump")"
	done
	exit 0
fi

found=0
for dump in "$out"/*; do
	[ -e "$dump" ] || break
	found=1
	want=$expected/$name.$(basename "$dump")
	if [ ! -f "$want" ]; then
		echo "screen/$name: no expected file for $(basename "$dump")" \
			"(run with UPDATE=1 and review it)" >&2
		status=1
		continue
	fi
	diff -u --label "expected/$name.$(basename "$dump")" --label "actual" \
		"$want" "$dump" || status=1
done
[ $found = 1 ] || fail "the script wrote no dumps"
for want in "$expected/$name".*; do
	[ -e "$want" ] || continue
	[ -e "$out/${want#"$expected/$name."}" ] ||
		{ echo "screen/$name: $(basename "$want") was not written" >&2; status=1; }
done
[ $status = 0 ] && echo "screen/$name: ok"
exit $status
