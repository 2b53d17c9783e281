#!/usr/bin/env python3
"""Compare `revline diff` with `git diff -M` on real commit pairs.

    python3 tests/bench/diff_vs_git.py --revline BIN REPO [REPO...] [--pairs 150] [--renames 100]

For each repository: the last --pairs first-parent commits against their
parent, and the last --renames commits whose change holds both a deletion
and an addition (where rename pairing decides), each as C^..C. Compares
`revline diff A..B` with `git diff -M A..B` in text, --name-status, --stat
(both as wide as COLUMNS says, else 80), and the (status, old path, path,
similarity) of --json against --name-status. The index line's abbreviation
is left out of the text comparison (core.abbrev is another matter); every
difference is listed with the pair, so a case can be made into a test.
"""
import argparse
import json
import re
import subprocess
import sys

INDEX = re.compile(rb"^index [0-9a-f]+\.\.[0-9a-f]+", re.M)


def run(cmd, cwd):
    return subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout


def commits(repo, args):
    log = run(["git", "log", "--first-parent", "--format=%H %P", "-n", str(args.pairs)], repo).decode()
    pairs = [line.split()[:2] for line in log.splitlines() if len(line.split()) >= 2]
    ad = run(["git", "log", "--first-parent", "--no-renames", "--diff-filter=A", "--format=%H",
              "-n", "3000"], repo).decode().split()
    seen = {c for c, _ in pairs}
    found = 0
    for c in ad:
        if found >= args.renames:
            break
        if c in seen:
            continue
        st = run(["git", "diff", "--no-renames", "--name-status", c + "^", c], repo).decode()
        letters = {line[:1] for line in st.splitlines()}
        if "A" in letters and "D" in letters:
            pairs.append((c, c + "^"))
            seen.add(c)
            found += 1
    return [(p, c) for c, p in pairs]


def json_status(out):
    try:
        doc = json.loads(out)
    except ValueError:
        return None
    letter = {"added": "A", "modified": "M", "deleted": "D", "renamed": "R", "copied": "C", "typechange": "T"}
    lines = []
    for f in doc["files"]:
        s = letter[f["status"]]
        if s in "RC":
            lines.append("%s%03d\t%s\t%s" % (s, f["similarity"], f["old_path"], f["path"]))
        else:
            lines.append("%s\t%s" % (s, f["path"]))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--revline", required=True)
    ap.add_argument("--pairs", type=int, default=150)
    ap.add_argument("--renames", type=int, default=100)
    ap.add_argument("--range", action="append", default=[], help="REPO:A..B, compared too")
    ap.add_argument("repos", nargs="*")
    args = ap.parse_args()
    total = 0
    bad = {"text": 0, "name-status": 0, "stat": 0, "json": 0}
    work = []
    for repo in args.repos:
        work += [(repo, a, b) for a, b in commits(repo, args)]
    for spec in args.range:
        repo, rng = spec.rsplit(":", 1)
        a, b = rng.split("..")
        work.append((repo, a, b))
    for repo, a, b in work:
        rng = "%s..%s" % (a, b)
        total += 1
        wrong = []
        text = run([args.revline, "diff", rng], repo)
        git = run(["git", "-c", "diff.renameLimit=1000", "diff", "-M", rng], repo)
        if INDEX.sub(b"index", text) != INDEX.sub(b"index", git):
            wrong.append("text")
        ns = run([args.revline, "diff", "--name-status", rng], repo)
        gns = run(["git", "-c", "diff.renameLimit=1000", "diff", "-M", "--name-status", rng], repo)
        if ns != gns:
            wrong.append("name-status")
        stat = run([args.revline, "diff", "--stat", rng], repo)
        gstat = run(["git", "-c", "diff.renameLimit=1000", "diff", "-M", "--stat", rng], repo)
        if stat != gstat:
            wrong.append("stat")
        js = json_status(run([args.revline, "diff", "--json", rng], repo))
        if js is None or js.strip() != gns.decode("utf-8", "replace").strip():
            wrong.append("json")
        for w in wrong:
            bad[w] += 1
        if wrong:
            print("%s %s: %s" % (repo, rng, ", ".join(wrong)), flush=True)
    print("%d pairs; differ from git: text %d, --name-status %d, --stat %d, --json %d" %
          (total, bad["text"], bad["name-status"], bad["stat"], bad["json"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
