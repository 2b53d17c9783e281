# SIGKILL at any instant of a check loses nothing it had shown. A check of
# eight rules, whose answers arrive over about a second from the fake
# server, is killed at 30 instants spread over it (from before the store is
# open to after the report). After each kill: the database is whole
# (integrity_check), every rule the output had printed has its result in
# the database, a check recorded complete has all eight results and its
# report, and a check killed midway is not complete: it is 'running' until
# the next revline opens the database, which marks it 'interrupted'.
. "$(dirname "$0")/../cli/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

mkdir -p "$TMP/data" "$TMP/rules" "$TMP/runs"
ln -s "$REVLINE_SOURCE_DIR/share/prompts" "$TMP/data/prompts"
db=$TMP/revline.db
export REVLINE_DATADIR=$TMP/data REVLINE_DB=$db
export OPENAI_API_KEY=sk-test REVLINE_MODEL=fake-model
unset REVLINE_PROVIDER ANTHROPIC_API_KEY OPENAI_BASE_URL REVLINE_OSV_URL

rules=()
script='{"rules": ['
for i in 1 2 3 4 5 6 7 8; do
	printf -- '---\nid: r%s\nseverity: major\n---\n# Rule r%s\n\nCheck the change.\n' "$i" "$i" >"$TMP/rules/r$i.md"
	rules+=(--rule "r$i")
	# r1, r3, r5, r7 find something; the answers arrive 70 ms apart.
	if [ $((i % 2)) = 1 ]; then
		answer='{"status": "attention", "reasoning": "r", "findings": [{"file": "app.py", "line": 2, "severity": "minor", "title": "Eval '$i'", "issue": "i", "suggestion": "s", "verification": {"code_examined": "return eval(cmd)", "line_range_examined": [1, 2], "verification_method": "m", "checked_for_handling_elsewhere": true}}]}'
	else
		answer='{"status": "compliant", "reasoning": "ok"}'
	fi
	script+='{"match": "Rule r'$i':", "latency_ms": '$((i * 70))', "answer": '$answer'},'
done
script+='{"match": "synthesizing", "latency_ms": 100, "answer": {"summary": "Evals.", "overallSeverity": "minor-issues", "mustFix": [], "findings": []}}]}'
printf '%s\n' "$script" >"$TMP/script.json"
fakellm_start "$TMP/script.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1

repo=$(new_repo kill)
cd "$repo"
printf 'def run(cmd):\n    return cmd\n' >app.py
git add -A && git commit -q -m base
printf 'def run(cmd):\n    return eval(cmd)\n' >app.py

check=(check --rules "$TMP/rules" "${rules[@]}" --no-cache --no-fix-detection --fail-on none --concurrency 8)

# A whole check first: how long one takes, and that it is stored complete.
start=$(date +%s%N)
run "${check[@]}"
took_ms=$((($(date +%s%N) - start) / 1000000))
expect_status 0 "an unkilled check"
[ "$(grep -c '^\(attention\|compliant\) *r[0-9]' "$TMP/out")" = 8 ] && pass "it prints all eight rules (${took_ms} ms)" ||
	fail "an unkilled check printed: $(cat "$TMP/out")"

# The kills: instant k of 30 is k/30 of 1.2 times the whole check, from 5 ms.
# Each revline opens the database after the kill before it, and so marks
# the check killed before it interrupted.
for k in $(seq 0 29); do
	ms=$((5 + k * took_ms * 12 / 10 / 30))
	"$REVLINE" "${check[@]}" >"$TMP/runs/$k.out" 2>"$TMP/runs/$k.err" &
	pid=$!
	echo "$k $pid" >>"$TMP/runs/pids"
	sleep "$(awk -v ms="$ms" 'BEGIN { printf "%.3f", ms / 1000 }')"
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
done

# Each kill's check is found by the pid that ran it (checks.pid). Columns:
# instant, status before the next open, rules printed, printed but not
# stored, results stored, report findings stored.
python3 - "$db" "$TMP/runs" >"$TMP/runs/state" <<'PY'
import os, re, sqlite3, sys
db, runs = sys.argv[1], sys.argv[2]
c = sqlite3.connect(db)
print("integrity", c.execute("PRAGMA integrity_check").fetchone()[0])
for line in open(os.path.join(runs, "pids")):
    k, pid = line.split()
    printed = set(re.findall(r"^(?:attention|compliant|not_relevant|error|timeout|skipped) +(r\d)\b",
                             open(os.path.join(runs, k + ".out")).read(), re.M))
    row = c.execute("SELECT id, status FROM checks WHERE pid = ? ORDER BY id DESC LIMIT 1", (int(pid),)).fetchone()
    check, status = row if row else (0, "-")
    stored = {r[0] for r in c.execute("SELECT t.threadline_id FROM check_results r JOIN check_threadlines t "
                                      "ON t.id = r.check_threadline_id WHERE t.check_id = ?", (check,))}
    report = c.execute("SELECT count(*) FROM findings WHERE check_id = ? AND reduced = 1", (check,)).fetchone()[0]
    print(k, status, len(printed), ",".join(sorted(printed - stored)) or "-", len(stored), report)
PY
state=$(cat "$TMP/runs/state")
runs=$(grep -v '^integrity' <<<"$state")
[ "$(sed -n 's/^integrity //p' <<<"$state")" = ok ] && pass "the database is whole after 30 kills" ||
	fail "integrity after the kills: $(grep '^integrity' <<<"$state")"
lost=$(awk '$4 != "-"' <<<"$runs")
[ -z "$lost" ] && pass "every rule printed before a kill has its result stored" ||
	fail "printed, then lost by the kill (instant status printed LOST stored report): $lost"
complete_short=$(awk '$2 == "complete" && ($5 != 8 || $6 == 0)' <<<"$runs")
[ -z "$complete_short" ] && pass "no check is recorded complete without all its results and its report" ||
	fail "complete with something missing: $complete_short"
midway=$(awk '$2 != "complete" && $3 > 0 && $3 < 8' <<<"$runs" | wc -l)
early=$(awk '$3 == 0' <<<"$runs" | wc -l)
[ "$midway" -ge 5 ] && [ "$early" -ge 1 ] && pass "kills fell early ($early) and midway, with some rules printed ($midway)" ||
	fail "the kills missed the check: $early early, $midway midway: $runs"
# Every check but the last was marked by the revline after it; the last is
# left to the next open.
marked=$(head -n -1 <<<"$runs" | awk '$2 != "complete" && $2 != "interrupted" && $2 != "-"')
[ -z "$marked" ] && pass "each killed check was marked interrupted by the next revline" ||
	fail "killed checks not marked interrupted by the next run: $marked"
last=$(tail -n 1 <<<"$runs" | awk '{ print $2 }')
case $last in
complete | running | -) pass "the last kill left its check $last (no revline has opened the database since)" ;;
*) fail "the last killed check is '$last'" ;;
esac

# Recovery: the next revline marks the check whose process is gone.
"$REVLINE" history >/dev/null
statuses=$(python3 -c 'import sqlite3, sys; print(" ".join(sorted({r[0] for r in sqlite3.connect(sys.argv[1]).execute("SELECT status FROM checks")})))' "$db")
case $statuses in
*running*) fail "a check is still running after the next open: $statuses" ;;
"complete interrupted") pass "after the next open every check is complete or interrupted" ;;
*) fail "statuses after the next open: $statuses" ;;
esac

finish
