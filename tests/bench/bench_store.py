#!/usr/bin/env python3
"""What storing a check costs on each backend: the time `revline check`
takes with its database in a local SQLite file against a PostgreSQL server
on this machine (a throwaway one, tests/testlib/pg.sh: initdb, a Unix
socket), on the same check, and the per-check overhead of PostgreSQL.

    python3 tests/bench/bench_store.py [--revline BIN] [--rules 14] [--findings 3] [--runs 15]

Every rule answers from the cache after the first round (the fake LLM
server is asked once), so what is measured is revline's own work, in
which storing the check, its rules, results and findings is the part that
differs. Each round runs the check once on each backend, back to back, in
turns first one then the other; the overhead is the median of the rounds'
differences (a round's two runs share the machine's load of the moment),
and its spread, the middle half of those differences, is printed with it,
as is the spread of the SQLite runs: on a machine whose cores others
share, the figures move by tens of milliseconds from one run to the next.
Then three more checks run with the server logging every statement's
duration: the time it spent in them and how many it ran, per check, which
a busy machine moves less; and one under strace, whose sends to the
server are the check's round trips, which nothing moves.
Figures, not a test: exits 0 unless the harness failed (without
PostgreSQL's server binaries it says so and measures nothing).
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SOURCE, "tests", "fakellm"))
import fakellm_proc  # noqa: E402  (the fake LLM server, started)
PG_SH = os.path.join(SOURCE, "tests", "testlib", "pg.sh")
TARGET_MS = 50
DURATION = re.compile(r"LOG:  duration: ([0-9.]+) ms  (statement|execute|parse|bind)")


def setup(root, nrules, nfindings):
    repo = os.path.join(root, "repo")
    rules = os.path.join(root, "rules")
    os.makedirs(os.path.join(repo, "src"))
    os.makedirs(rules)
    env = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@example.com",
               GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@example.com")
    lines = ["def f%d(x):\n    return x + %d\n" % (i, i) for i in range(40)]
    with open(os.path.join(repo, "src", "app.py"), "w") as f:
        f.write("".join(lines))
    subprocess.run("git init -q -b main . && git add -A && git commit -q -m base", cwd=repo,
                   env=env, shell=True, check=True)
    with open(os.path.join(repo, "src", "app.py"), "w") as f:
        f.write("".join(l.replace("x +", "x * ") for l in lines))
    for i in range(nrules):
        with open(os.path.join(rules, "r%02d.md" % i), "w") as f:
            f.write("---\nid: r%02d\npatterns: [\"**/*.py\"]\n---\n# Rule %d\n\nStandard %d.\n" % (i, i, i))
    findings = [{"file": "src/app.py", "line": 2 + 2 * k, "severity": "minor", "title": "finding %d" % k,
                 "issue": "i", "suggestion": "s",
                 "verification": {"code_examined": "return x *  %d" % k}} for k in range(nfindings)]
    script = {"rules": [{"match": "synthesizing", "answer": {"summary": "s", "overallSeverity": "minor-issues",
                                                           "findings": []}},
                        {"answer": {"status": "attention", "reasoning": "r", "findings": findings}}]}
    with open(os.path.join(root, "script.json"), "w") as f:
        json.dump(script, f)
    return repo, rules


def start_llm(root):
    return fakellm_proc.start(os.path.join(root, "script.json"), root, "bench_store")


def start_pg():
    """The server's NAME=VALUE lines (PG_URL, PG_DIR, ...), or None without the binaries."""
    if subprocess.run(["bash", PG_SH, "available"], stdout=subprocess.PIPE,
                      stderr=subprocess.STDOUT).returncode != 0:
        return None
    out = subprocess.run(["bash", PG_SH, "start", str(os.getpid())], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, check=True).stdout.decode()
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


def check_argv(revline, rules):
    return [revline, "check", "--rules", rules, "--no-builtin", "--fail-on", "none", "--no-fix-detection",
            "--format", "json"]


def check(revline, repo, env, rules):
    start = time.monotonic()
    proc = subprocess.run(check_argv(revline, rules), cwd=repo, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE)
    took = time.monotonic() - start
    if proc.returncode != 0:
        raise SystemExit("bench_store: revline check failed (%d): %s"
                         % (proc.returncode, proc.stderr.decode(errors="replace")))
    report = json.loads(proc.stdout)
    if not report["stored"]:
        raise SystemExit("bench_store: the check was not stored: %s" % report.get("store_error"))
    return took, len(report["findings"])


def server_work(revline, repo, env, rules, pg, runs):
    """What the server did for each of `runs` checks, from its own log (every
    statement's duration): the median of the time it spent in the statements
    and of how many it ran. It does not move with the client's share of the
    machine as the times of whole checks do."""
    subprocess.run(["bash", PG_SH, "sql", "ALTER SYSTEM SET log_min_duration_statement = 0",
                    "SELECT pg_reload_conf()"], env=env, stdout=subprocess.DEVNULL, check=True)
    time.sleep(0.5)   # the reload reaches the server's processes by a signal
    log = os.path.join(pg["PG_DIR"], "log")
    spent, counts = [], []
    for _ in range(runs):
        start = os.path.getsize(log)
        check(revline, repo, env, rules)
        with open(log, errors="replace") as f:
            f.seek(start)
            lines = [m for m in (DURATION.search(line) for line in f) if m]
        spent.append(sum(float(m.group(1)) for m in lines))
        counts.append(sum(1 for m in lines if m.group(2) in ("statement", "execute")))
    return statistics.median(spent), statistics.median(counts)


def round_trips(revline, repo, env, rules):
    """The messages the client sends the server in one check (strace: its
    sendto calls on the server's Unix socket; every round trip is one),
    or None without strace or where it may not trace (a container
    without ptrace)."""
    if not shutil.which("strace"):
        return None
    out = os.path.join(os.path.dirname(repo), "strace.out")
    proc = subprocess.run(["strace", "-f", "-yy", "-e", "trace=sendto", "-o", out] + check_argv(revline, rules),
                          cwd=repo, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if proc.returncode != 0 or not os.path.exists(out):
        return None
    with open(out, errors="replace") as f:
        return sum(1 for line in f if "sendto(" in line and "UNIX" in line)


def quartiles(values):
    """The first and third quartiles (the middle half of the values lies between them)."""
    if len(values) < 2:
        return values[0], values[0]
    q = statistics.quantiles(values, n=4)
    return q[0], q[2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--revline", default=os.path.join(SOURCE, "build", "bin", "revline"))
    ap.add_argument("--rules", type=int, default=14)
    ap.add_argument("--findings", type=int, default=3)
    ap.add_argument("--runs", type=int, default=15)
    a = ap.parse_args()
    a.revline = os.path.abspath(a.revline)   # the checks run in the repository
    root = tempfile.mkdtemp(prefix="revline-bench-store-")
    llm = pg = None
    times = {"sqlite": [], "postgresql": []}
    try:
        repo, rules = setup(root, a.rules, a.findings)
        data = os.path.join(root, "data")
        os.makedirs(os.path.join(data, "rules"))
        os.symlink(os.path.join(SOURCE, "share", "prompts"), os.path.join(data, "prompts"))
        llm, port = start_llm(root)
        pg = start_pg()
        if not pg:
            print("bench_store: no PostgreSQL server binaries here: nothing measured")
            return 0
        base = dict(os.environ, HOME=root, REVLINE_DATADIR=data, LANG="C.UTF-8", OPENAI_API_KEY="sk-bench",
                    REVLINE_BASE_URL="http://127.0.0.1:%s/v1" % port, REVLINE_MODEL="bench")
        base.update({k: v for k, v in pg.items() if k.startswith("PG")})
        dbs = {"sqlite": os.path.join(root, "revline.db"), "postgresql": pg["PG_URL"]}
        shown = 0
        for i in range(a.runs + 1):
            for name in ("sqlite", "postgresql") if i % 2 else ("postgresql", "sqlite"):
                took, shown = check(a.revline, repo, dict(base, REVLINE_DB=dbs[name]), rules)
                if i:   # the first round fills each database's cache
                    times[name].append(took)
        work = server_work(a.revline, repo, dict(base, REVLINE_DB=dbs["postgresql"]), rules, pg, 3)
        trips = round_trips(a.revline, repo, dict(base, REVLINE_DB=dbs["postgresql"]), rules)
    finally:
        if llm:
            llm.terminate()
            llm.wait()
        if pg:
            subprocess.run(["bash", PG_SH, "stop", pg["PG_DIR"]], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        shutil.rmtree(root, ignore_errors=True)
    ms = {k: statistics.median(v) * 1000 for k, v in times.items()}
    diffs = [(p - q) * 1000 for p, q in zip(times["postgresql"], times["sqlite"])]
    extra = statistics.median(diffs)
    print("revline check, %d rules answered from the cache, %d findings shown, %d runs each (median)"
          % (a.rules, shown, a.runs))
    print("  %-44s %8.1f ms" % ("stored in a SQLite file", ms["sqlite"]))
    print("  %-44s %8.1f ms" % ("stored in PostgreSQL (local, Unix socket)", ms["postgresql"]))
    print("  %-44s %8.1f ms   target < %d ms %s" % ("PostgreSQL's overhead per check", extra, TARGET_MS,
                                                    "PASS" if extra < TARGET_MS else "MISS"))
    print("  %-44s %8.2f" % ("ratio PostgreSQL / SQLite", ms["postgresql"] / ms["sqlite"]))
    print("  %-44s %8.1f to %.1f ms (the middle half of the rounds)" % ("spread: the overhead", *quartiles(diffs)))
    print("  %-44s %8.1f to %.1f ms" % ("        the SQLite runs", *quartiles([t * 1000 for t in times["sqlite"]])))
    print("  %-44s %8.1f ms   in %d statements (its log, the median of 3 more checks)"
          % ("the server's own work per check", *work))
    print("  %-44s %8s      (the client's sends, strace)" % ("round trips per check", trips or "not counted (no strace)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
