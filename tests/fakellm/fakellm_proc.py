"""The fake LLM server started from a Python script (the benchmarks), as
fakellm.sh starts it from a shell test:

    proc, port = fakellm_proc.start(script_path, workdir, "bench_x")

The server answers from script_path, logs each request to workdir/log.jsonl
and says its port in workdir/port; it is waited for up to 5 s.
"""
import os
import subprocess
import sys
import time

SERVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_llm.py")


def start(script, workdir, who):
    port_file = os.path.join(workdir, "port")
    proc = subprocess.Popen([sys.executable, SERVER, "--script", script,
                             "--log", os.path.join(workdir, "log.jsonl"), "--port-file", port_file],
                            stdout=subprocess.DEVNULL)
    for _ in range(500):
        if os.path.exists(port_file) and os.path.getsize(port_file):
            return proc, open(port_file).read().strip()
        if proc.poll() is not None:
            break
        time.sleep(0.01)
    proc.kill()
    raise SystemExit("%s: the fake server did not start" % who)
