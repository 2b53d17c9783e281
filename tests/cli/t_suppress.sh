# Inline suppression: a "revline: ignore RULE" comment on a finding's line
# or the line above hides that rule's finding there (an LLM rule's and a
# local pattern rule's), the report counts it and --show-suppressed shows it
# with the reason; other rules' findings on the line stay.
. "$(dirname "$0")/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

fake_llm_env

finding() { # TITLE
	printf '{"file": "app.py", "line": 5, "severity": "critical", "title": "%s", "issue": "i", "suggestion": "s", "verification": {"code_examined": "return subprocess.call(cmd, shell=True)", "line_range_examined": [1, 5], "verification_method": "read run()", "checked_for_handling_elsewhere": true}}' "$1"
}
cat >"$TMP/script.json" <<EOF
{"rules": [
 {"match": "Rule injection:", "answer": {"status": "attention", "reasoning": "r", "findings": [$(finding "Shell injection")]}},
 {"match": "Rule shellout:", "answer": {"status": "attention", "reasoning": "r", "findings": [$(finding "Shelling out")]}},
 {"answer": {"status": "compliant", "reasoning": "fine", "findings": []}}
]}
EOF
fakellm_start "$TMP/script.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1

rules=$TMP/rules
mkdir -p "$rules"
for id in injection shellout; do
	printf -- '---\nid: %s\nseverity: critical\n---\nCheck the change for %s.\n' "$id" "$id" >"$rules/$id.md"
done
cat >"$rules/debug.md" <<'EOF'
---
id: debug-print
severity: major
pattern: 'print\('
---
No debugging prints.
EOF

repo=$(new_repo work)
cd "$repo"
printf 'import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd)\n' >app.py
git add -A && git commit -q -m base
write() { # COMMENT-ON-LINE-5 LINE-ABOVE-THE-PRINT
	printf 'import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd, shell=True)%s\n\n%s\nprint(cmd)\n' "$1" "$2" >app.py
}
check() { run check --rules "$rules" --rule injection --rule shellout --rule debug-print --no-builtin \
	--no-fix-detection --fail-on major "$@"; }

write "" ""
check --format json
expect_status 1 "without a comment the findings fail the check"
python3 - "$TMP/out" <<'PY' && pass "three findings, none suppressed" || fail "json: $(head -c 400 "$TMP/out")"
import json, sys
fs = json.load(open(sys.argv[1]))["findings"]
assert sorted(f["rule_id"] for f in fs) == ["debug-print", "injection", "shellout"], fs
assert not any(f["suppressed"] for f in fs)
PY

write "  # revline: ignore injection" "# revline: ignore debug-print"
check
expect_status 1 "the other rule's finding on the line still fails the check"
grep -q "Shelling out" "$TMP/out" && pass "shellout's finding is reported" || fail "$(cat "$TMP/out")"
if grep -q "Shell injection" "$TMP/out" || grep -q "No debugging prints" "$TMP/out"; then
	fail "a suppressed finding was reported: $(cat "$TMP/out")"
else
	pass "injection's (same line) and the local rule's (line above) findings are hidden"
fi
grep -q "2 ignored by revline: ignore comments (--show-suppressed shows them)" "$TMP/out" &&
	pass "the report counts them" || fail "no count: $(tail -3 "$TMP/out")"

check --show-suppressed --format json
python3 - "$TMP/out" <<'PY' && pass "--show-suppressed shows them with the reason" || fail "json: $(head -c 600 "$TMP/out")"
import json, sys
fs = {f["rule_id"]: f for f in json.load(open(sys.argv[1]))["findings"]}
assert fs["injection"]["suppressed"] and fs["injection"]["suppressed_by"] == "revline: ignore at line 5", fs["injection"]
assert fs["debug-print"]["suppressed"] and fs["debug-print"]["suppressed_by"] == "revline: ignore at line 7", fs["debug-print"]
assert not fs["shellout"]["suppressed"] and fs["shellout"]["suppressed_by"] is None
PY
check --show-suppressed
grep -q "(ignored: revline: ignore at line 5)" "$TMP/out" && pass "text says why" || fail "$(cat "$TMP/out")"

write "  # revline: ignore" ""
check
grep -q "Shelling out\|Shell injection" "$TMP/out" && fail "a bare revline: ignore left a finding: $(cat "$TMP/out")" ||
	pass "a bare revline: ignore hides every rule's finding on the line"
finish
