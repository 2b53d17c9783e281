# revline signals: the installed linters run on the changed files, a user's
# command from git config, failures said per linter, imports from standard
# input and from a subdirectory, SARIF with two tools, usage errors, and
# doctor listing the linters.
. "$(dirname "$0")/lib.sh"

export REVLINE_DB=$TMP/revline.db
unset REVLINE_DATADIR

repo=$(new_repo lint)
cd "$repo"
mkdir -p pkg scripts
printf 'def ok():\n    return 1\n' >pkg/mod.py
printf '#!/bin/sh\necho hello\n' >scripts/run.sh
printf 'print("untouched")\n' >pkg/old.py
git add -A && git commit -q -m base
printf 'import os\n\n\ndef ok(value=[]):\n    if value == None:\n        return 1\n    return eval("1")\n' >pkg/mod.py
printf '#!/bin/sh\necho $1\nrm -rf $DIR/*\n' >scripts/run.sh

installed() { command -v "$1" >/dev/null 2>&1; }

# --- --run: the real tools, where installed ------------------------------------
run signals --run --all --json
expect_status 0 "signals --run"
codes() { python3 -c "import json; print(' '.join(sorted(set(s['tool'] + ':' + s['code'] for s in json.load(open('$TMP/out'))))))"; }
if installed flake8; then
	codes | grep -q "flake8:F401" && codes | grep -q "flake8:E711" &&
		pass "flake8 ran on the changed Python file" || fail "flake8 signals: $(codes)"
	grep -q "flake8 .* signals in 1 file" "$TMP/err" && pass "flake8's line in the summary" || fail "summary: $(cat "$TMP/err")"
else
	grep -q "flake8 *not installed" "$TMP/err" && pass "flake8 not installed: said so" || fail "summary: $(cat "$TMP/err")"
fi
if installed shellcheck; then
	codes | grep -q "shellcheck:SC2086" && pass "shellcheck ran on the changed script" || fail "shellcheck: $(codes)"
fi
if installed bandit; then
	codes | grep -q "bandit:B307" && pass "bandit ran: eval reported" || fail "bandit: $(codes)"
fi
if codes | grep -q "old.py"; then fail "an unchanged file was linted"; else pass "unchanged files are not linted"; fi

# Only one linter; its earlier signals are replaced, the others' kept.
if installed shellcheck; then
	before=$(codes | tr ' ' '\n' | grep -c -v shellcheck)
	run signals --run --linter shellcheck --all --json
	expect_status 0 "signals --run --linter shellcheck"
	[ "$(codes | tr ' ' '\n' | grep -c -v shellcheck)" = "$before" ] &&
		pass "the other tools' signals stay" || fail "after --linter: $(codes)"
fi

# A user's command from git config, with {files}; a failing one is said and the rest go on.
git config revline.lint.mypy "printf '%s:1: error: Found a problem  [misc]\\n' {files}"
git config revline.lint.bandit "echo 'bandit: broken configuration' >&2; exit 2"
run signals --run --all --json
expect_status 0 "signals --run with the user's commands"
codes | grep -q "mypy:misc" && pass "the user's mypy command ran with the files" || fail "user command: $(codes)"
grep -q "bandit *bandit exited with status 2: bandit: broken configuration" "$TMP/err" &&
	pass "a failing linter is said, with its words" || fail "failure line: $(cat "$TMP/err")"
git config --unset revline.lint.mypy
git config --unset revline.lint.bandit
run signals --run --linter pylint
expect_status 2 "an unknown linter"
expect_err_line "no linter called 'pylint'" "named"

# --- imports -------------------------------------------------------------------
printf 'pkg/mod.py:5:14: E711 comparison to None\n' | "$REVLINE" signals --import - --tool pycodestyle >"$TMP/out" 2>"$TMP/err" && status=0 || status=$?
expect_status 0 "import from standard input"
run signals --all --json
python3 -c "import json; assert any(s['tool'] == 'pycodestyle' for s in json.load(open('$TMP/out')))" &&
	pass "--tool names the tool" || fail "tool name: $(head -c 300 "$TMP/out")"

# From a subdirectory: the tool's paths are relative to where it ran.
(cd pkg && printf 'mod.py:7:12: S307 eval\n' | "$REVLINE" signals --import - --tool sub >/dev/null 2>&1)
run signals --json
python3 -c "import json; assert [s['file'] for s in json.load(open('$TMP/out')) if s['tool'] == 'sub'] == ['pkg/mod.py']" &&
	pass "paths from a subdirectory become the repository's" || fail "relativize: $(head -c 400 "$TMP/out")"

cat >"$TMP/two.sarif" <<'EOF'
{"version": "2.1.0", "runs": [
 {"tool": {"driver": {"name": "alpha"}}, "results": [{"ruleId": "A1", "level": "error", "message": {"text": "one"},
   "locations": [{"physicalLocation": {"artifactLocation": {"uri": "pkg/mod.py"}, "region": {"startLine": 4}}}]}]},
 {"tool": {"driver": {"name": "beta"}}, "results": [{"ruleId": "B1", "message": {"text": "two"},
   "locations": [{"physicalLocation": {"artifactLocation": {"uri": "scripts/run.sh"}, "region": {"startLine": 3}}}]},
   {"ruleId": "B2", "message": {"text": "no line"}, "locations": [{"physicalLocation": {"artifactLocation": {"uri": "x"}, "region": {"startLine": "three"}}}]}]}]}
EOF
run signals --import "$TMP/two.sarif"
expect_status 0 "a SARIF file of two tools"
grep -q "two.sarif: runs\[1\].results\[1\]" "$TMP/err" && pass "the bad result is named by its field" ||
	fail "sarif problem: $(cat "$TMP/err")"
run signals --json
codes | grep -q "alpha:A1" && codes | grep -q "beta:B1" && pass "both tools' signals are kept" || fail "sarif: $(codes)"

printf 'not json {' >"$TMP/bad.json"
run signals --import "$TMP/bad.json" --format ruff
expect_status 2 "unreadable JSON"
grep -q "bad.json" "$TMP/err" && pass "the file is named" || fail "bad json: $(cat "$TMP/err")"
run signals --import "$TMP/none.txt"
expect_status 2 "a missing file"
run signals --import "$TMP/two.sarif" --format yaml
expect_status 2 "an unknown format"
expect_err_line "unknown format 'yaml'" "named, with the known ones"
run signals --import "$TMP/two.sarif" --run
expect_status 2 "--import with --run"
run signals --tool x
expect_status 2 "--tool without --import"

# A message of two lines (mypy's note joined to its error) keeps the table's columns:
# its second line under its first, the rows after it where they were.
printf 'pkg/mod.py:5: error: Incompatible types in assignment  [assignment]\npkg/mod.py:5: note: See the docs for more info\npkg/mod.py:7: error: Name "eval" is odd  [misc]\n' >"$TMP/mypy.txt"
run signals --import "$TMP/mypy.txt" --tool mypy
run signals --all
python3 - "$TMP/out" <<'PY' && pass "a two-line message: its second line under its first, each row on its line" || fail "the table: $(cat "$TMP/out")"
import re, sys
lines = open(sys.argv[1]).read().split("\n")
i = next(i for i, l in enumerate(lines) if "Incompatible types" in l)
first, second = lines[i], lines[i + 1]
assert re.match(r"^#\d+ +mypy +assignment +pkg/mod.py:5  Incompatible", first), first
assert second.strip() == "See the docs for more info", second
assert second.index("See") == first.index("Incompatible"), (first, second)
assert all(l.startswith("#") or l.startswith(" ") or not l for l in lines), lines
assert any(re.match(r"^#\d+ +mypy +misc +pkg/mod.py:7  Name", l) for l in lines), lines
PY

# --- doctor --------------------------------------------------------------------
run doctor
expect_out "^  flake8 " "doctor lists the linters"
expect_out "^  ruff  *\(not installed\|[^ ].*\)$" "with whether each is installed"

# A bad row of the user's model table is named by doctor with its file and line.
mkdir -p "$XDG_CONFIG_HOME/revline"
printf 'gpt-9*\topenai\tno\n' >"$XDG_CONFIG_HOME/revline/models.tsv"
run doctor
expect_out "^models: .*; 1 problem$" "doctor counts the model table's problems"
expect_out "^  .*/revline/models.tsv:1: 3 columns where 11 are needed" "and names the bad row by file and line"
rm "$XDG_CONFIG_HOME/revline/models.tsv"
finish
