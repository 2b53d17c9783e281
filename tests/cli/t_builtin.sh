# Which built-in rules a check runs (revline.builtinRules, --no-builtin),
# proved by what the fake LLM was asked; what `revline rules` and
# `revline doctor` say about it; the model split in doctor.
. "$(dirname "$0")/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

# revline's own rules, as installed, beside the prompts.
fake_llm_env
ln -sfn "$REVLINE_SOURCE_DIR/rules" "$TMP/data/rules"
builtin_llm="api-compatibility concurrency error-handling injection input-validation resource-leaks secrets-handling sensitive-logging"

cat >"$TMP/script.json" <<'EOF'
{"rules": [{"answer": {"status": "compliant", "reasoning": "fine", "findings": []}}]}
EOF
fakellm_start "$TMP/script.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1

repo=$(new_repo work)
cd "$repo"
printf 'def add(a, b):\n    return a + b\n' >calc.py
git add -A && git commit -q -m base
printf 'def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n' >calc.py

own_rule() {
	mkdir -p .revline/rules
	printf -- '---\nid: ours\nseverity: minor\npatterns: ["**/*.py"]\n---\n# Our standard\n\nFunctions are named for what they return.\n' \
		>.revline/rules/ours.md
}

# check_asked WHAT ARGS...: run a check (never from the cache), keeping its
# JSON in $TMP/out, the requests it made in $TMP/requests and the ids of
# the rules the fake LLM was asked about, one a line, in $TMP/asked.
check_asked() {
	local what=$1 before
	shift
	before=$(fakellm_requests | wc -l)
	run check --no-cache --no-fix-detection --format json --fail-on none "$@"
	expect_status 0 "$what"
	fakellm_requests | tail -n +"$((before + 1))" >"$TMP/requests"
	python3 -c '
import json, re, sys
ids = set()
for line in open(sys.argv[1]):
    body = json.dumps(json.loads(line).get("body"))
    ids.update(re.findall(r"# Rule ([A-Za-z0-9_.-]+):", body))
sys.stdout.write("".join(i + "\n" for i in sorted(ids)))' "$TMP/requests" >"$TMP/asked"
}

asked() { grep -qx -- "$1" "$TMP/asked"; }
ran() { python3 -c 'import json, sys; sys.exit(0 if sys.argv[1] in [r["id"] for r in json.load(open(sys.argv[2]))["rules"]] else 1)' "$1" "$TMP/out"; }

# expect_builtin_llm yes|no WHAT: every built-in LLM rule asked (and in the report), or none.
expect_builtin_llm() {
	local want=$1 what=$2 id bad=
	for id in $builtin_llm; do
		if [ "$want" = yes ]; then { asked "$id" && ran "$id"; } || bad="$bad $id"
		else { asked "$id" || ran "$id"; } && bad="$bad $id"; fi
	done
	if [ -z "$bad" ]; then pass "$what"
	else fail "$what: wrong for$bad; asked: $(tr '\n' ' ' <"$TMP/asked")"; fi
}

expect_local() { # yes|no WHAT: the built-in local pattern rules ran, or not
	if { [ "$1" = yes ] && ran conflict-markers && ran debug-leftovers-python; } ||
		{ [ "$1" = no ] && ! ran conflict-markers && ! ran debug-leftovers-python; }; then pass "$2"
	else fail "$2: rules $(python3 -c 'import json, sys; print([r["id"] for r in json.load(open(sys.argv[1]))["rules"]])' "$TMP/out")"; fi
}

# --- no rules of its own: every built-in rule, as before ----------------------
check_asked "a check of a repository without rules of its own"
expect_builtin_llm yes "without rules of its own, every built-in LLM rule is asked"
expect_local yes "and the built-in local rules run"

# --- a rule of its own: the built-in LLM rules are not asked -----------------
own_rule
check_asked "a check of a repository with a rule of its own"
asked ours && ran ours && pass "the repository's rule is asked" || fail "ours not asked: $(cat "$TMP/asked")"
expect_builtin_llm no "with a rule of its own, no built-in LLM rule is asked"
expect_local yes "the built-in local pattern rules still run"

check_asked "--rule names a built-in LLM rule" --rule error-handling --rule ours
asked error-handling && asked ours && ! asked injection && pass "a rule named by --rule runs whatever the default" ||
	fail "--rule error-handling: asked $(cat "$TMP/asked")"

check_asked "--no-builtin" --no-builtin
expect_builtin_llm no "--no-builtin: no built-in LLM rule"
expect_local no "--no-builtin: no built-in local rule either"
asked ours && pass "--no-builtin: the repository's rule still runs" || fail "--no-builtin lost ours"

# --- each value of revline.builtinRules ---------------------------------------
git config revline.builtinRules all
check_asked "revline.builtinRules=all"
expect_builtin_llm yes "all: every built-in LLM rule, beside the repository's"
asked ours && pass "all: the repository's rule too" || fail "all lost ours"
check_asked "--no-builtin wins over revline.builtinRules=all" --no-builtin
expect_builtin_llm no "--no-builtin wins over the setting"

git config revline.builtinRules none
check_asked "revline.builtinRules=none"
expect_builtin_llm no "none: no built-in LLM rule"
expect_local no "none: no built-in local rule"
asked ours && pass "none: the repository's rule runs" || fail "none lost ours"

mv .revline/rules "$TMP/ours-aside"
rmdir .revline
git config revline.builtinRules local
check_asked "revline.builtinRules=local without rules of its own"
expect_builtin_llm no "local: no built-in LLM rule, even without rules of its own"
expect_local yes "local: the built-in local rules run"
[ ! -s "$TMP/asked" ] && pass "local: nothing asked at all" || fail "local asked: $(cat "$TMP/asked")"
mkdir .revline
mv "$TMP/ours-aside" .revline/rules

git config revline.builtinRules AUTO
check_asked "revline.builtinRules=auto is the default, in any case"
expect_builtin_llm no "auto with a rule of its own: no built-in LLM rule"

# A .revline may set it before it is trusted: it only chooses among revline's rules.
git config --unset revline.builtinRules
mv .revline/rules "$TMP/ours-aside"
rmdir .revline
mkdir -p threadlines
mv "$TMP/ours-aside/ours.md" threadlines/ours.md
printf '[revline]\n\tbuiltinRules = all\n' >.revline
check_asked "revline.builtinRules=all from an untrusted .revline"
expect_builtin_llm yes "an untrusted .revline's builtinRules counts"
if grep -q "revline trust" "$TMP/err"; then fail "builtinRules waits for trust: $(cat "$TMP/err")"; else pass "builtinRules needs no trust"; fi
rm .revline

# A bad value: a clear error naming the setting and its values, before any request.
git config revline.builtinRules sometimes
before=$(fakellm_requests | wc -l)
run check --no-cache --no-fix-detection
expect_status 2 "check with a bad revline.builtinRules"
expect_err_line "revline.builtinRules is 'sometimes': it takes auto, all, local or none" "the error names the setting and the values"
[ "$(fakellm_requests | wc -l)" = "$before" ] && pass "nothing was asked" || fail "a bad setting still asked the LLM"
run rules
expect_status 2 "rules with a bad revline.builtinRules"
expect_err_line "revline.builtinRules is 'sometimes': it takes auto, all, local or none" "rules names the bad setting"
run doctor
expect_out "^rules: *error: revline.builtinRules is 'sometimes'" "doctor names the bad setting"
git config --unset revline.builtinRules

# --- what revline rules says ---------------------------------------------------
json() { python3 -c "import json, sys; d = json.load(open('$TMP/out')); $1"; }
run rules
expect_status 0 "rules with a rule of its own"
expect_out '^ID  *KIND  *SEVERITY  *MODEL  *SOURCE  *ACTIVE  *PATH  *PATTERNS$' "the table has an ACTIVE column"
expect_out '^ours  *llm  *minor  *-  *repository  *yes  *threadlines/ours.md' "the repository's rule is active"
expect_out '^injection  *llm  *critical  *-  *built-in  *no  ' "a built-in LLM rule is not"
expect_out '^conflict-markers  *local  *critical  *-  *built-in  *yes  ' "a built-in local rule is"
expect_out '^injection: built-in LLM rule, off: the repository has rules of its own (revline.builtinRules=all to run it)$' \
	"why it is off, after the table"
run rules --json
json '
r = {x["id"]: x for x in d}
assert r["ours"]["active"] is True and r["ours"]["why"] == "on", r["ours"]
assert r["injection"]["active"] is False and r["injection"]["why"].startswith("built-in LLM rule, off: the repository has rules of its own"), r["injection"]
assert r["conflict-markers"]["active"] is True and r["conflict-markers"]["why"].startswith("built-in local pattern rule, on"), r["conflict-markers"]' &&
	pass "rules --json: active and why per rule" || fail "rules --json: $(head -c 600 "$TMP/out")"
run rules --no-builtin --json
json 'assert all(x["why"] == "built-in rule, off: --no-builtin" for x in d if x["source"] == "built-in")' &&
	pass "rules --no-builtin says so" || fail "rules --no-builtin: $(head -c 400 "$TMP/out")"
git config revline.builtinRules none
run rules
expect_out '^conflict-markers: built-in rule, off: revline.builtinRules=none$' "rules: off for revline.builtinRules=none"
git config revline.builtinRules all
run rules --json
json 'assert all(x["active"] for x in d)' && pass "rules: all active with all" || fail "all: $(head -c 400 "$TMP/out")"
git config --unset revline.builtinRules
mkdir -p "$TMP/elsewhere"
cd "$TMP/elsewhere"
run rules --json
json 'assert all(x["active"] and x["why"] == "built-in, on: the repository has no rules of its own" for x in d if x["source"] == "built-in")' &&
	pass "rules outside a repository: every built-in rule on" || fail "outside: $(head -c 400 "$TMP/out")"
cd "$repo"

# --- doctor: the model split and what a check runs ------------------------------
git config revline.mapModel cheap-model
git config revline.reduceModel best-model
run doctor
expect_out '^provider: *openai, model fake-model$' "doctor: the provider and the model"
expect_out '^  map: *cheap-model (revline.mapModel; a rule.s own model wins)$' "doctor: the map model"
expect_out '^  reduce: *best-model (revline.reduceModel)$' "doctor: the reduce model"
expect_out '^  fix: *fake-model (revline.model; fixes and fix detection)$' "doctor: the fix model"
expect_out '^  runs: *1 of the repository.s, 7 built-in local, 0 built-in LLM; off: 8 built-in LLM$' "doctor: what a check runs"
expect_out '^  policy: *the repository has rules of its own, so the built-in LLM rules are off (revline.builtinRules=all runs them)$' \
	"doctor: why"
check_asked "a check with revline.mapModel"
models=$(python3 -c 'import json, sys; print(sorted({json.loads(l)["model"] for l in open(sys.argv[1])}))' "$TMP/requests")
[ "$models" = "['cheap-model']" ] && asked ours && pass "the rules are asked with the map model" ||
	fail "map requests' models: $models"
git config --unset revline.mapModel
git config --unset revline.reduceModel
run doctor
expect_out '^  map: *fake-model (the model; revline.mapModel sets another; a rule.s own model wins)$' "doctor: the map model defaults to the model"

finish
