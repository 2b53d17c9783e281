# revline db migrate: a local SQLite history (checks, findings, a false
# positive, a fix that fix detection found, a linter's signal and its fix,
# the answer cache), made by real runs against the fake LLM server, copied
# into a PostgreSQL database on a real server the test starts
# (tests/testlib/pg.sh). history, fixes and stats say the same on both, and
# the false positive stays hidden. A copy refused partway (INSERT revoked
# on one table) leaves the target whole; run again it copies the rest, no
# row twice; a third run copies nothing. A copy killed (SIGKILL) in the
# middle of 12,000 findings leaves whole transactions, each row in the map,
# and the next run finishes it. The server's history copied back into a
# file says the same. The password is never shown.
. "$(dirname "$0")/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
. "$REVLINE_SOURCE_DIR/tests/testlib/pg.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT
pg_start

fake_llm_env
python3 - "$TMP/script.json" <<'PY'
import json, sys
def finding(file, line, title, code):
    return {"file": file, "line": line, "severity": "critical", "title": title, "issue": "i", "suggestion": "s",
            "verification": {"code_examined": code, "line_range_examined": [1, line],
                             "verification_method": "read it", "checked_for_handling_elsewhere": True}}
def attention(f):
    return {"status": "attention", "reasoning": "r", "file_references": [f["file"]], "findings": [f]}
compliant = {"status": "compliant", "reasoning": "fine", "findings": []}
rules = [
    {"match": "Threadline ID: fixcode", "answer": {"was_fixed": True, "fix_type": "CODE_CHANGE",
     "explanation": "the debug print is gone", "evidence": {"files_changed": ["util.py"]}}},
    {"match": "Threadline ID:", "answer": {"was_fixed": False, "fix_type": None, "explanation": "still there"}},
    {"match": "Problem reported by flake8: E711",
     "answer": {"fixed_code": "x = 1\ny = 2\nif x is None:\n    y = 3\nz = 4\n", "explanation": "is None"}},
    {"match": "Rule injection:", "answer": attention(finding("app.py", 5, "Shell injection",
                                                           "return subprocess.call(cmd, shell=True)"))},
    {"match": "Rule fixcode:", "then": [{"answer": attention(finding("util.py", 4, "Debug print", "print(item)"))},
                                        {"answer": compliant}]},
    {"match": "synthesizing", "answer": {"summary": "s", "overallSeverity": "critical", "findings": []}},
    {"answer": compliant},
]
json.dump({"rules": rules}, open(sys.argv[1], "w"))
PY
fakellm_start "$TMP/script.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1
local_db=$TMP/revline.db

repo=$(new_repo work)
cd "$repo"
mkdir threadlines
for id in injection fixcode; do
	printf -- '---\nid: %s\npatterns: ["**/*.py"]\nseverity: critical\n---\nCheck the change for %s.\n' "$id" "$id" \
		>"threadlines/$id.md"
done
printf 'import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd)\n' >app.py
printf 'def total(items):\n    count = 0\n    for item in items:\n        count += item\n    return count\n' >util.py
printf 'x = 1\ny = 2\nz = 4\n' >cond.py
git add -A && git commit -q -m base
printf 'import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd, shell=True)\n' >app.py
printf 'def total(items):\n    count = 0\n    for item in items:\n        print(item)\n        count += item\n    return count\n' >util.py
printf 'x = 1\ny = 2\nif x == None:\n    y = 3\nz = 4\n' >cond.py
check() { run check --no-builtin "$@"; }
json_field() { python3 -c "import json, sys; d = json.load(open('$TMP/out')); print($1)"; }

# --- a local history ---------------------------------------------------------------
check --no-fix-detection --fail-on none --format json
expect_status 0 "check 1 (local)"
injection=$(json_field "[f['id'] for f in d['findings'] if f['title'] == 'Shell injection'][0]")
[ -n "$injection" ] && pass "check 1 finds the injection ($injection)" || fail "check 1: $(head -c 400 "$TMP/out")"
printf "cond.py:3:6: E711 comparison to None (hint: use 'is None')\n" >"$TMP/flake8.txt"
run signals --import "$TMP/flake8.txt"
expect_status 0 "a linter's signal imported"
run signals --json
signal=$(json_field "d[0]['id']")
run fix "$signal" --apply --yes
expect_status 0 "its fix applied"
grep -q "if x is None:" cond.py && pass "cond.py is fixed" || fail "cond.py: $(cat cond.py)"
printf 'def total(items):\n    count = 0\n    for item in items:\n        count += item\n    return count\n' >util.py
check --wait-fix-detection --fail-on none
expect_status 0 "check 2 (local)"
expect_out "fixcode *fixed *CODE_CHANGE" "fix detection finds the debug print fixed"
run feedback "$injection" --false-positive --note "cmd is ours"
expect_status 0 "the injection marked false positive"
check --no-fix-detection --fail-on major --format json
expect_status 0 "check 3 (local): the false positive is hidden"
for cmd in history fixes stats; do
	run "$cmd"
	expect_status 0 "$cmd (local)"
	cp "$TMP/out" "$TMP/local.$cmd"
done

# --- the copy: refused partway, then finished -------------------------------------
pw=Mig8rate-s3cret
pg_add_password_user migrator "$pw" >/dev/null
target="postgresql://migrator:$pw@/$PGDATABASE?host=$PGHOST&port=$PGPORT"
sql() { pg_psql -c "$1"; }
lsql() { python3 -c "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])" "$local_db" "$1"; }
no_password() {
	if grep -q -- "$pw" "$TMP/out" "$TMP/err"; then fail "$1: the password is shown"; else pass "$1: no password shown"; fi
}
tables="repos checks check_diffs check_threadlines check_results findings violation_fixes fix_detection_runs
	fix_detection_claims feedback signal_runs signals signal_fixes check_dependencies check_packages llm_cache llm_refusals"

# The target's schema, made by the user that copies; then INSERT on feedback refused to it.
REVLINE_DB=$target run doctor
sql "REVOKE INSERT ON feedback FROM migrator" >/dev/null
run db migrate --to "$target"
expect_status 2 "a copy refused partway: exit 2"
grep -q "permission denied for table feedback" "$TMP/err" && grep -q "postgresql://migrator:\*\*\*@/" "$TMP/err" &&
	grep -q "run the same command again" "$TMP/err" &&
	pass "it names the database without its password, the problem and what to do" || fail "stderr: $(cat "$TMP/err")"
no_password "the refused copy"
expect_out "^findings  *[1-9][0-9]* copied, 0 there already" "the tables before it were copied"
[ "$(sql "SELECT count(*) FROM feedback")" = 0 ] && [ "$(sql "SELECT count(*) FROM signal_fixes")" = 0 ] &&
	pass "nothing of feedback and after" || fail "feedback: $(sql "SELECT count(*) FROM feedback")"
[ "$(sql "SELECT count(*) FROM checks")" = "$(lsql "SELECT count(*) FROM checks")" ] &&
	[ "$(sql "SELECT count(*) FROM migrated_rows WHERE tbl = 'checks'")" = "$(lsql "SELECT count(*) FROM checks")" ] &&
	pass "the checks copied are in the map" || fail "migrated_rows: $(sql "SELECT tbl, count(*) FROM migrated_rows GROUP BY tbl")"

sql "GRANT INSERT ON feedback TO migrator" >/dev/null
run db migrate --to "$target"
expect_status 0 "run again: the copy finishes"
no_password "the copy"
expect_out "^Copying $local_db to postgresql://migrator:\*\*\*@/" "it names both databases, the password hidden"
expect_out "^checks  *0 copied, 3 there already" "the checks are not copied again"
expect_out "^feedback  *1 copied, 0 there already" "the feedback is copied now"
expect_out "^signal_fixes  *1 copied" "and the signal fix"
for t in $tables; do
	l=$(lsql "SELECT count(*) FROM $t")
	p=$(sql "SELECT count(*) FROM $t")
	[ "$l" = "$p" ] && pass "$t: $l rows on both sides" || fail "$t: $l rows in the file, $p on the server"
done
[ "$(sql "SELECT count(*) FROM repos")" = 1 ] && pass "one repository, no row twice" || fail "repos: $(sql "SELECT * FROM repos")"
[ "$(sql "SELECT count(*) FROM findings f JOIN checks c ON c.id = f.check_id")" = "$(lsql "SELECT count(*) FROM findings")" ] &&
	pass "every finding refers to its check on the server" || fail "findings not joined"

run db migrate --to "$target"
expect_status 0 "a third run"
expect_out "^total  *0 copied, [1-9][0-9]* there already" "copies nothing"
expect_out "^Nothing to copy: every row is in postgresql://migrator:\*\*\*@/" "and says so"
no_password "the third run"

# --- the same history on the server --------------------------------------------------
export REVLINE_DB=$target
for cmd in history fixes stats; do
	run "$cmd"
	expect_status 0 "$cmd (server)"
	if cmp -s "$TMP/out" "$TMP/local.$cmd"; then pass "$cmd says the same on the server"
	else fail "$cmd differs: $(diff "$TMP/local.$cmd" "$TMP/out")"; fi
done
check --no-fix-detection --fail-on major --format json
expect_status 0 "a check on the server: the false positive is still hidden"
[ "$(json_field "len(d['findings'])")" = 0 ] && pass "no finding shown" || fail "findings: $(head -c 400 "$TMP/out")"

# --- and back: the server's history into a new file -----------------------------------
for cmd in history fixes stats; do
	run "$cmd"
	cp "$TMP/out" "$TMP/server.$cmd"
done
run db migrate --from "$target" --to "$TMP/back.db"
expect_status 0 "the server's history copied into a new file"
no_password "the copy back"
expect_out "^checks  *4 copied, 0 there already" "its four checks copied"
for cmd in history fixes stats; do
	REVLINE_DB=$TMP/back.db run "$cmd"
	if cmp -s "$TMP/out" "$TMP/server.$cmd"; then pass "$cmd says the same in the file copied back"
	else fail "$cmd differs: $(diff "$TMP/server.$cmd" "$TMP/out")"; fi
done

# --- killed in the middle: what was committed is whole, and the next run finishes -------------
bulk=$TMP/bulk.db
python3 - "$local_db" "$bulk" <<'PY'
import sqlite3, sys
src = sqlite3.connect(sys.argv[1])
src.execute("VACUUM INTO ?", (sys.argv[2],))
db = sqlite3.connect(sys.argv[2])
tl, check = db.execute("SELECT id, check_id FROM check_threadlines ORDER BY id LIMIT 1").fetchone()
db.executemany("INSERT INTO findings (check_id, check_threadline_id, severity, title, created_at) VALUES (?, ?, 'minor', ?, 1)",
               [(check, tl, "bulk %d" % i) for i in range(12000)])
db.commit()
PY
sql "CREATE DATABASE revline_bulk" >/dev/null
bulk_url="postgresql:///revline_bulk?host=$PGHOST&port=$PGPORT&user=$PGUSER"
bsql() { pg_psql -d revline_bulk -c "$1"; }
"$REVLINE" db migrate --from "$bulk" --to "$bulk_url" >"$TMP/bulk.out" 2>&1 &
pid=$!
for _ in $(seq 1 600); do
	[ "$(bsql "SELECT count(*) FROM migrated_rows WHERE tbl = 'findings'" 2>/dev/null || echo 0)" -gt 0 ] && break
	sleep 0.05
done
kill -9 "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
copied=$(bsql "SELECT count(*) FROM findings")
[ "$copied" = "$(bsql "SELECT count(*) FROM migrated_rows WHERE tbl = 'findings'")" ] &&
	pass "killed with $copied of 12007 findings copied: each one in the map" ||
	fail "after the kill: $copied findings, $(bsql "SELECT count(*) FROM migrated_rows WHERE tbl = 'findings'") in the map"
run db migrate --from "$bulk" --to "$bulk_url"
expect_status 0 "run again after the kill: finished"
for t in checks findings feedback signal_fixes llm_cache; do
	l=$(python3 -c "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM $t').fetchone()[0])" "$bulk")
	p=$(bsql "SELECT count(*) FROM $t")
	[ "$l" = "$p" ] && pass "after the kill, $t: $l rows on both sides" || fail "after the kill, $t: $l in the file, $p on the server"
done
[ "$(bsql "SELECT count(DISTINCT title) FROM findings WHERE title LIKE 'bulk %'")" = 12000 ] &&
	pass "no finding twice" || fail "findings copied twice"

# --- refusals -------------------------------------------------------------------------
run db migrate --to "$local_db" --from "$local_db"
expect_status 2 "--to the source itself is refused"
expect_err_line "is the database to copy from: choose another" "saying so"
run db migrate --from "$target" --to "$PG_CONNINFO"
expect_status 2 "the same database by another name is refused"
expect_err_line "host=.* is the database to copy from: choose another" "saying so"
[ "$(sql "SELECT count(*) FROM migrated_rows WHERE tbl = 'probe'")" = 0 ] && pass "the probe that told it is gone" ||
	fail "probe rows left: $(sql "SELECT * FROM migrated_rows WHERE tbl = 'probe'")"
run db migrate --to "$target" --from "$TMP/none.db"
expect_status 2 "a --from that is not there"
expect_err_line "no database to copy from at $TMP/none.db" "is named"
[ ! -e "$TMP/none.db" ] && pass "and not made" || fail "$TMP/none.db was made"
run db migrate --to "postgresql://migrator:wrongPW@/$PGDATABASE?host=$PGHOST&port=$PGPORT"
expect_status 2 "a wrong password for --to"
expect_err_line "the database to copy into: --to (postgresql://migrator:\*\*\*@/.*): cannot connect: password authentication failed.*(the password was refused" \
	"one line naming --to without its password, the problem and what to do"
grep -q wrongPW "$TMP/out" "$TMP/err" && fail "the wrong password is shown" || pass "the wrong password is not shown"
run db migrate
expect_status 2 "migrate without --to"
run db frobnicate --to "$target"
expect_status 2 "an unknown db command"
finish
