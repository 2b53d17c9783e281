# Signals and fixes from the command line: import and list signals (changed
# lines only, or all), ask for a fix against the fake LLM server, see the
# diff, apply it byte for byte, recheck with the linter, undo it; a finding's
# fix; refusals (no terminal to ask on, a file changed meanwhile, a symlink,
# a path outside the tree); and every step in signal_fixes.
. "$(dirname "$0")/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

mkdir -p "$TMP/data/rules"
ln -s "$REVLINE_SOURCE_DIR/share/prompts" "$TMP/data/prompts"
export REVLINE_DATADIR=$TMP/data REVLINE_DB=$TMP/revline.db REVLINE_MODEL=fake-model
unset OPENAI_API_KEY ANTHROPIC_API_KEY REVLINE_PROVIDER OPENAI_BASE_URL

# E711 at app.py:8: the window is lines 6-10 (+-1, widened to the +-2
# minimum), dedented; the answer is those lines fixed. The debug print
# finding at util.py:4: lines 2-6, dedented, answered in a code fence.
python3 - "$TMP/script.json" <<'PY'
import json, os, sys
e711 = '"""Return the arguments when value is missing."""\nresult = value\nif value is None:\n    result = sys.argv\nprint(result)\n'
printfix = 'count = 0\nfor item in items:\n    count += item\nreturn count\n'
finding = {"file": "util.py", "line": 4, "severity": "minor", "title": "Debug print left in",
           "issue": "print(item) in a loop", "suggestion": "Remove it",
           "verification": {"code_examined": "print(item)"}}
rules = [
    {"match": "Rule dbg:", "answer": {"status": "attention", "reasoning": "r", "findings": [finding]}},
    {"match": "File: conflict.py", "latency_ms": 1500,
     "answer": {"fixed_code": "x = 1\ny = 2\nif x is None:\n    y = 3\nz = 4\n", "explanation": "is None"}},
    {"match": "Problem reported by flake8: E711",
     "answer": {"fixed_code": e711, "explanation": "Compare to None with is, as PEP 8 asks."}},
    {"match": "Problem found in review (rule dbg",
     "answer": "```json\n" + json.dumps({"fixed_code": printfix, "explanation": "Removed the debug print."}) + "\n```"},
    {"match": "synthesizing", "answer": {"summary": "s", "overallSeverity": "minor-issues", "findings": []}},
    # bottle's test/example_settings.py (W292) and test/__init__.py (W391):
    # autopep8's fix of each window, dedented; the W391 answer keeps the
    # blank line a model may keep.
    {"match": "Problem reported by flake8: W292",
     "answer": {"fixed_code": '        "C": 3\n    }\n}\n', "explanation": "Added the final newline."}},
    {"match": "Problem reported by flake8: W391",
     "answer": {"fixed_code": "import bottle\nbottle.debug(True)\n\n", "explanation": "Removed the blank line."}},
    # E302 in a file with a redefinition further down (bottle's
    # test/test_outputfilter.py): the fix adds a line, and flake8's F811
    # message names a line that moves with it.
    {"match": "File: redef.py",
     "answer": {"fixed_code": "import bottle\n\n\ndef setup():\n    return bottle\n", "explanation": "Two blank lines."}},
    # bottle's test/test_environ.py:217 (E261 inside test_body_noclose): the
    # window back, fixed, with one line end more than it left.
    {"match": "Problem reported by flake8: E261",
     "answer": {"fixed_code": open(os.environ["REVLINE_SOURCE_DIR"] +
                                   "/tests/fixtures/patch/46-e261-answer-extra-line-end/answer.txt").read(),
                "explanation": "Two spaces before the inline comment."}},
    # A model that gives the snippet back as it was.
    {"match": "Problem reported by flake8: E302",
     "answer": {"fixed_code": "x = 1\ndef f():\n    return x\n", "explanation": "Nothing to change here."}},
]
json.dump({"rules": rules}, open(sys.argv[1], "w"))
PY
fakellm_start "$TMP/script.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1

repo=$(new_repo fixes)
cd "$repo"
printf 'import sys\n\n\ndef check(value):\n    return value\n' >app.py
printf 'def total(items):\n    count = 0\n    for item in items:\n        count += item\n    return count\n' >util.py
printf 'x = 1\ny = 2\nz = 4\n' >conflict.py
git add -A && git commit -q -m base
printf 'import os\nimport sys\n\n\ndef check(value):\n    """Return the arguments when value is missing."""\n    result = value\n    if value == None:\n        result = sys.argv\n    print(result)\n    return result\n' >app.py
printf 'def total(items):\n    count = 0\n    for item in items:\n        print(item)\n        count += item\n    return count\n' >util.py
printf 'x = 1\ny = 2\nif x == None:\n    y = 3\nz = 4\n' >conflict.py
ln -s app.py link.py
cp app.py "$TMP/app.before"

# --- signals -----------------------------------------------------------------
cat >"$TMP/flake8.txt" <<'EOF'
app.py:1:1: F401 'os' imported but unused
app.py:2:1: F811 redefinition of unused 'sys'
app.py:8:14: E711 comparison to None (hint: use 'is None')
conflict.py:3:6: E711 comparison to None (hint: use 'is None')
link.py:8:14: E711 comparison to None (hint: use 'is None')
../outside.py:1:1: E711 comparison to None (hint: use 'is None')
app.py:12:3: a line without a code
EOF
run signals --import "$TMP/flake8.txt"
expect_status 0 "signals --import"
grep -q "flake8.txt:7: .*(skipped)" "$TMP/err" && pass "the unreadable line is named and skipped" ||
	fail "problem line: $(cat "$TMP/err")"
grep -q "6 signals from $TMP/flake8.txt (flake8)" "$TMP/err" && pass "the signals read are counted" ||
	fail "import summary: $(cat "$TMP/err")"

run signals --json
json_ids() { python3 -c "import json, sys; d = json.load(open('$TMP/out')); print(' '.join(f\"{s['code']}@{s['file']}:{s['line']}\" for s in d))"; }
[ "$(json_ids)" = "F401@app.py:1 E711@app.py:8 E711@conflict.py:3" ] &&
	pass "signals: only those on changed lines (link.py and ../outside.py are not in the diff)" ||
	fail "changed-line signals: $(json_ids)"
run signals --all --json
[ "$(python3 -c "import json; print(len(json.load(open('$TMP/out'))))")" = 6 ] &&
	pass "signals --all: every signal" || fail "--all: $(head -c 300 "$TMP/out")"
id_of() { python3 -c "import json, sys; print([s['id'] for s in json.load(open('$TMP/all.json')) if s['code'] == '$1' and s['file'] == '$2'][0])"; }
cp "$TMP/out" "$TMP/all.json"
e711=$(id_of E711 app.py)
conflict=$(id_of E711 conflict.py)
link=$(id_of E711 link.py)
outside=$(id_of E711 ../outside.py)
run signals
expect_out "^#$e711 *flake8 *E711 *app.py:8:14  comparison to None" "signals: text lines with ids and places"
grep -q "3 signals on changed lines; 3 more elsewhere (--all shows them)" "$TMP/err" &&
	pass "the hidden ones are counted" || fail "hidden count: $(cat "$TMP/err")"

# --- a fix, shown ------------------------------------------------------------
run fix "$e711"
expect_status 0 "fix: proposed"
expect_out "^-    if value == None:" "the diff removes the line"
expect_out "^+    if value is None:" "and adds the fixed one, indented as the file is"
expect_out "Compare to None with is" "the explanation"
expect_out "fix [0-9]* proposed for app.py (lines 6-10)" "the window is named"
cmp -s app.py "$TMP/app.before" && pass "showing a fix does not write the file" || fail "the file changed"
fakellm_requests | python3 -c '
import json, sys
bodies = [json.loads(l)["body"] for l in sys.stdin]
user = [b for b in bodies if "E711" in json.dumps(b)][-1]["messages"][1]["content"]
assert "if value == None:\n" in user and "    if value == None:" not in user.split("Context around it")[0], "snippet not dedented"
assert "    8 |     if value == None:" in user, "context not numbered"
assert "Imports" in user or "import os" in user, user
' && pass "the prompt has the dedented snippet and numbered context" || fail "prompt: $(fakellm_requests | tail -c 600)"

# --- applying ------------------------------------------------------------------
run fix "$e711" --apply </dev/null
expect_status 1 "--apply without a terminal and without --yes"
grep -q "add --yes" "$TMP/err" && pass "it says to add --yes" || fail "no --yes hint: $(cat "$TMP/err")"
cmp -s app.py "$TMP/app.before" && pass "and writes nothing" || fail "the file changed"

run fix "$e711" --apply --yes
expect_status 0 "fix --apply --yes"
sed 's/if value == None:/if value is None:/' "$TMP/app.before" >"$TMP/app.expected"
cmp -s app.py "$TMP/app.expected" && pass "the file is fixed, the rest byte for byte" ||
	fail "applied file: $(diff "$TMP/app.expected" app.py)"
applied=$(sed -n 's/.*fix \([0-9]*\) applied to app.py.*/\1/p' "$TMP/out")
[ -n "$applied" ] && pass "the output names the fix ($applied) and how to undo it" || fail "no fix id: $(cat "$TMP/out")"
if command -v flake8 >/dev/null; then
	expect_out "flake8 no longer reports E711" "the linter ran again: the signal is gone"
else
	expect_out "applied to app.py; flake8 is not installed" "no linter: said so"
fi
run signals
expect_out "#$e711 .*\[fix $applied applied" "signals shows the fix"

run undo
expect_status 0 "undo"
cmp -s app.py "$TMP/app.before" && pass "undo restores the file byte for byte" || fail "after undo: $(diff "$TMP/app.before" app.py)"
expect_out "^undid fix $applied: restored app.py (lines [0-9]*-[0-9]* as they were before it)$" \
	"undo names the fix and the file it restored"
run undo
expect_status 1 "nothing left to undo"
expect_err_line "no applied fix to undo" "said plainly"

# --- a finding's fix -----------------------------------------------------------
rules=$TMP/rules
mkdir -p "$rules"
printf -- '---\nid: dbg\npatterns: ["**/*.py"]\n---\n# No debug prints\n\nNo print() left in.\n' >"$rules/dbg.md"
run check --rules "$rules" --rule dbg --format json --fail-on none --no-fix-detection
finding=$(python3 -c "import json; print(json.load(open('$TMP/out'))['findings'][0]['id'])")
cp util.py "$TMP/util.before"
run fix --finding "$finding" --apply --yes
expect_status 0 "fix --finding --apply --yes (a fenced answer)"
printf 'def total(items):\n    count = 0\n    for item in items:\n        count += item\n    return count\n' >"$TMP/util.expected"
cmp -s util.py "$TMP/util.expected" && pass "the finding's lines are fixed" || fail "util.py: $(diff "$TMP/util.expected" util.py)"
expect_out "a finding's fix: no linter to ask" "no recheck for a finding"

# --- refusals ------------------------------------------------------------------
# The edit is made once the request is at the server (it answers after
# 1.5 s): after revline read the file, whatever the machine's speed.
seen=$(wc -l <"$FAKELLM_LOG")
(for _ in $(seq 1 600); do
	tail -n +"$((seen + 1))" "$FAKELLM_LOG" | grep -q 'File: conflict.py' && break
	sleep 0.05
done; printf '# edited meanwhile\n' >>conflict.py) &
editor=$!
run fix "$conflict" --apply --yes
wait "$editor"
expect_status 1 "the file changed while the fix was asked for"
grep -q "conflict.py changed since the fix was proposed.*revline fix $conflict' again" "$TMP/err" &&
	pass "refused, saying to ask again" || fail "conflict message: $(cat "$TMP/err")"
[ "$(tail -n 1 conflict.py)" = "# edited meanwhile" ] && pass "the edit made meanwhile is kept" ||
	fail "conflict.py: $(cat conflict.py)"

run fix "$link"
expect_status 2 "a symlink is refused"
grep -q "link.py: a symbolic link" "$TMP/err" && pass "the refusal names the symlink" || fail "symlink: $(cat "$TMP/err")"
run fix "$outside"
expect_status 2 "a path outside the working tree is refused"
grep -q "outside" "$TMP/err" && pass "the refusal says outside" || fail "outside: $(cat "$TMP/err")"
run fix 99999
expect_status 2 "an unknown signal"
expect_err_line "no signal 99999 in this repository" "named"

# --- the record ----------------------------------------------------------------
python3 - "$REVLINE_DB" <<'PY' && pass "signal_fixes keeps every step" || fail "signal_fixes rows"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT status, window, recheck, applied_at IS NOT NULL, undone_at IS NOT NULL, "
                  "length(before), length(after) FROM signal_fixes ORDER BY id").fetchall()
states = [r[0] for r in rows]
# Shown; applied then undone; the finding's, applied; the conflict, proposed and never applied.
assert states == ["proposed", "undone", "applied", "proposed"], states
assert rows[1][3] == 1 and rows[1][4] == 1 and rows[1][5] > 0 and rows[1][6] > 0, rows[1]
assert rows[2][2] == "not_run", rows[2]
PY

# --- how a file ends (W292, W391), and a fix that changes nothing ----------------
fixtures=$REVLINE_SOURCE_DIR/tests/fixtures/patch
cp "$fixtures/41-w292-final-newline-added/before.py" settings.py
cp "$fixtures/43-w391-blank-line-removed/before.py" init.py
cp "$fixtures/46-e261-answer-extra-line-end/before.py" environ.py
printf 'x = 1\ndef f():\n    return x\n' >noop.py
cp noop.py "$TMP/noop.before"
printf 'import bottle\n\ndef setup():\n    return bottle\n\n\ndef test5():\n    pass\n\n\ndef test5():\n    pass\n' >redef.py
cat >"$TMP/ends.txt" <<'EOF'
settings.py:5:2: W292 no newline at end of file
init.py:14:1: W391 blank line at end of file
noop.py:2:1: E302 expected 2 blank lines, found 1
redef.py:3:1: E302 expected 2 blank lines, found 1
environ.py:217:21: E261 at least two spaces before inline comment
EOF
run signals --import "$TMP/ends.txt"
run signals --all --json
cp "$TMP/out" "$TMP/all.json"

run fix "$(id_of W292 settings.py)" --apply --yes
expect_status 0 "W292: the fix is applied"
cmp -s settings.py "$fixtures/41-w292-final-newline-added/expected.py" &&
	pass "W292: the final newline is added, byte for byte autopep8's file" || fail "settings.py: $(od -c settings.py | tail -3)"
if command -v flake8 >/dev/null; then
	expect_out "flake8 no longer reports W292 at line 5" "W292: the recheck says it is gone"
fi
fakellm_requests | python3 -c '
import json, sys
body = [json.loads(l)["body"] for l in sys.stdin if "W292" in l][-1]
system, user = body["messages"][0]["content"], body["messages"][1]["content"]
assert "must end with exactly one newline" in system and "exactly as many" not in system, system
assert "lines 3-5" in user, user
' && pass "W292: the window reaches the end; the prompt asks for one final newline, not the snippet's none" ||
	fail "W292 prompt"

run fix "$(id_of W391 init.py)" --apply --yes
expect_status 0 "W391: the fix is applied"
cmp -s init.py "$fixtures/43-w391-blank-line-removed/expected.py" &&
	pass "W391: the blank line at the end goes, though the answer kept it (autopep8's file)" ||
	fail "init.py: $(tail -c 40 init.py | od -c)"
if command -v flake8 >/dev/null; then
	expect_out "flake8 no longer reports W391 at line 14" "W391: the recheck says it is gone"
fi

run fix "$(id_of E302 redef.py)" --apply --yes
expect_status 0 "E302 before a redefinition: applied"
if command -v flake8 >/dev/null; then
	expect_out "flake8 no longer reports E302 at line 3 (\|flake8 no longer reports E302 at line 3$" \
		"the F811 whose message names a moved line is not new (flake8: 'from line 7' now, 'from line 6' before)"
fi

run fix "$(id_of E261 environ.py)" --apply --yes
expect_status 0 "E261 inside a function, one line end too many in the answer: applied"
cmp -s environ.py "$fixtures/46-e261-answer-extra-line-end/expected.py" &&
	pass "E261: the comment's two spaces and no stray blank line (the window's end kept)" ||
	fail "environ.py: $(diff "$fixtures/46-e261-answer-extra-line-end/expected.py" environ.py)"
if command -v flake8 >/dev/null; then
	expect_out "flake8 no longer reports E261 at line 217 (undo" "E261: gone, and nothing new"
fi

run fix "$(id_of E302 noop.py)" --apply --yes
expect_status 3 "an answer that changes nothing is no fix"
grep -q "no fix for noop.py: the fix changes nothing in noop.py (lines 1-3): Nothing to change here." "$TMP/err" &&
	pass "it says the fix changes nothing, with the model's words" || fail "no-op: $(cat "$TMP/err")"
grep -q "applied" "$TMP/out" "$TMP/err" && fail "a no-op reported as applied: $(cat "$TMP/out")" ||
	pass "and never says applied"
cmp -s noop.py "$TMP/noop.before" && pass "noop.py is not written" || fail "noop.py changed"
python3 - "$REVLINE_DB" <<'PY' && pass "the no-op is stored as failed, with nothing to undo" || fail "no-op row"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
row = db.execute("SELECT status, error, applied_at FROM signal_fixes ORDER BY id DESC LIMIT 1").fetchone()
assert row[0] == "failed" and "changes nothing" in row[1] and row[2] is None, row
PY
finish
