# revline as a git hook, with real git and the fake LLM over HTTP: a push to
# a local bare remote is refused on a critical finding and goes through with
# --no-verify; a pre-commit hook; a foreign hook left alone, or kept and run
# first with --force, and put back on uninstall; core.hooksPath.
. "$(dirname "$0")/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

fake_llm_env

cat >"$TMP/script.json" <<'EOF'
{"rules": [
 {"match": "subprocess.call(cmd, shell=True)", "answer": {"status": "attention", "reasoning": "r", "findings": [
  {"file": "app.py", "line": 5, "severity": "critical", "title": "Shell injection", "issue": "shell=True with a caller's string", "suggestion": "Pass a list",
   "verification": {"code_examined": "return subprocess.call(cmd, shell=True)", "line_range_examined": [4, 5], "verification_method": "read run()", "checked_for_handling_elsewhere": true}}]}},
 {"answer": {"status": "compliant", "reasoning": "fine", "findings": []}}
]}
EOF
fakellm_start "$TMP/script.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1

remote=$TMP/remote.git
git init -q --bare -b main "$remote"
repo=$(new_repo work)
cd "$repo"
mkdir threadlines
cat >threadlines/injection.md <<'EOF'
---
id: injection
severity: critical
globs: ["**/*.py"]
---
# No shell injection

Commands are run without a shell.
EOF
printf 'import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd)\n' >app.py
git add -A && git commit -q -m base
git remote add origin "$remote"
git push -q -u origin main 2>/dev/null
requests() { fakellm_requests | wc -l; }
# try git ...: run it, keeping its status and its output in $TMP/push.out and push.err (commit.* for a commit).
try() { set +e; "$@" >"$TMP/push.out" 2>"$TMP/push.err"; status=$?; set -e; }
try_commit() { set +e; "$@" >"$TMP/commit.out" 2>"$TMP/commit.err"; status=$?; set -e; }

run hook install
expect_status 0 "hook install"
[ -x .git/hooks/pre-push ] && pass "the pre-push hook is written, executable" || fail "no .git/hooks/pre-push"
grep -q "refuses on a finding at major or worse, and on a review that did not complete" "$TMP/out" && pass "install says when it refuses and how to skip" ||
	fail "install said: $(cat "$TMP/out")"

printf 'import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd, shell=True)\n' >app.py
git commit -q -am "run through the shell"
pushed=$(git rev-parse HEAD)
try git push -q origin main
expect_status 1 "the push is refused on a critical finding"
grep -q "push refused.*--no-verify" "$TMP/push.err" && pass "the hook says how to skip it" ||
	fail "push said: $(cat "$TMP/push.err")"
grep -q "Shell injection" "$TMP/push.out" "$TMP/push.err" && pass "the finding is shown" || fail "no finding shown"
[ "$(git -C "$remote" rev-parse main)" != "$pushed" ] && pass "the remote did not get it" || fail "the remote got it"

# A second try is answered from the cache.
before=$(requests)
set +e
git push -q origin main >/dev/null 2>&1
status=$?
set -e
expect_status 1 "refused again"
[ "$(requests)" -eq "$before" ] && pass "the re-run asked the LLM nothing (the cache)" ||
	fail "the re-run made $(($(requests) - before)) request(s)"

set +e
git push -q --no-verify origin main >/dev/null 2>"$TMP/push.err"
status=$?
set -e
expect_status 0 "git push --no-verify skips the review"
[ "$(git -C "$remote" rev-parse main)" = "$pushed" ] && pass "the remote has it now" || fail "not pushed"

# A push of nothing new, and a harmless change, go through.
echo "# notes" >README.md
git add README.md && git commit -q -m readme
set +e
git push -q origin main >/dev/null 2>"$TMP/push.err"
status=$?
set -e
expect_status 0 "a push with no finding goes through"

run hook uninstall
expect_status 0 "hook uninstall"
[ ! -e .git/hooks/pre-push ] && pass "the hook is gone" || fail "the hook is still there"
run hook uninstall
expect_status 1 "uninstall with nothing to remove"
expect_err_line "no pre-push hook of revline's" "says there is none"

# pre-commit: a foreign hook is left alone; --force keeps it and runs it first.
printf 'import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd)\n' >app.py
git commit -q -am "no shell"
printf '#!/bin/sh\ntouch "%s/foreign-ran"\n' "$TMP" >.git/hooks/pre-commit
chmod +x .git/hooks/pre-commit
cp .git/hooks/pre-commit "$TMP/foreign"
run hook install --pre-commit
expect_status 1 "a foreign hook is not overwritten"
expect_err_line "not revline's: it is left alone; --force" "says so, and what --force does"
cmp -s .git/hooks/pre-commit "$TMP/foreign" && pass "the foreign hook is unchanged" || fail "foreign hook changed"
run hook install --pre-commit --force --fail-on critical
expect_status 0 "--force"
grep -q "runs first" "$TMP/out" && pass "install says the foreign hook runs first" || fail "$(cat "$TMP/out")"
printf 'import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd, shell=True)\n' >app.py
git add app.py
try_commit git commit -q -m "more"
expect_status 1 "the commit is refused on a critical finding"
[ -e "$TMP/foreign-ran" ] && pass "the kept hook ran first" || fail "the kept hook did not run"
grep -q "commit refused" "$TMP/commit.err" && pass "pre-commit says why" || fail "$(cat "$TMP/commit.err")"
set +e
git commit -q --no-verify -m "more" >/dev/null 2>&1
status=$?
set -e
expect_status 0 "git commit --no-verify"
run hook uninstall --pre-commit
expect_status 0 "uninstall --pre-commit"
cmp -s .git/hooks/pre-commit "$TMP/foreign" && pass "the kept hook is back in its place" ||
	fail "the foreign hook was not restored"

# core.hooksPath: inside the repository it is used; outside, nothing is written there.
git config core.hooksPath .githooks
run hook install
expect_status 0 "install with core.hooksPath"
[ -x .githooks/pre-push ] && pass "the hook is in core.hooksPath" || fail "not in .githooks: $(cat "$TMP/out")"
mkdir -p "$TMP/elsewhere"
git config core.hooksPath "$TMP/elsewhere"
run hook install
expect_status 1 "core.hooksPath outside the repository"
expect_err_line "outside this repository" "says so"
[ -z "$(ls -A "$TMP/elsewhere")" ] && pass "nothing written outside" || fail "wrote into $TMP/elsewhere"
run hook install --print
expect_status 0 "--print"
head -1 "$TMP/out" | grep -qx '#!/bin/sh' && sh -n "$TMP/out" && pass "--print prints a hook sh reads" ||
	fail "--print: $(head -3 "$TMP/out")"
run hook install --fail-on urgent
expect_status 2 "a bad --fail-on"

# The LLM server down: a critical finding of a local rule (offline) still refuses the push,
# whatever else failed; a review that did not complete refuses too, unless revline.allowPartial.
git config --unset core.hooksPath
run hook install
expect_status 0 "hook install again"
down=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export REVLINE_BASE_URL=http://127.0.0.1:$down/v1 REVLINE_RETRIES=0
key=AKIA$(printf 'Q7RWZT3K%sN2VX' 4M5P)
printf 'import os\n\nAWS_ACCESS_KEY_ID = "%s"\n' "$key" >utils.py
git add utils.py && git commit -q -m "utils"
pushed=$(git rev-parse HEAD)
try git push -q origin main
expect_status 1 "LLM down, a critical local finding: the push is refused"
grep -q "push refused: a finding at major or worse" "$TMP/push.err" &&
	pass "the hook says the finding refused it, not that the review did not complete" ||
	fail "push said: $(cat "$TMP/push.err")"
grep -q "the push goes on" "$TMP/push.err" && fail "the hook let it go on: $(cat "$TMP/push.err")" ||
	pass "nothing says the push goes on"
grep -q "private-keys-and-cloud-keys" "$TMP/push.out" "$TMP/push.err" && pass "the local rule's finding is shown" ||
	fail "no finding shown: $(cat "$TMP/push.out")"
[ "$(git -C "$remote" rev-parse main)" != "$pushed" ] && pass "the remote did not get the key" || fail "the remote got the key"

# The key gone, the server still down: the LLM rule did not run, nothing found: refused as incomplete.
printf 'import os\n\nAWS_ACCESS_KEY_ID = os.environ["AWS_ACCESS_KEY_ID"]\n' >utils.py
git commit -q -am "key from the environment"
pushed=$(git rev-parse HEAD)
try git push -q origin main
expect_status 1 "LLM down, nothing found: the incomplete review refuses the push"
grep -q "the review did not complete (exit 6: some rules did not run)" "$TMP/push.err" &&
	grep -q "push refused: the review did not complete; 'git config revline.allowPartial true'" "$TMP/push.err" &&
	pass "the hook says why and how to let an incomplete review pass" || fail "push said: $(cat "$TMP/push.err")"
[ "$(git -C "$remote" rev-parse main)" != "$pushed" ] && pass "the remote did not get it" || fail "the remote got it"
git config revline.allowPartial true
try git push -q origin main
expect_status 0 "revline.allowPartial true: the incomplete review lets the push go on"
[ "$(git -C "$remote" rev-parse main)" = "$pushed" ] && pass "the remote has it" || fail "not pushed: $(cat "$TMP/push.err")"
# allowPartial never lets a finding through.
printf 'import os\n\nAWS_ACCESS_KEY_ID = "%s"\n' "$key" >utils.py
git commit -q -am "the key again"
try git push -q origin main
expect_status 1 "revline.allowPartial true, a critical finding: refused all the same"
git config --unset revline.allowPartial
git reset -q --hard HEAD~1

# pre-commit, the same: the local finding refuses the commit with the server down (the foreign hook kept).
run hook install --pre-commit --force
printf 'import os\n\nAWS_ACCESS_KEY_ID = "%s"\n' "$key" >utils.py
git add utils.py
try_commit git commit -q -m "key"
expect_status 1 "pre-commit, LLM down, a critical local finding: the commit is refused"
grep -q "commit refused: a finding at major or worse" "$TMP/commit.err" && pass "pre-commit says the finding refused it" ||
	fail "commit said: $(cat "$TMP/commit.err")"
git checkout -q HEAD -- utils.py
run hook uninstall --pre-commit
run hook uninstall
export REVLINE_BASE_URL=$FAKELLM_URL/v1
unset REVLINE_RETRIES

# The pre-commit framework's manifest names revline's two hooks.
if python3 -c 'import yaml' 2>/dev/null; then
	python3 - "$REVLINE_SOURCE_DIR/.pre-commit-hooks.yaml" <<'PY' && pass ".pre-commit-hooks.yaml: revline and revline-pre-push" || fail ".pre-commit-hooks.yaml"
import sys, yaml
hooks = {h["id"]: h for h in yaml.safe_load(open(sys.argv[1]))}
assert set(hooks) == {"revline", "revline-pre-push"}, hooks
for h in hooks.values():
    assert "revline check" in h["entry"] and h["language"] == "system" and h["pass_filenames"] is False, h
assert hooks["revline"]["stages"] == ["pre-commit"] and "--staged" in hooks["revline"]["entry"]
assert hooks["revline-pre-push"]["stages"] == ["pre-push"]
PY
else
	printf 'skip: python3-yaml is not installed: .pre-commit-hooks.yaml not read\n'
fi
finish
