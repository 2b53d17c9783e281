# A merge, a rebase, a cherry-pick and a revert stopped on conflicts, made
# by git (issue 25): revline diff shows the unmerged paths as git shows the
# same target (U, "* Unmerged path"), reviews their working-tree text (the
# markers are added lines), and a check says what is in progress and
# reports the markers (the built-in conflict-markers rule, and an LLM rule
# of the fake server that is asked about them) with a non-zero exit.
. "$(dirname "$0")/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

fake_llm_env
ln -sfn "$REVLINE_SOURCE_DIR/rules" "$TMP/data/rules"
rules=$TMP/rules
mkdir -p "$rules"
printf -- '---\nid: merge-review\nseverity: major\n---\n# Merge review\n\nCheck the change for a botched merge.\n' \
	>"$rules/merge-review.md"
# The LLM rule finds the markers only when they are in what it is sent.
cat >"$TMP/script.json" <<'EOF'
{"rules": [
 {"match": ["Rule merge-review:", "+<<<<<<< "], "answer": {"status": "attention", "reasoning": "r", "findings": [{"file": "uu.txt", "line": 2, "severity": "major", "title": "Merge left unresolved", "issue": "i", "suggestion": "s", "verification": {"code_examined": "<<<<<<< HEAD", "line_range_examined": [1, 7], "verification_method": "read the file", "checked_for_handling_elsewhere": true}}]}},
 {"answer": {"status": "compliant", "reasoning": "fine", "findings": []}}
]}
EOF
fakellm_start "$TMP/script.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1

# same_output WHAT: $TMP/out is byte for byte $TMP/git.txt.
same_output() {
	if [ "$status" -ne 0 ]; then
		fail "$1: exit status $status: $(head -c 300 "$TMP/err")"
	elif cmp -s "$TMP/out" "$TMP/git.txt"; then
		pass "$1"
	else
		fail "$1 differs from git: $(diff "$TMP/git.txt" "$TMP/out" | head -8)"
	fi
}

# conflict_checks WHAT STATE: everything a user sees of the stopped operation.
conflict_checks() {
	local what=$1 state=$2

	git status --porcelain >"$TMP/porcelain"
	grep -q '^UU uu.txt$' "$TMP/porcelain" || fail "$what: git says no UU uu.txt: $(cat "$TMP/porcelain")"

	# The patch: git diff HEAD byte for byte, and git's line for an unmerged
	# path that shows nothing (the working tree has HEAD's text).
	run diff
	git diff HEAD >"$TMP/git.txt"
	grep -v '^\* Unmerged path ' "$TMP/out" >"$TMP/out.patch" || true
	if [ "$status" -eq 0 ] && cmp -s "$TMP/out.patch" "$TMP/git.txt"; then pass "$what: diff is git diff HEAD"
	else fail "$what: diff differs from git diff HEAD: $(diff "$TMP/git.txt" "$TMP/out.patch" | head -8)"; fi
	sed -n 's/^\* Unmerged path //p' "$TMP/out" >"$TMP/shown"
	git diff --name-only --diff-filter=U | while read -r p; do
		git diff HEAD --name-only -- "$p" | grep -q . || echo "$p"
	done >"$TMP/silent"
	if cmp -s "$TMP/shown" "$TMP/silent"; then pass "$what: '* Unmerged path' for what git diff HEAD leaves out"
	else fail "$what: '* Unmerged path' lines $(cat "$TMP/shown") for $(cat "$TMP/silent")"; fi
	grep -q '^+<<<<<<< ' "$TMP/out" && grep -q '^+>>>>>>> ' "$TMP/out" &&
		pass "$what: the markers are added lines" || fail "$what: no added markers in: $(head -c 400 "$TMP/out")"

	# --staged: git diff --cached, "* Unmerged path" for each.
	run diff --staged
	git diff --cached >"$TMP/git.txt"
	same_output "$what: diff --staged is git diff --cached"

	# --name-status: U for an unmerged path, as git says it.
	run diff --name-status
	python3 - "$TMP/out" "$TMP/porcelain" <<'PY' && pass "$what: name-status U" || fail "$what: name-status: $(cat "$TMP/out")"
import sys
lines = open(sys.argv[1]).read().splitlines()
unmerged = {l[3:] for l in open(sys.argv[2]).read().splitlines()
            if l[:2] in ("DD", "AU", "UD", "UA", "DU", "AA", "UU")}
shown = {l.split("\t")[-1]: l.split("\t")[0] for l in lines}
assert all(shown.get(p) == "U" for p in unmerged), (unmerged, shown)
assert not [p for p, s in shown.items() if s == "U" and p not in unmerged], shown
PY

	# --stat: the kind beside the name; the counts of git diff HEAD, whose
	# summary leaves out the files it shows nothing for.
	run diff --stat
	git diff HEAD --stat | tail -n 1 >"$TMP/git.txt"
	files=$(($(awk '{print $1}' "$TMP/git.txt") + $(wc -l <"$TMP/silent")))
	[ "$files" -eq 1 ] && files="1 file" || files="$files files"
	if grep -q '^ uu.txt (unmerged: both modified) *| 4 ++++$' "$TMP/out" &&
		[ "$(tail -n 1 "$TMP/out")" = "$(sed "s/^ [0-9]* files*/ $files/" "$TMP/git.txt")" ]; then
		pass "$what: --stat"
	else fail "$what: --stat: $(cat "$TMP/out") (git: $(cat "$TMP/git.txt"))"; fi
	run diff --staged --stat
	if grep -q '^ uu.txt *| Unmerged$' "$TMP/out"; then pass "$what: --staged --stat says Unmerged"
	else fail "$what: --staged --stat: $(cat "$TMP/out")"; fi

	# --json: what is in progress, and each unmerged path's kind as git status names it.
	run diff --json
	python3 - "$TMP/out" "$TMP/porcelain" "$state" <<'PY' && pass "$what: --json" || fail "$what: --json: $(head -c 600 "$TMP/out")"
import json, sys
doc = json.load(open(sys.argv[1]))
kinds = {l[3:]: l[:2] for l in open(sys.argv[2]).read().splitlines() if l[:2] not in ("??", "  ")}
assert doc["in_progress"] == sys.argv[3], doc["in_progress"]
for f in doc["files"]:
    want = kinds.get(f["path"])
    if want and "U" in want or want in ("AA", "DD"):
        assert f["unmerged"] == want, (f["path"], f["unmerged"], want)
    else:
        assert f["unmerged"] is None, f
assert any(f["unmerged"] == "UU" and f["additions"] == 4 for f in doc["files"]), doc["files"]
PY

	# The check: what is in progress, the markers found, a non-zero exit.
	run check --rules "$rules" --rule conflict-markers --rule merge-review --no-cache --no-fix-detection
	expect_status 1 "$what: check fails on the markers"
	expect_out "^  $state in progress: [0-9]* unmerged paths\\?, reviewed as the working tree has them: .*uu.txt (both modified)" \
		"$what: the report says $state in progress"
	expect_out "critical uu.txt:2  No merge conflict markers" "$what: conflict-markers finds the markers"
	expect_out "major    uu.txt:2  Merge left unresolved" "$what: the LLM rule was sent the markers"
	run check --rules "$rules" --rule conflict-markers --rule merge-review --no-cache --no-fix-detection --format json
	python3 - "$TMP/out" "$state" <<'PY' && pass "$what: check --format json" || fail "$what: check json: $(head -c 600 "$TMP/out")"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["in_progress"] == sys.argv[2], doc["in_progress"]
assert {"path": "uu.txt", "kind": "UU", "reviewed": True} in doc["unmerged"], doc["unmerged"]
assert {f["rule_id"] for f in doc["findings"]} == {"conflict-markers", "merge-review"}, doc["findings"]
PY

	# Two commits are no part of the working tree's state.
	run diff HEAD~1..HEAD --json
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["in_progress"] is None and not any(f["unmerged"] for f in d["files"])' "$TMP/out" &&
		pass "$what: a range says nothing in progress" || fail "$what: range: $(head -c 300 "$TMP/out")"
	run check HEAD~1..HEAD --rules "$rules" --rule conflict-markers --no-cache --no-fix-detection
	if grep -q 'in progress' "$TMP/out"; then fail "$what: a range's check says in progress: $(cat "$TMP/out")"
	else pass "$what: a range's check says nothing in progress"; fi
}

# --- A merge: both modified, both added, deleted by us, deleted by them ---------
repo=$(new_repo merge)
cd "$repo"
printf 'a\nb\nc\n' >uu.txt
echo x >du.txt
echo y >ud.txt
echo clean >clean.txt
git add -A && git commit -q -m base
git checkout -q -b side
printf 'a\nB-side\nc\n' >uu.txt
echo side >du.txt
git rm -q ud.txt
echo side-aa >aa.txt
echo merged >>clean.txt
git add -A && git commit -q -m side
git checkout -q main
printf 'a\nB-main\nc\n' >uu.txt
git rm -q du.txt
echo main >ud.txt
echo main-aa >aa.txt
git add -A && git commit -q -m main
git merge -q side >/dev/null 2>&1 && fail "the merge did not stop"
for kind in 'AA aa.txt' 'DU du.txt' 'UD ud.txt' 'UU uu.txt'; do
	grep -qx "$kind" <(git status --porcelain) || fail "git made no $kind conflict"
done
conflict_checks merge merge
# Resolved with git add: an ordinary change, the merge still in progress.
printf 'a\nB-both\nc\n' >uu.txt
git add uu.txt
run diff --name-status
grep -qx 'M	uu.txt' "$TMP/out" && pass "merge: resolved uu.txt is M" || fail "merge: resolved: $(cat "$TMP/out")"
git merge --abort

# --- A rebase stopped on a commit -----------------------------------------------
repo=$(new_repo rebase)
cd "$repo"
printf 'a\nb\nc\n' >uu.txt
git add -A && git commit -q -m base
git checkout -q -b topic
printf 'a\nB-topic\nc\n' >uu.txt
git commit -q -am topic
git checkout -q main
printf 'a\nB-main\nc\n' >uu.txt
echo more >other.txt
git add -A && git commit -q -m main
git checkout -q topic
git rebase main >/dev/null 2>&1 && fail "the rebase did not stop"
conflict_checks rebase rebase
git rebase --abort

# --- A cherry-pick --------------------------------------------------------------
repo=$(new_repo pick)
cd "$repo"
printf 'a\nb\nc\n' >uu.txt
git add -A && git commit -q -m base
git checkout -q -b other
printf 'a\nB-other\nc\n' >uu.txt
git commit -q -am other
git checkout -q main
printf 'a\nB-main\nc\n' >uu.txt
git commit -q -am main
git cherry-pick other >/dev/null 2>&1 && fail "the cherry-pick did not stop"
conflict_checks cherry-pick cherry-pick
git cherry-pick --abort

# --- A revert -------------------------------------------------------------------
repo=$(new_repo revert)
cd "$repo"
printf 'a\nb\nc\n' >uu.txt
git add -A && git commit -q -m base
printf 'a\nB-one\nc\n' >uu.txt
git commit -q -am one
printf 'a\nB-two\nc\n' >uu.txt
git commit -q -am two
git revert --no-edit HEAD~1 >/dev/null 2>&1 && fail "the revert did not stop"
conflict_checks revert revert
git revert --abort

# --- Nothing in progress: nothing said ------------------------------------------
run diff --json
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["in_progress"] is None' "$TMP/out" &&
	pass "no operation: in_progress null" || fail "no operation: $(head -c 300 "$TMP/out")"

finish
