# Shared by the command-line tests: a private environment, throw-away
# repositories with fixed dates, and checks that say what went wrong.
set -euo pipefail

: "${REVLINE:?set REVLINE to the revline binary}"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/revline-cli-XXXXXX")

# shellcheck source=tests/detached.sh
. "$(dirname "${BASH_SOURCE[0]}")/../detached.sh"

# The detached detectors this test started go before the directory.
cleanup_tmp() {
	local i
	detached_stop "$TMP"
	for i in $(seq 1 50); do
		rm -rf "$TMP" 2>/dev/null && return 0
		sleep 0.1
	done
	rm -rf "$TMP"
}
trap cleanup_tmp EXIT
export HOME=$TMP/home XDG_CONFIG_HOME=$TMP/home/.config XDG_DATA_HOME=$TMP/home/.local/share
export GIT_CONFIG_NOSYSTEM=1 LANG=C.UTF-8 LC_ALL=C.UTF-8
export GIT_AUTHOR_NAME=Tester GIT_AUTHOR_EMAIL=t@example.com
export GIT_COMMITTER_NAME=Tester GIT_COMMITTER_EMAIL=t@example.com
export GIT_AUTHOR_DATE="@1700000000 +0000" GIT_COMMITTER_DATE="@1700000000 +0000"
unset REVLINE_THEME NO_COLOR REVLINE_SCRIPT
mkdir -p "$HOME"

failures=0
fail() { printf 'FAIL: %s\n' "$*" >&2; failures=$((failures + 1)); }
pass() { printf 'ok: %s\n' "$*"; }

# run: run revline, keeping its exit status, stdout and stderr.
run() {
	set +e
	"$REVLINE" "$@" >"$TMP/out" 2>"$TMP/err"
	status=$?
	set -e
}

expect_status() {
	local want=$1 what=$2
	if [ "$status" -ne "$want" ]; then
		fail "$what: exit status $status, expected $want; stderr: $(head -c 300 "$TMP/err")"
	else
		pass "$what"
	fi
}

expect_err_line() {
	local pattern=$1 what=$2 lines
	lines=$(wc -l <"$TMP/err")
	if [ "$lines" -ne 1 ] || ! grep -q -- "$pattern" "$TMP/err"; then
		fail "$what: expected one line matching '$pattern' on stderr, got: $(cat "$TMP/err")"
	else
		pass "$what"
	fi
}

expect_out() {
	local pattern=$1 what=$2
	if grep -q -- "$pattern" "$TMP/out"; then pass "$what"; else fail "$what: no '$pattern' in: $(head -c 400 "$TMP/out")"; fi
}

# asan_build: whether $REVLINE was built with AddressSanitizer (its time and
# memory bounds are wider). Not `ldd | grep -q`: grep leaving early makes
# ldd die of SIGPIPE, which pipefail turns into "no".
asan_build() {
	case "$(ldd "$REVLINE" 2>/dev/null)" in
	*libasan*) return 0 ;;
	esac
	return 1
}

# fake_llm_env: revline's data (the prompts) and database in $TMP, talking to
# the fake server with its model and a test key; what the caller's
# environment sets for another server, or a deadline, is cleared.
fake_llm_env() {
	mkdir -p "$TMP/data"
	ln -sfn "$REVLINE_SOURCE_DIR/share/prompts" "$TMP/data/prompts"
	export REVLINE_DATADIR=$TMP/data REVLINE_DB=$TMP/revline.db
	export OPENAI_API_KEY=sk-test REVLINE_MODEL=fake-model
	unset REVLINE_PROVIDER ANTHROPIC_API_KEY OPENAI_BASE_URL REVLINE_OSV_URL REVLINE_DEADLINE
}

new_repo() {
	local dir=$TMP/$1
	mkdir -p "$dir"
	git -C "$dir" init -q -b main
	git -C "$dir" config core.autocrlf false
	echo "$dir"
}

finish() {
	if [ "$failures" -ne 0 ]; then
		echo "$failures check(s) failed" >&2
		exit 1
	fi
	echo "all checks passed"
}

# injection_fixture LINE: what the store tests review. The fake LLM (fakellm.sh,
# sourced by the test) answers the rule "injection" (in $rules) with one
# critical finding at app.py:LINE and every other rule compliant; $repo is
# a repository whose change adds shell=True, and the current directory.
injection_fixture() {
	local line=$1
	fake_llm_env
	cat >"$TMP/script.json" <<EOF2
{"rules": [
 {"match": "Rule injection:", "answer": {"status": "attention", "reasoning": "r", "findings": [{"file": "app.py", "line": $line, "severity": "critical", "title": "Shell injection", "issue": "i", "suggestion": "s", "verification": {"code_examined": "return subprocess.call(cmd, shell=True)", "line_range_examined": [1, $line], "verification_method": "read run()", "checked_for_handling_elsewhere": true}}]}},
 {"answer": {"status": "compliant", "reasoning": "fine", "findings": []}}
]}
EOF2
	fakellm_start "$TMP/script.json"
	export REVLINE_BASE_URL=$FAKELLM_URL/v1
	rules=$TMP/rules
	mkdir -p "$rules"
	printf -- '---\nid: injection\nseverity: critical\n---\nCheck the change for injection.\n' >"$rules/injection.md"

	repo=$(new_repo work)
	cd "$repo"
	printf 'import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd)\n' >app.py
	git add -A && git commit -q -m base
	printf 'import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd, shell=True)\n' >app.py
}
