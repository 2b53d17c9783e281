# An impact finding: a problem the change causes in code it did not touch (a
# caller it breaks), which the model saw in the context pack. Through revline
# check against the fake LLM over real HTTP, on a real repository with the
# real universal-ctags: the finding that quotes web/api.py's stale call is
# checked against web/api.py and verified, one that quotes code web/api.py
# does not have is not, one citing a file that does not exist neither; the
# text report, the JSON and SARIF (valid against the 2.1.0 schema) say it is
# an impact finding and, in SARIF, what of the repository's context
# concerns each finding (the run's context, each result's items and reads);
# a rule with context: none says so.
. "$(dirname "$0")/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

command -v ctags-universal >/dev/null || command -v universal-ctags >/dev/null ||
	{ ctags --version 2>/dev/null | grep -q 'Universal Ctags'; } ||
	{ echo "skip: universal-ctags is not installed"; exit 77; }

fake_llm_env
cat >"$TMP/script.json" <<'EOF'
{"rules": [
 {"match": "Rule callers:", "answer": {"status": "attention", "reasoning": "verify lost leeway.", "findings": [
   {"file": "web/api.py", "line": 3, "severity": "critical", "title": "login still passes leeway", "issue": "TypeError on every login.", "suggestion": "Drop leeway=5.", "verification": {"code_examined": "if not verify(user, request.token, leeway=5):", "line_range_examined": [4, 8], "verification_method": "Read the callers in the context.", "checked_for_handling_elsewhere": true, "where_checked": "tests/test_auth.py", "is_impact_finding": true}},
   {"file": "web/api.py", "line": 7, "severity": "major", "title": "a second call", "issue": "Made up.", "verification": {"code_examined": "verify(user, request.token, strict=True)", "verification_method": "made up", "is_impact_finding": true}},
   {"file": "web/gone.py", "line": 1, "severity": "major", "title": "a file that is not there", "issue": "Made up.", "verification": {"code_examined": "verify(a, b, leeway=1)", "verification_method": "made up", "is_impact_finding": true}}]}},
 {"match": "Rule plain:", "answer": {"status": "attention", "reasoning": "r", "findings": [
   {"file": "app/auth.py", "line": 4, "severity": "minor", "title": "no deprecation", "issue": "Callers break at once.", "verification": {"code_examined": "def verify(user, token):", "verification_method": "read it", "is_impact_finding": false}}]}},
 {"answer": {"status": "compliant", "reasoning": "fine", "findings": []}}
]}
EOF
fakellm_start "$TMP/script.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1

rules=$TMP/rules
mkdir -p "$rules"
printf -- '---\nid: callers\nseverity: major\n---\nA change must not break its callers.\n' >"$rules/callers.md"
printf -- '---\nid: plain\nseverity: minor\ncontext: none\n---\nCheck the change alone.\n' >"$rules/plain.md"

repo=$(new_repo work)
cd "$repo"
mkdir -p app web tests
printf 'import hmac\n\n\ndef verify(user, token, leeway=0):\n    return hmac.compare_digest(user, token)\n' >app/auth.py
cat >web/api.py <<'EOF'
from app.auth import verify


def login(request):
    user = request.user
    if not verify(user, request.token, leeway=5):
        return 401
    return 200
EOF
printf 'from app.auth import verify\n\n\ndef test_verify():\n    assert not verify("ana", "x")\n' >tests/test_auth.py
git add -A && git commit -q -m base
printf 'import hmac\n\n\ndef verify(user, token):\n    return hmac.compare_digest(user, token)\n' >app/auth.py

run check --rules "$rules" --no-builtin --show-unverified --fail-on none
expect_status 0 "a check with impact findings"
grep -Eq '^  critical web/api\.py:6  login still passes leeway  #[0-9]+  \(impact: outside the diff\)$' "$TMP/out" &&
	pass "text: the impact finding says so, at the line its code is on" || fail "text impact: $(cat "$TMP/out")"
grep -q '      verified: the quoted code is at line 6 of web/api.py (the answer said 3), outside the diff (an impact finding)$' "$TMP/out" &&
	pass "text: verified against web/api.py, outside the diff" || fail "text verified: $(cat "$TMP/out")"
grep -q '      NOT verified: the quoted code is not in web/api.py (outside the diff: an impact finding)$' "$TMP/out" &&
	pass "text: made-up code in the file outside the diff is not verified" || fail "text unverified: $(cat "$TMP/out")"
grep -q '      NOT verified: web/gone.py is neither in the diff nor in the repository$' "$TMP/out" &&
	pass "text: a file that is not there is said" || fail "text gone: $(cat "$TMP/out")"
grep -E '^  minor +app/auth\.py:4  no deprecation' "$TMP/out" | grep -vq impact &&
	pass "text: a finding in the diff is not called an impact finding" || fail "text plain: $(cat "$TMP/out")"

run check --rules "$rules" --no-builtin --format json --fail-on none
python3 - "$TMP/out" <<'PY' && pass "json: is_impact_finding and the verdict; unverified ones hidden" || fail "json: $(head -c 2000 "$TMP/out")"
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["title"]: x for x in d["findings"]}
assert set(f) == {"login still passes leeway", "no deprecation"}, f.keys()
g = f["login still passes leeway"]
assert g["evidence"]["is_impact_finding"] and g["verified"] and g["file"] == "web/api.py" and g["line"] == 6, g
assert not f["no deprecation"]["evidence"]["is_impact_finding"]
PY

run check --rules "$rules" --no-builtin --format sarif --fail-on none
expect_status 0 "sarif"
python3 - "$TMP/out" "$REVLINE_SOURCE_DIR/tests/fixtures/sarif-schema-2.1.0.json" <<'PY' && pass "SARIF: valid; the run's context, each result's impact and the context that concerns it" || fail "SARIF: $(head -c 3000 "$TMP/out")"
import json, sys, jsonschema
doc, schema = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
jsonschema.validate(doc, schema)
run = doc["runs"][0]
ctx = run["properties"]["context"]
assert ctx["mode"] == "tools" and ctx["built"], ctx
items = ctx["items"]
api = [i for i, it in enumerate(items) if it["kind"] == "callers" and it["path"] == "web/api.py"]
tests = [i for i, it in enumerate(items) if it["kind"] == "callers" and it["path"] == "tests/test_auth.py"]
assert len(api) == 1 and len(tests) == 1 and items[api[0]]["sent"], items
res = {r["message"]["text"].split(":")[0]: r for r in run["results"]}
impact = res["login still passes leeway"]["properties"]
assert impact["impactFinding"] is True and impact["verified"] is True, impact
# its file's callers, and the test file it names in where_checked
assert impact["context"] == {"given": "pack", "items": sorted(api + tests), "reads": []}, impact
# what revline could not verify never enters the merged report
assert set(res) == {"login still passes leeway", "no deprecation"}, res.keys()
plain = res["no deprecation"]["properties"]
assert plain["impactFinding"] is False and plain["context"] == {"given": "off", "items": [], "reads": []}, plain
PY
[ "$failures" -eq 0 ]
