#!/usr/bin/env python3
"""The terminal UI during a check: does it stay responsive, and how soon
does a rule's answer reach the screen?

    python3 tests/bench/bench_tui.py [--revline BIN] [--rules 40]
        [--concurrency 8] [--runs 3] [--key-ms 30]

revline --check runs in a 120x40 pseudo-terminal against the fake LLM
server: RULES rules, each answering after its own latency (150 ms to 1.35 s)
with three findings whose evidence revline verifies against the files. While
the check runs the harness presses j and k every KEY_MS, as a user moving
through the files would, and reads everything revline draws. When the check
is stored as done it presses q. revline writes its figures to the file named
by REVLINE_LOOP_STATS:

  - the longest time its event loop went without waiting for input (from
    the end of one poll to the start of the next: handling what arrived,
    idle work, drawing), while the check ran; target under 16 ms, one frame
    at 60 Hz;
  - the time from the poll that delivered a rule's answer to the screen
    update (doupdate) that shows its findings.

Prints the figures of every run and their medians. Figures, not a test: it
exits 0 unless the harness itself failed.
"""
import argparse
import fcntl
import json
import os
import pty
import select
import shutil
import sqlite3
import statistics
import struct
import sys
import tempfile
import termios
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import bench_check  # noqa: E402  (the repository and rules of the map-phase benchmark)

ROWS, COLS = 40, 120


def latency(i):
    return 150 + (i * 137) % 1200


def finding(i, k):
    return {"file": "src/m%02d.py" % (i % 20), "line": 121, "severity": ["minor", "major", "nitpick"][k],
            "title": "finding %d of rule %d" % (k, i), "issue": "The added function has no docstring.",
            "suggestion": "Say what it returns.",
            "verification": {"code_examined": "def added_%d(x):" % (i % 20), "line_range_examined": [119, 123],
                             "verification_method": "Read the added function."}}


def server_script(rules):
    entries = [{"match": "Rule rule%02d:" % i, "latency_ms": latency(i),
                "answer": {"status": "attention", "reasoning": "r",
                           "findings": [finding(i, k) for k in range(3)]}} for i in range(rules)]
    entries.append({"match": "synthesizing", "latency_ms": 300,
                    "answer": {"summary": "s", "overallSeverity": "minor-issues", "findings": []}})
    return {"rules": entries, "default": {"answer": {"status": "not_relevant", "reasoning": "-"}}}


def check_done(db, check_id):
    if not os.path.exists(db):
        return False
    try:
        con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=0.05)
        row = con.execute("SELECT status FROM checks WHERE id = ?", (check_id,)).fetchone()
        con.close()
    except sqlite3.Error:
        return False
    return row is not None and row[0] != "running"


def drain(fd):
    """Read what is there; False once the terminal is closed."""
    while select.select([fd], [], [], 0)[0]:
        try:
            if not os.read(fd, 65536):
                return False
        except OSError:
            return False
    return True


def run_once(revline, repo, env, check_id, key_ms):
    stats = env["REVLINE_LOOP_STATS"]
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(repo)
        os.execve(revline, [revline, "--check"], env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
    os.kill(pid, 28)  # SIGWINCH: the size is set after the fork
    start = time.monotonic()
    keys = 0
    next_key = start + 0.3
    next_poll = start
    done_at = None
    while True:
        now = time.monotonic()
        if now - start > 120:
            os.kill(pid, 9)
            raise SystemExit("bench_tui: the check did not finish in 120 s")
        select.select([fd], [], [], 0.005)
        if not drain(fd):
            break
        if done_at is None and now >= next_key:
            os.write(fd, b"jk"[keys % 2:keys % 2 + 1])
            keys += 1
            next_key = now + key_ms / 1000.0
        if done_at is None and now >= next_poll:
            next_poll = now + 0.05
            if check_done(env["REVLINE_DB"], check_id):
                done_at = now
        if done_at is not None and now - done_at > 0.3:
            os.write(fd, b"q")
            done_at = float("inf")
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("bench_tui: revline exited with status %d" % os.waitstatus_to_exitcode(status))
    with open(stats) as f:
        figures = json.load(f)
    figures["keys"] = keys
    return figures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--revline", default=os.path.join(SOURCE, "build", "bin", "revline"))
    ap.add_argument("--rules", type=int, default=40)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--key-ms", type=int, default=30)
    a = ap.parse_args()
    if not os.access(a.revline, os.X_OK):
        raise SystemExit("bench_tui: no revline at %s (build it, or pass --revline)" % a.revline)

    root = tempfile.mkdtemp(prefix="revline-bench-tui-")
    server = None
    runs = []
    try:
        repo = bench_check.make_repo(root)
        rules = bench_check.make_rules(root, a.rules)
        data = os.path.join(root, "data")
        os.makedirs(data)
        os.symlink(os.path.join(SOURCE, "share", "prompts"), os.path.join(data, "prompts"))
        shutil.copytree(rules, os.path.join(data, "rules"))
        server, port = bench_check.start_server(root, answers=server_script(a.rules))
        env = {"HOME": root, "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TERM": "xterm-256color",
               "LANG": "C.UTF-8", "GIT_CONFIG_NOSYSTEM": "1", "REVLINE_DATADIR": data,
               "REVLINE_DB": os.path.join(root, "db"), "REVLINE_BASE_URL": "http://127.0.0.1:%s/v1" % port,
               "REVLINE_MODEL": "bench", "REVLINE_CONCURRENCY": str(a.concurrency),
               "REVLINE_LOOP_STATS": os.path.join(root, "stats.json")}
        for i in range(a.runs):
            # A change per run, so that no answer comes from the cache.
            with open(os.path.join(repo, "src", "m00.py"), "a") as f:
                f.write("# run %d\n" % i)
            runs.append(run_once(a.revline, repo, env, i + 1, a.key_ms))
    finally:
        if server:
            server.terminate()
            server.wait()
        shutil.rmtree(root, ignore_errors=True)

    print("revline --check in a %dx%d pty: %d rules (3 findings each), concurrency %d, "
          "latencies 150-1350 ms, a key every %d ms" % (COLS, ROWS, a.rules, a.concurrency, a.key_ms))
    for i, r in enumerate(runs):
        print("  run %d: loop longest %.2f ms (mean %.3f ms over %d stretches), answer to screen "
              "mean %.2f ms max %.2f ms over %d answers, %d keys"
              % (i + 1, r["loop_busy_max_us"] / 1000.0, r["loop_busy_sum_us"] / 1000.0 / max(r["loop_stretches"], 1),
                 r["loop_stretches"], r["to_screen_sum_us"] / 1000.0 / max(r["answers_drawn"], 1),
                 r["to_screen_max_us"] / 1000.0, r["answers_drawn"], r["keys"]))
    longest = statistics.median(r["loop_busy_max_us"] / 1000.0 for r in runs)
    to_screen = statistics.median(r["to_screen_max_us"] / 1000.0 for r in runs)
    mean = statistics.median(r["to_screen_sum_us"] / 1000.0 / max(r["answers_drawn"], 1) for r in runs)
    print("  %-58s %7.2f ms  / 16 ms = %.2f  %s" % ("longest time without reading input (median of runs)",
                                                   longest, longest / 16.0, "PASS" if longest < 16 else "MISS"))
    print("  %-58s %7.2f ms" % ("answer to screen, mean (median of runs)", mean))
    print("  %-58s %7.2f ms  / 16 ms = %.2f" % ("answer to screen, longest (median of runs)", to_screen,
                                               to_screen / 16.0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
