# revline diff agrees with git byte for byte where libgit2 alone does not
# (issue 14, found on real repositories): empty work-tree files under
# `* text=auto` (libgit2 1.5 aborted in git_patch_free), the "index" line's
# abbreviation (git's grows with the number of objects and is made unique),
# and intent-to-add entries, which `git diff --cached` leaves out.
. "$(dirname "$0")/lib.sh"

same_as_git() {
	local what=$1 gitargs=$2
	shift 2
	run diff "$@"
	git diff --no-color $gitargs >"$TMP/git.txt"
	if [ "$status" -ne 0 ]; then
		fail "$what: exit status $status: $(head -c 300 "$TMP/err")"
	elif cmp -s "$TMP/out" "$TMP/git.txt"; then
		pass "$what"
	else
		fail "$what differs from git diff $gitargs: $(diff "$TMP/git.txt" "$TMP/out" | head -8)"
	fi
}

# --- Empty work-tree files where a text attribute applies --------------------
repo=$(new_repo empty)
cd "$repo"
printf '* text=auto\n*.bin binary\n' >.gitattributes
printf 'a\nb\n' >f.txt
printf 'no newline' >nonl.txt
printf 'x\n' >exe.sh
chmod +x exe.sh
printf 'x\0y\n' >data.dat
printf 'attr\n' >a.bin
printf 'y\n' >'sp ace.txt'
printf 'z\n' >"$(printf 'caf\303\251.txt')"
printf 'crlf\r\nz\r\n' >crlf.txt
: >was-empty.txt
git add -A
git commit -q -m base
for f in f.txt nonl.txt data.dat a.bin 'sp ace.txt' "$(printf 'caf\303\251.txt')" crlf.txt; do
	: >"$f"
done
: >exe.sh
chmod -x exe.sh
chmod +x was-empty.txt
: >new.txt
: >new-exe.sh
chmod +x new-exe.sh

same_as_git "emptied files under text=auto" "HEAD"
run diff --json
expect_status 0 "--json of emptied files"
python3 - "$TMP/out" <<'PY' && pass "--json counts of emptied files" || fail "--json counts of emptied files"
import json, sys
files = {f['path']: f for f in json.load(open(sys.argv[1]))['files']}
assert files['f.txt']['deletions'] == 2 and files['f.txt']['additions'] == 0, files['f.txt']
assert files['data.dat']['binary'] and files['a.bin']['binary'], files
assert files['was-empty.txt']['deletions'] == 0, files['was-empty.txt']
PY
run diff --stat
expect_status 0 "--stat of emptied files"
# The untracked empty files, as git shows them once added with -N.
run diff --untracked
cp "$TMP/out" "$TMP/untracked.txt"
git add -N new.txt new-exe.sh
git diff --no-color HEAD >"$TMP/git.txt"
git reset -q new.txt new-exe.sh
if [ "$status" -eq 0 ] && cmp -s "$TMP/untracked.txt" "$TMP/git.txt"; then pass "empty untracked files"
else fail "empty untracked files (status $status): $(diff "$TMP/git.txt" "$TMP/untracked.txt" | head -8)"; fi
# check loads the same patches (local rules only: no LLM asked).
git config revline.builtinRules local
run check --no-cache --no-fix-detection --fail-on none --untracked
expect_status 0 "check over emptied and empty new files"
# core.autocrlf filters too.
git config core.autocrlf true
same_as_git "emptied files with core.autocrlf" "HEAD"
git config core.autocrlf false

# --- The index line: core.abbrev, and git's auto length ----------------------
repo=$(new_repo abbrev)
cd "$repo"
echo base >base.txt
git add -A
git commit -q -m base
git tag base
# A thousand blobs: some share four hex digits, so core.abbrev=4 must grow.
mkdir files
for i in $(seq 1 1000); do echo "file $i" >"files/$i.txt"; done
git add -A
git commit -q -m many
git tag many
git -c core.abbrev=4 diff base many >"$TMP/git.txt"
grep -Eq '^index [0-9a-f]+\.\.[0-9a-f]{5,}' "$TMP/git.txt" &&
	pass "the case has ids that four digits do not tell apart" || fail "no id longer than four digits"
for value in 4 12 no auto; do
	git config core.abbrev "$value"
	same_as_git "core.abbrev=$value" "base many" base..many
done
git config --unset core.abbrev
same_as_git "core.abbrev unset, few objects (7)" "base many" base..many
# 16,384 packed objects or more: git's automatic length is 8.
seq 1 17000 | awk '{printf "blob\ndata <<E\nobject %d\nE\n", $1}' | git fast-import --quiet
echo change >>base.txt
git commit -q -am change
git tag change
git diff base change >"$TMP/git.txt"
grep -Eq '^index [0-9a-f]{8}\.\.' "$TMP/git.txt" && pass "git says 8 digits here" ||
	fail "git does not use 8 digits"
same_as_git "core.abbrev unset, 17,000 packed objects (8)" "base change" base..change
same_as_git "work tree, 17,000 packed objects" "HEAD" </dev/null
echo more >>base.txt
same_as_git "work-tree change, 17,000 packed objects" "HEAD"
git checkout -q base.txt

# --- Intent-to-add entries ------------------------------------------------
repo=$(new_repo ita)
cd "$repo"
echo a >a.txt
git add -A
git commit -q -m base
echo new >n.txt
: >e.txt
git add -N n.txt e.txt
echo b >>a.txt
git add a.txt
same_as_git "--staged leaves intent-to-add files out" "--cached" --staged
run diff --staged --name-status
if grep -q 'n.txt\|e.txt' "$TMP/out"; then fail "--name-status --staged lists an intent-to-add file"
else pass "--name-status --staged without intent-to-add files"; fi
same_as_git "against the work tree they are new files" "HEAD"

finish
