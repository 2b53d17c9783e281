# revline bench over the fake LLM: a repository with real-looking fix
# history built here; the fake answers one case on the fix's lines, one
# elsewhere (and one unverified), one not at all; the catch rate, noise,
# precision and cost printed are exactly what the script implies;
# --compare with two scripted models; an interrupted run resumes; the
# working tree, the index and the branches are untouched. With
# REVLINE_TEST_DB=postgres (cli/t_bench-pg) the store is a PostgreSQL server.
. "$(dirname "$0")/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

fake_llm_env
ln -sfn "$REVLINE_SOURCE_DIR/share/models.tsv" "$TMP/data/models.tsv"
if [ "${REVLINE_TEST_DB:-}" = postgres ]; then
	. "$REVLINE_SOURCE_DIR/tests/testlib/pg.sh"
	pg_start
	export REVLINE_DB=$PG_URL
fi
export REVLINE_CONTEXT=none REVLINE_MODEL=gpt-5-mini
json() { python3 -c "import json,sys; d=json.load(open('$TMP/out')); $1"; }
rules=$TMP/rules
mkdir -p "$rules"
printf -- '---\nid: bugs\nseverity: major\n---\nCheck the change for bugs.\n' >"$rules/bugs.md"

# --- the history ------------------------------------------------------------
repo=$(new_repo work)
cd "$repo"
commit() { # DATE MESSAGE [AUTHOR]
	GIT_AUTHOR_DATE="@$1 +0000" GIT_COMMITTER_DATE="@$1 +0000" \
		GIT_AUTHOR_NAME="${3:-Dev}" GIT_AUTHOR_EMAIL="${4:-dev@example.com}" git commit -q -m "$2"
}
cat >app.py <<'EOF'
def paginate(items, start, size):
    return items[start:start + size + 1]


def timeout_default(value):
    return value or 0


def keep():
    return 1
EOF
cat >lib.py <<'EOF'
def greet_name(name):
    return "Hello " + name.title()


def unrelated_helper(x):
    total = x * 2
    return total
EOF
mkdir tests && printf 'def test_app():\n    assert True\n' >tests/test_app.py
printf '# Demo\n' >README.md
git add -A && commit 1700000000 "Initial import"

# A: the fix changes the bad line (Fixes #12).
sed -i 's/start + size + 1/start + size/' app.py
git add -A && commit 1700000100 "Off-by-one in paginate

Fixes #12"
# A typo fix, a test-only fix, a bot's fix, a feature: none is a case.
printf '# Demo app\n' >README.md && git add -A && commit 1700000200 "Fix typo in README"
printf 'def test_app():\n    assert 1\n' >tests/test_app.py && git add -A && commit 1700000300 "fix flaky test"
printf 'x = 1\n' >bot.py && git add -A && commit 1700000400 "fix: update dependency foo to v2" "renovate[bot]" "bot@renovateapp.com"
printf 'def more():\n    return 2\n' >>lib.py && git add -A && commit 1700000500 "Add more()"
# B: the fix only adds lines (a guard at the top of greet_name).
python3 - <<'EOF'
s = open('lib.py').read()
s = s.replace('def greet_name(name):\n', 'def greet_name(name):\n    if not name:\n        return "Hello"\n', 1)
open('lib.py', 'w').write(s)
EOF
git add -A && commit 1700000600 "Fix crash when the name is empty"
# C: a regression fixed.
sed -i 's/return value or 0/return value or 30/' app.py
git add -A && commit 1700000700 "Restore the timeout default (regression in 1.2)"
# A merge of a fixing branch: merges are no case.
git checkout -q -b side && printf 'def side():\n    return 3\n' >side.py && git add -A && commit 1700000800 "side work"
git checkout -q main && GIT_AUTHOR_DATE="@1700000900 +0000" GIT_COMMITTER_DATE="@1700000900 +0000" \
	git merge -q --no-ff side -m "Merge branch 'fix-side'"
A=$(git rev-parse HEAD~4) B=$(git rev-parse HEAD~3) C=$(git rev-parse HEAD~2)
A=$(git log --format=%H --grep='Off-by-one') B=$(git log --format=%H --grep='name is empty') C=$(git log --format=%H --grep='timeout default')
printf 'scratch\n' >untracked.txt
printf '# local edit\n' >>README.md
state() { git status --porcelain=v2 --branch; git for-each-ref; git rev-parse HEAD; git ls-files -s | git hash-object --stdin; cat app.py lib.py README.md untracked.txt | git hash-object --stdin; git worktree list --porcelain; }
state >"$TMP/before"

# --- mining and --list ------------------------------------------------------------
run bench --list
expect_status 0 "bench --list"
expect_out "Mined 10 commits" "the mining says how many commits it read"
expect_out "3 case" "three cases: the three real fixes"
grep -q "^${A:0:7} .*fixes-issue .*Off-by-one" "$TMP/out" && pass "case A: Fixes #12" || fail "case A: $(cat "$TMP/out")"
grep -q "^${B:0:7} .*fix .*name is empty" "$TMP/out" && pass "case B" || fail "case B: $(cat "$TMP/out")"
grep -q "^${C:0:7} .*regression .*timeout default" "$TMP/out" && pass "case C: a regression" || fail "case C: $(cat "$TMP/out")"
grep -q "app.py:2$" "$TMP/out" && pass "A's expected line is the changed one, on the new side" || fail "A's lines: $(cat "$TMP/out")"
grep -q "lib.py:1-2$" "$TMP/out" && pass "B's expected lines are around the added guard" || fail "B's lines: $(cat "$TMP/out")"
grep -q "1 typo/docs/style" "$TMP/out" && grep -q "1 only tests or docs" "$TMP/out" && grep -q "1 bots'" "$TMP/out" &&
	grep -q "1 merges" "$TMP/out" && pass "what was left out is counted" || fail "counts: $(head -1 "$TMP/out")"
run bench --list --format json
json "assert [c['commit'] for c in d['cases']] == ['$C', '$B', '$A'], d; assert d['mining'] is None" &&
	pass "--list --format json: the stored cases, newest first" || fail "list json: $(cat "$TMP/out")"
run bench --list --max 2 --seed 7
json_count=$(grep -c '^[0-9a-f]\{7\} ' "$TMP/out" || true)
[ "$json_count" = 2 ] && pass "--max 2 keeps two" || fail "--max 2: $(cat "$TMP/out")"
run bench --list --max 2 --seed 7
grep '^[0-9a-f]\{7\} ' "$TMP/out" >"$TMP/seed1"
run bench --list --max 2 --seed 7
grep '^[0-9a-f]\{7\} ' "$TMP/out" | cmp -s - "$TMP/seed1" && pass "the same seed, the same cases" || fail "seeded choice moved"
run bench --list --paths 'lib*'
expect_out "1 case" "--paths keeps the fixes of matching files"
run bench --list --since 'soon'
expect_status 2 "a bad --since is refused"
grep -q -- "--since takes a date" "$TMP/err" && pass "and says what it takes" || fail "since: $(cat "$TMP/err")"
run bench --list --max 50
expect_out "3 case" "mined again with every case"

# --- a run ------------------------------------------------------------------------
finding() { # FILE LINE CODE
	printf '{"file": "%s", "line": %s, "severity": "major", "title": "t", "issue": "i", "suggestion": "s", "verification": {"code_examined": "%s", "line_range_examined": [1, 9], "verification_method": "read", "checked_for_handling_elsewhere": true}}' "$1" "$2" "$3"
}
cat >"$TMP/script.json" <<EOF
{"rules": [
 {"match": ["gpt-5-mini", "size + 1"], "answer": {"status": "attention", "reasoning": "r", "findings": [$(finding app.py 2 'return items[start:start + size + 1]')]}, "usage": {"prompt_tokens": 10000, "completion_tokens": 1000}},
 {"match": ["gpt-5-mini", "if not name"], "answer": {"status": "attention", "reasoning": "r", "findings": [$(finding lib.py 6 'total = x * 2'), $(finding lib.py 1 'no such code here')]}, "usage": {"prompt_tokens": 10000, "completion_tokens": 1000}},
 {"match": ["gpt-5-nano", "value or 30"], "answer": {"status": "attention", "reasoning": "r", "findings": [$(finding app.py 6 'return value or 0')]}, "usage": {"prompt_tokens": 10000, "completion_tokens": 1000}},
 {"answer": {"status": "compliant", "reasoning": "fine", "findings": []}, "usage": {"prompt_tokens": 10000, "completion_tokens": 1000}}
]}
EOF
fakellm_start "$TMP/script.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1
bench() { run bench --rules "$rules" --rule bugs "$@"; }

git config revline.confirmTokens 10
bench
expect_status 2 "over revline.confirmTokens: refused"
grep -q "this benchmark would send about" "$TMP/err" && pass "with the estimate" || fail "confirm: $(cat "$TMP/err")"
[ "$(fakellm_requests | wc -l)" = 0 ] && pass "and nothing was sent" || fail "requests sent before confirmation"
git config --unset revline.confirmTokens

bench --format json
expect_status 0 "bench --format json"
json "
assert d['cases'] == 3 and d['caught'] == 1, d
assert abs(d['catch_rate'] - 1/3) < 1e-9, d['catch_rate']
assert abs(d['noise_per_case'] - 1/3) < 1e-9, d['noise_per_case']
assert d['precision'] == 0.5 and d['hits'] == 1 and d['noise'] == 1 and d['unverified'] == 1, d
assert d['tokens_in'] == 30000 and d['tokens_out'] == 3000, d
assert abs(d['cost_usd'] - 0.0135) < 1e-9, d['cost_usd']
o = {x['commit']: x for x in d['outcomes']}
assert o['$A']['outcome'] == 'caught' and o['$B']['outcome'] == 'missed' and o['$C']['outcome'] == 'missed', o
assert o['$B']['noise'] == 1 and o['$B']['unverified'] == 1, o['$B']
assert d['rules'][0]['rule_id'] == 'bugs' and d['rules'][0]['caught'] == 1 and d['rules'][0]['cases'] == 3, d['rules']
" && pass "the figures are the script's: 1 of 3 caught, 1/3 noise a case, precision 0.5, \$0.0135" ||
	fail "bench json: $(cat "$TMP/out" "$TMP/err")"
requests=$(fakellm_requests)
echo "$requests" | grep -q '"Rule' || true
grep -c . <<<"$requests" | grep -qx 3 && pass "one request a case" || fail "requests: $(grep -c . <<<"$requests")"
if echo "$requests" | grep -q 'Off-by-one\|Fixes #12\|name is empty\|Restore the timeout'; then
	fail "the fix's message reached the model"
else
	pass "the fix's message is never shown to the model"
fi

bench
expect_status 0 "bench, text"
expect_out "caught               1 of 3 cases  33.3%" "the text says the catch rate"
expect_out "noise per case       0.33" "the noise per case"
expect_out "precision            50.0%" "the precision"
expect_out "estimated cost       \$0$" "the same cases again come from revline's answer cache: no cost"
[ "$(fakellm_requests | wc -l)" = 3 ] && pass "and no new request" || fail "a cached run asked again"
expect_out "within 3 lines" "the tolerance is said"

# --exclude drops a case, now and later.
bench --exclude "${B:0:8}" --format json
json "assert d['cases'] == 2 and d['caught'] == 1 and d['noise'] == 0, d" && pass "--exclude drops the case" ||
	fail "exclude: $(cat "$TMP/out")"
run bench --list
grep -q "^${B:0:7} .*(excluded)" "$TMP/out" && pass "--list shows it excluded" || fail "excluded list: $(cat "$TMP/out")"
run bench --include "${B:0:8}" --list
! grep -q "(excluded)" "$TMP/out" && pass "--include takes it back" || fail "include: $(cat "$TMP/out")"
run bench --exclude 0000000
expect_status 2 "an unknown case is refused"

# --- --compare ---------------------------------------------------------------------
bench --compare model=gpt-5-nano --format json
expect_status 0 "bench --compare"
json "
a, b = d['runs']
assert a['caught'] == 1 and b['caught'] == 1, (a['caught'], b['caught'])
c = d['compare']
assert c['pairs'] == 3 and c['only_a'] == 1 and c['only_b'] == 1 and c['both'] == 0 and c['neither'] == 1, c
assert c['sign_test_p'] == 1.0, c
assert abs(b['cost_usd'] - 3 * (10000 * 0.05e-6 + 1000 * 0.4e-6)) < 1e-9, b['cost_usd']
" && pass "--compare: paired, A and B each caught one the other missed, p = 1" || fail "compare: $(cat "$TMP/out")"
bench --compare model=gpt-5-mini --compare model=gpt-5-nano,context=none
expect_status 0 "--compare twice, text"
expect_out "Sign test over the 2 cases they disagree on: p = 1" "the sign test said plainly"
expect_out "not a clear difference" "and what it means"
# Another provider: its endpoint, its key, its default model (the fake serves both APIs).
# No OpenAI key meanwhile: a key on the Messages API's requests can only be Anthropic's.
openai_key=${OPENAI_API_KEY-}
unset OPENAI_API_KEY
export ANTHROPIC_API_KEY=sk-ant-bench-test
bench --compare "provider=anthropic,url=$FAKELLM_URL/v1" --format json
expect_status 0 "--compare provider=anthropic,url=..."
json "
a, b = d['runs']
assert a['config'].startswith('provider=openai ') and ' model=gpt-5-mini ' in a['config'], a['config']
assert b['config'].startswith('provider=anthropic url=') and ' model=claude-haiku-4-5 ' in b['config'], b['config']
assert a['caught'] == 1 and b['caught'] == 0 and b['cases'] == 3, (a['caught'], b['caught'])
" && pass "the other side is Anthropic's default model, scored on the same cases" || fail "provider compare: $(cat "$TMP/out" "$TMP/err")"
python3 - "$FAKELLM_LOG" <<'EOF' && pass "its requests went to the Messages API with the Anthropic key" || fail "provider requests"
import json, sys
ends = [json.loads(l) for l in open(sys.argv[1]) if '"phase":"end"' in l]
msgs = [r for r in ends if r['path'].endswith('/messages')]
assert len(msgs) == 3, [r['path'] for r in ends]
assert all(r['model'] == 'claude-haiku-4-5' and r['authorization'] == 'present' for r in msgs), msgs
EOF
grep -q "sk-ant-bench-test" "$TMP/out" "$TMP/err" "$FAKELLM_LOG" && fail "the key was written somewhere" || pass "the key is written nowhere"
unset ANTHROPIC_API_KEY
[ -n "$openai_key" ] && export OPENAI_API_KEY=$openai_key
bench --compare provider=gemini
expect_status 2 "an unknown provider is refused"
bench --compare model=gpt-5-mini
expect_status 2 "two configurations that are the same are refused"
bench --compare colour=red
expect_status 2 "an unknown key is refused"
grep -q "unknown key 'colour'" "$TMP/err" && pass "naming it" || fail "spec error: $(cat "$TMP/err")"

# --- --jobs: cases at once ----------------------------------------------------------
latency() { # MS (0: none) for every answer, the server started again
	fakellm_stop
	python3 - "$TMP/script.json" "$1" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
for r in s['rules']:
    r.pop('latency_ms', None)
    if int(sys.argv[2]):
        r['latency_ms'] = int(sys.argv[2])
json.dump(s, open(sys.argv[1], 'w'))
EOF
	fakellm_start "$TMP/script.json"
	export REVLINE_BASE_URL=$FAKELLM_URL/v1
}
latency 600
bench --no-cache --format json
expect_status 0 "bench, one case at a time (the default)"
[ "$(fakellm_max_concurrency)" = 1 ] && pass "one request in flight at a time" ||
	fail "default jobs: $(fakellm_max_concurrency) at once"
latency 600
bench --no-cache --jobs 3 --format json
expect_status 0 "bench --jobs 3"
json "
assert d['cases'] == 3 and d['caught'] == 1 and d['hits'] == 1 and d['noise'] == 1 and d['unverified'] == 1, d
o = {x['commit']: x['outcome'] for x in d['outcomes']}
assert o == {'$A': 'caught', '$B': 'missed', '$C': 'missed'}, o
" && pass "--jobs 3: the same outcomes and figures" || fail "jobs: $(cat "$TMP/out" "$TMP/err")"
[ "$(fakellm_max_concurrency)" = 3 ] && pass "the three cases asked at once" ||
	fail "--jobs 3: $(fakellm_max_concurrency) at once"
[ "$(fakellm_requests | wc -l)" = 3 ] && pass "one request a case still" || fail "jobs requests: $(fakellm_requests | wc -l)"
latency 600
bench --no-cache --jobs 3 --concurrency 2 --format json
expect_status 0 "bench --jobs 3 --concurrency 2"
json "assert d['cases'] == 3 and d['caught'] == 1 and d['noise'] == 1, d" && pass "the same figures" ||
	fail "jobs, concurrency: $(cat "$TMP/out" "$TMP/err")"
[ "$(fakellm_max_concurrency)" = 2 ] && pass "--concurrency bounds the cases' requests together" ||
	fail "--jobs 3 --concurrency 2: $(fakellm_max_concurrency) at once"
latency 0

# --- interrupted, then resumed -------------------------------------------------------
fakellm_stop
python3 - "$TMP/script.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
s['rules'][0]['latency_ms'] = 30000
json.dump(s, open(sys.argv[1], 'w'))
EOF
fakellm_start "$TMP/script.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1
set +e
"$REVLINE" bench --rules "$rules" --rule bugs >"$TMP/out" 2>"$TMP/err" &
pid=$!
for i in $(seq 1 300); do
	[ "$(grep -c '^ *[0-9]/3 ' "$TMP/out")" -ge 2 ] && break
	sleep 0.1
done
sleep 0.5
kill -INT "$pid"
wait "$pid"
status=$?
set -e
expect_status 130 "Ctrl-C stops the run (130)"
grep -q "revline bench --resume goes on" "$TMP/err" && pass "and says how to go on" || fail "interrupt: $(cat "$TMP/err")"
fakellm_stop
python3 - "$TMP/script.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
del s['rules'][0]['latency_ms']
json.dump(s, open(sys.argv[1], 'w'))
EOF
fakellm_start "$TMP/script.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1
bench --resume --format json
expect_status 0 "bench --resume"
json "assert d['cases'] == 3 and d['caught'] == 1 and len(d['outcomes']) == 3, d" &&
	pass "the resumed run has every case, scored as before" || fail "resume: $(cat "$TMP/out")"
[ "$(fakellm_requests | wc -l)" = 1 ] && pass "resuming asked only for the case not done" ||
	fail "resume requests: $(fakellm_requests | wc -l)"
bench --resume
expect_status 2 "nothing left to resume"

# --- stats, and nothing touched ---------------------------------------------------------
run stats
expect_status 0 "stats"
expect_out "Benchmark" "stats shows the benchmark runs"
run history
[ "$(awk 'NR > 1' "$TMP/out" | wc -l)" = 0 ] && pass "history leaves the benchmark's checks out" || fail "history: $(cat "$TMP/out")"
state >"$TMP/after"
cmp -s "$TMP/before" "$TMP/after" && pass "the working tree, index, branches and worktrees are as they were" ||
	fail "bench changed the repository: $(diff "$TMP/before" "$TMP/after")"
finish
