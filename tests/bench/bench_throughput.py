#!/usr/bin/env python3
"""The engine's throughput on a real range of a real repository, against git.

    python3 tests/bench/bench_throughput.py --repo CLONE
        [--check-range curl-8_11_0..curl-8_12_0] [--diff-range curl-8_3_0..curl-8_12_0]
        [--runs 5] [--revline BIN] [--build DIR] [--no-perf]

CLONE is a clone of curl with its tags (`git clone https://github.com/curl/curl`),
or of any repository given ranges of its own; nothing is fetched, and
nothing in the clone is changed (the store, the home and the fake server's
files live in a temporary folder). Prints, with medians over paired,
interleaved runs (revline, then git, run after run, so that a busy machine
weighs on both alike):

  - the CPU (user + system, children included) of `revline check` of the
    check range, with the built-in rules, against the fake LLM server
    answering at once, and of `git diff` of the same range, and their ratio
    (target <= 4); the first check (which builds the repository index of
    both sides into the store) apart;
  - the top functions of a profile of one check, when `perf` is there;
  - the wall time and the CPU of `revline diff` and `git diff` of the diff
    range, their ratio (target <= 1.1), and whether the outputs are the
    same bytes;
  - glob_bench: path-pattern matches a second for the built-in rules'
    patterns over the clone's paths (target >= 1,000,000).

Figures, not a test: it exits 0 unless the harness itself failed.
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
import fakellm_proc  # noqa: E402  (the fake LLM server, started)


def measured(argv, cwd, env, out=subprocess.DEVNULL):
    """Wall seconds and CPU seconds (user + system, children included) of one run."""
    start = time.monotonic()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out, stderr=subprocess.PIPE)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit("bench_throughput: %s failed (%d): %s" % (" ".join(argv), code,
                                                                 err.decode(errors="replace")[-2000:]))
    return wall, usage.ru_utime + usage.ru_stime


def start_server(root):
    script = os.path.join(root, "script.json")
    with open(script, "w") as f:
        json.dump({"default": {"latency_ms": 0, "answer": {"status": "compliant", "reasoning": "fine"}}}, f)
    return fakellm_proc.start(script, root, "bench_throughput")


def profile(revline, repo, env, argv, root):
    """The top functions of one check by the samples under them (perf record -g), revline's process only."""
    data = os.path.join(root, "perf.data")
    rec = subprocess.run(["perf", "record", "-q", "-F", "999", "--call-graph", "dwarf,16384", "-o", data,
                          revline] + argv, cwd=repo, env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    if rec.returncode not in (0, 1) or not os.path.exists(data):
        return None
    rep = subprocess.run(["perf", "report", "-i", data, "--children", "--comm", "revline", "--sort", "sym",
                          "--stdio", "-g", "none"], capture_output=True, text=True)
    generic = ("_start", "main", "cmd_check", "drive", "poll_group_step", "member_step", "phases_stepped",
               "__libc_start", "0x0", "[k]")
    rows = []
    for line in rep.stdout.splitlines():
        parts = line.split()
        if len(parts) < 4 or not parts[0].endswith("%") or line.lstrip().startswith("#"):
            continue
        name = " ".join(parts[3:])
        if any(name.startswith(g) or g in name for g in generic):
            continue
        rows.append((parts[0], parts[1], name))
    return rows


def check_figures(a, root):
    server = None
    try:
        server, port = start_server(root)
        env = dict(os.environ, HOME=os.path.join(root, "home"), REVLINE_DB=os.path.join(root, "db"),
                   REVLINE_BASE_URL="http://127.0.0.1:%s/v1" % port, REVLINE_MODEL="bench",
                   LANG="C.UTF-8", GIT_CONFIG_NOSYSTEM="1", GIT_PAGER="cat")
        env.pop("OPENAI_API_KEY", None)
        env.pop("REVLINE_DATADIR", None)
        os.makedirs(env["HOME"])
        argv = ["check", a.check_range, "--fail-on", "none", "--no-cache", "--concurrency", "8"]
        cold = measured([a.revline] + argv, a.repo, env)
        pairs = []
        for _ in range(a.runs):
            ours = measured([a.revline] + argv, a.repo, env)
            git = measured(["git", "diff", a.check_range], a.repo, env)
            pairs.append((ours, git))
        top = profile(a.revline, a.repo, env, argv, root) if a.perf and shutil.which("perf") else None
    finally:
        if server:
            server.terminate()
            server.wait()
    return cold, pairs, top


def diff_figures(a, root):
    env = dict(os.environ, LANG="C.UTF-8", GIT_CONFIG_NOSYSTEM="1", GIT_PAGER="cat", HOME=root)
    ours_out, git_out = os.path.join(root, "revline.diff"), os.path.join(root, "git.diff")
    with open(ours_out, "wb") as o, open(git_out, "wb") as g:
        measured([a.revline, "diff", a.diff_range], a.repo, env, o)
        measured(["git", "diff", a.diff_range], a.repo, env, g)
    same = open(ours_out, "rb").read() == open(git_out, "rb").read()
    size = os.path.getsize(git_out)
    pairs = []
    for _ in range(a.runs):
        ours = measured([a.revline, "diff", a.diff_range], a.repo, env)
        git = measured(["git", "diff", a.diff_range], a.repo, env)
        pairs.append((ours, git))
    return pairs, same, size


def glob_figures(a, root):
    driver = os.path.join(a.build, "tests", "glob_bench")
    if not os.access(driver, os.X_OK):
        return None
    paths = os.path.join(root, "paths")
    with open(paths, "wb") as f:
        subprocess.run(["git", "ls-tree", "-r", "--name-only", a.check_range.split("..")[-1]], cwd=a.repo,
                       stdout=f, check=True)
    out = subprocess.run([driver, paths], capture_output=True, text=True)
    if out.returncode:
        raise SystemExit("bench_throughput: glob_bench failed: %s" % out.stderr.strip())
    return json.loads(out.stdout)


def med(pairs, side, what):
    return statistics.median(p[side][what] for p in pairs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", required=True, help="a clone of curl (or another repository, with ranges)")
    ap.add_argument("--check-range", default="curl-8_11_0..curl-8_12_0")
    ap.add_argument("--diff-range", default="curl-8_3_0..curl-8_12_0")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--build", default=os.path.join(SOURCE, "build"))
    ap.add_argument("--revline", default=None)
    ap.add_argument("--no-perf", dest="perf", action="store_false")
    a = ap.parse_args()
    a.repo = os.path.abspath(a.repo)
    a.revline = a.revline or os.path.join(a.build, "bin", "revline")
    if not os.access(a.revline, os.X_OK):
        raise SystemExit("bench_throughput: no revline at %s (build it, or pass --revline)" % a.revline)
    for r in (a.check_range, a.diff_range):
        for rev in r.split(".."):
            if subprocess.run(["git", "rev-parse", "-q", "--verify", rev + "^{commit}"], cwd=a.repo,
                              stdout=subprocess.DEVNULL).returncode:
                raise SystemExit("bench_throughput: %s has no %s (a clone of curl with its tags?)" % (a.repo, rev))

    root = tempfile.mkdtemp(prefix="revline-bench-throughput-")
    try:
        cold, checks, top = check_figures(a, root)
        diffs, same, size = diff_figures(a, root)
        globs = glob_figures(a, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)

    ours_cpu, git_cpu = med(checks, 0, 1), med(checks, 1, 1)
    ratio = ours_cpu / git_cpu
    print("revline check %s (built-in rules, fake server answering at once), %d paired runs, medians"
          % (a.check_range, a.runs))
    print("  %-48s %8.3f s   (wall %.3f s)" % ("revline check, CPU", ours_cpu, med(checks, 0, 0)))
    print("  %-48s %8.3f s   (wall %.3f s)" % ("git diff, CPU", git_cpu, med(checks, 1, 0)))
    print("  %-48s %8.2f     target <= 4 %s" % ("ratio", ratio, "PASS" if ratio <= 4 else "MISS"))
    print("  %-48s %8.3f s   (wall %.3f s)" % ("the first check, indexing both sides, CPU", cold[1], cold[0]))
    if top:
        print("  top functions of one check (perf, samples under each, self):")
        for total, own, name in top[:15]:
            print("    %7s %7s  %s" % (total, own, name))
    elif a.perf:
        print("  (no profile: perf is not installed, or not allowed here)")

    wall, gwall = med(diffs, 0, 0), med(diffs, 1, 0)
    print("revline diff %s against git diff (%.1f MB of diff), %d paired runs, medians"
          % (a.diff_range, size / 1e6, a.runs))
    print("  %-48s %8.3f s   (CPU %.3f s)" % ("revline diff, wall", wall, med(diffs, 0, 1)))
    print("  %-48s %8.3f s   (CPU %.3f s)" % ("git diff, wall", gwall, med(diffs, 1, 1)))
    print("  %-48s %8.2f     target <= 1.1 %s" % ("ratio of the walls", wall / gwall,
                                                    "PASS" if wall / gwall <= 1.1 else "MISS"))
    print("  %-48s %8.2f" % ("ratio of the CPUs", med(diffs, 0, 1) / med(diffs, 1, 1)))
    print("  %-48s %8s" % ("the same bytes as git diff", "yes" if same else "NO"))
    if globs:
        print("glob matching (glob_bench): the built-in rules' %d patterns (%d rules) over %d paths"
              % (globs["patterns"], globs["rules"], globs["paths"]))
        print("  %-48s %11.0f   target >= 1,000,000 %s" % ("path-pattern matches a second, compiled",
                                                           globs["compiled_per_s"],
                                                           "PASS" if globs["compiled_per_s"] >= 1e6 else "MISS"))
        print("  %-48s %11.0f   (%.1fx slower)" % ("compiled at each call (glob_match_list)",
                                                   globs["per_call_per_s"], globs["speedup"]))
    else:
        print("glob matching: no glob_bench in %s/tests (build it)" % a.build)
    return 0


if __name__ == "__main__":
    sys.exit(main())
