#!/usr/bin/env python3
"""The map phase's figures: revline check with many rules against the fake
LLM server at a fixed latency, compared with the ideal schedule.

    python3 tests/bench/bench_check.py [--revline BIN] [--rules 40]
        [--concurrency 8] [--latency-ms 250] [--runs 5]

Prints, with medians over the runs:
  - wall time of a check that asks for every rule, over the ideal
    ceil(rules / concurrency) x latency (target <= 1.10);
  - time from start to the first streamed rule result;
  - wall time of the same check answered from the cache (target <= 0.2 s);
  - peak RSS of revline.
Figures, not a test: it exits 0 unless the harness itself failed.
"""
import argparse
import json
import math
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
import fakellm_proc  # noqa: E402  (the fake LLM server, started)


def sh(cmd, cwd, env=None):
    subprocess.run(cmd, cwd=cwd, env=env, shell=True, check=True,
                   stdout=subprocess.DEVNULL)


def make_repo(root):
    repo = os.path.join(root, "repo")
    os.makedirs(os.path.join(repo, "src"))
    env = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@example.com",
               GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@example.com",
               GIT_AUTHOR_DATE="@1700000000 +0000", GIT_COMMITTER_DATE="@1700000000 +0000")
    sh("git init -q -b main .", repo, env)
    for i in range(20):
        with open(os.path.join(repo, "src", "m%02d.py" % i), "w") as f:
            f.write("".join("def f%d():\n    return %d\n\n" % (k, k) for k in range(40)))
    sh("git add -A && git commit -q -m base", repo, env)
    for i in range(20):
        with open(os.path.join(repo, "src", "m%02d.py" % i), "a") as f:
            f.write("def added_%d(x):\n    return x * %d\n" % (i, i))
    return repo


def make_rules(root, count):
    rules = os.path.join(root, "rules")
    os.makedirs(rules)
    for i in range(count):
        with open(os.path.join(rules, "rule%02d.md" % i), "w") as f:
            f.write("---\nid: rule%02d\nseverity: minor\npatterns: [\"**/*.py\"]\n---\n"
                    "# Rule %d\n\nCheck that the change follows standard number %d.\n" % (i, i, i))
    return rules


def start_server(root, latency=None, answers=None):
    """The fake server answering every rule compliant after latency ms, or from answers (a script)."""
    script = os.path.join(root, "script.json")
    with open(script, "w") as f:
        json.dump(answers or {"default": {"latency_ms": latency,
                                          "answer": {"status": "compliant", "reasoning": "fine"}}}, f)
    return fakellm_proc.start(script, root, "bench_check")


def run_check(revline, repo, env, args):
    """Wall time, time to the first rule line, peak RSS (KiB) of one check."""
    start = time.monotonic()
    proc = subprocess.Popen([revline, "check"] + args, cwd=repo, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = None
    for line in proc.stdout:
        if first is None and line.strip():
            first = time.monotonic() - start
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit("bench_check: revline check failed (%d): %s"
                         % (proc.returncode, proc.stderr.read().decode(errors="replace")))
    return wall, first, usage.ru_maxrss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--revline", default=os.path.join(SOURCE, "build", "bin", "revline"))
    ap.add_argument("--rules", type=int, default=40)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--latency-ms", type=int, default=250)
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    if not os.access(a.revline, os.X_OK):
        raise SystemExit("bench_check: no revline at %s (build it, or pass --revline)" % a.revline)

    root = tempfile.mkdtemp(prefix="revline-bench-check-")
    server = None
    try:
        repo = make_repo(root)
        rules = make_rules(root, a.rules)
        data = os.path.join(root, "data")
        os.makedirs(data)
        os.symlink(os.path.join(SOURCE, "share", "prompts"), os.path.join(data, "prompts"))
        os.makedirs(os.path.join(data, "rules"))  # no built-in rules: only the benchmark's
        server, port = start_server(root, a.latency_ms)
        env = dict(os.environ, HOME=root, REVLINE_DATADIR=data, REVLINE_DB=os.path.join(root, "db"),
                   REVLINE_BASE_URL="http://127.0.0.1:%s/v1" % port, REVLINE_MODEL="bench",
                   LANG="C.UTF-8", GIT_CONFIG_NOSYSTEM="1")
        env.pop("OPENAI_API_KEY", None)
        base = ["--rules", rules, "--concurrency", str(a.concurrency), "--fail-on", "none"]

        run_check(a.revline, repo, env, base + ["--no-cache"])  # warm-up
        fresh = [run_check(a.revline, repo, env, base + ["--no-cache"]) for _ in range(a.runs)]
        cached = [run_check(a.revline, repo, env, base) for _ in range(a.runs)]
    finally:
        if server:
            server.terminate()
            server.wait()
        shutil.rmtree(root, ignore_errors=True)

    ideal = math.ceil(a.rules / a.concurrency) * a.latency_ms / 1000.0
    wall = statistics.median(r[0] for r in fresh)
    first = statistics.median(r[1] for r in fresh)
    cwall = statistics.median(r[0] for r in cached)
    rss = max(r[2] for r in fresh + cached)
    ratio = wall / ideal
    print("revline check: %d rules, concurrency %d, fake server latency %d ms, %d runs (median)"
          % (a.rules, a.concurrency, a.latency_ms, a.runs))
    print("  %-52s %8.3f s" % ("ideal: ceil(rules / concurrency) x latency", ideal))
    print("  %-52s %8.3f s   (min %.3f)" % ("wall time, every rule asked", wall, min(r[0] for r in fresh)))
    print("  %-52s %8.3f     target <= 1.10 %s" % ("wall / ideal", ratio, "PASS" if ratio <= 1.10 else "MISS"))
    print("  %-52s %8.3f s   (one latency is %.3f s)" % ("time to the first streamed result", first,
                                                          a.latency_ms / 1000.0))
    print("  %-52s %8.3f s   target <= 0.2 %s" % ("wall time, the same check from the cache", cwall,
                                                  "PASS" if cwall <= 0.2 else "MISS"))
    print("  %-52s %8.1f MiB" % ("peak RSS of revline", rss / 1024.0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
