# Every wait is bounded. A server that never answers and one that drips a
# byte a second (so that no low-speed limit fires) are cut by the check's
# deadline (--deadline, revline.deadline, REVLINE_DEADLINE): the check ends
# on time, partial, with exit status 5, the rules caught are timeouts that
# say so, and the rule that answered is in the output and in the history.
# Without a deadline a streamed request's ceiling (revline.ceiling) cuts the
# drip, which its idle timeout (--timeout: no byte for that long) never does;
# a request that is not streamed (revline.stream false) is cut at --timeout
# (libcurl's CURLOPT_TIMEOUT_MS bounds the whole transfer). A 429 asking to retry in
# 100,000 s is not waited for when that is past the deadline.
. "$(dirname "$0")/../cli/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

mkdir -p "$TMP/data" "$TMP/rules"
fake_llm_env
for id in fast hang drip limited; do
	printf -- '---\nid: %s\nseverity: major\n---\n# The %s rule\n\nCheck the change.\n' "$id" "$id" >"$TMP/rules/$id.md"
done

repo=$(new_repo work)
cd "$repo"
printf 'import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd)\n' >app.py
git add -A && git commit -q -m base
printf 'import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd, shell=True)\n' >app.py

finding='{"file": "app.py", "line": 5, "severity": "minor", "title": "Shell injection", "issue": "i", "verification": {"code_examined": "return subprocess.call(cmd, shell=True)"}}'
cat >"$TMP/script.json" <<EOF
{"rules": [
 {"match": "Rule fast:", "latency_ms": 100, "answer": {"status": "attention", "reasoning": "r", "findings": [$finding]}},
 {"match": "Rule hang:", "fault": "hang"},
 {"match": "Rule drip:", "fault": "drip", "drip_ms": 1000},
 {"match": "Rule limited:", "status": 429, "headers": {"Retry-After": "100000"}}
]}
EOF
fakellm_start "$TMP/script.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1

# timed ARGS...: run revline, and the milliseconds it took in $took.
timed() {
	local t0=${EPOCHREALTIME/./}
	run "$@"
	took=$(((${EPOCHREALTIME/./} - t0) / 1000))
}
within() { # LOW_MS HIGH_MS WHAT
	if [ "$took" -ge "$1" ] && [ "$took" -lt "$2" ]; then
		pass "$3 (${took} ms)"
	else
		fail "$3: took ${took} ms, expected from $1 to $2 ms; stderr: $(head -c 300 "$TMP/err")"
	fi
}
json() { python3 -c "import json,sys; d=json.load(open('$TMP/out')); $1"; }

# A hang and a drip, with a deadline of 3 s and a request timeout of 20 s
# (without the deadline the check would end at 20 s, and fail here then).
timed check --rules "$TMP/rules" --rule fast --rule hang --rule drip --deadline 3 --timeout 20 --retries 0 --no-cache --format json
within 2500 4500 "--deadline 3 ends a check held by a hang and a drip"
expect_status 5 "a check its deadline cut exits 5"
json '
rs = {r["id"]: r for r in d["rules"]}
assert d["status"] == "partial", d["status"]
for id in ("hang", "drip"):
    assert rs[id]["status"] == "timeout", rs[id]
    assert rs[id]["error"] == "the check'"'"'s deadline of 3 s passed", rs[id]["error"]
assert rs["fast"]["status"] == "attention", rs["fast"]
assert [f["title"] for f in d["findings"]] == ["Shell injection"], d["findings"]
' && pass "partial: the hang and the drip timed out at the deadline, the fast rule's finding kept" ||
	fail "deadline report: $(head -c 800 "$TMP/out")"
grep -q "deadline of 3 s passed" "$TMP/err" && pass "stderr says the deadline passed" ||
	fail "stderr: $(cat "$TMP/err")"
# The server logs the drip once it finds the client gone, at its next byte.
for _ in $(seq 1 20); do
	drips=$(fakellm_requests | python3 -c 'import json, sys
print(sum(1 for l in sys.stdin if json.loads(l)["fault"] == "drip"))')
	[ "$drips" = 1 ] && break
	sleep 0.2
done
[ "$drips" = 1 ] && pass "the drip was served (and dripping) until the deadline" || fail "$drips drips"

run history --json
python3 -c '
import json, sys
h = json.load(open(sys.argv[1]))
last = h[0] if isinstance(h, list) else h["checks"][0]
assert last["status"] == "partial" and last["findings"] == 1, last
' "$TMP/out" && pass "history: the check is partial with the finding that arrived" ||
	fail "history: $(head -c 500 "$TMP/out")"

# The setting does the same, in text: the fast rule's line is out.
git config revline.deadline 2
timed check --rules "$TMP/rules" --rule fast --rule drip --timeout 20 --retries 0 --no-cache
git config --unset revline.deadline
within 1500 3500 "revline.deadline 2 ends a check held by a drip"
expect_status 5 "exit 5 with the setting"
expect_out "Shell injection" "the rule that answered is in the text output"
expect_out "deadline of 2 s passed" "the text output says why the drip rule timed out"
REVLINE_DEADLINE=2 timed check --rules "$TMP/rules" --rule fast --rule hang --timeout 20 --retries 0 --no-cache
within 1500 3500 "REVLINE_DEADLINE 2 ends a check held by a hang"
# --allow-partial accepts a review the deadline cut (the minor finding is under --fail-on)...
run check --rules "$TMP/rules" --rule fast --rule hang --deadline 2 --timeout 20 --retries 0 --no-cache --allow-partial
expect_status 0 "--allow-partial: a review the deadline cut is accepted"
grep -q "deadline of 2 s passed: .* (allowed by --allow-partial)" "$TMP/err" && pass "stderr says the deadline passed, allowed" ||
	fail "stderr: $(cat "$TMP/err")"
# ... but a finding at --fail-on fails the check whatever the deadline cut.
run check --rules "$TMP/rules" --rule fast --rule hang --deadline 2 --timeout 20 --retries 0 --fail-on minor
expect_status 1 "a finding at --fail-on wins over the deadline (1 over 5)"

# Retry-After: 100000 is past a deadline of 30 s: no wait, the reason said.
timed check --rules "$TMP/rules" --rule fast --rule limited --deadline 30 --retries 1 --no-cache --format json
within 0 5000 "a Retry-After past the deadline is not waited for"
expect_status 5 "exit 5: the deadline cut the rate-limited rule"
json '
rs = {r["id"]: r for r in d["rules"]}
assert rs["limited"]["status"] == "timeout", rs["limited"]
assert rs["limited"]["error"] == "HTTP 429: the server asked to retry after 100000 s, past the check'"'"'s deadline of 30 s", rs["limited"]["error"]
assert rs["limited"]["attempts"] == 1 and rs["fast"]["status"] == "attention"
' && pass "the rate-limited rule failed at once, saying the server asked for 100000 s" ||
	fail "Retry-After: $(head -c 800 "$TMP/out")"

# No deadline, streamed: a byte a second is never idle for --timeout 2; the ceiling cuts it.
git config revline.ceiling 3
timed check --rules "$TMP/rules" --rule fast --rule drip --timeout 2 --retries 0 --no-cache --format json
git config --unset revline.ceiling
within 2500 6000 "without a deadline the ceiling cuts a streamed drip"
expect_status 6 "a drip cut by the ceiling makes a partial check (exit 6: review incomplete)"
json '
rs = {r["id"]: r for r in d["rules"]}
assert rs["drip"]["status"] == "timeout" and "the ceiling of a request" in rs["drip"]["error"], rs["drip"]
' && pass "the drip rule timed out at the ceiling, saying so" || fail "drip: $(head -c 800 "$TMP/out")"

# Not streamed: the request's own timeout cuts the drip (2 s, a little more for the prompt's size).
git config revline.stream false
timed check --rules "$TMP/rules" --rule fast --rule drip --timeout 2 --retries 0 --no-cache --format json
git config --unset revline.stream
within 1500 5000 "without a deadline the request timeout cuts a drip"
expect_status 6 "a drip that timed out on its own makes a partial check (exit 6: review incomplete)"
json '
rs = {r["id"]: r for r in d["rules"]}
assert rs["drip"]["status"] == "timeout" and rs["drip"]["error"].startswith("no answer within 2"), rs["drip"]
' && pass "the drip rule timed out on the request timeout" || fail "drip: $(head -c 800 "$TMP/out")"

run check --rules "$TMP/rules" --rule fast --deadline 0
expect_status 2 "--deadline 0 is refused"
git config revline.deadline -1
run check --rules "$TMP/rules" --rule fast
git config --unset revline.deadline
expect_status 2 "a negative revline.deadline is refused"

finish
