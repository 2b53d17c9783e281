# revline diff agrees with git: text byte for byte, name-status, and --json
# counts against git diff --numstat for several targets.
. "$(dirname "$0")/lib.sh"

repo=$(new_repo d)
cd "$repo"
for i in $(seq 1 40); do echo "line $i"; done >base.txt
printf 'keep\n' >keep.txt
printf 'rename me\n%.0s' $(seq 1 20) >old-name.txt
printf 'gone\n' >gone.txt
printf '\x89PNG\r\n\x1a\n\0\0\0' >image.png
printf 'tab\tand caf\xc3\xa9\n' >utf8.txt
git add -A
git commit -q -m base
git tag base
sed -i 's/^line 3$/line three/; s/^line 30$/line thirty/' base.txt
git mv old-name.txt new-name.txt
echo "one more" >>new-name.txt
git rm -q gone.txt
printf '\x89PNG\r\n\x1a\n\1\1\1' >image.png
printf 'crlf\r\nlines\r\n' >crlf.txt
printf 'latin \xe9\n' >>utf8.txt
git add -A
git commit -q -m change
git tag change
echo "work in progress" >>base.txt
echo "staged" >>keep.txt
git add keep.txt
echo "untracked" >new.txt

check_text() {
	local what=$1 gitargs=$2
	shift 2
	run diff "$@"
	git diff --no-color $gitargs >"$TMP/git.txt"
	if cmp -s "$TMP/out" "$TMP/git.txt"; then pass "text: $what"
	else fail "text: $what differs from git diff $gitargs: $(diff "$TMP/git.txt" "$TMP/out" | head -5)"; fi
}

check_text "default (HEAD, no upstream)" "HEAD"
check_text "--staged" "--cached" --staged
check_text "--base base" "base" --base base
check_text "range" "base change" base..change
check_text "symmetric range" "base...change" base...change

run diff --name-status base..change
git diff --name-status base change >"$TMP/git.txt"
if cmp -s "$TMP/out" "$TMP/git.txt"; then pass "name-status"; else
	fail "name-status differs: $(diff "$TMP/git.txt" "$TMP/out")"; fi

# --json: per-file counts must be git's --numstat; fields must be present.
check_json() {
	local what=$1 gitargs=$2
	shift 2
	run diff --json "$@"
	git diff --numstat -z $gitargs >"$TMP/numstat"
	if python3 - "$TMP/out" "$TMP/numstat" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
raw = open(sys.argv[2], 'rb').read().split(b'\0')
want, i = {}, 0
while i < len(raw) - 1:
    add, dele, path = raw[i].split(b'\t', 2)
    if path == b'':
        path = raw[i + 2]
        i += 3
    else:
        i += 1
    want[path.decode('utf-8', 'replace')] = (add.decode(), dele.decode())
got = {}
for f in doc['files']:
    for key in ('path', 'old_path', 'status', 'binary', 'additions', 'deletions', 'hunks'):
        assert key in f, 'missing ' + key
    assert f['status'] in ('added', 'modified', 'deleted', 'renamed', 'copied', 'typechange')
    got[f['path']] = ('-', '-') if f['binary'] else (str(f['additions']), str(f['deletions']))
    for h in f['hunks']:
        for key in ('old_start', 'old_lines', 'new_start', 'new_lines', 'lines'):
            assert key in h, 'missing ' + key
        adds = sum(1 for l in h['lines'] if l['origin'] == '+')
        dels = sum(1 for l in h['lines'] if l['origin'] == '-')
        assert adds + sum(1 for l in h['lines'] if l['origin'] == ' ') == h['new_lines']
        assert dels + sum(1 for l in h['lines'] if l['origin'] == ' ') == h['old_lines']
        for l in h['lines']:
            for key in ('origin', 'old_lineno', 'new_lineno', 'content'):
                assert key in l, 'missing ' + key
if got != want:
    print('json:', got)
    print('git: ', want)
    sys.exit(1)
PY
	then pass "json agrees with numstat: $what"; else fail "json: $what"; fi
}

check_json "default" "HEAD"
check_json "staged" "--cached" --staged
check_json "range" "base change" base..change
check_json "symmetric range" "base...change" base...change

# Invalid UTF-8 in a line: content is made valid, the bytes are kept in base64.
run diff --json base..change
python3 - "$TMP/out" <<'PY' && pass "json keeps invalid bytes in base64" || fail "json invalid bytes"
import base64, json, sys
doc = json.load(open(sys.argv[1]))
f = [f for f in doc['files'] if f['path'] == 'utf8.txt'][0]
line = [l for h in f['hunks'] for l in h['lines'] if l['origin'] == '+'][0]
assert base64.b64decode(line['content_base64']) == b'latin \xe9', line
assert line['content'] == 'latin \ufffd', line
PY

# --untracked adds new files as additions.
run diff --name-status --untracked
expect_out "^A	new.txt" "--untracked lists the untracked file"
run diff --name-status
if grep -q new.txt "$TMP/out"; then fail "untracked file without --untracked"; else pass "untracked left out by default"; fi

# --stat totals
run diff --stat base..change
expect_out "files changed" "--stat prints a summary"
expect_out "image.png.*Bin" "--stat marks binary files"

finish
