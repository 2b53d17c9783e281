# A team's shared store: two clones of one repository, by two people
# (git user.email), run 8 checks each at once against one PostgreSQL
# database (a real server the test starts, tests/testlib/pg.sh). All 16
# are stored whole, none fails on a lock or a deadlock, and a false
# positive that one clone marks is hidden in the other clone's next check.
# Every record says who wrote it and from which clone; history, fixes and
# stats filter by author and by repository (its remote, however each
# clone spelled it); fix detection compares each clone with itself and
# runs once per pair of checks when two clients race for it.
. "$(dirname "$0")/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
. "$REVLINE_SOURCE_DIR/tests/testlib/pg.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT
pg_start

fake_llm_env
cat >"$TMP/script.json" <<'EOF'
{"rules": [
 {"match": "Rule injection:", "latency_ms": 50, "answer": {"status": "attention", "reasoning": "r", "findings": [{"file": "app.py", "line": 5, "severity": "critical", "title": "Shell injection", "issue": "i", "suggestion": "s", "verification": {"code_examined": "return subprocess.call(cmd, shell=True)", "line_range_examined": [1, 5], "verification_method": "read run()", "checked_for_handling_elsewhere": true}}]}},
 {"latency_ms": 50, "answer": {"status": "compliant", "reasoning": "fine", "findings": []}}
]}
EOF
fakellm_start "$TMP/script.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1 REVLINE_DB=$PG_URL
rules=$TMP/rules
mkdir -p "$rules"
for id in injection errors naming; do
	printf -- '---\nid: %s\nseverity: critical\n---\nCheck the change for %s.\n' "$id" "$id" >"$rules/$id.md"
done

origin=$(new_repo origin)
printf 'import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd)\n' >"$origin/app.py"
git -C "$origin" add -A && git -C "$origin" commit -q -m base
for who in ana bo; do
	git clone -q "$origin" "$TMP/$who"
	git -C "$TMP/$who" config user.email "$who@example.com"
	# A committed .revline cannot say who wrote a check.
	printf '[user]\n\temail = mallory@evil.example\n' >"$TMP/$who/.revline"
	printf 'import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd, shell=True)\n' >"$TMP/$who/app.py"
done
# Who runs revline is git's user.email (the tests' own author would win: git reads it first).
unset GIT_AUTHOR_EMAIL
# One remote, spelled two ways.
git -C "$TMP/bo" remote set-url origin "file://$origin/"

# --- 2 x 8 checks at once --------------------------------------------------------
pids=()
for who in ana bo; do
	for i in 1 2 3 4 5 6 7 8; do
		(cd "$TMP/$who" && rc=0 && "$REVLINE" check --rules "$rules" --no-builtin --no-cache --no-fix-detection \
			--fail-on none --format json >"$TMP/$who.$i.out" 2>"$TMP/$who.$i.err" || rc=$?
		 echo "$rc" >"$TMP/$who.$i.rc") &
		pids+=($!)
	done
done
for pid in "${pids[@]}"; do wait "$pid"; done
bad=0
for who in ana bo; do
	for i in 1 2 3 4 5 6 7 8; do
		rc=$(cat "$TMP/$who.$i.rc" 2>/dev/null || echo "none")
		# Nothing on stderr but the note that the .revline's user.email is not read.
		if [ "$rc" != 0 ] || grep -qv "^revline: user.email: not read: a .revline sets only revline's keys" "$TMP/$who.$i.err"; then
			bad=$((bad + 1))
			fail "$who's check $i: exit $rc: $(head -c 300 "$TMP/$who.$i.err") $(head -c 300 "$TMP/$who.$i.out")"
		fi
	done
done
[ "$bad" = 0 ] && pass "16 checks at once: each exits 0, nothing on stderr but the note (no lock timeout, no deadlock)"
grep -q "^revline: user.email: not read: a .revline sets only revline's keys (set in $TMP/ana/.revline:2)" "$TMP/ana.1.err" &&
	pass "the .revline's user.email is said not to be read" || fail "no note of the .revline's user.email: $(cat "$TMP/ana.1.err")"
sql() { pg_psql -c "$1"; }
[ "$(sql "SELECT count(*) FROM checks WHERE status = 'complete'")" = 16 ] &&
	pass "all 16 checks are stored, complete" || fail "checks: $(sql "SELECT status, count(*) FROM checks GROUP BY status")"
[ "$(sql "SELECT count(*) FROM check_threadlines")" = 48 ] && [ "$(sql "SELECT count(*) FROM check_results")" = 48 ] &&
	pass "with their 48 rules and 48 results" ||
	fail "rules/results: $(sql "SELECT count(*) FROM check_threadlines"), $(sql "SELECT count(*) FROM check_results")"
[ "$(sql "SELECT count(*) FROM findings WHERE reduced = 0")" = 16 ] &&
	pass "and one finding each" || fail "findings: $(sql "SELECT check_id, count(*) FROM findings GROUP BY check_id")"
[ "$(sql "SELECT count(DISTINCT check_id) FROM findings WHERE reduced = 0")" = 16 ] &&
	pass "no check lost another's finding" || fail "findings by check: $(sql "SELECT check_id, count(*) FROM findings GROUP BY check_id")"

python3 - "$TMP/ana.1.out" <<'PY' && pass "a clone reviews against the merge base with its upstream, origin/main" || fail "base: $(head -c 400 "$TMP/ana.1.out")"
import json, sys
assert json.load(open(sys.argv[1]))["base"]["label"] == "merge base with origin/main"
PY

# --- a false positive marked in one clone, hidden in the other --------------------
finding=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["findings"][0]["id"])' "$TMP/ana.1.out")
(cd "$TMP/ana" && "$REVLINE" feedback "$finding" --false-positive --note "cmd is ours" >"$TMP/out" 2>"$TMP/err") &&
	pass "ana marks finding $finding false positive" || fail "feedback: $(cat "$TMP/err")"
cd "$TMP/bo"
run check --rules "$rules" --no-builtin --no-fix-detection --fail-on major --format json
expect_status 0 "bo's next check does not fail on it"
python3 - "$TMP/out" <<'PY' && pass "the finding is hidden in bo's clone" || fail "bo's report: $(head -c 500 "$TMP/out")"
import json, sys
assert json.load(open(sys.argv[1]))["findings"] == []
PY

# --- who wrote what, from which clone ----------------------------------------------
[ "$(sql "SELECT string_agg(author || '=' || n, ',' ORDER BY author) FROM (SELECT author, count(*) AS n FROM checks GROUP BY author) a")" = "ana@example.com=8,bo@example.com=9" ] &&
	pass "each check says who ran it (git's user.email, not the .revline's)" ||
	fail "authors: $(sql "SELECT author, count(*) FROM checks GROUP BY author")"
[ "$(sql "SELECT count(*) FROM checks WHERE host = '$(hostname)'")" = 17 ] &&
	pass "and on which machine" || fail "hosts: $(sql "SELECT host, count(*) FROM checks GROUP BY host")"
[ "$(sql "SELECT count(*) || ' ' || count(DISTINCT remote) || ' ' || min(remote) FROM repos")" = "2 1 file:$origin" ] &&
	pass "two clones, one repository: the remote in one form" || fail "repos: $(sql "SELECT path, remote FROM repos")"
[ "$(sql "SELECT author FROM feedback")" = "ana@example.com" ] &&
	pass "the false positive says who marked it" || fail "feedback: $(sql "SELECT author, host FROM feedback")"

cd "$TMP/ana"
count_json() { python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$TMP/out"; }
run history --limit 0 --json
[ "$(count_json)" = 8 ] && pass "history: this clone's 8 checks" || fail "history: $(count_json)"
run history --limit 0 --repo . --json
[ "$(count_json)" = 17 ] && pass "history --repo .: both clones' 17" || fail "history --repo .: $(count_json)"
python3 - "$TMP/out" "$origin" <<'PY' && pass "each with its author, host and clone" || fail "json: $(head -c 600 "$TMP/out")"
import json, socket, sys
checks = json.load(open(sys.argv[1]))
clones = {c["clone"] for c in checks}
host = socket.gethostname()
assert clones == {host + ":" + sys.argv[2].rsplit("/", 1)[0] + "/ana", host + ":" + sys.argv[2].rsplit("/", 1)[0] + "/bo"}, clones
assert {c["author"] for c in checks} == {"ana@example.com", "bo@example.com"}
PY
run history --limit 0 --repo "$origin" --author bo@example.com --json
[ "$(count_json)" = 9 ] && pass "history --repo URL --author: bo's 9, seen from ana's clone" || fail "--author: $(count_json)"
run history --limit 0 --repo .
expect_status 0 "history --repo . in text"
expect_out "^ *ID  *WHEN  *AUTHOR  *BRANCH" "shows whose each check is when there are two authors"
run history --repo "https://ana:S3CRETtok@example.com/none.git"
expect_out "No checks yet in example.com/none\\." "a remote with no checks"
grep -q S3CRET "$TMP/out" "$TMP/err" && fail "the token shows" || pass "the URL's token is not shown"
run stats --repo . --author ana@example.com --json
python3 - "$TMP/out" <<'PY' && pass "stats --repo . --author: ana's 8 checks, her false positive" || fail "stats: $(head -c 600 "$TMP/out")"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["checks"] == 8 and s["author"] == "ana@example.com", s
assert sum(r["false_positives"] for r in s["rules"]) == 1, s["rules"]
PY
run stats --repo . --author bo@example.com --json
python3 - "$TMP/out" <<'PY' && pass "bo marked none" || fail "stats: $(head -c 600 "$TMP/out")"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["checks"] == 9 and sum(r["false_positives"] for r in s["rules"]) == 0, s
PY

# --- fix detection: this clone's previous check; once per pair when two race -------
latest=$(sql "SELECT max(id) FROM checks WHERE author = 'ana@example.com'")
pids=()
for i in 1 2 3; do
	("$REVLINE" detect-fixes --once --json "$latest" >"$TMP/detect.$i.out" 2>"$TMP/detect.$i.err"; echo $? >"$TMP/detect.$i.rc") &
	pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
[ "$(cat "$TMP/detect.1.rc" "$TMP/detect.2.rc" "$TMP/detect.3.rc" | tr -d '\n')" = 000 ] &&
	pass "three clients race for one check's fix detection: each exits 0" ||
	fail "detect-fixes: $(cat "$TMP"/detect.*.rc "$TMP"/detect.*.err)"
[ "$(sql "SELECT count(*) FROM fix_detection_runs WHERE check_id = $latest")" = 1 ] &&
	pass "one of them ran it" || fail "runs: $(sql "SELECT id, status FROM fix_detection_runs WHERE check_id = $latest")"
[ "$(cat "$TMP"/detect.*.out | grep -c '"elsewhere": true')" = 2 ] &&
	pass "the others say another run has it" || fail "outputs: $(cat "$TMP"/detect.*.out | head -c 600)"
previous=$(sql "SELECT previous_check_id FROM fix_detection_runs WHERE check_id = $latest")
[ "$(sql "SELECT author FROM checks WHERE id = $previous")" = ana@example.com ] &&
	pass "compared with ana's previous check, not bo's" || fail "previous $previous: $(sql "SELECT author FROM checks WHERE id = $previous")"
run detect-fixes --json "$latest"
expect_status 0 "by hand it runs again"
[ "$(sql "SELECT count(*) FROM fix_detection_runs WHERE check_id = $latest")" = 2 ] &&
	pass "a second run, by hand" || fail "runs: $(sql "SELECT count(*) FROM fix_detection_runs WHERE check_id = $latest")"
finish
