# ruff through `revline signals --run` and `revline fix`. ruff is not
# installed here (not in Debian 12, no PyPI), so a stand-in `ruff` on PATH
# plays it: it prints what ruff 0.16.4 itself printed for the same file
# (tests/fixtures/signals/ruff/0.16.4/output.json, from ruff's own
# command-line snapshot), with the absolute path ruff writes where the
# snapshot has [TMP], and leaves out a diagnostic whose line is gone from
# the file (so that the recheck after a fix sees it go). It checks the
# arguments revline runs ruff with. The imports of every captured format
# are read by tests/test_signals_ruff.c.
. "$(dirname "$0")/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

RUFF_OUT=$REVLINE_SOURCE_DIR/tests/fixtures/signals/ruff/0.16.4
mkdir -p "$TMP/bin" "$TMP/data"
ln -s "$REVLINE_SOURCE_DIR/share/prompts" "$TMP/data/prompts"
ln -s "$REVLINE_SOURCE_DIR/share/signals" "$TMP/data/signals"
export REVLINE_DATADIR=$TMP/data REVLINE_DB=$TMP/revline.db REVLINE_MODEL=fake-model
unset OPENAI_API_KEY ANTHROPIC_API_KEY REVLINE_PROVIDER OPENAI_BASE_URL

cat >"$TMP/bin/ruff" <<EOF
#!/bin/sh
# A stand-in for ruff 0.16.4 (see the top of t_signals_ruff.sh).
printf '%s\n' "\$*" >>"$TMP/ruff.args"
exec python3 - "$RUFF_OUT/output.json" "$RUFF_OUT/input.py" "\$@" <<'PY'
import json, os, sys
captured, source, args = sys.argv[1], sys.argv[2], sys.argv[3:]
assert args[:2] == ["check", "--output-format"] and args[2] == "json", args
files = [a for a in args if not a.startswith("-") and a not in ("check", "json")]
was = open(source).read().splitlines()
out = []
for f in files:
    now = open(f).read().splitlines()
    for d in json.load(open(captured)):
        line = was[d["location"]["row"] - 1]
        if line not in now:
            continue
        shift = now.index(line) + 1 - d["location"]["row"]
        d["filename"] = os.path.join(os.getcwd(), f)
        for key in ("location", "end_location"):
            d[key]["row"] += shift
        out.append(d)
json.dump(out, sys.stdout, indent=2, sort_keys=True)
PY
EOF
chmod +x "$TMP/bin/ruff"
export PATH=$TMP/bin:$PATH

python3 - "$TMP/script.json" <<'PY'
import json, sys
rules = [{"match": "Problem reported by ruff: F401",
          "answer": {"fixed_code": "x = y      # F821\nmatch 42:  # invalid-syntax\n",
                     "explanation": "Removed the unused import."}}]
json.dump({"rules": rules}, open(sys.argv[1], "w"))
PY
fakellm_start "$TMP/script.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1

repo=$(new_repo ruff)
cd "$repo"
printf 'x = 1\n' >input.py
git add -A && git commit -q -m base
cp "$RUFF_OUT/input.py" input.py

# --- --run -----------------------------------------------------------------------
run signals --run --linter ruff --all --json
expect_status 0 "signals --run with ruff on PATH"
grep -q -- "check --output-format json --exit-zero --no-cache input.py" "$TMP/ruff.args" &&
	pass "ruff ran as 'ruff check --output-format json --exit-zero --no-cache FILES'" ||
	fail "ruff's arguments: $(cat "$TMP/ruff.args")"
python3 - "$TMP/out" <<'PY' && pass "ruff's 3 diagnostics, paths made relative, ends and urls kept" || fail "signals: $(head -c 600 "$TMP/out")"
import json, sys
got = [(s["tool"], s["code"], s["file"], s["line"], s["column"], s["end_line"], s["end_column"], s["severity"])
       for s in json.load(open(sys.argv[1])) if s["tool"] == "ruff"]
want = [("ruff", "F401", "input.py", 1, 8, 1, 10, "error"), ("ruff", "F821", "input.py", 2, 5, 2, 6, "error"),
        ("ruff", "invalid-syntax", "input.py", 3, 1, 3, 6, "error")]
assert got == want, got
assert [s for s in json.load(open(sys.argv[1])) if s["tool"] == "ruff"][0]["url"] == "https://docs.astral.sh/ruff/rules/unused-import"
PY
grep -q "ruff .*3 signals in 1 file" "$TMP/err" && pass "ruff's line in the summary" || fail "summary: $(cat "$TMP/err")"
cp "$TMP/out" "$TMP/ruff.json"
run signals --run --all
grep -q "flake8" "$TMP/err" && fail "flake8 ran beside ruff: $(cat "$TMP/err")" || pass "flake8 is left out when ruff is there"

# --- a fix of a ruff signal, rechecked by ruff ---------------------------------------
f401=$(python3 -c "import json; print([s['id'] for s in json.load(open('$TMP/ruff.json')) if s['code'] == 'F401'][0])")
: >"$TMP/ruff.args"
run fix "$f401" --apply --yes
expect_status 0 "fix of ruff's F401, applied"
printf 'x = y      # F821\nmatch 42:  # invalid-syntax\n    case _: ...\n' >"$TMP/want.py"
cmp -s input.py "$TMP/want.py" && pass "the import is gone, the rest byte for byte" || fail "input.py: $(cat -A input.py)"
expect_out "ruff no longer reports F401 at line 1" "the recheck ran ruff again"
[ "$(grep -c -- '--output-format json' "$TMP/ruff.args")" -ge 2 ] &&
	pass "ruff ran before the fix and after it" || fail "ruff runs: $(cat "$TMP/ruff.args")"
run undo
expect_status 0 "undo"
cmp -s input.py "$RUFF_OUT/input.py" && pass "undo restores ruff's input byte for byte" || fail "after undo: $(cat input.py)"

# --- a user's command printing ruff's concise text: read as ruff's -----------------
git config revline.lint.ruff "cat '$RUFF_OUT/concise.txt' #"
run signals --run --linter ruff --all --json
expect_status 0 "signals --run with a command printing concise text"
python3 - "$TMP/out" <<'PY' && pass "concise text from --run is read too (ruff's, [*] and invalid-syntax)" || fail "concise: $(head -c 400 "$TMP/out"; cat "$TMP/err")"
import json, sys
got = [(s["tool"], s["code"], s["line"]) for s in json.load(open(sys.argv[1])) if s["tool"] == "ruff"]
assert got == [("ruff", "F401", 1), ("ruff", "F821", 2), ("ruff", "invalid-syntax", 3)], got
PY

# --- and SARIF: ruff writes file:// URIs there (the snapshot's filter took
# "file://" off with the path) ------------------------------------------------------
sed "s|\[TMP\]|file://$PWD|" "$RUFF_OUT/output.sarif" >"$TMP/ruff.sarif"
git config revline.lint.ruff "cat '$TMP/ruff.sarif' #"
run signals --run --linter ruff --all --json
expect_status 0 "signals --run with a command printing SARIF"
python3 - "$TMP/out" <<'PY' && pass "SARIF from --run is read, its file:// URIs made paths in the tree" || fail "sarif: $(head -c 400 "$TMP/out"; cat "$TMP/err")"
import json, sys
got = [(s["tool"], s["code"], s["file"], s["line"], s["end_column"]) for s in json.load(open(sys.argv[1])) if s["tool"] == "ruff"]
assert got == [("ruff", "F401", "input.py", 1, 10), ("ruff", "F821", "input.py", 2, 6),
               ("ruff", "invalid-syntax", "input.py", 3, 6)], got
PY
finish
