#!/usr/bin/env python3
"""Measure revline and tig on one repository: time to the first full screen
and peak memory, in a pseudo-terminal of fixed size. Standard library only.

usage: ptybench.py --revline BIN --repo DIR [--runs N] [--rows R --cols C]
                   [--dump DIR] [--json FILE]

How a run is timed: the clock starts just before fork; the program's
terminal output is read from the pty master and the clock stops when the
marker text (a line of the first file's first hunk that sits on the last
content row of both programs' first screen) has appeared. Then 'q' is sent
and the child's rusage is collected with wait4 (ru_maxrss).

Peers measured on the same working-tree change:
  revline        `revline` in the repository (HEAD..working tree), quits at
                 its first full screen;
  revline-done   the same, quits once the status bar shows the final totals
                 ("N files  +A -D", background counting finished);
  tig            `git diff | tig` (pager mode; tig has no diff subcommand),
                 the pipe made by this harness: git diff's stdout feeds tig's
                 stdin, tig draws on the pty. Time from forking git diff; the
                 RSS is tig's (git diff's is reported apart);
  tig-done       the same, quits once tig has read the whole diff (its title
                 says "line 1 of L", L the line count of the diff text);
  git diff       `git diff > /dev/null`, and `git diff` into a pipe read by
                 this harness (which gives the size of the diff text).
"""
import argparse
import codecs
import fcntl
import json
import os
import re
import select
import signal
import statistics
import struct
import subprocess
import sys
import termios
import time


# ---------------------------------------------------------------------------
# A small terminal emulator: just enough of xterm to know what is on screen
# (cursor motion, erase, insert/delete, scroll regions); attributes ignored.

class Screen:
    def __init__(self, rows, cols):
        self.rows, self.cols = rows, cols
        self.grid = [[" "] * cols for _ in range(rows)]
        self.y = self.x = 0
        self.top, self.bottom = 0, rows - 1
        self.saved = (0, 0)
        self.last = " "
        self.wrap_pending = False
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.pending = ""

    def text(self):
        return "\n".join("".join(r).rstrip() for r in self.grid)

    def row(self, y):
        return "".join(self.grid[y]).rstrip()

    def _scroll_up(self, n=1):
        for _ in range(n):
            del self.grid[self.top]
            self.grid.insert(self.bottom, [" "] * self.cols)

    def _scroll_down(self, n=1):
        for _ in range(n):
            del self.grid[self.bottom]
            self.grid.insert(self.top, [" "] * self.cols)

    def _lf(self):
        if self.y == self.bottom:
            self._scroll_up()
        elif self.y < self.rows - 1:
            self.y += 1

    def _put(self, ch):
        if self.wrap_pending:
            self.x = 0
            self._lf()
            self.wrap_pending = False
        self.grid[self.y][self.x] = ch
        self.last = ch
        if self.x == self.cols - 1:
            self.wrap_pending = True
        else:
            self.x += 1

    def _clip(self):
        self.y = min(max(self.y, 0), self.rows - 1)
        self.x = min(max(self.x, 0), self.cols - 1)
        self.wrap_pending = False

    def _csi(self, params, final):
        priv = params[:1] in ("?", ">", "<", "=")
        if priv:
            params = params[1:]
        args = [int(p) if p.isdigit() else 0 for p in params.split(";")] if params else []

        def a(i, default):
            return args[i] if len(args) > i and args[i] else default
        if priv:
            return
        if final in "Hf":
            self.y, self.x = a(0, 1) - 1, a(1, 1) - 1
        elif final == "A":
            self.y -= a(0, 1)
        elif final in "Be":
            self.y += a(0, 1)
        elif final in "Ca":
            self.x += a(0, 1)
        elif final == "D":
            self.x -= a(0, 1)
        elif final in "G`":
            self.x = a(0, 1) - 1
        elif final == "d":
            self.y = a(0, 1) - 1
        elif final == "K":
            mode = args[0] if args else 0
            row = self.grid[self.y]
            lo, hi = {0: (self.x, self.cols), 1: (0, self.x + 1)}.get(mode, (0, self.cols))
            for i in range(lo, hi):
                row[i] = " "
        elif final == "J":
            mode = args[0] if args else 0
            if mode == 0:
                self._csi("0", "K")
                rng = range(self.y + 1, self.rows)
            elif mode == 1:
                self._csi("1", "K")
                rng = range(0, self.y)
            else:
                rng = range(self.rows)
            for y in rng:
                self.grid[y] = [" "] * self.cols
        elif final == "X":
            for i in range(self.x, min(self.cols, self.x + a(0, 1))):
                self.grid[self.y][i] = " "
        elif final == "b":
            for _ in range(a(0, 1)):
                self._put(self.last)
            return
        elif final == "@":
            row = self.grid[self.y]
            n = a(0, 1)
            row[self.x:self.x] = [" "] * n
            del row[self.cols:]
        elif final == "P":
            row = self.grid[self.y]
            n = a(0, 1)
            del row[self.x:self.x + n]
            row.extend([" "] * (self.cols - len(row)))
        elif final in "LM":
            if self.top <= self.y <= self.bottom:
                saved = self.top
                self.top = self.y
                (self._scroll_down if final == "L" else self._scroll_up)(a(0, 1))
                self.top = saved
        elif final == "S":
            self._scroll_up(a(0, 1))
        elif final == "T":
            self._scroll_down(a(0, 1))
        elif final == "r":
            self.top, self.bottom = a(0, 1) - 1, a(1, self.rows) - 1
            self.y = self.x = 0
        elif final == "s":
            self.saved = (self.y, self.x)
        elif final == "u":
            self.y, self.x = self.saved
        self._clip()

    def feed(self, data):
        s = self.pending + self.decoder.decode(data)
        self.pending = ""
        i, n = 0, len(s)
        while i < n:
            c = s[i]
            if c == "\x1b":
                if i + 1 >= n:
                    self.pending = s[i:]
                    return
                c2 = s[i + 1]
                if c2 == "[":
                    j = i + 2
                    while j < n and not ("\x40" <= s[j] <= "\x7e"):
                        j += 1
                    if j >= n:
                        self.pending = s[i:]
                        return
                    self._csi(s[i + 2:j].rstrip(" !\"#$%&'()*+,-./"), s[j])
                    i = j + 1
                    continue
                if c2 in "]P_^":      # OSC, DCS, APC, PM: up to BEL or ST
                    m = re.compile(r"\x07|\x1b\\").search(s, i + 2)
                    if not m:
                        self.pending = s[i:]
                        return
                    i = m.end()
                    continue
                if c2 in "()*+#%":
                    if i + 2 >= n:
                        self.pending = s[i:]
                        return
                    i += 3
                    continue
                if c2 == "7":
                    self.saved = (self.y, self.x)
                elif c2 == "8":
                    self.y, self.x = self.saved
                elif c2 == "M":
                    if self.y == self.top:
                        self._scroll_down()
                    elif self.y > 0:
                        self.y -= 1
                elif c2 == "D":
                    self._lf()
                elif c2 == "E":
                    self.x = 0
                    self._lf()
                elif c2 == "c":
                    self.__init__(self.rows, self.cols)
                self.wrap_pending = False
                i += 2
                continue
            if c == "\r":
                self.x = 0
                self.wrap_pending = False
            elif c == "\n" or c == "\x0b" or c == "\x0c":
                self._lf()
                self.wrap_pending = False
            elif c == "\b":
                if self.x > 0:
                    self.x -= 1
                self.wrap_pending = False
            elif c == "\t":
                self.x = min(self.cols - 1, (self.x // 8 + 1) * 8)
            elif c >= " " and c != "\x7f":
                self._put(c)
            i += 1


# ---------------------------------------------------------------------------
# Running a program in a pty.

def child_setup(slave, stdin_fd):
    os.setsid()
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
    os.dup2(stdin_fd if stdin_fd is not None else slave, 0)
    os.dup2(slave, 1)
    os.dup2(slave, 2)


RUSAGE_EXEC = None    # set in main: the rusage_exec helper
RU_DIR = None         # where it leaves its figures
_seq = [0]


def spawn(argv, cwd, env, *, pty_slave=None, stdin_fd=None, stdout_fd=None, close=()):
    """fork/exec through rusage_exec; in a pty as its controlling terminal
    when pty_slave is given. Returns (pid, file that will hold the rusage)."""
    _seq[0] += 1
    ru_file = os.path.join(RU_DIR, f"ru-{os.getpid()}-{_seq[0]}")
    argv = [RUSAGE_EXEC, ru_file, *argv]
    pid = os.fork()
    if pid == 0:
        try:
            os.chdir(cwd)
            if pty_slave is not None:
                child_setup(pty_slave, stdin_fd)
            else:
                null = os.open(os.devnull, os.O_RDWR)
                os.dup2(stdin_fd if stdin_fd is not None else null, 0)
                os.dup2(stdout_fd if stdout_fd is not None else null, 1)
                os.dup2(null, 2)
            os.closerange(3, 65536)
            os.execvpe(argv[0], argv, env)
        except BaseException as e:  # noqa: BLE001 - report and leave the child
            os.write(2, f"exec {argv[0]}: {e}\n".encode())
        os._exit(127)
    for fd in close:
        os.close(fd)
    return pid, ru_file


def read_rusage(ru_file):
    """(maxrss_kb, user_s, sys_s, wait status) written by rusage_exec."""
    try:
        with open(ru_file) as f:
            maxrss, user, sys_, status = f.read().split()
        os.unlink(ru_file)
    except (OSError, ValueError) as e:
        raise HarnessError(f"no rusage from rusage_exec ({e})")
    return int(maxrss), float(user), float(sys_), int(status)


def open_pty(rows, cols):
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    return master, slave


class HarnessError(Exception):
    pass


def drain_and_wait(master, pids, deadline_s=20.0):
    """Read the pty until every child has exited; rusage of each by pid."""
    out = {}
    end = time.monotonic() + deadline_s
    left = set(pids)
    while left:
        for pid in list(left):
            rpid, status, ru = os.wait4(pid, os.WNOHANG)
            if rpid == pid:
                out[pid] = (status, ru)
                left.discard(pid)
        if not left:
            break
        if time.monotonic() > end:
            for pid in left:
                os.kill(pid, signal.SIGKILL)
            for pid in left:
                _, status, ru = os.wait4(pid, 0)
                out[pid] = (status, ru)
            raise HarnessError("a child did not exit after 'q'")
        r, _, _ = select.select([master], [], [], 0.01)
        if r:
            try:
                os.read(master, 65536)
            except OSError:
                pass
    return out


def run_tui(kind, args, env, marker, bar, done_re=None, dump=None):
    """One run. kind: 'revline' or 'tig'. The first screen is complete when
    both the marker and the bar text (the status or title bar below it) have
    been written: a screen update writes top to bottom and may reach the pty
    in more than one write. The bar may come before the marker, when an
    earlier update drew it (tig redraws only the changed part of its title);
    the time of the marker alone is kept too. Returns a dict of figures."""
    rows, cols = args.rows, args.cols
    master, slave = open_pty(rows, cols)
    screen = Screen(rows, cols)
    buf = bytearray()
    git_pid = None
    pipe_r = pipe_w = None
    mark, bar = marker.encode(), bar.encode()
    mark_at = bar_at = None         # where the marker and the bar start in buf
    marker_time = None
    t0 = time.monotonic()
    if kind == "revline":
        pid, ru_file = spawn([args.revline] + target(args), args.repo, env, pty_slave=slave, close=(slave,))
    else:
        pipe_r, pipe_w = os.pipe()
        git_pid, git_ru = spawn(["git", "diff"] + target(args), args.repo, env, stdout_fd=pipe_w, close=(pipe_w,))
        pid, ru_file = spawn(["tig"], args.repo, env, pty_slave=slave, stdin_fd=pipe_r,
                    close=(slave, pipe_r))
    pipe_r = pipe_w = None          # closed by spawn
    first = None
    done = None
    fed = 0
    last_check = 0.0
    deadline = t0 + args.timeout
    try:
        while True:
            now = time.monotonic()
            if now > deadline:
                raise HarnessError(f"{kind}: timed out waiting for "
                                   f"{'the marker ' + marker if first is None else 'the final totals'}")
            r, _, _ = select.select([master], [], [], 0.05)
            if r:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    raise HarnessError(f"{kind} exited before its first screen:\n"
                                       + buf[-2000:].decode("utf-8", "replace"))
                start = len(buf)
                buf += chunk
                now = time.monotonic() - t0
                if mark_at is None:
                    pos = buf.find(mark, max(0, start - len(mark)))
                    if pos >= 0:
                        mark_at, marker_time = pos, now
                if bar_at is None:
                    pos = buf.find(bar, max(0, start - len(bar)))
                    if pos >= 0:
                        bar_at = pos
                if first is None and mark_at is not None and bar_at is not None:
                    first = now
                    if done_re is None:
                        break
            if first is not None and done_re is not None and time.monotonic() - last_check > 0.05:
                last_check = time.monotonic()
                screen.feed(bytes(buf[fed:]))
                fed = len(buf)
                if done_re.search(screen.text()):
                    done = time.monotonic() - t0
                    break
        if dump:
            # The screen as it was when the clock stopped, then 0.3 s later.
            screen.feed(bytes(buf[fed:]))
            fed = len(buf)
            with open(dump + "-at-marker.txt", "w") as f:
                f.write(screen.text() + "\n")
            time.sleep(0.3)
            while select.select([master], [], [], 0.05)[0]:
                buf += os.read(master, 65536)
            screen.feed(bytes(buf[fed:]))
            with open(dump + "-settled.txt", "w") as f:
                f.write(screen.text() + "\n")
        os.write(master, b"q")
        waited = drain_and_wait(master, [p for p in (pid, git_pid) if p])
    finally:
        for fd in (master, pipe_r, pipe_w):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
    maxrss, user, sys_, status = read_rusage(ru_file)
    if not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0):
        raise HarnessError(f"{kind} ended with status {status:#x}")
    res = {"first": first, "marker": marker_time, "done": done, "rss_kb": maxrss,
           "user": user, "sys": sys_}
    if git_pid:
        res["git_rss_kb"] = read_rusage(git_ru)[0]
    return res


def run_git_diff(args, env, to_pipe):
    """`git diff` into /dev/null, or into a pipe read here (counting bytes)."""
    t0 = time.monotonic()
    if not to_pipe:
        pid, ru_file = spawn(["git", "diff"] + target(args), args.repo, env)
        os.wait4(pid, 0)
        t = time.monotonic() - t0
        maxrss, _, _, status = read_rusage(ru_file)
        if status:
            raise HarnessError(f"git diff ended with status {status:#x}")
        return {"time": t, "rss_kb": maxrss, "bytes": None}
    r, w = os.pipe()
    pid, ru_file = spawn(["git", "diff"] + target(args), args.repo, env, stdout_fd=w, close=(w,))
    size = lines = 0
    while True:
        chunk = os.read(r, 1 << 20)
        if not chunk:
            break
        size += len(chunk)
        lines += chunk.count(b"\n")
    os.close(r)
    os.wait4(pid, 0)
    t = time.monotonic() - t0
    maxrss, _, _, status = read_rusage(ru_file)
    if status:
        raise HarnessError(f"git diff ended with status {status:#x}")
    return {"time": t, "rss_kb": maxrss, "bytes": size, "lines": lines}


# ---------------------------------------------------------------------------

def target(args):
    """The range measured (--range), or nothing: the working tree against HEAD."""
    return [args.range] if args.range else []


def range_marker(args, env):
    """The diff text line on the last content row of tig's first screen
    (rows-2 lines of text; revline shows the first file's header and hunks
    on the same rows, under its pane title), without its origin and blanks:
    revline draws the origin apart and expands tabs."""
    out = subprocess.run(["git", "diff"] + target(args), cwd=args.repo, env=env,
                         capture_output=True, check=True).stdout
    lines = out.decode("utf-8", "replace").split("\n")
    line = lines[args.rows - 3] if len(lines) > args.rows - 3 else ""
    text = line[1:].strip() if line[:1] in "+- " else ""
    if len(text) < 6 or "\t" in text:
        raise HarnessError(f"line {args.rows - 2} of the diff is no hunk line to wait for; give --marker")
    return text


def shortstat(args, env):
    out = subprocess.run(["git", "diff", "--shortstat"] + target(args), cwd=args.repo, env=env,
                         capture_output=True, text=True, check=True).stdout
    nums = {k: 0 for k in ("files", "ins", "del")}
    for n, word in re.findall(r"(\d+) (file|insertion|deletion)", out):
        nums[{"file": "files", "insertion": "ins", "deletion": "del"}[word]] = int(n)
    return nums


def fmt_ms(s):
    return f"{s * 1000:8.0f} ms"


def fmt_mb(kb):
    return f"{kb / 1024:8.1f} MB"


def summary(values):
    return statistics.median(values), min(values)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--revline", required=True)
    ap.add_argument("--rusage-exec", required=True, help="the compiled rusage_exec.c")
    ap.add_argument("--repo", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rows", type=int, default=40)
    ap.add_argument("--cols", type=int, default=120)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--dump", help="write each program's first screen into this directory")
    ap.add_argument("--json", help="write the raw figures here")
    ap.add_argument("--range", help="measure this range of the repository (A..B) instead of "
                    "the working tree; tig reads `git diff A..B`")
    ap.add_argument("--marker", help="the text that completes the first screen (with --range; "
                    "default: a word of the diff's line on the last content row)")
    args = ap.parse_args()
    args.repo = os.path.abspath(args.repo)
    args.revline = os.path.abspath(args.revline)

    global RUSAGE_EXEC, RU_DIR
    RUSAGE_EXEC = os.path.abspath(args.rusage_exec)
    home = os.environ.get("BENCH_HOME") or "/tmp/revline-bench-home"
    os.makedirs(home, exist_ok=True)
    RU_DIR = home
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": home,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TERM": "xterm-256color",
        "TIGRC_USER": "/dev/null",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_PAGER": "cat",
        "LINES": str(args.rows),
        "COLUMNS": str(args.cols),
    }

    # Both programs show the first hunk's lines from row 6 of the screen
    # (title, 4 header lines, the @@ line; tig: 5 lines of diff text above);
    # the last content row is rows-2 (revline: status bar below; tig: title
    # and status line). That row holds MARKER{rows-7}.
    marker_no = args.rows - 7
    if marker_no < 1 or marker_no > 80:
        sys.exit("ptybench: --rows must be between 8 and 87")
    if args.cols < 70:
        sys.exit("ptybench: --cols must be at least 70 (revline puts the panes side by side)")
    marker = f"MARKER{marker_no:04d}"
    if args.range:
        marker = args.marker or range_marker(args, env)

    pid, ru_file = spawn(["true"], args.repo, env)
    os.wait4(pid, 0)
    floor_kb = read_rusage(ru_file)[0]
    stat = shortstat(args, env)
    print(f"  diff: {stat['files']} files, +{stat['ins']} -{stat['del']} "
          f"({stat['ins'] + stat['del']} changed lines); marker {marker}", flush=True)
    probe = run_git_diff(args, env, True)
    revline_done = re.compile(rf"{stat['files']} files +\+{stat['ins']} -{stat['del']}")
    tig_done = re.compile(rf"line \d+ of {probe['lines']}\b")

    results = {k: [] for k in ("revline", "tig", "revline-done", "tig-done", "git-null", "git-pipe")}
    # The bars: revline's status bar ends with "N files  counting ..." (the
    # pane titles say "Files  1/N" and "file 1/N"); tig's title bar starts
    # with "[pager]".
    # With --range the list first holds renames unpaired (more files), so
    # any count will do ("N files  finding renames").
    rl_bar, tig_bar = f"{stat['files']} files", "[pager]"
    if args.range:
        rl_bar = " files  "
    plan = [
        ("revline", lambda d=None: run_tui("revline", args, env, marker, rl_bar, dump=d)),
        ("tig", lambda d=None: run_tui("tig", args, env, marker, tig_bar, dump=d)),
        ("revline-done", lambda d=None: run_tui("revline", args, env, marker, rl_bar,
                                                revline_done)),
        ("tig-done", lambda d=None: run_tui("tig", args, env, marker, tig_bar, tig_done)),
        ("git-null", lambda d=None: run_git_diff(args, env, False)),
        ("git-pipe", lambda d=None: run_git_diff(args, env, True)),
    ]
    # One warm-up round (page cache hot for everyone; dumps of the first
    # screens), then the measured rounds, interleaved so drift hits all alike.
    for name, fn in plan:
        dump = None
        if args.dump and name in ("revline", "tig"):
            os.makedirs(args.dump, exist_ok=True)
            dump = os.path.join(args.dump, f"{name}-first-screen")
        fn(dump)
    for i in range(args.runs):
        for name, fn in plan:
            results[name].append(fn())
        print(f"  round {i + 1}/{args.runs}: revline {results['revline'][-1]['first'] * 1000:.0f} ms, "
              f"tig {results['tig'][-1]['first'] * 1000:.0f} ms, "
              f"git diff {results['git-null'][-1]['time'] * 1000:.0f} ms", flush=True)

    def col(name, key):
        return [r[key] for r in results[name]]

    rl_first = summary(col("revline", "first"))
    tig_first = summary(col("tig", "first"))
    rl_marker = summary(col("revline", "marker"))
    tig_marker = summary(col("tig", "marker"))
    rl_rss = summary(col("revline", "rss_kb"))
    rl_done_rss = summary(col("revline-done", "rss_kb"))
    rl_done_t = summary(col("revline-done", "done"))
    tig_rss = summary(col("tig", "rss_kb"))
    tig_done_rss = summary(col("tig-done", "rss_kb"))
    tig_done_t = summary(col("tig-done", "done"))
    tig_git_rss = summary(col("tig", "git_rss_kb"))
    git_null = summary(col("git-null", "time"))
    git_pipe = summary(col("git-pipe", "time"))
    git_rss = summary(col("git-null", "rss_kb"))
    size = probe["bytes"]

    w = 56
    print()
    print(f"Repository: {args.repo}")
    print(f"  {stat['files']} changed files, {stat['ins'] + stat['del']} changed lines "
          f"(+{stat['ins']} -{stat['del']}), diff text {size} bytes ({size / 1048576:.1f} MB), "
          f"{probe['lines']} lines")
    print(f"  pty {args.cols}x{args.rows}, marker {marker}; {args.runs} runs after 1 warm-up; "
          f"median (min)")
    print()
    print(f"  {'figure':<{w}} {'median':>11} {'min':>11}")
    rows = [
        ("revline: start -> first full screen", rl_first, fmt_ms),
        ("tig (git diff | tig): start -> first full screen", tig_first, fmt_ms),
        ("  (revline: the marker line alone)", rl_marker, fmt_ms),
        ("  (tig: the marker line alone)", tig_marker, fmt_ms),
        ("git diff > /dev/null", git_null, fmt_ms),
        ("git diff | reader (all bytes read)", git_pipe, fmt_ms),
        ("revline: start -> counting finished (totals shown)", rl_done_t, fmt_ms),
        ("tig: start -> whole diff read", tig_done_t, fmt_ms),
        ("revline peak RSS, quit at first screen", rl_rss, fmt_mb),
        ("revline peak RSS, quit after counting finished", rl_done_rss, fmt_mb),
        ("tig peak RSS, quit at first screen", tig_rss, fmt_mb),
        ("tig peak RSS, quit after reading the whole diff", tig_done_rss, fmt_mb),
        ("git diff peak RSS (the process feeding tig, first screen)", tig_git_rss, fmt_mb),
        ("git diff > /dev/null peak RSS", git_rss, fmt_mb),
        ("floor: peak RSS of `true` run the same way", (floor_kb, floor_kb), fmt_mb),
    ]
    for label, (med, mn), f in rows:
        print(f"  {label:<{w}} {f(med):>11} {f(mn):>11}")

    def ratio(label, value, target):
        verdict = "" if target is None else ("PASS" if value <= target else "MISS")
        tgt = "" if target is None else f"target <= {target:.1f}"
        print(f"  {label:<{w}} {value:11.2f} {tgt:>15} {verdict}")

    print()
    print("  ratios (medians)")
    r1 = rl_first[0] / tig_first[0]
    r2 = rl_done_rss[0] * 1024 / size
    r2b = rl_rss[0] * 1024 / size
    r3 = rl_first[0] / git_null[0]
    # Issue 29's target on the generated working-tree change; on a range (--range), the first one's.
    ratio("revline first screen / tig first screen", r1, 1.0 if args.range else 0.3)
    ratio("revline peak RSS (after counting) / diff text size", r2, 3.0)
    ratio("revline peak RSS (first screen) / diff text size", r2b, 3.0)
    ratio("revline first screen / git diff > /dev/null", r3, None)

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"stat": stat, "diff_bytes": size, "diff_lines": probe["lines"],
                       "marker": marker, "results": results}, f, indent=1)


if __name__ == "__main__":
    try:
        main()
    except HarnessError as e:
        print(f"ptybench: {e}", file=sys.stderr)
        sys.exit(2)
