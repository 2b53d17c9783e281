# The standards a team already wrote for its coding agents (AGENTS.md,
# CLAUDE.md, .cursorrules, .cursor/rules/*.mdc, .github/copilot-
# instructions.md) reach every reviewer as context, in the shared part of
# the prompt; bounded, never read through a link out of the tree; off with
# revline.projectStandards=false; `revline rules` says which were read.
. "$(dirname "$0")/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

fake_llm_env

cat >"$TMP/script.json" <<'EOF'
{"rules": [{"answer": {"status": "compliant", "reasoning": "fine", "findings": []}}]}
EOF
fakellm_start "$TMP/script.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1

rules=$TMP/rules
mkdir -p "$rules"
for id in one two; do
	printf -- '---\nid: %s\nseverity: major\n---\nCheck the change for %s problems.\n' "$id" "$id" >"$rules/$id.md"
done

repo=$(new_repo work)
cd "$repo"
printf 'def f():\n    return 1\n' >app.py
git add -A && git commit -q -m base
printf 'def f():\n    return 2\n' >app.py
printf '# Agents\n\nAlways log through house_logger, never print (AGENTS-MARK).\n' >AGENTS.md
printf 'CLAUDE-MARK: prefer small functions.\n' >CLAUDE.md
mkdir -p .cursor/rules .github
printf 'CURSOR-MARK: no globals.\n' >.cursor/rules/style.mdc
python3 -c 'print("BIG-MARK " + "x" * 40000)' >.cursorrules
ln -s /etc/passwd .github/copilot-instructions.md

prompts() { fakellm_requests | python3 -c '
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    msgs = r.get("body", {}).get("messages", [])
    print(json.dumps("\n".join(m["content"] if isinstance(m["content"], str) else json.dumps(m["content"]) for m in msgs)))
'; }

run check --rules "$rules" --rule one --rule two --no-builtin --no-fix-detection --fail-on none --format json
expect_status 0 "a check with the project's standards"
prompts >"$TMP/prompts"
python3 - "$TMP/prompts" <<'PY' && pass "every rule's prompt has AGENTS.md, CLAUDE.md, the .mdc rule, in the shared part" || fail "prompts: $(head -c 600 "$TMP/prompts")"
import json, sys
ps = [json.loads(l) for l in open(sys.argv[1])]
assert len(ps) == 2, len(ps)
for p in ps:
    for mark in ("AGENTS-MARK", "CLAUDE-MARK", "CURSOR-MARK", "BIG-MARK", "# The project's own standards"):
        assert mark in p, mark
    # Before the rule's own part: the shared prefix the provider caches.
    assert p.index("AGENTS-MARK") < p.index("Check the change for"), "standards after the rule"
    assert "root:" not in p, "a link out of the tree was read"
    assert p.count("x" * 1000) <= 16, "the big file was not cut"
# The two rules' prompts begin with the same bytes up to the rule.
a, b = ps
shared = a[:a.index("Check the change for")]
assert b.startswith(shared[: shared.index("CURSOR-MARK")]), "the shared part differs"
PY
python3 - "$TMP/out" <<'PY' && pass "the report names what was cut or left out" || fail "notes: $(head -c 600 "$TMP/out")"
import json, sys
notes = json.load(open(sys.argv[1]))["notes"]
assert any(".cursorrules: cut to fit" in n for n in notes), notes
assert any(".github/copilot-instructions.md: not read" in n and "outside the working tree" in n for n in notes), notes
PY

run rules --rules "$rules" --no-builtin
expect_status 0 "revline rules"
grep -q "^Project standards, given to every reviewer as context: AGENTS.md, CLAUDE.md, .cursorrules, .cursor/rules/style.mdc$" "$TMP/out" &&
	pass "revline rules lists the files read" || fail "rules: $(tail -4 "$TMP/out")"

git config revline.projectStandards false
before=$(fakellm_requests | wc -l)
run check --rules "$rules" --rule one --no-builtin --no-fix-detection --no-cache --fail-on none
expect_status 0 "a check with the standards off"
fakellm_requests | tail -n +$((before + 1)) >"$TMP/last"
if [ -s "$TMP/last" ] && ! grep -q "AGENTS-MARK" "$TMP/last"; then
	pass "revline.projectStandards=false: not sent"
else
	fail "the standards were sent while off (or no request)"
fi
run rules --rules "$rules" --no-builtin
grep -q "^Project standards: off (revline.projectStandards is false)$" "$TMP/out" && pass "revline rules says they are off" ||
	fail "rules: $(tail -2 "$TMP/out")"
finish
