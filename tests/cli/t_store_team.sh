# A team's shared store: two clones of one repository, by two people
# (git user.email), run 8 checks each at once against one PostgreSQL
# database (a real server the test starts, tests/testlib/pg.sh). All 16
# are stored whole, none fails on a lock or a deadlock, and a false
# positive that one clone marks is hidden in the other clone's next check.
. "$(dirname "$0")/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
. "$REVLINE_SOURCE_DIR/tests/testlib/pg.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT
pg_start

fake_llm_env
cat >"$TMP/script.json" <<'EOF'
{"rules": [
 {"match": "Rule injection:", "latency_ms": 50, "answer": {"status": "attention", "reasoning": "r", "findings": [{"file": "app.py", "line": 5, "severity": "critical", "title": "Shell injection", "issue": "i", "suggestion": "s", "verification": {"code_examined": "return subprocess.call(cmd, shell=True)", "line_range_examined": [1, 5], "verification_method": "read run()", "checked_for_handling_elsewhere": true}}]}},
 {"latency_ms": 50, "answer": {"status": "compliant", "reasoning": "fine", "findings": []}}
]}
EOF
fakellm_start "$TMP/script.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1 REVLINE_DB=$PG_URL
rules=$TMP/rules
mkdir -p "$rules"
for id in injection errors naming; do
	printf -- '---\nid: %s\nseverity: critical\n---\nCheck the change for %s.\n' "$id" "$id" >"$rules/$id.md"
done

origin=$(new_repo origin)
printf 'import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd)\n' >"$origin/app.py"
git -C "$origin" add -A && git -C "$origin" commit -q -m base
for who in ana bo; do
	git clone -q "$origin" "$TMP/$who"
	git -C "$TMP/$who" config user.email "$who@example.com"
	printf 'import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd, shell=True)\n' >"$TMP/$who/app.py"
done

# --- 2 x 8 checks at once --------------------------------------------------------
pids=()
for who in ana bo; do
	for i in 1 2 3 4 5 6 7 8; do
		(cd "$TMP/$who" && rc=0 && "$REVLINE" check --rules "$rules" --no-builtin --no-cache --no-fix-detection \
			--fail-on none --format json >"$TMP/$who.$i.out" 2>"$TMP/$who.$i.err" || rc=$?
		 echo "$rc" >"$TMP/$who.$i.rc") &
		pids+=($!)
	done
done
for pid in "${pids[@]}"; do wait "$pid"; done
bad=0
for who in ana bo; do
	for i in 1 2 3 4 5 6 7 8; do
		rc=$(cat "$TMP/$who.$i.rc" 2>/dev/null || echo "none")
		if [ "$rc" != 0 ] || [ -s "$TMP/$who.$i.err" ]; then
			bad=$((bad + 1))
			fail "$who's check $i: exit $rc: $(head -c 300 "$TMP/$who.$i.err") $(head -c 300 "$TMP/$who.$i.out")"
		fi
	done
done
[ "$bad" = 0 ] && pass "16 checks at once: each exits 0, nothing on stderr (no lock timeout, no deadlock)"
sql() { pg_psql -c "$1"; }
[ "$(sql "SELECT count(*) FROM checks WHERE status = 'complete'")" = 16 ] &&
	pass "all 16 checks are stored, complete" || fail "checks: $(sql "SELECT status, count(*) FROM checks GROUP BY status")"
[ "$(sql "SELECT count(*) FROM check_threadlines")" = 48 ] && [ "$(sql "SELECT count(*) FROM check_results")" = 48 ] &&
	pass "with their 48 rules and 48 results" ||
	fail "rules/results: $(sql "SELECT count(*) FROM check_threadlines"), $(sql "SELECT count(*) FROM check_results")"
[ "$(sql "SELECT count(*) FROM findings WHERE reduced = 0")" = 16 ] &&
	pass "and one finding each" || fail "findings: $(sql "SELECT check_id, count(*) FROM findings GROUP BY check_id")"
[ "$(sql "SELECT count(DISTINCT check_id) FROM findings WHERE reduced = 0")" = 16 ] &&
	pass "no check lost another's finding" || fail "findings by check: $(sql "SELECT check_id, count(*) FROM findings GROUP BY check_id")"

python3 - "$TMP/ana.1.out" <<'PY' && pass "a clone reviews against the merge base with its upstream, origin/main" || fail "base: $(head -c 400 "$TMP/ana.1.out")"
import json, sys
assert json.load(open(sys.argv[1]))["base"]["label"] == "merge base with origin/main"
PY

# --- a false positive marked in one clone, hidden in the other --------------------
finding=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["findings"][0]["id"])' "$TMP/ana.1.out")
(cd "$TMP/ana" && "$REVLINE" feedback "$finding" --false-positive --note "cmd is ours" >"$TMP/out" 2>"$TMP/err") &&
	pass "ana marks finding $finding false positive" || fail "feedback: $(cat "$TMP/err")"
cd "$TMP/bo"
run check --rules "$rules" --no-builtin --no-fix-detection --fail-on major --format json
expect_status 0 "bo's next check does not fail on it"
python3 - "$TMP/out" <<'PY' && pass "the finding is hidden in bo's clone" || fail "bo's report: $(head -c 500 "$TMP/out")"
import json, sys
assert json.load(open(sys.argv[1]))["findings"] == []
PY
finish
