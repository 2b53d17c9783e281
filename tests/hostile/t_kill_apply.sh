# Apply and its record cannot disagree. `revline fix ID --apply --yes` on
# a 50,000-line file is killed with SIGKILL at instants spread over every
# phase of the apply, each timed from the instant that starts it as seen
# from outside: the preview on stdout (flushed just before the apply), the
# temporary file appearing, the rename; packed 40 us apart after the
# rename, where a record written after the file would be missing. After each kill the file is byte for byte the old one
# and no fix is recorded applied (`revline undo` has nothing to undo), or
# byte for byte the new one and `revline undo` restores the old bytes
# exactly; no temporary file is left beside it. The runs that were killed
# with the record pending (written, the apply not confirmed) are counted:
# the loop must have hit that window, or it proved nothing.
. "$(dirname "$0")/../cli/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

RUNS=${KILL_APPLY_RUNS:-40}
mkdir -p "$TMP/data"
ln -s "$REVLINE_SOURCE_DIR/share/prompts" "$TMP/data/prompts"
export REVLINE_DATADIR=$TMP/data REVLINE_DB=$TMP/revline.db REVLINE_MODEL=fake-model
unset OPENAI_API_KEY ANTHROPIC_API_KEY REVLINE_PROVIDER OPENAI_BASE_URL

# E711 at app.py:8: the window is lines 6-10; the answer is those lines fixed.
python3 - "$TMP/script.json" <<'PY'
import json, sys
e711 = '"""Return the arguments when value is missing."""\nresult = value\nif value is None:\n    result = sys.argv\nprint(result)\n'
rules = [{"match": "Problem reported by flake8: E711", "answer": {"fixed_code": e711, "explanation": "is None"}}]
json.dump({"rules": rules}, open(sys.argv[1], "w"))
PY
fakellm_start "$TMP/script.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1

repo=$(new_repo kill)
cd "$repo"
# The recheck after an apply is not what is attacked: a linter that says nothing, at once.
git config revline.lint.flake8 true
printf 'import sys\n\n\ndef check(value):\n    return value\n' >app.py
git add -A && git commit -q -m base
python3 - <<'PY'
head = ('import os\nimport sys\n\n\ndef check(value):\n    """Return the arguments when value is missing."""\n'
        '    result = value\n    if value == None:\n        result = sys.argv\n    print(result)\n    return result\n')
with open("app.py", "w") as f:
    f.write(head + "".join("VALUE_%07d = %d\n" % (i, i) for i in range(50000)))
PY
cp app.py "$TMP/old"
sed '8s/if value == None:/if value is None:/' "$TMP/old" >"$TMP/new"
printf 'app.py:8:14: E711 comparison to None (hint: use '"'"'is None'"'"')\n' >"$TMP/flake8.txt"
run signals --import "$TMP/flake8.txt"
expect_status 0 "signals --import"
signal=$(sed -n 's/^#\([0-9]*\) .*E711.*/\1/p' <("$REVLINE" signals --all) | head -n 1)
[ -n "$signal" ] || fail "no E711 signal"

# python3 itself, not a version manager's shim: it starts once a run.
PYTHON=$(python3 -c 'import sys; print(sys.executable)')

# killrun ANCHOR DELAY_US: run the apply and SIGKILL it DELAY_US after an
# instant of it, as seen from outside (busy-polling, a few microseconds):
#   preview  the preview reaches stdout (flushed just before the apply);
#   tmp      the temporary file appears beside app.py (the write starts);
#   rename   app.py is another inode (the rename happened).
# DELAY_US -1: never kill, and say when each instant came. Prints how long
# it ran after the preview (us), killed or ran, the exit status, the
# instants of tmp and rename after the preview (us, -1: not seen), and the
# fixes recorded applied before the run and pending (applied, not
# confirmed) after it, read-only so that nothing is settled.
killrun() {
	"$PYTHON" - "$REVLINE" "$signal" "$1" "$2" "$REVLINE_DB" <<'PY'
import os, signal, sqlite3, subprocess, sys, time
revline, sid, anchor, delay, dbpath = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]

def count(where):
    db = sqlite3.connect("file:" + dbpath + "?mode=ro", uri=True)
    n = db.execute("SELECT count(*) FROM signal_fixes WHERE status = 'applied'" + where).fetchone()[0]
    db.close()
    return n

def tmp_seen():
    return any(n.startswith(".app.py.revline-") for n in os.listdir("."))

applied = count("")
ino = os.stat("app.py").st_ino
p = subprocess.Popen([revline, "fix", sid, "--apply", "--yes"], stdout=subprocess.PIPE,
                     stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
first = os.read(p.stdout.fileno(), 65536)
start = time.perf_counter()
at = {"tmp": -1, "rename": -1}
killed = False
# Watch the instants in order until the anchor (or, when calibrating, the end).
for what in ("tmp", "rename"):
    if anchor == "preview" and delay >= 0:
        break
    seen = tmp_seen if what == "tmp" else lambda: os.stat("app.py").st_ino != ino
    while p.poll() is None and not seen():
        pass
    if p.poll() is None:
        at[what] = int((time.perf_counter() - start) * 1e6)
    if what == anchor and delay >= 0:
        break
if delay >= 0:
    end = time.perf_counter() + delay / 1e6
    while time.perf_counter() < end and p.poll() is None:
        pass
    killed = p.poll() is None
    if killed:
        os.kill(p.pid, signal.SIGKILL)
while os.read(p.stdout.fileno(), 65536):
    pass
p.wait()
print(int((time.perf_counter() - start) * 1e6), "killed" if killed else "ran",
      p.returncode if first else "nopreview", at["tmp"], at["rename"], applied,
      count(" AND applied_at IS NULL"))
PY
}

# Calibration: an apply that is not killed, then undone. The watcher
# busy-polls; on a machine busy with other tests it can miss the short
# life of the temporary file, so calibration is tried up to five times.
for attempt in 1 2 3 4 5; do
	wrote=no undone=no
	read -r span _ code tmp_at renamed _ _ < <(killrun preview -1)
	[ "$code" = 0 ] || break
	cmp -s app.py "$TMP/new" && wrote=yes || break
	"$REVLINE" undo >/dev/null 2>&1 && cmp -s app.py "$TMP/old" && undone=yes || break
	[ "$tmp_at" -gt 0 ] && [ "$renamed" -gt "$tmp_at" ] && break
done
[ "$code" = 0 ] && pass "an apply not killed succeeds (after the preview: temporary file at ${tmp_at} us, rename at ${renamed} us, end at ${span} us; calibration run $attempt)" ||
	fail "calibration run: exit $code"
[ "$wrote" = yes ] && pass "and writes the fix" || fail "calibration: the file is not the fixed one"
[ "$undone" = yes ] && pass "and undo takes it back" || fail "calibration undo: the file is not the old one"
[ "$tmp_at" -gt 0 ] && [ "$renamed" -gt "$tmp_at" ] || fail "calibration: the temporary file and the rename were not seen in 5 runs"

# Every phase of the apply, each from the instant that starts it: a
# quarter of the runs from the preview to the temporary file (reading,
# checking, recording), a quarter over the write (written, synced), half
# after the rename: 40 us apart first (where the record must already be
# complete enough to undo), then spread to the end.
plan() { # RUN -> ANCHOR DELAY_US
	local i=$1 q=$((RUNS / 4)) j
	if [ "$i" -lt "$q" ]; then
		echo preview $((tmp_at * i / (q - 1)))
	elif [ "$i" -lt $((2 * q)) ]; then
		echo tmp $(((renamed - tmp_at) * (i - q) / (q - 1)))
	elif [ "$i" -lt $((3 * q)) ]; then
		echo rename $((40 * (i - 2 * q)))
	else
		j=$((i - 3 * q))
		echo rename $((40 * q + (span - renamed - 40 * q) * j / (RUNS - 3 * q - 1)))
	fi
}

old_files=0 new_files=0 pending_old=0 pending_new=0 finished=0
for ((i = 0; i < RUNS; i++)); do
	read -r anchor delay < <(plan "$i")
	read -r _ how _ _ _ applied left < <(killrun "$anchor" "$delay")
	[ "$how" = killed ] || finished=$((finished + 1))
	# What the undo of the run before left: nothing recorded applied.
	[ "$applied" = 0 ] || fail "run $i: $applied fix(es) still recorded applied after the last undo"
	leftovers=$(find . -maxdepth 1 -name '.app.py.revline-*' | wc -l)
	if cmp -s app.py "$TMP/old"; then
		old_files=$((old_files + 1))
		[ "$left" = 0 ] || pending_old=$((pending_old + 1))
		run undo
		if [ "$status" != 1 ] || ! grep -q "no applied fix to undo" "$TMP/err"; then
			fail "run $i (kill ${delay} us after the $anchor): the old file, but undo says: $status $(cat "$TMP/err")"
		fi
		cmp -s app.py "$TMP/old" || fail "run $i: undo changed the old file"
	elif cmp -s app.py "$TMP/new"; then
		new_files=$((new_files + 1))
		[ "$left" = 0 ] || pending_new=$((pending_new + 1))
		run undo
		[ "$status" = 0 ] || fail "run $i (kill ${delay} us after the $anchor): the fix is on disk, but undo says: $status $(cat "$TMP/err")"
		cmp -s app.py "$TMP/old" || { fail "run $i: after undo the file is not the old one"; cp "$TMP/old" app.py; }
	else
		fail "run $i (kill ${delay} us after the $anchor): the file is neither the old one nor the fixed one"
		cp "$TMP/old" app.py
	fi
	[ -z "$(find . -maxdepth 1 -name '.app.py.revline-*')" ] ||
		fail "run $i: a temporary file is left beside app.py ($leftovers before undo)"
done
pass "$RUNS kills: $old_files left the old file ($pending_old with the record pending), $new_files the fixed one ($pending_new pending), $finished ran to the end"
[ $((pending_old + pending_new)) -gt 0 ] && pass "kills landed while the record was pending" ||
	fail "no kill landed while the record was pending: the loop did not attack the apply"
[ "$old_files" -gt 0 ] && [ "$new_files" -gt 0 ] && pass "kills landed before and after the write" ||
	fail "the kills did not span the apply (old $old_files, new $new_files)"

"$PYTHON" - "$REVLINE_DB" <<'PY' && pass "no fix left applied; interrupted applies failed, saying why" || fail "the records after the loop"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
assert db.execute("SELECT count(*) FROM signal_fixes WHERE status = 'applied'").fetchone()[0] == 0
for status, error in db.execute("SELECT status, error FROM signal_fixes WHERE status = 'failed'"):
    assert error.startswith("interrupted before the file was written"), error
PY
finish
