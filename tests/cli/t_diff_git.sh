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

# --- Binary files whose content did not change ------------------------------
# A pure rename or a mode change of a PNG: git's --numstat says "-<TAB>-"
# and its --stat "Bin"; --json says "binary": true (it said false, the
# patch having no content to tell it by). A text file's stays false, and
# a "-diff" attribute makes one binary, as git's numstat says.
repo=$(new_repo unchanged-binary)
cd "$repo"
mkdir -p docs/assets
python3 - docs/assets/logo.png <<'PY'
import struct, sys, zlib
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
w = h = 16
rows = b"".join(b"\0" + bytes(v for x in range(w) for v in (x * 16, y * 16, 128, 255)) for y in range(h))
png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0)) +
       chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))
open(sys.argv[1], "wb").write(png)
PY
file docs/assets/logo.png | grep -q "PNG image data, 16 x 16" || fail "the PNG is not one: $(file docs/assets/logo.png)"
cp docs/assets/logo.png icon.png
cp docs/assets/logo.png work.png
printf 'a\nb\n' >notes.txt
printf 'plain text\n' >opaque.txt
printf 'opaque.txt -diff\nkept.txt -diff\n' >.gitattributes
git add -A
git commit -q -m base
git mv docs/assets/logo.png docs/logo.png
git mv notes.txt notes.md
git mv opaque.txt kept.txt
chmod +x icon.png
git add icon.png
chmod +x work.png

# revline's "binary" of each file against what git's --numstat says of it.
binary_as_numstat() {
	local what=$1 gitargs=$2
	shift 2
	run diff --json "$@"
	git diff -M --numstat $gitargs >"$TMP/numstat.txt"
	if [ "$status" -ne 0 ]; then
		fail "$what: exit status $status: $(head -c 300 "$TMP/err")"
	elif python3 - "$TMP/out" "$TMP/numstat.txt" <<'PY'; then
import json, re, sys
ours = {f["path"]: f["binary"] for f in json.load(open(sys.argv[1]))["files"]}
def new_path(p):
    m = re.match(r"(.*)\{(.*) => (.*)\}(.*)", p)
    if m:
        return (m.group(1) + m.group(3) + m.group(4)).replace("//", "/")
    return p.split(" => ")[-1]
theirs = {}
for line in open(sys.argv[2]):
    a, d, p = line.rstrip("\n").split("\t", 2)
    theirs[new_path(p)] = a == "-"
assert theirs and ours == theirs, (ours, theirs)
PY
		pass "$what"
	else
		fail "$what: $(cat "$TMP/out" | head -c 400) against $(cat "$TMP/numstat.txt")"
	fi
}
binary_as_numstat "a renamed PNG, a chmod +x one: binary as git's --numstat says (staged)" --cached --staged
grep -q '"path":"docs/logo.png"' "$TMP/out" && pass "the PNG's rename is one file" || fail "no rename: $(head -c 300 "$TMP/out")"
binary_as_numstat "the working tree's chmod too" HEAD --base HEAD
same_as_git "the same, --stat" "HEAD -M --stat" --base HEAD --stat
same_as_git "the same, the patch" "HEAD -M" --base HEAD
git add -A
git commit -q -m moved
binary_as_numstat "a range" "HEAD~1 HEAD" HEAD~1..HEAD
same_as_git "a range, --stat" "HEAD~1 HEAD -M --stat" HEAD~1..HEAD --stat
same_as_git "a range, the patch" "HEAD~1 HEAD -M" HEAD~1..HEAD
cd "$TMP"

# --- Big binary files: told from their size and first bytes ------------------
# git's --stat says "Bin X -> Y bytes" from the sizes alone; revline prints
# the same and the same patch, and never reads such a file whole: its peak
# memory stays far under the file's size (it was 2x the file: both sides
# read by libgit2).
repo=$(new_repo binary)
cd "$repo"
echo small >small.txt
# 1.5 MiB with a NUL first (random after: no two alike, no renames); a text
# file as big; a NUL after git's 8,000 bytes (text to git).
bigbin() { { printf '%s\0' "$1"; head -c 1572864 /dev/urandom; } >"$2"; }
bigbin one kept.bin
bigbin one gone.bin
head -c 1572864 /dev/zero | tr '\0' 'y' | fold -w 60 >big.txt
{ head -c 9000 /dev/zero | tr '\0' 't'; printf '\0'; head -c 1572864 /dev/zero | tr '\0' 'z'; } >late.dat
printf '*.attr binary\n' >.gitattributes
bigbin attr marked.attr
git add -A
git commit -q -m base
git tag base
bigbin two kept.bin               # changed, same size
bigbin three new.bin              # added, then staged
bigbin four marked.attr
git rm -q gone.bin
echo more >>big.txt
echo tail >>late.dat
git add new.bin
same_as_git "big binaries against the work tree" "HEAD"
same_as_git "big binaries, --stat" "HEAD --stat" --stat
grep -q '^ kept.bin *| Bin 1572868 -> 1572868 bytes$' "$TMP/out" && grep -q '^ new.bin *| Bin 0 -> 1572870 bytes$' "$TMP/out" &&
	grep -q '^ gone.bin *| Bin 1572868 -> 0 bytes$' "$TMP/out" && pass "the Bin lines give the sizes" ||
	fail "the Bin lines: $(cat "$TMP/out")"
same_as_git "big binaries, --staged" "--cached" --staged
same_as_git "big binaries, --staged --stat" "--cached --stat" --staged --stat
git add -A
git commit -q -m change
same_as_git "big binaries in a range" "base HEAD" base..HEAD
same_as_git "big binaries in a range, --stat" "base HEAD --stat" base..HEAD --stat
# Under text=auto (the end-of-line filter decides, and leaves a binary file alone).
printf '* text=auto\n*.attr binary\n' >.gitattributes
git add .gitattributes && git commit -q -m auto
bigbin five kept.bin
same_as_git "big binaries under text=auto" "HEAD"
same_as_git "big binaries under text=auto, --stat" "HEAD --stat" --stat
git checkout -q kept.bin
# Never read whole: 64 MiB staged, counted and printed in a few MiB.
if ! asan_build && [ -x /usr/bin/time ]; then
	{ printf 'big\0'; head -c 67108864 /dev/urandom; } >huge.bin
	git add huge.bin
	/usr/bin/time -f %M -o "$TMP/rss" "$REVLINE" diff --stat >"$TMP/out" 2>"$TMP/err" && status=0 || status=$?
	git diff HEAD --stat >"$TMP/git.txt"
	same_output_rss=$(cat "$TMP/rss")
	if [ "$status" -eq 0 ] && cmp -s "$TMP/out" "$TMP/git.txt" && [ "$same_output_rss" -lt 32768 ]; then
		pass "64 MiB binary: --stat as git's in $same_output_rss KiB"
	else
		fail "64 MiB binary: status $status, $same_output_rss KiB, $(diff "$TMP/git.txt" "$TMP/out" | head -4)"
	fi
	/usr/bin/time -f %M -o "$TMP/rss" "$REVLINE" diff >"$TMP/out" 2>"$TMP/err" && status=0 || status=$?
	git diff HEAD >"$TMP/git.txt"
	if [ "$status" -eq 0 ] && cmp -s "$TMP/out" "$TMP/git.txt" && [ "$(cat "$TMP/rss")" -lt 32768 ]; then
		pass "64 MiB binary: the patch as git's in $(cat "$TMP/rss") KiB"
	else
		fail "64 MiB binary patch: status $status, $(cat "$TMP/rss") KiB, $(diff "$TMP/git.txt" "$TMP/out" | head -4)"
	fi
	git rm -q --cached huge.bin
	rm huge.bin
fi

# --- A range and the attributes of the work tree and the index ---------------
# Between two commits revline asks libgit2 for the patches on a handle
# without the work tree when no attributes file along the paths says how a
# file is diffed; git reads the work tree's and the index's .gitattributes
# (and the repository-wide files) all the same, so every way they can say
# it gives git's patch.
repo=$(new_repo attrs)
cd "$repo"
mkdir -p src data
cfile() {
	printf 'int\nf(int x)\n{\n\tif (x)\n\t\tgoto done;\n'
	for i in $(seq 1 12); do printf '\tx += %d;\n' "$i"; done
	printf 'done:\n'
	for i in $(seq 1 12); do printf '\tx -= %d;\n' "$i"; done
	printf '\treturn %s;\n}\n' "$1"
}
cfile x >src/a.c
printf 'one\ntwo\n' >data/b.txt
printf 'keep\n' >data/c.txt
git add -A
git commit -q -m base
git tag attr-base
cfile 'x + 1' >src/a.c
printf 'one\n2\n' >data/b.txt
printf 'new\n' >data/d.txt
git add -A
git commit -q -m head
same_as_git "a range, no attributes" "attr-base HEAD" attr-base..HEAD
printf '*.txt -diff\n' >data/.gitattributes
same_as_git "a range, -diff in an untracked .gitattributes" "attr-base HEAD" attr-base..HEAD
grep -q '^Binary files a/data/b.txt and b/data/b.txt differ$' "$TMP/out" && pass "the untracked -diff is read" ||
	fail "the untracked -diff is not read: $(head -c 400 "$TMP/out")"
rm data/.gitattributes
printf '*.c diff=cpp\n' >.gitattributes
same_as_git "a range, a diff driver's function context" "attr-base HEAD" attr-base..HEAD
grep -q '^@@ .* @@ f(int x)$' "$TMP/out" && pass "the cpp driver's context (not the label)" ||
	fail "the cpp driver is not used: $(grep '^@@' "$TMP/out")"
rm .gitattributes
printf '[attr]opaque -diff\n' >.git/info/attributes
printf '*.txt opaque\n' >data/.gitattributes
same_as_git "a range, a macro of info/attributes used in a folder's file" "attr-base HEAD" attr-base..HEAD
rm .git/info/attributes data/.gitattributes
printf '*.c binary\n' >"$TMP/global-attributes"
git config core.attributesFile "$TMP/global-attributes"
same_as_git "a range, core.attributesFile" "attr-base HEAD" attr-base..HEAD
git config --unset core.attributesFile
same_as_git "a range, none again" "attr-base HEAD" attr-base..HEAD
grep -q '^@@ .* @@ done:$' "$TMP/out" && pass "git's default context again" ||
	fail "the default context: $(grep '^@@' "$TMP/out")"
cd "$TMP"

finish
