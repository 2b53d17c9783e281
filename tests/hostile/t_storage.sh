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
 {"match": "Rule two:", "latency_ms": 400, "answer": {"status": "compliant", "reasoning": "ok"}},
 {"match": "Rule three:", "latency_ms": 500, "answer": {"status": "compliant", "reasoning": "ok"}}
], "default": {"answer": {"summary": "One eval.", "overallSeverity": "needs-work", "mustFix": [], "findings": [{"id": "m1", "severity": "major", "file": "app.py", "line": 2, "title": "Eval of input", "issue": "eval", "suggestion": "parse", "fromRules": ["one"], "sources": ["f1"]}]}}}
EOF
fakellm_start "$TMP/script.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1
check=(check --rules "$TMP/rules" --rule one --rule two --rule three --no-cache --no-fix-detection --fail-on none)

# One look at the database (python3's sqlite3, started once per look: it is
# slow to start): the last check's id, the statuses of the checks after
# $1, the rules with a stored result in the newest of them, and
# integrity_check. Sets last, statuses, results and integrity.
look() {
	eval "$(python3 - "$db" "${1:-0}" <<'PY'
import shlex, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
after = int(sys.argv[2])
last = c.execute("SELECT coalesce(max(id), 0) FROM checks").fetchone()[0]
statuses = [r[0] for r in c.execute("SELECT status FROM checks WHERE id > ? ORDER BY id", (after,))]
results = [r[0] for r in c.execute("SELECT t.threadline_id FROM check_results r JOIN check_threadlines t "
                                   "ON t.id = r.check_threadline_id WHERE t.check_id = ? ORDER BY 1", (last,))]
integrity = c.execute("PRAGMA integrity_check").fetchone()[0]
print("last=%d statuses=%s results=%s integrity=%s" % (last, shlex.quote(" ".join(statuses)),
      shlex.quote(" ".join(results)), shlex.quote(integrity)))
PY
)"
}

# The database exists before the faults are laid.
"$REVLINE" history >/dev/null

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
		if wait $!; then echo 0; else echo $?; fi >"$TMP/status"
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
	if python3 - "$TMP/out" "$2" 2>"$TMP/pyerr" <<'PY'; then
import json, sys
d = json.load(open(sys.argv[1]))
assert d["stored"] is False, d.get("stored")
assert sys.argv[2] in (d["store_error"] or ""), d["store_error"]
assert sorted(r["id"] for r in d["rules"]) == ["one", "three", "two"], d["rules"]
assert any(f["title"] == "Eval of input" for f in d["findings"]), d["findings"]
PY
		pass "$1: the JSON has the results, \"stored\": false and why"
	else
		fail "$1: JSON: $(tail -n 1 "$TMP/pyerr"): $(head -c 400 "$TMP/out")"
	fi
}
# After a fault is lifted: a whole database, and no check since $1 recorded
# complete (each is running, interrupted, partial or failed).
expect_not_complete() { # BEFORE WHAT
	look "$1"
	[ "$integrity" = ok ] && pass "$2: integrity_check ok" || fail "$2: integrity_check: $integrity"
	case " $statuses " in
	*" complete "*) fail "$2: a check is recorded complete: $statuses" ;;
	*) pass "$2: no check recorded complete (${statuses:-none recorded})" ;;
	esac
}

look
[ "$integrity" = ok ] && [ "$last" = 0 ] && pass "the database is new and whole" || fail "a new database: $last checks, $integrity"

# Full from the start: nothing can be written past 1 KB.
before=$last
for format in text json; do
	run_piped 1 "${check[@]}" --format "$format"
	expect_said "full disk ($format)" "ulimit -f" "$db"
	if [ "$format" = text ]; then expect_text_results "full disk"; else expect_json_results "full disk" "$db"; fi
done
expect_not_complete "$before" "full disk"

# Full in the middle: the limit is set on the running check once rule
# one's result is stored (it is printed only after that); the results of
# two and three cannot be written, nor can the end. The check stays
# 'running' until the next revline marks it interrupted.
before=$last
rm -f "$TMP/out"
piped - "${check[@]}" &
piper=$!
for _ in $(seq 1 500); do grep -q '^attention  *one' "$TMP/out" 2>/dev/null && break; sleep 0.01; done
prlimit --pid "$(cat "$TMP/pid")" --fsize=1024:1024
wait "$piper" || true
status=$(cat "$TMP/status")
expect_said "disk full midway" "ulimit -f" "$db"
expect_text_results "disk full midway"
expect_not_complete "$before" "disk full midway"
[ "$results" = one ] && pass "disk full midway: rule one's result was stored before it was printed" ||
	fail "disk full midway: stored results: '$results'"
"$REVLINE" history >/dev/null
look "$before"
[ "$statuses" = interrupted ] && pass "disk full midway: the next revline marks the check interrupted" ||
	fail "disk full midway: '$statuses' after the next open"

# Read-only: the file and its directory. Root writes anyway unless the
# capabilities that override permissions are dropped (CI runs as root).
asuser=()
[ "$(id -u)" = 0 ] && asuser=(setpriv --bounding-set=-dac_override,-dac_read_search --)
before=$last
chmod 0444 "$db"
chmod 0555 "$TMP/db"
for format in text json; do
	set +e
	"${asuser[@]}" "$REVLINE" "${check[@]}" --format "$format" >"$TMP/out" 2>"$TMP/err"
	status=$?
	set -e
	expect_said "read-only ($format)" "writable" "$db"
	if [ "$format" = text ]; then expect_text_results "read-only"; else expect_json_results "read-only" "$db"; fi
done
chmod 0755 "$TMP/db"
chmod 0600 "$db"
look "$before"
[ -z "$statuses" ] && pass "read-only: nothing was written" || fail "read-only: checks were written: $statuses"

# Damaged: garbage bytes, and a real database cut in half.
head -c 65536 /dev/urandom >"$TMP/garbage.db"
for format in text json; do
	REVLINE_DB=$TMP/garbage.db run_piped - "${check[@]}" --format "$format"
	expect_said "garbage database ($format)" "move it aside" "$TMP/garbage.db"
	if [ "$format" = text ]; then expect_text_results "garbage database"; else expect_json_results "garbage database" "$TMP/garbage.db"; fi
done
run "${check[@]}" # a few more pages to cut
# Every page in the file itself (the database stays in WAL mode, as revline keeps it).
python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("PRAGMA wal_checkpoint(TRUNCATE)")' "$db"
cp "$db" "$TMP/cut.db"
truncate -s "$(($(stat -c %s "$db") / 2))" "$TMP/cut.db"
REVLINE_DB=$TMP/cut.db run_piped - "${check[@]}" --format json
expect_said "database cut in half" "move it aside" "$TMP/cut.db"
expect_json_results "database cut in half" "$TMP/cut.db"

# Locked: another process holds BEGIN EXCLUSIVE. It starts before revline
# (python is slow to start) and takes the lock when $TMP/go appears, gives
# it back when $TMP/unlock does.
locker_start() {
	rm -f "$TMP/go" "$TMP/unlock" "$TMP/ready" "$TMP/held"
	python3 - "$db" "$TMP" <<'PY' &
import os, sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
at = lambda name: os.path.exists(os.path.join(sys.argv[2], name))
open(os.path.join(sys.argv[2], "ready"), "w").close()
while not at("go"):
    time.sleep(0.005)
c.execute("BEGIN EXCLUSIVE")
open(os.path.join(sys.argv[2], "held"), "w").close()
while not at("unlock"):
    time.sleep(0.01)
c.execute("ROLLBACK")
PY
	locker=$!
	for _ in $(seq 1 1000); do [ -e "$TMP/ready" ] && break; sleep 0.01; done
}
lock() { touch "$TMP/go"; for _ in $(seq 1 500); do [ -e "$TMP/held" ] && break; sleep 0.01; done; }
unlock() { touch "$TMP/unlock"; wait "$locker" 2>/dev/null || true; locker=; }

# Locked from the start, for the whole check: revline opens the database
# (WAL: reading goes on), waits its busy timeout (5 s) to write the check,
# then goes on unstored.
look
before=$last
locker_start
lock
run_piped - "${check[@]}" --format json
unlock
expect_said "locked" "let it finish" "$db"
expect_json_results "locked" "database is locked"
expect_not_complete "$before" "locked"

# Locked in the middle: the lock is taken once rule one is printed and
# given back once revline has said it cannot store: the end of the check
# is then written, as partial (its results are not all there).
before=$last
locker_start
set +e
"$REVLINE" "${check[@]}" >"$TMP/out" 2>"$TMP/err" &
pid=$!
for _ in $(seq 1 500); do grep -q '^attention  *one' "$TMP/out" 2>/dev/null && break; sleep 0.01; done
lock
for _ in $(seq 1 1500); do grep -q 'not stored' "$TMP/err" 2>/dev/null && break; sleep 0.01; done
unlock
wait "$pid"
status=$?
set -e
expect_said "locked midway" "let it finish" "$db"
expect_text_results "locked midway"
expect_not_complete "$before" "locked midway"
[ "$statuses" = partial ] && [ "$results" = one ] &&
	pass "locked midway: recorded partial, with rule one's result" ||
	fail "locked midway: recorded '$statuses' with results '$results'"

# With the faults lifted, a check is stored complete again.
before=$last
run "${check[@]}" --format json
expect_status 0 "a healthy database: exit 0"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["stored"] is True and d["store_error"] is None, d' "$TMP/out" &&
	pass "json: \"stored\": true when it was" || fail "json stored for a healthy check: $(head -c 300 "$TMP/out")"
look "$before"
[ "$statuses" = complete ] && [ "$results" = "one three two" ] && [ "$integrity" = ok ] &&
	pass "a healthy check is complete, with its results" || fail "a healthy check: '$statuses', results '$results', $integrity"

finish
