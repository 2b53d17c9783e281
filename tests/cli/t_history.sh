# revline history, fixes and stats on a history made by real checks (local
# pattern rules) plus fixes and feedback put in with SQL; two checks at once
# on one database; a check killed halfway (interrupted, results kept); a
# corrupt or unreadable database refused and left as it was.
. "$(dirname "$0")/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

# Only the test's own rules: a data directory with the prompts and no rules.
mkdir -p "$TMP/data"
ln -s "$REVLINE_SOURCE_DIR/share/prompts" "$TMP/data/prompts"
export REVLINE_DATADIR=$TMP/data REVLINE_DB=$TMP/revline.db
unset REVLINE_PROVIDER REVLINE_BASE_URL REVLINE_MODEL OPENAI_API_KEY ANTHROPIC_API_KEY OPENAI_BASE_URL

rules=$TMP/rules llm=$TMP/llmrules
mkdir -p "$rules" "$llm"
local_rule() { # ID PATTERN SEVERITY
	printf -- "---\nid: %s\nseverity: %s\npattern: '%s'\n---\nNo %s left in the code.\n" \
		"$1" "$3" "$2" "$2" >"$rules/$1.md"
}
local_rule todo TODO major
local_rule fixme FIXME minor
for id in slow hang; do
	printf -- "---\nid: %s\nseverity: major\n---\n# The %s rule\n\nCheck the change for %s problems.\n" \
		"$id" "$id" "$id" >"$llm/$id.md"
done

repo=$(new_repo work)
cd "$repo"
printf 'int main(void)\n{\n\treturn 0;\n}\n' >app.c
git add -A && git commit -q -m base

# Every seeded check: the two local rules only (--rule: the built-in rules are
# still found beside the program), no fix detection in the background
# (the fixes are put in below, with chosen times).
check() { run check --rules "$rules" --rule todo --rule fixme --no-fix-detection --fail-on none "$@"; }
json() { python3 -c "import json,sys; d=json.load(open('$TMP/out')); $1"; }
sql() { python3 - "$REVLINE_DB" "$@"; }

# Check 1: a TODO and a FIXME. Check 2: the FIXME gone. Check 3: both gone.
# Check 4, on branch other: two TODOs.
printf 'int main(void)\n{\n\t/* TODO: exit codes */\n\treturn 0; /* FIXME */\n}\n' >app.c
check
expect_status 0 "check 1"
printf 'int main(void)\n{\n\t/* TODO: exit codes */\n\treturn 0;\n}\n' >app.c
check
printf 'int main(void)\n{\n\treturn 0;\n}\n' >app.c
check
git checkout -q -b other
printf '/* TODO one */\nint main(void)\n{\n\t/* TODO two */\n\treturn 0;\n}\n' >app.c
check
expect_status 0 "check 4, on another branch"

# history: newest first, every branch of the repository.
run history
expect_status 0 "history"
[ "$(sed -n 1p "$TMP/out" | tr -s ' ')" = " ID WHEN BRANCH STATUS TIME RULES FINDINGS ATTENTION SEVERITY TOKENS IN CACHED OUT COST TARGET" ] &&
	pass "history has a header" || fail "history header: $(sed -n 1p "$TMP/out")"
[ "$(awk 'NR > 1 { print $1 }' "$TMP/out" | tr '\n' ' ')" = "4 3 2 1 " ] &&
	pass "history lists the four checks, newest first" || fail "history: $(cat "$TMP/out")"
# Check 4's report merged its two TODO findings into one.
# Local rules make no request: no token billed, no cost.
grep -Eq '^ +4  [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}  other +complete +[0-9.]+ s +2 +1 +1  needs-work +0 +0 +0 +-  HEAD' "$TMP/out" &&
	pass "a history line: time, branch, status, duration, rules, findings, attention, severity, tokens, cost, target" ||
	fail "history line of check 4: $(cat "$TMP/out")"
grep -Eq '^ +3  .*  main +complete .* 2 +0 +0  clean' "$TMP/out" &&
	pass "a clean check reads clean" || fail "history line of check 3: $(cat "$TMP/out")"
run history --limit 2
[ "$(awk 'NR > 1 { print $1 }' "$TMP/out" | tr '\n' ' ')" = "4 3 " ] && pass "--limit 2" ||
	fail "--limit 2: $(cat "$TMP/out")"
run history --json
expect_status 0 "history --json"
json '
assert [c["id"] for c in d] == [4, 3, 2, 1], d
for c in d:
    for k in ("id", "created_ms", "created_at", "finished_ms", "finished_at", "branch", "target",
              "status", "duration_ms", "rules", "findings", "attention", "overall_severity",
              "tokens_in", "tokens_cached", "tokens_cache_write", "tokens_out", "cost_usd"):
        assert k in c, k
    assert (c["tokens_in"], c["tokens_cached"], c["tokens_cache_write"], c["tokens_out"]) == (0, 0, 0, 0), c
    assert c["status"] == "complete" and c["rules"] == 2, c
    assert c["created_at"].endswith("Z") and "T" in c["created_at"], c
    assert c["finished_ms"] >= c["created_ms"] and c["duration_ms"] >= 0, c
assert [c["attention"] for c in d] == [1, 0, 1, 2], d
assert [c["findings"] for c in d] == [1, 0, 1, 2], d
assert [c["branch"] for c in d] == ["other", "main", "main", "main"], d
import datetime
c = d[0]
t = datetime.datetime.fromtimestamp(c["created_ms"] / 1000, datetime.timezone.utc)
assert c["created_at"] == t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (c["created_ms"] % 1000), c
' && pass "history --json: every field, the figures of each check" || fail "history --json: $(head -c 800 "$TMP/out")"
run history --limit x
expect_status 2 "--limit needs a number"
expect_err_line "limit needs a number" "--limit x named"

# The fixes, as fix detection would have stored them, and feedback on them.
sql <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
def threadline(check, rule):
    return db.execute("SELECT id FROM check_threadlines WHERE check_id = ? AND threadline_id = ?",
                      (check, rule)).fetchone()[0]
def fix(vcheck, fcheck, rule, kind, seconds, method):
    db.execute("INSERT INTO violation_fixes (violation_check_id, fix_check_id, violation_threadline_id, "
               "threadline_id, threadline_file_path, file_references, fix_type, explanation, "
               "time_between_checks_seconds, detection_method, created_at) VALUES "
               "(?, ?, ?, ?, ?, '[\"app.c\"]', ?, ?, ?, ?, 1700000000000)",
               (vcheck, fcheck, threadline(vcheck, rule), rule, "rules/%s.md" % rule, kind,
                "The %s comment was removed." % rule, seconds, method))
fix(1, 2, "fixme", "CODE_CHANGE", 120, "deterministic")        # 1
fix(2, 3, "todo", "CODE_CHANGE", 7200, "llm_analysis")         # 2
fix(1, 2, "todo", "THREADLINE_CHANGED", 30, "llm_analysis")    # 3, marked incorrect below
repo = db.execute("SELECT id FROM repos").fetchone()[0]
db.execute("INSERT INTO feedback (fix_id, repo_id, kind, rule_id, created_at) "
           "VALUES (3, ?, 'fix_incorrect', 'todo', 1700000001000)", (repo,))
# One of the four todo findings is a false positive.
finding = db.execute("SELECT id FROM findings WHERE check_id = 4 AND rule_id = 'todo' AND reduced = 0 "
                     "ORDER BY id LIMIT 1").fetchone()[0]
db.execute("INSERT INTO feedback (finding_id, repo_id, kind, rule_id, created_at) "
           "VALUES (?, ?, 'false_positive', 'todo', 1700000002000)", (finding, repo))
db.commit()
PY

run fixes
expect_status 0 "fixes"
[ "$(grep -o '^fix [0-9]*' "$TMP/out" | tr '\n' ' ')" = "fix 2 fix 3 fix 1 " ] &&
	pass "fixes: newest fix check first" || fail "fixes order: $(cat "$TMP/out")"
expect_out "^fix 2  todo  CODE_CHANGE  2 h  llm_analysis$" "a fix's line: rule, type, time, method"
expect_out "^  rule file:   rules/todo.md$" "the rule file"
expect_out "^  files:       app.c$" "the files"
expect_out "^  checks:      2 -> 3 " "the two checks"
expect_out "^  explanation: The todo comment was removed.$" "the explanation"
grep -A4 '^fix 3 ' "$TMP/out" | grep -q '^  feedback:    incorrect$' &&
	pass "a fix marked incorrect says so" || fail "fix 3's feedback: $(cat "$TMP/out")"
grep -A4 '^fix 1 ' "$TMP/out" | grep -q '^  feedback:    none$' &&
	pass "a fix without feedback says none" || fail "fix 1's feedback: $(cat "$TMP/out")"
run fixes --rule fixme
[ "$(grep -o '^fix [0-9]*' "$TMP/out" | tr '\n' ' ')" = "fix 1 " ] && pass "fixes --rule fixme" ||
	fail "fixes --rule fixme: $(cat "$TMP/out")"
run fixes --rule todo --json
json '
assert [f["id"] for f in d] == [2, 3], d
f = d[0]
assert f["rule_id"] == "todo" and f["rule_file"] == "rules/todo.md" and f["files"] == ["app.c"], f
assert f["fix_type"] == "CODE_CHANGE" and f["seconds_between_checks"] == 7200, f
assert f["time_between_checks"] == "2 h" and f["detection_method"] == "llm_analysis", f
assert f["violation_check_id"] == 2 and f["fix_check_id"] == 3 and f["feedback"] is None, f
assert d[1]["feedback"] == "incorrect", d[1]
' && pass "fixes --rule todo --json" || fail "fixes --json: $(head -c 800 "$TMP/out")"
run fixes --rule nosuch
expect_status 0 "fixes of an unknown rule"
expect_out "^No fixes detected yet for rule nosuch.$" "none for an unknown rule"

# stats, by hand: violations todo 3 (checks 1, 2, 4) + fixme 1 = 4. Fixes 1
# and 2 count (3 was marked incorrect): fix rate 2 / 4 = 50%. Times 120 and
# 7200: average 3660 s (1 h), p95 the 2nd of 2 (7200 s, 2 h); one under 5
# minutes, one of 1-24 h. Findings: todo 1 + 1 + 2 = 4, one false positive
# (25%); fixme 1, none.
run stats
expect_status 0 "stats"
expect_out "^violations  *4$" "stats: violations"
expect_out "^fixes  *2  (and 1 marked incorrect, not counted)$" "stats: fixes, and the incorrect one"
expect_out "^fix rate  *50.0%$" "stats: fix rate"
expect_out "^time to fix  *average 1 h, p95 2 h (2 fixes with a time)$" "stats: average and p95"
expect_out "^  < 5 min  *1$" "stats: under 5 minutes"
expect_out "^  5-60 min  *0$" "stats: 5 to 60 minutes"
expect_out "^  1-24 h  *1$" "stats: 1 to 24 hours"
expect_out "^  > 24 h  *0$" "stats: over 24 hours"
expect_out "^fix types  *most common: CODE_CHANGE$" "stats: the most common fix type"
expect_out "^  CODE_CHANGE  *2$" "stats: CODE_CHANGE"
expect_out "^  THREADLINE_CHANGED  *0$" "stats: the incorrect THREADLINE_CHANGED is not counted"
expect_out "^rule   violations  fixes  fix rate  findings  false positives  fp rate$" "stats: the rules' header"
expect_out "^todo  *3  *1  *33.3%  *4  *1  *25.0%$" "stats: the todo rule"
expect_out "^fixme  *1  *1  *100.0%  *1  *0  *0.0%$" "stats: the fixme rule"
run stats --json
json '
assert d["checks"] == 4 and d["violations"] == 4 and d["fixes"] == 2 and d["incorrect_fixes"] == 1, d
assert d["fix_rate"] == 0.5, d
t = d["time_to_fix"]
assert t == {"timed_fixes": 2, "average_seconds": 3660.0, "p95_seconds": 7200,
             "buckets": {"under_5_min": 1, "5_to_60_min": 0, "1_to_24_h": 1, "over_24_h": 0}}, t
assert d["fix_types"] == {"CODE_CHANGE": 2, "THREADLINE_CHANGED": 0, "THREADLINE_DELETED": 0}, d
assert d["most_common_fix_type"] == "CODE_CHANGE", d
r = {x["rule_id"]: x for x in d["rules"]}
assert [x["rule_id"] for x in d["rules"]] == ["todo", "fixme"], d["rules"]
assert r["todo"] == {"rule_id": "todo", "violations": 3, "fixes": 1, "fix_rate": 1 / 3, "findings": 4,
                     "unverified": 0, "false_positives": 1, "false_positive_rate": 0.25}, r["todo"]
assert d["unverified_findings"] == 0, d
assert r["fixme"]["fix_rate"] == 1.0 and r["fixme"]["false_positive_rate"] == 0, r["fixme"]
assert d["repo"] == "'"$repo"'", d["repo"]
' && pass "stats --json: the same figures" || fail "stats --json: $(head -c 1200 "$TMP/out")"

# What checks billed, as a check that asked an LLM stores it (the four
# checks above asked none): check 4 12,345 tokens in of which 9,984 read
# from the provider's prompt cache, 1,234 out, $0.0042; check 3 3,000 in of
# which 1,000 written to the cache, 100 out, at a cost not known.
sql <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE checks SET tokens_in = 12345, tokens_cached = 9984, tokens_out = 1234, cost_usd = 0.0042 WHERE id = 4")
db.execute("UPDATE checks SET tokens_in = 3000, tokens_cache_write = 1000, tokens_out = 100, cost_usd = NULL WHERE id = 3")
db.commit()
PY
run history
grep -Eq '^ +4  .*  needs-work +12,345 +9,984 +1,234 +~\$0\.0042  HEAD' "$TMP/out" &&
	pass "history: a check's tokens in, cached and out, and its estimated cost" || fail "history usage of check 4: $(cat "$TMP/out")"
grep -Eq '^ +3  .*  clean +3,000 +0 +100 +unknown  HEAD' "$TMP/out" &&
	pass "history: a check whose cost is not known says so" || fail "history usage of check 3: $(cat "$TMP/out")"
run history --json
json '
c = {x["id"]: x for x in d}
assert (c[4]["tokens_in"], c[4]["tokens_cached"], c[4]["tokens_cache_write"], c[4]["tokens_out"], c[4]["cost_usd"]) == (12345, 9984, 0, 1234, 0.0042), c[4]
assert (c[3]["tokens_in"], c[3]["tokens_cache_write"], c[3]["cost_usd"]) == (3000, 1000, None), c[3]
assert c[2]["tokens_in"] == 0 and c[2]["cost_usd"] in (0, None), c[2]
' && pass "history --json: tokens and cost, null when not known" || fail "history --json usage: $(head -c 1500 "$TMP/out")"
run stats
expect_out "^tokens in  *15,345  (9,984 cached, 1,000 cache writes)$" "stats: tokens in, cached and written to the cache"
expect_out "^tokens out  *1,334$" "stats: tokens out"
expect_out "^estimated cost  *~\$0.0042  (and 1 check of unknown cost)$" "stats: the known cost, and the check of unknown cost"
run stats --json
json '
assert d["usage"] == {"tokens_in": 15345, "tokens_cached": 9984, "tokens_cache_write": 1000, "tokens_out": 1334,
                      "cost_usd": 0.0042, "checks_cost_unknown": 1}, d["usage"]
' && pass "stats --json: the usage" || fail "stats --json usage: $(head -c 1500 "$TMP/out")"
sql <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE checks SET cost_usd = NULL WHERE id = 4")
db.commit()
PY
run stats
expect_out "^estimated cost  *unknown (2 checks billed tokens at no known price)$" "stats: no cost known, none made up"

# Outside a repository there is no history to show.
cd "$TMP"
run history
cd "$repo"
expect_status 2 "history outside a repository"
expect_err_line "not a git repository" "history outside a repository says so"

# Two checks at once on one database: each waits for the other's writes, and
# the second to open does not take the first (running, alive) for interrupted.
cat >"$TMP/script.json" <<'EOF'
{"rules": [
 {"match": "Rule slow:", "latency_ms": 1500, "answer": {"status": "compliant", "reasoning": "fine", "findings": []}},
 {"match": "Rule hang:", "fault": "hang"}
]}
EOF
fakellm_start "$TMP/script.json"
# env execs revline: $! is revline itself, not a subshell.
llm_env=(env OPENAI_API_KEY=sk-test REVLINE_MODEL=fake-model REVLINE_BASE_URL=$FAKELLM_URL/v1)
"${llm_env[@]}" "$REVLINE" check --rules "$rules" --rules "$llm" --rule todo --rule slow --no-cache \
	--no-fix-detection --fail-on none >"$TMP/one.out" 2>"$TMP/one.err" &
one=$!
sleep 0.5
"${llm_env[@]}" "$REVLINE" check --rules "$rules" --rules "$llm" --rule todo --rule slow --no-cache \
	--no-fix-detection --fail-on none >"$TMP/two.out" 2>"$TMP/two.err" &
two=$!
sleep 0.5
# A third process opening the database meanwhile leaves both running checks alone.
run history --json --limit 2
json 'assert [(c["id"], c["status"]) for c in d] == [(6, "running"), (5, "running")], d' &&
	pass "checks of live processes stay running when another opens the database" ||
	fail "running checks: $(head -c 600 "$TMP/out")"
wait $one && s1=0 || s1=$?
wait $two && s2=0 || s2=$?
[ "$s1" = 0 ] && [ "$s2" = 0 ] && pass "two checks at once both exit 0" ||
	fail "two checks at once: $s1 ($(cat "$TMP/one.err")), $s2 ($(cat "$TMP/two.err"))"
[ "$(fakellm_max_concurrency)" = 2 ] && pass "the two checks overlapped" ||
	fail "the two checks did not run at the same time"
run history --json --limit 2
json 'assert [(c["id"], c["status"], c["rules"]) for c in d] == [(6, "complete", 2), (5, "complete", 2)], d' &&
	pass "both checks are complete in history" || fail "two checks: $(head -c 600 "$TMP/out")"
# The tokens the fake server's answers counted (its usage), summed by the check.
json 'assert all(c["tokens_in"] > 0 and c["tokens_out"] > 0 for c in d), d' &&
	pass "history: an LLM check's tokens" || fail "LLM check tokens: $(head -c 600 "$TMP/out")"

# A check killed halfway: the local rule's result arrived, the LLM rule hangs.
"${llm_env[@]}" "$REVLINE" check --rules "$rules" --rules "$llm" --rule todo --rule hang --no-cache \
	--no-fix-detection >/dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do
	n=$(sql <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print(db.execute("SELECT count(*) FROM check_results r JOIN check_threadlines t ON t.id = r.check_threadline_id "
                 "WHERE t.check_id = 7").fetchone()[0])
PY
)
	[ "$n" = 1 ] && break
	sleep 0.1
done
sleep 0.3
kill -KILL $pid
wait $pid 2>/dev/null || true
sql <<'PY' && pass "killed: the check is still 'running' in the file" || fail "killed check not running"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
assert db.execute("SELECT status FROM checks WHERE id = 7").fetchone()[0] == "running"
PY
run history
expect_out "^ *7  .*  other  *interrupted  *-  *2  *2  *1  *- " "history shows the killed check interrupted, with what it had"
run history --json --limit 1
json 'c = d[0]; assert (c["id"], c["status"], c["attention"], c["findings"], c["duration_ms"]) == (7, "interrupted", 1, 2, None), c; assert c["finished_ms"] is not None' &&
	pass "history --json: interrupted, the todo result and its findings kept" || fail "interrupted: $(head -c 600 "$TMP/out")"
sql <<'PY' && pass "the results received before the kill are in the database" || fail "results lost in the kill"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = dict(db.execute("SELECT t.threadline_id, r.status FROM check_threadlines t JOIN check_results r "
                       "ON r.check_threadline_id = t.id WHERE t.check_id = 7").fetchall())
assert rows == {"todo": "attention"}, rows
assert db.execute("SELECT count(*) FROM findings WHERE check_id = 7 AND reduced = 0").fetchone()[0] == 2
PY
fakellm_stop

# A corrupt database: refused with its path, exit 2 (check reviews all the
# same and exits 4: its results could not be stored), left byte for byte as
# it was.
bad=$TMP/corrupt/revline.db
mkdir -p "$TMP/corrupt"
python3 -c "import sys; sys.stdout.buffer.write(bytes((i * 131 + 7) % 251 for i in range(16384)))" >"$bad"
sum=$(sha256sum "$bad")
for cmd in history check fixes stats; do
	args=()
	[ "$cmd" != check ] || args=(--rules "$rules" --rule todo --no-fix-detection --fail-on none)
	REVLINE_DB=$bad run "$cmd" "${args[@]}"
	if [ "$cmd" = check ]; then expect_status 4 "check on a corrupt database"; else expect_status 2 "$cmd on a corrupt database"; fi
	expect_err_line "$bad: file is not a database" "$cmd names the corrupt database"
done
[ "$(sha256sum "$bad")" = "$sum" ] && pass "the corrupt database is unchanged" || fail "the corrupt database was changed"
[ "$(ls "$TMP/corrupt")" = revline.db ] && pass "nothing was made beside it" || fail "made: $(ls "$TMP/corrupt")"

# An unreadable one: a directory in its place, and (unless root, who reads
# anything) a file without permissions.
mkdir -p "$TMP/dir.db"
REVLINE_DB=$TMP/dir.db run history
expect_status 2 "history on a directory as the database"
expect_err_line "$TMP/dir.db: Is a directory" "the directory is named"
if [ "$(id -u)" != 0 ]; then
	cp "$REVLINE_DB" "$TMP/locked.db"
	chmod 000 "$TMP/locked.db"
	REVLINE_DB=$TMP/locked.db run history
	expect_status 2 "history on an unreadable database"
	expect_err_line "$TMP/locked.db: Permission denied" "the unreadable database is named"
	chmod 600 "$TMP/locked.db"
	cmp -s "$REVLINE_DB" "$TMP/locked.db" && pass "the unreadable database is unchanged" ||
		fail "the unreadable database was changed"
fi
finish
