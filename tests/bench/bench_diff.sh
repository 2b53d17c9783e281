#!/usr/bin/env bash
# Benchmark: revline's first screen and memory on a big working-tree diff,
# against tig (as `git diff | tig`) and `git diff` itself. Prints figures;
# it is not a test (exit 0 unless the harness itself fails).
#
# usage: bash tests/bench/bench_diff.sh [--files N] [--lines N] [--runs N]
#            [--rows R] [--cols C] [--repo DIR] [--build DIR] [--revline BIN]
#            [--dump DIR] [--json FILE] [--force-repo]
#        bash tests/bench/bench_diff.sh --repo DIR --range A..B [--runs N] ...
#
#   --files N    changed files in the generated repository (default 5000)
#   --lines N    changed lines, additions + deletions (default 200000)
#   --runs N     measured runs of each figure, after one warm-up (default 5)
#   --rows/--cols  pseudo-terminal size (default 40 x 120)
#   --repo DIR   where the repository is generated (default
#                ${TMPDIR:-/tmp}/revline-bench-repo-FILES-LINES); reused when it
#                already holds one made with the same parameters
#   --build DIR  build directory for revline (default
#                ${TMPDIR:-/tmp}/revline-bench-build, RelWithDebInfo)
#   --revline BIN  measure this binary instead of building one
#   --dump DIR   write both programs' first screens (as the harness saw them)
#   --json FILE  write the raw figures
#   --range A..B  measure this range of the repository given by --repo (a
#                real one, renames included) instead of a generated
#                working-tree change: `revline A..B` against `git diff A..B | tig`
#   --binary MB  instead: one random binary file of MB megabytes, staged as a
#                new file, committed (a range) and changed in the work tree
#                at the same size; `revline diff --stat`, `revline diff` and
#                revline's first screen (headless) against git's diff of the
#                same target: median time and peak RSS
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
tmp=${TMPDIR:-/tmp}
files=5000 lines=200000 runs=5 rows=40 cols=120
repo= build="$tmp/revline-bench-build" revline= dump= json= force= range= binary=

while [ $# -gt 0 ]; do
	case $1 in
	--files) files=$2; shift 2 ;;
	--lines) lines=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--rows) rows=$2; shift 2 ;;
	--cols) cols=$2; shift 2 ;;
	--repo) repo=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	--revline) revline=$2; shift 2 ;;
	--dump) dump=$2; shift 2 ;;
	--json) json=$2; shift 2 ;;
	--force-repo) force=--force; shift ;;
	--range) range=$2; shift 2 ;;
	--binary) binary=$2; shift 2 ;;
	-h|--help) sed -n '2,31p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench_diff.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
repo=${repo:-$tmp/revline-bench-repo-$files-$lines}

for tool in python3 git ${binary:+-}tig cc cmake; do
	[ "$tool" = -tig ] && continue
	command -v "$tool" >/dev/null || { echo "bench_diff.sh: needs $tool" >&2; exit 2; }
done
# The system python, when there is one: the harness needs only its standard library.
python=python3
[ -x /usr/bin/python3 ] && python=/usr/bin/python3

echo "== build"
if [ -z "$revline" ]; then
	cmake -S "$source_dir" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DREVLINE_TESTS=OFF >"$build.log" 2>&1 ||
		{ cat "$build.log" >&2; echo "bench_diff.sh: cmake configure failed" >&2; exit 2; }
	cmake --build "$build" -j"$(nproc)" --target revline >>"$build.log" 2>&1 ||
		{ tail -30 "$build.log" >&2; echo "bench_diff.sh: build failed" >&2; exit 2; }
	revline=$build/bin/revline
	echo "  revline: $revline (RelWithDebInfo)"
fi
helper="$tmp/revline-bench-rusage_exec"
if [ ! -x "$helper" ] || [ "$here/rusage_exec.c" -nt "$helper" ]; then
	cc -O2 -Wall -Wextra -o "$helper" "$here/rusage_exec.c"
fi
[ -n "$binary" ] || echo "  tig: $(tig --version | head -1); git: $(git --version)"

# measure LABEL CMD...: the median time and the largest peak RSS of $runs runs (after one).
measure() {
	local label=$1 i out times=() rss=0 r
	shift
	out=$(mktemp "$tmp/revline-bench-rusage.XXXXXX")
	"$helper" "$out" "$@" >/dev/null 2>&1 || true
	for ((i = 0; i < runs; i++)); do
		local start end
		start=$(date +%s%N)
		"$helper" "$out" "$@" >/dev/null 2>&1 || true
		end=$(date +%s%N)
		times+=($(( (end - start) / 1000000 )))
		r=$(awk '{print $1}' "$out")
		[ "$r" -gt "$rss" ] && rss=$r
	done
	rm -f "$out"
	printf '  %-44s %6s ms  %7s KB\n' "$label" \
		"$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")" "$rss"
}

# The big binary file's three targets, revline against git.
binary_bench() {
	local script
	bdir=$(mktemp -d "$tmp/revline-bench-binary.XXXXXX")
	script=$bdir.script
	trap 'rm -rf "$bdir" "$bdir".*' EXIT
	printf ':save-display %s\n' "$bdir.screen" >"$script"
	cd "$bdir"
	git init -q -b main && git config user.name bench && git config user.email bench@example.com
	echo small >small.txt && git add -A && git commit -q -m base
	head -c "$((binary * 1000000))" /dev/urandom >big.bin
	git add big.bin
	echo "== a $binary MB binary file, staged (new)"
	measure "git diff HEAD --stat" git diff HEAD --stat
	measure "revline diff --stat" "$revline" diff --stat
	measure "git diff HEAD" git diff HEAD
	measure "revline diff" "$revline" diff
	measure "revline first screen" env REVLINE_SCRIPT="$script" REVLINE_SCREEN_SIZE=120x40 \
		REVLINE_DB="$bdir.db" "$revline"
	git commit -q -m big
	echo "== committed: HEAD~1..HEAD"
	measure "git diff HEAD~1 HEAD --stat" git diff HEAD~1 HEAD --stat
	measure "revline diff HEAD~1..HEAD --stat" "$revline" diff HEAD~1..HEAD --stat
	measure "revline HEAD~1..HEAD first screen" env REVLINE_SCRIPT="$script" \
		REVLINE_SCREEN_SIZE=120x40 REVLINE_DB="$bdir.db" "$revline" HEAD~1..HEAD
	head -c "$((binary * 1000000))" /dev/urandom >big.bin
	echo "== changed in the work tree, same size (both must hash it to see it changed)"
	measure "git diff HEAD --stat" git diff HEAD --stat
	measure "revline diff --stat" "$revline" diff --stat
	measure "revline first screen" env REVLINE_SCRIPT="$script" REVLINE_SCREEN_SIZE=120x40 \
		REVLINE_DB="$bdir.db" "$revline"
}
if [ -n "$binary" ]; then
	binary_bench
	exit 0
fi

echo "== repository"
if [ -n "$range" ]; then
	[ -d "$repo" ] || { echo "bench_diff.sh: --range needs --repo" >&2; exit 2; }
	echo "  $repo, range $range"
else
	start=$(date +%s)
	"$python" "$here/gen_repo.py" "$repo" --files "$files" --lines "$lines" $force | sed 's/^/  /'
	echo "  $repo ($(( $(date +%s) - start )) s)"
fi

echo "== measuring"
home=$(mktemp -d "$tmp/revline-bench-home.XXXXXX")
trap 'rm -rf "$home"' EXIT
args=(--revline "$revline" --rusage-exec "$helper" --repo "$repo" --runs "$runs"
      --rows "$rows" --cols "$cols")
[ -n "$dump" ] && args+=(--dump "$dump")
[ -n "$json" ] && args+=(--json "$json")
[ -n "$range" ] && args+=(--range "$range")
BENCH_HOME=$home "$python" "$here/ptybench.py" "${args[@]}"
