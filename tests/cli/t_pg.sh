# The PostgreSQL test harness from a shell test (tests/testlib/pg.sh): a
# real server in a temporary directory, reached through the PG* variables,
# PG_URL and PG_CONNINFO with psql, on its socket only; a role with a
# password refused with the wrong one, saying so; the EXIT trap set before
# pg_start still runs, after pg_stop; and a test killed without its traps
# leaves no server behind. Skipped (77) without the server's binaries.
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/testlib/pg.sh
. "$REVLINE_SOURCE_DIR/tests/testlib/pg.sh"
trap 'cleanup_tmp; echo "the earlier trap ran"' EXIT

pg_start
dir=$PG_DIR
[ "$(pg_psql -c 'select 1')" = 1 ] && pass "select 1 through PGHOST, PGPORT, PGDATABASE, PGUSER" || fail "select 1"
[ "$(pg_psql -d "$PG_URL" -c 'select current_database()')" = revline_test ] && pass "PG_URL" || fail "PG_URL: $PG_URL"
[ "$(pg_psql -d "$PG_CONNINFO" -c 'select 2')" = 2 ] && pass "PG_CONNINFO" || fail "PG_CONNINFO: $PG_CONNINFO"
[ -z "$(pg_psql -c 'show listen_addresses')" ] && [ -S "$PGHOST/.s.PGSQL.$PGPORT" ] &&
	pass "only the socket in its own directory" || fail "listen_addresses: $(pg_psql -c 'show listen_addresses')"
if [ "$(id -u)" -eq 0 ]; then
	[ "$(stat -c %u "$dir/data")" -ne 0 ] && pass "as root, the server runs as another user" || fail "the data belong to root"
fi

pg_add_password_user alice 's3cret pw'
set +e
PGPASSWORD=wrong pg_psql -U alice -c 'select 1' >"$TMP/out" 2>"$TMP/err"
status=$?
set -e
[ "$status" -ne 0 ] && grep -q 'password authentication failed for user "alice"' "$TMP/err" &&
	pass "a wrong password is refused, saying so" || fail "wrong password: $status $(cat "$TMP/err")"
[ "$(PGPASSWORD='s3cret pw' pg_psql -U alice -c 'select current_user')" = alice ] &&
	pass "the right password is let in" || fail "right password"

pg_stop
[ ! -e "$dir" ] && pass "pg_stop removes the directory" || fail "$dir is still there"
set +e
pg_psql -h "$dir" -c 'select 1' >/dev/null 2>&1
status=$?
set -e
[ "$status" -ne 0 ] && pass "nothing answers after pg_stop" || fail "a server still answers"

# A test killed without its traps: the watcher stops its server.
bash -c '. "$REVLINE_SOURCE_DIR/tests/testlib/pg.sh"; pg_start >/dev/null; echo "$PG_DIR"; kill -9 $$' >"$TMP/killed" 2>/dev/null || true
killed=$(cat "$TMP/killed")
for _ in $(seq 1 100); do [ -e "$killed" ] || break; sleep 0.1; done
[ -n "$killed" ] && [ ! -e "$killed" ] && pass "a killed test's server is stopped and removed" || fail "left behind: $killed"

# Its EXIT trap runs pg_stop, then the one set before pg_start.
bash -c 'trap "echo first" EXIT; . "$REVLINE_SOURCE_DIR/tests/testlib/pg.sh"; pg_start >/dev/null; echo "$PG_DIR"' >"$TMP/trapped"
[ "$(sed -n 2p "$TMP/trapped")" = first ] && [ ! -e "$(head -n 1 "$TMP/trapped")" ] &&
	pass "at exit: pg_stop, then the earlier trap" || fail "exit trap: $(cat "$TMP/trapped")"

# Without the server's binaries: skipped, saying why.
set +e
PG_BINDIR=/nonexistent bash -c '. "$REVLINE_SOURCE_DIR/tests/testlib/pg.sh"; pg_start; echo not reached' >"$TMP/out" 2>&1
status=$?
set -e
[ "$status" -eq 77 ] && grep -q '^SKIP: no PostgreSQL server binaries' "$TMP/out" && ! grep -q 'not reached' "$TMP/out" &&
	pass "no binaries: SKIP and 77" || fail "no binaries: $status $(cat "$TMP/out")"

finish
