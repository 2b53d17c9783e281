# A locked database waits or refuses before the file is touched. Another
# process (python3's sqlite3) holds the database with BEGIN EXCLUSIVE while
# `revline fix ID --apply --yes` asks for its fix:
# - held past the busy timeout (5 s): the apply refuses, saying the
#   database is locked and the file is unchanged, and the file is byte for
#   byte the old one; once the lock is gone nothing is recorded applied;
# - released within it: the apply waits and succeeds, and undo works;
# - held while `revline undo` runs: the undo refuses and the fixed file
#   stays as it is, and undo works once the lock is gone.
. "$(dirname "$0")/../cli/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; [ -z "${locker:-}" ] || kill "$locker" 2>/dev/null || true; cleanup_tmp' EXIT

mkdir -p "$TMP/data"
ln -s "$REVLINE_SOURCE_DIR/share/prompts" "$TMP/data/prompts"
export REVLINE_DATADIR=$TMP/data REVLINE_DB=$TMP/revline.db REVLINE_MODEL=fake-model
unset OPENAI_API_KEY ANTHROPIC_API_KEY REVLINE_PROVIDER OPENAI_BASE_URL

# The answer takes 1 s: the lock is taken while the fix is being asked for.
python3 - "$TMP/script.json" <<'PY'
import json, sys
e711 = '"""Return the arguments when value is missing."""\nresult = value\nif value is None:\n    result = sys.argv\nprint(result)\n'
rules = [{"match": "Problem reported by flake8: E711", "latency_ms": 1000,
          "answer": {"fixed_code": e711, "explanation": "is None"}}]
json.dump({"rules": rules}, open(sys.argv[1], "w"))
PY
fakellm_start "$TMP/script.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1

repo=$(new_repo locked)
cd "$repo"
git config revline.lint.flake8 true
printf 'import sys\n\n\ndef check(value):\n    return value\n' >app.py
git add -A && git commit -q -m base
printf 'import os\nimport sys\n\n\ndef check(value):\n    """Return the arguments when value is missing."""\n    result = value\n    if value == None:\n        result = sys.argv\n    print(result)\n    return result\n' >app.py
cp app.py "$TMP/old"
sed '8s/if value == None:/if value is None:/' "$TMP/old" >"$TMP/new"
printf 'app.py:8:14: E711 comparison to None\n' >"$TMP/flake8.txt"
run signals --import "$TMP/flake8.txt"
expect_status 0 "signals --import"
signal=$(sed -n 's/^#\([0-9]*\) .*E711.*/\1/p' <("$REVLINE" signals --all) | head -n 1)

# lock WHEN SECONDS: hold the database (BEGIN EXCLUSIVE) for SECONDS, from
# the moment a fix is being asked for (WHEN=asking) or at once (now).
lock() {
	python3 - "$REVLINE_DB" "$1" "$2" "$TMP/lockflag" <<'PY' &
import os, sqlite3, sys, time
path, when, seconds, flag = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
db = sqlite3.connect(path, isolation_level=None, timeout=30)
while when == "asking" and not db.execute("SELECT count(*) FROM signal_fixes WHERE status = 'asking'").fetchone()[0]:
    time.sleep(0.005)
db.execute("BEGIN EXCLUSIVE")
open(flag, "w").close()
time.sleep(seconds)
db.execute("ROLLBACK")
os.unlink(flag)
PY
	locker=$!
}
unlocked() {
	wait "$locker"
	locker=
}
# How long the last run took, in seconds, and whether the lock was still there when it ended.
timed() {
	local start=$EPOCHREALTIME
	run "$@"
	took=$(python3 -c "print(round($EPOCHREALTIME - $start, 1))")
	[ -e "$TMP/lockflag" ] && held=yes || held=no
}

# --- held past the busy timeout ----------------------------------------------
rm -f "$TMP/lockflag"
lock asking 30
timed fix "$signal" --apply --yes
expect_status 1 "apply with the database locked: refused"
[ "$held" = yes ] && pass "the lock was held all along (the run took ${took} s)" || fail "the lock went before the run ended"
grep -q "database is locked" "$TMP/err" && grep -q "not applied: app.py is unchanged" "$TMP/err" &&
	pass "it says the database is locked and the file is unchanged" || fail "refusal: $(cat "$TMP/err")"
cmp -s app.py "$TMP/old" && pass "the file is byte for byte the old one" || fail "the file changed: $(diff "$TMP/old" app.py)"
[ -z "$(find . -maxdepth 1 -name '.app.py.revline-*')" ] && pass "no temporary file" || fail "a temporary file is left"
kill "$locker" 2>/dev/null || true
unlocked || true
run undo
expect_status 1 "once the lock is gone, nothing to undo"
grep -q "no applied fix to undo" "$TMP/err" || fail "undo after the refusal: $(cat "$TMP/err")"
python3 - "$REVLINE_DB" <<'PY' && pass "no fix recorded applied" || fail "a fix is recorded applied"
import sqlite3, sys
assert sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM signal_fixes WHERE status = 'applied'").fetchone()[0] == 0
PY

# --- released within it -------------------------------------------------------
lock asking 2
timed fix "$signal" --apply --yes
unlocked
expect_status 0 "apply with the database locked for 2 s: waited, then applied"
cmp -s app.py "$TMP/new" && pass "the fix is written" || fail "the file: $(diff "$TMP/new" app.py)"

# --- undo while it is locked ---------------------------------------------------
lock now 30
while [ ! -e "$TMP/lockflag" ]; do sleep 0.01; done
timed undo
expect_status 2 "undo with the database locked: refused"
[ "$held" = yes ] || fail "the lock went before undo ended"
grep -q "database is locked" "$TMP/err" && pass "it says the database is locked" || fail "undo refusal: $(cat "$TMP/err")"
cmp -s app.py "$TMP/new" && pass "the fixed file is left as it is" || fail "undo changed the file while refusing"
kill "$locker" 2>/dev/null || true
unlocked || true
run undo
expect_status 0 "once the lock is gone, undo works"
cmp -s app.py "$TMP/old" && pass "and restores the old bytes" || fail "after undo: $(diff "$TMP/old" app.py)"
finish
