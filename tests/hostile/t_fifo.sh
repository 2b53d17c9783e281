# Only regular files are read. A FIFO, a socket, a link to /dev/zero, a
# link to a file outside the repository and a link into .git sit in the
# working tree: untracked, in place of a tracked file and of a manifest,
# named by a rule's context_files, by the model's findings and as a rule
# file. `check` and `diff` end within seconds (timeout 20: a hang fails the
# test instead of holding CI), say what was skipped, and nothing outside the
# working tree reaches the model.
. "$(dirname "$0")/../cli/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

mkdir -p "$TMP/data" "$TMP/rules" "$TMP/outside"
fake_llm_env
printf -- '---\nid: ctx\nseverity: major\ncontext_files: [pipe, sock, zero, secret, gitcfg, notes.txt]\n---\n# Context\n\nCheck the change.\n' \
	>"$TMP/rules/ctx.md"
mkfifo "$TMP/rules/fifo.md"
echo 'BEGIN OPENSSH PRIVATE KEY 0123456789' >"$TMP/outside/id_rsa"

repo=$(new_repo fifo)
cd "$repo"
printf 'def run():\n    pass\n' >app.py
printf 'tracked\n' >data.txt
printf 'context notes\n' >notes.txt
printf '{"dependencies": {"left-pad": "1.0.0"}}\n' >package.json
mkdir web
printf '{"dependencies": {"left-pad": "1.0.0"}}\n' >web/package.json
printf '{"dependencies": {"left-pad": "9.0.0"}}\n' >"$TMP/outside/package.json"
git add -A && git commit -q -m base
printf 'def run():\n    return 1\n' >app.py
rm data.txt package.json
mkfifo pipe data.txt package.json
python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind("sock")'
ln -s /dev/zero zero
ln -s "$TMP/outside/id_rsa" secret
ln -s .git/config gitcfg
rm web/package.json
ln -s "$TMP/outside/package.json" web/package.json
git config remote.origin.url https://user:gitcfg-TOKEN@example.com/x.git

finding() { # FILE
	printf '{"file": "%s", "line": 1, "severity": "major", "title": "t", "issue": "i", "suggestion": "s", "verification": {"code_examined": "return 1", "line_range_examined": [1, 2], "verification_method": "m", "checked_for_handling_elsewhere": true, "is_impact_finding": true}}' "$1"
}
cat >"$TMP/script.json" <<EOF
{"rules": [
 {"match": "Rule ctx:", "answer": {"status": "attention", "reasoning": "r", "findings": [
   $(finding pipe), $(finding sock), $(finding zero), $(finding secret), $(finding gitcfg), $(finding app.py)]}},
 {"match_path": "/v1/querybatch", "results": []},
 {"answer": {"status": "not_relevant", "reasoning": "-"}}
]}
EOF
fakellm_start "$TMP/script.json" || exit 1
export REVLINE_BASE_URL=$FAKELLM_URL/v1 REVLINE_OSV_URL=$FAKELLM_URL

# check, untracked files included
set +e
start=$(date +%s)
timeout 20 "$REVLINE" check --rules "$TMP/rules" --untracked --show-unverified --fail-on none --allow-partial \
	--format json >"$TMP/out" 2>"$TMP/err"
status=$?
set -e
[ "$status" -ne 124 ] && pass "check ends ($(($(date +%s) - start)) s)" || fail "check hung on a FIFO"
expect_status 0 "check with FIFOs, sockets and links in the working tree"
note() { python3 -c "
import json
d = json.load(open('$TMP/out'))
print([f['verify_note'] for f in d['findings'] if f['file'] == '$1'][0])"; }
for want in "pipe:is a FIFO, not a regular file: skipped" "sock:is a socket, not a regular file: skipped" \
	"zero:leads outside the working tree (to /dev/zero): skipped" \
	"secret:leads outside the working tree" "gitcfg:leads into the repository's .git: skipped"; do
	file=${want%%:*}
	got=$(note "$file" 2>&1 || true)
	case "$got" in
	*"$file: ${want#*:}"*) pass "a finding in $file says why it was not checked" ;;
	*) fail "$file: verify_note '$got', expected '${want#*:}'" ;;
	esac
done
deps=$(python3 -c "
import json
d = json.load(open('$TMP/out'))['dependencies']
print(d['problems'], [p['manifest'] for p in d['packages'] if p['manifest'].startswith('web/')])")
case "$deps" in
*"web/package.json (new side): web/package.json: leads outside the working tree"*"[]") pass "a manifest that cannot be read is named, and none of its dependencies counted" ;;
*) fail "dependencies: $deps" ;;
esac
[ "$(note app.py)" = "the quoted code is at line 2 of app.py (the answer said 1)" ] &&
	pass "the regular file is still checked" || fail "app.py: $(note app.py)"

fakellm_requests >"$TMP/requests"
ctx=$(python3 -c "
import json
for line in open('$TMP/requests'):
    r = json.loads(line)
    for m in r.get('body', {}).get('messages', []):
        if 'Rule ctx:' in str(m.get('content')):
            print(json.dumps(m['content']))
" | head -n 1)
for want in "pipe: is a FIFO, not a regular file: skipped" "sock: is a socket, not a regular file: skipped" \
	"zero: leads outside the working tree" "secret: leads outside the working tree" \
	"gitcfg: leads into the repository's .git: skipped" "context notes"; do
	case "$ctx" in
	*"$want"*) pass "context_files: $want" ;;
	*) fail "the ctx prompt does not say '$want'" ;;
	esac
done
grep -q "PRIVATE KEY" "$TMP/requests" && fail "a file outside the repository reached the model" ||
	pass "the linked private key never reaches the model"
grep -q "gitcfg-TOKEN" "$TMP/requests" && fail ".git/config reached the model" ||
	pass ".git/config never reaches the model"
set +e
timeout 20 "$REVLINE" rules --lint --rules "$TMP/rules" >"$TMP/out" 2>&1
status=$?
set -e
[ "$status" -ne 124 ] && pass "rules --lint ends" || fail "rules --lint hung on a FIFO"
expect_out "rules/fifo.md: is a FIFO, not a regular file: skipped" "a FIFO among the rules is named as skipped"

# diff: the working tree as it is, untracked included; git itself stops at
# such files ("unsupported file type"), revline leaves them out.
set +e
timeout 20 "$REVLINE" diff --untracked >"$TMP/out" 2>"$TMP/err"
status=$?
set -e
expect_status 0 "diff --untracked with FIFOs, sockets and links"
expect_out "^+    return 1" "the regular file's change is shown"
grep -q "OPENSSH\|gitcfg-TOKEN" "$TMP/out" && fail "diff showed what a link points to" ||
	pass "links are shown as links (their target's name), never followed"
expect_out "^+/dev/zero" "the link to /dev/zero is its target's name"
finish
