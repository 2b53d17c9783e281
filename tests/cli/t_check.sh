# revline check against the fake OpenAI-compatible server, over real HTTP:
# streaming, concurrency, retries, timeouts, bad answers, reduce and its
# fallback, the cache, evidence, formats, exit codes, and no key anywhere.
. "$(dirname "$0")/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

# Only the test's own rules: a data directory with the prompts and no rules.
mkdir -p "$TMP/data"
ln -s "$REVLINE_SOURCE_DIR/share/prompts" "$TMP/data/prompts"
export REVLINE_DATADIR=$TMP/data REVLINE_DB=$TMP/revline.db
export OPENAI_API_KEY=sk-SECRET-TEST-12345 REVLINE_MODEL=fake-model
unset REVLINE_PROVIDER ANTHROPIC_API_KEY OPENAI_BASE_URL

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
		echo "# The $id rule"
		echo
		echo "Check the change for $id problems."
	} >"$rules/$id.md"
}
for id in fast slow invented retry hang broken jsonmode boom1 boom2 everything; do rule "$id"; done
for i in 0 1 2 3 4 5 6 7 8 9; do rule "conc$i"; done
rule ctx "context_files: [schema.sql]"
cat >"$rules/markers.md" <<'EOF'
---
id: markers
name: No conflict markers
severity: critical
pattern: '^(<{7}|>{7})( |$)'
---
Conflict markers left in a file.
EOF

repo=$(new_repo work)
cd "$repo"
printf 'import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd)\n' >app.py
printf 'CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);\n' >schema.sql
printf '{"lockfileVersion": 3}\n' >package-lock.json
git add -A && git commit -q -m base
printf 'import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd, shell=True)\n' >app.py
printf '{"lockfileVersion": 3, "packages": {}}\n' >package-lock.json

finding() { # FILE LINE SEVERITY TITLE CODE
	printf '{"file": "%s", "line": %s, "severity": "%s", "title": "%s", "issue": "i", "suggestion": "s", "verification": {"code_examined": "%s", "line_range_examined": [1, 5], "verification_method": "read run()", "checked_for_handling_elsewhere": true}}' "$@"
}
genuine=$(finding app.py 2 critical "Shell injection" "return subprocess.call(cmd, shell=True)")
invented=$(finding app.py 4 major "Invented" "os.system(user_input)")
cat >"$TMP/script.json" <<EOF
{"rules": [
 {"match": "Problem found in review (rule slow", "answer": {"fixed_code": "def run(cmd):\\n    return subprocess.call(cmd)\\n", "explanation": "No shell."}},
 {"match": "Rule fast:", "latency_ms": 200, "answer": {"status": "compliant", "reasoning": "fine", "findings": []}},
 {"match": "Rule slow:", "latency_ms": 2500, "answer": {"status": "attention", "reasoning": "r", "findings": [$genuine, $(finding app.py 4 minor "No check of cmd" "def run(cmd):")]}},
 {"match": "Rule invented:", "latency_ms": 100, "answer": {"status": "attention", "reasoning": "r", "findings": [$invented]}},
 {"match": "Rule retry:", "then": [{"status": 429, "headers": {"Retry-After": "1"}}, {"answer": {"status": "compliant", "reasoning": "ok"}}]},
 {"match": "Rule hang:", "fault": "hang"},
 {"match": "Rule broken:", "answer": "I refuse to answer in JSON."},
 {"match": "Rule jsonmode:", "fault": "reject_json_mode", "answer": {"status": "compliant", "reasoning": "ok"}},
 {"match": "Rule boom1:", "answer": {"status": "attention", "findings": [$genuine]}},
 {"match": "Rule boom2:", "answer": {"status": "attention", "findings": [$(finding app.py 4 minor "Unchecked command" "def run(cmd):")]}},
 {"match": "f1 [boom1]", "status": 500, "error": "the reduce model is down"},
 {"match": "synthesizing", "answer": {"summary": "One shell injection.", "overallSeverity": "critical", "mustFix": ["Shell injection in run()"], "findings": [{"id": "m1", "severity": "critical", "file": "app.py", "line": 5, "title": "Shell injection in run()", "issue": "shell=True with a caller's string", "suggestion": "Pass a list", "fromRules": ["slow"], "sources": ["f1"]}]}},
 {"match": "Rule conc", "latency_ms": 400, "answer": {"status": "compliant", "reasoning": "ok"}},
 {"answer": {"status": "not_relevant", "reasoning": "nothing for me"}}
]}
EOF
fakellm_start "$TMP/script.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1

requests() { fakellm_requests | wc -l; }
json() { python3 -c "import json,sys; d=json.load(open('$TMP/out')); $1"; }

# Streaming: the fast rule's line is out long before the slow rule answers.
set +e
"$REVLINE" check --rules "$rules" --rule fast --rule slow --rule invented 2>"$TMP/err" |
	python3 -c 'import sys, time
t0 = time.monotonic()
for line in sys.stdin:
    print("%.2f %s" % (time.monotonic() - t0, line), end="")' >"$TMP/timed"
set -e
fast_at=$(awk '$3 == "fast" { print $1 }' "$TMP/timed")
slow_at=$(awk '$3 == "slow" { print $1 }' "$TMP/timed")
if [ -n "$fast_at" ] && [ -n "$slow_at" ] && python3 -c "import sys; sys.exit(0 if $fast_at + 1.5 < $slow_at else 1)"; then
	pass "the fast rule streamed at ${fast_at}s, before the slow one at ${slow_at}s"
else
	fail "no streaming: $(cat "$TMP/timed")"
fi
if grep -q $'\r' "$TMP/err"; then fail "progress on stderr that is not a terminal"; else pass "no progress line when stderr is not a terminal"; fi

# Evidence: the genuine finding is verified, the invented one hidden.
run check --rules "$rules" --rule fast --rule slow --rule invented
expect_status 1 "a critical finding fails the check (default --fail-on major)"
expect_out "verified: the quoted code is at line 5 of app.py (the answer said 2)" "genuine evidence verified, line corrected"
expect_out "1 unverified, hidden" "the invented finding is hidden and counted"
if grep -q "Invented" "$TMP/out"; then fail "the invented finding is shown"; else pass "the invented finding is not shown"; fi
expect_out "Report (synthesized by the reduce call)" "the reduce call made the report"
expect_out "must fix:" "the report says what must be fixed"
run check --rules "$rules" --rule fast --rule slow --rule invented --show-unverified --fail-on none
expect_status 0 "--fail-on none"
expect_out "NOT verified: the quoted code is not in app.py" "--show-unverified shows why it was not verified"

# The cache: the same check again makes no request at all.
before=$(requests)
run check --rules "$rules" --rule fast --rule slow --rule invented --format json
after=$(requests)
[ "$before" = "$after" ] && pass "the second identical check made no request" ||
	fail "the second check made $((after - before)) requests"
json 'assert d["stats"]["requests"] == 0 and d["stats"]["cache_hits"] >= 3, d["stats"]; assert all(r["cached"] for r in d["rules"]), d["rules"]' &&
	pass "json: requests 0, every rule cached" || fail "json stats for the cached check"
json '
for k in ("check_id","status","repo","branch","base","head","duration_ms","rules","findings","summary","overall_severity","stats"):
    assert k in d, k
for r in d["rules"] + [d["stats"]]:
    for k in ("tokens_in", "tokens_cached", "tokens_cache_write", "tokens_out"):
        assert isinstance(r[k], int) and r[k] >= 0, (k, r)
    assert r["cost_usd"] is None or r["cost_usd"] >= 0, r
for r in d["rules"]:
    for k in ("id","path","status","cached","attempts","duration_ms","error","findings"):
        assert k in r, k
f = d["findings"][0]
for k in ("id","rule_id","file","line","end_line","severity","title","issue","suggestion","verified","verify_note","evidence","from_rules","fingerprint","suppressed"):
    assert k in f, k
assert f["verified"] and f["line"] == 5 and f["from_rules"] == ["slow"] and f["id"] > 0, f
assert d["overall_severity"] == "critical"' && pass "json has every field" || fail "json fields: $(head -c 600 "$TMP/out")"
run check --rules "$rules" --rule fast --rule slow --rule invented --fail-on none
grep -Eq '^compliant +fast +[0-9.]+s  cached \(no cost\)' "$TMP/out" &&
	pass "text: a rule answered from the cache costs nothing" || fail "cached rule line: $(cat "$TMP/out")"
grep -Eq '; 0 requests, [0-9]+ answers from the cache \(no cost\); 0 tokens in, 0 out, \$0$' "$TMP/out" &&
	pass "text: a check answered from the cache billed nothing" || fail "cached check's usage: $(tail -2 "$TMP/out")"
run check --rules "$rules" --rule fast --no-cache --format json
[ "$(requests)" -gt "$after" ] && pass "--no-cache asks again" || fail "--no-cache made no request"

# SARIF validates against the published schema; markdown reads as a review.
run check --rules "$rules" --rule slow --rule invented --format sarif --fail-on none
expect_status 0 "sarif"
python3 - "$TMP/out" "$REVLINE_SOURCE_DIR/tests/fixtures/sarif-schema-2.1.0.json" <<'PY' && pass "SARIF validates against the 2.1.0 schema" || fail "SARIF invalid"
import json, sys, jsonschema
doc, schema = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
jsonschema.validate(doc, schema)
run = doc["runs"][0]
assert "informationUri" not in run["tool"]["driver"], run["tool"]["driver"]   # no page that does not exist
ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
assert run["results"], "no results"
for r in run["results"]:
    assert r["ruleId"] in ids and r["level"] in ("error", "warning", "note")
    assert r["partialFingerprints"]
lines = sorted(r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in run["results"])
assert lines == [4, 5], lines
usage = run["properties"]
for k in ("requests", "cacheHits", "tokensIn", "tokensCached", "tokensCacheWrite", "tokensOut"):
    assert isinstance(usage[k], int) and usage[k] >= 0, (k, usage)
assert usage["costUsd"] is None or usage["costUsd"] >= 0, usage
PY
# reviewdog's rdjsonl: each line a Diagnostic that validates against reviewdog's
# schema (tests/fixtures/reviewdog-diagnostic.json: reviewdog's
# proto/rdf/jsonschema/Diagnostic.json, its descriptions shortened), so that
# `revline check --format rdjsonl | reviewdog -f=rdjsonl` posts them.
run check --rules "$rules" --rule slow --rule invented --format rdjsonl --fail-on none
expect_status 0 "rdjsonl"
python3 - "$TMP/out" "$REVLINE_SOURCE_DIR/tests/fixtures/reviewdog-diagnostic.json" <<'PY' && pass "rdjsonl: one Diagnostic a line, valid against reviewdog's schema" || fail "rdjsonl: $(cat "$TMP/out")"
import json, sys, jsonschema
schema = json.load(open(sys.argv[2]))
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 2, lines
ds = [json.loads(l) for l in lines]
for d in ds:
    jsonschema.validate(d, schema)
    assert d["source"]["name"] == "revline" and d["code"]["value"] == "slow", d
    assert "url" not in d["source"], d      # no page that does not exist
    assert d["location"]["path"] == "app.py", d
by_line = {d["location"]["range"]["start"]["line"]: d for d in ds}
assert sorted(by_line) == [4, 5], by_line
assert by_line[5]["severity"] == "ERROR" and by_line[5]["message"].startswith("Shell injection"), by_line[5]
assert by_line[4]["severity"] == "WARNING", by_line[4]
PY
# quickfix: file:line:col: severity: message [rule], what vim's errorformat reads.
run check --rules "$rules" --rule slow --rule invented --format quickfix --fail-on none
expect_status 0 "quickfix"
if [ "$(wc -l <"$TMP/out")" -eq 2 ] && grep -qx "app.py:5:1: error: Shell injection in run(): shell=True with a caller's string \\[slow\\]" "$TMP/out" &&
	grep -qx 'app.py:4:1: warning: No check of cmd: i \[slow\]' "$TMP/out"; then
	pass "quickfix: a finding a line, as a compiler's errors"
else
	fail "quickfix: $(cat "$TMP/out")"
fi
# prompt: an instruction per finding that a coding agent can act on.
run check --rules "$rules" --rule slow --rule invented --format prompt --fail-on none
expect_status 0 "prompt"
python3 - "$TMP/out" <<'PY' && pass "prompt: where, what, the verified code, what to change, the rule, per finding" || fail "prompt: $(cat "$TMP/out")"
import sys
text = open(sys.argv[1]).read()
parts = text.split("\n---\n")
assert len(parts) == 2, parts
first = parts[0]
import re
assert re.match(r"1\. In app\.py, line 5 \(critical, finding [0-9]+\): Shell injection in run\(\)\n", first), first
for want in ("What is wrong:\n  shell=True with a caller's string\n",
             "The code, as revline found it in the file:\n    return subprocess.call(cmd, shell=True)\n",
             "What to change:\n  Pass a list\n",
             "The rule (slow): Check the change for slow problems.\n",
             "then run `revline check` again."):
    assert want in first, want
assert re.match(r"2\. In app\.py, line 4 \(minor, finding [0-9]+\): No check of cmd", parts[1].lstrip()), parts[1]
PY
# An incomplete review says so first, with which rules did not run and why; a rule's statement that
# leads into a list keeps the list (as the credential rule's shapes), its items loose or tight.
cat >"$rules/listed.md" <<'EOF'
---
id: listed
severity: major
pattern: 'shell=True'
---
# Listed

The change must not hold any of these:

- a first thing,
- a second thing,

- a third thing after a blank line.

## Details

Not part of the statement.
EOF
REVLINE_RETRIES=0 run check --rules "$rules" --rule hang --rule listed --rule broken --timeout 1 --format prompt --fail-on none --no-cache
expect_status 6 "prompt, incomplete"
python3 - "$TMP/out" <<'PY' && pass "prompt: the incomplete review first, each rule that did not run and why" || fail "prompt incomplete: $(cat "$TMP/out")"
import sys
text = open(sys.argv[1]).read()
lines = text.split("\n")
assert lines[0] == "Review incomplete: 2 of 3 rules did not run, so this is no verdict on the change.", lines[0]
rest = sorted(lines[1:3])
assert rest[0].startswith("- broken: failed: "), rest
assert rest[1].startswith("- hang: timed out: "), rest
assert lines[3].startswith("Do not take what follows for the whole review"), lines[3]
assert text.index("Review incomplete") < text.index("1. In app.py"), text
want = ("The rule (listed): The change must not hold any of these:\n\n- a first thing,\n- a second thing,\n\n"
        "- a third thing after a blank line.\n\nChange app.py")
assert want in text, text
assert "Not part of the statement" not in text, text
PY
run check --rules "$rules" --rule slow --format markdown --output "$TMP/review.md" --fail-on none
expect_status 0 "markdown to --output"
grep -q "^## revline review: critical" "$TMP/review.md" && grep -q "<details><summary>Evidence" "$TMP/review.md" &&
	pass "markdown written to the --output file" || fail "markdown: $(head -c 300 "$TMP/review.md")"
grep -Eq '^<sub>check [0-9]+, complete, [0-9.]+ s.*; [0-9]+ requests?, .*; [0-9,]+ tokens in.*, [0-9,]+ out, (~?\$|<\$|cost unknown).*</sub>$' "$TMP/review.md" &&
	pass "markdown: what the check billed, in its last line" || fail "markdown usage: $(tail -3 "$TMP/review.md")"

# Concurrency: ten rules at --concurrency 3 never run more than three at once.
conc=$(printf -- '--rule conc%s ' 0 1 2 3 4 5 6 7 8 9)
run check --rules "$rules" $conc --concurrency 3 --no-cache
expect_status 0 "ten rules at concurrency 3"
most=$(fakellm_requests | python3 -c '
import json, sys
reqs = [json.loads(l) for l in sys.stdin]
reqs = [r for r in reqs if "Rule conc" in json.dumps(r.get("body"))]
events = sorted([(r["start"], 1) for r in reqs] + [(r["end"], -1) for r in reqs])
now = most = 0
for _, d in events:
    now += d
    most = max(most, now)
print(most)')
[ "$most" = 3 ] && pass "at most (and at best) 3 requests at once" || fail "max concurrency was $most"

# Retry after 429, honouring Retry-After.
run check --rules "$rules" --rule retry --no-cache --format json
json 'r = d["rules"][0]; assert r["status"] == "compliant" and r["attempts"] == 2, r' &&
	pass "429 then 200: compliant after 2 attempts" || fail "retry: $(head -c 400 "$TMP/out")"
fakellm_requests | python3 -c '
import json, sys
reqs = [json.loads(l) for l in sys.stdin if "Rule retry:" in json.dumps(json.loads(l).get("body"))]
a, b = reqs[-2], reqs[-1]
assert a["status"] == 429 and b["status"] == 200 and b["start"] - a["end"] >= 0.95, (a["status"], b["status"], b["start"] - a["end"])
' && pass "the retry waited for Retry-After" || fail "Retry-After not honoured"
# A rule that failed after its retries says "(3 attempts)" once, in its reason.
REVLINE_BASE_URL=http://127.0.0.1:9/v1 run check --rules "$rules" --rule fast --retries 2 --no-cache
line=$(grep '^error  *fast ' "$TMP/out" || true)
[ "$(printf '%s' "$line" | grep -o '3 attempts' | wc -l)" -eq 1 ] && pass "a failed rule's line says (3 attempts) once" ||
	fail "the failed rule's line: $line"

# A hung rule times out; the check is partial and keeps the other result.
run check --rules "$rules" --rule hang --rule fast --timeout 1 --retries 0 --format json
json 'rs = {r["id"]: r for r in d["rules"]}; assert rs["hang"]["status"] == "timeout", rs; assert rs["fast"]["status"] == "compliant"; assert d["status"] == "partial"' &&
	pass "hung rule timed out, check partial, the other rule kept" || fail "hang: $(head -c 500 "$TMP/out")"
expect_status 6 "a partial check exits 6: the review is incomplete"

# Ctrl-C cancels: what arrived is kept, reported and stored.
"$REVLINE" check --rules "$rules" --rule hang --rule fast --no-cache --format json >"$TMP/out" 2>"$TMP/err" &
pid=$!
sleep 1.5
kill -INT $pid
wait $pid && status=0 || status=$?
json 'rs = {r["id"]: r for r in d["rules"]}; assert d["status"] == "cancelled", d["status"]; assert rs["fast"]["status"] == "compliant"; assert rs["hang"]["status"] == "error" and rs["hang"]["error"] == "cancelled", rs["hang"]
assert d["incomplete"] == "review cancelled: 1 of 2 rules did not run", d["incomplete"]' &&
	pass "Ctrl-C cancels the running rule and keeps the finished one" || fail "cancel: $(cat "$TMP/err") $(head -c 300 "$TMP/out")"
grep -q "interrupted (Ctrl-C): cancelling; results that arrived are kept (exit status 130)" "$TMP/err" &&
	pass "cancelling is said on stderr" || fail "no cancel message: $(cat "$TMP/err")"
expect_status 130 "a check cancelled by Ctrl-C exits 130, never 0: 'revline check && git push' does not push"
stored_status() {
	python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT status FROM checks ORDER BY id DESC LIMIT 1").fetchone()[0])' "$REVLINE_DB"
}
[ "$(stored_status)" = cancelled ] && pass "the cancelled check is stored as cancelled" || fail "stored as $(stored_status)"

# SIGTERM (a supervisor, a CI runner's timeout) and SIGHUP (the terminal closed) cancel the same way,
# with the text report saying so: never "overall: clean".
for sig in TERM HUP; do
	"$REVLINE" check --rules "$rules" --rule hang --rule fast --no-cache >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	sleep 1.5
	kill -$sig $pid
	wait $pid && status=0 || status=$?
	want=$((128 + $(kill -l $sig)))
	expect_status $want "SIG$sig cancels the check: exit $want"
	grep -qx "  overall: clean in the rules that ran (review cancelled)" "$TMP/out" &&
		grep -qx "  review cancelled: 1 of 2 rules did not run" "$TMP/out" &&
		grep -qx "  No issues found by the rules that ran." "$TMP/out" &&
		! grep -q "overall: clean$" "$TMP/out" &&
		pass "SIG$sig: the text report says the review was cancelled" || fail "SIG$sig report: $(cat "$TMP/out")"
	[ "$(stored_status)" = cancelled ] && pass "SIG$sig: stored as cancelled" || fail "SIG$sig: stored as $(stored_status)"
done


# A crash mid-check leaves every result received so far in the database.
"$REVLINE" check --rules "$rules" --rule hang --rule fast --no-cache >/dev/null 2>&1 &
pid=$!
sleep 1.5
kill -KILL $pid
wait $pid 2>/dev/null || true
python3 - "$REVLINE_DB" <<'PY' && pass "killed mid-check: the finished rule's result is in the database" || fail "results lost in a crash"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
check = db.execute("SELECT id, status FROM checks ORDER BY id DESC LIMIT 1").fetchone()
assert check[1] == "running", check
rows = dict(db.execute("SELECT t.threadline_id, r.status FROM check_threadlines t JOIN check_results r "
                       "ON r.check_threadline_id = t.id WHERE t.check_id = ?", (check[0],)).fetchall())
assert rows == {"fast": "compliant"}, rows
PY

# A malformed answer fails only its rule, and says why.
run check --rules "$rules" --rule broken --rule fast --format json
json 'rs = {r["id"]: r for r in d["rules"]}; assert rs["broken"]["status"] == "error"; assert "I refuse to answer" in rs["broken"]["error"], rs["broken"]; assert rs["fast"]["status"] == "compliant"' &&
	pass "a malformed answer fails only its rule, quoting it" || fail "malformed: $(head -c 500 "$TMP/out")"

# A server that refuses the JSON response format is asked again without it.
run check --rules "$rules" --rule jsonmode --no-cache --format json
json 'r = d["rules"][0]; assert r["status"] == "compliant" and r["attempts"] == 2, r' &&
	pass "JSON mode refused: retried once without it" || fail "json mode: $(head -c 400 "$TMP/out")"

# The reduce call fails: the programmatic reduce takes over.
run check --rules "$rules" --rule boom1 --rule boom2 --retries 0 --fail-on none
expect_out "Report (merged by revline: the reduce call failed: HTTP 500: the reduce model is down)" "reduce falls back when its call fails"
expect_out "  1. critical app.py:5  Shell injection" "the fallback keeps the findings, most severe first"

# revline.reduce false: the programmatic reduce, without a call.
git config revline.reduce false
run check --rules "$rules" --rule boom1 --rule boom2 --fail-on none
expect_out "Report (merged by revline: the reduce call is off (revline.reduce))" "revline.reduce false turns the call off"
git config --unset revline.reduce

# doctor: what is configured, and that the provider answers.
run doctor
expect_out "^provider: *openai, model fake-model" "doctor names the provider and model"
expect_out "^answers: *yes, HTTP 200" "doctor asks the provider"
expect_out "^API key: *OPENAI_API_KEY" "doctor says where the key comes from"
if grep -q "sk-SECRET" "$TMP/out"; then fail "doctor printed the key"; else pass "doctor does not print the key"; fi
REVLINE_BASE_URL=http://127.0.0.1:9/v1 run doctor
expect_status 1 "doctor exits 1 when the provider does not answer"

# Exit status 3 when the check failed as a whole; 2 for usage errors.
REVLINE_BASE_URL=http://127.0.0.1:9/v1 run check --rules "$rules" --rule fast --retries 0 --no-cache
expect_status 3 "every LLM rule failed (server down): exit 3"
expect_out "connection refused\|Could not connect\|Couldn't connect" "the failure says why"
run check --format xml
expect_status 2 "unknown format"
expect_err_line "unknown format 'xml'" "unknown format named"
run check --rules "$rules" --rule nosuch
expect_status 2 "unknown rule"
expect_err_line "no rule with id 'nosuch'" "unknown rule named"
run check --concurrency 0
expect_status 2 "bad concurrency"

# The scheduler's settings: git config or the environment; the flags win.
git config revline.timeout 1
REVLINE_RETRIES=0 run check --rules "$rules" --rule hang --no-cache --format json --fail-on none
json 'assert d["rules"][0]["status"] == "timeout" and d["rules"][0]["attempts"] == 1, d["rules"]' &&
	pass "revline.timeout and REVLINE_RETRIES apply" || fail "settings: $(head -c 400 "$TMP/out")"
REVLINE_RETRIES=0 run check --rules "$rules" --rule fast --timeout 30 --no-cache --format json --fail-on none
json 'assert d["rules"][0]["status"] == "compliant", d["rules"]' &&
	pass "--timeout wins over revline.timeout" || fail "flag over setting: $(head -c 400 "$TMP/out")"
git config --unset revline.timeout
git config revline.concurrency many
run check --rules "$rules" --rule fast
expect_status 2 "a bad setting stops the check"
expect_err_line "revline.concurrency is 'many': it takes a whole number from 1 to 64" "the bad setting is named"
git config --unset revline.concurrency

# Without a provider: LLM rules skipped with one line, local rules still run.
printf '<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> branch\n' >>app.py
env -u OPENAI_API_KEY -u REVLINE_BASE_URL "$REVLINE" check --rules "$rules" --rule markers --rule fast >"$TMP/out" 2>&1 && status=0 || status=$?
expect_status 1 "no provider: the local rule's critical finding fails the check, whatever did not run (1 over 6)"
expect_out "^  overall: critical in the rules that ran (review incomplete)$" "the verdict says what it covers"
env -u OPENAI_API_KEY -u REVLINE_BASE_URL "$REVLINE" check --rules "$rules" --rule markers --rule fast --fail-on none >/dev/null 2>&1 && status=0 || status=$?
expect_status 6 "no provider, no finding at --fail-on: the skipped LLM rule makes the review incomplete (6)"
env -u OPENAI_API_KEY -u REVLINE_BASE_URL "$REVLINE" check --rules "$rules" --rule markers --rule fast --fail-on none --allow-partial >/dev/null 2>&1 && status=0 || status=$?
expect_status 0 "--allow-partial accepts the incomplete review"
expect_out "^skipped *fast" "the LLM rule is skipped"
[ "$(grep -c 'OPENAI_API_KEY' "$TMP/out")" = 1 ] && pass "one line says how to configure a provider" ||
	fail "configuration hint: $(cat "$TMP/out")"
expect_out "critical app.py:6  No conflict markers" "the local rule's finding, on the right line"
git checkout -q app.py
printf 'import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd, shell=True)\n' >app.py

# Lock files stay out of a rule's diff; context files go with the rule.
run check --rules "$rules" --rule everything --rule ctx --no-cache --fail-on none
fakellm_requests | python3 -c '
import json, sys
bodies = [json.dumps(json.loads(l).get("body")) for l in sys.stdin]
every = [b for b in bodies if "Rule everything:" in b][-1]
ctx = [b for b in bodies if "Rule ctx:" in b][-1]
assert "app.py" in every and "package-lock.json" not in every, "lock file in the diff"
assert "CREATE TABLE users" in ctx, "context file not sent"
' && pass "no lock file in the rule diff; the context file is sent" || fail "lock/context files"

# An over-large diff is split into chunks, each its own request.
for i in $(seq 1 40); do seq 1 200 | sed "s/^/file $i line /" >"big$i.py"; done
git add big*.py
git config revline.tokenBudget 8000
run check --rules "$rules" --rule everything --no-cache --format json --fail-on none
json 'r = d["rules"][0]; assert r["status"] == "not_relevant" and r["attempts"] > 2, r' &&
	pass "a big diff went out in $(json 'print(d["rules"][0]["attempts"])') chunks" || fail "chunks: $(head -c 400 "$TMP/out")"
fakellm_requests >"$TMP/requests"
grep -q 'part 1 of' "$TMP/requests" && pass "each chunk says which part it is" || fail "no part numbers in the prompts"
git config --unset revline.tokenBudget
git rm -q --cached big*.py && rm -f big*.py

# Anthropic's messages API, through the same server.
REVLINE_PROVIDER=anthropic ANTHROPIC_API_KEY=sk-SECRET-TEST-12345 run check --rules "$rules" --rule fast --no-cache --format json
fakellm_requests >"$TMP/requests"
json 'assert d["rules"][0]["status"] == "compliant", d["rules"]' && tail -1 "$TMP/requests" | grep -q '"/v1/messages"' &&
	pass "anthropic provider" || fail "anthropic: $(head -c 300 "$TMP/out")"

# rdjsonl's suggestion: the shell injection's fix asked for and proposed (not
# applied), the next check's diagnostic suggests it (the same finding, by its
# fingerprint): the fix's lines, and what replaces them; none once the file
# changed since.
run check --rules "$rules" --rule slow --format json --fail-on none
injection=$(json 'print([f["id"] for f in d["findings"] if f["line"] == 5][0])')
run fix --finding "$injection"
expect_status 0 "a fix proposed for the shell injection (shown, not applied)"
run check --rules "$rules" --rule slow --rule invented --format rdjsonl --fail-on none
expect_status 0 "rdjsonl after the proposal"
python3 - "$TMP/out" "$REVLINE_SOURCE_DIR/tests/fixtures/reviewdog-diagnostic.json" "$REVLINE_DB" <<'PY' &&
import json, sqlite3, sys, jsonschema
schema = json.load(open(sys.argv[2]))
ds = [json.loads(l) for l in open(sys.argv[1]).read().splitlines()]
for d in ds:
    jsonschema.validate(d, schema)
first, last, after, status = sqlite3.connect(sys.argv[3]).execute(
    "SELECT first_line, last_line, after, status FROM signal_fixes ORDER BY id DESC LIMIT 1").fetchone()
assert status == "proposed", status
by_line = {d["location"]["range"]["start"]["line"]: d for d in ds}
assert "suggestions" not in by_line[4], by_line[4]
s = by_line[5]["suggestions"]
assert len(s) == 1 and s[0]["range"] == {"start": {"line": first}, "end": {"line": last}}, s
assert s[0]["text"] == after.decode().removesuffix("\n") and "shell=True" not in s[0]["text"], s
assert "return subprocess.call(cmd)" in s[0]["text"], s
PY
	pass "rdjsonl: the proposed fix as the diagnostic's suggestion, valid against reviewdog's schema" ||
	fail "rdjsonl suggestion: $(cat "$TMP/out")"
cp app.py "$TMP/app.kept"
printf '# touched\n' >>app.py
run check --rules "$rules" --rule slow --format rdjsonl --fail-on none
if [ "$(wc -l <"$TMP/out")" -ge 1 ] && ! grep -q '"suggestions"' "$TMP/out"; then
	pass "the file changed since the fix was asked for: no suggestion"
else
	fail "suggestion on a changed file: $(cat "$TMP/out")"
fi
cp "$TMP/app.kept" app.py

# The key is never written anywhere.
run check --rules "$rules" --rule slow --format json
if grep -rq "sk-SECRET-TEST-12345" "$TMP/out" "$TMP/err" "$TMP"/revline.db* "$FAKELLM_LOG" "$HOME" 2>/dev/null; then
	fail "the API key was written somewhere"
else
	pass "the API key is in no output, database or log"
fi

finish
