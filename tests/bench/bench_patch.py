#!/usr/bin/env python3
"""Applying a fix to a 100,000-line file: the latency from the accept (the
call to patch_apply, the snippet taken and the answer re-indented before)
to the file renamed on disk, next to `git apply` of the same change, in the
same run.

    python3 tests/bench/bench_patch.py [--build DIR | --driver BIN] [--lines 100000]
        [--runs 200] [--dir DIR]

The driver (tests/bench/patch_bench.c, the CMake target patch_bench) times
patch_apply in process: read the file, check its id (XXH64) against the
snippet's, the id of the result (the undo record's), write a temporary
file from three pieces, fsync, chmod, rename, fsync the directory. It also writes
the preview diff, and `git apply` applies that very patch: each run is one
`git apply` process, timed from the spawn to its exit. The file is put back
between runs and synced, so that no run pays for the one before. Figures,
not a test: exits 0 unless the harness failed.
"""
import argparse
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
BLOCK = 6   # lines a generated function takes, the blank line after it included


def generate(path, lines):
    """A Python module of small functions, exactly `lines` lines long."""
    out = []
    i = 0
    while len(out) < lines:
        out += ["def func_%06d(x, y):" % i,
                "    \"\"\"The distance between x and y.\"\"\"",
                "    if x > y:",
                "        return x - y",
                "    return y - x",
                ""]
        i += 1
    with open(path, "w") as f:
        f.write("\n".join(out[:lines]) + "\n")


def driver_path(args):
    if args.driver:
        return args.driver
    build = args.build or os.path.join(SOURCE, "build")
    subprocess.run(["cmake", "--build", build, "--target", "patch_bench"], check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(build, "tests", "patch_bench")


def p99(values):
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.99 * len(ordered)) - 1)]


def timed(cmd, cwd):
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    return (time.perf_counter() - start) * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", help="the build directory (default: build/ of the source tree)")
    ap.add_argument("--driver", help="the patch_bench program (default: built in --build)")
    ap.add_argument("--lines", type=int, default=100000)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--dir", help="where the working tree goes (default: a temporary directory)")
    args = ap.parse_args()
    driver = driver_path(args)

    root = tempfile.mkdtemp(prefix="revline-bench-patch-", dir=args.dir)
    try:
        work = os.path.join(root, "repo")
        os.makedirs(os.path.join(work, "src"))
        rel = "src/big.py"
        path = os.path.join(work, rel)
        generate(path, args.lines)
        env = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@example.com",
                   GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@example.com")
        subprocess.run("git init -q -b main . && git add -A && git commit -q -m base", cwd=work,
                       env=env, shell=True, check=True)
        with open(path, "rb") as f:
            before = f.read()
        # The body of the function in the middle of the file: lines "if", "return", "return".
        first = (args.lines // 2) // BLOCK * BLOCK + 3
        answer = os.path.join(root, "answer.txt")
        with open(answer, "w") as f:
            f.write("```python\nif x >= y:\n    return x - y\nreturn y - x\n```\n")
        patch = os.path.join(root, "fix.patch")

        out = subprocess.run([driver, work, rel, str(first), str(first + 2), answer, str(args.runs), patch],
                             check=True, stdout=subprocess.PIPE, text=True).stdout
        runs = [line.split() for line in out.splitlines()]
        ours = [float(wall) / 1e3 for wall, _ in runs]
        cpu = [float(c) / 1e3 for _, c in runs]
        with open(path, "rb") as f:
            after = f.read()
        if after == before or len(ours) != args.runs:
            raise SystemExit("bench_patch: the driver did not apply the fix")

        theirs = []
        floor = []
        for _ in range(args.runs):
            with open(path, "wb") as f:
                f.write(before)
                f.flush()
                os.fsync(f.fileno())
            theirs.append(timed(["git", "apply", patch], work))
            floor.append(timed(["git", "--version"], work))
        with open(path, "rb") as f:
            if f.read() != after:
                raise SystemExit("bench_patch: git apply and patch_apply disagree")

        fs = subprocess.run(["stat", "-f", "-c", "%T", work], stdout=subprocess.PIPE,
                            text=True).stdout.strip()
        print("bench_patch: a %d-line file (%.1f MB) on %s, lines %d-%d replaced, %d runs each"
              % (args.lines, len(before) / 1e6, fs or "?", first, first + 2, args.runs))
        rows = [("revline patch_apply (in process, fsync, rename)", ours),
                ("git apply (one process, no fsync)", theirs),
                ("git --version (the cost of a git process)", floor)]
        for label, values in rows:
            print("  %-48s median %7.2f ms   p99 %7.2f ms" % (label, statistics.median(values), p99(values)))
            if values is ours:
                print("  %-48s median %7.2f ms" % ("  of which CPU (read, two digests, write)",
                                                   statistics.median(cpu)))
        print("  ratio revline / git apply: median %.2f, p99 %.2f"
              % (statistics.median(ours) / statistics.median(theirs), p99(ours) / p99(theirs)))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
