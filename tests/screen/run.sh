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
#   # fakellm: NAME.json       start the fake LLM server with tests/screen/llm/NAME.json
#                             and point revline at it (REVLINE_BASE_URL)
#   # rules: NAME [ID...]     the rules: tests/screen/rules/NAME/ only (no built-in
#                             ones), or only the files ID.md of it
#   # seed: NAME              before the run, tests/screen/seed/NAME.py fills the database
#                             (python3 NAME.py DB REPO_PATH)
#   # filter: SED             applied to every dump before comparing (the line may
#                             repeat), for what changes from run to run (times)
#   # signals: NAME [TOOL]    before the run, `revline signals --import` reads
#                             tests/screen/signals/NAME in the repository (the
#                             line may repeat)
#   # git-config: KEY VALUE   before the run, git config KEY VALUE in the repository
#                             (VALUE is the rest of the line, $SCREEN in it this
#                             directory; the line may repeat)
#
# Every run has its own database (REVLINE_DB) and no API key.
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
# shellcheck source=tests/detached.sh
. "$here/../detached.sh"
# shellcheck disable=SC2317 # run from the EXIT trap
cleanup()
{
	detached_stop "$tmp"
	[ -n "${FAKELLM_PID:-}" ] && fakellm_stop
	rm -rf "$tmp"
}
trap cleanup EXIT

# A clean, fixed environment: no user or system configuration, UTF-8.
unset REVLINE_THEME NO_COLOR REVLINE_SCREEN_SIZE REVLINE_SCRIPT REVLINE_DATADIR
unset OPENAI_API_KEY ANTHROPIC_API_KEY REVLINE_PROVIDER REVLINE_BASE_URL OPENAI_BASE_URL REVLINE_MODEL
unset REVLINE_CONCURRENCY REVLINE_TIMEOUT REVLINE_RETRIES REVLINE_OSV_URL
export REVLINE_DB=$tmp/revline.db
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

# The LLM, when the test has one: the fake server over real HTTP.
fakellm=$(header fakellm | tail -n 1)
if [ -n "$fakellm" ]; then
	# shellcheck source=tests/fakellm/fakellm.sh
	. "$source_dir/tests/fakellm/fakellm.sh"
	fakellm_start "$here/llm/$fakellm" "$tmp" || fail "the fake LLM server did not start"
	# The same server answers OSV's advisory queries (rules with match_path).
	export REVLINE_BASE_URL=$FAKELLM_URL/v1 REVLINE_MODEL=fake-model REVLINE_OSV_URL=$FAKELLM_URL
fi
read -r rules rule_ids <<<"$(header rules | tail -n 1)"
if [ -n "$rules" ]; then
	mkdir -p "$tmp/data/rules"
	ln -s "$source_dir/share/prompts" "$tmp/data/prompts"
	if [ -n "$rule_ids" ]; then
		for id in $rule_ids; do
			cp "$here/rules/$rules/$id.md" "$tmp/data/rules/" || fail "no rule $rules/$id.md"
		done
	else
		cp "$here/rules/$rules"/*.md "$tmp/data/rules/"
	fi
	export REVLINE_DATADIR=$tmp/data
fi
seed=$(header seed | tail -n 1)
if [ -n "$seed" ]; then
	python3 "$here/seed/$seed.py" "$REVLINE_DB" "$repo" >"$tmp/seed.log" 2>&1 ||
		{ cat "$tmp/seed.log" >&2; fail "cannot seed the database with $seed"; }
fi

while read -r file tool; do
	[ -n "$file" ] || continue
	(cd "$repo" && "$revline" signals --import "$here/signals/$file" ${tool:+--tool "$tool"}) \
		>"$tmp/signals.log" 2>&1 || { cat "$tmp/signals.log" >&2; fail "cannot import the signals $file"; }
done < <(header signals)
while read -r key value; do
	value=${value//\$SCREEN/$here}
	[ -n "$key" ] && { git -C "$repo" config "$key" "$value" >"$tmp/git.log" 2>&1 ||
		{ cat "$tmp/git.log" >&2; fail "git config $key failed"; }; }
done < <(header git-config)

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
# A file the script appends to (":append PATH ...", another program's save) may change status.
sed -n 's/^:append \([^ ]*\) .*/\1/p' "$script" | sort -u >"$tmp/appended"
for side in before after; do
	awk 'NR == FNR { skip[$0] = 1; next } !(substr($0, 4) in skip)' "$tmp/appended" "$tmp/status.$side" \
		>"$tmp/status.$side.kept"
done
diff -u "$tmp/status.before.kept" "$tmp/status.after.kept" >&2 ||
	fail "the run changed the fixture's working tree"

# What changes from run to run is masked before comparing.
while IFS= read -r filter; do
	[ -n "$filter" ] || continue
	for dump in "$out"/*; do
		[ -e "$dump" ] && sed -i -E "$filter" "$dump"
	done
done < <(header filter)

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
