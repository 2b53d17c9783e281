#!/usr/bin/env python3
"""The repository index (src/context/index.h) and the references search
(refs.h) on a real repository, against the context pack's targets: the
index of a side built cold (an empty store: every blob read and tagged by
universal-ctags) in at most 3 s, warm (the store has every blob: only the
files listed and the store read) in at most 300 ms, and the callers of 20
functions found well inside what is left of the warm budget.

    python3 tests/bench/bench_index.py [--build DIR] [--runs 5] [--refs 20] [REPO]

REPO defaults to /work/real/curl (a curl clone: 4,449 files, 18 MB). Each
run is a fresh process of tests/bench/index_bench.c (as `revline check`
would be): the cold runs on a new SQLite store each, the warm runs on the
store the first cold run filled. The median of each is printed with the
spread, and the breakdown (listing with ctags's version asked alongside,
reading the store, tagging) of the median run. Nothing here needs the
network. Figures, not a test: exits 0 unless the harness failed; a missed
target says MISS. The machine's load moves the figures: its load average
is printed with them.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.abspath(os.path.join(HERE, "..", ".."))
COLD_MS, WARM_MS = 3000, 300


def run(driver, repo, db, refs):
    out = subprocess.run([driver, repo, db, "--refs", str(refs)], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.exit("index_bench failed: %s" % out.stderr.strip())
    return json.loads(out.stdout)


def spread(values):
    return "%.0f-%.0f" % (min(values), max(values))


def report(name, runs, target):
    ms = [r["ms"] for r in runs]
    mid = sorted(runs, key=lambda r: r["ms"])[len(runs) // 2]
    verdict = "PASS" if statistics.median(ms) <= target else "MISS"
    print("%-5s %7.0f ms median (%s over %d runs; target <= %d ms) %s" %
          (name, statistics.median(ms), spread(ms), len(runs), target, verdict))
    print("      listing %d ms, store %d ms, tagging %d ms; %d files (%d left out), %d blobs: "
          "%d from the store, %d tagged; %d definitions%s" %
          (mid["list_ms"], mid["store_ms"], mid["tag_ms"], mid["files"], mid["excluded"], mid["blobs"],
           mid["stored"], mid["tagged"], mid["defs"], "; " + mid["note"] if mid["note"] else ""))
    return mid


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("repo", nargs="?", default="/work/real/curl")
    ap.add_argument("--build", default=os.path.join(SOURCE, "build"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--refs", type=int, default=20)
    args = ap.parse_args()
    driver = os.path.join(args.build, "tests", "index_bench")
    if not os.path.exists(driver):
        sys.exit("no %s: build revline first (cmake --build %s)" % (driver, args.build))
    if not shutil.which("ctags"):
        sys.exit("universal-ctags is not installed: apt-get install universal-ctags")
    tmp = tempfile.mkdtemp(prefix="revline-bench-index-")
    try:
        cold = [run(driver, args.repo, os.path.join(tmp, "cold%d.db" % i), args.refs) for i in range(args.runs)]
        warm = [run(driver, args.repo, os.path.join(tmp, "cold0.db"), args.refs) for _ in range(args.runs)]
    finally:
        shutil.rmtree(tmp)
    print("%s: load average %s" % (args.repo, " ".join("%.2f" % x for x in os.getloadavg())))
    report("cold", cold, COLD_MS)
    mid = report("warm", warm, WARM_MS)
    refs = [r["refs_ms"] for r in warm]
    print("refs  %7.1f ms median (%s) for the callers of %d functions: %d references, %d files read (%.1f MB) "
          "of %d" % (statistics.median(refs), "%.1f-%.1f" % (min(refs), max(refs)), mid["refs_names"], mid["refs"],
                     mid["refs_files_read"], mid["refs_bytes_read"] / 1e6, mid["files"]))
    total = statistics.median([r["ms"] + r["refs_ms"] for r in warm])
    print("warm index + refs %.0f ms (target <= %d ms for the whole pack) %s" %
          (total, WARM_MS, "PASS" if total <= WARM_MS else "MISS"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
