#!/usr/bin/env python3
"""A long session of revline, judged by what it holds as the session ages.

    python3 tests/soak/soak.py tui [--long]     the terminal UI (script mode)
    python3 tests/soak/soak.py mcp [--long]     revline mcp over one session

The TUI runs headless (REVLINE_SCRIPT, ui/script.c) on a repository built
here, beside the fake LLM server over real HTTP. Each cycle rewrites one
line of a file of the working tree (the diff stays the same size) and waits
for the watcher to read the diff again, then opens and closes a full-screen
view (help, history, statistics, dependencies, applied fixes); every few
cycles a check runs against the fake server (one rule answers with a
finding, one fails with a 500), or is cancelled as it starts, or its
finding's fix is asked for, applied and undone. The script's :sample
writes what the process holds (src/base/proc_sample.h) before each edit and
once it is shown: resident memory and its anonymous part, the bytes malloc
holds (mallinfo2) and SQLite's share of them, the open descriptors, the
clock and the process's CPU time. revline mcp gets reviews (the failing rule among them), reviews
cancelled once a rule has settled, and fixes proposed, applied and undone,
over one session; with REVLINE_SAMPLE set, a ping after each cycle makes it
write the same sample.

SQLite's page cache fills as the database grows, up to its cache_size: it
is measured apart and left out. Nothing is timed against a ceiling. The
first half of the session is a warm-up (what is bounded fills there); over
the second, the session's actions repeat every period cycles and a check
holds its answers until the next replaces it, so each period is said by its
floor (the least memory, descriptors it held) or its median (the time), and
the slope fitted to those against the cycles (Theil-Sen: the median of the
slopes of every pair) fails the test when

  the heap grows        more than HEAP_SLOPE bytes a cycle
  anonymous memory      more than RSS_SLOPE KiB a cycle (pages: coarse; for
                        mcp in the long form only, its short one too short)
  descriptors           by one or more over the judged cycles
  a reload's CPU time   (mcp: a cycle's) by more than TIME_GROWTH of its
                        median over the judged cycles: the process's own
                        CPU, which work that grows with the session raises
                        and a loaded machine hardly moves (a 36 ms mcp cycle
                        is mostly waits on the fake server: its wall time,
                        printed, swung by half over 29 cycles in CI)

Under AddressSanitizer (libasan in the binary) the memory is not judged:
freed blocks wait in ASan's quarantine, and mallinfo2 says nothing of its
allocator. The cycles still run there, so that a release that frees too
much is a use after free ASan reports; descriptors and time are judged.

The short form (CTest, CI) runs 400 reloads and 66 checks, and 60 mcp
cycles; --long (by hand) runs 5,000 reloads and 200 checks, and 200 mcp
cycles, and prints the figures after 100, 1,000 and 5,000 reloads.
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
RSS_SLOPE = 6.0         # KiB a cycle: pages, a coarse backstop (the heap is the fine figure)
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
        {"match": "Rule slow:", "latency_ms": 20000, "answer": {"status": "compliant", "reasoning": "late",
                                                                "findings": []}},
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
    # The TUI's rules: one answers, one fails. revline mcp names them, or slow (what a cancel stops).
    for rule in ("injection", "broken", "slow"):
        os.makedirs("%s/%s" % (data, "mcp" if rule == "slow" else "rules"), exist_ok=True)
        with open("%s/%s/%s.md" % (data, "mcp" if rule == "slow" else "rules", rule), "w") as f:
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

def theil_sen(xs, ys):
    """The median of the slopes of every pair of points: a few outliers do not move it."""
    slopes = sorted((ys[j] - ys[i]) / (xs[j] - xs[i])
                    for i in range(len(xs)) for j in range(i + 1, len(xs)) if xs[j] != xs[i])
    return slopes[len(slopes) // 2] if slopes else 0.0


def windows(samples, width, key, pick):
    """Each run of width samples said by one point: its middle cycle and pick (min, median) of key."""
    out = []
    for i in range(0, len(samples) - width + 1, width):
        w = samples[i:i + width]
        out.append((w[width // 2]["cycle"], pick([s[key] for s in w])))
    return out


def slope(samples, width, key, pick):
    pts = windows(samples, width, key, pick)
    return theil_sen([p[0] for p in pts], [p[1] for p in pts])


def median(v):
    v = sorted(v)
    return v[len(v) // 2] if v else 0.0


class Judge:
    def __init__(self, what, asan, timed, pages=True):
        self.what, self.asan, self.timed, self.pages, self.failures = what, asan, timed, pages, []

    def check(self, ok, text):
        print("%s: %s: %s" % ("ok" if ok else "FAIL", self.what, text), flush=True)
        if not ok:
            self.failures.append(text)

    def growth(self, samples, period):
        """
        samples: dicts (cycle, anon KiB, heap bytes, both less SQLite's; fds; cpu, the CPU time
        judged, in us; us, the wall time, printed);
        the judged ones are the second half (the first fills what is bounded: the first requests'
        connections, the fixes kept, the libraries' caches). The session repeats its actions
        every period cycles, and a check holds its answers until the next replaces it: the
        memory rises and falls within a period. Each period is said by its floor (the least it
        held: what a leak raises, whatever it holds for a while), the time by its median.
        """
        judged = samples[len(samples) // 2:]
        if len(judged) < 6 * period:
            self.check(False, "too few samples to judge (%d, periods of %d)" % (len(judged), period))
            return {}
        span = judged[-1]["cycle"] - judged[0]["cycle"]
        fit = {"heap": slope(judged, period, "heap", min), "rss": slope(judged, period, "anon", min),
               "fds": slope(judged, period, "fds", min), "time": slope(judged, period, "cpu", median),
               "time_median": median([s["cpu"] for s in judged]), "wall_median": median([s["us"] for s in judged])}
        if self.asan:
            print("note: %s: AddressSanitizer build: memory not judged (quarantine)" % self.what)
        else:
            if judged[0]["heap"] > 0:
                self.check(fit["heap"] <= HEAP_SLOPE, "the heap grows %.1f bytes a cycle over %d cycles "
                           "(at most %d)" % (fit["heap"], span, HEAP_SLOPE))
            if self.pages:
                self.check(fit["rss"] <= RSS_SLOPE, "anonymous resident memory grows %.3f KiB a cycle over %d "
                           "cycles (at most %.1f)" % (fit["rss"], span, RSS_SLOPE))
            else:
                print("note: %s: resident memory not judged over so few cycles (pages malloc keeps after a "
                      "peak come in steps): %.3f KiB a cycle" % (self.what, fit["rss"]))
        self.check(fit["fds"] * span < 1, "descriptors grow %.4f a cycle over %d cycles (%d to %d)" %
                   (fit["fds"], span, judged[0]["fds"], judged[-1]["fds"]))
        self.check(fit["time"] * span <= TIME_GROWTH * fit["time_median"],
                   "%s grows %.2f us a cycle over %d cycles (median %.0f us of CPU, %.0f us of wall time)" %
                   (self.timed, fit["time"], span, fit["time_median"], fit["wall_median"]))
        return fit


# --- the terminal UI -------------------------------------------------------------

# Full-screen views opened and closed: help, history, statistics, dependencies, applied fixes.
VIEWS = [["?", "q"], ["H", "q"], ["S", "q"], ["D", "q"], ["U", "q"]]


def tui_script(path, samples, reloads, check_every, dumps):
    """The script: reloads cycles, a check (answer, cancel, or fix applied and undone) every check_every."""
    lines = [":settle 5"]
    kinds = 0
    for i in range(1, reloads + 1):
        # Sampled before the edit and once it is shown: the reload's own time between them.
        lines += [":sample " + samples, ":rewrite data.txt 10 edit %d" % i, ":wait-reload", ":sample " + samples]
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
    lines += [":sample " + samples, "q"]
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
    return rc, samples_read(samples, 2), kinds


def samples_read(path, per_cycle):
    """
    The samples (proc_sample.h): per_cycle 1, one before the first cycle and one after each (its
    time the cycle's); 2, one before each cycle's edit and one once it is shown (its time the
    reload's), then one at the end. The memory is that at a cycle's start (after the previous
    one's views and checks), and at the end.
    """
    with open(path) as f:
        lines = [[int(x) for x in line.split()] for line in f]
    rows, most = [], 0
    for cycle in range(1, (len(lines) - 1) // per_cycle + 1):
        start, shown = lines[(cycle - 1) * per_cycle], lines[cycle * per_cycle - (per_cycle == 2)]
        after = lines[cycle * per_cycle]
        rss, anon, heap, sqlite, fds = after[:5]
        # SQLite's page cache fills as the database grows, up to its cache_size: bounded, and
        # measured apart (store_memory), so that what is judged is revline's own. Of the resident
        # pages, what it held at its most (what it frees, malloc may keep resident).
        most = max(most, sqlite)
        rows.append({"cycle": cycle, "rss_total": rss, "anon": anon - most // 1024, "heap": heap - sqlite,
                     "sqlite": sqlite, "fds": fds, "us": shown[5] - start[5], "cpu": shown[6] - start[6]})
    return rows


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
            s = rows[n - 1]
            heap = ", heap %d bytes + SQLite's %d" % (s["heap"], s["sqlite"]) if s["heap"] > 0 else ""
            print("  after %5d cycles: RSS %6d KiB (anonymous %d + SQLite's %d)%s, %d descriptors, "
                  "that cycle %.1f ms" % (n, s["rss_total"], s["anon"], s["sqlite"] // 1024, heap, s["fds"],
                                          s["us"] / 1000.0))


def soak_tui(tmp, args):
    judge = Judge("tui", asan_build(), "a reload's CPU time")
    repo, server = setup(tmp)
    reloads, every = (5000, 25) if args.long else (400, 6)
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
    fit = judge.growth(rows, 3 * every)
    print("tui: %d reloads, %d checks; per cycle: heap %+.1f bytes, RSS %+.3f KiB, descriptors %+.4f, "
          "CPU time %+.2f us (median cycle %.1f ms of CPU)" %
          (reloads, checks, fit.get("heap", 0), fit.get("rss", 0), fit.get("fds", 0), fit.get("time", 0),
           fit.get("time_median", 0) / 1000.0))
    figures(rows, [1, 100, 1000, 5000] if args.long else [1, 100, reloads])
    if rows:
        print("  reload time: the first 100 cycles' median %.1f ms, the last 100 cycles' %.1f ms" %
              (median([r["us"] for r in rows[:100]]) / 1000.0, median([r["us"] for r in rows[-100:]]) / 1000.0))
    return judge.failures


# --- revline mcp -------------------------------------------------------------------

class Mcp:
    def __init__(self, repo, tmp):
        data = os.environ["REVLINE_DATADIR"]
        env = dict(os.environ, REVLINE_SAMPLE=tmp + "/samples.txt")
        self.p = subprocess.Popen([REVLINE, "mcp", "--no-builtin", "--rules", data + "/rules", "--rules",
                                   data + "/mcp"], cwd=repo, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
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

    def sample(self):
        """A ping: with REVLINE_SAMPLE set, the server appends what it holds (cli/mcp/mcp_server.c)."""
        self.until(self.request("ping", {}))


def mcp_cycle(m, i, judge):
    """A review (answers and a failure); every third a cancelled one; every third a fix applied and undone."""
    r = m.call("review", {"rules": ["injection", "broken"]})
    res = r.get("result", {})
    found = res.get("structuredContent", {}).get("findings", [])
    if not found:
        judge.check(False, "cycle %d: the review found nothing: %s" % (i, json.dumps(r)[:300]))
        return
    if i % 3 == 1:
        # A review whose fast rule has settled (its progress came) while the slow one runs, cancelled.
        id = m.request("tools/call", {"name": "review", "arguments": {"rules": ["injection", "slow"]},
                                      "_meta": {"progressToken": "p%d" % i}})
        while m.recv().get("method") != "notifications/progress":
            pass
        m.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}})
        m.until(m.request("tools/list", {}))
    if i % 3 == 2:
        fix = m.call("propose_fix", {"finding_id": found[0]["id"]}).get("result", {})
        fix_id = fix.get("structuredContent", {}).get("fix_id")
        a = m.call("apply_fix", {"fix_id": fix_id}).get("result", {})
        u = m.call("undo_fix", {"fix_id": fix_id}).get("result", {})
        if not fix_id or a.get("isError") or u.get("isError"):
            judge.check(False, "cycle %d: the fix was not applied and undone: %s %s" % (i, a, u))


def soak_mcp(tmp, args):
    # 60 cycles of a fifth of a second: the pages malloc keeps after a review's peak still come in
    # steps there, so the resident memory is judged in the long form (the heap, to the byte, in both).
    judge = Judge("mcp", asan_build(), "a cycle's CPU time", pages=args.long)
    repo, server = setup(tmp)
    cycles = args.cycles or (200 if args.long else 60)
    m = Mcp(repo, tmp)
    try:
        m.send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "soak", "version": "1"}}})
        m.until(0)
        m.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        m.sample()
        for i in range(cycles):
            mcp_cycle(m, i, judge)
            m.sample()
    finally:
        m.p.stdin.close()
        code = m.p.wait(timeout=60)
        server.kill()
        server.wait()
    judge.check(code == 0, "the session ended with exit 0 (%s)" % code)
    rows = samples_read(tmp + "/samples.txt", 1)
    judge.check(len(rows) == cycles, "a sample after every cycle (%d of %d)" % (len(rows), cycles))
    stored, fixes = store_counts(os.environ["REVLINE_DB"])
    judge.check(stored.get("cancelled", 0) == (cycles + 1) // 3, "the cancelled reviews stored so: %s" % stored)
    judge.check(fixes.get("undone", 0) == cycles // 3, "the fixes applied and undone: %s" % fixes)
    fit = judge.growth(rows, 3)
    print("mcp: %d reviews, %d cancelled, %d fixes; per cycle: heap %+.1f bytes, RSS %+.3f KiB, descriptors "
          "%+.4f, CPU time %+.2f us (median cycle %.1f ms of CPU)" %
          (cycles, (cycles + 1) // 3, cycles // 3, fit.get("heap", 0), fit.get("rss", 0), fit.get("fds", 0),
           fit.get("time", 0), fit.get("time_median", 0) / 1000.0))
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
