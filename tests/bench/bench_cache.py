#!/usr/bin/env python3
"""What the map prompt's layout gets from the providers' prompt caches.

    python3 tests/bench/bench_cache.py [--revline BIN] [--concurrency 5]
        [--prefill-ms 50] [--chunk-ms 5] [--runs 3]

Builds a repository whose change is about 20 KB of diff over several
files of real-looking Python, and runs `revline check` with 14 LLM rules
(revline's 8 built-in LLM rules, revline.builtinRules=all, and 6 of the
benchmark's own with broad patterns) against the fake LLM server
(tests/fakellm) simulating OpenAI's prompt cache (gpt-5-mini: 1,024-token
minimum, 128-token steps, prompt_cache_key partitions) and then
Anthropic's (claude-haiku-4-5: breakpoints, 4,096-token minimum). The
answers are streamed, and a cache entry is written when the first byte of
the answer goes out (cache_fill first_byte), as the real providers do.

Prints, for the map requests of each check (the fake's log):
  - prompt bytes per request (min / median / max) and the shared-prefix
    fraction: the longest common prefix of their prompt text (system
    prompt, then the user message) over the mean request length;
  - the share of map input tokens billed as cached, from the usage the
    fake answered (targets: >= 80% OpenAI, >= 70% Anthropic);
  - billed input against the layout before commit 1855d1e: the same
    requests with the rule part moved in front of the change (system
    prompt naming the rule, the rule, then the change; no prompt_cache_key,
    no cache_control, as revline sent them), replayed one after another
    through the fake's own PromptCache, priced from share/models.tsv
    (cached input at the cached price, cache writes at 1.25 x input);
    target: new / old <= 0.35;
  - warming: with prefill latency (--prefill-ms per 1,000 uncached
    tokens), the wall time (median of --runs), cached share and billed
    input of the check with revline.warmCache true and false, at
    --concurrency and at 14 (every rule at once), whether the log shows the
    warming (the other map requests sent after the first one's first
    byte), and whether warming pays.
The checks run with revline's defaults (streamed answers, warmCache auto)
but for warmCache in the warming runs, with the same prefill latency.
Figures, not a test: it exits 0 unless the harness itself failed.
"""
import argparse
import fnmatch
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SOURCE, "tests", "fakellm"))
import fake_llm  # noqa: E402  (its PromptCache, read_log, tokens)

PROVIDERS = (
    # name, revline provider, model, cache rules, target cached share
    ("OpenAI", "openai", "gpt-5-mini",
     {"cache": "openai", "cache_min_tokens": 1024, "cache_step_tokens": 128}, 0.80),
    ("Anthropic", "anthropic", "claude-haiku-4-5",
     {"cache": "anthropic", "cache_min_tokens": 4096}, 0.70),
)
TARGET_RATIO = 0.35
COMPLIANT = {"status": "compliant", "reasoning": "The change follows the rule.",
             "file_references": [], "findings": []}
MAP_SYSTEM = "You check a change against exactly one rule"
OLD_COMMIT = "1855d1e^"  # the map prompt before the cache layout

# The old system prompt, should git not have the history (a shallow clone).
OLD_SYSTEM = (
    "You are a senior code reviewer. You check a change against exactly one rule,\n"
    "{{rule_id}} (\"{{rule_name}}\"), and nothing else: other rules are checked by\n"
    "other reviewers. You report only what you can prove with code you quote, and\n"
    "you answer with one JSON object.\n")


# --- the repository -------------------------------------------------------

ENTITIES = ("order", "invoice", "customer", "shipment")

BASE_MODULE = '''"""Storage and HTTP handlers for {plural}."""
import json
import logging
import sqlite3
from dataclasses import dataclass, field
from typing import Optional

from app.db import connect
from app.http import Request, Response, json_response

log = logging.getLogger(__name__)


@dataclass
class {Cls}:
    id: int
    owner_id: int
    status: str = "new"
    amount_cents: int = 0
    notes: list = field(default_factory=list)

    def to_json(self) -> dict:
        return {{"id": self.id, "owner_id": self.owner_id, "status": self.status,
                "amount_cents": self.amount_cents, "notes": list(self.notes)}}


class {Cls}Store:
    def __init__(self, path: str):
        self.path = path

    def get(self, {name}_id: int) -> Optional[{Cls}]:
        with connect(self.path) as db:
            row = db.execute("SELECT id, owner_id, status, amount_cents FROM {plural} "
                             "WHERE id = ?", ({name}_id,)).fetchone()
        if row is None:
            return None
        return {Cls}(*row)

    def list_for(self, owner_id: int, limit: int = 50) -> list:
        with connect(self.path) as db:
            rows = db.execute("SELECT id, owner_id, status, amount_cents FROM {plural} "
                              "WHERE owner_id = ? ORDER BY id LIMIT ?",
                              (owner_id, limit)).fetchall()
        return [{Cls}(*row) for row in rows]


def handle_get(request: Request, store: {Cls}Store) -> Response:
    {name}_id = int(request.params["id"])
    found = store.get({name}_id)
    if found is None:
        return json_response({{"error": "not found"}}, status=404)
    return json_response(found.to_json())
'''

ADDED_CODE = '''

    def create(self, owner_id: int, amount_cents: int, notes=None) -> {Cls}:
        with connect(self.path) as db:
            cur = db.execute("INSERT INTO {plural} (owner_id, status, amount_cents) "
                             "VALUES (?, 'new', ?)", (owner_id, amount_cents))
            new_id = cur.lastrowid
            for note in notes or []:
                db.execute("INSERT INTO {name}_notes ({name}_id, body) VALUES (?, ?)",
                           (new_id, note))
        log.info("created {name} %s for owner %s", new_id, owner_id)
        return {Cls}(new_id, owner_id, "new", amount_cents, list(notes or []))

    def set_status(self, {name}_id: int, status: str) -> bool:
        if status not in ("new", "open", "paid", "cancelled", "archived"):
            raise ValueError("unknown status %r" % status)
        with connect(self.path) as db:
            cur = db.execute("UPDATE {plural} SET status = ? WHERE id = ?",
                             (status, {name}_id))
        return cur.rowcount == 1

    def search(self, owner_id: int, text: str, limit: int = 20) -> list:
        pattern = "%" + text.replace("%", "\\\\%").replace("_", "\\\\_") + "%"
        with connect(self.path) as db:
            rows = db.execute("SELECT p.id, p.owner_id, p.status, p.amount_cents "
                              "FROM {plural} p JOIN {name}_notes n ON n.{name}_id = p.id "
                              "WHERE p.owner_id = ? AND n.body LIKE ? ESCAPE '\\\\' "
                              "GROUP BY p.id ORDER BY p.id DESC LIMIT ?",
                              (owner_id, pattern, limit)).fetchall()
        return [{Cls}(*row) for row in rows]

    def total_for(self, owner_id: int, since: Optional[str] = None) -> int:
        query = "SELECT COALESCE(SUM(amount_cents), 0) FROM {plural} WHERE owner_id = ?"
        args = [owner_id]
        if since is not None:
            query += " AND created_at >= ?"
            args.append(since)
        with connect(self.path) as db:
            (total,) = db.execute(query, args).fetchone()
        return int(total)


def handle_create(request: Request, store: {Cls}Store) -> Response:
    try:
        body = json.loads(request.body or b"{{}}")
    except ValueError:
        return json_response({{"error": "the body is not JSON"}}, status=400)
    owner_id = request.user.id
    amount = body.get("amount_cents")
    if not isinstance(amount, int) or amount < 0 or amount > 10_000_000_00:
        return json_response({{"error": "amount_cents must be a non-negative integer"}},
                             status=422)
    notes = [str(n)[:500] for n in body.get("notes", [])][:20]
    created = store.create(owner_id, amount, notes)
    return json_response(created.to_json(), status=201)


def handle_status(request: Request, store: {Cls}Store) -> Response:
    {name}_id = int(request.params["id"])
    found = store.get({name}_id)
    if found is None or found.owner_id != request.user.id:
        return json_response({{"error": "not found"}}, status=404)
    status = request.query.get("status", "")
    try:
        changed = store.set_status({name}_id, status)
    except ValueError as e:
        return json_response({{"error": str(e)}}, status=422)
    except sqlite3.OperationalError:
        log.exception("set_status failed for {name} %s", {name}_id)
        return json_response({{"error": "try again later"}}, status=503)
    return json_response({{"changed": changed}})


def handle_search(request: Request, store: {Cls}Store) -> Response:
    text = request.query.get("q", "").strip()
    if not text:
        return json_response({{"results": []}})
    limit = min(int(request.query.get("limit", "20")), 100)
    found = store.search(request.user.id, text, limit)
    return json_response({{"results": [p.to_json() for p in found]}})
'''

CHANGED_GET = '''def handle_get(request: Request, store: {Cls}Store) -> Response:
    try:
        {name}_id = int(request.params["id"])
    except (KeyError, ValueError):
        return json_response({{"error": "id must be a number"}}, status=400)
    found = store.get({name}_id)
    if found is None or found.owner_id != request.user.id:
        return json_response({{"error": "not found"}}, status=404)
    return json_response(found.to_json())
'''

ROUTES = '''"""The routes of the service."""
from app import {imports}
from app.http import Router


def routes(router: Router, stores: dict) -> None:
{lines}
'''


def sh(cmd, cwd, env=None, capture=False):
    result = subprocess.run(cmd, cwd=cwd, env=env, shell=True, check=True,
                            stdout=subprocess.PIPE if capture else subprocess.DEVNULL)
    return result.stdout.decode() if capture else None


def git_env(root):
    return dict(os.environ, HOME=root, GIT_CONFIG_NOSYSTEM="1",
                GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@example.com",
                GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@example.com",
                GIT_AUTHOR_DATE="@1700000000 +0000", GIT_COMMITTER_DATE="@1700000000 +0000")


def entity_vars(name):
    return {"name": name, "Cls": name.capitalize(), "plural": name + "s"}


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def route_lines(names, with_new):
    out = []
    for name in names:
        out.append('    router.get("/%ss/<id>", %s.handle_get, stores["%s"])' % (name, name, name))
        if with_new:
            out.append('    router.post("/%ss", %s.handle_create, stores["%s"])' % (name, name, name))
            out.append('    router.post("/%ss/<id>/status", %s.handle_status, stores["%s"])'
                       % (name, name, name))
            out.append('    router.get("/%ss/search", %s.handle_search, stores["%s"])'
                       % (name, name, name))
    return "\n".join(out)


def make_repo(root):
    """A committed service, then a change of about 20 KB of diff: new methods and handlers."""
    repo = os.path.join(root, "repo")
    env = git_env(root)
    os.makedirs(repo)
    sh("git init -q -b main .", repo, env)
    for name in ENTITIES:
        write(os.path.join(repo, "app", name + ".py"), BASE_MODULE.format(**entity_vars(name)))
    write(os.path.join(repo, "app", "routes.py"),
          ROUTES.format(imports=", ".join(ENTITIES), lines=route_lines(ENTITIES, False)))
    sh("git add -A && git commit -q -m 'the service'", repo, env)
    sh("git checkout -q -b feature/stores", repo, env)
    for name in ENTITIES:
        v = entity_vars(name)
        text = BASE_MODULE.format(**v)
        head, tail = text.split("\n\ndef handle_get", 1)
        old_get = "def handle_get" + tail
        text = head + ADDED_CODE.format(**v) + "\n\n" + CHANGED_GET.format(**v)
        assert old_get.startswith("def handle_get")
        write(os.path.join(repo, "app", name + ".py"), text)
    write(os.path.join(repo, "app", "routes.py"),
          ROUTES.format(imports=", ".join(ENTITIES), lines=route_lines(ENTITIES, True)))
    sh("git commit -q -am 'stores: create, set_status, search and total; their handlers'",
       repo, env)
    diff = sh("git diff main", repo, env, capture=True)
    return repo, len(diff.encode()), diff.count("\ndiff --git") + 1


OWN_RULES = (
    ("sql-parameters", "SQL is built with parameters", "major", "security", '["**/*.py"]',
     "Every SQL statement takes its values as parameters (`?` placeholders and an\n"
     "argument tuple), never by string formatting, concatenation or f-strings, even\n"
     "for values that look safe (ids, enums, numbers). Table and column names that\n"
     "vary come from a fixed list in the code, never from the request.\n\n"
     "Bad:\n\n```python\ndb.execute(\"SELECT * FROM orders WHERE id = %s\" % order_id)\n```\n\n"
     "Good:\n\n```python\ndb.execute(\"SELECT * FROM orders WHERE id = ?\", (order_id,))\n```\n"),
    ("owner-checks", "Handlers check who owns what they touch", "critical", "security", '["**"]',
     "A handler that reads or changes a stored object by an id taken from the\n"
     "request checks that the object belongs to the requesting user (or that the\n"
     "user may act for its owner) before it answers with the object or changes it.\n"
     "The check answers 404, not 403, so that ids cannot be probed. A store method\n"
     "that lists or searches takes the owner as a parameter and filters by it in\n"
     "SQL, never after the fact in Python.\n"),
    ("http-status", "Handlers answer with the right status", "minor", "reliability", '["app/**"]',
     "A handler answers 400 for a request it cannot read (a body that is not JSON,\n"
     "a path parameter that is not a number), 422 for one it reads but refuses (a\n"
     "value out of range), 404 for an object that does not exist or is not the\n"
     "user's, 201 with the object for a creation, 503 when storage is unavailable\n"
     "for a while. It never lets an exception become a 500 for bad input.\n"),
    ("bounded-input", "Everything taken from a request is bounded", "major", "security",
     '["**/*.py", "**/*.js"]',
     "Lists, strings and numbers that come from a request are bounded before they\n"
     "are used: a list is cut or refused past a documented length, a string past a\n"
     "documented size, a number checked against its range. A `limit` from the query\n"
     "string has a maximum. Nothing from a request decides how much memory, time or\n"
     "database work a handler spends without a bound.\n"),
    ("transactions", "Related writes happen in one transaction", "major", "reliability", '["**"]',
     "Writes that belong together (a row and its child rows, a balance and its\n"
     "ledger line) are made in one transaction, so that a failure halfway leaves\n"
     "neither. With sqlite3, `with connect(...) as db:` commits at the end of the\n"
     "block and rolls back on an exception; two separate blocks are two\n"
     "transactions.\n"),
    ("logging-context", "Logs say what and which", "nitpick", "maintainability", '["**/*.py"]',
     "A log line names the operation and the object it is about (its kind and\n"
     "id), with %-style arguments rather than formatted strings, so that the line\n"
     "is cheap when the level is off and can be searched. Errors are logged once,\n"
     "where they are handled, with `log.exception` inside an `except` block.\n"),
)


def make_rules(root):
    rules = os.path.join(root, "rules")
    os.makedirs(rules)
    for rid, name, severity, category, patterns, body in OWN_RULES:
        write(os.path.join(rules, rid + ".md"),
              "---\nid: %s\nname: %s\nseverity: %s\ncategory: %s\npatterns: %s\n---\n# %s\n\n%s"
              % (rid, name, severity, category, patterns, name, body))
    return rules


# --- the fake server and the check ---------------------------------------

def start_server(root, tag, script):
    path = os.path.join(root, "script-%s.json" % tag)
    with open(path, "w") as f:
        json.dump(script, f)
    log = os.path.join(root, "log-%s.jsonl" % tag)
    port_file = os.path.join(root, "port-%s" % tag)
    proc = subprocess.Popen([sys.executable, os.path.join(SOURCE, "tests", "fakellm", "fake_llm.py"),
                             "--script", path, "--log", log, "--port-file", port_file],
                            stdout=subprocess.DEVNULL)
    for _ in range(500):
        if os.path.exists(port_file) and os.path.getsize(port_file):
            return proc, open(port_file).read().strip(), log
        time.sleep(0.01)
    proc.kill()
    raise SystemExit("bench_cache: the fake server did not start")


def run_check(a, root, repo, rules, provider, tag, cache_rules, extra_script=None,
              config=None, concurrency=None):
    """(wall seconds, the map requests of the fake's log) of one check."""
    name, kind, model = provider[:3]
    script = {"stream": True, "structured": True, "cache_fill": "first_byte",
              "default": {"answer": COMPLIANT, "chunk_chars": 64, "chunk_ms": a.chunk_ms}}
    script.update(cache_rules)
    script.update(extra_script or {})
    server, port, log = start_server(root, tag, script)
    env = dict(git_env(root), REVLINE_DB=os.path.join(root, "db-%s" % tag),
               REVLINE_PROVIDER=kind, REVLINE_BASE_URL="http://127.0.0.1:%s/v1" % port,
               REVLINE_MODEL=model, LANG="C.UTF-8")
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "XDG_CONFIG_HOME",
                "XDG_DATA_HOME", "REVLINE_DATADIR", "REVLINE_CONCURRENCY", "REVLINE_TIMEOUT"):
        env.pop(var, None)
    env["ANTHROPIC_API_KEY" if kind == "anthropic" else "OPENAI_API_KEY"] = "bench-key"
    settings = {"revline.builtinRules": "all"}
    settings.update(config or {})
    for key, value in settings.items():
        sh("git config %s %s" % (key, value), repo, env)
    try:
        start = time.monotonic()
        proc = subprocess.run([a.revline, "check", "--base", "main", "--rules", rules, "--no-cache",
                               "--fail-on", "none", "--no-fix-detection", "--format", "json",
                               "--concurrency", str(concurrency or a.concurrency)],
                              cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        wall = time.monotonic() - start
    finally:
        server.terminate()
        server.wait()
        for key in settings:
            sh("git config --unset %s" % key, repo, env)
    if proc.returncode not in (0, 1):
        raise SystemExit("bench_cache: revline check failed (%d): %s"
                         % (proc.returncode, proc.stderr.decode(errors="replace")))
    report = json.loads(proc.stdout)
    bad = [r for r in report["rules"] if r["status"] in ("error", "timeout", "skipped")]
    if bad:
        raise SystemExit("bench_cache: %s: rules did not answer: %s"
                         % (name, "; ".join("%s: %s" % (r["id"], r["error"]) for r in bad)))
    requests = [r for r in fake_llm.read_log(log)
                if r.get("status") == 200 and MAP_SYSTEM in prompt_text(r["body"])]
    return wall, requests


# --- reading the requests --------------------------------------------------

def blocks(content):
    if isinstance(content, str):
        return [content]
    return [b.get("text", "") for b in content or [] if isinstance(b, dict)]


def prompt_parts(body):
    """(system text, [user text blocks]) of an OpenAI or Anthropic body."""
    system = blocks(body.get("system")) if "system" in body else []
    user = []
    for msg in body.get("messages", []):
        if msg.get("role") == "system":
            system += blocks(msg.get("content"))
        else:
            user += blocks(msg.get("content"))
    return "".join(system), user


def prompt_text(body):
    system, user = prompt_parts(body)
    return system + "\n" + "".join(user)


def usage_counts(usage, kind):
    """(input tokens in all, cached, cache writes) from an answer's usage."""
    if kind == "anthropic":
        read = usage.get("cache_read_input_tokens", 0)
        write_ = usage.get("cache_creation_input_tokens", 0)
        return usage.get("input_tokens", 0) + read + write_, read, write_
    cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens", 0)
    return usage.get("prompt_tokens", 0), cached, 0


def prices(model, kind):
    """(input, cached) USD per million tokens from share/models.tsv."""
    with open(os.path.join(SOURCE, "share", "models.tsv")) as f:
        for line in f:
            cols = line.split()
            if not cols or cols[0].startswith("#") or len(cols) != 11:
                continue
            if fnmatch.fnmatchcase(model, cols[0]) and cols[1] in (kind, "any"):
                return float(cols[8]), float(cols[9])
    raise SystemExit("bench_cache: share/models.tsv has no price for %s" % model)


def billed(counts, price):
    """USD of the input side: uncached, cached, cache writes at 1.25 x input."""
    total, cached, written = counts
    return ((total - cached - written) * price[0] + cached * price[1] +
            written * 1.25 * price[0]) / 1e6


# --- the layout before 1855d1e ----------------------------------------------

def old_system_template():
    try:
        text = subprocess.run(["git", "show", OLD_COMMIT + ":share/prompts/map.md"], cwd=SOURCE,
                              check=True, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL).stdout.decode()
        return text.split("<<<system>>>\n", 1)[1].split("<<<user>>>", 1)[0]
    except (subprocess.CalledProcessError, OSError, IndexError):
        return OLD_SYSTEM


def rule_of(tail):
    """(id, name) from the rule part's heading: '# Rule ID: NAME'."""
    head = tail.lstrip().split("\n", 1)[0]
    rid, _, name = head[len("# Rule "):].partition(": ")
    return rid, name


def old_body(body, kind, template):
    """The request as revline sent it before: rule first, no cache hints."""
    system, user = prompt_parts(body)
    if len(user) == 2:
        shared, tail = user
    else:  # OpenAI: one user message, the rule part after the shared one
        text = user[0]
        at = text.index("# Rule ")
        shared, tail = text[:at], text[at:]
    rid, name = rule_of(tail)
    old_sys = template.replace("{{rule_id}}", rid).replace("{{rule_name}}", name).rstrip("\n")
    old_user = tail.rstrip("\n") + "\n\n" + shared
    keep = {k: v for k, v in body.items() if k in ("model", "tools", "tool_choice",
                                                    "response_format")}
    if kind == "anthropic":
        return dict(keep, system=old_sys, messages=[{"role": "user", "content": old_user}])
    return dict(keep, messages=[{"role": "system", "content": old_sys},
                                {"role": "user", "content": old_user}])


def replay(bodies, kind, cache_rules):
    """Input token counts of the bodies sent one after another through the fake's cache."""
    cache = fake_llm.PromptCache(kind, cache_rules["cache_min_tokens"],
                                 cache_rules.get("cache_step_tokens", 128), "complete")
    out = []
    for body in bodies:
        req = types.SimpleNamespace(json=body, model=body.get("model"))
        total = fake_llm.tokens(fake_llm.prompt_chars(body))
        counts, fill = cache.lookup(req, total)
        fill()
        if kind == "anthropic":
            out.append((total, counts["cache_read_input_tokens"],
                        counts["cache_creation_input_tokens"]))
        else:
            out.append((total, counts["cached_tokens"], 0))
    return out


# --- the figures -------------------------------------------------------------

def common_prefix(texts):
    return len(os.path.commonprefix(texts)) if texts else 0


def sums(counts):
    return tuple(sum(c[i] for c in counts) for i in range(3))


def verdict(ok):
    return "PASS" if ok else "MISS"


def layout_figures(requests):
    texts = [prompt_text(r["body"]) for r in requests]
    sizes = [len(t.encode()) for t in texts]
    mean_chars = statistics.mean(len(t) for t in texts)
    return sizes, common_prefix(texts) / mean_chars


def warmed_in_log(requests):
    """Whether the map requests after the first were sent once its first byte went out."""
    first = min(requests, key=lambda r: r["start"])
    others = [r for r in requests if r is not first]
    return first.get("first_byte") is not None and all(
        r["start"] >= first["first_byte"] for r in others)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--revline", default=os.path.join(SOURCE, "build", "bin", "revline"))
    ap.add_argument("--concurrency", type=int, default=5, help="revline's default: 5")
    ap.add_argument("--prefill-ms", type=float, default=50,
                    help="the fake's prefill latency per 1,000 uncached tokens (warming runs)")
    ap.add_argument("--runs", type=int, default=3, help="runs of each warming case (median wall)")
    ap.add_argument("--chunk-ms", type=float, default=5,
                    help="the fake's pause between streamed pieces of an answer")
    a = ap.parse_args()
    if not os.access(a.revline, os.X_OK):
        raise SystemExit("bench_cache: no revline at %s (build it, or pass --revline)" % a.revline)

    root = tempfile.mkdtemp(prefix="revline-bench-cache-")
    try:
        repo, diff_bytes, nfiles = make_repo(root)
        rules = make_rules(root)
        template = old_system_template()
        print("revline check: a change of %d files, %.1f KB of diff; 14 LLM rules (8 built-in,"
              " 6 the benchmark's), concurrency %d, revline's defaults; the fake streams,"
              " writes its cache at an answer's first byte and reads %g ms per 1,000 uncached"
              " tokens" % (nfiles, diff_bytes / 1024.0, a.concurrency, a.prefill_ms))
        for provider in PROVIDERS:
            report_provider(a, root, repo, rules, provider, template)
        print()
        print("Warming (revline.warmCache true / false), the fake as above")
        for provider in PROVIDERS:
            report_warming(a, root, repo, rules, provider)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


def report_provider(a, root, repo, rules, provider, template):
    name, kind, model, cache_rules, target = provider
    wall, requests = run_check(a, root, repo, rules, provider, "%s-main" % kind, cache_rules,
                               {"prefill_ms_per_1k_tokens": a.prefill_ms})
    sizes, fraction = layout_figures(requests)
    counts = [usage_counts(r["usage"], kind) for r in requests]
    total, cached, written = sums(counts)
    share = cached / total if total else 0.0
    price = prices(model, kind)
    new_cost = billed((total, cached, written), price)
    ordered = [r["body"] for r in sorted(requests, key=lambda r: r["start"])]
    old = sums(replay([old_body(b, kind, template) for b in ordered], kind, cache_rules))
    new_replayed = sums(replay(ordered, kind, cache_rules))
    old_cost = billed(old, price)
    ratio = new_cost / old_cost if old_cost else float("nan")
    print()
    print("%s (%s, %s cache: %d-token minimum%s; $%.3g / $%.3g per M input / cached)"
          % (name, model, kind, cache_rules["cache_min_tokens"],
             ", %d-token steps" % cache_rules["cache_step_tokens"]
             if "cache_step_tokens" in cache_rules else ", breakpoints", price[0], price[1]))
    print("  %-46s %d (%d streamed), wall %.2f s, warmed: %s"
          % ("map requests", len(requests), sum(bool(r["stream"]) for r in requests), wall,
             "yes" if warmed_in_log(requests) else "no"))
    if not any(r["stream"] for r in requests):
        print("  note: no request asked for a streamed answer, though revline.stream is true by"
              " default: no warming")
    print("  %-46s %d / %d / %d" % ("prompt bytes per request, min / median / max",
                                     min(sizes), statistics.median(sizes), max(sizes)))
    print("  %-46s %.1f%%" % ("shared prefix / mean request length", 100 * fraction))
    print("  %-46s %d in, %d cached, %d cache writes" % ("map input tokens (the fake's usage)",
                                                          total, cached, written))
    print("  %-46s %.1f%%   target >= %d%% %s" % ("cached share of map input tokens", 100 * share,
                                                  round(100 * target), verdict(share >= target)))
    print("  %-46s $%.5f" % ("billed input, this layout", new_cost))
    print("  %-46s $%.5f   (%d in, %d cached, %d writes)"
          % ("billed input, the layout before 1855d1e", old_cost, old[0], old[1], old[2]))
    print("  %-46s %.2fx   target <= %.2fx %s" % ("new / old billed input", ratio, TARGET_RATIO,
                                                 verdict(ratio <= TARGET_RATIO)))
    print("  %-46s %.2fx   (%.1f%% cached)" % ("  the same, both replayed one after another",
                                                 billed(new_replayed, price) / old_cost,
                                                 100 * new_replayed[1] / new_replayed[0]))


def report_warming(a, root, repo, rules, provider):
    name, kind, model, cache_rules, _ = provider
    price = prices(model, kind)
    print("  %s (%s), median wall of %d runs" % (name, model, a.runs))
    print("    %-26s %8s %8s %9s %9s  %s" % ("", "wall", "cached", "billed", "streamed",
                                            "warmed (log)"))
    results = {}
    for concurrency in sorted({a.concurrency, len(OWN_RULES) + 8}):
        for warm in ("true", "false"):
            walls = []
            for run in range(a.runs):
                tag = "%s-warm-%s-%d-%d" % (kind, warm, concurrency, run)
                wall, requests = run_check(a, root, repo, rules, provider, tag, cache_rules,
                                           {"prefill_ms_per_1k_tokens": a.prefill_ms},
                                           {"revline.warmCache": warm}, concurrency)
                walls.append(wall)
            counts = sums([usage_counts(r["usage"], kind) for r in requests])
            cost, warmed = billed(counts, price), warmed_in_log(requests)
            results[concurrency, warm] = (statistics.median(walls), cost, warmed)
            print("    %-26s %7.2fs %7.1f%% $%.5f %6d/%-2d  %s"
                  % ("concurrency %d, warm %s" % (concurrency, warm), results[concurrency, warm][0],
                     100 * counts[1] / counts[0], cost, sum(bool(r["stream"]) for r in requests),
                     len(requests), "yes" if warmed else "no"))
    for concurrency in sorted({c for c, _ in results}):
        on, off = results[concurrency, "true"], results[concurrency, "false"]
        if off[2] or not on[2]:
            print("    concurrency %d: revline.warmCache had no effect (warmed with true: %s, with"
                  " false: %s): was the setting read?" % (
                      concurrency, "yes" if on[2] else "no", "yes" if off[2] else "no"))
            continue
        print("    concurrency %d: warming bills %.2fx the input for %+.2f s of wall time: %s"
              % (concurrency, on[1] / off[1], on[0] - off[0],
                 "it pays" if on[1] < off[1] else "it does not pay"))


if __name__ == "__main__":
    sys.exit(main())
