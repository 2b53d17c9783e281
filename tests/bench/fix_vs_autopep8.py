#!/usr/bin/env python3
"""revline's fixes against autopep8's, on real files (issue 14, items 12-13).

flake8's W292, W391, E302, E305 and E402 signals of the files are imported;
each is fixed by revline against the fake LLM server (tests/fakellm), whose
answer is autopep8's fix of revline's window (autopep8 --select CODE
--line-range FIRST LAST, dedented); the applied file is compared byte for
byte with the file that answer makes, the re-lint's verdict kept, and the
fix undone (checked byte for byte). Not a test: the figures of the closing
note (bottle 2a743a3, requests 1f6589ec). Needs flake8 and autopep8.

usage: fix_vs_autopep8.py REVLINE SHAREDIR SRC_REPO OUT_JSON FILE...
  ONLY=path:line   one signal;  DUMP=PREFIX   keep got/want/answer of a mismatch
"""
import json, os, shutil, subprocess, sys, tempfile, time, signal

revline, share, src, out_json = sys.argv[1:5]
files = sys.argv[5:]
CODES = "W292,W391,E302,E305,E402"
FAKE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fakellm", "fake_llm.py")

tmp = tempfile.mkdtemp(prefix="wtfix-exp-")
data = os.path.join(tmp, "data")
os.makedirs(os.path.join(data, "rules"))
os.symlink(os.path.join(share, "prompts"), os.path.join(data, "prompts"))
os.symlink(os.path.join(share, "signals"), os.path.join(data, "signals"))
env = dict(os.environ, REVLINE_DATADIR=data, REVLINE_DB=os.path.join(tmp, "db"),
           REVLINE_MODEL="fake-model", HOME=tmp, XDG_CONFIG_HOME=os.path.join(tmp, "cfg"),
           GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
           GIT_COMMITTER_EMAIL="t@t")
for k in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "REVLINE_PROVIDER", "OPENAI_BASE_URL"):
    env.pop(k, None)

repo = os.path.join(tmp, "repo")
os.makedirs(repo)
for f in files:
    os.makedirs(os.path.dirname(os.path.join(repo, f)) or repo, exist_ok=True)
    shutil.copyfile(os.path.join(src, f), os.path.join(repo, f))
subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
subprocess.run(["git", "commit", "-q", "-m", "base"], cwd=repo, check=True, env=env)

server = None


def serve(answer):
    global server
    if server:
        server.send_signal(signal.SIGTERM)
        server.wait()
    script = os.path.join(tmp, "script.json")
    json.dump({"rules": [{"match": "Problem reported by", "answer": answer}]}, open(script, "w"))
    port = os.path.join(tmp, "port")
    if os.path.exists(port):
        os.unlink(port)
    server = subprocess.Popen(["python3", FAKE, "--script", script, "--log", os.path.join(tmp, "log"),
                               "--port-file", port], stderr=subprocess.DEVNULL)
    while not (os.path.exists(port) and os.path.getsize(port)):
        time.sleep(0.01)
    env["REVLINE_BASE_URL"] = "http://127.0.0.1:%s/v1" % open(port).read().strip()


def rl(*args):
    return subprocess.run([revline, *args], cwd=repo, env=env, capture_output=True, text=True)


def flake8(path):
    r = subprocess.run(["flake8", "--select", CODES, path], cwd=repo, capture_output=True, text=True)
    return r.stdout


lint = subprocess.run(["flake8", "--select", CODES, *files], cwd=repo, capture_output=True, text=True).stdout
open(os.path.join(tmp, "flake8.txt"), "w").write(lint)
r = rl("signals", "--import", os.path.join(tmp, "flake8.txt"))
sigs = json.loads(rl("signals", "--all", "--json").stdout)


def lines_of(b):
    return b.splitlines(keepends=True)


def dedent(lines):
    import re
    leads = [re.match(rb"[ \t]*", l).group(0) for l in lines if l.strip()]
    if not leads:
        return lines, b""
    base = os.path.commonprefix(leads)
    return [l[len(base):] if l.startswith(base) else l.lstrip(b" \t") if not l.strip() else l for l in lines], base


results = []
only = os.environ.get("ONLY")
for s in sigs:
    if only and "%s:%d" % (s["file"], s["line"]) != only:
        continue
    path = os.path.join(repo, s["file"])
    orig = open(path, "rb").read()
    serve({"fixed_code": "pass\n", "explanation": "probe"})
    pr = rl("fix", str(s["id"]), "--json")
    probe = json.loads(pr.stdout or "{}")
    if not probe:
        probe = {"stderr": pr.stderr[-300:]}
    win = probe.get("window", "")
    try:
        first, last = [int(x) for x in win.rsplit(" ", 1)[1].split("-")]
    except Exception:
        results.append({"signal": s, "result": "no window", "probe": probe})
        continue
    fixed = subprocess.run(["autopep8", "--select", s["code"], "--line-range", str(first), str(last), "-"], input=orig, capture_output=True).stdout
    L, F = lines_of(orig), lines_of(fixed)
    p = 0
    while p < min(len(L), len(F)) and L[p] == F[p]:
        p += 1
    q = 0
    while q < min(len(L), len(F)) - p and L[len(L) - 1 - q] == F[len(F) - 1 - q]:
        q += 1
    rec = {"signal": "%s:%d %s" % (s["file"], s["line"], s["code"]), "window": win}
    if fixed == orig:
        rec["result"] = "autopep8 changes nothing"
        results.append(rec)
        continue
    if p < first - 1 or len(L) - q > last:
        rec["result"] = "autopep8 changes lines outside the window (%d-%d)" % (p + 1, len(L) - q)
        results.append(rec)
        continue
    fwin = F[first - 1:len(F) - (len(L) - last)]
    ans, base = dedent(fwin)
    serve({"fixed_code": b"".join(ans).decode(), "explanation": "autopep8's fix"})
    r = rl("fix", str(s["id"]), "--apply", "--yes", "--json")
    out = json.loads(r.stdout or "{}")
    now = open(path, "rb").read()
    expected = b"".join(L[:first - 1] + fwin + L[last:])
    rec["state"] = out.get("state")
    rec["error"] = out.get("error")
    rec["recheck"] = (out.get("recheck") or {}).get("result")
    rec["detail"] = (out.get("recheck") or {}).get("detail")
    rec["same_as_autopep8_window"] = now == expected
    rec["same_as_autopep8_file"] = now == fixed
    if now != expected and os.environ.get("DUMP"):
        open(os.environ["DUMP"] + ".got", "wb").write(now)
        open(os.environ["DUMP"] + ".want", "wb").write(expected)
        open(os.environ["DUMP"] + ".answer", "wb").write(b"".join(ans))
    after = flake8(s["file"])
    rec["flake8_after"] = after.count("\n")
    if out.get("state") == "applied":
        u = rl("undo")
        rec["undo_exact"] = open(path, "rb").read() == orig
    rec["result"] = "compared"
    results.append(rec)

if server:
    server.send_signal(signal.SIGTERM)
    server.wait()
json.dump(results, open(out_json, "w"), indent=1)
n = [r for r in results if r.get("result") == "compared"]
print("signals %d, compared %d, applied %d, byte-identical %d, gone %d, still %d, new %d, undo exact %d" % (
    len(results), len(n), sum(r["state"] == "applied" for r in n),
    sum(bool(r["same_as_autopep8_window"]) for r in n), sum(r["recheck"] == "gone" for r in n),
    sum(r["recheck"] == "still_present" for r in n), sum(r["recheck"] == "new_signals" for r in n),
    sum(bool(r.get("undo_exact")) for r in n)))
for r in results:
    if r.get("result") != "compared" or not r.get("same_as_autopep8_window") or r.get("recheck") != "gone":
        print(json.dumps(r)[:400])
shutil.rmtree(tmp)
