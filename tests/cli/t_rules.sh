# revline rules (text and --json), rules --lint, and revline init.
. "$(dirname "$0")/lib.sh"

# Prints 0 when the JSON on stdin satisfies the Python expression on `doc`.
json_check() {
	python3 -c 'import json, sys
doc = json.load(sys.stdin)
sys.exit(0 if eval(sys.argv[1]) else 1)' "$1" <"$TMP/out"
}

expect_json() {
	local expr=$1 what=$2
	if json_check "$expr"; then pass "$what"; else fail "$what: $expr is false for: $(head -c 400 "$TMP/out")"; fi
}

expect_same() {
	local want=$1 what=$2
	if [ "$(cat "$TMP/out")" = "$want" ]; then pass "$what"
	else fail "$what: expected
$want
got
$(cat "$TMP/out")"; fi
}

# Outside a repository: the built-in rules (and the user's).
mkdir -p "$TMP/plain"
cd "$TMP/plain"
run rules
expect_status 0 "rules outside a repository"
expect_out '^ID  *KIND  *SEVERITY  *MODEL  *SOURCE  *ACTIVE  *PATH  *PATTERNS$' "rules prints a header"
expect_out '^error-handling  *llm  *major  *-  *built-in  *yes  */.*/rules/error-handling\.md  ' \
	"rules lists a built-in LLM rule"
expect_out '^conflict-markers  *local  *critical  *-  *built-in  *yes  .*(every file)$' \
	"rules lists a built-in local rule"
if [ -s "$TMP/err" ]; then fail "built-in rules give problems: $(cat "$TMP/err")"; else pass "built-in rules load cleanly"; fi

run rules --json
expect_status 0 "rules --json"
expect_json 'isinstance(doc, list) and len(doc) >= 10' "--json is an array of the rules"
expect_json 'all(set(r) >= {"id", "name", "path", "source", "kind", "severity", "category", "model", "patterns", "context_files", "version", "active", "why"} for r in doc)' \
	"every rule has every field"
expect_json 'all(r["source"] == "built-in" and r["kind"] in ("llm", "local") for r in doc)' \
	"sources and kinds"
expect_json '[r for r in doc if r["id"] == "injection"][0]["severity"] == "critical"' "severity of a rule"
expect_json 'all(isinstance(r["patterns"], list) and r["model"] is None for r in doc)' "patterns are lists; no model"
expect_json '{r["id"]: r["check"] for r in doc if r["check"]} == {"hidden-text": "hidden-text"} and all("check" in r for r in doc)' \
	"a local rule's built-in check is named (hidden-text), null for the others"

run rules --lint
expect_status 0 "lint of the built-in rules"
expect_out '^all [0-9]* rules are fine$' "lint says the rules are fine"

mkdir -p "$XDG_CONFIG_HOME/revline/rules"
printf -- '---\nid: personal\nmodel: small-model\n---\nMy standard.\n' >"$XDG_CONFIG_HOME/revline/rules/personal.md"
run rules --json
expect_json '[r for r in doc if r["id"] == "personal"][0]["source"] == "user"' "the user's rules are read"
expect_json '[r for r in doc if r["id"] == "personal"][0]["model"] == "small-model"' "a per-rule model"

# In a repository: its rules come first and override the built-in ones by id.
repo=$(new_repo r)
cd "$repo"
mkdir -p threadlines/security .github/cr-rules src
printf -- '---\nid: error-handling\nversion: 2.1\nseverity: minor\npatterns: ["src/**/*.c"]\ncontext_files: docs/errors.md\n---\nOur own.\n' \
	>threadlines/errors.md
printf -- '---\nid: no-todo\npattern: "TODO"\nseverity: nitpick\n---\n' >threadlines/security/todo.md
printf '# How we write rules\n' >threadlines/README.md
printf -- '---\nid: seed\nname: Proper Error Handling\nseverity: major\ncategory: reliability\napplies-to: ["*.ts", "*.js"]\nmodel: haiku\n---\n# Seed\n' \
	>.github/cr-rules/seed.md
cd src
run rules --json
expect_status 0 "rules --json in a repository subdirectory"
expect_json '[r for r in doc if r["id"] == "error-handling"][0] == {"id": "error-handling", "name": "error-handling", "path": "threadlines/errors.md", "source": "repository", "kind": "llm", "severity": "minor", "category": None, "model": None, "pattern": None, "check": None, "patterns": ["src/**/*.c"], "context_files": ["docs/errors.md"], "version": "2.1", "active": True, "why": "on"}' \
	"a repository rule overrides the built-in one, with every field"
expect_json '[r for r in doc if r["id"] == "no-todo"][0]["kind"] == "local"' "a rule with a pattern is local"
expect_json '[r for r in doc if r["id"] == "no-todo"][0]["path"] == "threadlines/security/todo.md"' "rules are read recursively"
expect_json '[r for r in doc if r["id"] == "seed"][0]["patterns"] == ["*.ts", "*.js"]' "the seed rule format loads"
expect_json '[r["id"] for r in doc][:3] == ["error-handling", "no-todo", "seed"]' "repository rules come first"
expect_json 'len([r for r in doc if r["id"] == "error-handling"]) == 1' "an id is listed once"

mkdir -p "$TMP/extra"
printf -- '---\nid: seed\nseverity: critical\n---\nFrom --rules.\n' >"$TMP/extra/seed.md"
run rules --json --rules "$TMP/extra"
expect_json '[r for r in doc if r["id"] == "seed"][0]["source"] == "--rules"' "--rules overrides the repository"
expect_json '[r for r in doc if r["id"] == "seed"][0]["path"] == "'"$(cd "$TMP/extra" && pwd -P)"'/seed.md"' \
	"a rule outside the repository shows its full path"
run rules --rules "$TMP/extra" --rules="$TMP/nowhere"
expect_status 0 "rules with a missing --rules directory"
expect_err_line "nowhere: --rules: no such directory" "the missing directory is named"
cd "$repo"

# Problems: on stderr while listing, on stdout sorted by path and line with --lint.
printf -- '---\nid: Bad Id\nseverity: high\n---\nBody\n' >threadlines/z-bad.md
printf -- '---\nid: typo\nseverty: minor\n---\nBody\n' >threadlines/a-typo.md
printf 'no front matter\n' >.github/cr-rules/plain.md
run rules
expect_status 0 "rules with bad rule files still lists"
expect_out '^typo ' "a rule with a warning is listed"
expect_out '^no-todo ' "good rules are listed"
if grep -q '^Bad' "$TMP/out"; then fail "a fatal rule is listed"; else pass "a rule with a fatal problem is left out"; fi
if grep -q "^threadlines/z-bad.md:3: severity 'high' is not one of critical, major, minor, nitpick$" "$TMP/err"
then pass "problems go to stderr as path:line: message"; else fail "stderr: $(cat "$TMP/err")"; fi

run rules --lint
expect_status 1 "lint with problems"
expect_same ".github/cr-rules/plain.md:1: no front matter: a rule file starts with a line '---', then YAML (id: my-rule, severity: major, ...), then a line '---' and the standard in markdown
threadlines/a-typo.md:3: unknown key 'severty' (did you mean 'severity'?), ignored; known keys: id, name, version, severity, category, patterns (or applies-to), context_files (or context-files), context, model, reasoning_effort, pattern, check
threadlines/z-bad.md:2: id 'Bad Id' is not a plain name: use letters, digits, '-', '_' and '.' only, such as 'bad-id'
threadlines/z-bad.md:3: severity 'high' is not one of critical, major, minor, nitpick
4 problems in 3 files (2 skipped until fixed)" "lint prints every problem, sorted, and a count"
if [ -s "$TMP/err" ]; then fail "lint wrote to stderr: $(cat "$TMP/err")"; else pass "lint writes only to stdout"; fi

run rules --lint --json
expect_status 1 "lint --json with problems"
expect_json 'doc["problems"][0] == {"path": ".github/cr-rules/plain.md", "line": 1, "message": doc["problems"][0]["message"], "fatal": True} and len(doc["problems"]) == 4' \
	"lint --json lists the problems"

rm threadlines/z-bad.md .github/cr-rules/plain.md
run rules --lint
expect_status 1 "a warning alone fails lint"
expect_out '^1 problem in 1 file$' "the count is singular"
rm threadlines/a-typo.md

mkdir -p "$TMP/unreadable"
printf -- '---\nid: x\n---\nBody\n' >"$TMP/unreadable/x.md"
printf -- '---\nid: x\n---\nBody\n' >"$TMP/unreadable/y.md"
run rules --lint --rules "$TMP/unreadable"
expect_status 1 "a duplicate id in one directory"
expect_out "/y.md:2: id 'x' is already used by .*/x.md: give this rule another id$" "the duplicate names the first file"

run rules --lint
expect_status 0 "lint after the fixes"

# Usage errors.
run rules --bogus
expect_status 2 "rules with an unknown option"
expect_err_line "unknown option '--bogus'" "the option is named"
run rules extra
expect_status 2 "rules with an argument"
expect_err_line "unexpected argument 'extra'" "the argument is named"
run rules --rules
expect_status 2 "--rules without a directory"
expect_err_line "needs a value" "the missing value is explained"

# init: writes the starter rule once, at the working tree's root.
cd src
run init
expect_status 0 "init"
expect_out "wrote .*threadlines/example.md" "init says what it wrote"
expect_out "revline rules" "init says how to list the rules"
expect_out "revline check" "init says how to try it"
if [ -f "$repo/threadlines/example.md" ] && [ ! -e "$repo/src/threadlines" ]; then
	pass "init writes at the root of the working tree"
else
	fail "threadlines/example.md is not at the root"
fi
cp "$repo/threadlines/example.md" "$TMP/example.md"
run rules --lint
expect_status 0 "the starter rule lints clean"
run rules --json
expect_json '[r for r in doc if r["id"] == "error-messages"][0]["path"] == "threadlines/example.md"' "the starter rule is listed"
echo "# my edits" >>"$repo/threadlines/example.md"
run init
expect_status 1 "init a second time"
expect_err_line "threadlines/example.md already exists" "init refuses to overwrite"
if tail -1 "$repo/threadlines/example.md" | grep -q '^# my edits$'; then pass "the existing file is untouched"
else fail "init changed the existing file"; fi
run init now
expect_status 2 "init with an argument"

# Never outside the working tree: not through a symbolic link either.
other=$(new_repo other)
mkdir -p "$TMP/outside"
ln -s "$TMP/outside" "$other/threadlines"
cd "$other"
run init
expect_status 1 "init refuses a threadlines link"
expect_err_line "writes only inside the working tree" "the link is explained"
if [ -e "$TMP/outside/example.md" ]; then fail "init wrote outside the working tree"; else pass "nothing written outside"; fi

cd "$TMP/plain"
run init
expect_status 2 "init outside a repository"
expect_err_line "not a git repository" "init outside a repository is explained"
if [ -e "$TMP/plain/threadlines" ]; then fail "init wrote outside a repository"; else pass "init wrote nothing"; fi

finish
