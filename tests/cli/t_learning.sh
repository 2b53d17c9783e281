# Feedback that works: a finding marked false positive is suppressed when it
# comes back, and the rule's next prompt carries it as an example not to
# report (and accepted findings as examples to keep).
. "$(dirname "$0")/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

mkdir -p "$TMP/data/rules"
ln -s "$REVLINE_SOURCE_DIR/share/prompts" "$TMP/data/prompts"
export REVLINE_DATADIR=$TMP/data REVLINE_DB=$TMP/revline.db REVLINE_MODEL=fake-model
unset OPENAI_API_KEY ANTHROPIC_API_KEY REVLINE_PROVIDER OPENAI_BASE_URL

shell='{"file": "tools/run.py", "line": 3, "severity": "major", "title": "Shell command", "issue": "shell=True with a string", "verification": {"code_examined": "subprocess.call(CLEANUP, shell=True)"}}'
sql='{"file": "tools/db.py", "line": 2, "severity": "critical", "title": "SQL from input", "issue": "string formatting in SQL", "verification": {"code_examined": "db.execute(\"DELETE FROM t WHERE id = %s\" % ident)"}}'
cat >"$TMP/script.json" <<EOF
{"rules": [
 {"match": "Rule inj:", "answer": {"status": "attention", "reasoning": "r", "findings": [$shell, $sql]}}
]}
EOF
fakellm_start "$TMP/script.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1

rules=$TMP/rules
mkdir -p "$rules"
printf -- '---\nid: inj\npatterns: ["**/*.py"]\n---\n# No injection\n\nNo shell or SQL built from strings.\n' >"$rules/inj.md"
repo=$(new_repo learn)
cd "$repo"
mkdir -p tools
printf 'import subprocess\nCLEANUP = "rm -rf build"\n' >tools/run.py
printf 'def remove(db, ident):\n    pass\n' >tools/db.py
git add -A && git commit -q -m base
printf 'import subprocess\nCLEANUP = "rm -rf build"\nsubprocess.call(CLEANUP, shell=True)\n' >tools/run.py
printf 'def remove(db, ident):\n    db.execute("DELETE FROM t WHERE id = %%s" %% ident)\n' >tools/db.py

# The user message of the rule's latest request (not the reduce step's).
last_prompt() {
	fakellm_requests | python3 -c 'import json, sys
reqs = [json.loads(l) for l in sys.stdin]
print([r for r in reqs if "Rule inj:" in json.dumps(r["body"])][-1]["body"]["messages"][1]["content"])'
}

run check --rules "$rules" --format json --fail-on none --no-fix-detection
ids=$(python3 -c "
import json; d = json.load(open('$TMP/out'))
print(' '.join(str(f['id']) for f in sorted(d['findings'], key=lambda f: f['file'], reverse=True)))")
set -- $ids
shell_id=$1 sql_id=$2
[ -n "$shell_id" ] && [ -n "$sql_id" ] && pass "two findings with ids ($shell_id, $sql_id)" || fail "no finding ids: $(head -c 400 "$TMP/out")"
last_prompt | grep -q "marked as false positives" && fail "an example before any feedback" || pass "no examples before any feedback"

run feedback "$shell_id" --false-positive --note "CLEANUP is a constant, no input reaches it"
expect_status 0 "marked false positive"
run feedback "$sql_id" --accept
expect_status 0 "accepted"

# The same finding again: suppressed, counted, shown only when asked.
run check --rules "$rules" --fail-on none --no-fix-detection
expect_out "1 marked false positive before, hidden" "the rule's line counts the suppressed finding"
expect_out "1 suppressed as false positives (--show-suppressed shows them)" "the summary counts it"
if grep -q "Shell command" "$TMP/out"; then fail "the false positive is shown again"; else pass "the false positive is not shown again"; fi
expect_out "SQL from input" "the accepted finding is still reported"
run check --rules "$rules" --fail-on none --no-fix-detection --show-suppressed
expect_out "Shell command .*(marked false positive before)" "--show-suppressed shows it, marked"
run check --rules "$rules" --fail-on none --no-fix-detection --format json
python3 -c "
import json; d = json.load(open('$TMP/out'))
assert [f['title'] for f in d['findings']] == ['SQL from input'], d['findings']" &&
	pass "json: the suppressed finding left out of the report" || fail "json findings: $(head -c 500 "$TMP/out")"
python3 - "$REVLINE_DB" <<'PY' && pass "stored as suppressed" || fail "not stored as suppressed"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT suppressed FROM findings WHERE title = 'Shell command' AND reduced = 0 ORDER BY id").fetchall()
assert [r[0] for r in rows][:1] == [0] and rows[-1][0] == 1, rows
PY

# The next prompt learns: the false positive as an example not to report, the accepted one to keep.
last_prompt >"$TMP/prompt"
grep -q "marked as false positives" "$TMP/prompt" && grep -q "CLEANUP is a constant" "$TMP/prompt" &&
	grep -q "subprocess.call(CLEANUP, shell=True)" "$TMP/prompt" &&
	pass "the false positive is in the rule's next prompt, with its note and code" ||
	fail "no false-positive example in: $(head -c 3000 "$TMP/prompt")"
grep -q "confirmed" "$TMP/prompt" && grep -q 'DELETE FROM t WHERE id' "$TMP/prompt" &&
	pass "the accepted finding is in the prompt as an example to keep" || fail "no accepted example"

# An accept on the same fingerprint lifts the suppression.
first=$(python3 -c "import sqlite3; print(sqlite3.connect('$REVLINE_DB').execute(\"SELECT max(id) FROM findings WHERE title = 'Shell command' AND reduced = 0\").fetchone()[0])")
run feedback "$first" --accept
run check --rules "$rules" --fail-on none --no-fix-detection
expect_out "Shell command" "accepted later: shown again"
finish
