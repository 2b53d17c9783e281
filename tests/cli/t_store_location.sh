# revline.db (or REVLINE_DB) naming a PostgreSQL database where no server
# answers (a socket directory with none in it): check still runs and prints
# its results (exit status 4, as for any store that will not open), saying
# in one line that they were not stored, naming the setting and what to do;
# the password is never shown; no file or directory named after the URI
# appears; history and doctor say the same. A real server: t_store_pg.
. "$(dirname "$0")/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

injection_fixture 4
check() { run check --rules "$rules" --rule injection --no-builtin --fail-on major "$@"; }

no_password() { # WHAT
	if grep -q "s3cretPW" "$TMP/out" "$TMP/err"; then fail "$1: the password is shown: $(cat "$TMP/err")"; else pass "$1: no password shown"; fi
}
nothing_created() { # WHAT
	local made
	made=$(find "$repo" "$TMP" -maxdepth 2 \( -name 'postgres*' -o -name '*=*' \) -not -path "$TMP/rules*" | head -3)
	if [ -n "$made" ]; then fail "$1: created $made"; else pass "$1: no file named after the location"; fi
}

nosock=$TMP/no-server
mkdir -p "$nosock"
export REVLINE_DB="postgresql://alice:s3cretPW@/revline?host=$nosock&port=5999&sslmode=prefer&password=s3cretPW"
check --fail-on none
expect_status 4 "REVLINE_DB=postgresql://...: the check runs; 4, its results are not stored"
check
expect_status 1 "the critical finding wins over results not stored (1 over 4)"
expect_out "Shell injection" "the finding is printed"
expect_err_line "the results are not stored: REVLINE_DB (postgresql://alice:\*\*\*@/revline?host=$nosock&port=5999&sslmode=prefer&password=\*\*\*): cannot connect: .*(the server is down or unreachable: start it, or check the host and port; or set REVLINE_DB to a file path to keep the store locally); the review goes on and is only printed" \
	"one line says the results are not stored, naming REVLINE_DB, the location without its password and what to do"
no_password "check, URI"
nothing_created "check, URI"
[ ! -e "$TMP/revline.db" ] || fail "a SQLite file was made instead"

check --format json
expect_status 1 "--format json: the check runs (its finding: 1)"
python3 - "$TMP/out" <<'PY' && pass "the JSON report holds the finding" || fail "json: $(head -c 400 "$TMP/out")"
import json, sys
fs = json.load(open(sys.argv[1]))["findings"]
assert [f["rule_id"] for f in fs] == ["injection"], fs
PY
no_password "check --format json"

# From git config, a key/value string: revline.db is named.
unset REVLINE_DB
git config revline.db "host=$nosock port=5999 dbname=revline password='s3cretPW x'"
check --fail-on none
expect_status 4 "revline.db=host=...: the check runs"
expect_err_line "not stored: revline.db (host=$nosock port=5999 dbname=revline password=\*\*\*): cannot connect: .*set revline.db to a file path" \
	"the message names revline.db"
no_password "check, key/value"
nothing_created "check, key/value"

run history
expect_status 2 "history cannot open it"
expect_err_line "revline.db (host=$nosock port=5999 dbname=revline password=\*\*\*): cannot connect" "history says why in one line"
no_password "history"

run doctor
expect_out "^database:   host=$nosock port=5999 dbname=revline password=\*\*\*: revline.db (host=.*cannot connect" "doctor shows the location without its password"
no_password "doctor"
nothing_created "history, doctor"

# A file path is still a file.
git config revline.db "$TMP/team.db"
check
expect_status 1 "a file path: the check runs"
if [ -s "$TMP/team.db" ] && [ ! -s "$TMP/err" ]; then pass "a file path: stored, nothing on stderr"; else fail "a file path: $(cat "$TMP/err")"; fi

finish
