# An index whose conflicts name a path through a directory that is a link
# out of the working tree (git and libgit2 read such an index; "../x" and
# ".git/x" they refuse themselves): revline shows it as an unmerged path,
# reads nothing through the link, and nothing outside reaches its output
# or a model.
. "$(dirname "$0")/../cli/lib.sh"

mkdir -p "$TMP/outside"
echo 'TOPSECRET outside the tree' >"$TMP/outside/secret.txt"

repo=$(new_repo hostile)
cd "$repo"
echo kept >kept.txt
git add -A && git commit -q -m base
ln -s "$TMP/outside" lnk
ours=$(echo ours | git hash-object -w --stdin)
theirs=$(echo theirs | git hash-object -w --stdin)

# The index, written by hand: kept.txt merged, lnk/secret.txt in stages 2 and 3.
python3 - "$(git rev-parse HEAD:kept.txt)" "$ours" "$theirs" <<'PY'
import hashlib, struct, sys
kept, ours, theirs = sys.argv[1:4]
entries = [("kept.txt", 0, kept)]
entries += [("lnk/secret.txt", 2, ours), ("lnk/secret.txt", 3, theirs)]
data = b"DIRC" + struct.pack(">II", 2, len(entries))
for path, stage, sha in sorted(entries, key=lambda e: (e[0].encode(), e[1])):
    p = path.encode()
    e = struct.pack(">10I", 0, 0, 0, 0, 0, 0, 0o100644, 0, 0, 0) + bytes.fromhex(sha)
    e += struct.pack(">H", (stage << 12) | len(p)) + p
    e += b"\0" * (8 - len(e) % 8)
    data += e
open(".git/index", "wb").write(data + hashlib.sha1(data).digest())
PY
git ls-files --stage | grep -q 'lnk/secret.txt' || fail "git does not read the crafted index"

run diff
expect_status 0 "diff of an index with a conflict through a link"
if grep -q TOPSECRET "$TMP/out" "$TMP/err"; then fail "diff printed a file outside the tree: $(cat "$TMP/out")"
else pass "diff reads nothing outside the tree"; fi
grep -qxF "* Unmerged path lnk/secret.txt" "$TMP/out" && pass "lnk/secret.txt is an unmerged path" ||
	fail "lnk/secret.txt: not shown as unmerged: $(cat "$TMP/out")"
run diff --json
expect_status 0 "diff --json of it"
grep -q TOPSECRET "$TMP/out" && fail "diff --json carries a file outside the tree" || pass "diff --json reads nothing outside"
run diff --stat
expect_status 0 "diff --stat of it"

# A check (local rules, no model) sees nothing of them either.
export REVLINE_DB=$TMP/revline.db
git config revline.builtinRules local
run check --no-fix-detection --format json --fail-on none
expect_status 0 "check over it"
grep -q TOPSECRET "$TMP/out" && fail "the check read a file outside the tree" || pass "the check reads nothing outside"

finish
