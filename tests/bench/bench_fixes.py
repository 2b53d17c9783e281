#!/usr/bin/env python3
"""What fix detection costs a check's answer: the time `revline check`
takes to return with fix detection on (it starts a detached
`revline detect-fixes`) against with it off (--no-fix-detection), on a
history whose previous check has 20 open violations that the detector
must ask the LLM about.

    python3 tests/bench/bench_fixes.py [--revline BIN] [--violations 20] [--runs 7]

Each measured check follows a check that found the violations; the rule
answers come from the cache after the first round, so the figures are
revline's own. The detached detector of one round is left to finish
before the next round starts. Figures, not a test: exits 0 unless the
harness failed.
"""
import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SOURCE, "tests", "fakellm"))
import fakellm_proc  # noqa: E402  (the fake LLM server, started)


def setup(root, count):
    repo = os.path.join(root, "repo")
    rules = os.path.join(root, "rules")
    os.makedirs(os.path.join(repo, "src"))
    os.makedirs(rules)
    env = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@example.com",
               GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@example.com")
    with open(os.path.join(repo, "src", "app.py"), "w") as f:
        f.write("def run():\n    return 0\n")
    subprocess.run("git init -q -b main . && git add -A && git commit -q -m base", cwd=repo,
                   env=env, shell=True, check=True)
    for i in range(count):
        with open(os.path.join(rules, "r%02d.md" % i), "w") as f:
            f.write("---\nid: r%02d\npatterns: [\"**/*.py\"]\n---\n# Rule %d\n\nStandard %d.\n" % (i, i, i))
    finding = {"file": "src/app.py", "line": 2, "severity": "minor", "title": "bad",
               "verification": {"code_examined": "return STATE_BAD"}}
    script = {"rules": [
        {"match": "was fixed between two", "latency_ms": 250,
         "answer": {"was_fixed": True, "fix_type": "CODE_CHANGE", "explanation": "changed"}},
        {"match": "STATE_BAD", "answer": {"status": "attention", "findings": [finding]}},
        {"answer": {"status": "compliant", "reasoning": "ok"}},
    ]}
    with open(os.path.join(root, "script.json"), "w") as f:
        json.dump(script, f)
    return repo, rules


def start_server(root):
    return fakellm_proc.start(os.path.join(root, "script.json"), root, "bench_fixes")


def set_state(repo, bad):
    with open(os.path.join(repo, "src", "app.py"), "w") as f:
        f.write("def run():\n    return %s\n" % ("STATE_BAD" if bad else "STATE_GOOD"))


def check(revline, repo, env, rules, extra):
    start = time.monotonic()
    proc = subprocess.run([revline, "check", "--rules", rules, "--fail-on", "none", "--concurrency", "8",
                           "--format", "json"] + extra, cwd=repo, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE)
    took = time.monotonic() - start
    if proc.returncode != 0:
        raise SystemExit("bench_fixes: revline check failed: %s" % proc.stderr.decode(errors="replace"))
    return took, json.loads(proc.stdout)["check_id"]


def wait_detector(db, check_id, timeout=60):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        row = sqlite3.connect(db).execute(
            "SELECT status, llm_calls FROM fix_detection_runs WHERE check_id = ?", (check_id,)).fetchone()
        if row and row[0] != "running":
            return row
        time.sleep(0.05)
    raise SystemExit("bench_fixes: the detached detector did not finish")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--revline", default=os.path.join(SOURCE, "build", "bin", "revline"))
    ap.add_argument("--violations", type=int, default=20)
    ap.add_argument("--runs", type=int, default=7)
    a = ap.parse_args()
    root = tempfile.mkdtemp(prefix="revline-bench-fixes-")
    server = None
    try:
        repo, rules = setup(root, a.violations)
        data = os.path.join(root, "data")
        os.makedirs(os.path.join(data, "rules"))
        os.symlink(os.path.join(SOURCE, "share", "prompts"), os.path.join(data, "prompts"))
        server, port = start_server(root)
        db = os.path.join(root, "revline.db")
        env = dict(os.environ, HOME=root, REVLINE_DATADIR=data, REVLINE_DB=db, LANG="C.UTF-8",
                   REVLINE_BASE_URL="http://127.0.0.1:%s/v1" % port, REVLINE_MODEL="bench")
        env.pop("OPENAI_API_KEY", None)
        on, off, calls = [], [], []
        for i in range(a.runs + 1):
            for mode in ("on", "off"):
                set_state(repo, True)
                _, first = check(a.revline, repo, env, rules, ["--no-fix-detection"])
                set_state(repo, False)
                took, second = check(a.revline, repo, env, rules,
                                     [] if mode == "on" else ["--no-fix-detection"])
                if mode == "on":
                    status, llm_calls = wait_detector(db, second)
                    calls.append(llm_calls)
                if i == 0:
                    continue  # warm-up: fills the cache
                (on if mode == "on" else off).append(took)
    finally:
        if server:
            server.terminate()
            server.wait()
        shutil.rmtree(root, ignore_errors=True)
    mon, moff = statistics.median(on), statistics.median(off)
    extra = (mon - moff) * 1000
    print("revline check with %d open violations from the previous check, %d runs (median)"
          % (a.violations, a.runs))
    print("  %-50s %8.1f ms" % ("check returns, fix detection off", moff * 1000))
    print("  %-50s %8.1f ms" % ("check returns, fix detection on (detached)", mon * 1000))
    print("  %-50s %8.1f ms   target < 100 ms %s" % ("difference", extra, "PASS" if extra < 100 else "MISS"))
    print("  %-50s %8d       (the detector's requests, each after the check returned)"
          % ("LLM calls per detection run", max(calls) if calls else 0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
