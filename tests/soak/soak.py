#!/usr/bin/env python3
"""A long session of revline, judged by what it holds as the session ages.

    python3 tests/soak/soak.py tui [--long]     the terminal UI (script mode)
    python3 tests/soak/soak.py mcp [--long]     revline mcp over one session

The TUI runs headless (REVLINE_SCRIPT, ui/script.c) on a repository built
here, beside the fake LLM server over real HTTP. Each cycle rewrites one
line of a file of the working tree (the diff stays the same size) and waits
for the watcher to read the diff again; views are opened and closed (help,
history, statistics, dependencies, signals); every few cycles a check runs
against the fake server (one rule answers with a finding, one fails with a
500), or is cancelled as it starts, or its finding's fix is asked for,
applied and undone. After every cycle the script's :sample writes the
resident memory, the bytes malloc holds (mallinfo2), the open descriptors
and the clock. revline mcp gets reviews (with the failing rule), cancelled
reviews, and fixes proposed, applied and undone, over one session; its
resident memory and descriptors are read from /proc after each cycle.

Nothing is timed against a ceiling: each figure's growth is the slope
fitted to it against the cycles (Theil-Sen, the median of the slopes of
pairs of samples, which a few outliers do not move), over the cycles after
the first half (a warm-up: what is bounded fills there), and the test
fails when one grows:

  the heap         more than HEAP_SLOPE bytes a cycle
  resident memory  more than RSS_SLOPE KiB a cycle (pages: a coarse figure)
  descriptors      more than one over the judged cycles
  a cycle's time   more than TIME_GROWTH of its median over the judged cycles

Under AddressSanitizer (libasan in the binary) the memory is not judged:
freed blocks wait in ASan's quarantine, and mallinfo2 says nothing of its
allocator. The cycles still run there, so that a release that frees too
much is a use after free ASan reports; descriptors and time are judged.

The short form (CTest, CI) runs a few hundred cycles; --long (by hand)
runs 5,000 reloads and 200 checks in the TUI and 200 reviews in mcp, and
prints the figures after 100, 1,000 and 5,000 reloads and after 200 checks.
"""
import argparse
import json
import os
import select
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.environ.get("REVLINE_SOURCE_DIR") or os.path.dirname(os.path.dirname(HERE))
REVLINE = os.environ.get("REVLINE") or os.path.join(SOURCE, "build", "bin", "revline")
sys.path.insert(0, os.path.join(SOURCE, "tests", "fakellm"))
import fakellm_proc  # noqa: E402  (the fake LLM server, started)

HEAP_SLOPE = 64         # bytes a cycle
RSS_SLOPE = 1.0         # KiB a cycle
TIME_GROWTH = 0.5       # of the median cycle, over the judged cycles

APP_BEFORE = "import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd)\n"
APP_AFTER = "import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd, shell=True)\n"


def asan_build():
    out = subprocess.run(["ldd", REVLINE], capture_output=True, text=True).stdout
    return "libasan" in out


def fake_script(path):
    finding = {"file": "app.py", "line": 5, "severity": "critical", "title": "Shell injection in run()",
               "issue": "shell=True with a caller's string", "suggestion": "Pass a list",
               "verification": {"code_examined": "return subprocess.call(cmd, shell=True)",
                                "line_range_examined": [1, 5], "verification_method": "read run()",
                                "checked_for_handling_elsewhere": True}}
    rules = [
        {"match": "Problem found in review (rule injection", "latency_ms": 5,
         "answer": {"fixed_code": "def run(cmd):\n    return subprocess.call(cmd.split())\n",
                    "explanation": "No shell."}},
        {"match": "Rule injection:", "latency_ms": 5,
         "answer": {"status": "attention", "reasoning": "r", "findings": [finding]}},
        {"match": "Rule broken:", "status": 500, "error": "the server fell over"},
        {"match": "synthesizing", "answer": {"summary": "s", "overallSeverity": "critical", "findings": []}},
        {"answer": {"status": "compliant", "reasoning": "fine", "findings": []}},
    ]
    with open(path, "w") as f:
        json.dump({"rules": rules}, f)


def git(repo, *args):
    subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True)


def setup(tmp):
    """The environment, the repository, the rules and the fake server; returns (repo, server)."""
    env = os.environ
    for k in ("REVLINE_THEME", "NO_COLOR", "REVLINE_SCRIPT", "REVLINE_PROVIDER", "ANTHROPIC_API_KEY",
              "OPENAI_BASE_URL", "REVLINE_OSV_URL", "REVLINE_DEADLINE", "REVLINE_CONCURRENCY",
              "REVLINE_TIMEOUT", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "LC_ALL", "LANGUAGE"):
        env.pop(k, None)
    env.update({"HOME": tmp + "/home", "XDG_CONFIG_HOME": tmp + "/home/.config", "GIT_CONFIG_NOSYSTEM": "1",
                "LANG": "C.UTF-8", "TERM": "xterm-256color", "REVLINE_DB": tmp + "/revline.db",
                "OPENAI_API_KEY": "sk-test", "REVLINE_MODEL": "fake-model", "REVLINE_RETRIES": "0",
                "GIT_AUTHOR_NAME": "Soak", "GIT_AUTHOR_EMAIL": "soak@example.com",
                "GIT_COMMITTER_NAME": "Soak", "GIT_COMMITTER_EMAIL": "soak@example.com",
                "GIT_AUTHOR_DATE": "@1700000000 +0000", "GIT_COMMITTER_DATE": "@1700000000 +0000"})
    os.makedirs(env["XDG_CONFIG_HOME"])
    data = tmp + "/data"
    os.makedirs(data + "/rules")
    os.symlink(os.path.join(SOURCE, "share", "prompts"), data + "/prompts")
    for rule in ("injection", "broken"):
        with open("%s/rules/%s.md" % (data, rule), "w") as f:
            f.write("---\nid: %s\nseverity: critical\n---\nCheck the change for %s.\n" % (rule, rule))
    env["REVLINE_DATADIR"] = data
    fake_script(tmp + "/fake.json")
    server, port = fakellm_proc.start(tmp + "/fake.json", tmp, "soak")
    env["REVLINE_BASE_URL"] = "http://127.0.0.1:%s/v1" % port

    repo = tmp + "/work/soak"
    os.makedirs(repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "core.autocrlf", "false")
    with open(repo + "/app.py", "w") as f:
        f.write(APP_BEFORE)
    with open(repo + "/data.txt", "w") as f:
        f.write("".join("line %d\n" % i for i in range(1, 41)))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    with open(repo + "/app.py", "w") as f:
        f.write(APP_AFTER)
    return repo, server


# --- judging -------------------------------------------------------------------

def theil_sen(xs, ys, pairs=60000):
    """The median of the slopes of pairs of points (an evenly thinned set of pairs when there are many)."""
    n = len(xs)
    step = max(1, int((n * (n - 1) / 2 / pairs) ** 0.5))
    slopes = sorted((ys[j] - ys[i]) / (xs[j] - xs[i])
                    for i in range(0, n, step) for j in range(i + 1, n, step) if xs[j] != xs[i])
    return slopes[len(slopes) // 2] if slopes else 0.0


def median(v):
    v = sorted(v)
    return v[len(v) // 2] if v else 0.0


class Judge:
    def __init__(self, what, asan):
        self.what, self.asan, self.failures = what, asan, []

    def check(self, ok, text):
        print("%s: %s: %s" % ("ok" if ok else "FAIL", self.what, text), flush=True)
        if not ok:
            self.failures.append(text)

    def growth(self, samples, heap=True):
        """samples: (cycle, rss_kib, heap_bytes, fds, cycle_us, ...); the judged ones are the second half
        (the first fills what is bounded: the first requests' connections, the fixes kept, caches)."""
        judged = samples[len(samples) // 2:]
        if len(judged) < 10:
            self.check(False, "too few samples to judge (%d)" % len(judged))
            return {}
        xs = [s[0] for s in judged]
        span = xs[-1] - xs[0]
        fit = {"rss": theil_sen(xs, [s[1] for s in judged]), "heap": theil_sen(xs, [s[2] for s in judged]),
               "fds": theil_sen(xs, [s[3] for s in judged])}
        times = [s[4] for s in judged]
        fit["time"] = theil_sen(xs, times)
        fit["time_median"] = median(times)
        if self.asan:
            print("note: %s: AddressSanitizer build: memory not judged (quarantine)" % self.what)
        else:
            if heap and judged[0][2] > 0:
                self.check(fit["heap"] <= HEAP_SLOPE, "the heap grows %.1f bytes a cycle over %d cycles "
                           "(at most %d)" % (fit["heap"], span, HEAP_SLOPE))
            self.check(fit["rss"] <= RSS_SLOPE, "resident memory grows %.3f KiB a cycle over %d cycles "
                       "(at most %.1f)" % (fit["rss"], span, RSS_SLOPE))
        self.check(fit["fds"] * span < 1, "descriptors grow %.4f a cycle over %d cycles (%d to %d)" %
                   (fit["fds"], span, judged[0][3], judged[-1][3]))
        self.check(fit["time"] * span <= TIME_GROWTH * fit["time_median"],
                   "a cycle's time grows %.2f us a cycle over %d cycles (median cycle %.0f us)" %
                   (fit["time"], span, fit["time_median"]))
        return fit


# --- the terminal UI -------------------------------------------------------------

# Full-screen views opened and closed: help, history, statistics, dependencies, applied fixes.
VIEWS = [["?", "q"], ["H", "q"], ["S", "q"], ["D", "q"], ["U", "q"]]


def tui_script(path, samples, reloads, check_every, dumps):
    """The script: reloads cycles, a check (answer, cancel, or fix applied and undone) every check_every."""
    lines = [":settle 5", ":sample " + samples]
    kinds = 0
    for i in range(1, reloads + 1):
        lines += [":rewrite data.txt 10 edit %d" % i, ":wait-reload"]
        lines += VIEWS[i % len(VIEWS)]
        if i % check_every == 0:
            kind = kinds % 3
            kinds += 1
            if kind == 0:
                lines += ["c", ":wait-check"]
            elif kind == 1:
                lines += ["c", "<Esc>", ":wait-check"]
            else:
                # From the files pane, the findings pane's finding (under the failed rule and its
                # own): its fix asked for, applied, undone; Esc closes the fix pane (the focus
                # goes to the evidence) and Tab goes round to the files pane again.
                lines += ["c", ":wait-check", "<Tab>gjj", "F", ":wait-fix", "a", ":wait-fix", "u",
                          "<Esc>", "<Tab>"]
            if dumps:
                lines.append(":save-display %s/check-%d.screen" % (dumps, kinds))
        lines.append(":sample " + samples)
    lines.append("q")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return kinds


def tui_run(tmp, repo, reloads, check_every, dumps):
    samples = tmp + "/samples.txt"
    kinds = tui_script(tmp + "/script", samples, reloads, check_every, dumps and tmp)
    env = dict(os.environ, REVLINE_SCRIPT=tmp + "/script", REVLINE_SCREEN_SIZE="120x30")
    with open(tmp + "/stderr", "wb") as err:
        rc = subprocess.run([REVLINE], cwd=repo, env=env, stdin=subprocess.DEVNULL, stdout=err,
                            stderr=err, timeout=3600).returncode
    out = []
    with open(samples) as f:
        for cycle, line in enumerate(f):
            rss, heap, sqlite, fds, us = (int(x) for x in line.split())
            # SQLite's page cache fills as the database grows, up to its cache_size: bounded, and
            # measured apart (store_memory), so that what is judged is revline's own.
            out.append((cycle, rss - sqlite // 1024, heap - sqlite, fds, us, sqlite))
    rows = [(c, r, h, d, us - out[i - 1][4] if i else 0, q) for i, (c, r, h, d, us, q) in enumerate(out)]
    return rc, rows[1:], kinds


def store_counts(db):
    con = sqlite3.connect(db)
    try:
        checks = dict(con.execute("SELECT status, count(*) FROM checks GROUP BY status").fetchall())
        fixes = dict(con.execute("SELECT status, count(*) FROM signal_fixes GROUP BY status").fetchall())
    finally:
        con.close()
    return checks, fixes


def figures(rows, points):
    for n in points:
        if n <= len(rows):
            rss, heap, fds, us = rows[n - 1][1:5]
            sqlite = " + SQLite %d" % rows[n - 1][5] if len(rows[n - 1]) > 5 else ""
            print("  after %5d cycles: RSS %6d KiB, heap %9d bytes%s, %d descriptors, that cycle %.1f ms" %
                  (n, rss + rows[n - 1][5] // 1024 if sqlite else rss, heap, sqlite, fds, us / 1000.0))


def soak_tui(tmp, args):
    judge = Judge("tui", asan_build())
    repo, server = setup(tmp)
    reloads, every = (5000, 25) if args.long else (300, 10)
    reloads = args.cycles or reloads
    try:
        rc, rows, checks = tui_run(tmp, repo, reloads, every, args.dumps)
    finally:
        server.kill()
        server.wait()
    with open(tmp + "/stderr", "rb") as f:
        said = f.read().decode("utf-8", "replace")
    judge.check(rc == 0 and not said, "the session ran its %d cycles and %d checks (exit %d) %s" %
                (reloads, checks, rc, said[:400]))
    judge.check(len(rows) == reloads, "a sample after every cycle (%d of %d)" % (len(rows), reloads))
    stored, fixes = store_counts(os.environ["REVLINE_DB"])
    judge.check(sum(stored.values()) == checks and stored.get("cancelled", 0) == (checks + 1) // 3 and
                stored.get("partial", 0) == checks - (checks + 1) // 3,
                "every check stored: the answered ones partial (the broken rule failed), a third cancelled: %s"
                % stored)
    judge.check(fixes.get("undone", 0) == checks // 3, "a fix applied and undone every third check: %s" % fixes)
    with open(repo + "/app.py") as f:
        judge.check(f.read() == APP_AFTER, "every fix undone: app.py as it was")
    fit = judge.growth(rows)
    print("tui: %d reloads, %d checks; per cycle: heap %+.1f bytes, RSS %+.3f KiB, descriptors %+.4f, "
          "time %+.2f us (median cycle %.1f ms)" % (reloads, checks, fit.get("heap", 0), fit.get("rss", 0),
                                                    fit.get("fds", 0), fit.get("time", 0),
                                                    fit.get("time_median", 0) / 1000.0))
    figures(rows, [1, 100, 1000, 5000] if args.long else [1, 100, reloads])
    if rows:
        print("  reload time: the first 100 cycles' median %.1f ms, the last 100 cycles' %.1f ms" %
              (median([r[4] for r in rows[:100]]) / 1000.0, median([r[4] for r in rows[-100:]]) / 1000.0))
    return judge.failures


# --- revline mcp -------------------------------------------------------------------

class Mcp:
    def __init__(self, repo, tmp):
        self.p = subprocess.Popen([REVLINE, "mcp", "--no-builtin", "--rules", os.environ["REVLINE_DATADIR"] +
                                   "/rules"], cwd=repo, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=open(tmp + "/mcp.err", "wb"))
        self.buf = b""
        self.next = 0

    def send(self, obj):
        self.p.stdin.write(json.dumps(obj).encode() + b"\n")
        self.p.stdin.flush()

    def recv(self, timeout=60):
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
        return json.loads(line)

    def request(self, method, params):
        self.next += 1
        self.send({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params})
        return self.next

    def until(self, id):
        while True:
            m = self.recv()
            if m.get("id") == id and "method" not in m:
                return m

    def call(self, name, args):
        return self.until(self.request("tools/call", {"name": name, "arguments": args}))

    def figures(self):
        with open("/proc/%d/statm" % self.p.pid) as f:
            rss = int(f.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)
        return rss, len(os.listdir("/proc/%d/fd" % self.p.pid))


def mcp_cycle(m, i, judge):
    """A review (answers and a failure); every third a cancelled one; every third a fix applied and undone."""
    r = m.call("review", {})
    res = r.get("result", {})
    found = res.get("structuredContent", {}).get("findings", [])
    if not found:
        judge.check(False, "cycle %d: the review found nothing: %s" % (i, json.dumps(r)[:300]))
        return
    if i % 3 == 1:
        id = m.request("tools/call", {"name": "review", "arguments": {}})
        m.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}})
        m.until(m.request("ping", {}))
    if i % 3 == 2:
        fix = m.call("propose_fix", {"finding_id": found[0]["id"]}).get("result", {})
        fix_id = fix.get("structuredContent", {}).get("fix_id")
        a = m.call("apply_fix", {"fix_id": fix_id}).get("result", {})
        u = m.call("undo_fix", {"fix_id": fix_id}).get("result", {})
        if not fix_id or a.get("isError") or u.get("isError"):
            judge.check(False, "cycle %d: the fix was not applied and undone: %s %s" % (i, a, u))


def soak_mcp(tmp, args):
    judge = Judge("mcp", asan_build())
    repo, server = setup(tmp)
    cycles = args.cycles or (200 if args.long else 60)
    rows = []
    m = Mcp(repo, tmp)
    try:
        m.send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "soak", "version": "1"}}})
        m.until(0)
        m.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        last = time.monotonic()
        for i in range(cycles):
            mcp_cycle(m, i, judge)
            now = time.monotonic()
            rss, fds = m.figures()
            rows.append((i, rss, 0, fds, int((now - last) * 1e6)))
            last = now
    finally:
        m.p.stdin.close()
        code = m.p.wait(timeout=60)
        server.kill()
        server.wait()
    judge.check(code == 0, "the session ended with exit 0 (%s)" % code)
    stored, fixes = store_counts(os.environ["REVLINE_DB"])
    judge.check(stored.get("cancelled", 0) == (cycles + 1) // 3, "the cancelled reviews stored so: %s" % stored)
    judge.check(fixes.get("undone", 0) == (cycles + 1) // 3, "the fixes applied and undone: %s" % fixes)
    fit = judge.growth(rows, heap=False)
    print("mcp: %d reviews; per cycle: RSS %+.3f KiB, descriptors %+.4f, time %+.2f us (median cycle %.1f ms)" %
          (cycles, fit.get("rss", 0), fit.get("fds", 0), fit.get("time", 0), fit.get("time_median", 0) / 1000.0))
    figures(rows, [1, 100, 200] if args.long else [1, cycles])
    return judge.failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", choices=["tui", "mcp"])
    ap.add_argument("--long", action="store_true", help="the long form: 5,000 reloads, 200 checks")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    ap.add_argument("--cycles", type=int, help="this many cycles (reloads, or reviews) instead")
    ap.add_argument("--dumps", action="store_true", help="the TUI's screen after every check, in the kept directory")
    args = ap.parse_args()
    if not sys.platform.startswith("linux"):
        print("soak: /proc is needed (Linux)")
        return 77
    tmp = tempfile.mkdtemp(prefix="revline-soak.")
    try:
        failures = (soak_tui if args.what == "tui" else soak_mcp)(tmp, args)
    finally:
        if args.keep:
            print("kept " + tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print("%d check(s) failed" % len(failures), file=sys.stderr)
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
