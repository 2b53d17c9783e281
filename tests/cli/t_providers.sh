# The request cycle (src/ask.c) against the fake server as it plays the
# providers of 2026, over real HTTP: reasoning models and refused
# parameters (retried once, remembered per server and model), the
# structured-output fallback, Anthropic's forced tool, streaming with an
# idle timeout, the map prompts' shared prefix and the prompt caches, and
# the usage and cost they bill.
. "$(dirname "$0")/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

fake_llm_env
# The model table (share/models.tsv) beside the prompts, as an install has it.
ln -s "$REVLINE_SOURCE_DIR/share/models.tsv" "$TMP/data/models.tsv"

rules=$TMP/rules
mkdir -p "$rules"
rule() { # ID: a rule of the test's own, for every file, with a body of its own
	printf -- '---\nid: %s\nseverity: major\npatterns: ["**"]\n---\n# The %s rule\n\nCheck the change for %s problems: unique-%s-text.\n' \
		"$1" "$1" "$1" "$1" >"$rules/$1.md"
}
for id in alpha beta gamma delta epsilon; do rule "$id"; done

repo=$(new_repo work)
cd "$repo"
printf 'import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd)\n' >app.py
git add -A && git commit -q -m base
printf 'import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd, shell=True)\n' >app.py

compliant='{"status": "compliant", "reasoning": "fine", "file_references": ["app.py"], "findings": []}'
finding='{"status": "attention", "reasoning": "r", "file_references": ["app.py"], "findings": [{"file": "app.py", "line": 5, "end_line": 5, "severity": "critical", "title": "Shell injection", "issue": "shell=True with a caller string", "suggestion": "pass a list", "verification": {"code_examined": "return subprocess.call(cmd, shell=True)", "line_range_examined": [1, 5], "verification_method": "read run()", "checked_for_handling_elsewhere": true, "where_checked": "app.py", "is_impact_finding": false}}]}'

# A fake of its own per part, and a database of its own.
serve() { # NAME SCRIPT-JSON
	fakellm_stop
	printf '%s\n' "$2" >"$TMP/$1.json"
	fakellm_start "$TMP/$1.json"
	export REVLINE_BASE_URL=$FAKELLM_URL/v1 REVLINE_DB=$TMP/$1.db
	mark=0
}
# The requests since the last mark, as R (the fake's log records), to Python.
mark() { mark=$(fakellm_requests | wc -l); }
requests_py() {
	fakellm_requests | python3 -c "import json, sys
R = [json.loads(line) for line in sys.stdin][$mark:]
def sent(r, key): return key in (r['body'] or {})
def kinds(): return [(r['structured'] or {}).get('kind') for r in R]
def refused(): return [r['refused'] for r in R if r['refused']]
$1"
}
expect_requests() { # WHAT CODE: CODE's assertions hold over the requests since the mark
	local why
	if why=$(requests_py "$2" 2>&1); then pass "$1"; else fail "$1: $(printf '%s' "$why" | tail -n 3 | cut -c1-400)"; fi
}
out_py() { python3 -c "import json; d = json.load(open('$TMP/out'))
$1"; }
expect_json() { # WHAT CODE: over check's JSON output, d
	local why
	if why=$(out_py "$2" 2>&1); then pass "$1"; else fail "$1: $(printf '%s' "$why" | tail -n 3 | cut -c1-400)"; fi
}

# --- 1. Reasoning models; a refused temperature, retried once and remembered ---

serve reasoning "{\"model_rules\": [{\"models\": [\"gpt-5*\", \"o[0-9]*\"], \"reasoning\": true},
  {\"models\": \"my-proxy-model\", \"refuse\": [\"temperature\"]}],
 \"default\": {\"answer\": $compliant}}"

REVLINE_MODEL=gpt-5-mini run check --rules "$rules" --rule alpha --rule beta --format json
expect_status 0 "gpt-5-mini: the check succeeds"
expect_requests "gpt-5-mini: no temperature, max_completion_tokens, nothing refused" '
assert len(R) == 2, len(R)
for r in R:
    assert r["status"] == 200 and not r["refused"], r["refused"]
    assert not sent(r, "temperature") and not sent(r, "max_tokens"), r["body"].keys()
    assert r["body"]["max_completion_tokens"] > 0'

export REVLINE_MODEL=my-proxy-model
mark
run check --rules "$rules" --rule alpha --format json
expect_status 0 "a model that refuses temperature: the check succeeds"
expect_json "the rule is answered after the refusal (2 attempts)" '
r = d["rules"][0]
assert r["status"] == "compliant" and r["attempts"] == 2, r'
expect_requests "exactly one refused request, then the same without temperature" '
assert refused() == ["temperature"], refused()
assert len(R) == 2 and R[0]["refused"] and sent(R[0], "temperature"), R
assert R[1]["status"] == 200 and not sent(R[1], "temperature"), R[1]["body"].keys()
assert {k: v for k, v in R[0]["body"].items() if k != "temperature"} == R[1]["body"]'

mark
run check --rules "$rules" --rule alpha --no-cache --format json
expect_status 0 "the next check of that model"
expect_requests "the next check sends no temperature at all (remembered in the store)" '
assert len(R) == 1 and not refused() and not sent(R[0], "temperature"), [r["body"].keys() for r in R]'
run doctor
grep -q "refused: *my-proxy-model refused temperature" "$TMP/out" &&
	pass "doctor says what the server refused" || fail "doctor: $(grep -i refus "$TMP/out")"

mark
REVLINE_DB=$TMP/fresh.db run check --rules "$rules" --rule alpha --format json
expect_status 0 "with a fresh database"
expect_requests "a fresh database learns again (one refusal)" '
assert refused() == ["temperature"] and len(R) == 2, [(r["status"], r["refused"]) for r in R]'

mark
REVLINE_DB=$TMP/fresh3.db run check --rules "$rules" --rule alpha --rule beta --rule gamma --format json
expect_status 0 "three rules at once on a fresh database"
expect_requests "a model the table does not know is tried with one rule first: one refusal for the check" '
ok = [r for r in R if r["status"] == 200]
assert len(ok) == 3 and not any(sent(r, "temperature") for r in ok), ok
assert refused() == ["temperature"] and len(R) == 4, [(r["status"], r["refused"]) for r in R]'
unset REVLINE_MODEL

# --- 2. max_tokens refused -> max_completion_tokens; reasoning_effort refused -> dropped ---

serve caps "{\"model_rules\": [{\"models\": \"old-proxy\", \"refuse\": [\"max_tokens\"]},
  {\"models\": \"gpt-5-mini\", \"reasoning\": true, \"refuse\": [\"reasoning_effort\"]}],
 \"default\": {\"answer\": $compliant}}"

REVLINE_MODEL=old-proxy run check --rules "$rules" --rule alpha --format json
expect_status 0 "a model that refuses max_tokens: the check succeeds"
expect_requests "max_tokens refused, asked again with max_completion_tokens" '
assert refused() == ["max_tokens"] and len(R) == 2, [(r["status"], r["refused"]) for r in R]
assert sent(R[0], "max_tokens") and not sent(R[0], "max_completion_tokens")
assert not sent(R[1], "max_tokens") and R[1]["body"]["max_completion_tokens"] == R[0]["body"]["max_tokens"]'

git config revline.reasoningEffort low
mark
REVLINE_MODEL=gpt-5-mini run check --rules "$rules" --rule alpha --format json
expect_status 0 "a reasoning model that refuses reasoning_effort: the check succeeds"
expect_requests "reasoning_effort sent, refused, then dropped" '
assert refused() == ["reasoning_effort"] and len(R) == 2, [(r["status"], r["refused"]) for r in R]
assert R[0]["body"]["reasoning_effort"] == "low" and not sent(R[1], "reasoning_effort")'
git config --unset revline.reasoningEffort

# --- 3. Structured outputs: json_schema -> json_object -> none, each remembered ---

serve structured "{\"model_rules\": [{\"models\": \"qwen*\", \"refuse\": [\"json_schema\"]},
  {\"models\": \"llama*\", \"refuse\": [\"json_schema\", \"json_object\"]}],
 \"default\": {\"answer\": $compliant}}"

mark
REVLINE_MODEL=qwen2.5-coder run check --rules "$rules" --rule alpha --format json
expect_status 0 "a server without json_schema: the check succeeds"
expect_requests "json_schema refused (llama.cpp's words), json_object asked" '
assert kinds() == ["json_schema", "json_object"], kinds()
assert refused() == ["json_schema"], refused()
s = R[0]["structured"]
assert s["name"] == "review_answer" and s["strict"] is True, s
assert R[0]["body"]["response_format"]["json_schema"]["strict"] is True
schema = s["schema"]
assert schema["required"] == ["status", "reasoning", "file_references", "findings"], schema["required"]
assert schema["additionalProperties"] is False
item = schema["properties"]["findings"]["items"]
assert "verification" in item["required"] and "severity" in item["required"], item["required"]
assert item["properties"]["severity"]["enum"] == ["critical", "major", "minor", "nitpick"]'

mark
REVLINE_MODEL=llama-3.1-8b run check --rules "$rules" --rule alpha --format json
expect_status 0 "a server without json_schema nor json_object: the check succeeds"
expect_requests "json_schema, then json_object (LM Studio's words) refused, then the prompt alone" '
assert kinds() == ["json_schema", "json_object", None], kinds()
assert refused() == ["json_schema", "json_object"], refused()
assert not sent(R[2], "response_format")'

mark
REVLINE_MODEL=qwen2.5-coder run check --rules "$rules" --rule alpha --no-cache --format json
REVLINE_MODEL=llama-3.1-8b run check --rules "$rules" --rule alpha --no-cache --format json
expect_status 0 "the next checks of both models"
expect_requests "each server's structured mode is remembered" '
assert kinds() == ["json_object", None] and not refused(), (kinds(), refused())'

# --- 4. Anthropic: the answer comes as the forced tool's input, whole or streamed ---

# The answer alone, as the forced tool: the context pack without the read-only tools (Claude takes
# them, and then the answer's tool is offered among them: t_context and test_tools show that).
anthropic() { # the provider Anthropic, its key, and no OpenAI key
	export REVLINE_PROVIDER=anthropic ANTHROPIC_API_KEY=x REVLINE_MODEL=claude-haiku-4-5 REVLINE_CONTEXT=pack
	unset OPENAI_API_KEY
}
openai() {
	export OPENAI_API_KEY=sk-test REVLINE_MODEL=fake-model
	unset REVLINE_PROVIDER ANTHROPIC_API_KEY REVLINE_CONTEXT
}
anthropic
for stream in false true; do
	serve "anthropic-$stream" "{\"structured\": true, \"stream\": $stream,
 \"default\": {\"answer\": $finding, \"chunk_chars\": 24}}"
	run check --rules "$rules" --rule alpha --format json --fail-on none
	expect_status 0 "Anthropic (the fake streams: $stream): the check succeeds"
	expect_json "Anthropic (the fake streams: $stream): the forced tool's finding is reported and verified" '
f = d["findings"]
assert len(f) == 1 and f[0]["title"] == "Shell injection" and f[0]["verified"], f
assert d["rules"][0]["status"] == "attention" and d["stats"]["tokens_in"] > 0, d["rules"]'
	expect_requests "Anthropic (the fake streams: $stream): one request to /messages with the forced tool" '
assert len(R) == 1, len(R)
r = R[0]
assert r["path"] == "/v1/messages" and r["status"] == 200 and r["authorization"] == "present", r["path"]
s = r["structured"]
assert s["kind"] == "tool" and s["name"] == "review_answer", s
assert s["input_schema"]["required"] == ["status", "reasoning", "file_references", "findings"]
assert r["body"]["tool_choice"] == {"type": "tool", "name": "review_answer"}, r["body"]["tool_choice"]
assert r["body"]["stream"] is True and r["body"]["max_tokens"] > 0'
done
openai

# --- 5. Streaming: --timeout is an idle time; a slow but steady answer is never cut ---

serve stream "{\"stream\": true,
 \"rules\": [{\"match\": \"Rule beta:\", \"fault\": \"hang\"},
   {\"match\": \"Rule gamma:\", \"answer\": $compliant, \"chunk_chars\": 40, \"chunk_ms\": 2500}],
 \"default\": {\"answer\": $compliant, \"chunk_chars\": 8, \"chunk_ms\": 300}}"

SECONDS=0
run check --rules "$rules" --rule alpha --timeout 1 --retries 0 --format json
took=$SECONDS
expect_status 0 "a slow steady stream (a piece every 0.3 s for ${took}s) under --timeout 1"
expect_json "the slow stream is answered whole, not cut" '
r = d["rules"][0]
assert r["status"] == "compliant" and r["attempts"] == 1 and r["duration_ms"] > 2000, r'
expect_requests "it was asked to stream, and streamed to the end" '
assert len(R) == 1 and R[0]["body"]["stream"] is True and not R[0]["client_gone"], R[0]["client_gone"]
assert R[0]["end"] - R[0]["first_byte"] > 2, R[0]["end"] - R[0]["first_byte"]'

SECONDS=0
run check --rules "$rules" --rule beta --timeout 1 --retries 0 --format json
took=$SECONDS
expect_status 3 "a server that never sends a byte: the rule times out"
expect_json "the hang is cut after the idle time, saying no byte came" '
r = d["rules"][0]
assert r["status"] == "timeout" and "no byte for" in r["error"], r
assert r["duration_ms"] < 4000, r["duration_ms"]'
[ "$took" -lt 6 ] && pass "the hang was cut in ${took}s" || fail "the hang was cut after ${took}s"

run check --rules "$rules" --rule gamma --timeout 1 --retries 0 --format json
expect_status 3 "a pause longer than the idle time: the rule times out"
expect_json "the pause is cut, saying no byte came" '
r = d["rules"][0]
assert r["status"] == "timeout" and "no byte for" in r["error"] and r["duration_ms"] < 4000, r'

mark
git config revline.stream false
run check --rules "$rules" --rule alpha --no-cache --format json
git config --unset revline.stream
expect_status 0 "revline.stream false: the check succeeds"
expect_requests "revline.stream false sends no stream" '
assert len(R) == 1 and not R[0]["body"].get("stream") and "stream_options" not in R[0]["body"], R[0]["body"].keys()'

# --- 6. The map requests share their prefix; the prompt caches read it ---

repo=$(new_repo prefix)
cd "$repo"
for f in a b c; do
	for i in $(seq 1 40); do printf 'def %s%d(x):\n    return x + %d\n\n' "$f" "$i" "$i"; done >"$f.py"
done
git add -A && git commit -q -m base
for f in a b c; do sed -i 's/return x + 1$/return x - 1/; s/return x + 3$/return x * 3/' "$f.py"; done

# Over the requests R of one check: the prompt's text, system first.
prefix_py='
import os
def text(r):
    b = r["body"]
    parts = [b["system"]] if "system" in b else []
    for m in b["messages"]:
        c = m["content"]
        parts += [c] if isinstance(c, str) else [p["text"] for p in c]
    return "\n".join(parts)
rules = ["alpha", "beta", "gamma", "delta", "epsilon"]
texts = {rid: text(r) for r in R for rid in rules if "unique-%s-text" % rid in text(r)}
'
expect_prefix() { # WHAT
	expect_requests "$1: the map requests share >= 80% of their prompt, each ends with its own rule" "$prefix_py"'
assert sorted(texts) == sorted(rules) and len(R) == 5, (sorted(texts), len(R))
common = os.path.commonprefix(list(texts.values()))
shortest = min(len(t) for t in texts.values())
assert len(common) >= 0.8 * shortest, (len(common), shortest)
for rid, t in texts.items():
    own = t.index("unique-%s-text" % rid)
    assert own >= len(common), (rid, own, len(common))
    assert all("unique-%s-text" % o not in t for o in rules if o != rid), rid
    assert "a.py" not in t[own:] and ("rule %s" % rid) in t[-300:], t[own:]
print("%d of %d characters shared" % (len(common), shortest))'
}
expect_cache_hits() { # WHAT FIELD: the first request missed the cache, the others read it, once it answered
	expect_requests "$1: the first request warmed the cache, the others read it" '
def read(r):
    u = r["usage"]
    return u["prompt_tokens_details"]["cached_tokens"] if "prompt_tokens_details" in u else u["'"$2"'"]
R.sort(key=lambda r: r["n"])
assert read(R[0]) == 0 and all(read(r) > 0 for r in R[1:]), [read(r) for r in R]
assert all(r["start"] >= R[0]["first_byte"] for r in R[1:]), "not held until the first byte"'
}

git config revline.warmCache true
export REVLINE_MODEL=gpt-5-mini
serve cache-openai "{\"stream\": true, \"structured\": true, \"cache\": \"openai\", \"cache_fill\": \"first_byte\",
 \"cache_min_tokens\": 512, \"cache_step_tokens\": 64,
 \"model_rules\": [{\"models\": \"gpt-5*\", \"reasoning\": true}],
 \"default\": {\"answer\": $compliant, \"chunk_chars\": 16, \"chunk_ms\": 20, \"latency_ms\": 100}}"
run check --rules "$rules" --format json
expect_status 0 "OpenAI's prompt cache: the check succeeds"
expect_prefix "OpenAI"
expect_requests "one prompt_cache_key for the check" '
keys = {r["body"]["prompt_cache_key"] for r in R}
assert len(keys) == 1 and list(keys)[0].startswith("revline-"), keys'
expect_cache_hits "OpenAI" cached_tokens
expect_json "the check counts the cached tokens" '
s = d["stats"]
assert s["tokens_cached"] > 0 and s["tokens_cached"] <= s["tokens_in"], s
assert s["tokens_cached"] == sum(r["tokens_cached"] for r in d["rules"]), s'

# --- 7. What it billed: the fake's usage, priced from the model table (gpt-5-mini) ---

expect_requests "the fake billed cached tokens" 'assert sum(r["usage"]["prompt_tokens_details"]["cached_tokens"] for r in R) > 0'
usage=$(requests_py 'print(json.dumps([sum(r["usage"][k] for r in R) for k in ("prompt_tokens", "completion_tokens")] + [sum(r["usage"]["prompt_tokens_details"]["cached_tokens"] for r in R)]))')
expect_json "stats: tokens in, cached and out are the fake's, and the cost is gpt-5-mini's prices" "
tin, tout, cached = $usage"'
s = d["stats"]
assert (s["tokens_in"], s["tokens_out"], s["tokens_cached"], s["tokens_cache_write"]) == (tin, tout, cached, 0), (s, tin, tout, cached)
cost = ((tin - cached) * 0.25 + cached * 0.025 + tout * 2.00) / 1e6
assert s["cost_usd"] is not None and abs(s["cost_usd"] - cost) < 1e-6, (s["cost_usd"], cost)
for r in d["rules"]:
    if r["kind"] == "llm":
        assert r["cost_usd"] is not None and r["cost_usd"] > 0 and r["tokens_cached"] >= 0, r'
run check --rules "$rules" --no-cache --fail-on none
grep -Eq '[0-9,]+ tokens in \([0-9,]+ cached\), [0-9,]+ out, ~\$[0-9.]+$' "$TMP/out" &&
	pass "text: the check's line says the tokens cached and the cost" || fail "text usage line: $(tail -1 "$TMP/out")"

anthropic
serve cache-anthropic "{\"stream\": true, \"structured\": true, \"cache\": \"anthropic\", \"cache_fill\": \"first_byte\",
 \"cache_min_tokens\": 512,
 \"default\": {\"answer\": $compliant, \"chunk_chars\": 16, \"chunk_ms\": 20, \"latency_ms\": 100}}"
run check --rules "$rules" --format json
expect_status 0 "Anthropic's prompt cache: the check succeeds"
expect_prefix "Anthropic"
expect_requests "a cache_control breakpoint at the end of the shared part" '
for r in R:
    blocks = r["body"]["messages"][0]["content"]
    assert blocks[0]["cache_control"] == {"type": "ephemeral"} and "cache_control" not in blocks[-1], blocks
R.sort(key=lambda r: r["n"])
assert R[0]["usage"]["cache_creation_input_tokens"] > 0, R[0]["usage"]'
expect_cache_hits "Anthropic" cache_read_input_tokens
expect_json "the check counts the cache reads and writes" '
s = d["stats"]
assert s["tokens_cached"] > 0 and s["tokens_cache_write"] > 0 and s["cost_usd"] > 0, s'
openai
git config --unset revline.warmCache

finish
