# Fix detection between consecutive checks, against the fake server: a
# code change, a changed rule, a deleted rule (no call), an unfixed
# violation (no call), the filtered diffs in the prompt, and detection in
# the background that never holds up the check.
. "$(dirname "$0")/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

mkdir -p "$TMP/data"
ln -s "$REVLINE_SOURCE_DIR/share/prompts" "$TMP/data/prompts"
mkdir -p "$TMP/data/rules"
export REVLINE_DATADIR=$TMP/data REVLINE_DB=$TMP/revline.db REVLINE_MODEL=fake-model
unset OPENAI_API_KEY ANTHROPIC_API_KEY REVLINE_PROVIDER OPENAI_BASE_URL

finding='{"file": "app.py", "line": 2, "severity": "major", "title": "Shell command from input", "issue": "shell=True", "verification": {"code_examined": "return subprocess.call(cmd, shell=True)"}}'
attention="{\"status\": \"attention\", \"reasoning\": \"app.py:2 runs a shell\", \"file_references\": [\"app.py\"], \"findings\": [$finding]}"
compliant='{"status": "compliant", "reasoning": "fine", "findings": []}'
cat >"$TMP/script.json" <<EOF
{"rules": [
 {"match": "Threadline ID: fixcode", "latency_ms": 1500, "answer": {"was_fixed": true, "fix_type": "CODE_CHANGE", "explanation": "app.py no longer passes shell=True", "evidence": {"files_changed": ["app.py"], "code_snippets": ["subprocess.call(cmd)"]}}},
 {"match": "Threadline ID: rulechg", "answer": {"was_fixed": true, "fix_type": "THREADLINE_CHANGED", "explanation": "the patterns now exclude app.py", "evidence": {"threadline_changes": "patterns narrowed to src/"}}},
 {"match": "Threadline ID: stays", "answer": {"was_fixed": false, "fix_type": null, "explanation": "still there"}},
 {"match": "Threadline ID: brk", "status": 500, "error": "the fix detector is down"},
 {"match": "Rule stays:", "then": [{"answer": $attention}, {"answer": $compliant}]},
 {"match": "Rule brk:", "then": [{"answer": $attention}, {"answer": $compliant}]},
 {"match": "Rule fixcode:", "then": [{"answer": $attention}, {"answer": $compliant}]},
 {"match": "Rule rulechg:", "then": [{"answer": $attention}, {"answer": $compliant}]},
 {"match": "Rule ruledel:", "answer": $attention},
 {"match": "Rule unfixed:", "answer": $attention},
 {"answer": $compliant}
]}
EOF
fakellm_start "$TMP/script.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1

# A repository with one rule in threadlines/ and a bad change to review.
setup_repo() { # NAME RULE_ID
	local dir
	dir=$(new_repo "$1")
	mkdir -p "$dir/threadlines"
	printf -- '---\nid: %s\npatterns: ["**/*.py"]\n---\n# No shell\n\nNever run commands through a shell.\n' "$2" \
		>"$dir/threadlines/$2.md"
	printf 'import subprocess\ndef run(cmd):\n    return subprocess.call(cmd)\n' >"$dir/app.py"
	printf 'notes\n' >"$dir/notes.txt"
	git -C "$dir" add -A && git -C "$dir" commit -q -m base
	printf 'import subprocess\ndef run(cmd):\n    return subprocess.call(cmd, shell=True)\n' >"$dir/app.py"
	printf 'notes, changed\n' >"$dir/notes.txt"
	echo "$dir"
}
sql() { python3 -c "import sqlite3, sys; db = sqlite3.connect('$REVLINE_DB'); [print('|'.join(str(c) for c in r)) for r in db.execute(sys.argv[1])]" "$1"; }
requests_for() { fakellm_requests | grep -c "Threadline ID: $1" || true; }

# 1. Fixed by a code change: the LLM is asked, with each check's filtered diffs.
repo=$(setup_repo fixcode fixcode)
cd "$repo"
run check --no-fix-detection
expect_status 1 "the first check finds the violation"
printf 'import subprocess\ndef run(cmd):\n    return subprocess.call(cmd)\n# reviewed\n' >app.py
run check --wait-fix-detection --fail-on none
expect_status 0 "the second check is clean"
expect_out "fix detection against check [0-9]* ([0-9]* s earlier): 1 violation, 1 fixed" "the text report says what was fixed"
expect_out "fixcode *fixed *CODE_CHANGE (llm_analysis)" "the fix type and method"
[ "$(sql "SELECT fix_type, detection_method, threadline_file_path, file_references FROM violation_fixes WHERE threadline_id = 'fixcode'")" = 'CODE_CHANGE|llm_analysis|threadlines/fixcode.md|["app.py"]' ] &&
	pass "stored in violation_fixes with its rule file and files" || fail "violation_fixes: $(sql "SELECT * FROM violation_fixes")"
sql "SELECT time_between_checks_seconds FROM violation_fixes WHERE threadline_id = 'fixcode'" | grep -qx '[0-9]*' &&
	pass "the time between the checks is recorded" || fail "no time between checks"
fakellm_requests >"$TMP/requests"
python3 - "$TMP/requests" <<'PY' && pass "the prompt has both diffs filtered by the patterns, and no rule-file diff" || fail "fix-detection prompt"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
fd = [r for r in reqs if "Threadline ID: fixcode" in json.dumps(r["body"])]
assert len(fd) == 1, len(fd)
user = fd[0]["body"]["messages"][1]["content"]
prev = user.split("PREVIOUS DIFF")[1].split("CURRENT CHECK")[0]
cur = user.split("Current diff")[1].split("THREADLINE FILE CHANGES")[0]
assert "a/app.py" in prev and "shell=True" in prev and "notes.txt" not in prev, prev
assert "a/app.py" in cur and "# reviewed" in cur and "notes.txt" not in cur, cur
assert "null (the threadline file was not changed" in user.split("THREADLINE FILE CHANGES")[1]
assert "Files with violations: app.py" in user
PY

# 2. The rule changed: its own diff reaches the prompt; each check's patterns filter its diff.
repo=$(setup_repo rulechg rulechg)
cd "$repo"
run check --no-fix-detection
expect_status 1 "a violation of rulechg"
sed -i 's|\*\*/\*.py|src/**/*.py|' threadlines/rulechg.md
run check --wait-fix-detection --fail-on none --format json
python3 -c "
import json; d = json.load(open('$TMP/out'))
v = d['fix_detection']['violations'][0]
assert v['rule_id'] == 'rulechg' and v['outcome'] == 'fixed' and v['fix_type'] == 'THREADLINE_CHANGED', v
" && pass "a changed rule is a THREADLINE_CHANGED fix (json)" || fail "rulechg: $(head -c 600 "$TMP/out")"
fakellm_requests >"$TMP/requests"
python3 - "$TMP/requests" <<'PY' && pass "the rule file's diff is in the prompt; the new patterns filter the current diff" || fail "rule-change prompt"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
user = [r for r in reqs if "Threadline ID: rulechg" in json.dumps(r["body"])][-1]["body"]["messages"][1]["content"]
rule_diff = user.split("THREADLINE FILE CHANGES")[1]
assert "threadlines/rulechg.md" in rule_diff and '+patterns: ["src/**/*.py"]' in rule_diff, rule_diff
prev = user.split("PREVIOUS DIFF")[1].split("CURRENT CHECK")[0]
cur = user.split("Current diff")[1].split("THREADLINE FILE CHANGES")[0]
assert "a/app.py" in prev, prev
assert "app.py" not in cur and "no changes in the files these patterns match" in cur, cur
assert '["src/**/*.py"]' in user.split("CURRENT CHECK")[1]
PY

# 3. The rule deleted: decided without a call.
repo=$(setup_repo ruledel ruledel)
cd "$repo"
run check --no-fix-detection
git rm -q threadlines/ruledel.md
run check --wait-fix-detection --fail-on none
expect_out "ruledel *fixed *THREADLINE_DELETED (deterministic)" "a deleted rule is THREADLINE_DELETED, decided without a call"
[ "$(requests_for ruledel)" = 0 ] && pass "no request for the deleted rule (server log)" || fail "a request was made for ruledel"
[ "$(sql "SELECT detection_method FROM violation_fixes WHERE threadline_id = 'ruledel'")" = deterministic ] &&
	pass "stored as deterministic" || fail "ruledel not stored"

# 4. Left unfixed: the same findings again, no call.
repo=$(setup_repo unfixed unfixed)
cd "$repo"
run check --no-fix-detection
echo "# touched" >>notes.txt
run check --wait-fix-detection --fail-on none
expect_out "unfixed *not fixed (deterministic)" "the same findings again: not fixed, without a call"
[ "$(requests_for unfixed)" = 0 ] && pass "no request for the unfixed rule" || fail "a request was made for unfixed"
[ -z "$(sql "SELECT id FROM violation_fixes WHERE threadline_id = 'unfixed'")" ] && pass "nothing stored as a fix" || fail "unfixed stored"

# 5. In the background: check returns at once; the detector finishes later.
repo=$(setup_repo bg fixcode)
cd "$repo"
run check --no-fix-detection
printf 'import subprocess\ndef run(cmd):\n    return subprocess.call(cmd)\n# reviewed again\n' >app.py
start=$(date +%s%N)
run check --fail-on none --format json
took=$(( ($(date +%s%N) - start) / 1000000 ))
check_id=$(python3 -c "import json; print(json.load(open('$TMP/out'))['check_id'])")
[ "$took" -lt 1400 ] && pass "check returned in ${took} ms, before the 1.5 s detection answer" ||
	fail "check took ${took} ms: it waited for fix detection"
for i in $(seq 1 100); do
	[ "$(sql "SELECT status FROM fix_detection_runs WHERE check_id = $check_id")" = done ] && break
	sleep 0.1
done
[ "$(sql "SELECT status, violations, detected, llm_calls, errors FROM fix_detection_runs WHERE check_id = $check_id")" = "done|1|1|1|0" ] &&
	pass "the detached detector stored its run (1 violation, 1 fixed, 1 call)" ||
	fail "runs: $(sql "SELECT * FROM fix_detection_runs WHERE check_id = $check_id")"
[ "$(sql "SELECT fix_type FROM violation_fixes WHERE fix_check_id = $check_id")" = CODE_CHANGE ] &&
	pass "the background run found the fix" || fail "no background fix"

# 6. By hand, and its errors.
run detect-fixes "$check_id"
expect_status 0 "detect-fixes by hand"
expect_out "fixcode *fixed *CODE_CHANGE" "detect-fixes prints what it found (the answer is cached)"
run detect-fixes "$check_id" --json
python3 -c "import json; d = json.load(open('$TMP/out')); assert d['check_id'] == $check_id and d['fixed'] == 1" &&
	pass "detect-fixes --json" || fail "detect-fixes json"
[ "$(sql "SELECT count(*) FROM violation_fixes WHERE fix_check_id = $check_id")" = 1 ] &&
	pass "running it again replaces, not duplicates" || fail "duplicate fixes"
run detect-fixes 99999
expect_status 2 "an unknown check"
expect_err_line "no check 99999" "the unknown check is named"
run detect-fixes abc
expect_status 2 "a bad check id"
run check --no-fix-detection --fail-on none
last=$(sql "SELECT max(id) FROM checks")
[ -z "$(sql "SELECT id FROM fix_detection_runs WHERE check_id = $last")" ] && pass "--no-fix-detection starts no run" ||
	fail "a run started despite --no-fix-detection"

# 7. A failed call is logged in the run and the others go on.
repo=$(setup_repo failing stays)
cd "$repo"
printf -- '---\nid: brk\npatterns: ["**/*.py"]\n---\n# Brk\n\nAnother rule.\n' >threadlines/brk.md
git add threadlines/brk.md && git commit -q -m brk
run check --no-fix-detection
echo "# changed" >>app.py
run check --wait-fix-detection --retries 0 --fail-on none
expect_out "brk *failed" "the failed call is reported"
expect_out "HTTP 500: the fix detector is down" "with the server's message"
expect_out "stays *not fixed (llm_analysis)" "the other violation was still judged"
last=$(sql "SELECT max(id) FROM checks")
sql "SELECT errors, error_log FROM fix_detection_runs WHERE check_id = $last" | grep -q '^1|\["brk: HTTP 500' &&
	pass "the run logs the failed call" || fail "run log: $(sql "SELECT * FROM fix_detection_runs WHERE check_id = $last")"
finish
