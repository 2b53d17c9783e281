# Shell completions made from the option tables: they parse in each shell
# that is installed, and bash completes commands, options, their values,
# rule ids, refs, and the ids of the repository's findings, signals and
# fixes (from its database, after a check against the fake LLM) as a user
# types them; fish shows what each id is.
. "$(dirname "$0")/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

for shell in bash zsh fish; do
	run completion "$shell"
	expect_status 0 "revline completion $shell"
	cp "$TMP/out" "$TMP/completion.$shell"
	if ! command -v "$shell" >/dev/null; then
		printf 'skip: %s is not installed: its script is not parsed\n' "$shell"
	elif "$shell" -n "$TMP/completion.$shell" 2>"$TMP/err"; then
		pass "$shell -n accepts the $shell script"
	else
		fail "$shell -n: $(cat "$TMP/err")"
	fi
done

run completion tcsh
expect_status 2 "an unknown shell"
expect_err_line "unknown shell" "the error says so"
run completion
expect_status 2 "no shell"

# Every option of every command's --help is in the scripts (the same tables).
for cmd in "" check diff rules signals fix feedback history fixes stats undo detect-fixes trust hook completion; do
	run help $cmd
	for opt in $(sed -n '/^Options:/,$p' "$TMP/out" | grep -oE -- '^ +(-[a-zA-Z], )?--[a-z][a-z-]*' | grep -o -- '--[a-z-]*' | sort -u); do
		for shell in bash zsh fish; do
			case $shell in
			fish) want="-l ${opt#--}" ;;
			*) want="$opt" ;;
			esac
			grep -q -- "$want" "$TMP/completion.$shell" || fail "$shell script lacks $opt of '${cmd:-revline}'"
		done
	done
done
pass "the scripts have every option of every --help"

# bash: complete as a user types, in a repository with a rule of its own.
repo=$(new_repo r)
mkdir -p "$repo/threadlines"
cat >"$repo/threadlines/house.md" <<'EOF'
---
id: house-style
severity: minor
---
Keep the house style.
EOF
echo 'int main(void) { return 0; }' >"$repo/main.c"
git -C "$repo" add -A
git -C "$repo" commit -q -m first
git -C "$repo" branch feature-x
bindir=$TMP/bin
mkdir -p "$bindir"
ln -s "$REVLINE" "$bindir/revline"

complete_line() {
	# shellcheck disable=SC2016
	(cd "$repo" && PATH="$bindir:$PATH" bash -c '
		. "$1"
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_revline
		printf "%s\n" "${COMPREPLY[@]}"' _ "$TMP/completion.bash" "$@")
}

expect_completion() {
	local want=$1 what=$2 got
	shift 2
	got=$(complete_line "$@")
	if printf '%s\n' "$got" | grep -qxF -- "$want"; then
		pass "$what"
	else
		fail "$what: '$want' not among: $(printf '%s' "$got" | tr '\n' ' ')"
	fi
}

expect_completion check "revline ch completes to check" revline ch
[ "$(complete_line revline ch | wc -l)" -eq 1 ] || fail "revline ch: more than check: $(complete_line revline ch)"
expect_completion --format= "revline check --fo completes to --format=" revline check --fo
expect_completion sarif "check --format takes sarif" revline check --format ""
expect_completion sarif "check --format=sa (split at = as bash does)" revline check --format = sa
expect_completion critical "check --fail-on takes a severity" revline check --fail-on ""
expect_completion house-style "check --rule takes the repository's rule ids" revline check --rule ""
expect_completion feature-x "the TUI's target completes to a branch" revline feat
expect_completion feature-x "check's --base takes a ref" revline check --base fea
expect_completion --staged "a value taken, the next word is an option again" revline check --format json --st
expect_completion keys "help takes keys" revline help ""
expect_completion detect-fixes "help takes command names" revline help det
expect_completion install "hook takes install" revline hook ins
expect_completion --pre-commit "hook's options" revline hook install --pre-c

# `revline <Tab>` offers the commands, not every ref: a repository with many tags.
for i in $(seq 1 40); do git -C "$repo" tag "v1.$i"; done
got=$(complete_line revline "")
[ "$(printf '%s\n' "$got" | wc -l)" -eq "$(printf '%s\n' "$got" | grep -cE '^[a-z][a-z-]*$')" ] &&
	printf '%s\n' "$got" | grep -qx check && ! printf '%s\n' "$got" | grep -qE '^(v1\.|feature-x|main|--)' &&
	pass "revline <Tab>: the commands only ($(printf '%s\n' "$got" | wc -l))" || fail "revline <Tab>: $(printf '%s' "$got" | tr '\n' ' ' | head -c 300)"
expect_completion --staged "revline -<Tab>: the options" revline -
expect_completion v1.17 "a word no command begins: the refs" revline v1.1
complete_line revline d | grep -qvE '^(db|detect-fixes|doctor|diff)$' && fail "revline d: $(complete_line revline d)" ||
	pass "a word a command begins: the commands"
expect_completion main..feature-x "after A.. the refs for B" revline main..fe
expect_completion main...feature-x "after A... too" revline main...fe
expect_completion main..feature-x "check's target: a range" revline check main..fe
expect_completion v1.17 "check's target: the refs at once" revline check v1.1

# --- the database's ids ----------------------------------------------------------
# No database yet: nothing, status 0, and no database made.
fake_llm_env
(cd "$repo" && "$REVLINE" completion --list findings >"$TMP/out" 2>"$TMP/err") && status=0 || status=$?
[ "$status" -eq 0 ] && [ ! -s "$TMP/out" ] && [ ! -s "$TMP/err" ] && [ ! -e "$REVLINE_DB" ] &&
	pass "no database: --list prints nothing, exits 0, makes none" ||
	fail "no database: status $status, out '$(cat "$TMP/out")', err '$(cat "$TMP/err")', db $(ls "$REVLINE_DB" 2>&1)"
(cd "$TMP" && "$REVLINE" completion --list findings >"$TMP/out" 2>"$TMP/err") && status=0 || status=$?
[ "$status" -eq 0 ] && [ ! -s "$TMP/out" ] && [ ! -s "$TMP/err" ] && pass "outside a repository: nothing, 0" ||
	fail "outside a repository: status $status, '$(cat "$TMP/out" "$TMP/err")'"

# A check whose finding's title carries a tab, a newline and an escape
# sequence (the model's text); a flake8 signal; the finding's fix applied.
python3 - "$TMP/script.json" <<'PY'
import json, sys
finding = {"file": "util.py", "line": 4, "severity": "minor", "title": "Debug\tprint\nleft \u001b[31min",
           "issue": "print(item) in a loop", "suggestion": "Remove it",
           "verification": {"code_examined": "print(item)"}}
rules = [
    {"match": "Rule dbg:", "answer": {"status": "attention", "reasoning": "r", "findings": [finding]}},
    {"match": "Problem found in review (rule dbg",
     "answer": {"fixed_code": "count = 0\nfor item in items:\n    count += item\nreturn count\n",
                "explanation": "Removed the debug print."}},
    {"match": "synthesizing", "answer": {"summary": "s", "overallSeverity": "minor-issues", "findings": []}},
    {"answer": {"status": "compliant", "reasoning": "fine", "findings": []}},
]
json.dump({"rules": rules}, open(sys.argv[1], "w"))
PY
fakellm_start "$TMP/script.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1
ids=$(new_repo ids)
printf -- '---\nid: dbg\npatterns: ["**/*.py"]\n---\n# No debug prints\n\nNo print() left in.\n' >"$TMP/dbg.md"
mkdir -p "$TMP/dbgrules" && mv "$TMP/dbg.md" "$TMP/dbgrules/"
printf 'def total(items):\n    count = 0\n    for item in items:\n        count += item\n    return count\n' >"$ids/util.py"
git -C "$ids" add -A && git -C "$ids" commit -q -m base
printf 'def total(items):\n    count = 0\n    for item in items:\n        print(item)\n        count += item\n    return count\n' >"$ids/util.py"
cd "$ids"
run check --rules "$TMP/dbgrules" --rule dbg --format json --fail-on none --no-fix-detection
expect_status 0 "a check with a finding"
finding=$(python3 -c "import json; print(json.load(open('$TMP/out'))['findings'][0]['id'])")
printf 'util.py:4:9: T201 print found\n' >"$TMP/flake8.txt"
run signals --import "$TMP/flake8.txt" --tool flake8
expect_status 0 "a signal imported"
signal=$(python3 -c "import sqlite3; print(sqlite3.connect('$REVLINE_DB').execute('SELECT max(id) FROM signals').fetchone()[0])")
cd "$TMP"
repo=$ids

run_in_repo() {
	(cd "$ids" && "$REVLINE" "$@" >"$TMP/out" 2>"$TMP/err") && status=0 || status=$?
}
run_in_repo completion --list findings
expect_status 0 "--list findings"
grep -q "^$finding	minor dbg util.py:4 Debug print left  \\[31min$" "$TMP/out" &&
	pass "--list findings: the id, a tab, severity, rule, place and title" || fail "--list findings: $(cat -A "$TMP/out")"
[ "$(tr -cd '\000-\010\013-\037\177' <"$TMP/out" | wc -c)" -eq 0 ] &&
	[ "$(awk -F '\t' 'NF != 2' "$TMP/out" | wc -l)" -eq 0 ] &&
	pass "the title's tab, newline and escape are not written (one tab a line)" || fail "control bytes: $(cat -A "$TMP/out")"
run_in_repo completion --list signals
grep -q "^$signal	flake8 T201 util.py:4 print found" "$TMP/out" && pass "--list signals" || fail "--list signals: $(cat "$TMP/out")"
run_in_repo completion --list nonsense
[ "$status" -eq 0 ] && [ ! -s "$TMP/out" ] && [ ! -s "$TMP/err" ] && pass "an unknown kind: nothing, 0" ||
	fail "unknown kind: $status $(cat "$TMP/out" "$TMP/err")"

expect_completion "$finding" "feedback's FINDING_ID completes to the finding's id" revline feedback ""
expect_completion "$finding" "fix --finding takes the finding's id" revline fix --finding ""
expect_completion "$finding" "fix --finding=ID (split at =)" revline fix --finding = ""
expect_completion "$signal" "fix's SIGNAL_ID completes to the signal's id" revline fix ""
complete_line revline undo "" | grep -qE '^[0-9]+$' && fail "undo before any fix: $(complete_line revline undo "")" ||
	pass "nothing to undo: undo offers no id"

run_in_repo fix --finding "$finding" --apply --yes
expect_status 0 "the finding's fix applied"
applied=$(python3 -c "import sqlite3; print(sqlite3.connect('$REVLINE_DB').execute(\"SELECT id FROM signal_fixes WHERE status = 'applied'\").fetchone()[0])")
expect_completion "$applied" "undo's FIX_ID completes to the applied fix" revline undo ""
run_in_repo completion --list applied
grep -q "^$applied	util.py:" "$TMP/out" && pass "--list applied: the fix's file and lines" || fail "--list applied: $(cat "$TMP/out")"

# A detected fix: the rule deleted before the next check (found without the LLM).
rm "$TMP/dbgrules/dbg.md"
printf -- '---\nid: keep\n---\n# Keep\n\nKeep it tidy.\n' >"$TMP/dbgrules/keep.md"
run_in_repo check --rules "$TMP/dbgrules" --wait-fix-detection --fail-on none
expect_status 0 "a second check, the rule gone"
detected=$(python3 -c "import sqlite3; print(sqlite3.connect('$REVLINE_DB').execute('SELECT max(id) FROM violation_fixes').fetchone()[0])")
expect_completion "$detected" "feedback --fix takes the detected fix's id" revline feedback --fix ""
run_in_repo completion --list fixes
grep -q "^$detected	dbg THREADLINE_DELETED " "$TMP/out" && pass "--list fixes: the rule and how it was fixed" ||
	fail "--list fixes: $(cat "$TMP/out")"

# Ids newest first, in each shell as a user sees them (bash and zsh sort
# words unless told not to): signals 12 of one run, listed by prefix.
for i in $(seq 1 12); do printf 'util.py:%d:1: E%d problem %d\n' "$i" "$i" "$i"; done >"$TMP/many.txt"
run_in_repo signals --import "$TMP/many.txt" --tool flake8
run_in_repo completion --list signals
newest=$(head -1 "$TMP/out" | cut -f1)
prefix=${newest:0:1}
want=$(cut -f1 "$TMP/out" | grep "^$prefix" | tr '\n' ' ' | sed 's/ $//')
[ "$(printf '%s' "$want" | wc -w)" -ge 3 ] || fail "the ids to list: '$want'"
[ "$want" != "$(printf '%s\n' $want | sort | tr '\n' ' ' | sed 's/ $//')" ] || fail "sorted as words they would look the same: $want"
if command -v fish >/dev/null; then
	got=$(cd "$ids" && PATH="$bindir:$PATH" fish --no-config -c "source $TMP/completion.fish; complete -C 'revline fix $prefix'" | cut -f1 | tr '\n' ' ' | sed 's/ $//')
	[ "$got" = "$want" ] && pass "fish: the ids newest first ($got)" || fail "fish's order: '$got', not '$want'"
fi
if command -v tmux >/dev/null; then
	sock=revline-completion-$$
	tm() { tmux -L "$sock" -f /dev/null "$@"; }
	trap '{ tm kill-server 2>/dev/null || true; }; fakellm_stop; cleanup_tmp' EXIT
	mkdir -p "$TMP/zfunc"
	cp "$TMP/completion.zsh" "$TMP/zfunc/_revline"
	# What the shell lists for `revline fix PREFIX<Tab>`: its ids in the order shown, within 10 s.
	listed() { # listed WINDOW
		local i got=
		tm send-keys -t "$1" "revline fix $prefix" Tab
		for i in $(seq 1 50); do
			# bash: "13  12  11  10" on a line; zsh: "13  -- flake8 E12 ..." a line each.
			got=$(tm capture-pane -p -t "$1" | sed 's/ *-- .*$//' | grep -E '^[0-9]+( +[0-9]+)* *$' |
				tr -s ' ' '\n' | grep "^$prefix" | tr '\n' ' ' | sed 's/ $//')
			[ "$(printf '%s' "$got" | wc -w)" -ge "$(printf '%s' "$want" | wc -w)" ] && break
			sleep 0.2
		done
		printf '%s' "$got"
	}
	shell_ready() { # shell_ready WINDOW: the setup line ran
		local i
		for i in $(seq 1 50); do
			tm capture-pane -p -t "$1" | grep -q READY && return 0
			sleep 0.2
		done
		fail "$1: the shell did not start: $(tm capture-pane -p -t "$1")"
	}
	tm new-session -d -s c -n bash -x 200 -y 40 "PATH=$bindir:$PATH bash --norc --noprofile -i"
	tm send-keys -t c:bash ". $TMP/completion.bash; bind 'set show-all-if-ambiguous on'; cd $ids; clear; echo READY" Enter
	shell_ready c:bash
	got=$(listed c:bash)
	[ "$got" = "$want" ] && pass "bash lists the ids newest first ($got)" || fail "bash's order: '$got', not '$want'"
	if command -v zsh >/dev/null; then
		tm new-window -t c -n zsh "PATH=$bindir:$PATH zsh -f -i"
		tm send-keys -t c:zsh "fpath=($TMP/zfunc \$fpath); autoload -U compinit; compinit -u; cd $ids; clear; echo READY" Enter
		shell_ready c:zsh
		got=$(listed c:zsh)
		[ "$got" = "$want" ] && pass "zsh lists the ids newest first ($got)" || fail "zsh's order: '$got', not '$want'"
	fi
	tm kill-server 2>/dev/null || true
else
	printf 'skip: tmux is not installed: the order bash and zsh show is not looked at\n'
fi

# fish shows what each id is.
if command -v fish >/dev/null; then
	got=$(cd "$ids" && PATH="$bindir:$PATH" fish --no-config -c "source $TMP/completion.fish; complete -C 'revline feedback '" 2>&1)
	printf '%s\n' "$got" | grep -q "^$finding	minor dbg util.py:4 Debug print" &&
		pass "fish completes feedback's id with its description" || fail "fish: $got"
fi
# zsh: what _revline_ids hands _describe (its menu shows "ID -- description").
if command -v zsh >/dev/null; then
	cat >"$TMP/describe.zsh" <<'EOF'
compdef() { :; }
source "$1"
_describe() { print -rl -- "${(@P)${@[-1]}}"; }
_revline_ids findings
EOF
	got=$(cd "$ids" && PATH="$bindir:$PATH" zsh -f "$TMP/describe.zsh" "$TMP/completion.zsh" 2>&1)
	printf '%s\n' "$got" | grep -q "^$finding:minor dbg util.py:4 Debug print" &&
		pass "zsh describes feedback's id" || fail "zsh: $got"
fi
finish
