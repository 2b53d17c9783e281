# A fix gets the repository's context (issue 26, item 6): the request for
# a fix carries the definitions its edit window (and the lines shown
# around it) uses, from the repository index of the working tree, so that
# the fixed code calls them as they are now defined: a function of
# another file whose signature the working tree changed reaches the
# request with its new signature and line, a definition the prompt shows
# already is not repeated, and `revline fix --json` lists what was sent.
# revline.context none (and REVLINE_CONTEXT=none) sends none; a file the
# index may not read (ignored by git, named by revline.ignore) is never
# sent; without universal-ctags the fix goes on without them, saying so
# once. The fake LLM server over real HTTP; the real git, the real ctags.
. "$(dirname "$0")/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

if ! ctags --version 2>/dev/null | grep -q "Universal Ctags"; then
	echo "skip: universal-ctags is not installed"
	exit 77
fi

mkdir -p "$TMP/data/rules"
ln -s "$REVLINE_SOURCE_DIR/share/prompts" "$TMP/data/prompts"
export REVLINE_DATADIR=$TMP/data REVLINE_DB=$TMP/revline.db REVLINE_MODEL=fake-model
unset OPENAI_API_KEY ANTHROPIC_API_KEY REVLINE_PROVIDER OPENAI_BASE_URL REVLINE_CONTEXT

cat >"$TMP/script.json" <<'EOF'
{"rules": [{"match": "Problem reported by flake8: E711",
            "answer": {"fixed_code": "total = area(w, h)\nif total is None:\n    return 0\n",
                       "explanation": "Compare to None with is."}}]}
EOF
fakellm_start "$TMP/script.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1

repo=$(new_repo fixctx)
cd "$repo"
mkdir -p geometry gen
: >geometry/__init__.py
printf '"""Shapes."""\n\n\ndef area(width, height):\n    """The area of a rectangle."""\n    return width * height\n' \
	>geometry/shapes.py
# Tracked, but revline.ignore names it: the index never reads it.
printf 'def lookup_table():\n    return {"excluded": "EXCLUDED-BODY"}\n' >gen/tables.py
printf 'gen/\n' >.revlineignore
printf 'secrets_local.py\n' >.gitignore
# app.py: the window (lines 8-12) calls area() of another file, _near()
# defined in the lines shown around it, _far() defined below what is
# shown, and two names the index may not read.
python3 - <<'PY'
lines = ["from geometry.shapes import area", "", "", "def _near(value):", "    return value", "", "",
         "def report(w, h):", "    total = area(w, h)", "    if total == None:",
         "        return _far(_near(api_token()), lookup_table())", "    return total", ""]
lines += ["# filler %d" % i for i in range(20)]
lines += ["", "", "def _far(value, table):", "    return value or table", ""]
open("app.py", "w").write("\n".join(lines))
PY
git add -A && git commit -q -m base
# The working tree changes area()'s signature: the caller in app.py is stale.
printf '"""Shapes."""\n\n\ndef area(shape, *, unit="m2"):\n    """The area of a shape, in unit."""\n    return shape.width * shape.height\n' \
	>geometry/shapes.py
# Ignored by git: never read, never sent.
printf 'def api_token():\n    return "IGNORED-SECRET"\n' >secrets_local.py
git config revline.ignore .revlineignore

printf 'app.py:10:14: E711 comparison to None (hint: use '"'"'is None'"'"')\n' >"$TMP/flake8.txt"
run signals --import "$TMP/flake8.txt"
expect_status 0 "signals --import"
signal=$(python3 -c "import json, sys; print(json.load(sys.stdin)[0]['id'])" < <("$REVLINE" signals --all --json))

# The request of the latest fix, its user message.
last_request() {
	fakellm_requests | python3 -c '
import json, sys
bodies = [json.loads(l)["body"] for l in sys.stdin]
print(bodies[-1]["messages"][1]["content"])' >"$TMP/request"
}
# Every request's whole body, for what must never be sent.
all_requests() { fakellm_requests >"$TMP/requests"; }

# --- the definitions sent --------------------------------------------------------
run fix "$signal" --json
expect_status 0 "fix: proposed, with the repository's definitions"
last_request
grep -q "^Definitions the code above uses, from the repository" "$TMP/request" &&
	pass "the request has the definitions' section" || fail "no section: $(cat "$TMP/request")"
grep -q '^    4  def area(shape, \*, unit="m2"):$' "$TMP/request" &&
	pass "area() with its new signature and its line in geometry/shapes.py" ||
	fail "area's definition line: $(cat "$TMP/request")"
grep -q '^### `area`, a function in geometry/shapes.py (line 4)$' "$TMP/request" &&
	pass "headed with its name, file and line" || fail "heading: $(grep '###' "$TMP/request")"
grep -q '^   36  def _far(value, table):$' "$TMP/request" &&
	pass "a definition of the same file below what the prompt shows is sent" ||
	fail "_far: $(cat "$TMP/request")"
! grep -q '_near`' "$TMP/request" && [ "$(grep -c 'def _near' "$TMP/request")" = 1 ] &&
	pass "one the context shows already is not repeated" ||
	fail "_near: $(grep -n '_near' "$TMP/request")"
python3 - "$TMP/out" <<'PY' && pass "--json lists the definitions sent (name, path, line)" || fail "json: $(cat "$TMP/out")"
import json, sys
d = json.load(open(sys.argv[1]))
got = [(x["name"], x["path"], x["line"]) for x in d["definitions"]]
assert got == [("area", "geometry/shapes.py", 4), ("_far", "app.py", 36)], got
assert d["context_note"] is None, d["context_note"]
PY

# --- what may not be read is never sent -----------------------------------------
all_requests
if grep -q "IGNORED-SECRET\|api_token()\\\\n    return" "$TMP/requests"; then
	fail "a file git ignores was sent: $(grep -o '.\{80\}IGNORED-SECRET.\{20\}' "$TMP/requests")"
else
	pass "a file git ignores is never sent"
fi
if grep -q "EXCLUDED-BODY\|def lookup_table" "$TMP/requests"; then
	fail "a file revline.ignore names was sent"
else
	pass "a file revline.ignore names is never sent"
fi

# --- the text output -----------------------------------------------------------------
run fix "$signal"
expect_status 0 "fix: text"
expect_out "^fix [0-9]* proposed for app.py (lines 8-12), given 2 definitions from the repository; --apply writes it$" \
	"the text says how many definitions the model was given"

# --- the budget ----------------------------------------------------------------------
git config revline.contextTokens 60
run fix "$signal" --json
expect_status 0 "fix with a small revline.contextTokens"
last_request
grep -q "^Left out for the budget: 1 more definition.$" "$TMP/request" &&
	pass "what does not fit the budget is left out and counted" ||
	fail "budget: $(sed -n '/^Definitions/,$p' "$TMP/request")"
python3 -c "import json; d = json.load(open('$TMP/out')); assert [x['name'] for x in d['definitions']] == ['area'], d" &&
	pass "the window's own calls first: area() fits, _far() is left out" || fail "budget json: $(cat "$TMP/out")"
git config --unset revline.contextTokens

# --- revline.context none --------------------------------------------------------------
git config revline.context none
run fix "$signal" --json
expect_status 0 "fix with revline.context none"
last_request
if grep -q "Definitions the code above uses\|def area(shape" "$TMP/request"; then
	fail "revline.context none: definitions were sent"
else
	pass "revline.context none: no definition is sent"
fi
python3 -c "import json; assert json.load(open('$TMP/out'))['definitions'] == []" &&
	pass "and --json lists none" || fail "json: $(cat "$TMP/out")"
git config --unset revline.context
REVLINE_CONTEXT=none run fix "$signal"
last_request
grep -q "def area(shape" "$TMP/request" && fail "REVLINE_CONTEXT=none: definitions were sent" ||
	pass "REVLINE_CONTEXT=none: none either"
# An untrusted .revline cannot turn it back on.
printf '[revline]\n\tcontext = tools\n' >.revline
git config revline.context none
run fix "$signal"
last_request
grep -q "def area(shape" "$TMP/request" && fail "an untrusted .revline widened the context" ||
	pass "an untrusted .revline cannot widen revline.context none"
rm .revline
git config --unset revline.context

# --- without universal-ctags ------------------------------------------------------------
git config revline.ctags "$TMP/no-such-ctags"
run fix "$signal" --json
expect_status 0 "fix without universal-ctags: proposed all the same"
last_request
grep -q "def area(shape" "$TMP/request" && fail "definitions without ctags?" ||
	pass "without ctags the request has no definitions"
[ "$(grep -c '^revline: context: ' "$TMP/err")" = 1 ] && grep -q "no-such-ctags" "$TMP/err" &&
	pass "the index's note is said once: $(cat "$TMP/err")" || fail "note: $(cat "$TMP/err")"
python3 -c "import json; d = json.load(open('$TMP/out')); assert 'no-such-ctags' in d['context_note'], d" &&
	pass "--json has the note" || fail "json note: $(cat "$TMP/out")"
git config --unset revline.ctags

# An index that takes longer than the fix's bound (3 s; a ctags that sleeps
# first) holds the fix up no longer: it is asked then, without what was
# not indexed, and says so.
printf '#!/bin/sh\nsleep 8\nexec ctags "$@"\n' >"$TMP/slow-ctags"
chmod +x "$TMP/slow-ctags"
git config revline.ctags "$TMP/slow-ctags"
start=$(date +%s%N)
run fix "$signal"
took=$((($(date +%s%N) - start) / 1000000))
expect_status 0 "fix with an index slower than its bound: proposed"
[ "$took" -ge 2900 ] && [ "$took" -lt 7000 ] && pass "asked at the bound (${took} ms), not when the index would end" ||
	fail "a slow index held the fix for ${took} ms"
grep -q "^revline: context: .*deadline" "$TMP/err" && pass "the index's note says it stopped at its deadline" ||
	fail "deadline note: $(cat "$TMP/err")"
git config --unset revline.ctags

# A bad revline.context: no definitions (nothing more is sent than the user may have meant), the setting named.
git config revline.context nnone
run fix "$signal"
expect_status 0 "fix with a misspelt revline.context: proposed"
last_request
grep -q "def area(shape" "$TMP/request" && fail "a misspelt revline.context sent definitions" ||
	pass "a misspelt revline.context sends none"
grep -q "^revline: context: revline.context is 'nnone'" "$TMP/err" && pass "and says which setting" ||
	fail "bad setting: $(cat "$TMP/err")"
git config --unset revline.context

finish
