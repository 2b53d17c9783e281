# What the model is shown of the repository besides the diff (the context
# pack), through revline check against the fake LLM over real HTTP, on a
# real repository with the real universal-ctags: the stale caller of a
# definition whose signature changed reaches every rule's request, in the
# part they share; a rule with context: none gets the diff alone, one with
# context: deep more; revline.context none sends nothing of it; an untrusted
# .revline cannot turn it on; the JSON report and the database say what was
# sent.
. "$(dirname "$0")/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

command -v ctags-universal >/dev/null || command -v universal-ctags >/dev/null ||
	{ ctags --version 2>/dev/null | grep -q 'Universal Ctags'; } ||
	{ echo "skip: universal-ctags is not installed"; exit 77; }

fake_llm_env
# The model table beside the prompts, as an install has it: which models take tools.
ln -s "$REVLINE_SOURCE_DIR/share/models.tsv" "$TMP/data/models.tsv"
json() { python3 -c "import json,sys; d=json.load(open('$TMP/out')); $1"; }
cat >"$TMP/script.json" <<'EOF'
{"default": {"answer": {"status": "compliant", "reasoning": "fine", "findings": []}}}
EOF
fakellm_start "$TMP/script.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1

rules=$TMP/rules
mkdir -p "$rules"
printf -- '---\nid: plain\nseverity: major\n---\nCheck the change for plain problems.\n' >"$rules/plain.md"
printf -- '---\nid: bare\nseverity: major\ncontext: none\n---\nCheck the change for bare problems.\n' >"$rules/bare.md"
printf -- '---\nid: deeper\nseverity: major\ncontext: deep\n---\nCheck the change for deeper problems.\n' >"$rules/deeper.md"

repo=$(new_repo work)
cd "$repo"
mkdir -p app web tests
cat >app/auth.py <<'EOF'
import hmac


def verify(user, token, leeway=0):
    """True when the token is the user's."""
    return hmac.compare_digest(user, token)
EOF
cat >web/api.py <<'EOF'
from app.auth import verify


def login(request):
    user = request.user
    if not verify(user, request.token, leeway=5):
        return 401
    return 200
EOF
cat >tests/test_auth.py <<'EOF'
from app.auth import verify


def test_verify():
    assert not verify("ana", "x")
EOF
git add -A && git commit -q -m base
# The definition loses its leeway parameter; its caller in web/api.py is left stale.
cat >app/auth.py <<'EOF'
import hmac


def verify(user, token):
    """True when the token is the user's."""
    return hmac.compare_digest(user, token)
EOF

bodies() { # the user messages of the map requests, one JSON string a line
	fakellm_requests | python3 -c '
import json, sys
for line in sys.stdin:
    body = json.loads(line)["body"]
    msgs = body.get("messages") or []
    text = "".join(m["content"] if isinstance(m["content"], str) else "".join(p.get("text", "") for p in m["content"])
                   for m in msgs if m.get("role") == "user")
    print(json.dumps(text))'
}

run check --rules "$rules" --no-builtin --no-cache --format json --fail-on none
expect_status 0 "a check with the repository's context"
bodies >"$TMP/bodies"
python3 - "$TMP/bodies" <<'PY' && pass "the stale caller reaches the rules that take context, in the shared part" || fail "pack: $(head -c 3000 "$TMP/bodies")"
import json, sys
texts = [json.loads(l) for l in open(sys.argv[1])]
rules = {t[t.index("# Rule ") + 7:].split(":")[0]: t for t in texts}
assert set(rules) == {"plain", "bare", "deeper"}, rules.keys()
for rid in ("plain", "deeper"):
    t = rules[rid]
    assert "# Context from the repository" in t, rid
    assert "if not verify(user, request.token, leeway=5):" in t, rid
    assert "### web/api.py:" in t and "its signature changed" in t, rid
    # in the part every rule shares: before the rule
    assert t.index("leeway=5") < t.index("# Rule " + rid), rid
# the same bytes before the rule for both rules that take it
shared = [rules[r][:rules[r].index("# Rule ")] for r in ("plain", "deeper")]
assert shared[0] == shared[1]
t = rules["bare"]
assert "# Context from the repository" not in t and "leeway=5" not in t, "context: none got the pack"
PY
json 'c = d["context"]
assert c["mode"] == "tools" and c["built"] and c["build_ms"] >= 0, c
sent = [i for i in c["items"] if i["sent"]]
assert any(i["kind"] == "callers" and i["path"] == "web/api.py" and "verify" in i["symbol"] for i in sent), c["items"]
r = {x["id"]: x for x in d["rules"]}
assert r["plain"]["context"] == "pack" and r["bare"]["context"] == "off" and r["deeper"]["context"] == "pack", r
assert c["index"]["files"] == 3, c["index"]' && pass "the JSON report says what was sent and to which rule" || fail "json context: $(head -c 1500 "$TMP/out")"
python3 - "$REVLINE_DB" <<'PY' && pass "the check keeps what each part carried and what each rule was given" || fail "stored context"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT kind, symbol, path FROM context_sent WHERE check_id = (SELECT max(id) FROM checks)").fetchall()
assert ("callers", "verify", "web/api.py") in rows, rows
given = dict(db.execute("SELECT t.threadline_id, r.context FROM check_results r JOIN check_threadlines t "
                        "ON t.id = r.check_threadline_id WHERE t.check_id = (SELECT max(id) FROM checks)").fetchall())
assert given == {"plain": "pack", "bare": "off", "deeper": "pack"}, given
PY

# A rule that asks for more gets, in its own part, what the shared budget left out.
git config revline.contextTokens 60
: >"$FAKELLM_LOG"
run check --rules "$rules" --no-builtin --no-cache --format json --fail-on none
bodies >"$TMP/bodies"
python3 - "$TMP/bodies" <<'PY' && pass "context: deep gets what the shared budget left out" || fail "deep: $(head -c 3000 "$TMP/bodies")"
import json, sys
rules = {}
for t in (json.loads(l) for l in open(sys.argv[1])):
    rules[t[t.index("# Rule ") + 7:].split(":")[0]] = t
plain, deeper = rules["plain"], rules["deeper"]
assert "Left out for the budget" in plain, plain[-2000:]
assert "# More context from the repository, for this rule" in deeper
assert deeper.index("# More context") > deeper.index("# Rule deeper")
assert "# More context" not in plain
PY
json 'assert d["context"]["left_out"] >= 1, d["context"]' && pass "the report counts what the budget left out" || fail "left_out"
git config --unset revline.contextTokens

# revline.context none: the diff alone, nothing of the repository; the index is not even built.
: >"$FAKELLM_LOG"
REVLINE_CONTEXT=none run check --rules "$rules" --no-builtin --no-cache --format json --fail-on none
bodies >"$TMP/bodies"
! grep -q "Context from the repository\|leeway=5" "$TMP/bodies" && pass "revline.context none sends the diff alone" ||
	fail "context none: $(head -c 1000 "$TMP/bodies")"
json 'c = d["context"]; assert c["mode"] == "none" and c["items"] == [] and c["index"] is None, c' &&
	pass "and says so" || fail "json none: $(head -c 600 "$TMP/out")"

# A branch's .revline cannot widen what is sent: an untrusted revline.context or contextTokens is ignored.
git config revline.context none
printf '[revline]\n\tcontext = tools\n\tcontextTokens = 90000\n' >.revline
: >"$FAKELLM_LOG"
run check --rules "$rules" --no-builtin --no-cache --format json --fail-on none
bodies >"$TMP/bodies"
! grep -q "Context from the repository" "$TMP/bodies" && pass "an untrusted .revline cannot turn the context on" ||
	fail ".revline widened it"
rm .revline
git config --unset revline.context

# A model that takes tools (the model table's gpt-4o) is offered read_file, search and references over
# the index's files; what it read is said and kept. One that tries .git or a path out of the tree gets a
# tool error, never the file.
fakellm_stop
cat >"$TMP/tools.json" <<'EOF'
{"rules": [
 {"match": "Rule plain:", "turns": [
   {"tool_calls": [{"name": "read_file", "arguments": {"path": "web/api.py", "start": 1, "end": 8}},
                   {"name": "references", "arguments": {"symbol": "verify"}},
                   {"name": "read_file", "arguments": {"path": "../../etc/passwd"}},
                   {"name": "read_file", "arguments": {"path": ".git/config"}}]},
   {"answer": {"status": "compliant", "reasoning": "read the caller", "findings": []}}],
  "final": {"answer": {"status": "compliant", "reasoning": "fine", "findings": []}}},
 {"answer": {"status": "compliant", "reasoning": "fine", "findings": []}}
]}
EOF
fakellm_start "$TMP/tools.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1
REVLINE_MODEL=gpt-4o run check --rules "$rules" --no-builtin --no-cache --format json --fail-on none
expect_status 0 "a check whose model takes tools"
json 'r = {x["id"]: x for x in d["rules"]}
p = r["plain"]
assert p["context"] == "pack, tools", p["context"]
tools = [x["tool"] for x in p["reads"]]
assert tools == ["read_file", "references", "read_file", "read_file"], p["reads"]
assert p["reads"][0]["error"] is None and "web/api.py:1-8" in (p["reads"][0].get("shown") or ""), p["reads"][0]
assert p["reads"][2]["error"] and p["reads"][3]["error"], p["reads"]
assert r["bare"]["context"] == "off" and r["bare"]["reads"] == [], r["bare"]' &&
	pass "the rule says it had tools and what its model read, the hostile paths refused" ||
	fail "tools json: $(head -c 2500 "$TMP/out")"
fakellm_requests >"$TMP/requests"
python3 - "$TMP/requests" <<'PY' && pass "a rule with context: none is offered no tools; nothing outside the index reached the server" || fail "tools requests"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
text = open(sys.argv[1]).read()
assert "repositoryformatversion" not in text and "root:x:0:0" not in text
for r in reqs:
    body = r["body"]
    user = json.dumps(body.get("messages"))
    if "Rule bare:" in user:
        assert not body.get("tools"), body.get("tools")
    if "Rule plain:" in user:
        assert [t["function"]["name"] for t in body["tools"]] == ["read_file", "search", "references"], body["tools"]
PY
python3 - "$REVLINE_DB" <<'PY' && pass "the tools' calls are kept with the rule's result" || fail "stored reads"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT r.tool, r.error IS NULL FROM context_reads r JOIN check_threadlines t ON t.id = r.check_threadline_id "
                  "WHERE t.check_id = (SELECT max(id) FROM checks) AND t.threadline_id = 'plain' ORDER BY r.seq").fetchall()
assert rows == [("read_file", 1), ("references", 1), ("read_file", 0), ("read_file", 0)], rows
PY
# revline.context pack: no tools, whatever the model takes, but for a rule that asks for more (context: deep).
: >"$FAKELLM_LOG"
REVLINE_CONTEXT=pack REVLINE_MODEL=gpt-4o run check --rules "$rules" --no-builtin --no-cache --format json --fail-on none
if fakellm_requests | python3 -c '
import json, sys
offered = {}
for line in sys.stdin:
    body = json.loads(line)["body"]
    user = json.dumps(body.get("messages"))
    for rid in ("plain", "bare", "deeper"):
        if "Rule %s:" % rid in user:
            offered[rid] = offered.get(rid, False) or bool(body.get("tools"))
sys.exit(0 if offered == {"plain": False, "bare": False, "deeper": True} else 1)'; then
	pass "revline.context pack offers no tools, but to a rule with context: deep"
else
	fail "revline.context pack and tools: $(fakellm_requests | head -c 500)"
fi

# A bad value is named.
REVLINE_CONTEXT=everything run check --rules "$rules" --no-builtin
expect_status 2 "a bad revline.context"
grep -q "revline.context is 'everything': it takes tools" "$TMP/err" && pass "is named with what it takes" ||
	fail "bad context: $(cat "$TMP/err")"
finish
