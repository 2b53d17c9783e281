# shellcheck shell=bash
# A throw-away PostgreSQL server for a test: initdb into a new temporary
# directory, listening only on a Unix socket in that directory (no TCP),
# started with pg_ctl -w, one database made, stopped and removed at the end.
# The binaries are $PG_BINDIR's when it is set, else Debian's
# (/usr/lib/postgresql/*/bin, the newest), else initdb's from PATH; without
# them the test is skipped (exit 77). As root, the server runs as `nobody`
# (initdb and postgres refuse root; $PG_RUN_AS names another user).
#
# From a shell test, source it and call pg_start:
#
#   . "$REVLINE_SOURCE_DIR/tests/testlib/pg.sh"
#   pg_start                  # without server binaries: prints "SKIP: ..." and exits 77
#   psql -c 'select 1'        # PGHOST PGPORT PGDATABASE PGUSER are exported
#   pg_psql -c 'select 1'     # psql -X -q -t -A -v ON_ERROR_STOP=1, bounded by a timeout
#   pg_add_password_user NAME PASSWORD   # a role that must give its password
#   pg_stop                   # also run at exit: pg_start puts it before the EXIT trap set so far;
#                             # it unsets what pg_start exported
#
# pg_start also exports PG_DIR (the directory: data/, the socket, log),
# PG_URL (postgresql:///DB?host=DIR&port=N&user=U), PG_CONNINFO
# (host=DIR port=N dbname=DB user=U), PGPASSFILE and PGSYSCONFDIR (into
# PG_DIR, so that no ~/.pgpass or service file of the machine counts),
# PGCONNECT_TIMEOUT=10, and unsets the other PG* variables that would
# change where libpq connects. A watcher stops the server when the test's
# shell is gone, even killed.
#
# Run as a program (what tests/testlib/pg.c does for the cmocka tests):
#
#   bash pg.sh available                       # exit 0, or 77 printing why not
#   bash pg.sh start OWNER_PID                 # prints NAME=VALUE lines; stopped when OWNER_PID ends
#   bash pg.sh add-password-user NAME PASSWORD # with the PG* variables of start in the environment
#   bash pg.sh sql STATEMENT...                # each in its own transaction, as the superuser, with
#                                              # the PG* variables of start in the environment
#   bash pg.sh stop DIR

PG_TIMEOUT=${PG_TIMEOUT:-60}    # seconds for initdb, and for the server to start or stop
PG_SKIP=77                      # CTest's SKIP_RETURN_CODE for these tests
PG_DATABASE=revline_test
PG_SUPERUSER=revline
PG_PASSWORD_GROUP=revline_password

pg_bindir_ok() {
	[ -x "$1/initdb" ] && [ -x "$1/pg_ctl" ] && [ -x "$1/postgres" ]
}

# The directory of initdb, pg_ctl and postgres, or nothing. $PG_BINDIR, when set, is the only one looked at.
pg_bindir() {
	local dir
	if [ -n "${PG_BINDIR:-}" ]; then
		pg_bindir_ok "$PG_BINDIR" && echo "$PG_BINDIR"
		return
	fi
	for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r) \
		"$(dirname "$(command -v initdb 2>/dev/null || echo /nonexistent/initdb)")"; do
		pg_bindir_ok "$dir" && { echo "$dir"; return 0; }
	done
	return 1
}

# Why no server can be started here (nothing when one can).
pg_why_not() {
	local user=${PG_RUN_AS:-nobody}
	if ! pg_bindir >/dev/null; then
		echo "no PostgreSQL server binaries (initdb, pg_ctl, postgres; Debian: apt-get install postgresql)"
	elif ! command -v psql >/dev/null && [ ! -x "$(pg_bindir)/psql" ]; then
		echo "no psql (Debian: apt-get install postgresql-client)"
	elif [ "$(id -u)" -eq 0 ] && ! id -u "$user" >/dev/null 2>&1; then
		echo "running as root and there is no user '$user' to run the server as (set PG_RUN_AS)"
	fi
}

# The command prefix that runs the server's programs: as PG_RUN_AS (nobody) when root.
pg_runas() {
	local user=${PG_RUN_AS:-nobody}
	PG_RUNAS=()
	[ "$(id -u)" -eq 0 ] || return 0
	if command -v setpriv >/dev/null; then
		PG_RUNAS=(setpriv "--reuid=$(id -u "$user")" "--regid=$(id -g "$user")" --clear-groups --)
	else
		PG_RUNAS=(runuser -u "$user" --)
	fi
}

pg_psql_bin() {
	if [ -x "$(pg_bindir)/psql" ]; then echo "$(pg_bindir)/psql"; else command -v psql; fi
}

pg_psql() {
	timeout "$PG_TIMEOUT" "$(pg_psql_bin)" -X -q -t -A -v ON_ERROR_STOP=1 "$@"
}

# A free TCP port number: the socket's name (.s.PGSQL.PORT), and the shared memory key.
pg_free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# A new directory the server's user can reach, with a short enough socket path.
pg_make_dir() {
	local base=${TMPDIR:-/tmp} dir
	if [ "${#base}" -gt 60 ] || { [ ${#PG_RUNAS[@]} -gt 0 ] && ! "${PG_RUNAS[@]}" test -x "$base"; }; then
		base=/tmp
	fi
	dir=$(mktemp -d "$base/revline-pg-XXXXXX") || return 1
	chmod 755 "$dir"
	[ ${#PG_RUNAS[@]} -eq 0 ] || chown "$(id -u "${PG_RUN_AS:-nobody}"):$(id -g "${PG_RUN_AS:-nobody}")" "$dir"
	echo "$dir"
}

pg_configure() {
	local dir=$1 port=$2
	cat >>"$dir/data/postgresql.conf" <<EOF
# revline's tests: only this socket, no durability, small.
listen_addresses = ''
unix_socket_directories = '$dir'
unix_socket_permissions = 0777
port = $port
fsync = off
synchronous_commit = off
full_page_writes = off
shared_buffers = 32MB
max_connections = 60
EOF
	# Members of PG_PASSWORD_GROUP give a password; everyone else is trusted.
	printf 'local all +%s scram-sha-256\nlocal all all trust\n' "$PG_PASSWORD_GROUP" >"$dir/data/pg_hba.conf"
}

# pg_server_start DIR: initdb, configure, start, make the database; prints what to export.
pg_server_start() {
	local dir=$1 bindir port
	bindir=$(pg_bindir)
	port=$(pg_free_port) || return 1
	if ! (cd "$dir" && timeout "$PG_TIMEOUT" "${PG_RUNAS[@]}" "$bindir/initdb" -D "$dir/data" \
		-U "$PG_SUPERUSER" --auth=trust -E UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1); then
		echo "pg.sh: initdb failed: $(tail -n 5 "$dir/initdb.log")" >&2
		return 1
	fi
	pg_configure "$dir" "$port"
	if ! (cd "$dir" && timeout $((PG_TIMEOUT + 10)) "${PG_RUNAS[@]}" "$bindir/pg_ctl" -D "$dir/data" \
		-l "$dir/log" -w -t "$PG_TIMEOUT" start </dev/null >"$dir/pg_ctl.log" 2>&1); then
		echo "pg.sh: the server did not start: $(tail -n 5 "$dir/pg_ctl.log" "$dir/log" 2>/dev/null)" >&2
		return 1
	fi
	if ! PGCONNECT_TIMEOUT=10 pg_psql -h "$dir" -p "$port" -U "$PG_SUPERUSER" -d postgres \
		-c "CREATE DATABASE $PG_DATABASE" -c "CREATE ROLE $PG_PASSWORD_GROUP NOLOGIN" >"$dir/psql.log" 2>&1; then
		echo "pg.sh: could not make the database: $(cat "$dir/psql.log")" >&2
		return 1
	fi
	printf 'PGHOST=%s\nPGPORT=%s\nPGDATABASE=%s\nPGUSER=%s\n' "$dir" "$port" "$PG_DATABASE" "$PG_SUPERUSER"
	printf 'PGPASSFILE=%s/no-pgpass\nPGSYSCONFDIR=%s\nPGCONNECT_TIMEOUT=10\nPG_DIR=%s\n' "$dir" "$dir" "$dir"
	printf 'PG_URL=postgresql:///%s?host=%s&port=%s&user=%s\n' "$PG_DATABASE" "$dir" "$port" "$PG_SUPERUSER"
	printf 'PG_CONNINFO=host=%s port=%s dbname=%s user=%s\n' "$dir" "$port" "$PG_DATABASE" "$PG_SUPERUSER"
}

# pg_server_stop DIR: stop the server (immediately: it is thrown away) and remove DIR.
pg_server_stop() {
	local dir=$1 bindir pid
	[ -n "$dir" ] && [ -d "$dir" ] || return 0
	case "$dir" in */revline-pg-*) ;; *) return 0 ;; esac
	pg_runas
	bindir=$(pg_bindir)
	if [ -f "$dir/data/postmaster.pid" ]; then
		(cd "$dir" && timeout $((PG_TIMEOUT + 10)) "${PG_RUNAS[@]}" "$bindir/pg_ctl" -D "$dir/data" \
			-m immediate -w -t "$PG_TIMEOUT" stop) >/dev/null 2>&1 ||
			{ pid=$(head -n 1 "$dir/data/postmaster.pid" 2>/dev/null) && [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; }
	fi
	rm -rf "$dir"
}

# Stop the server when OWNER is gone (or the directory is): for a test that dies without its traps.
# Forked twice, the watcher is init's child, out of the test's process tree:
# a runner that kills the tree on a timeout (CTest) does not kill it with
# the test (the server, a daemon, would outlive both), and a test's bare
# `wait` does not wait for it.
pg_watch() {
	local owner=$1 dir=$2
	( (
		exec </dev/null >/dev/null 2>&1
		trap '' HUP INT
		while kill -0 "$owner" 2>/dev/null && [ -d "$dir" ]; do sleep 1; done
		pg_server_stop "$dir"
	) & )
}

# pg_start: see the top of this file.
pg_start() {
	local why dir line prev
	why=$(pg_why_not)
	if [ -n "$why" ]; then
		echo "SKIP: $why"
		exit "$PG_SKIP"
	fi
	pg_runas
	dir=$(pg_make_dir) || { echo "pg.sh: no temporary directory" >&2; return 1; }
	PG_DIR=$dir
	prev=$(trap -p EXIT)
	prev=${prev#trap -- }
	prev=${prev% EXIT}
	eval "prev=${prev:-''}"
	# shellcheck disable=SC2064 # the trap is made now, with this test's commands
	trap "pg_stop; $prev" EXIT
	pg_watch $$ "$dir"
	pg_unset_env
	while IFS= read -r line; do
		export "${line%%=*}=${line#*=}"
	done < <(pg_server_start "$dir" || echo "PG_FAILED=1")
	if [ -n "${PG_FAILED:-}" ]; then
		unset PG_FAILED
		pg_stop
		return 1
	fi
}

pg_stop() {
	[ -n "${PG_DIR:-}" ] || return 0
	pg_server_stop "$PG_DIR"
	unset PG_DIR PG_URL PG_CONNINFO PGHOST PGPORT PGDATABASE PGUSER PGPASSFILE PGSYSCONFDIR PGCONNECT_TIMEOUT
}

# The variables that would send libpq elsewhere, or change how it connects.
pg_unset_env() {
	unset PGHOSTADDR PGSERVICE PGSERVICEFILE PGPASSWORD PGOPTIONS PGSSLMODE PGREQUIRESSL \
		PGSSLCERT PGSSLKEY PGSSLROOTCERT PGTARGETSESSIONATTRS PGREQUIREAUTH PGGSSENCMODE PGAPPNAME
}

# pg_add_password_user NAME PASSWORD: a role that logs in only with its password (scram-sha-256).
pg_add_password_user() {
	local name=$1 password=$2
	pg_psql -U "$PG_SUPERUSER" -d "$PG_DATABASE" -v name="$name" -v password="$password" \
		-v group="$PG_PASSWORD_GROUP" <<'EOF'
CREATE ROLE :"name" LOGIN PASSWORD :'password' IN ROLE :"group";
GRANT ALL ON DATABASE revline_test TO :"name";
GRANT ALL ON SCHEMA public TO :"name";
EOF
}

# Run as a program.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -u
	case "${1:-}" in
	available)
		why=$(pg_why_not)
		[ -z "$why" ] || { echo "$why"; exit "$PG_SKIP"; }
		;;
	start)
		[ -n "${2:-}" ] || { echo "usage: pg.sh start OWNER_PID" >&2; exit 2; }
		why=$(pg_why_not)
		[ -z "$why" ] || { echo "$why" >&2; exit "$PG_SKIP"; }
		pg_runas
		dir=$(pg_make_dir) || exit 1
		pg_watch "$2" "$dir"
		pg_unset_env
		pg_server_start "$dir" || { pg_server_stop "$dir"; exit 1; }
		;;
	add-password-user)
		pg_add_password_user "$2" "$3" >/dev/null
		;;
	sql)
		shift
		for statement in "$@"; do pg_psql -c "$statement" || exit 1; done
		;;
	stop)
		pg_server_stop "${2:-}"
		;;
	*)
		echo "usage: pg.sh available | start OWNER_PID | add-password-user NAME PASSWORD | sql STATEMENT... | stop DIR" >&2
		exit 2
		;;
	esac
fi
