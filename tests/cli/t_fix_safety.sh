# Fixes that would make a file worse: an answer that deletes the whole edit
# window is refused unless the signal calls for a deletion and the window
# holds only its lines (an unused import alone may go; a 50-line import
# block for one unused name may not); and the recheck compares flake8's
# whole-file output before and after, naming new problems wherever they
# are, not only on the rewritten lines.
. "$(dirname "$0")/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

mkdir -p "$TMP/data/rules"
ln -s "$REVLINE_SOURCE_DIR/share/prompts" "$TMP/data/prompts"
ln -s "$REVLINE_SOURCE_DIR/share/signals" "$TMP/data/signals"
export REVLINE_DATADIR=$TMP/data REVLINE_DB=$TMP/revline.db REVLINE_MODEL=fake-model
unset OPENAI_API_KEY ANTHROPIC_API_KEY REVLINE_PROVIDER OPENAI_BASE_URL

# block.py and worse.py: imports m01..m50 on lines 1-50, every one used on
# line 53 but m03; line 54 compares to None (E711, there before any fix).
imports() { for i in $(seq -w 1 50); do printf 'import m%s\n' "$i"; done; }
used() { for i in $(seq -w 1 50); do [ "$i" = 03 ] || printf 'm%s, ' "$i"; done; }
python3 - "$TMP/script.json" "$(imports | grep -v '^import m03$' | grep -v '^import m40$')" <<'PY'
import json, sys
rules = [
    # The issue's answer: nothing at all for the whole import block.
    {"match": ["File: block.py", "F401"], "answer": {"fixed_code": "", "explanation": "Removed the unused import."}},
    {"match": ["File: block.py", "E711"], "answer": {"fixed_code": "\n", "explanation": "Removed the comparison."}},
    {"match": ["File: alone.py", "F401"], "answer": {"fixed_code": "", "explanation": "Removed the unused import."}},
    # m03 goes, and m40 with it: m40 is used on line 52, which the fix does not touch.
    {"match": ["File: worse.py", "F401"], "answer": {"fixed_code": sys.argv[2] + "\n", "explanation": "Removed m03."}},
]
json.dump({"rules": rules}, open(sys.argv[1], "w"))
PY
fakellm_start "$TMP/script.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1

repo=$(new_repo safety)
cd "$repo"
git commit -q --allow-empty -m base
{ imports; printf '\n\nprint(%s)\n' "$(used)"; printf 'if m01 == None:\n    pass\n'; } >block.py
cp block.py worse.py
printf 'import os\n\n\n' >alone.py
cp block.py "$TMP/block.before"

cat >"$TMP/flake8.txt" <<'EOF2'
block.py:3:1: F401 'm03' imported but unused
block.py:54:7: E711 comparison to None (hint: use 'is None')
alone.py:1:1: F401 'os' imported but unused
worse.py:3:1: F401 'm03' imported but unused
worse.py:54:7: E711 comparison to None (hint: use 'is None')
EOF2
run signals --import "$TMP/flake8.txt"
expect_status 0 "signals --import"
run signals --all --json
cp "$TMP/out" "$TMP/all.json"
id_of() { python3 -c "import json; print([s['id'] for s in json.load(open('$TMP/all.json')) if s['code'] == '$1' and s['file'] == '$2'][0])"; }

# --- deleting the whole window -------------------------------------------------
run fix "$(id_of F401 block.py)" --apply --yes
expect_status 3 "an empty answer for one unused import of a 50-line block"
grep -q "refused: the answer deletes the whole edit window (the import block, lines 1-50) for one F401 at line 3" \
	"$TMP/err" && pass "refused, saying why" || fail "refusal: $(cat "$TMP/err")"
cmp -s block.py "$TMP/block.before" && pass "the block is kept" || fail "block.py changed: $(head -5 block.py)"

run fix "$(id_of E711 block.py)"
expect_status 3 "a deletion for a code that does not call for one"
grep -q "deletes the whole edit window (lines 52-55), and E711 does not call for a deletion" "$TMP/err" &&
	pass "refused: E711 is not fixed by deleting" || fail "E711 refusal: $(cat "$TMP/err")"

run fix "$(id_of F401 alone.py)" --apply --yes
expect_status 0 "an unused import alone in its window may be deleted"
grep -q "import os" alone.py && fail "alone.py still imports os: $(cat alone.py)" || pass "the import is gone"

alone=$(sed -n 's/.*fix \([0-9]*\) applied to alone.py.*/\1/p' "$TMP/out")

# --- the applied fixes, to pick one to undo ------------------------------------
run undo --list
expect_status 0 "undo --list"
expect_out "^#$alone .* alone.py:1-3  flake8 F401  'os' imported but unused" "the applied fix is listed with its id and place"
grep -q "block.py" "$TMP/out" && fail "a refused fix is listed: $(cat "$TMP/out")" || pass "refused fixes are not"
run undo --list 3
expect_status 2 "--list with an id"

python3 - "$REVLINE_DB" <<'PY' && pass "the refusals are failed fixes, with their reason" || fail "signal_fixes rows"
import sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute("SELECT file, status, error FROM signal_fixes ORDER BY id").fetchall()
assert [r[:2] for r in rows] == [("block.py", "failed"), ("block.py", "failed"), ("alone.py", "applied")], rows
assert "deletes the whole edit window" in rows[0][2], rows[0]
PY

# --- the recheck looks at the whole file ---------------------------------------
if ! command -v flake8 >/dev/null; then
	echo "skip: flake8 is not installed: the whole-file recheck is not tested"
	finish
	exit
fi
run fix "$(id_of F401 worse.py)" --apply --yes
expect_status 0 "the fix is applied"
expect_out "applied to worse.py, but the file got worse: flake8 no longer reports F401 at line 3, but reports 1 new problem: F821 at line 51 (undefined name 'm40')" \
	"a new problem on a line the fix did not touch is named and counted"
grep -q "E711" "$TMP/out" && fail "the E711 that was there before is called new: $(cat "$TMP/out")" ||
	pass "a problem that was there before is not new"
python3 - "$REVLINE_DB" <<'PY' && pass "recorded as new_signals" || fail "recheck row"
import sqlite3, sys
row = sqlite3.connect(sys.argv[1]).execute("SELECT recheck, recheck_detail FROM signal_fixes ORDER BY id DESC LIMIT 1").fetchone()
assert row[0] == "new_signals" and "F821" in row[1], row
PY
worse=$(sed -n 's/.*fix \([0-9]*\) applied to worse.py.*/\1/p' "$TMP/out")
run undo --list --json
python3 -c "
import json; d = json.load(open('$TMP/out'))
assert [f['id'] for f in d] == [$worse, $alone], d
assert d[0]['recheck'] == 'new_signals' and 'F821' in d[0]['recheck_detail'], d[0]
" && pass "undo --list --json: newest first, with the recheck" || fail "list json: $(cat "$TMP/out")"
run undo "$alone"
expect_status 0 "an older fix picked from the list is undone"
printf 'import os\n\n\n' | cmp -s - alone.py && pass "alone.py is as it was" || fail "alone.py: $(cat alone.py)"
run undo --list
expect_out "^#$worse " "the other is still listed"
grep -q "^#$alone " "$TMP/out" && fail "the undone fix is still listed" || pass "the undone one is not"
finish
