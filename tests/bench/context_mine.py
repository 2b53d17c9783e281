"""Cases for bench_context.py, mined from a repository's real history.

A case is a commit that changed a function's signature (its parameters, or
its name) in one file, the definition's file, and changed lines calling it
in other files of the same language: the call sites updated for the new
signature. Reviewing the commit with only the definition's file applied
leaves those call sites stale; they are the lines a reviewer would have to
see to notice.

    cases, stats = mine(repo, max_cases=25, seed=26, max_files=30)

The walk: `git log --no-merges --name-status` over the Python and C files
(.py; .c, .h) gives the commits that modify at least two files of one
language and at most max_files of them; they are shuffled with the seed
(so that the cases spread over the whole history) and read in batches with
one `git diff-tree --stdin -p -U0` each, until max_cases are found. In a
commit, a file F is the definition's file of a function N when:

  - N is defined in F's old blob (a quick textual look first: `def N(` in
    Python, a line at column 0 with `N(` and no `;` in C), and N occurs
    (a whole word) in a removed line of another file of the commit;
  - universal-ctags (--fields=+neKSl) on F's old and new blobs confirms
    it: a function or method N (C: not static in a .c file) whose
    parameters changed (Python: the names, their order, `*`/`**` and
    whether they have a default; C: the parameter list, types included,
    whitespace aside), or that is gone from the new blob, renamed N2: a
    function new in it whose definition line the commit added, and that
    replaces N in a caller's lines (below) where N2 was not used before;
    two old names made one new name are a merge, not a rename;
  - a stale call site is a line another file of the same language lost
    in the commit (its text in the parent commit) that holds N as a whole
    word, is not a comment and not a declaration of N (a ctags tag named
    N on that line: a C prototype, a Python def), and that the commit
    rewrote: an added line of that file holds N (N2 for a rename), differs
    from it, and is like it once N is made N2 (difflib's ratio >= 0.5;
    >= 0.75 for a rename, which keeps the rest of the line). A definition
    in a test file has callers in test files only.

One case per commit: the definition's file with the most stale call sites
(the first in path order on a tie). Names shorter than 3 characters and
Python's dunder methods are left out (their callers are not found by name).
"""
import difflib
import json
import os
import random
import re
import subprocess
import tempfile
import time

LANGS = {".py": "python", ".c": "c", ".h": "c"}
PATHSPECS = ["*.py", "*.c", "*.h"]
BATCH = 64
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
PY_DEF = re.compile(r"^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(", re.M)
C_DEF = re.compile(r"^([A-Za-z_][^;\n]*)$", re.M)
C_NAME_PAREN = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
FUNC_KINDS = {"python": ("function", "member"), "c": ("function",)}


def git(repo, *args, data=None):
    return subprocess.run(("git", "-C", repo, "-c", "core.quotepath=off") + args, input=data,
                          check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE).stdout


def lang_of(path):
    return LANGS.get(os.path.splitext(path)[1])


def candidate_commits(repo, max_files):
    """Commits (newest first) modifying 2..max_files files of one language; the walk's size."""
    out = git(repo, "log", "--no-merges", "--format=%x00%H", "--name-status", "--no-renames",
              "--", *PATHSPECS).decode("utf-8", "replace")
    found, walked = [], 0
    for chunk in out.split("\0")[1:]:
        lines = chunk.split("\n")
        walked += 1
        by_lang = {}
        for line in lines[1:]:
            status, _, path = line.partition("\t")
            if not path or path.startswith('"'):
                continue
            lang = lang_of(path)
            if lang:
                by_lang.setdefault(lang, []).append(status)
        if any(st.count("M") >= 2 and len(st) <= max_files for st in by_lang.values()):
            found.append(lines[0].strip())
    return found, walked


class Blobs:
    """`git cat-file --batch`, one process for the whole mining."""

    def __init__(self, repo):
        self.proc = subprocess.Popen(["git", "-C", repo, "cat-file", "--batch"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def get(self, rev, path):
        self.proc.stdin.write(("%s:%s\n" % (rev, path)).encode())
        self.proc.stdin.flush()
        head = self.proc.stdout.readline().split()
        if len(head) != 3 or head[1] != b"blob":
            return None
        size = int(head[2])
        data = self.proc.stdout.read(size)
        self.proc.stdout.read(1)
        return data.decode("utf-8", "replace")

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def parse_diffs(text):
    """{commit: {path: {"old": [(line, text)], "new": [(line, text)]}}} from diff-tree -U0."""
    commits, files, cur = {}, None, None
    old_no = new_no = 0
    for line in text.split("\n"):
        if re.fullmatch(r"[0-9a-f]{40}", line):
            files = commits.setdefault(line, {})
            cur = None
        elif files is None:
            continue
        elif line.startswith("diff --git "):
            cur = None
        elif line.startswith("+++ "):
            path = line[4:]
            cur = None
            if path.startswith("b/"):
                cur = files.setdefault(path[2:], {"old": [], "new": []})
        elif line.startswith("@@") and cur is not None:
            m = HUNK.match(line)
            old_no, new_no = int(m.group(1)), int(m.group(3))
        elif cur is not None and line.startswith("-") and not line.startswith("--- "):
            cur["old"].append((old_no, line[1:]))
            old_no += 1
        elif cur is not None and line.startswith("+"):
            cur["new"].append((new_no, line[1:]))
            new_no += 1
    return commits


def ctags(text, path, lang):
    """ctags' tags of a blob (written to a temporary file with the blob's extension)."""
    with tempfile.NamedTemporaryFile("w", suffix=os.path.splitext(path)[1], delete=False,
                                     encoding="utf-8") as f:
        f.write(text)
        name = f.name
    try:
        args = ["ctags", "--sort=no", "--output-format=json", "--fields=+neKSl", "-o", "-"]
        if lang == "c":
            args.append("--kinds-C=+p")
        out = subprocess.run(args + [name], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             check=False).stdout.decode("utf-8", "replace")
    finally:
        os.unlink(name)
    tags = []
    for line in out.splitlines():
        try:
            tag = json.loads(line)
        except ValueError:
            continue
        if tag.get("_type") == "tag":
            tags.append(tag)
    return tags


def split_params(sig):
    """The top-level comma-separated parameters of '(a, b=(1, 2))'."""
    inner = sig.strip()
    if inner.startswith("(") and inner.endswith(")"):
        inner = inner[1:-1]
    out, depth, cur = [], 0, ""
    for ch in inner:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return [p.strip() for p in out if p.strip()]


def param_key(sig, lang):
    """What callers depend on in a signature."""
    if lang == "c":
        return tuple(re.sub(r"\s*\*\s*", "*", re.sub(r"\s+", " ", p)) for p in split_params(sig))
    key = []
    for p in split_params(sig):
        flat = re.sub(r"\[[^\]]*\]|\([^)]*\)|\{[^}]*\}", "", p)
        name = re.split(r"[:=]", flat, 1)[0].strip()
        key.append(name + ("=" if re.search(r"(?<![=!<>])=(?!=)", flat) else ""))
    return tuple(key)


def functions(tags, path, lang):
    """{(scope, name): tag} of the functions, names defined once per scope only."""
    out, seen = {}, set()
    for tag in tags:
        if tag.get("kind") not in FUNC_KINDS[lang] or "signature" not in tag:
            continue
        if lang == "c" and tag.get("file") and path.endswith(".c"):
            continue  # static: no caller in another file
        key = (tag.get("scope", ""), tag["name"])
        if key in seen:
            out.pop(key, None)
            continue
        seen.add(key)
        out[key] = tag
    return out


def quick_defs(text, lang):
    """Names that look defined in a blob (a cheap filter before ctags)."""
    if lang == "python":
        return set(PY_DEF.findall(text))
    names = set()
    for line in C_DEF.findall(text):
        names.update(C_NAME_PAREN.findall(line))
    return names


def is_comment(text, lang):
    s = text.strip()
    if lang == "python":
        return s.startswith("#")
    return s.startswith(("/*", "*", "//"))


def words(lines):
    out = set()
    for _, text in lines:
        out.update(WORD.findall(text))
    return out


def has_word(text, name):
    return re.search(r"(?<![A-Za-z0-9_])%s(?![A-Za-z0-9_])" % re.escape(name), text) is not None


def norm(text):
    """A line's text with its whitespace runs made one space, ends trimmed."""
    return " ".join(text.split())


def is_test(path):
    parts = path.split("/")
    base = parts[-1]
    return bool({"test", "tests", "testsuite", "testing"} & set(parts[:-1])) or \
        base.startswith("test_") or base == "conftest.py" or \
        os.path.splitext(base)[0].endswith(("_test", "_tests"))


def usable(name):
    return len(name) >= 3 and not (name.startswith("__") and name.endswith("__"))


class Miner:
    def __init__(self, repo):
        self.repo = repo
        self.blobs = Blobs(repo)
        self.tag_cache = {}

    def tags(self, rev, path, lang):
        key = (rev, path)
        if key not in self.tag_cache:
            text = self.blobs.get(rev, path)
            self.tag_cache[key] = ctags(text, path, lang) if text is not None else None
        return self.tag_cache[key]

    def changed_functions(self, commit, parent, path, lang, files, callers):
        """[(old name, new name, kind of change)] of path's functions whose signature changed."""
        old_text = self.blobs.get(parent, path)
        if old_text is None:
            return []
        elsewhere = set()
        for other in callers:
            elsewhere |= words(files[other]["old"])
        names = {n for n in quick_defs(old_text, lang) & elsewhere if usable(n)}
        if not names:
            return []
        new_tags = self.tags(commit, path, lang)
        if new_tags is None:
            return []
        old_f = functions(ctags(old_text, path, lang), path, lang)
        new_f = functions(new_tags, path, lang)
        old_names, new_names = {k[1] for k in old_f}, {k[1] for k in new_f}
        removed = {n for n, _ in files[path]["old"]}
        added = {n for n, _ in files[path]["new"]}
        # Renamed to: functions new in the file whose definition line the commit added.
        fresh = sorted(k[1] for k, t in new_f.items()
                       if k[1] not in old_names and t["line"] in added and usable(k[1]))
        out = []
        for key, tag in sorted(old_f.items()):
            name = key[1]
            if name not in names:
                continue
            if key in new_f:
                if param_key(tag["signature"], lang) != param_key(new_f[key]["signature"], lang):
                    out.append((name, name, "parameters"))
            elif name not in new_names and tag["line"] in removed:
                best = max(((self.renamed_in(parent, name, n2, lang, files, callers), n2)
                            for n2 in fresh), default=(0, None))
                if best[0]:
                    out.append((name, best[1], "renamed"))
        # A rename is one to one: two old names made one new name is a merge.
        targets = [new for old, new, how in out if how == "renamed"]
        return [f for f in out if f[2] != "renamed" or targets.count(f[1]) == 1]

    def renamed_in(self, parent, name, new_name, lang, files, callers):
        """How many callers' lines went from name to new_name, a name new to them."""
        count = 0
        for other in callers:
            hits = self.pairs(files[other], name, new_name, lang)
            if hits and not has_word(self.blobs.get(parent, other) or "", new_name):
                count += len(hits)
        return count

    @staticmethod
    def pairs(diff, name, new_name, lang):
        """[(line, text)] of the lines the commit removed holding name (not a comment) and
        rewrote: an added line holds new_name, differs, and is like the removed one with
        name made new_name (difflib ratio >= 0.5; 0.75 for a rename, which keeps the rest)."""
        added = [norm(t) for _, t in diff["new"] if has_word(t, new_name)]
        out = []
        if not added:
            return out
        for n, t in diff["old"]:
            if not has_word(t, name) or is_comment(t, lang):
                continue
            was = norm(t)
            renamed = norm(re.sub(r"(?<![A-Za-z0-9_])%s(?![A-Za-z0-9_])" % re.escape(name),
                                  new_name, t))
            least = 0.5 if name == new_name else 0.75
            if any(a != was and difflib.SequenceMatcher(None, renamed, a).ratio() >= least
                   for a in added):
                out.append((n, t))
        return out

    def stale_sites(self, parent, path, name, new_name, lang, files, callers):
        sites = []
        for other in callers:
            if is_test(path) and not is_test(other):
                continue  # a test's helper has no caller outside the tests
            hits = self.pairs(files[other], name, new_name, lang)
            if not hits:
                continue
            tags = self.tags(parent, other, lang) or []
            decl = {t.get("line") for t in tags if t.get("name") == name}
            for n, t in hits:
                if n in decl or (lang == "python" and re.match(r"\s*(async\s+)?def\s", t)):
                    continue
                sites.append({"file": other, "line": n, "text": t})
        return sites

    def case(self, commit, files):
        parent = git(self.repo, "rev-parse", commit + "^").decode().strip()
        by_lang = {}
        for path in sorted(files):
            lang = lang_of(path)
            if lang:
                by_lang.setdefault(lang, []).append(path)
        best = None
        for lang, paths in sorted(by_lang.items()):
            if len(paths) < 2:
                continue
            for path in paths:
                if not files[path]["old"]:
                    continue
                callers = [p for p in paths if p != path]
                funcs, sites = [], []
                for name, new_name, how in self.changed_functions(commit, parent, path, lang,
                                                                  files, callers):
                    found = self.stale_sites(parent, path, name, new_name, lang, files,
                                             callers)
                    if found:
                        funcs.append({"name": name, "new_name": new_name, "change": how})
                        sites += [s for s in found if s not in sites]
                if sites and (best is None or len(sites) > len(best["stale_sites"])):
                    best = {"commit": commit, "parent": parent, "language": lang,
                            "definition_file": path, "functions": funcs,
                            "stale_sites": sites,
                            "caller_files": sorted({s["file"] for s in sites}),
                            "commit_files": len(files)}
        return best

    def close(self):
        self.blobs.close()


def mine(repo, max_cases, seed, max_files):
    """(cases, stats): up to max_cases cases of repo, in the seeded order."""
    start = time.monotonic()
    candidates, walked = candidate_commits(repo, max_files)
    random.Random(seed).shuffle(candidates)
    miner = Miner(repo)
    cases, scanned = [], 0
    try:
        for at in range(0, len(candidates), BATCH):
            if len(cases) >= max_cases:
                break
            batch = candidates[at:at + BATCH]
            text = git(repo, "diff-tree", "--stdin", "-p", "-U0", "--no-renames", "--no-color",
                       "--", *PATHSPECS, data="".join(c + "\n" for c in batch).encode())
            diffs = parse_diffs(text.decode("utf-8", "replace"))
            for commit in batch:
                if len(cases) >= max_cases:
                    break
                scanned += 1
                found = miner.case(commit, diffs.get(commit, {}))
                if found:
                    cases.append(found)
    finally:
        miner.close()
    return cases, {"commits_walked": walked, "candidate_commits": len(candidates),
                   "commits_scanned": scanned, "cases": len(cases),
                   "mining_s": time.monotonic() - start}


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description="print the cases mined from a repository")
    ap.add_argument("repo")
    ap.add_argument("--max-cases", type=int, default=25)
    ap.add_argument("--seed", type=int, default=26)
    ap.add_argument("--max-files", type=int, default=30)
    a = ap.parse_args()
    found, stats = mine(a.repo, a.max_cases, a.seed, a.max_files)
    for c in found:
        print(json.dumps(c))
    print(json.dumps(stats))
