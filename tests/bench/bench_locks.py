#!/usr/bin/env python3
"""A real lock file's transition read by revline against `git diff` of the
same file: the time and the peak memory of a check's dependency phase
(tests/bench/lock_bench.c: the diff listed, both sides read from git, the
lock file read into packages and matched into transitions, advisories
off) on a two-commit repository holding the old and the new lock file
(and the manifest beside it), against `git diff HEAD~1 HEAD -- FILE` in
that repository. Targets: at most 2x git diff's time; the memory revline
needs beyond its floor (the same driver on an empty range) at most 4x
the lock file's size.

    python3 tests/bench/bench_locks.py [--build DIR] [--runs 5] [--mirrors DIR]
    python3 tests/bench/bench_locks.py --repo PATH --file LOCKFILE [--old REV] [--new REV] [--back N]
    python3 tests/bench/bench_locks.py ... --scale K

Without --repo, the cases are real lock files of the repositories
mirrored under --mirrors (default /work/.mirror: npm/cli's and lerna's
package-lock.json, webpack's yarn.lock (classic), prettier's website
yarn.lock (berry), pnpm's pnpm-lock.yaml (v9), hono's bun.lock; a
missing mirror is skipped); any clone (bare or not) works with --repo.
The new side is --new (default HEAD), the old one --old, else the
--back'th earlier commit that changed the file (default 40): months of
real dependency churn. --scale K also measures each npm and yarn classic
case grown K times (every package copied K times under new names, its
dependencies renamed with it; package-lock.json's root depends on the
copies as on the originals, while package.json is left as it is, within
revline's bounds for a manifest, so that yarn's copies are transitive):
K=50 makes npm/cli's package-lock.json about 30 MB and webpack's yarn.lock
about 700,000 lines. Nothing here needs the network. Figures, not a test:
exits 0 unless the harness failed; a missed target says MISS.
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

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.abspath(os.path.join(HERE, "..", ".."))
TIME_RATIO, MEMORY_RATIO = 2.0, 4.0
CASES = [
    ("npm+cli", "package-lock.json"),
    ("lerna+lerna", "package-lock.json"),
    ("webpack+webpack", "yarn.lock"),
    ("prettier+prettier", "website/yarn.lock"),
    ("pnpm+pnpm", "pnpm-lock.yaml"),
    ("honojs+hono", "bun.lock"),
]
# The manifest beside a lock file (src/lock/lock.c's lock_manifest_name, for these formats).
MANIFEST = {"yarn.lock": "package.json", "package-lock.json": "package.json",
            "pnpm-lock.yaml": "package.json", "bun.lock": "package.json"}


def git(repo, *args, binary=False):
    out = subprocess.run(["git", "-C", repo] + list(args), capture_output=True, check=False)
    if out.returncode != 0:
        raise RuntimeError("git %s: %s" % (" ".join(args), out.stderr.decode(errors="replace").strip()))
    return out.stdout if binary else out.stdout.decode()


def show(repo, rev, path):
    try:
        return git(repo, "show", "%s:%s" % (rev, path), binary=True)
    except RuntimeError:
        return None


# --- growing a lock file ------------------------------------------------------

def renamed(name, k):
    return "%s-k%d" % (name, k)


def grow_npm(text, manifest, k):
    """package-lock.json (v2, v3): every package of "packages" copied k times, renamed."""
    lock = json.loads(text)
    packages = lock.get("packages") or {}
    lock.pop("dependencies", None)
    grown = dict(packages)
    for i in range(1, k + 1):
        for key, entry in packages.items():
            if not key.startswith("node_modules/"):
                continue
            parts = key.split("node_modules/")
            key2 = "node_modules/".join([parts[0]] + [renamed(p.rstrip("/"), i) + ("/" if p.endswith("/") else "")
                                                      for p in parts[1:]])
            entry2 = dict(entry)
            for field in ("dependencies", "optionalDependencies", "peerDependencies"):
                if isinstance(entry.get(field), dict):
                    entry2[field] = {renamed(n, i): v for n, v in entry[field].items()}
            grown[key2] = entry2
    root = grown.get("", {})
    for field in ("dependencies", "devDependencies", "optionalDependencies"):
        deps = root.get(field)
        if isinstance(deps, dict):
            deps.update({renamed(n, i): v for n, v in list(deps.items()) for i in range(1, k + 1)})
    lock["packages"] = grown
    return json.dumps(lock, indent=2).encode(), manifest


HEADER_SPEC = re.compile(r'("?)((?:@[^@/"\s]+/)?[^@"\s,]+)@')
DEP_LINE = re.compile(r'^(    )("?)((?:@[^@/"\s]+/)?[^"\s]+)("? )')


def grow_yarn(text, manifest, k):
    """yarn.lock classic: every entry copied k times, its names and its dependencies' renamed."""
    body = text.decode()
    if "__metadata:" in body:
        raise ValueError("--scale grows yarn classic lock files, not berry's")
    head, _, rest = body.partition("\n\n")
    entries = [e for e in rest.split("\n\n") if e.strip()]
    out = [head, ""]
    out += entries
    for i in range(1, k + 1):
        for entry in entries:
            lines = entry.split("\n")
            lines[0] = HEADER_SPEC.sub(lambda m: "%s%s@" % (m.group(1), renamed(m.group(2), i)), lines[0])
            lines[1:] = [DEP_LINE.sub(lambda m: "%s%s%s%s" % (m.group(1), m.group(2), renamed(m.group(3), i),
                                                              m.group(4)), line) for line in lines[1:]]
            out.append("\n".join(lines))
    return ("\n\n".join(out) + "\n").encode(), manifest


def grow(path, text, manifest, k):
    base = os.path.basename(path)
    if base == "package-lock.json":
        return grow_npm(text, manifest, k)
    if base == "yarn.lock":
        return grow_yarn(text, manifest, k)
    raise ValueError("--scale grows package-lock.json and yarn.lock, not %s" % base)


# --- the repository -----------------------------------------------------------

def commit(work, files, message):
    for path, data in files.items():
        full = os.path.join(work, path)
        if data is None:
            if os.path.exists(full):
                os.unlink(full)
            continue
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data)
    env = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.com",
               GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.com")
    subprocess.run(["git", "-C", work, "add", "-A"], check=True)
    subprocess.run(["git", "-C", work, "commit", "-q", "-m", message], check=True, env=env)


def make_repo(tmp, path, sides):
    work = tempfile.mkdtemp(prefix="repo-", dir=tmp)
    subprocess.run(["git", "init", "-q", work], check=True)
    manifest = os.path.join(os.path.dirname(path), MANIFEST.get(os.path.basename(path), "package.json"))
    for label, (lock, man) in zip(("old", "new"), sides):
        commit(work, {path: lock, manifest: man}, label)
    return work


# --- measuring ----------------------------------------------------------------

def helper(tmp):
    exe = os.path.join(tmp, "rusage_exec")
    subprocess.run(["cc", "-O2", "-o", exe, os.path.join(HERE, "rusage_exec.c")], check=True)
    return exe


def measure(rusage, argv, runs, tmp):
    """(median wall ms, median CPU ms, largest peak RSS in KB, the last stdout) over runs, after one warm-up run."""
    out = os.path.join(tmp, "rusage")
    times, cpu, rss, stdout = [], [], 0, ""
    for i in range(runs + 1):
        start = _now()
        proc = subprocess.run([rusage, out] + argv, capture_output=True, text=True, check=False)
        elapsed = (_now() - start) * 1000
        if proc.returncode != 0:
            raise RuntimeError("%s: %s" % (" ".join(argv), proc.stderr.strip()))
        with open(out) as f:
            fields = f.read().split()
        if i:
            times.append(elapsed)
            cpu.append((float(fields[1]) + float(fields[2])) * 1000)
            rss = max(rss, int(fields[0]))
        stdout = proc.stdout
    return statistics.median(times), statistics.median(cpu), rss, stdout


def _now():
    import time
    return time.monotonic()


def bench(label, work, path, size, lines, driver, rusage, runs, tmp):
    rl_ms, rl_cpu, rl_kb, out = measure(rusage, [driver, work, "HEAD~1..HEAD"], runs, tmp)
    _, _, floor_kb, _ = measure(rusage, [driver, work, "HEAD..HEAD"], runs, tmp)
    git_ms, git_cpu, git_kb, _ = measure(rusage, ["git", "-C", work, "--no-pager", "diff", "HEAD~1", "HEAD", "--", path],
                                runs, tmp)
    r = json.loads(out)
    time_ratio = rl_ms / git_ms
    over = max(rl_kb - floor_kb, 0) * 1024
    memory_ratio = over / size
    print("%s: %.1f MB, %d lines; %d packages changed (%d transitive)%s" %
          (label, size / 1e6, lines, r["packages"], r["transitive"],
           "; %d problems" % r["problems"] if r["problems"] else ""))
    print("  revline %7.1f ms (dependency phase %.1f ms; CPU %.0f ms)  git diff %7.1f ms (CPU %.0f ms)  "
          "ratio %.2f (target <= %.1f) %s" %
          (rl_ms, r["deps_ms"], rl_cpu, git_ms, git_cpu, time_ratio, TIME_RATIO,
           "PASS" if time_ratio <= TIME_RATIO else "MISS"))
    print("  revline peak %6.1f MB (floor %.1f MB, %.1f MB beyond it)  git diff %.1f MB  "
          "beyond / file %.2f (target <= %.1f) %s" %
          (rl_kb / 1024, floor_kb / 1024, over / 2**20, git_kb / 1024, memory_ratio, MEMORY_RATIO,
           "PASS" if memory_ratio <= MEMORY_RATIO else "MISS"))


def run_case(args, repo, path, driver, rusage, tmp, name):
    new = args.new or "HEAD"
    old = args.old
    if not old:
        revs = git(repo, "log", "--format=%H", new, "--", path).split()
        if len(revs) < 2:
            print("%s: %s changed in fewer than 2 commits; skipped" % (name, path))
            return
        old = revs[min(args.back, len(revs) - 1)]
    manifest = os.path.join(os.path.dirname(path), MANIFEST.get(os.path.basename(path), "package.json"))
    sides = [(show(repo, rev, path), show(repo, rev, manifest)) for rev in (old, new)]
    if sides[0][0] is None or sides[1][0] is None:
        print("%s: %s is not on both sides; skipped" % (name, path))
        return
    label = "%s %s %s..%s" % (name, path, git(repo, "rev-parse", "--short", old).strip(),
                              git(repo, "rev-parse", "--short", new).strip())
    size = max(len(sides[0][0]), len(sides[1][0]))
    lines = max(sides[0][0].count(b"\n"), sides[1][0].count(b"\n"))
    work = make_repo(tmp, path, sides)
    bench(label, work, path, size, lines, driver, rusage, args.runs, tmp)
    if args.scale and os.path.basename(path) in ("package-lock.json", "yarn.lock"):
        try:
            grown = [grow(path, lock, man, args.scale) for lock, man in sides]
        except ValueError as e:
            print("  (not grown: %s)" % e)
            return
        size = max(len(grown[0][0]), len(grown[1][0]))
        lines = max(grown[0][0].count(b"\n"), grown[1][0].count(b"\n"))
        work = make_repo(tmp, path, grown)
        bench("%s, grown %dx" % (label, args.scale), work, path, size, lines, driver, rusage, args.runs, tmp)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(SOURCE, "build"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--mirrors", default="/work/.mirror")
    ap.add_argument("--repo", help="a clone (bare or not) holding the lock file")
    ap.add_argument("--file", help="the lock file's path in --repo")
    ap.add_argument("--old", help="the old side's revision")
    ap.add_argument("--new", help="the new side's revision (default HEAD)")
    ap.add_argument("--back", type=int, default=40, help="without --old: the N'th earlier change of the file")
    ap.add_argument("--scale", type=int, default=0, help="also measure each case grown K times")
    args = ap.parse_args()
    driver = os.path.join(args.build, "tests", "lock_bench")
    if not os.path.exists(driver):
        sys.exit("no %s: build revline first (cmake --build %s --target lock_bench)" % (driver, args.build))
    if bool(args.repo) != bool(args.file):
        sys.exit("--repo and --file go together")
    tmp = tempfile.mkdtemp(prefix="revline-bench-locks-")
    try:
        rusage = helper(tmp)
        print("load average %s; %s" % (" ".join("%.2f" % x for x in os.getloadavg()), git(".", "--version").strip()))
        if args.repo:
            run_case(args, args.repo, args.file, driver, rusage, tmp, os.path.basename(os.path.abspath(args.repo)))
        else:
            for mirror, path in CASES:
                repo = os.path.join(args.mirrors, mirror, "repo")
                if not os.path.isdir(repo):
                    print("%s: no mirror at %s; skipped" % (mirror, repo))
                    continue
                run_case(args, repo, path, driver, rusage, tmp, mirror)
    except RuntimeError as e:
        sys.exit("bench_locks: %s" % e)
    finally:
        shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
