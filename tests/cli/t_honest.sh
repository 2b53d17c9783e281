# Outcomes that are honest: an incomplete review exits 6 (--allow-partial
# accepts it) and says so in every format; a broken rule file is named on
# stderr and makes the check partial; doctor validates every setting and
# rule; messages that said the wrong thing.
. "$(dirname "$0")/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

fake_llm_env
rules=$TMP/rules
mkdir -p "$rules"
rule() { # rule ID [front matter lines...]
	local id=$1
	shift
	{
		echo "---"
		echo "id: $id"
		echo "severity: major"
		printf '%s\n' "$@"
		echo "---"
		echo "Check the change for $id problems."
	} >"$rules/$id.md"
}
rule good
rule down
cat >"$rules/todo.md" <<'EOF'
---
id: todo
severity: minor
pattern: 'TODO'
---
No TODO left in the code.
EOF

repo=$(new_repo work)
cd "$repo"
printf 'def run(cmd):\n    return cmd\n' >app.py
git add -A && git commit -q -m base
printf 'def run(cmd):\n    # TODO\n    return cmd.strip()\n' >app.py

cat >"$TMP/script.json" <<'EOF'
{"rules": [
 {"match": "Rule down:", "status": 500, "error": "the server is down"},
 {"match": "Rule cut:", "answer": "{\"status\": \"attention\", \"reasoning\": \"the", "finish_reason": "length"},
 {"match": "Rule good:", "answer": {"status": "compliant", "reasoning": "fine", "findings": []}},
 {"match_path": "/v1/querybatch", "latency_ms": 1500, "results": []}
]}
EOF
fakellm_start "$TMP/script.json"
export OPENAI_BASE_URL=$FAKELLM_URL/v1

# 1. A rule that failed: exit 6, and a line in every format.
run check --no-builtin --rules "$rules" --retries 0 --no-fix-detection
expect_status 6 "a rule that failed makes the review incomplete: exit 6"
expect_out "1 of 3 rules did not run: review incomplete" "text says the review is incomplete"
run check --no-builtin --rules "$rules" --retries 0 --no-fix-detection --allow-partial
expect_status 0 "--allow-partial accepts an incomplete review"
git config revline.allowPartial true
run check --no-builtin --rules "$rules" --retries 0 --no-fix-detection
expect_status 0 "revline.allowPartial accepts an incomplete review"
git config --unset revline.allowPartial
# A branch's .revline cannot make a hook pass an incomplete review.
printf '[revline]\n\tallowPartial = true\n' >.revline
run check --no-builtin --rules "$rules" --retries 0 --no-fix-detection
expect_status 6 "an untrusted .revline's allowPartial does not accept an incomplete review"
rm -f .revline
run check --no-builtin --rules "$rules" --retries 0 --no-fix-detection --format json
expect_status 6 "json: exit 6"
if [ -s "$TMP/out" ] && jq -e '.incomplete == "1 of 3 rules did not run: review incomplete" and .rules_not_run == 1' "$TMP/out" >/dev/null; then
	pass "json has incomplete and rules_not_run"
else
	fail "json: no incomplete field: $(jq -c '{incomplete, rules_not_run}' "$TMP/out")"
fi
run check --no-builtin --rules "$rules" --retries 0 --no-fix-detection --format sarif
expect_status 6 "sarif: exit 6"
if [ -s "$TMP/out" ] && jq -e '.runs[0].properties.incomplete == "1 of 3 rules did not run: review incomplete" and
	  (.runs[0].invocations[0].toolExecutionNotifications | map(.message.text) |
	   index("1 of 3 rules did not run: review incomplete")) != null and
	  .runs[0].invocations[0].executionSuccessful == false' "$TMP/out" >/dev/null; then
	pass "sarif has the line as a run property and a notification"
else
	fail "sarif: $(jq -c '.runs[0].properties, .runs[0].invocations' "$TMP/out")"
fi
run check --no-builtin --rules "$rules" --retries 0 --no-fix-detection --format markdown
expect_status 6 "markdown: exit 6"
expect_out "1 of 3 rules did not run: review incomplete" "markdown says the review is incomplete"

# A server that is not there: every LLM rule fails; the check failed (3).
run check --no-builtin --rules "$rules" --retries 0 --no-fix-detection --rule good --rule todo
expect_status 0 "a whole review exits 0"

# 4. A broken rule file: named on stderr, the check partial (exit 6), not complete.
mkdir -p "$TMP/broken"
cp "$rules/todo.md" "$TMP/broken/"
printf -- '---\nid: team\nseverity: blocker\n---\nA team rule.\n' >"$TMP/broken/team.md"
run check --no-builtin --rules "$TMP/broken" --no-fix-detection
expect_status 6 "a broken rule file makes the check incomplete"
if grep -q "^$TMP/broken/team.md:3: .*severity 'blocker'" "$TMP/err"; then
	pass "the broken rule is named path:line on stderr"
else
	fail "no path:line for the broken rule on stderr: $(cat "$TMP/err")"
fi
expect_out "check [0-9]* partial" "the check is partial, not complete"
expect_out "1 of 2 rules did not run: review incomplete" "the broken rule counts as a rule that did not run"

# 5. doctor reads every setting and rule as the commands do, and fails on a problem.
doc=$(new_repo doctor)
(
	cd "$doc"
	unset OPENAI_API_KEY OPENAI_BASE_URL REVLINE_MODEL
	run doctor
	expect_status 0 "doctor passes a sound setup"
	expect_out "^settings:   ok" "doctor says the settings are fine"
	git config revline.concurrency lots
	run doctor
	expect_status 1 "doctor fails on revline.concurrency = lots"
	expect_out "settings:   error: revline.concurrency is 'lots'" "doctor names the bad setting"
	git config --unset revline.concurrency
	git config revline.tokenBudget 12
	run doctor
	expect_status 1 "doctor fails on a setting only check reads"
	expect_out "revline.tokenBudget" "doctor names revline.tokenBudget"
	git config --unset revline.tokenBudget
	mkdir -p .revline/rules
	cp "$TMP/broken/team.md" .revline/rules/
	run doctor
	expect_status 1 "doctor fails on a broken rule"
	expect_out "^  .revline/rules/team.md:3: .*blocker\|team.md:3: .*blocker" "doctor names the broken rule path:line"
	exit "$failures"
) || failures=$((failures + 1))

# 7. An answer cut off by the output cap says so, and what to set.
mkdir -p "$TMP/cut"
cp "$rules/good.md" "$TMP/cut/cut.md"
sed -i 's/good/cut/' "$TMP/cut/cut.md"
for stream in true false; do
	git config revline.stream $stream
	run check --no-builtin --rules "$TMP/cut" --rule cut --no-fix-detection --format json
	if [ -s "$TMP/out" ] && jq -e '.rules[0].error | test("^the model hit its output limit \\(4096 tokens\\).*revline.maxTokens")' "$TMP/out" >/dev/null; then
		pass "a cut-off answer (stream $stream) names the output limit and revline.maxTokens"
	else
		fail "cut-off answer (stream $stream): $(jq -c '.rules' "$TMP/out")"
	fi
done
git config --unset revline.stream
git config revline.maxTokens 9000
run check --no-builtin --rules "$TMP/cut" --rule cut --no-fix-detection --format json --no-cache
jq -e '.rules[0].error | test("\\(9000 tokens\\)")' "$TMP/out" >/dev/null &&
	pass "revline.maxTokens sets the cap" || fail "maxTokens: $(jq -c '.rules' "$TMP/out")"
fakellm_requests | grep -Eq '"max_(completion_)?tokens": ?9000' &&
	pass "the request carries revline.maxTokens" || fail "no max tokens 9000 in the requests"
git config --unset revline.maxTokens

# 7. A false positive is no violation in history and stats.
fp=$(new_repo fp)
(
	cd "$fp"
	printf 'x = 1\n' >a.py
	git add -A && git commit -q -m base
	printf 'x = 1  # TODO\n' >a.py
	run check --no-builtin --rules "$TMP/broken" --rule todo --no-fix-detection --fail-on none
	ids=$(grep -o '#[0-9][0-9]*' "$TMP/out" | sort -u)
	[ "$(grep -c '#[0-9]' "$TMP/out")" = 2 ] && [ "$(echo "$ids" | wc -l)" = 1 ] &&
		pass "the streamed line and the report give the finding one id ($ids)" ||
		fail "ids in one check: $(grep '#[0-9]' "$TMP/out")"
	run check --no-builtin --rules "$TMP/broken" --rule todo --no-fix-detection --fail-on none --format json
	id=$(jq -r '.findings[0].id' "$TMP/out")
	[ "$(jq '[.findings[].id] | length' "$TMP/out")" = 1 ] && [ "$id" -gt 0 ] &&
		pass "json: the finding's id ($id)" || fail "json ids: $(jq -c '.findings' "$TMP/out")"
	run history --json
	[ "$(jq '.[0].attention' "$TMP/out")" = 1 ] && [ "$(jq '.[1].attention' "$TMP/out")" = 1 ] &&
		pass "before feedback: one violation a check" ||
		fail "history before: $(jq -c '.[0]' "$TMP/out")"
	run feedback "$id" --false-positive
	expect_status 0 "the finding is marked false positive"
	run history --json
	[ "$(jq '.[0].attention' "$TMP/out")" = 0 ] && [ "$(jq '.[1].attention' "$TMP/out")" = 0 ] &&
		pass "history: a false positive is no violation" ||
		fail "history after: $(jq -c '.[0]' "$TMP/out")"
	run stats --json
	[ "$(jq '.violations' "$TMP/out")" = 0 ] && pass "stats: a false positive is no violation" ||
		fail "stats after: $(head -c 300 "$TMP/out")"
	exit "$failures"
) || failures=$((failures + 1))

# 7. Local pattern rules run at once, not after the advisory lookup.
deps=$(new_repo deps)
(
	cd "$deps"
	printf '{\n  "dependencies": {\n    "lodash": "4.17.20"\n  }\n}\n' >package.json
	printf 'let a = 1;\n' >app.js
	git add -A && git commit -q -m base
	printf '{\n  "dependencies": {\n    "lodash": "4.17.21"\n  }\n}\n' >package.json
	printf 'let a = 1; // TODO\n' >app.js
	export REVLINE_OSV_URL=$FAKELLM_URL
	run check --no-builtin --rules "$TMP/broken" --rule todo --no-fix-detection --fail-on none --allow-partial
	expect_status 0 "a local rule with a dependency change"
	todo=$(grep -n "^attention *todo" "$TMP/out" | cut -d: -f1)
	deps=$(grep -n "^Dependencies (" "$TMP/out" | cut -d: -f1)
	if [ -n "$todo" ] && [ -n "$deps" ] && [ "$todo" -lt "$deps" ]; then
		pass "the local rule settled before the advisories came"
	else
		fail "local rule line $todo, dependencies line $deps: $(cat "$TMP/out")"
	fi
	exit "$failures"
) || failures=$((failures + 1))

# 7. A mistyped command is guessed; --help names a manual that is there.
run chek
expect_status 2 "revline chek is no command"
expect_err_line "'chek' is not a revline command; did you mean check?" "revline chek: did you mean check?"
run --help
man=$(sed -n "s/.*the manual: 'man \([^']*\)'.*/\1/p" "$TMP/out")
case $man in
revline) pass "--help: the installed manual" ;;
/*) [ -f "$man" ] && pass "--help names a manual that exists: $man" || fail "--help names $man, which is not there" ;;
*) fail "--help names no manual: $(tail -2 "$TMP/out")" ;;
esac

finish
