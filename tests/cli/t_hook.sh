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

run hook install
expect_status 0 "hook install"
[ -x .git/hooks/pre-push ] && pass "the pre-push hook is written, executable" || fail "no .git/hooks/pre-push"
grep -q "refuses on a finding at major" "$TMP/out" && pass "install says when it refuses and how to skip" ||
	fail "install said: $(cat "$TMP/out")"

printf 'import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd, shell=True)\n' >app.py
git commit -q -am "run through the shell"
pushed=$(git rev-parse HEAD)
set +e
git push -q origin main >"$TMP/push.out" 2>"$TMP/push.err"
status=$?
set -e
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
set +e
git commit -q -m "more" >"$TMP/commit.out" 2>"$TMP/commit.err"
status=$?
set -e
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
