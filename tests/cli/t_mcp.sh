# revline mcp, driven over a pipe as a coding agent's client drives it:
# initialize and version negotiation (2025-11-25, 2025-06-18, 2025-03-26,
# and older or newer revisions answered with the newest), tools/list, a
# review streamed as progress notifications up to their total, with its
# findings and evidence (as text, as JSON text and as structuredContent),
# a ping, findings and signals answered while a review runs (tool calls
# that write wait, in order), a cancelled review (no progress after it),
# findings, mark_finding hiding a false positive in the next review,
# propose_fix / apply_fix / undo_fix on a finding, signals saying which
# linters are not installed, the environment a client passes (Codex's
# list: no provider, the review says so first and what to set), and the
# protocol's errors (parse errors, a bare 42 or null, a line over the
# limit answered to its id, unknown tools and methods, bad arguments,
# batches where the revision has them and where it does not). With
# REVLINE_TEST_DB=postgres (cli/t_mcp-pg) the store is a PostgreSQL server.
. "$(dirname "$0")/lib.sh"
. "$REVLINE_SOURCE_DIR/tests/fakellm/fakellm.sh"
trap 'fakellm_stop; cleanup_tmp' EXIT

fake_llm_env
# cli/t_mcp-pg: the same session with the store on a PostgreSQL server of its own.
if [ "${REVLINE_TEST_DB:-}" = postgres ]; then
	. "$REVLINE_SOURCE_DIR/tests/testlib/pg.sh"
	pg_start
	export REVLINE_DB=$PG_URL
fi

python3 - "$TMP/script.json" <<'PY'
import json, sys
finding = {"file": "app.py", "line": 5, "severity": "critical", "title": "Shell injection in run()",
           "issue": "shell=True with a caller's string", "suggestion": "Pass a list",
           "verification": {"code_examined": "return subprocess.call(cmd, shell=True)",
                            "line_range_examined": [1, 5], "verification_method": "read run()",
                            "checked_for_handling_elsewhere": True}}
fixed = "def run(cmd):\n    return subprocess.call(cmd.split())\n"
rules = [
    {"match": "Rule injection:", "answer": {"status": "attention", "reasoning": "r", "findings": [finding]}},
    {"match": "Rule slow:", "latency_ms": 2500, "answer": {"status": "compliant", "reasoning": "ok", "findings": []}},
    {"match": "Rule denied", "status": 401, "error": "Incorrect API key provided"},
    {"match": "Problem found in review (rule injection",
     "answer": {"fixed_code": fixed, "explanation": "No shell."}},
    {"match": "synthesizing", "answer": {"summary": "s", "overallSeverity": "critical", "findings": []}},
    {"answer": {"status": "compliant", "reasoning": "fine", "findings": []}},
]
json.dump({"rules": rules}, open(sys.argv[1], "w"))
PY
fakellm_start "$TMP/script.json"
export REVLINE_BASE_URL=$FAKELLM_URL/v1

rules=$TMP/rules
mkdir -p "$rules"
for id in injection slow denied denied2; do
	printf -- '---\nid: %s\nseverity: critical\n---\nCheck the change for %s.\n' "$id" "$id" >"$rules/$id.md"
done

repo=$(new_repo work)
cd "$repo"
printf 'import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd)\n' >app.py
git add -A && git commit -q -m base
printf 'import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd, shell=True)\n' >app.py
cp app.py "$TMP/app.before"
git config revline.lint.mypy "printf '%s:5: error: Shell is on  [misc]\\n' {files}"

python3 - "$REVLINE" "$rules" "$TMP" "$repo" <<'PY' || fail "the MCP session (above)"
import json, os, select, subprocess, sys, time

revline, rules, tmp, repo = sys.argv[1:5]
failures = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what, flush=True)
    if not cond:
        failures.append(what)


class Client:
    def __init__(self, *extra, cwd=None, env=None):
        self.p = subprocess.Popen([revline, "mcp", "--rules", rules, "--no-builtin", *extra], cwd=cwd, env=env,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(tmp + "/mcp.err", "ab"))
        self.buf = b""
        self.lines = []

    def send(self, obj):
        data = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
        self.p.stdin.write(data + b"\n")
        self.p.stdin.flush()

    def recv(self, timeout=30):
        end = time.time() + timeout
        while b"\n" not in self.buf:
            left = end - time.time()
            if left <= 0 or not select.select([self.p.stdout], [], [], left)[0]:
                raise TimeoutError("no message from revline mcp")
            chunk = os.read(self.p.stdout.fileno(), 65536)
            if not chunk:
                raise EOFError("revline mcp closed its output")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        self.lines.append(line)
        return json.loads(line)

    def until(self, id, timeout=30):
        """The response to id, and the notifications before it."""
        notes = []
        while True:
            m = self.recv(timeout)
            if m.get("id") == id and "method" not in m:
                return m, notes
            notes.append(m)

    def call(self, id, name, args=None, token=None, timeout=30, meta=None):
        params = {"name": name, "arguments": args or {}}
        if meta is not None:
            params["_meta"] = dict(meta)
        if token is not None:
            params.setdefault("_meta", {})["progressToken"] = token
        self.send({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
        return self.until(id, timeout)

    def initialize(self, version):
        self.send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                   "params": {"protocolVersion": version, "capabilities": {},
                              "clientInfo": {"name": "t_mcp", "version": "1"}}})
        r, _ = self.until(0)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return r

    def close(self):
        self.p.stdin.close()
        try:
            code = self.p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.p.kill()
            code = None
        return code


def text(result):
    """What the model reads first: the first text block (the second is the JSON, when there is one)."""
    return result["result"]["content"][0]["text"]


def json_block(result):
    """The structured result as the text block after the first, parsed."""
    blocks = result["result"]["content"]
    return json.loads(blocks[1]["text"]) if len(blocks) > 1 and blocks[1]["type"] == "text" else None


MODERN = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": {"name": "t_mcp", "version": "1"}}

# --- the current revision, 2026-07-28: no handshake, the revision in each request --
c = Client()
c.send({"jsonrpc": "2.0", "id": "d", "method": "server/discover", "params": {"_meta": MODERN}})
r, _ = c.until("d")
res = r.get("result", {})
check(res.get("resultType") == "complete" and res.get("supportedVersions", [None])[0] == "2026-07-28" and
      "2025-03-26" in res["supportedVersions"] and "tools" in res.get("capabilities", {}) and
      res.get("ttlMs", -1) >= 0 and res.get("cacheScope") == "public" and res.get("instructions") and
      res["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "revline",
      "server/discover: the revisions, capabilities, instructions, cache hints and serverInfo: %s" % r)
c.send({"jsonrpc": "2.0", "id": "l", "method": "tools/list", "params": {"_meta": MODERN}})
r, _ = c.until("l")
res = r.get("result", {})
check(res.get("resultType") == "complete" and res.get("cacheScope") == "public" and res.get("ttlMs", -1) >= 0 and
      [t["name"] for t in res["tools"]] == ["review", "findings", "signals", "propose_fix", "apply_fix",
                                            "undo_fix", "mark_finding"],
      "tools/list without initialize, in a fixed order, with cache hints")
r, notes = c.call("rv", "review", {"rules": ["injection"]}, token=7, meta=MODERN)
res = r.get("result", {})
check(res.get("resultType") == "complete" and not res.get("isError") and
      any(n.get("method") == "notifications/progress" and n["params"]["progressToken"] == 7 for n in notes) and
      res.get("structuredContent", {}).get("findings"),
      "a modern review: progress, then a complete result with structured findings")
reviewed = res["structuredContent"]
other = Client()
r, _ = other.call("f", "findings", {"check_id": reviewed["check_id"]}, meta=MODERN)
got = r.get("result", {}).get("structuredContent", {})
check(got.get("check_id") == reviewed["check_id"] and
      [f["id"] for f in got.get("findings", [])] == [f["id"] for f in reviewed["findings"]] and
      got["findings"][0]["evidence"]["code_examined"] == "return subprocess.call(cmd, shell=True)",
      "another process lists that review's findings by its check id, with their evidence: %s" % r)
r, _ = other.call("f2", "findings", {"check_id": 99999}, meta=MODERN)
check(r["result"]["isError"] and "no check 99999" in text(r), "an unknown check is named")
r, _ = other.call("pf", "propose_fix", {"finding_id": reviewed["findings"][0]["id"]}, meta=MODERN)
proposed = r["result"].get("structuredContent", {}).get("fix_id")
other.close()
third = Client()
r, _ = third.call("af", "apply_fix", {"fix_id": proposed}, meta=MODERN)
check(not r["result"].get("isError") and "subprocess.call(cmd.split())" in open("app.py").read(),
      "a fix proposed by one process is applied by another: %s" % text(r))
r, _ = third.call("uf", "undo_fix", {"fix_id": proposed}, meta=MODERN)
check(not r["result"].get("isError") and open("app.py", "rb").read() == open(tmp + "/app.before", "rb").read(),
      "and undone byte for byte")
r, _ = third.call("pf2", "propose_fix", {"finding_id": reviewed["findings"][0]["id"]}, meta=MODERN)
again = r["result"].get("structuredContent", {}).get("fix_id")
third.close()
with open("app.py", "a") as f:
    f.write("# edited meanwhile\n")
edited = open("app.py", "rb").read()
fourth = Client()
r, _ = fourth.call("af2", "apply_fix", {"fix_id": again}, meta=MODERN)
check(r["result"].get("isError") and "propose_fix again" in text(r) and open("app.py", "rb").read() == edited,
      "a stored fix of a file changed since is refused, the file left alone: %s" % text(r))
fourth.close()
open("app.py", "wb").write(open(tmp + "/app.before", "rb").read())
r, _ = c.call("bad", "review", {"target": 42}, meta=MODERN)
check(r.get("result", {}).get("isError") and 'argument "target"' in text(r), "a wrong argument is a tool error")
old = dict(MODERN, **{"io.modelcontextprotocol/protocolVersion": "2099-01-01"})
c.send({"jsonrpc": "2.0", "id": "v", "method": "tools/list", "params": {"_meta": old}})
r, _ = c.until("v")
err = r.get("error", {})
check(err.get("code") == -32022 and err["data"]["requested"] == "2099-01-01" and
      err["data"]["supported"][0] == "2026-07-28", "an unknown revision: -32022 with the supported ones: %s" % r)
c.send({"jsonrpc": "2.0", "id": "c", "method": "tools/list",
        "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}})
r, _ = c.until("c")
check(r.get("error", {}).get("code") == -32602 and "clientCapabilities" in r["error"]["message"],
      "without the client's capabilities: -32602")
c.send({"jsonrpc": "2.0", "id": "p", "method": "ping", "params": {"_meta": MODERN}})
r, _ = c.until("p")
check(r.get("error", {}).get("code") == -32601, "2026-07-28 has no ping")
c.send({"jsonrpc": "2.0", "id": "n", "method": "tools/list"})
r, _ = c.until("n")
check(r.get("error", {}).get("code") == -32600 and "initialize" in r["error"]["message"],
      "a request with neither _meta nor initialize is refused, saying both ways")
check(c.close() == 0, "the modern session ends with its input")

# --- a legacy client: 2025-11-25, opened with initialize ---------------------------
c = Client()
c.send({"jsonrpc": "2.0", "id": "early", "method": "tools/list"})
r, _ = c.until("early")
check(r.get("error", {}).get("code") == -32600 and "initialize" in r["error"]["message"],
      "a request before initialize is refused: %s" % r)
r = c.initialize("2025-11-25")
res = r["result"]
check(res["protocolVersion"] == "2025-11-25", "2025-11-25 is kept")
check(res["serverInfo"]["name"] == "revline" and "tools" in res["capabilities"] and res.get("instructions"),
      "serverInfo, the tools capability and instructions")
c.send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
r, _ = c.until(1)
tools = {t["name"]: t for t in r["result"]["tools"]}
check(sorted(tools) == ["apply_fix", "findings", "mark_finding", "propose_fix", "review", "signals", "undo_fix"],
      "tools/list: %s" % sorted(tools))
check(all(t["inputSchema"]["type"] == "object" and t.get("title") and "annotations" in t for t in tools.values()),
      "each tool has an object schema, a title and annotations")
check(tools["findings"]["annotations"]["readOnlyHint"] and not tools["apply_fix"]["annotations"]["readOnlyHint"],
      "the hints say which tools write")

# A review: progress as rules settle, then the findings with their evidence.
r, notes = c.call(2, "review", {"rules": ["injection"]}, token="rv1")
progress = [n for n in notes if n.get("method") == "notifications/progress"]
check(progress and all(n["params"]["progressToken"] == "rv1" for n in progress),
      "progress notifications carry the token (%d)" % len(progress))
values = [n["params"]["progress"] for n in progress]
check(values == sorted(set(values)), "progress only grows: %s" % values)
last = progress[-1]["params"] if progress else {}
check(last.get("progress") == last.get("total") and all(n["params"]["total"] == last["total"] for n in progress) and
      last.get("message", "").startswith("review complete: 1 finding"),
      "the last progress reaches its total and says how the review ended: %s" % last)
check(any(n["params"].get("message", "").startswith("rule injection: attention; app.py:5 critical: Shell injection in run() (finding ")
          for n in progress), "a rule's progress streams its findings: %s" % [n["params"].get("message") for n in progress])
res = r["result"]
check(res["isError"] is False, "the review succeeded")
body = text(r)
check("Shell injection in run()" in body and "return subprocess.call(cmd, shell=True)" in body and
      "Pass a list" in body and "call the review tool again" in body,
      "the text is an instruction per finding: %r" % body[:300])
sc = res.get("structuredContent", {})
found = sc.get("findings", [])
check(len(found) == 1 and found[0]["rule_id"] == "injection" and found[0]["verified"] and
      found[0]["evidence"]["code_examined"] == "return subprocess.call(cmd, shell=True)",
      "structuredContent: the finding with its evidence, verified against the file")
finding = found[0]["id"] if found else 0
check(("finding %d" % finding) in body, "the text names the finding's id")
check(json_block(r) == sc and len(res["content"]) == 2,
      "the JSON report is also a text block, the same as structuredContent")

# A ping is answered while a slow review runs; a cancelled review gets no answer.
c.send({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "review", "arguments": {"rules": ["slow"], "no_cache": True}}})
time.sleep(0.3)
c.send({"jsonrpc": "2.0", "id": "p1", "method": "ping"})
m = c.recv(5)
check(m.get("id") == "p1" and m.get("result") == {}, "a ping is answered during the review: %s" % m)
r, _ = c.until(3, 30)
check(r["result"]["isError"] is False and "slow" in json.dumps(r["result"].get("structuredContent", {})),
      "then the slow review's answer")
# The slow rule settles after 2.5 s: no progress can have been sent before the cancellation.
c.send({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "review", "arguments": {"rules": ["slow"], "no_cache": True},
                   "_meta": {"progressToken": "cancelled"}}})
time.sleep(0.3)
c.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 4, "reason": "user"}})
c.send({"jsonrpc": "2.0", "id": 5, "method": "ping"})
m = c.recv(10)
check(m.get("id") == 5, "after a cancellation the next answer is the ping's, not the review's: %s" % m)
time.sleep(3)
c.send({"jsonrpc": "2.0", "id": 51, "method": "ping"})
r, notes = c.until(51, 10)
check(not [n for n in notes if n.get("params", {}).get("progressToken") == "cancelled"] and
      not [n for n in notes if n.get("id") == 4],
      "nothing more about the cancelled review, no progress either: %s" % notes)

# While a review runs: ping, findings and signals are answered at once (findings says the check still
# runs); a tool call that writes waits, and a read sent after it waits behind it: the order is kept.
c.send({"jsonrpc": "2.0", "id": 52, "method": "tools/call",
        "params": {"name": "review", "arguments": {"rules": ["slow"], "no_cache": True}}})
time.sleep(0.3)
start = time.time()
c.send({"jsonrpc": "2.0", "id": 53, "method": "tools/call", "params": {"name": "findings", "arguments": {}}})
m = c.recv(5)
check(m.get("id") == 53 and m["result"]["structuredContent"]["running"] is True and
      "still running" in m["result"]["content"][0]["text"] and time.time() - start < 1.5,
      "findings during a review: answered at once, saying the check still runs: %s" % m)
c.send({"jsonrpc": "2.0", "id": 54, "method": "tools/call", "params": {"name": "signals", "arguments": {}}})
m = c.recv(5)
check(m.get("id") == 54 and "result" in m, "signals (without run) during a review: answered at once")
c.send({"jsonrpc": "2.0", "id": 55, "method": "tools/call",
        "params": {"name": "mark_finding", "arguments": {"finding_id": 99999, "verdict": "accept"}}})
c.send({"jsonrpc": "2.0", "id": 56, "method": "tools/call", "params": {"name": "findings", "arguments": {}}})
c.send({"jsonrpc": "2.0", "id": 57, "method": "ping"})
order = [c.recv(10).get("id") for _ in range(4)]
check(order == [57, 52, 55, 56], "a ping goes by; the write waits for the review, the read after it too: %s" % order)

# findings: the latest review's, filtered.
r, _ = c.call(6, "findings", {"severity": "critical"})
check(r["result"]["structuredContent"]["findings"] == [] and "check " in text(r),
      "findings lists the latest answered review (the slow rule's: none)")
r, _ = c.call(60, "review", {"rules": ["injection"]})
finding = r["result"]["structuredContent"]["findings"][0]["id"]
r, _ = c.call(7, "findings", {"severity": "major", "file": "app.py"})
check(len(r["result"]["structuredContent"]["findings"]) == 1 and ("finding %d" % finding) in text(r),
      "findings filtered by severity and file: %s" % text(r))
r, _ = c.call(8, "findings", {"file": "other.py"})
check(r["result"]["structuredContent"]["findings"] == [] and "no findings match" in text(r), "and none elsewhere")

# Bad calls: arguments the model can correct (2025-11-25: a tool error), an unknown tool, an unknown method.
r, _ = c.call(9, "review", {"target": 42})
check(r["result"]["isError"] and 'argument "target"' in text(r), "a wrong argument type is a tool error: %s" % r)
r, _ = c.call(10, "mark_finding", {"finding_id": finding})
check(r["result"]["isError"] and '"verdict" is required' in text(r), "a missing argument is named")
r, _ = c.call(11, "no_such_tool")
check(r.get("error", {}).get("code") == -32602 and "no_such_tool" in r["error"]["message"], "an unknown tool: -32602")
c.send({"jsonrpc": "2.0", "id": 12, "method": "resources/list"})
r, _ = c.until(12)
check(r.get("error", {}).get("code") == -32601, "an unknown method: -32601")
c.send(b"{not json")
r = c.recv()
check(r.get("id") is None and r.get("error", {}).get("code") == -32700, "a parse error: -32700 with a null id")
c.send(b'{"jsonrpc": "2.0", "id": 13, "method": "tools/call", "params": {"name": "review", "arguments": '
       b'{"rules": ["' + b"x" * (1536 * 1024) + b'"]}}}')
r = c.recv()
check(r.get("id") == 13 and r.get("error", {}).get("code") == -32600 and "1 MiB" in r["error"]["message"],
      "a line over 1 MiB is dropped, answered to its id: %s" % str(r)[:200])
# The official TypeScript SDK writes the id last: read as the line goes by, past the limit.
c.send(b'{"method": "tools/call", "params": {"name": "review", "arguments": {"rules": ["}{\\"' + b"x" * (1536 * 1024) +
       b'"], "nested": [{"id": 1}]}}, "jsonrpc": "2.0", "id": "sdk-16"}')
r = c.recv()
check(r.get("id") == "sdk-16" and r.get("error", {}).get("code") == -32600,
      "an id after the first 1 MiB is read too (nested ids and brackets in strings are not it): %s" % str(r)[:200])
c.send(b'{"jsonrpc": "2.0", "pad": "' + b"x" * (1536 * 1024) + b'", "id": 17, "result": {}}')
c.send({"jsonrpc": "2.0", "id": 18, "method": "ping"})
r = c.recv()
check(r.get("id") == 18, "a response over the limit gets no answer (the next is the ping's): %s" % str(r)[:200])
for bare in (b"42", b"null", b'"ping"'):
    c.send(bare)
    r = c.recv()
    check(r.get("id") is None and r.get("error", {}).get("code") == -32600,
          "a bare %s is an invalid request, not a parse error: %s" % (bare.decode(), r))
c.send({"jsonrpc": "2.0", "id": 14, "method": "ping"})
r, _ = c.until(14)
check(r.get("result") == {}, "and the session goes on")
c.send([{"jsonrpc": "2.0", "id": 15, "method": "ping"}])
r = c.recv()
check(r.get("error", {}).get("code") == -32600 and "batch" in r["error"]["message"], "no batches in 2025-11-25")
c.send({"jsonrpc": "2.0", "id": None, "method": "ping"})
r = c.recv()
check(r.get("error", {}).get("code") == -32600 and r.get("id") is None, "a null id is an invalid request")

# A fix of the finding: proposed (nothing written), applied, undone byte for byte.
r, _ = c.call(20, "propose_fix", {"finding_id": finding})
before = open("app.py", "rb").read()
fix = r["result"].get("structuredContent", {}).get("fix_id")
check(not r["result"]["isError"] and fix and "cmd.split()" in text(r) and before == open(tmp + "/app.before", "rb").read(),
      "propose_fix: a diff and the fix's id, nothing written (%s)" % text(r)[:200])
r, _ = c.call(21, "apply_fix", {"fix_id": fix})
after = open("app.py").read()
check(not r["result"]["isError"] and "subprocess.call(cmd.split())" in after, "apply_fix writes it: %s" % text(r))
r, _ = c.call(22, "apply_fix", {"fix_id": fix})
check(r["result"]["isError"] and "no proposal to apply" in text(r), "a fix is applied once")
r, _ = c.call(23, "undo_fix", {"fix_id": fix})
check(not r["result"]["isError"] and open("app.py", "rb").read() == before, "undo_fix puts the file back byte for byte")
r, _ = c.call(24, "apply_fix", {"fix_id": 99999})
check(r["result"]["isError"] and "propose_fix" in text(r), "an unknown fix says to propose one")

# signals: the linters run on the changed files, their signals listed with ids.
r, _ = c.call(40, "signals")
check(not r["result"]["isError"] and "no signals yet" in text(r), "signals before any run says how to get some")
r, _ = c.call(41, "signals", {"run": True}, timeout=60)
sig = [s for s in r["result"]["structuredContent"]["signals"] if s["tool"] == "mypy"]
check(len(sig) == 1 and sig[0]["file"] == "app.py" and sig[0]["line"] == 5 and sig[0]["id"] > 0 and
      ("signal %d: app.py:5" % sig[0]["id"]) in text(r), "signals run: mypy's signal with its id: %s" % text(r))
r, _ = c.call(42, "signals")
check(any(s["tool"] == "mypy" for s in r["result"]["structuredContent"]["signals"]), "and kept for the next call")
# With no linter on PATH but the configured mypy, the others are "not installed", not "failed".
os.makedirs(tmp + "/nobin", exist_ok=True)
bare_path = Client(env=dict(os.environ, PATH=tmp + "/nobin"))
bare_path.initialize("2025-11-25")
r, _ = bare_path.call(1, "signals", {"run": True}, timeout=60)
linters = {l["name"]: l["outcome"] for l in r["result"]["structuredContent"].get("linters", [])}
check(linters.get("mypy") == "done" and linters.get("ruff") == "not installed" and
      linters.get("bandit") == "not installed" and "shellcheck" not in linters and
      "ruff: not installed, 1 changed file not checked" in text(r) and "failed" not in text(r),
      "signals names the linters that are not installed: %s / %s" % (linters, text(r)[:300]))
bare_path.close()

# mark_finding: a false positive is hidden in the next review.
r, _ = c.call(30, "mark_finding", {"finding_id": finding, "verdict": "false_positive", "note": "cmd is ours"})
check(not r["result"]["isError"] and "false positive" in text(r), "mark_finding: %s" % text(r))
r, _ = c.call(31, "review", {"rules": ["injection"]})
check(r["result"]["structuredContent"]["findings"] == [] and "nothing to change" in text(r),
      "the false positive is hidden in the next review")
check(all(json.loads(line) for line in c.lines), "every line revline wrote is one JSON message")
code = c.close()
check(code == 0, "the server ends with its input (exit %s)" % code)

# --- older and newer revisions (and -C: the repository of a directory) -----------
c = Client(cwd=tmp)
r = c.initialize("2025-03-26")
r, _ = c.call(9, "review", {"rules": ["injection"]})
check(r["result"]["isError"] and "not a git repository" in text(r),
      "outside a repository the review says so: %s" % text(r)[:200])
c.close()
c = Client("-C", repo, cwd=tmp)
r = c.initialize("2025-03-26")
check(r["result"]["protocolVersion"] == "2025-03-26", "2025-03-26 is kept")
r, _ = c.call(10, "review", {"rules": ["injection"]})
check(not r["result"]["isError"] and "revline reviewed" in text(r), "-C DIR serves DIR's repository: %s" % text(r)[:200])
c.send([{"jsonrpc": "2.0", "id": "a", "method": "ping"}, {"jsonrpc": "2.0", "method": "notifications/x"},
        {"jsonrpc": "2.0", "id": "b", "method": "tools/list"}])
r = c.recv()
check(isinstance(r, list) and sorted(x["id"] for x in r) == ["a", "b"], "2025-03-26: a batch gets its answers together")
tools = {t["name"]: t for t in next(x for x in r if x["id"] == "b")["result"]["tools"]}
check("title" not in tools["review"] and tools["review"]["annotations"].get("title"),
      "2025-03-26: the title is an annotation")
r, _ = c.call(1, "findings")
check("structuredContent" not in r["result"], "2025-03-26: no structuredContent")
r, _ = c.call(2, "review", {"target": 42})
check(r.get("error", {}).get("code") == -32602, "2025-03-26: a wrong argument is a protocol error")
c.close()
for asked, got in (("2025-06-18", "2025-06-18"), ("2024-11-05", "2025-11-25"), ("2099-01-01", "2025-11-25")):
    c = Client()
    r = c.initialize(asked)
    check(r["result"]["protocolVersion"] == got, "%s is answered with %s" % (asked, got))
    c.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": asked}})
    r, _ = c.until(1)
    check(r.get("error", {}).get("code") == -32600, "initialize twice is refused")
    c.close()

# The client leaves mid-review: the review stops (what arrived kept) and the server ends at once.
c = Client()
c.initialize("2025-11-25")
c.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "review", "arguments": {"rules": ["slow"], "no_cache": True}}})
time.sleep(0.3)
start = time.time()
code = c.close()
check(code == 0 and time.time() - start < 2, "closing the input mid-review ends the server (exit %s, %.1fs)"
      % (code, time.time() - start))

# --- the environment a client passes: Codex gives a server only its list of variables ------------
codex = {k: os.environ[k] for k in ("HOME", "LOGNAME", "PATH", "SHELL", "USER", "LANG", "LC_ALL", "TERM",
                                    "TMPDIR", "TZ") if k in os.environ}
c = Client(env=codex)
c.initialize("2025-11-25")
r, _ = c.call(1, "review", {"rules": ["injection"], "no_cache": True})
body = text(r)
check(not r["result"]["isError"] and body.startswith("Review incomplete: 1 of 1 rule did not run") and
      body.index("injection: skipped: no LLM is configured") < body.index("revline reviewed") and
      'env_vars = ["OPENAI_API_KEY"]' in body and "${env:OPENAI_API_KEY}" in body and
      r["result"]["structuredContent"]["rules_not_run"] == 1,
      "without the provider's variables the review says first that it is incomplete, why, and what to set: %s"
      % body[:600])
r, _ = c.call(2, "propose_fix", {"finding_id": finding})
check(r["result"]["isError"] and "needs an LLM" in text(r) and "env_vars" in text(r),
      "propose_fix without them says what to set too: %s" % text(r)[:300])
c.close()
# env_vars = ["OPENAI_API_KEY", "REVLINE_BASE_URL", "REVLINE_MODEL"]: the same review runs.
passed = dict(codex, **{k: os.environ[k] for k in ("OPENAI_API_KEY", "REVLINE_BASE_URL", "REVLINE_MODEL")})
c = Client(env=passed)
c.initialize("2025-11-25")
r, _ = c.call(1, "review", {"rules": ["injection"], "no_cache": True})
check(not r["result"]["isError"] and text(r).startswith("revline reviewed") and
      r["result"]["structuredContent"]["rules_not_run"] == 0,
      "with the variables passed the review runs: %s" % text(r)[:300])
# Rules that failed: named together under their reason, first; then what the others found.
r, _ = c.call(2, "review", {"rules": ["injection", "denied", "denied2"], "no_cache": True})
body = text(r)
lines = body.split("\n")
check(not r["result"]["isError"] and lines[0] == "Review incomplete: 2 of 3 rules did not run, so this is no verdict on the change." and
      lines[1].startswith("- denied, denied2 (2 rules): failed: ") and "Incorrect API key provided" in lines[1] and
      lines[2].startswith("Do not take what follows for the whole review: once what kept these rules from running is fixed, call the review tool again") and
      "What to set" not in body and
      "the 1 rule that ran found 1 finding" in body and "Shell injection in run()" in body,
      "failed rules are listed first, together under their reason: %s" % body[:700])
c.close()

sys.exit(1 if failures else 0)
PY

# The cancelled review is kept as cancelled (what arrived stored).
run history --json
python3 - "$TMP/out" <<'PY' && pass "the cancelled reviews are in the history" || fail "history: $(head -c 600 "$TMP/out")"
import json, sys
states = [c["status"] for c in json.load(open(sys.argv[1]))]
assert states.count("cancelled") == 2, states
PY
finish
