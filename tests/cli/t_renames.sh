# Renames are paired as git pairs them (its score, its 50% threshold, its
# tie-breaking, file names first, the rename limit) and their headers are
# git's: each case is a small repository made from a real commit where
# revline and `git diff -M` differed, and revline's text, --name-status and
# --json must be git's.
. "$(dirname "$0")/lib.sh"

repo=$(new_repo r)
cd "$repo"

# same RANGE WHAT [GIT_ARGS]: revline diff RANGE agrees with git diff -M
# RANGE (or with git diff -M GIT_ARGS when RANGE is an option, not a range).
same() {
	local range=$1 what=$2 gitargs=${3:-$1} got want
	git diff -M $gitargs >"$TMP/git.txt" 2>/dev/null
	git diff -M --name-status $gitargs >"$TMP/git.ns" 2>/dev/null
	run diff $range
	if [ "$status" -ne 0 ] || ! cmp -s "$TMP/out" "$TMP/git.txt"; then
		fail "$what: the text differs from git's: $(diff "$TMP/out" "$TMP/git.txt" | head -20)"
	else
		pass "$what: text"
	fi
	run diff --name-status $range
	if ! cmp -s "$TMP/out" "$TMP/git.ns"; then
		fail "$what: --name-status differs from git's: $(diff "$TMP/out" "$TMP/git.ns" | head -20)"
	else
		pass "$what: --name-status"
	fi
	run diff --json $range
	got=$(python3 -c '
import json, sys
letters = {"added": "A", "modified": "M", "deleted": "D", "renamed": "R", "copied": "C", "typechange": "T"}
for f in json.load(open(sys.argv[1]))["files"]:
    s = letters[f["status"]]
    print("%s%03d\t%s\t%s" % (s, f["similarity"], f["old_path"], f["path"]) if s in "RC" else "%s\t%s" % (s, f["path"]))
' "$TMP/out")
	want=$(cat "$TMP/git.ns")
	if [ "$got" != "$want" ]; then
		fail "$what: --json pairs differ from git's: $got"
	else
		pass "$what: --json"
	fi
}

lines() { # lines PREFIX FROM TO
	local i
	for i in $(seq "$2" "$3"); do echo "$1 line $i of a sample"; done
}

# tig 4295ede (test/test-graph-samples/N.in and N.out became test/graph/N-test,
# the steps and the expected graph in one script): libgit2 paired each script
# with a part at 38-46% of git's score (R041 here); git pairs a script with a
# part only at 50% or more and leaves the rest added and deleted (A, R051).
mkdir samples
for n in 1 2; do
	for i in $(seq 1 $((12 + n * 3))); do
		printf '%s commit %d of case %d\n' "$(echo "in$n$i" | md5sum | cut -c1-12)" "$i" "$n"
	done >"samples/${n}_case.in"
	for i in $(seq 1 $((20 + n * 4))); do
		printf '| * | %s\n' "$(echo "out$n$i" | md5sum | cut -c1-10)"
	done >"samples/${n}_case.out"
done
git add -A && git commit -q -m samples && git tag samples
mkdir graph
for n in 1 2; do
	{ printf '#!/bin/sh\n#\n# Graph test: case %d\n\n. libtest.sh\n\nsteps <<EOF\n' "$n"
	  cat "samples/${n}_case.in"; echo EOF; echo 'test_case <<EOF'; cat "samples/${n}_case.out"; echo EOF
	} >"graph/0$n-case-test"
done
git rm -q -r samples && git add -A && git commit -q -m graph && git tag graph
same samples..graph "below git's threshold, many to many (tig 4295ede)"

# tig 0723f3b (src/refs.c -> src/refdb.c, one include changed): libgit2
# scored it 100 and revline printed R100; git says 99%.
mkdir src
lines "refs" 1 300 >src/refs.c
git add -A && git commit -q -m refs && git tag refs
git mv src/refs.c src/refdb.c
sed -i 's/^refs line 150 of a sample$/refdb line 150 of a sample/' src/refdb.c
git commit -q -am refdb && git tag refdb
same refs..refdb "an edited rename is never 100% (tig 0723f3b)"

# tig f9164fb (contrib/config.make-CYGWIN_NT-6.1, 100755 -> 100644, renamed
# and edited): git prints old mode/new mode before the similarity lines.
lines "cygwin" 1 12 >contrib.make-6.1
chmod +x contrib.make-6.1
git add -A && git commit -q -m cygwin && git tag cygwin
git mv contrib.make-6.1 contrib.make
chmod -x contrib.make
lines "more" 1 8 >>contrib.make
git commit -q -am cygport && git tag cygport
same cygwin..cygport "a rename with a mode change: git's header order (tig f9164fb)"

# curl 7_88_0..8_0_0 (tests/tests-httpd/README.md -> tests/http/README.md):
# a rename's hunk context is cut to 80 bytes and loses its trailing blanks.
{ printf 'The module source code is found in the test environment and it is built with it%s\n' ' using make'
  for i in $(seq 1 20); do echo "  item $i"; done; } >README.md
git add -A && git commit -q -m readme && git tag readme
mkdir http && git mv README.md http/README.md
sed -i 's/^  item 12$/  item twelve/' http/README.md
git commit -q -am http && git tag http
same readme..http "a rename's hunk context cut at 80 bytes (curl 8_0_0)"

# Identical contents moved many to many: git prefers the same file name.
mkdir -p old/a old/b
lines "same" 1 5 >old/a/x.txt
cp old/a/x.txt old/b/y.txt
cp old/a/x.txt old/z.txt
git add -A && git commit -q -m same && git tag same
mkdir -p new/c new/d
cp old/a/x.txt new/c/y.txt
cp old/a/x.txt new/d/x.txt
git rm -q -r old && git add -A && git commit -q -m moved && git tag moved
same same..moved "identical contents: the same file name first"

# File names first: a unique name pairs at 75% even when another source is closer.
mkdir lib
{ lines "util" 1 16; } >lib/util.c
{ lines "util" 1 20; } >lib/helpers.c
git add -A && git commit -q -m lib && git tag lib
mkdir core
{ lines "util" 1 19; } >core/util.c
git rm -q -r lib && git add -A && git commit -q -m core && git tag core
same lib..core "a file of the same name is taken first"

# Binary files: paired by git's score too, printed as git prints them.
head -c 3000 /dev/zero | tr '\0' 'b' >blob.bin
printf '\0\1\2\3' >>blob.bin
git add -A && git commit -q -m bin && git tag bin
git mv blob.bin image.bin
printf 'tail\n' >>image.bin
git commit -q -am image && git tag image
same bin..image "a binary rename with an edit"

# A mode-only change of a binary file: git prints only the mode lines.
chmod +x image.bin
git commit -q -am exec && git tag exec
same image..exec "a binary file made executable"

# diff.renameLimit: over it, git pairs only identical contents (and warns).
git config diff.renameLimit 1
same lib..core "over diff.renameLimit"
same same..moved "over diff.renameLimit, identical contents"
git config --unset diff.renameLimit

# The working tree: a rename staged, then edited.
git mv src/refdb.c src/refs2.c
echo "one more line" >>src/refs2.c
same "--base HEAD" "the working tree" HEAD
same --staged "the index" --cached

finish
