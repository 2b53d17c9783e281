# Terminal escape sequences from outside never reach the terminal raw.
# A hostile server puts OSC 52 clipboard writes, title changes, screen
# clears, C1 controls and a bidi override into every field of its answers
# (reasoning, findings, evidence, file names, the reduce, fixes, fix
# detection, OSV advisories, error bodies); the repository's directory, a
# changed file's name, a rule file (its name, id, display name, a bad
# value), a manifest (a package's name, a version) and a commit message
# carry them too, and so does a linter's output imported by `signals`.
# Every text output (check's text and markdown, fix, signals, history,
# fixes, stats, rules, detect-fixes, feedback, error lines, diff on a
# terminal) shows them made visible (^[ ... <U+009B> <U+202E>), never raw;
# JSON and SARIF carry them JSON-escaped; `revline diff` into a pipe is
# still the change byte for byte.
. "$(dirname "$0")/../cli/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

mkdir -p "$TMP/data/rules"
fake_llm_env

ESC=$(printf '\033')
BEL=$(printf '\a')
RLO=$(printf '\342\200\256')
CSI8=$(printf '\302\233')
# A file name, in the repository and in the model's answers; another for a
# linter (whose ESC sequences, colours, revline's reader strips itself).
EVIL_FILE="e${ESC}[2Jvil.py"
SIG_FILE="s${RLO}ig${CSI8}.py"

# The server: every string it sends carries all the sequences.
python3 - "$TMP/script.json" "$EVIL_FILE" <<'PY'
import json, sys
evil = "\x1b]52;c;cHduZWQ=\x07\x1b]0;pwned\x07\x1b[2J\u009b31m\u009d0;t\u202etxt.exe"
evil_file = sys.argv[2]
line1 = 'x = "\x1b]0;pwned\x07"  # MARK_A'
finding = {"file": evil_file, "line": 1, "severity": "major", "title": "T " + evil, "issue": "I " + evil,
           "suggestion": "S " + evil,
           "verification": {"code_examined": line1, "line_range_examined": [1, 2],
                            "verification_method": "M " + evil, "checked_for_handling_elsewhere": evil}}
rules = [
    {"match": "Threadline ID", "answer": {"was_fixed": True, "fix_type": "CODE_CHANGE", "explanation": "FD " + evil,
                                          "evidence": {"files_changed": [evil_file]}}},
    {"match": "Problem found in review",
     "answer": {"fixed_code": 'x = "fixed \x1b]0;code\x07"\ny = 2\n', "explanation": "FX " + evil}},
    {"match": "Problem reported by flake8", "status": 500, "error": "E5 " + evil},
    {"match": "synthesizing", "answer": {"summary": "Sum " + evil, "overallSeverity": "major " + evil,
                                         "mustFix": ["MF " + evil],
                                         "findings": [dict(finding, id="m1", fromRules=["x" + evil], sources=["f1"])]}},
    # An id with escapes is no id (it goes in a URL): the query fails, and its message is made visible.
    {"match_path": "/v1/querybatch", "results": [
        {"match": "\"left", "result": {"vulns": [{"id": "GHSA-" + evil}]}},
        {"result": {"vulns": [{"id": "GHSA-evil-0001"}]}}]},
    {"match_path": "/v1/vulns/GHSA-evil-0001", "body": {"id": "GHSA-evil-0001", "summary": "Adv " + evil,
                                                        "database_specific": {"severity": "HIGH" + evil}}},
    {"match": "DOWN2", "status": 500, "error": "E5 " + evil},
    {"match": ["HOSTILE1", "MARK_A"], "answer": {"status": "attention", "reasoning": "R " + evil,
                                                 "file_references": [evil_file], "findings": [finding]}},
    {"match": ["SECOND4", "MARK_A"], "answer": {"status": "attention", "reasoning": "R " + evil, "findings": [
        dict(finding, line=2, title="T2 " + evil, verification={"code_examined": "y = 2"})]}},
    {"match": "HOSTILE1", "answer": {"status": "compliant", "reasoning": "R " + evil, "findings": []}},
]
json.dump({"rules": rules, "default": {"answer": {"status": "compliant", "reasoning": evil}}}, open(sys.argv[1], "w"))
PY
fakellm_start "$TMP/script.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1 REVLINE_OSV_URL=$FAKELLM_URL

# Rules: a file name and a display name with sequences (YAML's "\e" is
# ESC; an id must be a plain name), a rule the server fails with a hostile
# body, a file with a bad value and a hostile name.
rules=$TMP/rules
mkdir -p "$rules"
cat >"$rules/hostile${ESC}]0;rulefile${BEL}.md" <<'EOF'
---
id: hostile
name: "Evil \e]52;c;cHduZWQ=\a \u202e name"
severity: major
---
# Hostile

Check the change for HOSTILE1 problems.
EOF
printf -- '---\nid: down\nseverity: major\n---\n# Down\n\nCheck for DOWN2 problems.\n' >"$rules/down.md"
printf -- '---\nid: second\nseverity: minor\n---\n# Second\n\nCheck for SECOND4 problems.\n' >"$rules/second.md"
printf -- '---\nid: bad\nseverity: "\\e]0;sev\\a"\n---\n# Bad\n\nA bad severity.\n' >"$rules/bad${ESC}[2J.md"

# The repository, in a directory whose name has a sequence; a branch whose
# name has a bidi override and a C1 control (git refuses only ASCII
# controls); changed files whose names have them; a manifest bump; a
# commit message naming a bump (Dependabot's form) with a sequence.
repo=$(new_repo "work${ESC}]0;dir${BEL}")
cd "$repo"
git config revline.retries 0
printf 'x = 1\ny = 2\n' >"$EVIL_FILE"
printf 'a = 1\n' >"$SIG_FILE"
printf '{"name": "shop", "dependencies": {"left\\u001b]0;pkg\\u0007pad": "1.0.0", "right": "1.0.0"}}\n' >package.json
printf '{"lockfileVersion": 3, "packages": {}}\n' >package-lock.json
git add -A && git commit -q -m base
git checkout -q -b "feat${RLO}ure${CSI8}"
git branch -q --set-upstream-to=main
printf '{"name": "shop", "dependencies": {"left\\u001b]0;pkg\\u0007pad": "2.0.0", "right": "3.0.0\\u001b]0;ver\\u0007"}}\n' >package.json
printf '{"lockfileVersion": 3, "packages": {"node_modules/x": {}}}\n' >package-lock.json
git add -A && git commit -q -m "Bump dependencies" -m "Bumps [lock${ESC}[2J${CSI8}msg](https://example.com) from 1.0.0 to 2.0.0."
printf 'x = "\033]0;pwned\a"  # MARK_A\ny = 2\n' >"$EVIL_FILE"
printf 'a = None == 1\n' >"$SIG_FILE"

# No raw ESC, C1 control (as UTF-8 or a lone 8-bit byte) or bidi override
# in stdout and stderr; the visible forms are there (the content is shown).
raw_free() { # WHAT
	local f
	for f in "$TMP/out" "$TMP/err"; do
		# Invalid UTF-8 would let a lone 8-bit CSI (0x9b) or OSC (0x9d) through.
		if LC_ALL=C grep -qE $'\x1b|\a|\xc2\x9b|\xc2\x9d|\xe2\x80\xae' "$f" ||
			! iconv -f UTF-8 -t UTF-8 "$f" >/dev/null 2>&1; then
			fail "$1: raw control characters reached the terminal: $(grep -a -m1 -E $'\x1b|\a|\xc2\x9b' "$f" | od -c | head -3)"
			return
		fi
	done
	pass "$1: nothing raw"
}
shows() { # WHAT TEXT...: each TEXT in stdout or stderr
	local what=$1 text
	shift
	for text in "$@"; do
		if grep -qF -- "$text" "$TMP/out" "$TMP/err"; then
			pass "$what shows $text"
		else
			fail "$what: no '$text' in: $(head -c 600 "$TMP/out") / $(head -c 300 "$TMP/err")"
		fi
	done
}
VISIBLE_ALL=('^[]52;c;cHduZWQ=^G^[]0;pwned^G^[[2J<U+009B>31m<U+009D>0;t<U+202E>txt.exe')

# --- check: text, markdown ------------------------------------------------------
run check --rules "$rules" --fail-on none --no-fix-detection --allow-partial
expect_status 0 "check (text)"
raw_free "check (text)"
shows "check (text)" "${VISIBLE_ALL[@]}" "T ^[]52" "I ^[]52" "S ^[]52" "Sum ^[]52" "MF ^[]52" "E5 ^[]52" \
	"e^[[2Jvil.py:1" "left^[]0;pkg^Gpad" "3.0.0^[]0;ver^G" "GHSA-^[]52" "Adv ^[]52" \
	"lock^[[2J<U+009B>msg"

run check --rules "$rules" --fail-on none --no-fix-detection --allow-partial --format markdown
expect_status 0 "check --format markdown"
raw_free "check (markdown)"
shows "check (markdown)" "${VISIBLE_ALL[@]}" "### 1. T ^[]52" "M ^[]52" "x = \"^[]0;pwned^G\"  # MARK_A" \
	"work^[]0;dir^G" "on \`feat<U+202E>ure<U+009B>\`" "E5 ^[]52" "left^[]0;pkg^Gpad" "Adv ^[]52" "lock^[[2J<U+009B>msg"

# --- JSON and SARIF keep the characters, JSON-escaped ---------------------------
run check --rules "$rules" --fail-on none --no-fix-detection --allow-partial --format json
expect_status 0 "check --format json"
python3 - "$TMP/out" <<'PY' && pass "JSON: parsed, the sequences come back as they were sent" || fail "JSON: $(head -c 300 "$TMP/out")"
import json, sys
raw = open(sys.argv[1], "rb").read()
d = json.loads(raw)
evil = "\x1b]52;c;cHduZWQ=\x07\x1b]0;pwned\x07\x1b[2J\u009b31m\u009d0;t\u202etxt.exe"
f = d["findings"][0]
assert f["title"] == "T " + evil, f["title"]
assert f["file"] == "e\x1b[2Jvil.py", f["file"]
assert b"\x1b" not in raw, "a raw ESC in the JSON text"
assert any(p["name"] == "left\x1b]0;pkg\x07pad" for p in d["dependencies"]["packages"]), d["dependencies"]
PY
finding=$(python3 -c "import json; print(json.load(open('$TMP/out'))['findings'][0]['id'])")
run check --rules "$rules" --fail-on none --no-fix-detection --allow-partial --format sarif
expect_status 0 "check --format sarif"
python3 - "$TMP/out" <<'PY' && pass "SARIF: parsed, the message carries the sequences" || fail "SARIF: $(head -c 300 "$TMP/out")"
import json, sys
raw = open(sys.argv[1], "rb").read()
assert b"\x1b" not in raw, "a raw ESC in the SARIF text"
d = json.loads(raw)
texts = [r["message"]["text"] for run in d["runs"] for r in run["results"]]
assert any("\x1b]52;c;cHduZWQ=\x07" in t and "\u202e" in t for t in texts), texts
PY

# --- signals: a linter's output with sequences, from a file with one ------------
lint_out="$TMP/flake8${ESC}]0;imp${BEL}.txt"
printf '%s:1:1: E711 bad \033]0;lint\a\302\233 31m\342\200\256 here\n' "$SIG_FILE" >"$lint_out"
printf '%s:7:1: a line without a code \033[2J\n' "$SIG_FILE" >>"$lint_out"
run signals --import "$lint_out"
expect_status 0 "signals --import"
raw_free "signals --import"
shows "signals --import" "flake8^[]0;imp^G.txt:2: no code"
run signals --all
expect_status 0 "signals --all"
raw_free "signals (list)"
shows "signals (list)" "s<U+202E>ig<U+009B>.py:1:1" "bad <U+009B> 31m<U+202E> here"
signal=$(sed -n 's/^#\([0-9]*\) .*/\1/p' "$TMP/out" | head -1)

# --- fix: the server fails with a hostile body (an error line), then a fix -------
run fix "$signal"
raw_free "fix (an error line)"
shows "fix (an error line)" "E5 ^[]52" "s<U+202E>ig<U+009B>.py"
if [ -n "$finding" ]; then
	run fix --finding "$finding"
	expect_status 0 "fix --finding"
	raw_free "fix --finding"
	shows "fix --finding" "FX ^[]52" "fixed ^[]0;code^G" "e^[[2Jvil.py"
	run fix --finding "$finding" --apply --yes
	expect_status 0 "fix --finding --apply --yes"
	raw_free "fix --apply"
	shows "fix --apply" "applied to e^[[2Jvil.py"
else
	fail "no finding id in the JSON report"
fi

# --- fix detection, history, fixes, stats ---------------------------------------
run check --rules "$rules" --fail-on none --wait-fix-detection --allow-partial
expect_status 0 "the second check, with fix detection"
raw_free "check with fix detection"
shows "check with fix detection" "FD ^[]52"
check2=$(sed -n 's/^check \([0-9]*\) .*/\1/p' "$TMP/out" | tail -1)
run detect-fixes "$check2"
raw_free "detect-fixes"
run history
expect_status 0 "history"
raw_free "history"
shows "history" "feat<U+202E>ure<U+009B>"
run fixes
expect_status 0 "fixes"
raw_free "fixes"
shows "fixes" "FD ^[]52" "hostile^[]0;rulefile^G.md" "e^[[2Jvil.py"
run stats
expect_status 0 "stats"
raw_free "stats"
shows "stats" "work^[]0;dir^G"
run feedback "$finding" --accept
raw_free "feedback"
shows "feedback" "e^[[2Jvil.py:1"

# --- rules -----------------------------------------------------------------------
run rules --rules "$rules"
raw_free "rules"
shows "rules" "hostile^[]0;rulefile^G.md" "bad^[[2J.md:3"
run rules --rules "$rules" --lint
raw_free "rules --lint"
shows "rules --lint" "bad^[[2J.md:3"
run rules --rules "$rules" --json
python3 -c "import json; d = json.load(open('$TMP/out')); assert any(r['path'].endswith('hostile\x1b]0;rulefile\x07.md') for r in d)" &&
	pass "rules --json: the path JSON-escaped" || fail "rules --json: $(head -c 300 "$TMP/out")"

# --- error lines -----------------------------------------------------------------
run "bad${ESC}]0;cmd${BEL}"
raw_free "an unknown command's error line"
shows "an unknown command's error line" "bad^[]0;cmd^G"
run history --limit "${ESC}[2J"
raw_free "a bad value's error line"
shows "a bad value's error line" "^[[2J"

# --- diff: visible on a terminal, byte for byte into a pipe ----------------------
git diff main >"$TMP/git.patch"
run diff
expect_status 0 "diff into a file"
cmp -s "$TMP/out" "$TMP/git.patch" && pass "diff into a file: the change byte for byte, as git prints it" ||
	fail "diff into a file differs from git diff: $(diff "$TMP/git.patch" "$TMP/out" | head -5)"
script -qec "'$REVLINE' diff" /dev/null >"$TMP/out" 2>"$TMP/err" </dev/null || true
raw_free "diff on a terminal"
shows "diff on a terminal" 'x = "fixed ^[]0;code^G"' '"a/e\033[2Jvil.py"'

finish
