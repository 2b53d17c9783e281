#!/usr/bin/env python3
"""The house shows the design (issue 15): what a newcomer relies on, checked.

- layers: the engine (src/) includes nothing of ui/ or cli/, never draws
  (curses), prints or exits; ui/ includes nothing of cli/;
- SQL in one layer: only src/store includes store_sql.h or
  store_backend.h; only its SQLite backend (backend_sqlite.c) includes
  sqlite3.h, and only its PostgreSQL backend (backend_pg.c, backend_pg_*.c) libpq-fe.h;
- no circles: no module calls a function of a module that calls back into
  it, directly or round a longer loop (the calls are read from the sources:
  a name followed by '(' or taken by '&' that another file defines). A
  module is one file, or the files of one concept split for size that share
  its internal header NAME_state.h or NAME_internal.h (check.c,
  check_plan.c, ... with check_state.h): they may call each other;
- folders in their place: a folder listed in FOLDER_CALLS calls only the
  folders (or single files) it lists, and is called by none of the folders
  it lists as below it; src/context/ (the repository index) stands on
  base/, config/, repo/ and store/, and borrows review/scope.c's file rules,
  review/prompt.c's fences and signals/editwin_braces.c's brace scanner;
  those never call it (the
  check, the models' tools and the front ends do);
- sizes: no folder over 20 .c files, no source file over 1,200 lines, no
  function over 80 lines;
- the map is true: docs/ARCHITECTURE.md names every source file (by its
  name, or a pattern such as views/view_*.c), and names no file that is gone.

Run from anywhere: python3 tests/structure/layers.py [SOURCE_DIR]
Prints what is wrong, one line each, and exits 1; nothing and 0 when all holds.
"""
import collections
import fnmatch
import glob
import os
import re
import sys

MAX_FOLDER = 20
MAX_FILE = 1200
MAX_FUNCTION = 80
SQLITE_BACKEND = 'src/store/backend_sqlite.c'
# folder: (what it may call: folders, or folder/file.c; the folders below it, which may not call it)
FOLDER_CALLS = {
    'context': ({'base', 'config', 'repo', 'store', 'context', 'review/scope.c', 'review/prompt.c',
                 'signals/editwin_braces.c'},
                {'base', 'config', 'repo', 'store'}),
}
PG_BACKEND = 'src/store/backend_pg.c'


def sources(root):
    pats = ['src/*/*.c', 'ui/*.c', 'ui/views/*.c', 'cli/*.c', 'cli/*/*.c']
    return sorted(f for p in pats for f in glob.glob(os.path.join(root, p)))


def headers(root):
    pats = ['src/*/*.h', 'ui/*.h', 'ui/views/*.h', 'cli/*.h', 'cli/*/*.h']
    return sorted(f for p in pats for f in glob.glob(os.path.join(root, p)))


def strip(text):
    text = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'), text, flags=re.S)
    text = re.sub(r'//[^\n]*', '', text)
    return re.sub(r'"(\\.|[^"\\\n])*"', '""', text)


def rel(root, path):
    return os.path.relpath(path, root)


def layer_problems(root, files):
    out = []
    names = {}
    for h in headers(root):
        names[os.path.basename(h)] = rel(root, h).split('/')[0]
    for f in files:
        r = rel(root, f)
        top = r.split('/')[0]
        text = strip(open(f, encoding='utf-8', errors='replace').read())
        raw = open(f, encoding='utf-8', errors='replace').read()
        for inc in re.findall(r'#include\s+[<"]([^>"]+)[>"]', raw):
            base = os.path.basename(inc)
            where = names.get(base)
            if top == 'src' and where in ('ui', 'cli'):
                out.append('%s: the engine includes %s of %s/' % (r, inc, where))
            if top == 'ui' and where == 'cli':
                out.append('%s: the UI includes %s of cli/' % (r, inc))
            if top == 'src' and re.match(r'n?cursesw?\.h|curses\.h', base):
                out.append('%s: the engine includes %s (only ui/ draws)' % (r, inc))
            if base in ('store_sql.h', 'store_backend.h') and not r.startswith('src/store/'):
                out.append('%s: includes %s: SQL belongs to src/store' % (r, inc))
            if base == 'sqlite3.h' and r != SQLITE_BACKEND:
                out.append('%s: includes %s: only %s speaks to SQLite' % (r, inc, SQLITE_BACKEND))
            if base == 'libpq-fe.h' and not r.startswith(PG_BACKEND[:-2]):
                out.append('%s: includes %s: only %s and its backend_pg_*.c speak to PostgreSQL' %
                           (r, inc, PG_BACKEND))
        if top == 'src':
            for call in ('printf', 'fprintf', 'puts', 'fputs', 'putchar', 'exit', 'abort', 'perror'):
                if re.search(r'(?<![\w.>])%s\s*\(' % call, text):
                    out.append('%s: the engine calls %s (it returns statuses)' % (r, call))
    return out


def definitions(files):
    defs = {}
    for f in files:
        text = strip(open(f, encoding='utf-8', errors='replace').read())
        for m in re.finditer(r'^(?!static)[a-z][\w \*]*?\b(\w+)\([^;{]*?\)\s*\{', text, re.M):
            defs.setdefault(m.group(1), f)
        for m in re.finditer(r'^(?:const )?struct \w+ (\w+)(\[\])? =', text, re.M):
            defs.setdefault(m.group(1), f)
    return defs


def module_of(files):
    """Each file's module: the internal header it includes, or itself."""
    module = {}
    for f in files:
        raw = open(f, encoding='utf-8', errors='replace').read()
        m = re.search(r'#include\s+"(\w+)_(?:state|internal)\.h"', raw)
        module[f] = os.path.join(os.path.dirname(f), m.group(1) + '*.c') if m else f
    return module


def call_graph(files):
    defs = definitions(files)
    module = module_of(files)
    uses = collections.defaultdict(set)
    why = collections.defaultdict(set)
    for f in files:
        text = strip(open(f, encoding='utf-8', errors='replace').read())
        words = set(re.findall(r'\b(\w+)\s*\(', text)) | set(re.findall(r'&(\w+)\b', text))
        for w in words:
            g = defs.get(w)
            if g and module[g] != module[f]:
                uses[module[f]].add(module[g])
                why[(module[f], module[g])].add(w)
    return uses, why


def circles(files):
    uses, why = call_graph(files)
    index, low, stack, on, found = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(20000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(uses[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for m in sorted(set(module_of(files).values())):
        if m not in index:
            visit(m)
    return found, uses, why


def folder_problems(root, files):
    """The folders of FOLDER_CALLS call only what they list, and what they stand on never calls them."""
    uses, why = call_graph(files)
    out = []

    def place(module):
        r = rel(root, module).split('/')
        return r[1] if r[0] == 'src' and len(r) > 2 else None

    for a in sorted(uses):
        fa = place(a)
        for b in sorted(uses[a]):
            fb = place(b)
            if fa in FOLDER_CALLS and fb and fb not in FOLDER_CALLS[fa][0] and \
                    '%s/%s' % (fb, os.path.basename(b)) not in FOLDER_CALLS[fa][0]:
                out.append('%s calls %s (%s): src/%s/ may call only %s' %
                           (rel(root, a), rel(root, b), ', '.join(sorted(why[(a, b)])[:4]), fa,
                            ', '.join(sorted(FOLDER_CALLS[fa][0]))))
            if fb in FOLDER_CALLS and fa in FOLDER_CALLS[fb][1]:
                out.append('%s calls %s (%s): src/%s/ is below src/%s/' %
                           (rel(root, a), rel(root, b), ', '.join(sorted(why[(a, b)])[:4]), fa, fb))
    return out


def function_lengths(path):
    """(name, first line, lines) of each function defined at column 0."""
    lines = open(path, encoding='utf-8', errors='replace').read().split('\n')
    out = []
    name, start = None, None
    for i, line in enumerate(lines):
        m = re.match(r'^[a-z].*?\b(\w+)\(', line)
        if name is None and m and not line.rstrip().endswith(';'):
            name, start = m.group(1), i
            continue
        if name is not None and line.startswith('{') and start is not None and i - start > 12:
            name, start = None, None  # a declaration list, not a function
        if name is not None and line == '}':
            out.append((name, start + 1, i - start + 1))
            name, start = None, None
        elif name is not None and line.endswith(';') and not line.startswith(('\t', ' ', '{')):
            name, start = None, None
    return out


def size_problems(root, files):
    out = []
    folders = collections.Counter(os.path.dirname(rel(root, f)) for f in files)
    for folder, n in sorted(folders.items()):
        if n > MAX_FOLDER:
            out.append('%s/: %d .c files (at most %d)' % (folder, n, MAX_FOLDER))
    for f in files:
        n = open(f, encoding='utf-8', errors='replace').read().count('\n')
        if n > MAX_FILE:
            out.append('%s: %d lines (at most %d)' % (rel(root, f), n, MAX_FILE))
        for name, first, length in function_lengths(f):
            if length > MAX_FUNCTION:
                out.append('%s:%d: %s is %d lines (at most %d)' % (rel(root, f), first, name, length,
                                                                       MAX_FUNCTION))
    return out


def self_test():
    """The checker finds what it is for, in a small tree made for it."""
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        def put(path, text):
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), 'w') as f:
                f.write(text)
        put('src/a/one.c', 'int one_f(void)\n{\n\treturn two_f();\n}\n')
        put('src/a/two.c', '#include <stdio.h>\nint two_f(void)\n{\n\tprintf("x");\n\treturn one_f();\n}\n')
        put('src/b/long.c', '#include <sqlite3.h>\nint long_f(void)\n{\n' + '\tx();\n' * 90 + '}\n' +
            '\n' * 1200)
        put('src/c/mod.c', '#include "mod_state.h"\nint mod_a(void)\n{\n\treturn mod_b();\n}\n')
        put('src/c/mod_part.c', '#include "mod_state.h"\nint mod_b(void)\n{\n\treturn mod_a();\n}\n')
        put('ui/u.h', '')
        put('src/b/inc.c', '#include "u.h"\n')
        put('src/store/store_x.c', '#include <sqlite3.h>\n#include "store_sql.h"\n#include <libpq-fe.h>\n')
        put('src/store/backend_sqlite.c', '#include <sqlite3.h>\n')
        put('src/context/ctx.c', 'int ctx_f(void)\n{\n\treturn one_f();\n}\n')
        put('src/repo/low.c', 'int low_f(void)\n{\n\treturn ctx_f();\n}\n')
        put('docs/ARCHITECTURE.md', '`one.c` `long.c` `inc.c` `mod*.c` `gone.c` `wo.c` `store_x.c` '
            '`backend_sqlite.c`\n')
        got = '\n'.join(layer_problems(root, sources(root)) + size_problems(root, sources(root)) +
                        map_problems(root, sources(root)) + folder_problems(root, sources(root)))
        found, _, _ = circles(sources(root))
        expect = ['src/a/two.c: the engine calls printf', 'src/b/long.c: includes sqlite3.h',
                  'src/b/long.c: 1294 lines', 'src/b/long.c:2: long_f is 93 lines',
                  'src/b/inc.c: the engine includes u.h of ui/',
                  'src/store/store_x.c: includes sqlite3.h: only src/store/backend_sqlite.c',
                  'src/store/store_x.c: includes libpq-fe.h: only src/store/backend_pg.c',
                  'src/a/two.c: not in docs/ARCHITECTURE.md', 'docs/ARCHITECTURE.md names gone.c',
                  'src/context/ctx.c calls src/a/one.c (one_f): src/context/ may call only',
                  'src/repo/low.c calls src/context/ctx.c (ctx_f): src/repo/ is below src/context/']
        missing = [e for e in expect if e not in got]
        if missing or len(found) != 1 or len(found[0]) != 2:
            print('self-test failed: missing %s; circles %s\n%s' % (missing, found, got))
            return 1
    return 0


def map_problems(root, files):
    path = os.path.join(root, 'docs', 'ARCHITECTURE.md')
    if not os.path.exists(path):
        return ['docs/ARCHITECTURE.md is missing']
    names = set(re.findall(r'`([\w./*-]+\.c)`', open(path, encoding='utf-8').read()))
    out = []

    def named(path, name):
        return fnmatch.fnmatch('/' + path, '*/' + name)

    for f in files:
        r = rel(root, f)
        if not any(named(r, n) for n in names):
            out.append('%s: not in docs/ARCHITECTURE.md (say in one line what it is)' % r)
    for n in sorted(names):
        if not any(named(rel(root, f), n) for f in files):
            out.append('docs/ARCHITECTURE.md names %s, which is not a source file' % n)
    return out


def main():
    if sys.argv[1:] == ['--self-test']:
        return self_test()
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), '..', '..'))
    files = sources(root)
    if not files:
        print('no sources under %s' % root)
        return 1
    problems = layer_problems(root, files)
    found, uses, why = circles(files)
    for comp in found:
        names = [rel(root, f) for f in comp]
        problems.append('a circle of calls between %s' % ', '.join(names))
        for a in comp:
            for b in comp:
                if b in uses[a]:
                    problems.append('  %s -> %s: %s' % (rel(root, a), rel(root, b),
                                                          ', '.join(sorted(why[(a, b)])[:6])))
    problems += folder_problems(root, files)
    problems += size_problems(root, files)
    problems += map_problems(root, files)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
