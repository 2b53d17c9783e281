# Storage faults are said, and nothing is lost silently. The database is
# full (a file size limit, ulimit -f: from the start, and set on the
# running check once its first result is stored), read-only (the file and
# its directory, with the capability that lets root write anyway dropped),
# damaged (garbage bytes; a real database cut in half) and locked (another
# process holding BEGIN EXCLUSIVE: from the start, and from the middle of
# the check). Each time `check` exits 4, stderr names the database and
# says what to do, the results still reach stdout (text and JSON, which
# says "stored": false), revline is not killed (SIGXFSZ), and afterwards,
# with the fault lifted, no check the fault touched is recorded complete.
. "$(dirname "$0")/../cli/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
locker=
stop_locker() {
	if [ -n "$locker" ]; then
		kill "$locker" 2>/dev/null || true
		wait "$locker" 2>/dev/null || true
		locker=
	fi
}
trap 'stop_locker; fakellm_stop; chmod -R u+w "$TMP" 2>/dev/null; cleanup_tmp' EXIT

mkdir -p "$TMP/data" "$TMP/rules" "$TMP/db"
ln -s "$REVLINE_SOURCE_DIR/share/prompts" "$TMP/data/prompts"
db=$TMP/db/revline.db
export REVLINE_DATADIR=$TMP/data REVLINE_DB=$db
export OPENAI_API_KEY=sk-test REVLINE_MODEL=fake-model
unset REVLINE_PROVIDER ANTHROPIC_API_KEY OPENAI_BASE_URL REVLINE_OSV_URL
for id in one two three; do
	printf -- '---\nid: %s\nseverity: major\n---\n# The %s rule\n\nCheck the change.\n' "$id" "$id" >"$TMP/rules/$id.md"
done

repo=$(new_repo store)
cd "$repo"
printf 'def run(cmd):\n    return cmd\n' >app.py
git add -A && git commit -q -m base
printf 'def run(cmd):\n    return eval(cmd)\n' >app.py

# Rule one answers at once with a finding; two and three leave time to lay a fault in the middle.
cat >"$TMP/script.json" <<'EOF'
{"rules": [
 {"match": "Rule one:", "latency_ms": 50, "answer": {"status": "attention", "reasoning": "r", "findings": [{"file": "app.py", "line": 2, "severity": "major", "title": "Eval of input", "issue": "eval runs anything", "suggestion": "parse it", "verification": {"code_examined": "return eval(cmd)", "line_range_examined": [1, 2], "verification_method": "read run()", "checked_for_handling_elsewhere": true}}]}},
 {"match": "Rule two:", "latency_ms": 900, "answer": {"status": "compliant", "reasoning": "ok"}},
 {"match": "Rule three:", "latency_ms": 1000, "answer": {"status": "compliant", "reasoning": "ok"}}
], "default": {"answer": {"summary": "One eval.", "overallSeverity": "needs-work", "mustFix": [], "findings": [{"id": "m1", "severity": "major", "file": "app.py", "line": 2, "title": "Eval of input", "issue": "eval", "suggestion": "parse", "fromRules": ["one"], "sources": ["f1"]}]}}}
EOF
fakellm_start "$TMP/script.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1
check=(check --rules "$TMP/rules" --rule one --rule two --rule three --no-cache --no-fix-detection --fail-on none)

sql() { python3 -c 'import sqlite3, sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$db" "$1"; }
last_id() { sql 'SELECT coalesce(max(id), 0) FROM checks'; }

# The database exists, healthy, before each fault is laid.
"$REVLINE" history >/dev/null
[ -f "$db" ] && pass "revline history made the database" || fail "no database at $db"

# Run revline with stdout and stderr through pipes, so that a file size
# limit set for revline alone does not limit the files its output goes to;
# the pipeline ends once both files are whole. $TMP/pid is revline's pid.
piped() { # LIMIT_KB|- ARGS...
	local limit=$1
	shift
	rm -f "$TMP/status" "$TMP/pid"
	{ {
		if [ "$limit" = - ]; then "$REVLINE" "$@" & else (ulimit -f "$limit" && exec "$REVLINE" "$@") & fi
		echo $! >"$TMP/pid"
		wait $!
		echo $? >"$TMP/status"
	} 2>&1 >&3 | cat >"$TMP/err"; } 3>&1 | cat >"$TMP/out"
}
run_piped() {
	set +e
	piped "$@"
	set -e
	status=$(cat "$TMP/status")
}

# The properties every fault must keep. $1: what, $2: a phrase of the advice on stderr, $3: the database.
expect_said() {
	local what=$1 advice=$2
	if [ "$status" -ge 128 ]; then
		fail "$what: revline was killed by signal $((status - 128)); stderr: $(head -c 300 "$TMP/err")"
		return
	fi
	expect_status 4 "$what: exit status 4 (the results could not be stored)"
	if grep -qF -- "$3" "$TMP/err" && grep -qF -- "$advice" "$TMP/err"; then
		pass "$what: stderr names $3 and says what to do"
	else
		fail "$what: stderr should name $3 and say '$advice': $(cat "$TMP/err")"
	fi
}
expect_text_results() {
	if grep -q '^attention  *one' "$TMP/out" && grep -q '^compliant  *three' "$TMP/out" &&
		grep -q 'Eval of input' "$TMP/out" && grep -q 'complete in' "$TMP/out"; then
		pass "$1: the text output has every rule, the finding and the end"
	else
		fail "$1: text results missing: $(head -c 600 "$TMP/out")"
	fi
}
expect_json_results() {
	if python3 - "$TMP/out" "$2" <<'PY'; then
import json, sys
d = json.load(open(sys.argv[1]))
assert d["stored"] is False, d.get("stored")
assert sys.argv[2] in (d["store_error"] or ""), d["store_error"]
assert sorted(r["id"] for r in d["rules"]) == ["one", "three", "two"], d["rules"]
assert any(f["title"] == "Eval of input" for f in d["findings"]), d["findings"]
PY
		pass "$1: the JSON has the results, \"stored\": false and why"
	else
		fail "$1: JSON: $(head -c 600 "$TMP/out")"
	fi
}
# No check after $1 is recorded complete (the fault is lifted by now).
expect_none_complete() {
	local rows
	rows=$(sql "SELECT id || ':' || status FROM checks WHERE id > $1 AND status = 'complete'")
	[ -z "$rows" ] && pass "$2: no check recorded complete" || fail "$2: recorded complete: $rows"
}
expect_healthy() {
	local ok
	ok=$(sql 'PRAGMA integrity_check')
	[ "$ok" = ok ] && pass "$1: integrity_check ok" || fail "$1: integrity_check: $ok"
}

# Full from the start: nothing can be written past 1 KB.
for format in text json; do
	before=$(last_id)
	run_piped 1 "${check[@]}" --format "$format"
	expect_said "full disk ($format)" "ulimit -f" "$db"
	if [ "$format" = text ]; then expect_text_results "full disk"; else expect_json_results "full disk" "$db"; fi
	expect_none_complete "$before" "full disk ($format)"
done
expect_healthy "after the full disk"

# Full in the middle: the limit is set on the running check once rule
# one's result is stored (it is printed only after that); the results of
# two and three cannot be written, nor can the end. The check stays
# 'running' until the next revline marks it interrupted.
before=$(last_id)
rm -f "$TMP/out"
piped - "${check[@]}" &
piper=$!
for _ in $(seq 1 300); do
	grep -q '^attention  *one' "$TMP/out" 2>/dev/null && break
	sleep 0.01
done
python3 -c 'import resource, sys; resource.prlimit(int(sys.argv[1]), resource.RLIMIT_FSIZE, (1024, 1024))' "$(cat "$TMP/pid")"
wait "$piper" || true
status=$(cat "$TMP/status")
expect_said "disk full midway" "ulimit -f" "$db"
expect_text_results "disk full midway"
id=$(sql "SELECT id FROM checks WHERE id > $before")
results=$(sql "SELECT t.threadline_id FROM check_results r JOIN check_threadlines t ON t.id = r.check_threadline_id WHERE t.check_id = ${id:-0}")
[ "$results" = one ] && pass "disk full midway: rule one's result was stored before it was printed" ||
	fail "disk full midway: stored results: '$results'"
expect_none_complete "$before" "disk full midway"
"$REVLINE" history >/dev/null
[ "$(sql "SELECT status FROM checks WHERE id = ${id:-0}")" = interrupted ] &&
	pass "disk full midway: the next revline marks the check interrupted" ||
	fail "disk full midway: status $(sql "SELECT status FROM checks WHERE id = ${id:-0}") after the next open"

# Read-only: the file and its directory. Root writes anyway unless the
# capabilities that override permissions are dropped (CI runs as root).
asuser=()
[ "$(id -u)" = 0 ] && asuser=(setpriv --bounding-set=-dac_override,-dac_read_search --)
chmod 0444 "$db"
chmod 0555 "$TMP/db"
for format in text json; do
	before=$(last_id)
	set +e
	"${asuser[@]}" "$REVLINE" "${check[@]}" --format "$format" >"$TMP/out" 2>"$TMP/err"
	status=$?
	set -e
	expect_said "read-only ($format)" "writable" "$db"
	if [ "$format" = text ]; then expect_text_results "read-only"; else expect_json_results "read-only" "$db"; fi
	[ "$(last_id)" = "$before" ] && pass "read-only ($format): nothing was written" || fail "read-only: a check was written"
done
chmod 0755 "$TMP/db"
chmod 0600 "$db"

# Damaged: garbage bytes, and a real database cut in half.
head -c 65536 /dev/urandom >"$TMP/garbage.db"
for format in text json; do
	REVLINE_DB=$TMP/garbage.db run_piped - "${check[@]}" --format "$format"
	expect_said "garbage database ($format)" "move it aside" "$TMP/garbage.db"
	if [ "$format" = text ]; then expect_text_results "garbage database"; else expect_json_results "garbage database" "$TMP/garbage.db"; fi
done
run "${check[@]}" # a few more pages to cut
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.execute("PRAGMA journal_mode = DELETE")' "$db"
cp "$db" "$TMP/cut.db"
truncate -s "$(($(stat -c %s "$db") / 2))" "$TMP/cut.db"
REVLINE_DB=$TMP/cut.db run_piped - "${check[@]}" --format json
expect_said "database cut in half" "move it aside" "$TMP/cut.db"
expect_json_results "database cut in half" "$TMP/cut.db"

# Locked from the start: another process holds the write lock for the
# whole check; revline waits its busy timeout (5 s) for it, then goes on
# unstored.
lock() { # start holding BEGIN EXCLUSIVE on the database until $TMP/unlock exists
	rm -f "$TMP/unlock" "$TMP/held"
	python3 - "$db" "$TMP" <<'PY' &
import os, sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN EXCLUSIVE")
open(os.path.join(sys.argv[2], "held"), "w").close()
while not os.path.exists(os.path.join(sys.argv[2], "unlock")):
    time.sleep(0.02)
c.execute("ROLLBACK")
PY
	locker=$!
	for _ in $(seq 1 300); do [ -e "$TMP/held" ] && break; sleep 0.01; done
}
unlock() { touch "$TMP/unlock"; wait "$locker" 2>/dev/null || true; locker=; }
before=$(last_id)
lock
run_piped - "${check[@]}" --format json
unlock
expect_said "locked" "let it finish" "$db"
expect_json_results "locked" "database is locked"
expect_none_complete "$before" "locked"

# Locked in the middle: the lock is taken once rule one is printed and
# given back once revline has said it cannot store: the end of the check
# is then written, as partial (its results are not all there).
before=$(last_id)
set +e
"$REVLINE" "${check[@]}" >"$TMP/out" 2>"$TMP/err" &
pid=$!
for _ in $(seq 1 300); do grep -q '^attention  *one' "$TMP/out" 2>/dev/null && break; sleep 0.01; done
lock
for _ in $(seq 1 1000); do grep -q 'not stored' "$TMP/err" 2>/dev/null && break; sleep 0.01; done
unlock
wait "$pid"
status=$?
set -e
expect_said "locked midway" "let it finish" "$db"
expect_text_results "locked midway"
expect_none_complete "$before" "locked midway"
[ "$(sql "SELECT status FROM checks WHERE id > $before")" = partial ] &&
	pass "locked midway: the check is recorded partial" ||
	fail "locked midway: recorded as '$(sql "SELECT status FROM checks WHERE id > $before")'"

# With the faults lifted: the database is whole and a check is stored complete again.
expect_healthy "after every fault"
before=$(last_id)
run "${check[@]}" --format json
expect_status 0 "a healthy database: exit 0"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["stored"] is True and d["store_error"] is None, d' "$TMP/out" &&
	pass "json: \"stored\": true when it was" || fail "json stored for a healthy check: $(head -c 300 "$TMP/out")"
[ "$(sql "SELECT status FROM checks WHERE id > $before")" = complete ] && pass "a healthy check is complete" ||
	fail "a healthy check: $(sql "SELECT status FROM checks WHERE id > $before")"

finish
