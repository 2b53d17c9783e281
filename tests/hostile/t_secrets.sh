# Secrets never leave. A server echoes the API key back: in 401, 400 and
# 500 error bodies (JSON, JSON with "\/" escapes, plain text) and inside an
# answer's reasoning and finding. The key, from OPENAI_API_KEY and then from
# the output of revline.apiKeyCommand, appears nowhere revline prints or
# stores: stdout and stderr of check in every format and of history, the
# --output file, and the SQLite database with its WAL; the marker does.
. "$(dirname "$0")/../cli/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

KEY=sk-test-SECRET-echo/5678+abc
KEY2=cmd-SECRET-key-9911
MARKER='[api key hidden]'

mkdir -p "$TMP/data" "$TMP/rules"
ln -s "$REVLINE_SOURCE_DIR/share/prompts" "$TMP/data/prompts"
export REVLINE_DATADIR=$TMP/data REVLINE_DB=$TMP/revline.db REVLINE_MODEL=fake-model REVLINE_RETRIES=0
export OPENAI_API_KEY=$KEY
unset REVLINE_PROVIDER ANTHROPIC_API_KEY OPENAI_BASE_URL REVLINE_OSV_URL
rules="--rules $TMP/rules"
for id in r401 r400 r400text r500 found; do
	printf -- '---\nid: %s\nseverity: major\n---\n# Rule %s\n\nCheck the change.\n' "$id" "$id" >"$TMP/rules/$id.md"
	rules="$rules --rule $id"
done

repo=$(new_repo secrets)
cd "$repo"
printf 'def run(cmd):\n    return cmd\n' >app.py
git add -A && git commit -q -m base
printf 'import os\n\n\ndef run(cmd):\n    return os.system(cmd)\n' >app.py

# The server quotes back the key it was sent (each rule twice, one per key).
python3 - "$TMP/script.json" "$KEY" "$KEY2" <<'PY'
import json, sys
path, keys = sys.argv[1], sys.argv[2:]
rules = []
for key in keys:
    auth = {"Authorization": key}
    finding = {"file": "app.py", "line": 5, "severity": "critical",
               "title": "Key " + key + " in the title", "issue": "issue quotes " + key,
               "suggestion": "rotate " + key,
               "verification": {"code_examined": "return os.system(cmd)", "line_range_examined": [1, 5],
                                "verification_method": "read run() with key " + key,
                                "checked_for_handling_elsewhere": True}}
    rules += [
        {"match": "Rule r401:", "match_header": auth, "status": 401,
         "error": "Incorrect API key provided: " + key + "."},
        {"match": "Rule r400:", "match_header": auth, "status": 400,
         "body": json.dumps({"detail": "bad key " + key}).replace("/", "\\/")},
        {"match": "Rule r400text:", "match_header": auth, "status": 400, "content_type": "text/plain",
         "body": "Authorization: Bearer " + key},
        {"match": "Rule r500:", "match_header": auth, "status": 500, "error": "upstream refused " + key},
        {"match": "Rule found:", "match_header": auth,
         "answer": {"status": "attention", "reasoning": "the reasoning has " + key, "findings": [finding]}},
        {"match_path": "/models", "match_header": auth, "status": 401,
         "error": "Incorrect API key provided: " + key},
    ]
script = {"rules": rules + [{"answer": {"status": "not_relevant", "reasoning": "-"}}]}
json.dump(script, open(path, "w"))
PY
fakellm_start "$TMP/script.json" || exit 1
export REVLINE_BASE_URL=$FAKELLM_URL/v1

leaks() { # KEY FILE... : the files that hold the key
	local key=$1 f
	shift
	for f in "$@"; do
		[ -e "$f" ] && grep -aqF -- "$key" "$f" && echo "$f"
	done
	return 0
}
expect_no_key() { # WHAT KEY FILE...
	local what=$1 key=$2 found
	shift 2
	found=$(leaks "$key" "$@")
	[ -z "$found" ] && pass "$what: the key is nowhere" || fail "$what: the key is in $found: $(grep -ahF -- "$key" $found | head -c 300)"
}
expect_marker() { # WHAT FILE
	grep -qF -- "$MARKER" "$2" && pass "$1: the marker is there" || fail "$1: no marker in: $(head -c 400 "$2")"
}
dump_db() { # the database as SQL text, WAL included
	python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); print('\n'.join(c.iterdump()))" \
		"$REVLINE_DB" >"$TMP/db.sql"
}

n=0
for format in text json sarif markdown; do
	n=$((n + 1))
	run check $rules --format $format --no-cache --no-fix-detection --output "$TMP/report.$format"
	cp "$TMP/out" "$TMP/out.$format"
	cp "$TMP/err" "$TMP/err.$format"
	[ -s "$TMP/report.$format" ] && pass "check --format $format wrote its report" || fail "no $format report: $(cat "$TMP/err")"
	expect_no_key "check --format $format" "$KEY" "$TMP/out" "$TMP/err" "$TMP/report.$format"
	expect_marker "check --format $format" "$TMP/report.$format"
done
run check $rules --no-cache --no-fix-detection
expect_no_key "check's text on stdout" "$KEY" "$TMP/out" "$TMP/err"
expect_marker "check's text on stdout" "$TMP/out"
grep -q "HTTP 401: Incorrect API key provided: \[api key hidden\]\." "$TMP/out" &&
	pass "the 401's message is shown, the key hidden" || fail "401 line: $(grep r401 "$TMP/out")"
grep -q "r400text.*Bearer \[api key hidden\]" "$TMP/out" &&
	pass "a plain-text error body is shown, the key hidden" || fail "400 text: $(grep r400text "$TMP/out")"
python3 - "$TMP/report.json" "$MARKER" <<'PY' && pass "json: the finding, its evidence and the errors carry the marker" || fail "json report"
import json, sys
d, marker = json.load(open(sys.argv[1])), sys.argv[2]
f = d["findings"][0]
assert marker in f["title"] and marker in f["issue"] and marker in f["suggestion"], f
errors = {r["id"]: r["error"] or "" for r in d["rules"]}
assert all(marker in errors[r] for r in ("r401", "r400", "r400text", "r500")), errors
PY

run history
expect_no_key "history" "$KEY" "$TMP/out" "$TMP/err"

# The key from revline.apiKeyCommand (the user's own git config) is as secret.
unset OPENAI_API_KEY
git config --global revline.apiKeyCommand "echo $KEY2"
run check $rules --format json --no-cache --no-fix-detection
expect_no_key "check with the apiKeyCommand key" "$KEY2" "$TMP/out" "$TMP/err"
grep -qF -- "$MARKER" "$TMP/out" && pass "apiKeyCommand: the marker is there" || fail "apiKeyCommand: no marker"
run doctor
expect_no_key "doctor" "$KEY2" "$TMP/out" "$TMP/err"

# Nothing was stored: the database file, its WAL and a dump of every table.
dump_db
expect_no_key "the database" "$KEY" "$REVLINE_DB" "$REVLINE_DB-wal" "$REVLINE_DB-journal" "$TMP/db.sql"
expect_no_key "the database (the command's key)" "$KEY2" "$REVLINE_DB" "$REVLINE_DB-wal" "$TMP/db.sql"
grep -qF -- "$MARKER" "$TMP/db.sql" && pass "the database holds the marker" || fail "no marker in the database"
# The key itself, in the request the server got: revline did send it (the test is not vacuous).
grep -q '"authorization":"present"' "$FAKELLM_LOG" && pass "the key was sent to the server" || fail "no key was sent"
finish
