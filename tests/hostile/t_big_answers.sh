# Work is linear in the answer. A server answers a rule with 70 KB of
# hostile JSON: 2,000 findings; a reasoning that is 7,000 path:line
# references; 5,000 file references; one 70 KB reasoning; 70 KB of '['.
# Each check must cost revline well under a second of its own CPU time,
# at most 32 MB of memory more than a check with a one-line answer, and
# grow the database by at most 8 times the answer's size (the raw answer
# is cached once, the findings are capped at 200 with 512-byte issues);
# the findings over the cap are counted in the rule's stored reasoning,
# not dropped silently. Before the bounds, the reasoning of references
# cost 8.6 s, 440 MB of memory and 418 MB of database. Under AddressSanitizer
# (which keeps freed memory in quarantine and runs several times slower) the
# bounds are 2 s and 128 MB.
. "$(dirname "$0")/../cli/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

mkdir -p "$TMP/data" "$TMP/rules"
fake_llm_env
kinds="small findings references filerefs reasoning brackets"
for id in $kinds; do
	printf -- '---\nid: %s\nseverity: major\n---\n# The %s rule\n\nCheck the change.\n' "$id" "$id" >"$TMP/rules/$id.md"
done

repo=$(new_repo work)
cd "$repo"
printf 'import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd)\n' >app.py
git add -A && git commit -q -m base
printf 'import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd, shell=True)\n' >app.py

# The answers, about 70 KB each, and the script that serves them.
python3 - "$TMP" <<'EOF'
import json, sys
tmp, size = sys.argv[1], 70000
code = "return subprocess.call(cmd, shell=True)"

def fill(make):
    items = []
    while len(json.dumps(items)) < size:
        items.append(make(len(items)))
    return items

answers = {
    "small": {"status": "attention", "reasoning": "one",
              "findings": [{"file": "app.py", "line": 5, "title": "T0",
                            "verification": {"code_examined": code}}]},
    "findings": {"status": "attention", "reasoning": "many", "findings": fill(
        lambda i: {"file": "app.py", "line": 5, "title": f"T{i}",
                   "verification": {"code_examined": code}})},
    "references": {"status": "attention", "reasoning": "".join(
        f"app.py:{i} " for i in range(1, 9000))[:size]},
    "filerefs": {"status": "attention", "reasoning": "see the files",
                 "file_references": fill(lambda i: f"app.py:{i + 1}")},
    "reasoning": {"status": "compliant", "reasoning": "x" * size},
}
script = {"rules": [{"match": f"Rule {k}:", "answer": json.dumps(v)} for k, v in answers.items()]}
script["rules"].append({"match": "Rule brackets:", "answer": "[" * size})
with open(f"{tmp}/script.json", "w") as f:
    json.dump(script, f)
for k, v in answers.items():
    with open(f"{tmp}/{k}.size", "w") as f:
        f.write(str(len(json.dumps(v))))
with open(f"{tmp}/brackets.size", "w") as f:
    f.write(str(size))
EOF
fakellm_start "$TMP/script.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1

# The database's bytes, with its journal or WAL.
db_bytes() {
	local f n=0
	for f in "$TMP"/revline.db*; do
		[ -e "$f" ] && n=$((n + $(stat -c %s "$f")))
	done
	echo "$n"
}

# measure KIND: one check of the rule, its rusage in $cpu_ms and $rss_kb, the database's growth in $grew.
measure() {
	local before after
	before=$(db_bytes)
	read -r cpu_ms rss_kb status < <(python3 - "$REVLINE" "$TMP" "$1" <<'EOF'
import resource, subprocess, sys
revline, tmp, kind = sys.argv[1:]
with open(f"{tmp}/out", "w") as out, open(f"{tmp}/err", "w") as err:
    rc = subprocess.call([revline, "check", "--rules", f"{tmp}/rules", "--rule", kind,
                          "--no-cache", "--no-fix-detection", "--format", "json"], stdout=out, stderr=err)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(int((ru.ru_utime + ru.ru_stime) * 1000), ru.ru_maxrss, rc)
EOF
)
	after=$(db_bytes)
	grew=$((after - before))
}

cpu_max=500 rss_max=32768
if asan_build; then
	cpu_max=2000 rss_max=131072
fi

measure small   # the first check also makes the database
measure small
base_cpu=$cpu_ms base_rss=$rss_kb base_grew=$grew
pass "a one-line answer: ${cpu_ms} ms of CPU, ${rss_kb} KB, the database +${grew} bytes"
for kind in findings references filerefs reasoning brackets; do
	measure "$kind"
	size=$(cat "$TMP/$kind.size")
	what="$kind ($size bytes): ${cpu_ms} ms of CPU, ${rss_kb} KB, the database +$grew bytes"
	# 70 KB of '[' is no answer: the rule fails, and with it the check (3).
	if [ "$status" -ne 0 ] && [ "$status" -ne 1 ] && [ "$kind:$status" != brackets:3 ]; then
		fail "$what: exit status $status: $(head -c 300 "$TMP/err")"
	elif [ $((cpu_ms - base_cpu)) -ge $cpu_max ]; then
		fail "$what: more than $cpu_max ms of CPU over the one-line answer's ${base_cpu} ms"
	elif [ $((rss_kb - base_rss)) -ge $rss_max ]; then
		fail "$what: more than $rss_max KB over the one-line answer's ${base_rss} KB"
	elif [ $((grew - base_grew)) -ge $((8 * size)) ]; then
		fail "$what: the database grew by more than 8 times the answer (one-line answer: +$base_grew)"
	else
		pass "$what"
	fi
done

python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["rules"][0]
assert r["status"] == "error" and "holds no JSON" in r["error"], r' "$TMP/out" &&
	pass "70 KB of [ is said to be no answer" || fail "brackets: $(head -c 500 "$TMP/out")"

# What the caps left out is said in the outputs too, not only kept in the reasoning.
run check --rules "$TMP/rules" --rule findings --no-fix-detection --fail-on none
expect_status 0 "check of 2,000 findings, text"
expect_out "[0-9][0-9]* more in the answer, not kept: an answer keeps its first 200" "the text output counts the findings over the cap"
run check --rules "$TMP/rules" --rule findings --no-fix-detection --fail-on none --format json
python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["rules"][0]
assert r["findings"] == 200 and r["findings_dropped"] > 100, r' "$TMP/out" &&
	pass "JSON counts them as findings_dropped" || fail "JSON: $(head -c 300 "$TMP/out")"

# What the caps left out is counted where the rule's result is kept.
python3 - "$TMP/revline.db" <<'EOF' && pass "the findings over the cap are counted in the stored reasoning" || fail "no count of the dropped findings"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = dict(db.execute("""SELECT t.threadline_id, r.reasoning FROM check_results r
                          JOIN check_threadlines t ON t.id = r.check_threadline_id"""))
n = dict(db.execute("""SELECT t.threadline_id, count(f.id) FROM check_threadlines t
                       LEFT JOIN findings f ON f.check_threadline_id = t.id GROUP BY t.id"""))
assert n["findings"] == 200 and n["references"] == 200 and n["filerefs"] == 100, n
assert rows["findings"].endswith("more findings not shown (an answer keeps its first 200)"), rows["findings"][-200:]
assert "more findings not shown" in rows["references"], rows["references"][-200:]
assert rows["filerefs"].endswith("more file references not shown (an answer keeps its first 100)"), rows["filerefs"][-200:]
assert len(rows["reasoning"]) < 8300 and rows["reasoning"].endswith("bytes cut]"), len(rows["reasoning"])
EOF

finish
