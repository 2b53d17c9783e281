#!/usr/bin/env bash
# bench_answer.sh: what an answer of 7 KB, 70 KB and 700 KB costs a check.
#
#     REVLINE=build/bin/revline bash tests/bench/bench_answer.sh [--runs N]
#
# A fake server (tests/fakellm) answers one rule with each shape of answer
# at each size: many findings, a reasoning made of path:line references,
# many file references, one long reasoning. For each, the best of N checks
# (default 3): revline's CPU time and peak RSS above a check whose answer
# is one line (process start-up, libgit2 and SQLite are the same in both),
# and what the first check grew the database by (the raw answer cached,
# the rule's result and its findings). The ratios from one size to the next
# show the growth: 10 is linear; the bounds of src/answer.h make it less.
# A figure, not a test.
set -euo pipefail

runs=3
[ "${1:-}" = --runs ] && runs=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
REVLINE=${REVLINE:-$src/build/bin/revline}
[ -x "$REVLINE" ] || { echo "bench_answer: no revline at $REVLINE (set REVLINE)" >&2; exit 2; }
REVLINE=$(cd "$(dirname "$REVLINE")" && pwd)/$(basename "$REVLINE")
TMP=$(mktemp -d "${TMPDIR:-/tmp}/revline-bench-answer-XXXXXX")
# shellcheck source=tests/fakellm/fakellm.sh
. "$src/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; rm -rf "$TMP"' EXIT

export HOME=$TMP/home GIT_CONFIG_NOSYSTEM=1 LC_ALL=C.UTF-8
export REVLINE_DATADIR=$TMP/data REVLINE_DB=$TMP/revline.db OPENAI_API_KEY=sk-bench REVLINE_MODEL=fake-model
unset REVLINE_PROVIDER ANTHROPIC_API_KEY OPENAI_BASE_URL REVLINE_OSV_URL REVLINE_DEADLINE
mkdir -p "$HOME" "$TMP/data" "$TMP/rules"
ln -s "$src/share/prompts" "$TMP/data/prompts"

git init -q -b main "$TMP/repo"
cd "$TMP/repo"
printf 'import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd)\n' >app.py
git add -A && git -c user.name=b -c user.email=b@b commit -q -m base
printf 'import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd, shell=True)\n' >app.py

python3 - "$TMP" <<'EOF'
import json, os, sys
tmp = sys.argv[1]
code = "return subprocess.call(cmd, shell=True)"

def fill(size, make):
    items, n = [], 2
    while n < size:
        items.append(make(len(items)))
        n += len(json.dumps(items[-1])) + 2
    return items

shapes = {
    "findings": lambda size: {"status": "attention", "reasoning": "many", "findings": fill(size, lambda i: {
        "file": "app.py", "line": 5, "title": f"T{i}", "verification": {"code_examined": code}})},
    "references": lambda size: {"status": "attention", "reasoning": "".join(
        f"app.py:{i} " for i in range(1, size // 7))[:size]},
    "filerefs": lambda size: {"status": "attention", "reasoning": "see",
                              "file_references": fill(size, lambda i: f"app.py:{i + 1}")},
    "reasoning": lambda size: {"status": "compliant", "reasoning": "x" * size},
}
rules = [{"match": "Rule base:", "answer": json.dumps({"status": "compliant", "reasoning": "ok"})}]
for name, make in shapes.items():
    for size in (7000, 70000, 700000):
        rid = f"{name}-{size // 1000}k"
        rules.append({"match": f"Rule {rid}:", "answer": json.dumps(make(size))})
        with open(f"{tmp}/rules/{rid}.md", "w") as f:
            f.write(f"---\nid: {rid}\nseverity: major\n---\n# {rid}\n\nCheck the change.\n")
with open(f"{tmp}/rules/base.md", "w") as f:
    f.write("---\nid: base\nseverity: major\n---\n# base\n\nCheck the change.\n")
with open(f"{tmp}/script.json", "w") as f:
    json.dump({"rules": rules}, f)
EOF
fakellm_start "$TMP/script.json" "$TMP"
export REVLINE_BASE_URL=$FAKELLM_URL/v1

# One rule's check, the best of $runs: "cpu_ms rss_kb db_growth_bytes".
measure() {
	python3 - "$REVLINE" "$TMP" "$1" "$runs" <<'EOF'
import os, resource, subprocess, sys
revline, tmp, rule, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])

def db():
    return sum(os.path.getsize(os.path.join(tmp, f)) for f in os.listdir(tmp) if f.startswith("revline.db"))

best = None
for _ in range(runs):
    before = db()
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.execv(revline, [revline, "check", "--rules", f"{tmp}/rules", "--rule", rule, "--no-cache",
                           "--no-fix-detection", "--format", "json"])
    _, _, ru = os.wait4(pid, 0)
    got = (int((ru.ru_utime + ru.ru_stime) * 1000), ru.ru_maxrss, db() - before)
    # The database's growth is the first run's: later ones replace the cached answer.
    best = got if best is None else (min(best[0], got[0]), min(best[1], got[1]), best[2])
print(*best)
EOF
}

measure base >/dev/null    # the database is made once, before anything is measured
read -r base_cpu base_rss _ < <(measure base)
printf 'one-line answer: %d ms of CPU, %d KB peak RSS (subtracted below)\n\n' "$base_cpu" "$base_rss"
printf '%-11s %6s %9s %8s %10s   %s\n' shape answer "cpu ms" "rss KB" "db bytes" "ratios to the size before (cpu, rss, db)"
for shape in findings references filerefs reasoning; do
	prev=
	for size in 7 70 700; do
		read -r cpu rss grew < <(measure "$shape-${size}k")
		cpu=$((cpu > base_cpu ? cpu - base_cpu : 0))
		rss=$((rss > base_rss ? rss - base_rss : 0))
		ratios=
		if [ -n "$prev" ]; then
			ratios=$(python3 -c 'import sys
p = [int(x) for x in sys.argv[1].split()]
c = [int(x) for x in sys.argv[2:]]
print("  ".join("%.1fx" % (b / a) if a > 0 else "-" for a, b in zip(p, c)))' "$prev" "$cpu" "$rss" "$grew")
		fi
		printf '%-11s %5dK %9d %8d %10d   %s\n' "$shape" "$size" "$cpu" "$rss" "$grew" "$ratios"
		prev="$cpu $rss $grew"
	done
done
