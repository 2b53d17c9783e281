# Dependabot's commits as GitHub squash-merges them, in `revline check` on
# a commit range: the pull request body keeps its CRLF line ends in the
# message (paperless-ngx's, byte for byte, tests/fixtures/deps/messages).
# A group bump that changed the lock file alone gives each transition from
# its ``Updates `X` from A to B`` lines, as the same message with LF does;
# a group of one ("Bump watchdog in the major-versions group") gets its
# transition from the body.
. "$(dirname "$0")/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

messages=$REVLINE_SOURCE_DIR/tests/fixtures/deps/messages
mkdir -p "$TMP/data/rules"
ln -s "$REVLINE_SOURCE_DIR/share/prompts" "$TMP/data/prompts"
printf -- '---\nid: deps\nseverity: major\n---\n# Dependencies stay safe\n\nCheck dependency changes.\n' \
	>"$TMP/data/rules/deps.md"
export REVLINE_DATADIR=$TMP/data REVLINE_DB=$TMP/revline.db
export OPENAI_API_KEY=sk-test REVLINE_MODEL=fake-model
unset REVLINE_PROVIDER ANTHROPIC_API_KEY OPENAI_BASE_URL REVLINE_OSV_URL

cat >"$TMP/script.json" <<'EOF'
{"rules": [
 {"match_path": "/v1/query", "body": {}},
 {"answer": {"status": "compliant", "reasoning": "-", "findings": []}}
]}
EOF
fakellm_start "$TMP/script.json" || exit 1
export REVLINE_BASE_URL=$FAKELLM_URL/v1 REVLINE_OSV_URL=$FAKELLM_URL

repo=$(new_repo bots)
cd "$repo"
lock() {
	printf '{\n    "_meta": {"hash": {"sha256": "%s"}},\n    "default": {\n' "$1"
	printf '        "nltk": {"version": "==%s"},\n        "rapidfuzz": {"version": "==%s"},\n' "$2" "$3"
	printf '        "watchdog": {"version": "==%s"}\n    }\n}\n' "$4"
}
lock 1 3.8.1 3.9.5 4.0.1 >Pipfile.lock
printf '[packages]\nwatchdog = "~=4.0"\n' >Pipfile
git add -A && git commit -q -m base
# GitHub writes the message as it is: no cleanup of the CRs.
lock 2 3.8.2 3.9.6 4.0.2 >Pipfile.lock
git commit -q -a --cleanup=verbatim -F "$messages/paperless-ngx-7460.txt"
git log -1 --format=%B | grep -q $'\r$' && pass "the commit's message has CRLF line ends" || fail "no CR in the message"

json() { python3 -c "import json,sys; d=json.load(open('$TMP/out')); print($1)"; }
packages() { json "' '.join(p['name'] + ':' + p['from'] + '>' + p['to'] + ':' + p['bump'] + ':' + p['manifest'] for p in d['dependencies']['packages'])"; }
want="nltk:3.8.1>3.8.2:patch:Pipfile.lock rapidfuzz:3.9.5>3.9.6:patch:Pipfile.lock watchdog:4.0.1>4.0.2:patch:Pipfile.lock"

run check HEAD~1..HEAD --format json
expect_status 0 "check of the squash-merged group bump"
[ "$(json "d['dependencies']['bot']")" = dependabot ] && pass "Dependabot's message is told (CRLF)" ||
	fail "bot: $(json "d['dependencies']")"
[ "$(packages)" = "$want" ] && pass "each transition of the group, from the body's CRLF lines" ||
	fail "packages: $(packages)"
[ "$(json "d['dependencies']['dependency_only']")" = True ] && pass "the change is dependencies only" ||
	fail "dependency_only"
[ "$(json "d['dependencies']['advisories_checked']")" -ge 3 ] && pass "OSV was asked about each" ||
	fail "advisories: $(json "d['dependencies']['advisories_checked']")"

# The same commit with LF line ends: the same packages.
tr -d '\r' <"$messages/paperless-ngx-7460.txt" >"$TMP/lf.txt"
git commit -q --amend --cleanup=verbatim -F "$TMP/lf.txt"
git log -1 --format=%B | grep -q $'\r' && fail "CR left in the LF message" || true
run check HEAD~1..HEAD --format json
[ "$(packages)" = "$want" ] && pass "with LF line ends, the same" || fail "LF packages: $(packages)"

# A group of one: the subject names no versions, the CRLF body does.
lock 3 3.8.2 3.9.6 5.0.3 >Pipfile.lock
git commit -q -a -m "Pin watchdog 5.0.3"
lock 4 3.8.2 3.9.6 6.0.0 >Pipfile.lock
printf '[packages]\nwatchdog = "~=6.0"\n' >Pipfile
git commit -q -a --cleanup=verbatim -F "$messages/paperless-ngx-8257.txt"
run check HEAD~1..HEAD --format json
expect_status 0 "check of a group of one"
[ "$(json "d['dependencies']['bot']")" = dependabot ] && pass "a group of one is Dependabot's, from its CRLF body" ||
	fail "bot: $(json "d['dependencies']")"
[ "$(packages)" = "watchdog:5.0.3>6.0.0:major:Pipfile.lock" ] && pass "its transition from the body: major" ||
	fail "packages: $(packages)"
[ "$(json "d['dependencies']['merge_confidence']")" = medium ] && pass "a major bump: medium confidence" ||
	fail "confidence: $(json "d['dependencies']['merge_confidence'], d['dependencies']['reason']")"

run check HEAD~1..HEAD --format text
expect_out "^Dependencies (.*a dependabot change" "the text report says Dependabot's"

# A subject alone, as Dependabot writes a single bump's commit title: read as its author wrote it
# (the check's own "Commit abc1234:" prefix for the model never hides it).
lock 5 3.8.2 3.9.7 6.0.0 >Pipfile.lock
git commit -q -a -m "Bump rapidfuzz from 3.9.6 to 3.9.7"
run check HEAD~1..HEAD --format json
[ "$(json "d['dependencies']['bot']")" = dependabot ] && pass "a subject alone is Dependabot's" ||
	fail "bot: $(json "d['dependencies']")"
[ "$(packages)" = "rapidfuzz:3.9.6>3.9.7:patch:Pipfile.lock" ] && pass "its transition from the subject" ||
	fail "packages: $(packages)"
finish
