#!/usr/bin/env python3
"""Self-test of the fake LLM server: every endpoint, fault and log field.

Run: python3 tests/fakellm/t_fake_llm.py   (exit status 0 when all pass)
"""

import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "fake_llm.py")
sys.path.insert(0, HERE)
import fake_llm  # noqa: E402

KEY = "sk-selftest-KEY-0000"
SCRIPT = {
    "models": ["m-one", "m-two"],
    "rules": [
        {"match": "seq", "then": [
            {"status": 429, "headers": {"Retry-After": "1"}},
            {"status": 500, "times": 2},
            {"answer": "finally"}]},
        {"match": "once", "times": 1, "answer": "first only"},
        {"match_header": {"X-Case": "hdr"}, "answer": "by header"},
        {"match": "json-value", "answer": {"status": "compliant", "n": 1}},
        {"match": "hang", "fault": "hang"},
        {"match": "drip", "fault": "drip", "drip_ms": 100},
        {"match": "reset", "fault": "reset"},
        {"match": "close", "fault": "close"},
        {"match": "truncate", "fault": "truncate", "answer": "cut"},
        {"match": "html", "fault": "non_json"},
        {"match": "shape", "fault": "wrong_shape"},
        {"match": "jsonmode", "fault": "reject_json_mode", "answer": "{}"},
        {"match": "slow", "latency_ms": 300, "answer": "slow"},
        {"match": "raw", "body": "plain text", "content_type": "text/plain"},
        {"match": "length", "answer": "abc", "finish_reason": "length"},
        {"match": "nodefault-marker", "times": 1, "answer": "x"},
    ],
    "default": {"answer": "default answer"},
}

failures = []


def check(cond, what):
    if cond:
        print(f"ok: {what}")
    else:
        print(f"FAIL: {what}")
        failures.append(what)


def chat(content, extra=None):
    body = {"model": "gpt-test", "messages": [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": content}]}
    body.update(extra or {})
    return json.dumps(body)


class Server:
    def __init__(self, tmp, script, name="s"):
        self.dir = tmp
        self.script = os.path.join(tmp, f"{name}.json")
        self.log = os.path.join(tmp, f"{name}.jsonl")
        self.port_file = os.path.join(tmp, f"{name}.port")
        with open(self.script, "w") as f:
            json.dump(script, f)
        self.out = open(os.path.join(tmp, f"{name}.out"), "w+")
        self.proc = subprocess.Popen(
            [sys.executable, SERVER, "--script", self.script, "--log",
             self.log, "--port-file", self.port_file],
            stdout=self.out, stderr=subprocess.PIPE)
        for _ in range(1000):
            if os.path.exists(self.port_file) or self.proc.poll() is not None:
                break
            time.sleep(0.01)
        with open(self.port_file) as f:
            self.port = int(f.read())

    def conn(self, timeout=5):
        return http.client.HTTPConnection("127.0.0.1", self.port,
                                          timeout=timeout)

    def post(self, path, body, headers=None, timeout=5):
        c = self.conn(timeout)
        h = {"Content-Type": "application/json",
             "Authorization": f"Bearer {KEY}"}
        h.update(headers or {})
        c.request("POST", path, body=body, headers=h)
        r = c.getresponse()
        data = r.read()
        c.close()
        return r, data

    def stop(self):
        self.proc.terminate()
        self.proc.wait(5)
        self.out.close()


def test_shapes(s):
    r, data = s.post("/v1/chat/completions", chat("hello there, model"))
    a = json.loads(data)
    check(r.status == 200 and a["object"] == "chat.completion",
          "OpenAI answer")
    check(a["choices"][0]["message"] == {"role": "assistant",
                                         "content": "default answer"},
          "OpenAI message")
    check(a["choices"][0]["finish_reason"] == "stop" and
          a["model"] == "gpt-test", "OpenAI finish_reason and model")
    u = a["usage"]
    check(u["prompt_tokens"] == (len("be brief") + len("hello there, model")
                                 + 3) // 4 and
          u["completion_tokens"] == (len("default answer") + 3) // 4 and
          u["total_tokens"] == u["prompt_tokens"] + u["completion_tokens"],
          "OpenAI usage from sizes")

    r, data = s.post("/anthropic/v1/messages", chat("hi"),
                     {"x-api-key": KEY, "anthropic-version": "2023-06-01"})
    a = json.loads(data)
    check(r.status == 200 and a["type"] == "message" and
          a["role"] == "assistant" and a["stop_reason"] == "end_turn" and
          a["content"] == [{"type": "text", "text": "default answer"}] and
          set(a["usage"]) == {"input_tokens", "output_tokens"},
          "Anthropic answer")

    c = s.conn()
    c.request("GET", "/v1/models")
    r = c.getresponse()
    a = json.loads(r.read())
    check(r.status == 200 and [m["id"] for m in a["data"]] ==
          ["m-one", "m-two"], "model list")

    r, data = s.post("/v1/chat/completions", chat("json-value"))
    content = json.loads(data)["choices"][0]["message"]["content"]
    check(json.loads(content) == {"status": "compliant", "n": 1},
          "a JSON answer is serialised")
    r, data = s.post("/v1/chat/completions", chat("raw"))
    check(data == b"plain text" and
          r.getheader("Content-Type") == "text/plain", "raw body")
    r, data = s.post("/v1/messages", chat("length"))
    check(json.loads(data)["stop_reason"] == "max_tokens",
          "finish_reason length is max_tokens for Anthropic")


def test_rules(s):
    statuses = []
    for _ in range(5):
        r, data = s.post("/v1/chat/completions", chat("seq"))
        statuses.append((r.status, r.getheader("Retry-After")))
    check(statuses == [(429, "1"), (500, None), (500, None), (200, None),
                       (200, None)], f"then sequence {statuses}")
    r, data = s.post("/v1/chat/completions", chat("seq"))
    check(json.loads(data)["choices"][0]["message"]["content"] == "finally",
          "the last step repeats")
    bodies = [s.post("/v1/chat/completions", chat("once"))[1]
              for _ in range(2)]
    check(b"first only" in bodies[0] and b"default answer" in bodies[1],
          "times uses a rule up")
    r, data = s.post("/v1/chat/completions", chat("x"), {"X-Case": "hdr-1"})
    check(b"by header" in data, "match_header")


def test_faults(s):
    t0 = time.monotonic()
    try:
        s.post("/v1/chat/completions", chat("hang"), timeout=0.5)
        check(False, "hang: no answer")
    except socket.timeout:
        check(time.monotonic() - t0 >= 0.45, "hang: no answer")
    # A drip: headers at once, then a byte every 100 ms, never the end.
    c = s.conn(timeout=5)
    c.request("POST", "/v1/chat/completions", body=chat("drip"),
              headers={"Content-Type": "application/json"})
    r = c.getresponse()
    t0 = time.monotonic()
    got = b"".join(r.read(1) for _ in range(5))
    took = time.monotonic() - t0
    check(r.status == 200 and r.getheader("Content-Length") ==
          str(fake_llm.DRIP_LENGTH) and got == b"     " and 0.3 <= took < 2,
          f"drip: a blank every 100 ms ({took:.2f} s for 5)")
    c.close()
    time.sleep(0.3)  # the server sees the client gone at its next byte
    try:
        s.post("/v1/chat/completions", chat("reset"))
        check(False, "reset")
    except ConnectionResetError:
        check(True, "reset: RST")
    try:
        s.post("/v1/chat/completions", chat("close"))
        check(False, "close")
    except http.client.RemoteDisconnected:
        check(True, "close: no answer, FIN")
    try:
        s.post("/v1/chat/completions", chat("truncate"))
        check(False, "truncate")
    except http.client.IncompleteRead:
        check(True, "truncate: Content-Length larger than the body")
    r, data = s.post("/v1/chat/completions", chat("html"))
    check(r.status == 200 and data.startswith(b"<!DOCTYPE html>"),
          "non_json: 200 HTML")
    r, data = s.post("/v1/chat/completions", chat("shape"))
    a = json.loads(data)
    check(r.status == 200 and "choices" not in a and "content" not in a,
          "wrong_shape")
    r, data = s.post("/v1/chat/completions",
                     chat("jsonmode", {"response_format":
                                       {"type": "json_object"}}))
    check(r.status == 400 and json.loads(data)["error"]["message"] ==
          fake_llm.JSON_MODE_MESSAGE, "reject_json_mode with response_format")
    r, data = s.post("/v1/chat/completions", chat("jsonmode"))
    check(r.status == 200, "reject_json_mode answers without it")


def test_bad_requests(s):
    r, data = s.post("/v1/chat/completions", "{not json")
    check(r.status == 400, "a body that is not JSON: 400")
    r, data = s.post("/v1/nothing", chat("x"))
    check(r.status == 404, "an unknown path: 404")
    c = s.conn()
    c.request("GET", "/v1/chat/completions")
    check(c.getresponse().status == 405, "GET on chat completions: 405")
    with socket.create_connection(("127.0.0.1", s.port), timeout=5) as sock:
        sock.sendall(b"NONSENSE\r\n\r\n")
        check(b"400" in sock.recv(1000), "a garbage request line: 400")
    with socket.create_connection(("127.0.0.1", s.port), timeout=5) as sock:
        sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                     b"Content-Length: nope\r\n\r\n")
        check(b" 400 " in sock.recv(200), "a bad Content-Length: 400")
    body = chat("chunked body").encode()
    with socket.create_connection(("127.0.0.1", s.port), timeout=5) as sock:
        sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n" +
                     b"%x\r\n" % 10 + body[:10] + b"\r\n" +
                     b"%x\r\n" % (len(body) - 10) + body[10:] + b"\r\n0\r\n\r\n")
        check(b" 200 " in sock.recv(200), "a chunked request body")


def test_keep_alive(s):
    c = s.conn()
    answers = []
    for i in range(3):
        c.request("POST", "/v1/chat/completions", body=chat(f"ka {i}"),
                  headers={"Content-Type": "application/json"})
        r = c.getresponse()
        answers.append((r.status, r.read() != b""))
    c.close()
    check(answers == [(200, True)] * 3, "keep-alive: three on one connection")


def test_concurrency(s):
    threads = [threading.Thread(target=s.post,
                                args=("/v1/chat/completions", chat("slow")))
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def test_log(s):
    time.sleep(0.3)  # the hang's end is logged once the client has gone
    with open(s.log) as f:
        text = f.read()
    check(KEY not in text, "the key never reaches the log")
    recs = fake_llm.read_log(s.log)
    check([r["n"] for r in recs] == list(range(1, len(recs) + 1)),
          "one merged record per request, in order")
    first = recs[0]
    check(first["method"] == "POST" and first["path"] ==
          "/v1/chat/completions" and first["status"] == 200 and
          first["rule"] == -1 and first["model"] == "gpt-test" and
          first["authorization"] == "present" and
          first["response_format"] is False and
          first["body"]["messages"][1]["content"] == "hello there, model" and
          first["body_bytes"] > 0 and first["end"] >= first["start"],
          "log fields")
    by_fault = {r["fault"]: r for r in recs if r.get("fault")}
    hang = by_fault.get("hang", {})
    check(hang.get("status") is None and hang.get("client_gone") and
          hang.get("end") is not None, "hang logged when the client left")
    check(by_fault.get("reset", {}).get("status") is None, "reset logged")
    drip = by_fault.get("drip", {})
    check(drip.get("status") == 200 and drip.get("client_gone") and
          drip.get("end") is not None, "drip logged with its status when "
          "the client left")
    jm = [r for r in recs if r.get("fault") == "reject_json_mode"]
    check([r["status"] for r in jm] == [400, 200] and
          jm[0]["response_format"] is True, "json mode logged")
    seq = [r for r in recs if r.get("rule") == 0]
    check([r["step"] for r in seq] == [0, 1, 1, 2, 2, 2], "steps logged")
    out = subprocess.run([sys.executable, SERVER, "--max-concurrency", s.log],
                         capture_output=True, text=True)
    check(out.stdout.strip() == "4", "--max-concurrency: 4 slow at once "
          f"(got {out.stdout.strip()!r})")
    out = subprocess.run([sys.executable, SERVER, "--requests", s.log],
                         capture_output=True, text=True)
    check(len(out.stdout.splitlines()) == len(recs), "--requests")
    # A request still open at the end counts as never ending.
    check(fake_llm.max_concurrency([{"start": 0, "end": 1},
                                    {"start": 1, "end": 2},
                                    {"start": 1.5, "end": None}]) == 2,
          "max_concurrency: touching ends do not overlap")


def test_no_default(tmp):
    s = Server(tmp, {"rules": [{"match": "only", "answer": "x"}]}, "nd")
    try:
        r, data = s.post("/v1/chat/completions", chat("other"))
        check(r.status == 418 and b"no rule matches" in data,
              "no rule and no default: 418")
    finally:
        s.stop()


def osv_query(name, version):
    return json.dumps({"package": {"name": name, "ecosystem": "npm"},
                       "version": version})


OTHER_SCRIPT = {
    "rules": [
        {"match_path": "/v1/query", "match": ['"lodash"', '"4.17.20"'],
         "body": {"vulns": [{"id": "GHSA-1", "summary": "proto"}]}},
        {"match_path": "/v1/query", "match": '"slow"', "latency_ms": 300,
         "body": {}},
        {"match_path": "/v1/query", "match": '"broken"', "status": 500,
         "body": {"code": 13, "message": "internal"}},
        {"match_path": "/v1/query", "match": '"plain-error"', "status": 503},
        {"match_path": "/v1/query", "match": '"hang"', "fault": "hang"},
        {"match_path": "/v1/query", "match": '"garbage"',
         "body": "{not json"},
        {"match_path": "/v1/query", "match": '"bodiless"'},
        {"match_path": "/v1/query", "match": '"seq"', "then": [
            {"status": 500, "body": {}}, {"body": {"vulns": []}}]},
        {"match_path": "/v1/query", "body": {}},
    ],
    "default": {"answer": "llm"},
}


def test_other_paths(tmp):
    """A match_path rule serves any path with a raw body (OSV's API)."""
    s = Server(tmp, OTHER_SCRIPT, "other")
    try:
        r, data = s.post("/v1/query", osv_query("lodash", "4.17.20"))
        check(r.status == 200 and json.loads(data) ==
              {"vulns": [{"id": "GHSA-1", "summary": "proto"}]} and
              r.getheader("Content-Type") == "application/json",
              "other path: the raw body as is")
        r, data = s.post("/v1/query", osv_query("lodash", "4.17.21"))
        check(r.status == 200 and json.loads(data) == {},
              "a list of matches: all must hold")
        t0 = time.monotonic()
        r, data = s.post("/v1/query", osv_query("slow", "1.0.0"))
        check(r.status == 200 and time.monotonic() - t0 >= 0.28,
              "other path: latency_ms")
        r, data = s.post("/v1/query", osv_query("broken", "1.0.0"))
        check(r.status == 500 and json.loads(data)["code"] == 13,
              "other path: status with a body")
        r, data = s.post("/v1/query", osv_query("plain-error", "1.0.0"))
        check(r.status == 503 and "error" in json.loads(data),
              "other path: status without a body gets an error shape")
        r, data = s.post("/v1/query", osv_query("garbage", "1.0.0"))
        check(r.status == 200 and data == b"{not json",
              "other path: a body that is not JSON")
        r, data = s.post("/v1/query", osv_query("bodiless", "1.0.0"))
        check(r.status == 418 and b"without a body" in data,
              "other path: a 2xx rule without a body is the script's fault")
        statuses = [s.post("/v1/query", osv_query("seq", "1"))[0].status
                    for _ in range(3)]
        check(statuses == [500, 200, 200], "other path: then sequence")
        try:
            s.post("/v1/query", osv_query("hang", "1.0.0"), timeout=0.3)
            check(False, "other path: hang")
        except socket.timeout:
            check(True, "other path: hang")
        r, data = s.post("/v1/query", "not json at all")
        check(r.status == 200 and json.loads(data) == {},
              "other path: any request body")
        c = s.conn()
        c.request("GET", "/v1/query")
        r = c.getresponse()
        check(r.status == 200 and json.loads(r.read()) == {},
              "other path: any method")
        c.close()
        r, data = s.post("/v1/elsewhere", osv_query("lodash", "4.17.20"))
        check(r.status == 404, "other path: no match_path rule, 404 "
              "(never the default)")
        r, data = s.post("/v1/chat/completions", chat("lodash 4.17.20"))
        check(r.status == 200 and json.loads(data)["choices"][0]["message"]
              ["content"] == "llm", "LLM paths still get LLM answers")
        time.sleep(0.3)  # the hang's end is logged once the client has gone
        recs = fake_llm.read_log(s.log)
        check(recs[0]["path"] == "/v1/query" and recs[0]["rule"] == 0 and
              recs[0]["status"] == 200 and
              recs[0]["body"]["package"]["name"] == "lodash",
              "other path: logged")
        hang = [r for r in recs if r.get("fault") == "hang"]
        check(len(hang) == 1 and hang[0]["client_gone"] and
              hang[0]["status"] is None, "other path: hang logged")
    finally:
        s.stop()
    check(s.proc.stderr.read() == b"", "other path: nothing on stderr")


def test_bad_script(tmp):
    path = os.path.join(tmp, "bad.json")
    with open(path, "w") as f:
        json.dump({"rules": [{"fault": "melt"}]}, f)
    out = subprocess.run([sys.executable, SERVER, "--script", path, "--log",
                          os.path.join(tmp, "bad.jsonl")],
                         capture_output=True, text=True, timeout=10)
    check(out.returncode == 2 and "unknown fault" in out.stderr,
          "a bad script is refused with a message")
    with open(path, "w") as f:
        json.dump({"rules": [{"match": ["a", 1], "answer": "x"}]}, f)
    out = subprocess.run([sys.executable, SERVER, "--script", path, "--log",
                          os.path.join(tmp, "bad.jsonl")],
                         capture_output=True, text=True, timeout=10)
    check(out.returncode == 2 and "match must be" in out.stderr,
          "a match that is neither a string nor strings is refused")


def main():
    tmp = tempfile.mkdtemp(prefix="revline-fakellm-")
    s = Server(tmp, SCRIPT)
    try:
        test_shapes(s)
        test_rules(s)
        test_faults(s)
        test_bad_requests(s)
        test_keep_alive(s)
        test_concurrency(s)
        r, _ = s.post("/v1/chat/completions", chat("still alive"))
        check(r.status == 200, "the server survived everything")
        test_log(s)
    finally:
        s.stop()
    check(s.proc.stderr.read() == b"", "nothing on stderr")
    with open(os.path.join(tmp, "s.out")) as f:
        check(f.read() == "", "nothing on stdout")
    test_no_default(tmp)
    test_other_paths(tmp)
    test_bad_script(tmp)
    shutil.rmtree(tmp)
    print(f"{len(failures)} failure(s)" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
