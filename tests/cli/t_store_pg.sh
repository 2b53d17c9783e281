# revline check, history, feedback, fixes and stats with the store on a
# real PostgreSQL server (REVLINE_DB=postgresql://...; the test starts its
# own, tests/testlib/pg.sh, and is skipped only without the server's
# binaries). Then what issue 17 wants of a connection that fails: the
# server stopped, a wrong password, TLS refused, a schema from a newer
# revline: each is one line naming the problem and the setting, the check
# still prints its results (exit status 4), and no password is shown.
. "$(dirname "$0")/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
. "$REVLINE_SOURCE_DIR/tests/testlib/pg.sh"
tls_pid=
trap 'fakellm_stop; [ -z "$tls_pid" ] || kill "$tls_pid" 2>/dev/null; cleanup_tmp' EXIT
pg_start

injection_fixture 5
check() { run check --rules "$rules" --rule injection --no-builtin --fail-on major "$@"; }
sql() { pg_psql -c "$1"; }
findings() { # the JSON report's findings: "id line suppressed" per line
	python3 -c 'import json, sys
for f in json.load(open(sys.argv[1]))["findings"]:
    print(f["id"], f["line"], str(f["suppressed"]).lower())' "$TMP/out"
}
no_password() { # WHAT PASSWORD
	if grep -q -- "$2" "$TMP/out" "$TMP/err"; then fail "$1: the password is shown: $(cat "$TMP/err")"; else pass "$1: no password shown"; fi
}
hold_lock() { # DATABASE SECONDS [STATEMENTS]: another client holds revline's lock, then runs STATEMENTS ($holder)
	pg_psql -d "$1" -c "BEGIN; SELECT pg_advisory_xact_lock(7310598736549989); SELECT pg_sleep($2); ${3:-} COMMIT" \
		>/dev/null &
	holder=$!
	advisory_locks "$1" granted 300 || fail "the other client never got the lock"
}
advisory_locks() { # DATABASE granted|waiting TRIES: one such lock of revline's is there within TRIES tenths of a second
	for _ in $(seq "$3"); do
		[ "$(pg_psql -d "$1" -c "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND \
			objid = 7310598736549989 % 4294967296 AND $([ "$2" = granted ] || echo NOT) granted")" = 1 ] && return
		sleep 0.1
	done
	return 1
}
url=$PG_URL
export REVLINE_DB=$url

# --- the store on PostgreSQL ----------------------------------------------------
check --format json
expect_status 1 "check with REVLINE_DB=postgresql://...: stored, 1 for the finding"
[ ! -s "$TMP/err" ] && pass "nothing on stderr" || fail "stderr: $(cat "$TMP/err")"
findings >"$TMP/findings"
first=$(awk 'NR == 1 { print $1 }' "$TMP/findings")
[ -n "$first" ] && pass "the finding has an id ($first)" || fail "no finding: $(head -c 400 "$TMP/out")"
[ "$(sql "SELECT count(*) || ' ' || min(status) FROM checks")" = "1 complete" ] &&
	pass "the check is a row on the server" || fail "checks: $(sql "SELECT id, status FROM checks")"
[ "$(sql "SELECT version FROM revline_schema_version")" = 11 ] && pass "schema version 11 on the server" ||
	fail "version: $(sql "SELECT * FROM revline_schema_version")"
[ "$(sql "SELECT title FROM findings WHERE id = $first")" = "Shell injection" ] &&
	pass "the finding is a row" || fail "findings: $(sql "SELECT id, title FROM findings")"

run history
expect_status 0 "history"
expect_out "complete" "history lists the check"
run doctor
expect_out "^database:   postgresql:///revline_test?host=.*(schema 11)$" "doctor names the database and its schema"
expect_out "^author:     t@example.com (git's user.email" "and who the records say wrote them"

# A fix, as fix detection stores it (of the violation not yet marked); fixes and stats read it back.
sql "INSERT INTO violation_fixes (violation_check_id, fix_check_id, violation_threadline_id, threadline_id,
	threadline_file_path, file_references, fix_type, explanation, time_between_checks_seconds,
	detection_method, created_at) SELECT t.check_id, (SELECT max(id) FROM checks), t.id, 'injection',
	'rules/injection.md', '[\"app.py\"]', 'CODE_CHANGE', 'shell=True is gone', 120, 'deterministic',
	1700000000000 FROM check_threadlines t ORDER BY t.id LIMIT 1" >/dev/null
run fixes
expect_status 0 "fixes"
expect_out "injection  CODE_CHANGE  2 min  deterministic" "fixes lists the fix"
expect_out "explanation: shell=True is gone" "with its explanation"
run stats
expect_status 0 "stats"
expect_out "injection" "stats counts the rule"
# Feedback: marked false positive, hidden from the next check.
run feedback "$first" --false-positive --note "cmd is a constant"
expect_status 0 "feedback --false-positive"
[ "$(sql "SELECT kind || '|' || note FROM feedback")" = "false_positive|cmd is a constant" ] &&
	pass "the feedback row" || fail "feedback: $(sql "SELECT * FROM feedback")"
check --format json --fail-on none
findings >"$TMP/findings2"
[ ! -s "$TMP/findings2" ] && pass "the next check hides the false positive" || fail "findings: $(cat "$TMP/findings2")"
check --format json --fail-on none --show-suppressed
grep -q " true$" <(findings) && pass "--show-suppressed shows it" || fail "show-suppressed: $(head -c 400 "$TMP/out")"
# Another client holds revline's lock: each of the check's transactions starts
# with its first statement, in its round trip, and that statement runs only
# once the lock is the check's: the check waits (the server shows it waiting),
# then stores everything.
hold_lock revline_test 4
(check --format json --fail-on none --show-suppressed; echo "$status" >"$TMP/locked.rc") &
checking=$!
advisory_locks revline_test waiting 40 && pass "the check waits for the lock" ||
	fail "no client waited for the lock while it was held"
wait "$checking" "$holder"
[ "$(cat "$TMP/locked.rc")" = 0 ] && pass "a check while another client holds the lock" ||
	fail "the check: $(cat "$TMP/locked.rc") $(head -c 300 "$TMP/err")"
[ "$(sql "SELECT status || ' ' || finding_count FROM checks ORDER BY id DESC LIMIT 1")" = "complete 1" ] &&
	pass "then stored whole" || fail "the check: $(sql "SELECT id, status, finding_count FROM checks")"

[ "$(sql "SELECT count(*) FROM checks")" = 4 ] && pass "four checks stored" || fail "checks: $(sql "SELECT count(*) FROM checks")"

# --- connections that fail: one line each, the results printed, exit 4 ----------
not_stored() { # WHAT PATTERN
	expect_status 1 "$1: the check runs; its critical finding wins over results not stored (1 over 4)"
	expect_out "Shell injection" "$1: the finding is printed"
	expect_err_line "the results are not stored: .*$2.*; the review goes on and is only printed" "$1: one line says why"
}

# A schema from a newer revline.
sql "UPDATE revline_schema_version SET version = 99" >/dev/null
check --show-suppressed
not_stored "a newer schema" "made by a newer revline (schema version 99; this one knows up to 11); upgrade revline or choose another database with REVLINE_DB"
[ "$(sql "SELECT count(*) FROM checks")" = 4 ] && pass "a newer schema: nothing written" || fail "a newer schema: a check was written"
sql "UPDATE revline_schema_version SET version = 8" >/dev/null

# A wrong password (a role that must give one; libpq gets it from the URI).
pg_add_password_user alice s3cretPW >/dev/null
REVLINE_DB="postgresql://alice:wrongPW@/revline_test?host=$PGHOST&port=$PGPORT" check --show-suppressed
not_stored "a wrong password" "REVLINE_DB (postgresql://alice:\*\*\*@/revline_test?host=.*): cannot connect: password authentication failed for user \"alice\" (the password was refused"
no_password "a wrong password" wrongPW
REVLINE_DB="host=$PGHOST port=$PGPORT dbname=revline_test user=alice password=wrongPW" check --show-suppressed
not_stored "a wrong password, key/value" "password=\*\*\*): cannot connect: .*(the password was refused"
no_password "a wrong password, key/value" wrongPW

# TLS refused: a server that answers no to TLS, with sslmode=require.
python3 -c '
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True)
while True:
    c, _ = s.accept(); c.recv(8); c.sendall(b"N"); c.close()
' >"$TMP/tls_port" &
tls_pid=$!
for _ in $(seq 50); do [ -s "$TMP/tls_port" ] && break; sleep 0.1; done
REVLINE_DB="postgresql://bob:tlsPW@127.0.0.1:$(cat "$TMP/tls_port")/revline?sslmode=require" check --show-suppressed
not_stored "TLS refused" "REVLINE_DB (postgresql://bob:\*\*\*@127.0.0.1:[0-9]*/revline?sslmode=require): cannot connect: server does not support SSL, but SSL was required (TLS was refused"
no_password "TLS refused" tlsPW

# Clients that start while another holds revline's lock to make the schema:
# they look for it, find none and wait; when the lock comes to them they must
# see the schema now there (PostgreSQL keeps the session's earlier lookup of
# the name, to_regclass, for the transaction they began while waiting) and
# not make it again. The schema is made beforehand and hidden under another
# name, so that what the holder does is one small change, as it is when the
# server is quiet (a large one reaches the waiters by another path).
sql "CREATE DATABASE race"
race_url=${url/revline_test/race}
REVLINE_DB=$race_url run history
expect_status 0 "a new database"
pg_psql -d race -c "ALTER TABLE revline_schema_version RENAME TO schema_hidden"
hold_lock race 1.5 "ALTER TABLE schema_hidden RENAME TO revline_schema_version;"
for i in 1 2 3; do
	(REVLINE_DB=$race_url "$REVLINE" history >"$TMP/race.$i.out" 2>"$TMP/race.$i.err"; echo $? >"$TMP/race.$i.rc") &
	races[i]=$!
done
wait "${races[@]}" "$holder"
[ "$(cat "$TMP"/race.[123].rc | tr -d '\n')" = 000 ] &&
	pass "clients that waited for the lock see the schema made meanwhile" ||
	fail "a client failed: $(cat "$TMP"/race.[123].err)"
[ "$(pg_psql -d race -c "SELECT version FROM revline_schema_version")" = 11 ] &&
	pass "the schema is there once, at version 11" || fail "version: $(pg_psql -d race -c "SELECT * FROM revline_schema_version")"

# The server stopped.
pg_stop
export REVLINE_DB=$url
check --show-suppressed
not_stored "the server stopped" "REVLINE_DB (postgresql:///revline_test?host=.*): cannot connect: .*(the server is down or unreachable: start it, or check the host and port; or set REVLINE_DB to a file path to keep the store locally)"
run history
expect_status 2 "history with the server stopped"
expect_err_line "cannot connect" "history says why in one line"

finish
