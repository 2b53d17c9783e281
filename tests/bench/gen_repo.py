#!/usr/bin/env python3
"""Generate a deterministic git repository with a large working-tree diff.

usage: gen_repo.py DIR [--files N] [--lines N]

The repository at DIR gets one commit of many files in nested directories,
then working-tree changes (what `git diff` shows) touching N files and about
L changed lines (additions + deletions):

  * 00_marker.txt, first in path order, whose first hunk inserts 80 unique
    lines MARKER0001 .. MARKER0080 at the top (the benchmark watches for one
    of them to tell that a first screen is fully drawn);
  * ~96% modified files with several separate hunks each (replacements,
    pure insertions and pure deletions);
  * ~2% deleted files and ~2% added files (added with `git add -N`, so that
    `git diff` shows them as new files).

Everything is derived from a fixed seed, so the same parameters give the
same repository byte for byte (commit ids included). When DIR already holds
a repository generated with the same parameters and generator version, it
is kept as it is (pass --force to rebuild).
Prints a summary line: files, lines, added, deleted, modified.
"""
import argparse
import os
import random
import shutil
import subprocess
import sys

VERSION = 3
MARKER_LINES = 80
WORDS = ("alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega "
         "count value index offset buffer result status error length width "
         "height parse print check update insert remove source target config "
         "handle stream entry cursor screen render layout").split()


def code_line(rng, tag):
    """A source-like line, 30-70 characters, unique thanks to tag."""
    kind = rng.randrange(6)
    a, b, c = rng.choice(WORDS), rng.choice(WORDS), rng.choice(WORDS)
    if kind == 0:
        return f"\t{a}_{b} = {c}({rng.randrange(1000)}, {tag});"
    if kind == 1:
        return f"\tif ({a} > {b}_{tag}) return {c}_{rng.randrange(100)};"
    if kind == 2:
        return f"\t/* {a} {b} {c} note {tag} */"
    if kind == 3:
        return f"static int {a}_{b}_{tag}(struct {c} *{a}, size_t n)"
    if kind == 4:
        return f"\t\t{a}->{b}[{tag}] = {c} + {rng.randrange(65536)};"
    return f"\tfor (i = 0; i < {a}_{tag}; i++) {b}({c}, i);"


def plan(nfiles, nlines):
    """Split the change into added, deleted and modified files with sizes."""
    nadd = max(1, nfiles // 50)
    ndel = max(1, nfiles // 50)
    nmod = nfiles - nadd - ndel - 1          # minus the marker file
    if nmod < 1:
        sys.exit("gen_repo: --files must be at least 4")
    whole = 60                               # lines of an added or deleted file
    left = nlines - MARKER_LINES - (nadd + ndel) * whole
    per_file = max(4, -(-left // nmod))      # changed lines per modified file
    return nadd, ndel, nmod, whole, per_file


def hunks_for(rng, per_file):
    """Hunks (kind, deleted, added) summing to at least per_file changed lines."""
    hunks, total = [], 0
    while total < per_file:
        size = min(max(2, per_file - total), rng.randrange(4, 16))
        kind = rng.randrange(5)
        if kind == 0:                        # pure insertion
            d, a = 0, size
        elif kind == 1:                      # pure deletion
            d, a = size, 0
        else:                                # replacement
            d = max(1, size // 2)
            a = size - d
        hunks.append((d, a))
        total += d + a
    return hunks


def write(path, lines):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(lines))
        f.write("\n")


def git(repo, *args, check=True, **kw):
    env = dict(os.environ, GIT_AUTHOR_NAME="Bench", GIT_AUTHOR_EMAIL="bench@example.com",
               GIT_COMMITTER_NAME="Bench", GIT_COMMITTER_EMAIL="bench@example.com",
               GIT_AUTHOR_DATE="1700000000 +0000", GIT_COMMITTER_DATE="1700000000 +0000",
               GIT_CONFIG_NOSYSTEM="1", HOME=repo)
    return subprocess.run(["git", "-C", repo, *args], check=check, env=env, **kw)


def paths(n):
    """n file paths in nested directories: dir/sub[/deep]/name.c"""
    out = []
    for i in range(n):
        d, s = i % 23, (i // 23) % 9
        deep = f"/deep{i % 3}" if i % 7 == 0 else ""
        out.append(f"src{d:02d}/mod{s}{deep}/file{i:05d}.c")
    return out


def generate(repo, nfiles, nlines):
    rng = random.Random(20240601)
    nadd, ndel, nmod, whole, per_file = plan(nfiles, nlines)
    committed = paths(nmod + ndel)
    order = list(range(len(committed)))
    rng.shuffle(order)
    deleted = set(order[:ndel])

    if os.path.exists(repo):
        shutil.rmtree(repo)
    os.makedirs(repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "core.autocrlf", "false")

    # The committed state.
    marker_old = [f"keep{i:04d} unchanged text of the marker file" for i in range(1, 41)]
    write(os.path.join(repo, "00_marker.txt"), marker_old)
    plans = {}
    for idx, path in enumerate(committed):
        if idx in deleted:
            lines = [code_line(rng, f"d{idx}_{j}") for j in range(whole)]
        else:
            hunks = hunks_for(rng, per_file)
            # Separate hunks by at least 8 unchanged lines (3+3 context).
            gaps = [rng.randrange(8, 20) for _ in range(len(hunks) + 1)]
            old_len = sum(gaps) + sum(d for d, _ in hunks)
            lines = [code_line(rng, f"o{idx}_{j}") for j in range(old_len)]
            plans[idx] = (hunks, gaps)
        write(os.path.join(repo, path), lines)
    with open(os.path.join(repo, ".gitignore"), "w") as f:
        f.write("*.o\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "Base")

    # The working-tree change.
    adds = dels = 0
    write(os.path.join(repo, "00_marker.txt"),
          [f"MARKER{i:04d}" for i in range(1, MARKER_LINES + 1)] + marker_old)
    adds += MARKER_LINES
    for idx, path in enumerate(committed):
        full = os.path.join(repo, path)
        if idx in deleted:
            os.unlink(full)
            dels += whole
            continue
        with open(full) as f:
            old = f.read().split("\n")[:-1]
        hunks, gaps = plans[idx]
        new, pos = [], 0
        for h, (d, a) in enumerate(hunks):
            new += old[pos:pos + gaps[h]]
            pos += gaps[h] + d
            new += [code_line(rng, f"n{idx}_{h}_{j}") for j in range(a)]
            adds += a
            dels += d
        new += old[pos:]
        write(full, new)
    added = []
    for k in range(nadd):
        path = f"src{k % 23:02d}/new{k % 4}/added{k:04d}.c"
        write(os.path.join(repo, path), [code_line(rng, f"a{k}_{j}") for j in range(whole)])
        added.append(path)
        adds += whole
    git(repo, "add", "-N", "--", *added)
    # Refresh the index once, as `git diff` would, so every run sees one state.
    git(repo, "update-index", "-q", "--refresh", check=False, stdout=subprocess.DEVNULL)
    return nfiles, adds, dels, nadd, ndel, nmod + 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--files", type=int, default=5000)
    ap.add_argument("--lines", type=int, default=200000)
    ap.add_argument("--force", action="store_true")
    args = ap.parse_args()
    repo = os.path.abspath(args.dir)
    stamp = os.path.join(repo, ".git", "bench-params")
    want = f"version={VERSION} files={args.files} lines={args.lines}\n"
    if not args.force and os.path.exists(stamp):
        with open(stamp) as f:
            lines = f.read().split("\n", 1)
        if lines[0] + "\n" == want:
            print("reused " + lines[1].strip())
            return
    nfiles, adds, dels, nadd, ndel, nmod = generate(repo, args.files, args.lines)
    summary = (f"files={nfiles} changed_lines={adds + dels} additions={adds} "
               f"deletions={dels} added={nadd} deleted={ndel} modified={nmod}")
    with open(stamp, "w") as f:
        f.write(want + summary + "\n")
    print("generated " + summary)


if __name__ == "__main__":
    main()
