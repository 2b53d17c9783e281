# A lock file's change alone in `revline check`: prettier's website/yarn.lock
# (berry) before and after Dependabot's transitive security bump
# (tests/fixtures/deps/locks/yarn-berry), committed with a message that
# claims another version. OSV (the fake server over real HTTP) is asked
# about every changed package, transitive ones too, in one querybatch, and
# each advisory's record once: one the bump fixes and one it brings, shown
# under the direct dependency that pulls them in, counted in the merge
# confidence; the store keeps the relation, via and claim.
. "$(dirname "$0")/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

locks=$REVLINE_SOURCE_DIR/tests/fixtures/deps/locks/yarn-berry
mkdir -p "$TMP/data/rules"
ln -s "$REVLINE_SOURCE_DIR/share/prompts" "$TMP/data/prompts"
printf -- '---\nid: deps\nseverity: major\n---\n# Dependencies stay safe\n\nCheck dependency changes.\n' \
	>"$TMP/data/rules/deps.md"
export REVLINE_DATADIR=$TMP/data REVLINE_DB=$TMP/revline.db
export OPENAI_API_KEY=sk-test REVLINE_MODEL=fake-model
unset REVLINE_PROVIDER ANTHROPIC_API_KEY OPENAI_BASE_URL REVLINE_OSV_URL

cat >"$TMP/script.json" <<'EOF'
{"rules": [
 {"match_path": "/v1/querybatch", "results": [
   {"match": ["\"follow-redirects\"", "\"1.15.11\""], "result": {"vulns": [{"id": "GHSA-r4q5-vmmm-2653"}]}},
   {"match": ["\"brace-expansion\"", "\"1.1.14\""], "result": {"vulns": [{"id": "GHSA-test-0001"}]}}]},
 {"match_path": "/v1/vulns/GHSA-r4q5-vmmm-2653", "body": {"id": "GHSA-r4q5-vmmm-2653",
  "summary": "follow-redirects leaks Custom Authentication Headers to Cross-Domain Redirect Targets",
  "database_specific": {"severity": "MODERATE"}}},
 {"match_path": "/v1/vulns/GHSA-test-0001", "body": {"id": "GHSA-test-0001",
  "summary": "A made-up advisory of the new brace-expansion",
  "severity": [{"type": "CVSS_V3", "score": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"}]}},
 {"match": "Rule deps:", "answer": {"status": "compliant", "reasoning": "-", "findings": []}},
 {"answer": {"status": "not_relevant", "reasoning": "-"}}
]}
EOF
fakellm_start "$TMP/script.json" || exit 1
export REVLINE_BASE_URL=$FAKELLM_URL/v1 REVLINE_OSV_URL=$FAKELLM_URL

repo=$(new_repo locks)
cd "$repo"
mkdir website
cp "$locks/old.lock" website/yarn.lock
git add -A && git commit -q -m base
cp "$locks/new.lock" website/yarn.lock
# A line of code beside it, so that the rule is asked (a lock file is never in a rule's diff).
printf 'module.exports = {};\n' >website/docusaurus.config.js
git add -A
git commit -q -m "Bump follow-redirects from 1.15.11 to 1.17.0"

json() { python3 -c "import json,sys; d=json.load(open('$TMP/out')); print($1)"; }
run check HEAD~1..HEAD --format json
expect_status 0 "check of the lock file's change"
[ "$(json "' '.join('%s:%s:%s:%s' % (p['name'], p['relation'], p['via'], p['lock']) for p in d['dependencies']['packages'])")" = \
	"brace-expansion:transitive:@docusaurus/core:website/yarn.lock follow-redirects:transitive:@docusaurus/core:website/yarn.lock" ] &&
	pass "both transitions, transitive via @docusaurus/core" ||
	fail "packages: $(json "d['dependencies']['packages']")"
[ "$(json "[(a['id'], a['severity'], a['fixed'], a['introduced']) for p in d['dependencies']['packages'] for a in p['advisories']]")" = \
	"[('GHSA-test-0001', 'critical', False, True), ('GHSA-r4q5-vmmm-2653', 'medium', True, False)]" ] &&
	pass "an advisory the bump brings (critical, from its CVSS vector) and one it fixes" ||
	fail "advisories: $(json "[p['advisories'] for p in d['dependencies']['packages']]")"
[ "$(json "[p['claimed'] for p in d['dependencies']['packages']]")" = "[None, '1.15.11 -> 1.17.0']" ] &&
	pass "the message's claim is held against the lock file" || fail "claimed: $(json "d['dependencies']['packages']")"
[ "$(json "d['dependencies']['merge_confidence']")" = low ] &&
	json "d['dependencies']['reason']" | grep -q "critical advisory GHSA-test-0001 in brace-expansion" &&
	pass "the transitive advisory counts in the merge confidence" ||
	fail "confidence: $(json "d['dependencies']['merge_confidence'], d['dependencies']['reason']")"

osv=$(fakellm_requests | python3 -c "
import json, sys
b = q = d = 0
for line in sys.stdin:
    r = json.loads(line)
    if r.get('path') == '/v1/querybatch':
        b += 1
        q += len(r['body']['queries'])
    d += r.get('path', '').startswith('/v1/vulns/')
print(b, q, d)")
[ "$osv" = "1 4 2" ] && pass "one querybatch of both versions of both packages, each record once" ||
	fail "OSV requests (batches, queries, records): $osv"
prompt=$(fakellm_requests | grep -m1 'chat/completions' || true)
printf '%s' "$prompt" | grep -q 'transitive, via @docusaurus/core' &&
	printf '%s' "$prompt" | grep -q 'GHSA-test-0001 in brace-expansion 1.1.14 (critical, brought by this bump)' &&
	pass "the prompt groups the advisories under the direct dependency, brought said" ||
	fail "prompt: $(printf '%s' "$prompt" | head -c 600)"

run check HEAD~1..HEAD --format text --no-cache
expect_out "brace-expansion .* transitive (via @docusaurus/core)" "the text report says the relation"
expect_out "GHSA-test-0001 (critical, brought by this bump)" "and which advisory the bump brings"
expect_out "the commit message says 1.15.11 -> 1.17.0; website/yarn.lock says otherwise" "and the claim"

stored() { python3 -c "import sqlite3; print(sqlite3.connect('$REVLINE_DB').execute(\"$1\").fetchone()[0])"; }
[ "$(stored "SELECT relation || ' ' || via || ' ' || claimed FROM check_packages WHERE name = 'follow-redirects' ORDER BY id DESC LIMIT 1")" = \
	"transitive @docusaurus/core 1.15.11 -> 1.17.0" ] && pass "the store keeps the relation, via and claim" ||
	fail "stored: $(stored "SELECT relation || ' ' || coalesce(via, '-') || ' ' || coalesce(claimed, '-') FROM check_packages ORDER BY id DESC LIMIT 1")"
finish
