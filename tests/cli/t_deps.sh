# Dependency bumps in `revline check`: the manifests' transitions with
# their bumps, a Dependabot branch, advisories from OSV (the fake
# server over real HTTP), the merge confidence, the section the map
# prompts carry, the text/JSON/markdown outputs, what is stored, the
# shorter timeout of a dependency-only change, and OSV failing or slow
# without holding the check past its budget.
. "$(dirname "$0")/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

mkdir -p "$TMP/data/rules"
ln -s "$REVLINE_SOURCE_DIR/share/prompts" "$TMP/data/prompts"
cat >"$TMP/data/rules/deps.md" <<'EOF'
---
id: deps
severity: major
---
# Dependencies stay safe

Check that dependency changes are safe.
EOF
export REVLINE_DATADIR=$TMP/data REVLINE_DB=$TMP/revline.db
export OPENAI_API_KEY=sk-test REVLINE_MODEL=fake-model
unset REVLINE_PROVIDER ANTHROPIC_API_KEY OPENAI_BASE_URL REVLINE_OSV_URL

repo=$(new_repo deps)
cd "$repo"
cat >package.json <<'EOF'
{
  "name": "shop",
  "version": "1.0.0",
  "dependencies": {
    "express": "^4.18.2",
    "lodash": "4.17.20"
  },
  "devDependencies": {
    "jest": "~29.6.0"
  }
}
EOF
printf '{"lockfileVersion": 3, "packages": {"node_modules/lodash": {"version": "4.17.20"}}}\n' >package-lock.json
printf 'module example.com/shop\n\ngo 1.21\n\nrequire (\n\tgithub.com/pkg/errors v0.9.1\n\tgolang.org/x/net v0.17.0 // indirect\n)\n' >go.mod
git add -A && git commit -q -m base
git checkout -q -b dependabot/npm_and_yarn/lodash-4.17.21
cat >package.json <<'EOF'
{
  "name": "shop",
  "version": "1.0.0",
  "dependencies": {
    "express": "^5.0.0",
    "lodash": "4.17.21"
  },
  "devDependencies": {
    "jest": "~29.7.0"
  }
}
EOF
printf '{"lockfileVersion": 3, "packages": {"node_modules/lodash": {"version": "4.17.21"}}}\n' >package-lock.json
printf 'module example.com/shop\n\ngo 1.21\n\nrequire (\n\tgithub.com/pkg/errors v0.9.1\n\tgolang.org/x/net v0.23.0 // indirect\n)\n' >go.mod
git add -A && git commit -q -m "Bump lodash from 4.17.20 to 4.17.21" -m "Bumps [lodash](https://github.com/lodash/lodash) from 4.17.20 to 4.17.21."
git branch -q --set-upstream-to=main 2>/dev/null || git config branch.dependabot/npm_and_yarn/lodash-4.17.21.merge refs/heads/main

cat >"$TMP/script.json" <<'EOF'
{"rules": [
 {"match_path": "/v1/querybatch", "results": [
   {"match": ["\"lodash\"", "\"4.17.20\""], "result": {"vulns": [{"id": "GHSA-35jh-r3h4-6jhm", "modified": "2024-03-01T00:00:00Z"}]}},
   {"match": ["\"golang.org/x/net\"", "\"0.17.0\""], "result": {"vulns": [{"id": "GO-2023-2102", "modified": "2024-03-01T00:00:00Z"}]}}]},
 {"match_path": "/v1/vulns/GHSA-35jh-r3h4-6jhm", "body": {"id": "GHSA-35jh-r3h4-6jhm",
  "summary": "Command Injection in lodash", "database_specific": {"severity": "HIGH"}}},
 {"match_path": "/v1/vulns/GO-2023-2102", "body": {"id": "GO-2023-2102",
  "summary": "HTTP/2 rapid reset can cause excessive work in net/http", "database_specific": {"severity": "MODERATE"}}},
 {"match": "Rule deps:", "answer": {"status": "compliant", "reasoning": "The bumps are fine.", "findings": []}},
 {"answer": {"status": "not_relevant", "reasoning": "-"}}
]}
EOF
fakellm_start "$TMP/script.json" || exit 1
export REVLINE_BASE_URL=$FAKELLM_URL/v1 REVLINE_OSV_URL=$FAKELLM_URL

run check --base main --format json
expect_status 0 "check of a dependency bump"
json() { python3 -c "import json,sys; d=json.load(open('$TMP/out')); print($1)"; }
[ "$(json "d['dependencies']['bot']")" = dependabot ] && pass "the Dependabot branch is told" || fail "bot: $(json "d['dependencies']")"
[ "$(json "d['dependencies']['dependency_only']")" = True ] && pass "the change is dependencies only" || fail "dependency_only"
[ "$(json "' '.join(p['name'] + ':' + p['bump'] for p in d['dependencies']['packages'])")" = \
	"golang.org/x/net:major express:major jest:minor lodash:patch" ] &&
	pass "each package's bump, from the manifests (0.x minor is major)" ||
	fail "packages: $(json "[(p['name'], p['bump']) for p in d['dependencies']['packages']]")"
[ "$(json "[p for p in d['dependencies']['packages'] if p['name'] == 'express'][0]['breaking']")" = True ] &&
	pass "a major bump is breaking" || fail "express not breaking"
[ "$(json "[a for p in d['dependencies']['packages'] for a in p['advisories'] if p['name'] == 'lodash'][0]['fixed']")" = True ] &&
	pass "the lodash advisory is fixed by the bump" || fail "lodash advisory: $(json "d['dependencies']['packages']")"
[ "$(json "[a for p in d['dependencies']['packages'] for a in p['advisories'] if p['name'] == 'golang.org/x/net'][0]['severity']")" = medium ] &&
	pass "OSV's MODERATE is medium" || fail "x/net advisory"
[ "$(json "d['dependencies']['merge_confidence']")" = low ] && pass "a high advisory makes the confidence low" ||
	fail "confidence: $(json "d['dependencies']['merge_confidence'], d['dependencies']['reason']")"
json "d['dependencies']['reason']" | grep -q "GHSA-35jh-r3h4-6jhm" && pass "the reason names the advisory" ||
	fail "reason: $(json "d['dependencies']['reason']")"
json "d['timeout']['reason']" | grep -q "dependency-only" && [ "$(json "int(d['timeout']['chosen_s'])")" = 60 ] &&
	pass "a dependency-only change gets half the timeout (60 s)" || fail "timeout: $(json "d['timeout']")"
[ "$(json "d['rules'][0]['timeout_ms'] // 1000")" -ge 60 ] && [ "$(json "d['rules'][0]['timeout_ms'] // 1000")" -lt 120 ] &&
	pass "the rule's requests got it" || fail "rule timeout: $(json "d['rules'][0]['timeout_ms']")"

fakellm_requests >"$TMP/requests"
prompt=$(python3 -c "
import json
for line in open('$TMP/requests'):
    r = json.loads(line)
    if 'chat/completions' in r.get('path', ''):
        print(json.dumps(r))
" | head -n 1)
printf '%s' "$prompt" | grep -q "# Dependencies" && pass "the map prompt carries the dependency section" ||
	fail "no section in the prompt"
printf '%s' "$prompt" | grep -q "Do not review lock files line by line" && pass "and says not to read lock files" ||
	fail "no lock-file line"
printf '%s' "$prompt" | grep -q 'node_modules/lodash' && fail "the lock file went into the diff" ||
	pass "the lock file is not in the rule's diff"
osv=$(python3 -c "
import json
n = b = d = 0
for line in open('$TMP/requests'):
    r = json.loads(line)
    if r.get('path') == '/v1/querybatch':
        b += 1
        n += len(r['body']['queries'])
    d += r.get('path', '').startswith('/v1/vulns/')
print(b, n, d)
")
[ "$osv" = "1 8 2" ] && pass "OSV was asked for the old and new versions, in one batch; each advisory's details once" ||
	fail "OSV requests (batches, queries, details): $osv"

stored() { python3 -c "import sqlite3; print(sqlite3.connect('$REVLINE_DB').execute(\"$1\").fetchone()[0])"; }
[ "$(stored "SELECT count(*) FROM check_packages")" = 4 ] && pass "the packages are stored with the check" || fail "stored packages"
[ "$(stored "SELECT confidence || ' ' || bot FROM check_dependencies")" = "low dependabot" ] &&
	pass "and the analysis" || fail "stored analysis"
[ "$(stored "SELECT CAST(timeout_chosen AS INTEGER) FROM checks ORDER BY id DESC LIMIT 1")" = 60 ] &&
	pass "and the chosen timeout" || fail "stored timeout"

run check --base main --format text
expect_status 0 "text"
expect_out "^Dependencies (npm, go; a dependabot change; dependencies only)" "the section's heading"
expect_out "^  express .* \^4.18.2 -> \^5.0.0  major  breaking" "a package line"
expect_out "GHSA-35jh-r3h4-6jhm (high, fixed by this bump)" "an advisory line"
expect_out "merge confidence: low" "the confidence"
expect_out "^requests' timeout: 60 s (dependency-only change" "the timeout line"
run check --base main --format markdown
expect_out "^| \`express\` | npm | ^4.18.2 | ^5.0.0 | major | 0 | \*\*yes\*\* |" "the markdown table"

# OSV failing, or slower than the 5 s a request may take: the check goes on.
fakellm_stop
cat >"$TMP/slow.json" <<'EOF'
{"rules": [
 {"match_path": "/v1/querybatch", "match": "\"lodash\"", "latency_ms": 8000, "body": {"results": []}},
 {"match": "Rule deps:", "answer": {"status": "compliant", "reasoning": "ok", "findings": []}},
 {"answer": {"status": "not_relevant", "reasoning": "-"}}
]}
EOF
fakellm_start "$TMP/slow.json" || exit 1
export REVLINE_BASE_URL=$FAKELLM_URL/v1 REVLINE_OSV_URL=$FAKELLM_URL
started=$(date +%s%N)
run check --base main --format json --no-cache
took=$((($(date +%s%N) - started) / 1000000))
expect_status 0 "check with OSV failing and slow"
[ "$took" -lt 7500 ] && pass "it did not wait for OSV past the request budget (${took} ms)" ||
	fail "took ${took} ms"
[ "$(json "d['rules'][0]['status']")" = compliant ] && pass "the rules ran" || fail "rules: $(json "d['rules']")"
json "d['dependencies']['advisories_error']" | grep -Eq "failed|did not finish|timed out" &&
	pass "the advisories' failure is said: $(json "d['dependencies']['advisories_error']")" ||
	fail "advisories_error: $(json "d['dependencies']")"
[ "$(json "d['dependencies']['merge_confidence']")" = medium ] && pass "the confidence comes from the bumps alone" ||
	fail "confidence without advisories"

# revline.advisories false: no lookup at all. A server of its own: the
# slow lookups the check above gave up on would still be logged by the old
# one when their 8 s are up.
fakellm_stop
fakellm_start "$TMP/slow.json" || exit 1
export REVLINE_BASE_URL=$FAKELLM_URL/v1 REVLINE_OSV_URL=$FAKELLM_URL
git config revline.advisories false
run check --base main --format json --no-cache
expect_status 0 "check without advisories"
grep -q '/v1/query' "$FAKELLM_LOG" && fail "OSV was asked" || pass "OSV is not asked"
json "d['dependencies']['advisories_error']" | grep -q "revline.advisories" && pass "and the output says why" ||
	fail "advisories_error: $(json "d['dependencies']['advisories_error']")"
git config --unset revline.advisories

# A manifest that is not valid JSON: named with its line, nothing made up.
git checkout -q main
printf '{\n  "dependencies": {\n    "lodash": "4.17.21",\n  }\n}\n' >package.json
git add package.json
run check --staged --format text --no-cache
expect_status 0 "check with a broken package.json"
expect_out "package.json (new side): not valid JSON, line 4" "the broken manifest is named, with its line"
run check --staged --format json --no-cache
[ "$(json "len(d['dependencies']['packages'])")" = 0 ] && json "d['dependencies']['problems'][0]" | grep -q "left out" &&
	pass "no package is made up from it" || fail "broken manifest: $(json "d['dependencies']")"
git reset -q && git checkout -q -- package.json

# A code change with no manifest: no section, the base timeout.
printf 'console.log(1)\n' >index.js
git add index.js
run check --staged --format json --no-cache
[ "$(json "d['dependencies']")" = None ] && pass "no dependency section for a code change" || fail "deps: $(json "d['dependencies']")"
[ "$(json "int(d['timeout']['chosen_s'])")" = 120 ] && pass "and the base timeout" || fail "timeout: $(json "d['timeout']")"

# Issue 14, items 15-17. Rails' security releases have four parts (rails/rails
# commit 72af19ac584, "bumping version for release": 6.1.4.1 -> 6.1.4.2): OSV
# is asked about the versions as written, so an advisory of 6.1.4.1 is fixed
# by the bump, not asked about a 6.1.4 nobody uses. Rails' own Gemfile's
# sqlite3 ("< 1.6.4" -> "~> 1.6", ">= 1.6.6", commit 64169655c72) reads its
# largest lower bound; PyPI's pre-releases go by PEP 440 (1.0rc9 -> 1.0rc10
# is no downgrade, certifi's 2022.5.18 -> 2022.5.18.1 a patch).
fakellm_stop
cat >"$TMP/four.json" <<'EOF'
{"rules": [
 {"match_path": "/v1/querybatch", "results": [
   {"match": ["\"rails\"", "\"6.1.4.1\""], "result": {"vulns": [{"id": "GHSA-2rqw-v265-jf8c"}]}}]},
 {"match_path": "/v1/vulns/GHSA-2rqw-v265-jf8c", "body": {"id": "GHSA-2rqw-v265-jf8c",
  "summary": "Open Redirect in Host Authorization Middleware", "database_specific": {"severity": "MODERATE"}}},
 {"match": "Rule deps:", "answer": {"status": "compliant", "reasoning": "ok", "findings": []}},
 {"answer": {"status": "not_relevant", "reasoning": "-"}}
]}
EOF
fakellm_start "$TMP/four.json" || exit 1
export REVLINE_BASE_URL=$FAKELLM_URL/v1 REVLINE_OSV_URL=$FAKELLM_URL
gems=$(new_repo gems)
cd "$gems"
printf 'source "https://rubygems.org"\n\ngem "rails", "6.1.4.1"\ngem "sqlite3", "< 1.6.4"\n' >Gemfile
printf 'certifi==2022.5.18\ntoolkit==1.0rc9\n' >requirements.txt
git add -A && git commit -q -m base
printf 'source "https://rubygems.org"\n\ngem "rails", "6.1.4.2"\ngem "sqlite3", "~> 1.6", ">= 1.6.6"\n' >Gemfile
printf 'certifi==2022.5.18.1\ntoolkit==1.0rc10\n' >requirements.txt
git add -A
run check --staged --format json --no-cache
expect_status 0 "check of four-part and pre-release bumps"
pkgs() { json "' '.join('%s:%s:%s->%s:%s' % (p['name'], p['bump'], p['from_version'], p['to_version'], p['downgrade']) for p in d['dependencies']['packages'])"; }
[ "$(pkgs)" = "rails:patch:6.1.4.1->6.1.4.2:False sqlite3:unknown:None->1.6.6:False certifi:patch:2022.5.18->2022.5.18.1:False toolkit:patch:1.0rc9->1.0rc10:False" ] &&
	pass "every component, the largest lower bound, PEP 440's order" || fail "packages: $(pkgs)"
[ "$(json "[a['id'] + ' ' + str(a['fixed']) for p in d['dependencies']['packages'] for a in p['advisories']]")" = \
	"['GHSA-2rqw-v265-jf8c True']" ] && pass "the advisory of 6.1.4.1 is fixed by the bump" ||
	fail "advisories: $(json "[(p['name'], p['advisories']) for p in d['dependencies']['packages']]")"
fakellm_requests | grep '/v1/querybatch' >"$TMP/queries" || true
for v in 6.1.4.1 6.1.4.2 2022.5.18.1 1.0rc10; do
	grep -q "version[^a-z]*$v[^0-9a-z.]" "$TMP/queries" && pass "OSV is asked about $v" ||
		fail "no OSV query for $v: $(head -c 600 "$TMP/queries")"
done
finish
