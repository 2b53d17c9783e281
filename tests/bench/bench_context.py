#!/usr/bin/env python3
"""Whether the model sees the callers a change breaks: context-aware review
(issue 26), measured on the real history of real repositories.

    python3 tests/bench/bench_context.py [--revline BIN] [--max-cases 25]
        [--seed 26] [--max-files 30] [--control] [--no-pack] [--json] [--keep]
        REPO...

REPO: paths of git clones with their history (nothing is fetched). For each,
context_mine.py mines up to --max-cases commits that changed a function's
parameters or name in one file (the definition's file) and rewrote its call
sites in other files of the same language (Python, C). The change under
review is the parent commit's working tree with only the definition's file
of the commit written over it, so the call sites are stale:
`revline check --base HEAD` there, in a clone made for the run under a
temporary directory (`git clone --shared`: the repository given is only
read), with revline's 8 built-in LLM rules (revline.builtinRules all) and
one of the benchmark's own (call-sites, on every file), against the fake
LLM server (tests/fakellm), which answers every rule compliant at once and
logs every request. Each case is checked with `revline.context none` (the
diff only: today's review) and with `revline.context pack` twice (a fresh
database, then the same one: cold and warm).

Prints, per repository and over all:

  - mining: the commits walked, those read (diffs scanned), the cases, the
    time it took, the files in the cases' trees;
  - the share of cases with a stale call site in a map request (any rule's):
    a request whose messages hold the caller file's path and the text of one
    of its stale lines (whitespace runs made one space) more often than the
    diff of the definition's file does (a caller's line such as `name,` in
    a table of functions can be a line of that diff too). Target with the
    pack: >= 90%;
  - the mean size of a map request (the bytes of its messages' text) with the
    pack against today's. Target: <= 1.6x;
  - the cached share under OpenAI's prompt caching (below), today's and the
    pack's. Target: >= 80%;
  - the time to build the pack, as revline reports it in the JSON report
    (`context.build_ms`, or another number ending in `_ms` or `_s` under
    `context`): cold (the check with a fresh database) and warm (the second
    check of the same change), median and slowest case. Targets: <= 3 s cold
    and <= 300 ms warm on a curl-sized repository (4,000 files), judged on
    the slowest case whose tree has 3,500 files or more;
  - checks that failed (revline's exit status, or a rule that did not run).

--control adds a check with the bench's rule carrying the case's caller
files as its context files (revline.context none): the stale lines are then
in the requests, so its share shows that the measure finds them (100%
expected; less would be a fault of the measure, or of revline's context
files).
When revline refuses `revline.context pack`, or when the setting changes
nothing (the first case's requests are the same as with `none` and the
report has no `context`), the pack's figures are "not available in this
build" and only today's are measured. `revline.context tools` (the model
asking for files) is not measured: the fake answers at once, without tool
calls.

The cached share follows OpenAI's documented prompt caching: caching applies
to prompts of 1,024 tokens or more; "cache hits require an exact, repeated
prefix match and works automatically for prompts containing 1024 tokens or
more, with cache hits occurring in increments of 128 tokens"
(openai/openai-cookbook, examples/Prompt_Caching_201.ipynb, section 1.1;
https://platform.openai.com/docs/guides/prompt-caching: cached_tokens is 0
under 1,024 tokens). The rule implemented: a map request's prompt is its
messages' text in order; its tokens are estimated as bytes / 4; its cached
prefix is the longest common prefix with an earlier request (in the fake's
order of arrival) of the same check with the same model, prompt_cache_key,
response_format and tools (all of which come before the messages or
partition the cache); cached tokens are 0 when the prompt or that prefix is
under 1,024 tokens, else 1,024 + 128 * floor((prefix - 1,024) / 128). The
share is the cached tokens over all input tokens of the requests, summed
over a repository's checks. This assumes an earlier request's prefix is in
the cache when a later one arrives, which revline's cache warming
(revline.warmCache) arranges; requests sent at the same instant miss on the
real service.

Figures, not a test: a missed target is reported; it exits 0 unless the
harness itself failed (a repository that is not one, no ctags, no revline).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SOURCE, "tests", "fakellm"))
sys.path.insert(0, HERE)
import context_mine  # noqa: E402
import fakellm_proc  # noqa: E402

MAP_SYSTEM = "You check a change against exactly one rule"
MODEL = "gpt-5-mini"
COMPLIANT = {"status": "compliant", "reasoning": "The change follows the rule.",
             "file_references": [], "findings": []}
TARGETS = {"stale": 0.90, "ratio": 1.6, "cached": 0.80, "cold_ms": 3000, "warm_ms": 300}
CACHE_MIN, CACHE_STEP = 1024, 128
MODES = ("none", "pack_cold", "pack_warm", "control")
BIG_TREE = 3500  # a curl-sized tree, for the pack's time targets
RULE = """---
id: call-sites
name: Callers follow a changed function
severity: major
category: correctness
patterns: ["**"]
---
# Callers follow a changed function

When a change adds, removes, reorders or renames a function's parameters, or
renames the function, every call site in the repository passes what the new
signature takes: the same number of arguments, in the new order, of the new
types, under the new name. A caller left with the old signature is a finding,
at the caller's line.
"""


# --- a check of one case ----------------------------------------------------

def run(cmd, cwd, env=None, timeout=None):
    return subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=timeout)


def git(repo, *args):
    proc = run(("git",) + args, repo)
    if proc.returncode:
        raise SystemExit("bench_context: git %s failed in %s: %s"
                         % (" ".join(args), repo, proc.stderr.decode(errors="replace").strip()))
    return proc.stdout


def check_env(root, port):
    env = dict(os.environ, HOME=root, GIT_CONFIG_NOSYSTEM="1", LANG="C.UTF-8",
               REVLINE_PROVIDER="openai", REVLINE_BASE_URL="http://127.0.0.1:%s/v1" % port,
               REVLINE_MODEL=MODEL, OPENAI_API_KEY="bench-key")
    for var in ("ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
                "REVLINE_DATADIR", "REVLINE_CONCURRENCY", "REVLINE_TIMEOUT", "REVLINE_DB",
                "GIT_DIR", "GIT_WORK_TREE"):
        env.pop(var, None)
    return env


def prepare(clone, case, src):
    """The parent's tree with only the definition's file of the commit; its diff's text,
    whitespace runs made one space."""
    git(clone, "checkout", "-q", "-f", "--detach", case["parent"])
    git(clone, "clean", "-q", "-f", "-d", "-x")
    blob = git(src, "cat-file", "blob", "%s:%s" % (case["commit"], case["definition_file"]))
    with open(os.path.join(clone, case["definition_file"]), "wb") as f:
        f.write(blob)
    diff = git(clone, "diff", "--no-color", "-U3", "HEAD", "--", case["definition_file"])
    return context_mine.norm(diff.decode("utf-8", "replace"))


def pack_ms(report):
    """The pack's build time revline reports (ms), or None."""
    ctx = report.get("context") if isinstance(report, dict) else None
    if not isinstance(ctx, dict):
        return None
    for key in ("build_ms", "pack_ms", "duration_ms", "elapsed_ms", "ms"):
        if isinstance(ctx.get(key), (int, float)) and not isinstance(ctx.get(key), bool):
            return float(ctx[key])
    for key, value in sorted(ctx.items()):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if key.endswith("_ms"):
                return float(value)
            if key.endswith("_s"):
                return float(value) * 1000
    return None


class Log:
    """The fake's log read as it grows: the requests that arrived since the last call,
    one merged record per n as fake_llm.read_log makes them."""

    def __init__(self, path):
        self.path, self.offset, self.last = path, 0, 0

    def new_requests(self):
        records = {}
        if os.path.exists(self.path):
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
            data = data[:data.rfind(b"\n") + 1]  # a line still being written waits
            self.offset += len(data)
            for line in data.splitlines():
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if rec.get("n", 0) > self.last:
                    records.setdefault(rec["n"], {}).update(rec)
        if records:
            self.last = max(records)
        return [records[n] for n in sorted(records)]


def one_check(a, clone, env, log, mode, db, rules_dir=None):
    """A check of the clone's working tree: its report, map requests and failure, if any."""
    git(clone, "config", "revline.context", "none" if mode == "control" else mode)
    log.new_requests()  # what came before is not this check's
    out = {"mode": mode, "wall_s": None, "exit": None, "requests": [], "report": None,
           "error": None}
    start = time.monotonic()
    try:
        proc = run([a.revline, "check", "--base", "HEAD", "--rules", rules_dir or a.rules_dir,
                    "--no-cache", "--fail-on", "none", "--no-fix-detection", "--format", "json",
                    "-y", "--concurrency", str(a.concurrency)], clone, dict(env, REVLINE_DB=db),
                   timeout=a.timeout)
    except subprocess.TimeoutExpired:
        out["error"] = "timed out after %d s" % a.timeout
        return out
    out.update(wall_s=time.monotonic() - start, exit=proc.returncode)
    out["requests"] = [r for r in log.new_requests() if isinstance(r.get("body"), dict)
                       and MAP_SYSTEM in prompt_text(r["body"])]
    stderr = proc.stderr.decode(errors="replace").strip()
    try:
        out["report"] = json.loads(proc.stdout)
    except ValueError:
        out["error"] = "exit %d: %s" % (proc.returncode, stderr.splitlines()[-1] if stderr else
                                        "no JSON report")
        return out
    bad = [r for r in out["report"].get("rules", []) if r.get("status") in
           ("error", "timeout", "skipped")]
    if proc.returncode not in (0, 1) or bad:
        out["error"] = "exit %d: %s" % (proc.returncode, "; ".join(
            "%s: %s" % (r.get("id"), r.get("error")) for r in bad) or stderr[-300:])
    return out


# --- reading the requests ---------------------------------------------------

def blocks(content):
    if isinstance(content, str):
        return [content]
    return [b.get("text", "") for b in content or [] if isinstance(b, dict)]


def prompt_text(body):
    """The text of a request's messages, in order (system first)."""
    parts = blocks(body.get("system")) if "system" in body else []
    for msg in body.get("messages", []) or []:
        if isinstance(msg, dict):
            parts += blocks(msg.get("content"))
    return "\n".join(parts)


def cache_partition(body):
    return json.dumps([body.get(k) for k in ("model", "prompt_cache_key", "response_format",
                                             "tools")], sort_keys=True)


def common_prefix(x, y):
    """The length of the longest common prefix of two byte strings."""
    lo, hi = 0, min(len(x), len(y))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if x[:mid] == y[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def cached_tokens(prefix_bytes, total_tokens):
    prefix = prefix_bytes // 4
    if total_tokens < CACHE_MIN or prefix < CACHE_MIN:
        return 0
    return min(total_tokens, CACHE_MIN + CACHE_STEP * ((prefix - CACHE_MIN) // CACHE_STEP))


def request_figures(requests):
    """[(bytes, tokens, cached tokens)] of a check's map requests, in arrival order."""
    out, seen = [], []
    for rec in sorted(requests, key=lambda r: r["n"]):
        body = rec["body"]
        text = prompt_text(body).encode()
        part = cache_partition(body)
        prefix = max((common_prefix(text, t) for p, t in seen if p == part), default=0)
        tokens = -(-len(text) // 4)
        out.append((len(text), tokens, cached_tokens(prefix, tokens)))
        seen.append((part, text))
    return out


def stale_hits(case, requests):
    """The stale call sites some request shows: it holds the caller's path, and the line's
    text more often than the diff of the definition's file does (a caller's line can be
    the same as one of that diff: `name,` in a table of functions)."""
    texts = [" ".join(prompt_text(r["body"]).split()) for r in requests]
    hits = []
    for site in case["stale_sites"]:
        line = context_mine.norm(site["text"])
        if any(site["file"] in t and t.count(line) > case["diff_text"].count(line)
               for t in texts):
            hits.append(site)
    return hits


def summarize(check, case):
    if check is None:
        return None
    figs = request_figures(check["requests"])
    hits = stale_hits(case, check["requests"]) if check["requests"] else []
    return {"mode": check["mode"], "error": check["error"], "exit": check.get("exit"),
            "wall_s": check.get("wall_s"), "requests": len(figs),
            "bytes": [f[0] for f in figs], "tokens": sum(f[1] for f in figs),
            "cached_tokens": sum(f[2] for f in figs), "stale_hits": hits,
            "pack_ms": pack_ms(check["report"]) if check.get("report") else None}


# --- a repository -----------------------------------------------------------

def bench_repo(a, src):
    name = os.path.basename(os.path.normpath(src))
    print("bench_context: %s: mining ..." % name, file=sys.stderr, flush=True)
    cases, stats = context_mine.mine(src, a.max_cases, a.seed, a.max_files)
    result = {"repository": name, "path": src, "mining": stats, "cases": [], "pack": None}
    if not cases:
        result["pack"] = "no case mined"
        return result
    root = tempfile.mkdtemp(prefix="bench_context-%s-" % name)
    clone = os.path.join(root, "repo")
    server = None
    try:
        git(root, "clone", "-q", "--shared", "--no-checkout", src, clone)
        git(clone, "config", "revline.builtinRules", "all")
        script = os.path.join(root, "script.json")
        with open(script, "w") as f:
            json.dump({"stream": True, "structured": True,
                       "default": {"answer": COMPLIANT, "chunk_chars": 4096}}, f)
        server, port = fakellm_proc.start(script, root, "bench_context")
        env, log = check_env(root, port), Log(os.path.join(root, "log.jsonl"))
        pack_state = "not measured (--no-pack)" if a.no_pack else None
        for i, case in enumerate(cases):
            print("bench_context: %s: case %d/%d %s %s" % (name, i + 1, len(cases),
                  case["commit"][:10], case["definition_file"]), file=sys.stderr, flush=True)
            case = dict(case, diff_text=prepare(clone, case, src))
            files = len(git(clone, "ls-files").splitlines())
            db = os.path.join(root, "db-%d" % i)
            today = one_check(a, clone, env, log, "none", db + "-none.sqlite")
            cold = warm = None
            if pack_state in (None, "available"):
                cold = one_check(a, clone, env, log, "pack", db + "-pack.sqlite")
                if pack_state is None:  # the first case says whether there is a pack
                    pack_state = pack_verdict(today, cold) or "available"
                if pack_state == "available":
                    warm = one_check(a, clone, env, log, "pack", db + "-pack.sqlite")
                else:
                    cold = None
            control = None
            if a.control:
                control = one_check(a, clone, env, log, "control", db + "-control.sqlite",
                                    control_rules(root, case))
            for path in os.listdir(root):
                if path.startswith("db-%d-" % i):
                    os.unlink(os.path.join(root, path))
            entry = dict(case, tree_files=files, none=summarize(today, case),
                         pack_cold=summarize(cold, case), pack_warm=summarize(warm, case),
                         control=summarize(control, case))
            del entry["diff_text"]
            result["cases"].append(entry)
        result["pack"] = pack_state
    finally:
        if server is not None:
            server.terminate()
            server.wait()
        if a.keep:
            print("bench_context: %s: kept %s" % (name, root), file=sys.stderr)
        else:
            shutil.rmtree(root, ignore_errors=True)
    return result


def control_rules(root, case):
    """The bench's rule with the case's caller files as its context files."""
    rules = os.path.join(root, "control-rules")
    os.makedirs(rules, exist_ok=True)
    head, body = RULE.split("patterns: [\"**\"]\n", 1)
    with open(os.path.join(rules, "call-sites.md"), "w") as f:
        f.write(head + "patterns: [\"**\"]\ncontext_files: %s\n" % json.dumps(case["caller_files"])
                + body)
    return rules


def pack_verdict(today, pack):
    """None when the pack ran; else why its figures are not available."""
    if pack["report"] is None and pack["exit"] == 2:
        return "not available in this build (revline refuses revline.context pack: %s)" \
            % pack["error"]
    if pack["error"] and not pack["requests"]:
        return "not available in this build (%s)" % pack["error"]
    same = sorted(prompt_text(r["body"]) for r in today["requests"]) == \
        sorted(prompt_text(r["body"]) for r in pack["requests"])
    if same and not (pack["report"] or {}).get("context"):
        return "not available in this build (revline.context pack changes nothing)"
    return None


# --- figures ----------------------------------------------------------------

def figures(cases, pack):
    ok = [c for c in cases if c["none"] and not c["none"]["error"]]
    out = {"cases": len(cases), "checked": len(ok),
           "failed_checks": sum(1 for c in cases for m in MODES if c.get(m) and c[m]["error"]),
           "stale_sites": sum(len(c["stale_sites"]) for c in ok)}
    for mode in ("none", "pack_cold", "control"):
        runs = [c[mode] for c in ok if c.get(mode) and not c[mode]["error"]]
        sizes = [b for r in runs for b in r["bytes"]]
        tokens = sum(r["tokens"] for r in runs)
        out[mode] = {
            "cases": len(runs),
            "stale_cases": sum(1 for r in runs if r["stale_hits"]),
            "stale_share": (sum(1 for r in runs if r["stale_hits"]) / len(runs)) if runs else None,
            "stale_sites_shown": sum(len(r["stale_hits"]) for r in runs),
            "requests": len(sizes),
            "mean_request_bytes": statistics.mean(sizes) if sizes else None,
            "cached_share": (sum(r["cached_tokens"] for r in runs) / tokens) if tokens else None,
            "median_check_s": statistics.median(r["wall_s"] for r in runs) if runs else None,
        }
    a, b = out["none"]["mean_request_bytes"], out["pack_cold"]["mean_request_bytes"]
    out["size_ratio"] = b / a if a and b else None
    trees = [c["tree_files"] for c in ok]
    out["tree_files"] = {"median": statistics.median(trees), "max": max(trees)} if trees else None
    for mode, key in (("pack_cold", "cold_ms"), ("pack_warm", "warm_ms")):
        for name, least in ((key, 0), ("big_" + key, BIG_TREE)):
            times = [c[mode]["pack_ms"] for c in ok if c[mode] and c[mode]["pack_ms"] is not None
                     and c["tree_files"] >= least]
            out[name] = {"median": statistics.median(times), "max": max(times),
                         "n": len(times)} if times else None
    out["pack"] = pack
    return out


def pct(x):
    return "n/a" if x is None else "%.0f%%" % (100 * x)


def cell_stale(f, mode):
    m = f[mode]
    if not m["cases"]:
        return "n/a"
    return "%s (%d/%d)" % (pct(m["stale_share"]), m["stale_cases"], m["cases"])


def cell_ms(t):
    if t is None:
        return "n/a"
    return "%.0f / %.0f ms" % (t["median"], t["max"])


def table(results, overall):
    cols = [(r["repository"], r["figures"], r["mining"]) for r in results]
    cols.append(("overall", overall, None))
    rows = [
        ("language", lambda f, m, r: r and ",".join(sorted({c["language"] for c in r["cases"]}))
         or ""),
        ("commits walked / read", lambda f, m, r: m and "%d / %d" % (m["commits_walked"],
                                                                     m["commits_scanned"]) or ""),
        ("cases (stale call sites)", lambda f, m, r: "%d (%d)" % (f["cases"], f["stale_sites"])),
        ("mining time", lambda f, m, r: m and "%.1f s" % m["mining_s"] or ""),
        ("files in the tree (median / max)", lambda f, m, r: f["tree_files"] and "%d / %d" % (
            f["tree_files"]["median"], f["tree_files"]["max"]) or "n/a"),
        ("stale call site shown: today", lambda f, m, r: cell_stale(f, "none")),
        ("  with the pack (>= 90%)", lambda f, m, r: cell_stale(f, "pack_cold")),
        ("mean request bytes: today", lambda f, m, r: fmt_int(f["none"]["mean_request_bytes"])),
        ("  with the pack", lambda f, m, r: fmt_int(f["pack_cold"]["mean_request_bytes"])),
        ("  pack / today (<= 1.6x)", lambda f, m, r: "n/a" if f["size_ratio"] is None
         else "%.2fx" % f["size_ratio"]),
        ("cached share: today", lambda f, m, r: pct(f["none"]["cached_share"])),
        ("  with the pack (>= 80%)", lambda f, m, r: pct(f["pack_cold"]["cached_share"])),
        ("pack build, cold (<= 3 s)", lambda f, m, r: cell_ms(f["cold_ms"])),
        ("pack build, warm (<= 300 ms)", lambda f, m, r: cell_ms(f["warm_ms"])),
        ("median check: today / pack", lambda f, m, r: "%s / %s" % (
            fmt_s(f["none"]["median_check_s"]), fmt_s(f["pack_cold"]["median_check_s"]))),
        ("checks failed", lambda f, m, r: str(f["failed_checks"])),
    ]
    if overall["control"]["cases"]:
        rows.insert(7, ("  control: callers as context files",
                        lambda f, m, r: cell_stale(f, "control")))
    by_name = {r["repository"]: r for r in results}
    cells = [[title] + [fn(f, m, by_name.get(name)) for name, f, m in cols] for title, fn in rows]
    head = [""] + [c[0] for c in cols]
    widths = [max(len(str(row[i])) for row in cells + [head]) for i in range(len(head))]
    lines = ["  ".join(str(x).ljust(w) if i == 0 else str(x).rjust(w)
                       for i, (x, w) in enumerate(zip(row, widths))) for row in [head] + cells]
    return "\n".join(lines)


def fmt_int(x):
    return "n/a" if x is None else "{:,.0f}".format(x)


def fmt_s(x):
    return "n/a" if x is None else "%.2f s" % x


def verdicts(overall, results):
    out = []
    for r in results:
        if r["pack"] != "available":
            out.append("%s: pack: %s" % (r["repository"], r["pack"]))
    f = overall
    checks = [("stale call site shown with the pack", f["pack_cold"]["stale_share"],
               lambda v: v >= TARGETS["stale"], pct),
              ("request size, pack / today", f["size_ratio"], lambda v: v <= TARGETS["ratio"],
               lambda v: "%.2fx" % v),
              ("cached share with the pack", f["pack_cold"]["cached_share"],
               lambda v: v >= TARGETS["cached"], pct)]
    for title, value, good, show in checks:
        if value is not None:
            out.append("%s: %s: %s" % (title, show(value), "met" if good(value) else "MISSED"))
    for key, target in (("big_cold_ms", TARGETS["cold_ms"]), ("big_warm_ms", TARGETS["warm_ms"])):
        t = f[key]
        if t is not None:
            out.append("pack build %s on trees of %d files or more (%d cases): slowest %.0f ms, "
                       "target %d ms: %s" % (key[4:8], BIG_TREE, t["n"], t["max"], target,
                                             "met" if t["max"] <= target else "MISSED"))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("repos", nargs="+", metavar="REPO", help="a git clone with its history")
    ap.add_argument("--revline", default=os.path.join(SOURCE, "build", "bin", "revline"))
    ap.add_argument("--max-cases", type=int, default=25, help="cases per repository")
    ap.add_argument("--seed", type=int, default=26, help="the order history is read in")
    ap.add_argument("--max-files", type=int, default=30,
                    help="commits changing more files of one language are left out")
    ap.add_argument("--concurrency", type=int, default=5)
    ap.add_argument("--timeout", type=int, default=300, help="seconds a check may take")
    ap.add_argument("--no-pack", action="store_true", help="measure today's review only")
    ap.add_argument("--control", action="store_true",
                    help="also a check with the callers sent as the bench rule's context files")
    ap.add_argument("--json", action="store_true", help="print the raw figures as JSON")
    ap.add_argument("--keep", action="store_true", help="keep the temporary clones and logs")
    a = ap.parse_args()
    a.revline = os.path.abspath(a.revline)
    if not os.access(a.revline, os.X_OK):
        raise SystemExit("bench_context: no revline at %s: build it (README) or give --revline"
                         % a.revline)
    if shutil.which("ctags") is None:
        raise SystemExit("bench_context: universal-ctags is needed (apt-get install "
                         "universal-ctags)")
    for src in a.repos:
        if run(["git", "-C", src, "rev-parse", "--verify", "-q", "HEAD"], ".").returncode:
            raise SystemExit("bench_context: %s is not a git repository with a commit" % src)
    rules_root = tempfile.mkdtemp(prefix="bench_context-rules-")
    a.rules_dir = os.path.join(rules_root, "rules")
    os.makedirs(a.rules_dir)
    with open(os.path.join(a.rules_dir, "call-sites.md"), "w") as f:
        f.write(RULE)
    try:
        results = []
        for src in a.repos:
            r = bench_repo(a, os.path.abspath(src))
            r["figures"] = figures(r["cases"], r["pack"])
            results.append(r)
    finally:
        shutil.rmtree(rules_root, ignore_errors=True)
    overall = figures([c for r in results for c in r["cases"]],
                      "; ".join(sorted({r["pack"] for r in results})))
    if a.json:
        for r in results:
            for c in r["cases"]:
                for mode in MODES:
                    if c[mode]:
                        c[mode]["stale_hits"] = len(c[mode]["stale_hits"])
        print(json.dumps({"seed": a.seed, "max_cases": a.max_cases, "revline": a.revline,
                          "targets": TARGETS, "repositories": results, "overall": overall},
                         indent=1))
        return
    sys.stderr.flush()
    print(table(results, overall))
    print()
    for line in verdicts(overall, results):
        print(line)


if __name__ == "__main__":
    main()
