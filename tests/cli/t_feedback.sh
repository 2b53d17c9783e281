# revline feedback: marking a finding of a real check, what it does to the
# next check, marks on detected fixes, and every usage error as one line.
. "$(dirname "$0")/lib.sh"

# Only the test's own rules (a local pattern rule: no LLM; an empty rules
# directory keeps the built-in ones out), and its own database.
mkdir -p "$TMP/data/rules"
ln -s "$REVLINE_SOURCE_DIR/share/prompts" "$TMP/data/prompts"
export REVLINE_DATADIR=$TMP/data REVLINE_DB=$TMP/revline.db
unset OPENAI_API_KEY ANTHROPIC_API_KEY REVLINE_PROVIDER REVLINE_BASE_URL OPENAI_BASE_URL

rules=$TMP/rules
mkdir -p "$rules"
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
printf 'import os\n' >app.py
git add -A && git commit -q -m base
printf 'import os\n<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> branch\n' >app.py

db() { python3 -c "import sqlite3, sys; c = sqlite3.connect('$REVLINE_DB'); print('|'.join(str(v) for v in c.execute(sys.argv[1]).fetchone()))" "$1"; }
findings() { # the JSON report's findings: "id line suppressed" per line
	python3 -c 'import json, sys
for f in json.load(open(sys.argv[1]))["findings"]:
    print(f["id"], f["line"], str(f["suppressed"]).lower())' "$TMP/out"
}

run check --rules "$rules" --format json --fail-on none
expect_status 0 "a check with the local rule"
findings >"$TMP/findings"
[ "$(wc -l <"$TMP/findings")" = 2 ] && pass "two findings, with ids" || fail "findings: $(cat "$TMP/findings")"
first=$(awk 'NR == 1 { print $1 }' "$TMP/findings")
line=$(awk 'NR == 1 { print $2 }' "$TMP/findings")

run feedback "$first" --false-positive --note "a fixture of the tests"
expect_status 0 "mark a finding false positive"
expected="finding $first (markers, app.py:$line) marked false positive: it will be hidden when it comes back"
[ "$(cat "$TMP/out")" = "$expected" ] && pass "one line says what was recorded" ||
	fail "feedback said '$(cat "$TMP/out")', expected '$expected'"
[ ! -s "$TMP/err" ] && pass "nothing on stderr" || fail "stderr: $(cat "$TMP/err")"
[ "$(db "SELECT kind, note, rule_id, file, finding_id, fingerprint = (SELECT fingerprint FROM findings WHERE id = $first), code FROM feedback")" = \
  "false_positive|a fixture of the tests|markers|app.py|$first|1|<<<<<<< HEAD" ] &&
	pass "the feedback row copies the finding" || fail "feedback row: $(db "SELECT * FROM feedback")"

# The next check hides it (the other finding stays), unless asked to show it.
run check --rules "$rules" --format json --fail-on none
findings >"$TMP/findings2"
if [ "$(wc -l <"$TMP/findings2")" = 1 ] && ! grep -q "^[0-9]* $line " "$TMP/findings2"; then
	pass "the finding marked false positive is hidden next time"
else
	fail "after marking: $(cat "$TMP/findings2")"
fi
run check --rules "$rules" --format json --fail-on none --show-suppressed
findings >"$TMP/findings3"
grep -q "^[0-9]* $line true$" "$TMP/findings3" && pass "--show-suppressed shows it, marked suppressed" ||
	fail "--show-suppressed: $(cat "$TMP/findings3")"

# A later accept lifts the suppression.
run feedback "$first" --accept
expect_status 0 "accept the same finding"
expect_out "finding $first (markers, app.py:$line) accepted: the rule will keep reporting problems like it" "the accept line"
run check --rules "$rules" --format json --fail-on none
findings >"$TMP/findings4"
[ "$(wc -l <"$TMP/findings4")" = 2 ] && pass "accepted later: shown again" || fail "after accept: $(cat "$TMP/findings4")"
run feedback "$first" --reject
expect_out "finding $first (markers, app.py:$line) rejected: recorded; it is still shown when it comes back" "the reject line"
[ "$(db "SELECT group_concat(kind, ' ') FROM (SELECT kind FROM feedback ORDER BY id)")" = "false_positive accept reject" ] &&
	pass "each mark is a row" || fail "rows: $(db "SELECT group_concat(kind) FROM feedback")"

# A detected fix, as fix detection stores it.
fix=$(python3 -c "import sqlite3
c = sqlite3.connect('$REVLINE_DB')
t = c.execute('SELECT id, check_id FROM check_threadlines ORDER BY id LIMIT 1').fetchone()
last = c.execute('SELECT max(id) FROM checks').fetchone()[0]
cur = c.execute('''INSERT INTO violation_fixes (violation_check_id, fix_check_id, violation_threadline_id,
    threadline_id, threadline_file_path, file_references, fix_type, explanation, created_at)
    VALUES (?, ?, ?, 'markers', 'rules/markers.md', '[\"app.py\"]', 'CODE_CHANGE', 'markers resolved', 1)''',
    (t[1], last, t[0]))
c.commit()
print(cur.lastrowid)")
run feedback --fix "$fix" --correct
expect_status 0 "mark a fix correct"
[ "$(cat "$TMP/out")" = "fix $fix (markers, app.py) marked correct" ] && pass "the fix line" || fail "fix: $(cat "$TMP/out")"
run feedback --incorrect --fix "$fix" --note "the markers are still there"
expect_out "fix $fix (markers, app.py) marked incorrect" "--incorrect, options in any order"
[ "$(db "SELECT kind, note, fix_id, rule_id FROM feedback ORDER BY id DESC")" = "fix_incorrect|the markers are still there|$fix|markers" ] &&
	pass "the fix's feedback row" || fail "fix row: $(db "SELECT * FROM feedback ORDER BY id DESC")"

# Usage errors and unknown ids: exit 2, one line, nothing recorded.
rows=$(db "SELECT count(*) FROM feedback")
usage() { # WHAT PATTERN ARGS...
	local what=$1 pattern=$2
	shift 2
	run feedback "$@"
	expect_status 2 "$what"
	expect_err_line "$pattern" "$what: one line"
}
usage "no arguments" "which finding? give its id"
usage "no mark" "one of --false-positive, --accept and --reject" "$first"
usage "two marks" "--accept and --reject cannot be used together" "$first" --accept --reject
usage "a fix mark on a finding" "are for a fix" "$first" --correct
usage "a finding and a fix" "not both" "$first" --fix "$fix" --correct
usage "a finding mark on a fix" "are for a finding" --fix "$fix" --false-positive
usage "no fix mark" "--correct or --incorrect" --fix "$fix"
usage "both fix marks" "--correct and --incorrect cannot be used together" --fix "$fix" --correct --incorrect
usage "not a number" "'abc' is not a finding id" abc --accept
usage "zero" "'0' is not a finding id" 0 --accept
usage "a bad fix id" "'-3' is not a fix id" --fix=-3 --correct
usage "two finding ids" "unexpected argument '7'" "$first" 7 --accept
usage "an unknown option" "unknown option '--nope'" "$first" --nope
usage "--note without its text" "needs a value" "$first" --accept --note
usage "an unknown finding" "no finding 99999 in .*'revline check'" 99999 --false-positive
usage "an unknown fix" "no fix 4242 in " --fix 4242 --correct
[ "$(db "SELECT count(*) FROM feedback")" = "$rows" ] && pass "nothing recorded by the failures" ||
	fail "rows after failures: $(db "SELECT count(*) FROM feedback")"

# A database that cannot be opened; outside a repository it still works.
REVLINE_DB=/dev/null/revline.db run feedback "$first" --accept
expect_status 2 "a database that cannot be opened"
expect_err_line "/dev/null" "the database's failure, in one line"
mkdir -p "$TMP/elsewhere"
(cd "$TMP/elsewhere" && run feedback "$first" --reject && [ "$status" = 0 ]) &&
	pass "outside a repository, with REVLINE_DB" || fail "outside a repository: $(cat "$TMP/err")"

run help feedback
expect_status 0 "help feedback"
expect_out "revline feedback --fix FIX_ID (--correct | --incorrect)" "the usage names both forms"
finish
