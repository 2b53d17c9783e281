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
sys.dont_write_bytecode = True  # no __pycache__ left in the source tree
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


def test_batch_results(tmp):
    """results: one result per query of a batch, in the request's order."""
    script = {"rules": [
        {"match_path": "/v1/querybatch", "match": '"broken"', "status": 500,
         "body": {"code": 13}},
        {"match_path": "/v1/querybatch", "results": [
            {"match": ['"lodash"', '"page_token":"p2"'],
             "result": {"vulns": [{"id": "GHSA-2"}]}},
            {"match": ['"lodash"', '"4.17.20"'],
             "result": {"vulns": [{"id": "GHSA-1"}], "next_page_token": "p2"}},
            {"match": '"n\u00e9"', "result": {"vulns": []}}]}]}
    s = Server(tmp, script, "batch")
    try:
        body = json.dumps({"queries": [
            json.loads(osv_query("left-pad", "1.0.0")),
            json.loads(osv_query("lodash", "4.17.20")),
            dict(json.loads(osv_query("lodash", "4.17.20")), page_token="p2"),
            json.loads(osv_query("n\u00e9", "1.0.0"))]}, ensure_ascii=False)
        r, data = s.post("/v1/querybatch", body.encode("utf-8"))
        check(r.status == 200 and json.loads(data) == {"results": [
            {}, {"vulns": [{"id": "GHSA-1"}], "next_page_token": "p2"},
            {"vulns": [{"id": "GHSA-2"}]}, {"vulns": []}]},
            "results: per query, in order, the first entry that matches")
        r, data = s.post("/v1/querybatch", "not json")
        check(r.status == 200 and json.loads(data) == {"results": []},
              "results: no queries, no results")
        r, data = s.post("/v1/querybatch", json.dumps(
            {"queries": [json.loads(osv_query("broken", "1"))]}))
        check(r.status == 500, "results: a rule before it still wins")
    finally:
        s.stop()
    check(s.proc.stderr.read() == b"", "results: nothing on stderr")
    path = os.path.join(tmp, "badresults.json")
    for bad in ({"results": {}}, {"results": [{"match": 3, "result": {}}]},
                {"results": [{"match": "x"}]},
                {"results": [{"result": {}, "typo": 1}]}):
        with open(path, "w") as f:
            json.dump({"rules": [dict(bad, match_path="/v1/querybatch")]}, f)
        out = subprocess.run([sys.executable, SERVER, "--script", path,
                              "--log", os.path.join(tmp, "br.jsonl")],
                             capture_output=True, text=True, timeout=10)
        check(out.returncode == 2 and "results" in out.stderr,
              f"results refused when bad: {bad}")


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


# --- the 2026 APIs: refusals, streaming, structured output, prompt caching

def post_json(s, path, body, headers=None, timeout=10):
    r, data = s.post(path, json.dumps(body), headers, timeout)
    try:
        return r.status, json.loads(data)
    except ValueError:
        return r.status, data


def read_sse(s, path, body, timeout=10):
    """(response, [(event name, data, arrival time)]) of a streamed answer."""
    c = s.conn(timeout)
    c.request("POST", path, body=json.dumps(body),
              headers={"Content-Type": "application/json"})
    r = c.getresponse()
    events, name = [], None
    t0 = time.monotonic()
    while True:
        line = r.readline()
        if not line:
            break
        line = line.decode().rstrip("\n")
        if line.startswith("event: "):
            name = line[len("event: "):]
        elif line.startswith("data: "):
            text = line[len("data: "):]
            data = text if text == "[DONE]" else json.loads(text)
            events.append((name, data, time.monotonic() - t0))
            name = None
    c.close()
    return r, events


def openai_body(model, content, extra=None, system="be brief"):
    body = {"model": model, "messages": [
        {"role": "system", "content": system},
        {"role": "user", "content": content}]}
    body.update(extra or {})
    return body


def error_of(data):
    return data.get("error", {}) if isinstance(data, dict) else {}


MODEL_RULES_SCRIPT = {
    "model_rules": [
        {"models": ["gpt-5*", "o[0-9]*"], "reasoning": True},
        {"models": "gpt-4o*", "refuse": ["reasoning_effort"]},
        {"models": "old-llamacpp", "refuse": ["json_schema"]},
        {"models": "lmstudio-*", "refuse": ["json_object"]},
    ],
    "rules": [{"match": "counted", "times": 1, "answer": "first"}],
    "default": {"answer": "ok"},
}
SCHEMA_FORMAT = {"type": "json_schema", "json_schema": {
    "name": "verdict", "strict": True,
    "schema": {"type": "object", "properties": {"status": {"type": "string"}},
               "required": ["status"], "additionalProperties": False}}}


def test_model_rules(tmp):
    s = Server(tmp, MODEL_RULES_SCRIPT, "mr")
    path = "/v1/chat/completions"
    try:
        st, a = post_json(s, path, openai_body("gpt-5-mini", "counted",
                                               {"temperature": 0.2}))
        check(st == 400 and a == {"error": {
            "message": "Unsupported value: 'temperature' does not support "
                       "0.2 with this model. Only the default (1) value is "
                       "supported.",
            "type": "invalid_request_error", "param": "temperature",
            "code": "unsupported_value"}},
            "reasoning model: temperature 0.2 refused as OpenAI does")
        st, a = post_json(s, path, openai_body("o3", "x", {"temperature": 0}))
        check(st == 400 and "does not support 0 with" in
              error_of(a).get("message", ""), "temperature 0 is shown as 0")
        st, a = post_json(s, path, openai_body("gpt-5-mini", "x",
                                               {"max_tokens": 100}))
        check(st == 400 and a == {"error": {
            "message": "Unsupported parameter: 'max_tokens' is not supported "
                       "with this model. Use 'max_completion_tokens' "
                       "instead.",
            "type": "invalid_request_error", "param": "max_tokens",
            "code": "unsupported_parameter"}},
            "reasoning model: max_tokens refused as OpenAI does")
        st, a = post_json(s, path, openai_body(
            "gpt-5-mini", "counted", {"temperature": 1,
                                      "max_completion_tokens": 100,
                                      "reasoning_effort": "low"}))
        check(st == 200 and a["choices"][0]["message"]["content"] ==
              "first", "reasoning model: temperature 1 and "
              "max_completion_tokens accepted; the refusals used no rule")
        u = a.get("usage", {})
        check(u.get("completion_tokens_details", {}).get("reasoning_tokens")
              == 0 and u.get("prompt_tokens_details", {}).get(
                  "cached_tokens") == 0,
              "reasoning model: usage with its details")
        st, a = post_json(s, path, openai_body("gpt-4o-mini", "x",
                                               {"temperature": 0.2,
                                                "max_tokens": 5}))
        check(st == 200 and "prompt_tokens_details" not in a["usage"],
              "other models take temperature and max_tokens")
        st, a = post_json(s, path, openai_body("gpt-4o-mini", "x",
                                               {"reasoning_effort": "low"}))
        check(st == 400 and error_of(a).get("param") == "reasoning_effort"
              and error_of(a).get("code") == "unsupported_parameter",
              "reasoning_effort refused by a model without reasoning")
        st, a = post_json(s, path, openai_body(
            "old-llamacpp", "x", {"response_format": SCHEMA_FORMAT}))
        check(st == 400 and a == {"error": {
            "code": 400, "type": "invalid_request_error",
            "message": 'response_format type must be one of "text" or '
                       '"json_object", but got: json_schema'}},
            "a server without json_schema refuses it (llama.cpp's words)")
        st, a = post_json(s, path, openai_body(
            "old-llamacpp", "x", {"response_format": {"type":
                                                      "json_object"}}))
        check(st == 200, "that server takes json_object")
        st, a = post_json(s, path, openai_body(
            "lmstudio-qwen", "x", {"response_format": {"type":
                                                       "json_object"}}))
        check(st == 400 and a == {"error": "'response_format.type' must be "
                                  "'json_schema' or 'text'"},
              "a server without json_object refuses it (LM Studio's words)")
        st, a = post_json(s, path, openai_body(
            "lmstudio-qwen", "x", {"response_format": SCHEMA_FORMAT}))
        check(st == 200, "that server takes json_schema")
        st, a = post_json(s, "/v1/messages", openai_body(
            "gpt-5-mini", "x", {"temperature": 0.2, "max_tokens": 5}))
        check(st == 200, "model rules are for chat completions only")
        recs = fake_llm.read_log(s.log)
        check([r["refused"] for r in recs[:3]] ==
              ["temperature", "temperature", "max_tokens"] and
              all(r["rule"] is None and r["status"] == 400
                  for r in recs[:3]) and recs[3]["refused"] is None,
              "refusals logged, with no rule")
    finally:
        s.stop()
    check(s.proc.stderr.read() == b"", "model rules: nothing on stderr")


SLOW = "abcdefgh" * 5
STREAM_SCRIPT = {
    "stream": True, "structured": True,
    "rules": [
        {"match": "slowdrip", "answer": SLOW, "chunk_chars": 8,
         "chunk_ms": 100},
        {"match": "verdict", "answer": {"status": "compliant"}},
        {"match": "not-an-object", "answer": "[1, 2]"},
        {"match": "cut", "answer": "abc", "finish_reason": "length"},
    ],
    "default": {"answer": "hello streaming world"},
}
TOOL = {"name": "report", "description": "Report the outcome.",
        "input_schema": {"type": "object",
                         "properties": {"status": {"type": "string"}},
                         "required": ["status"]}}


def anthropic_body(content, extra=None):
    body = {"model": "claude-haiku-4-5", "max_tokens": 100,
            "system": "be brief",
            "messages": [{"role": "user", "content": content}]}
    body.update(extra or {})
    return body


def deltas(events):
    return "".join(d["choices"][0]["delta"].get("content", "")
                   for _, d, _ in events
                   if isinstance(d, dict) and d.get("choices"))


def test_stream(tmp):
    s = Server(tmp, STREAM_SCRIPT, "st")
    path = "/v1/chat/completions"
    try:
        st, plain = post_json(s, path, openai_body("m", "hi"))
        r, ev = read_sse(s, path, openai_body("m", "hi", {"stream": True}))
        check(r.status == 200 and r.getheader("Content-Type").startswith(
            "text/event-stream") and
            r.getheader("Transfer-Encoding") == "chunked",
            "OpenAI stream: SSE, chunked")
        check(ev[-1][1] == "[DONE]" and all(
            d["object"] == "chat.completion.chunk" and "usage" not in d
            for _, d, _ in ev[:-1]) and
            ev[0][1]["choices"][0]["delta"] == {"role": "assistant",
                                                "content": ""} and
            ev[-2][1]["choices"][0] == {"index": 0, "delta": {},
                                        "finish_reason": "stop"} and
            deltas(ev) == "hello streaming world",
            "OpenAI stream: role, content deltas, finish, [DONE]")
        r, ev = read_sse(s, path, openai_body(
            "m", "hi", {"stream": True,
                        "stream_options": {"include_usage": True}}))
        last = ev[-2][1]
        check(last["choices"] == [] and last["usage"] == plain["usage"] and
              all(d["usage"] is None for _, d, _ in ev[:-2]),
              "OpenAI stream: include_usage gives a last chunk with usage")
        r, ev = read_sse(s, path, openai_body("m", "cut", {"stream": True}))
        check(ev[-2][1]["choices"][0]["finish_reason"] == "length",
              "OpenAI stream: finish_reason length")
        # A slow, steady model: a delta every 100 ms, the first at once.
        r, ev = read_sse(s, path, openai_body("m", "slowdrip",
                                              {"stream": True}))
        times = [t for _, d, t in ev if isinstance(d, dict) and
                 d.get("choices") and
                 d["choices"][0]["delta"].get("content")]
        gaps = [b - a for a, b in zip(times, times[1:])]
        # The first delta at once (well before the 400 ms the drip takes; a loaded machine is slow).
        check(deltas(ev) == SLOW and len(times) == 5 and ev[0][2] < 0.3
              and all(g >= 0.08 for g in gaps),
              f"stream drip: 5 deltas of 8 chars 100 ms apart "
              f"(first {ev[0][2]:.2f} s, gaps {[round(g, 2) for g in gaps]})")

        r, ev = read_sse(s, "/v1/messages",
                         anthropic_body("hi", {"stream": True}))
        names = [e for e, _, _ in ev]
        check(names[:3] == ["message_start", "content_block_start", "ping"]
              and set(names[3:-3]) == {"content_block_delta"} and
              names[-3:] == ["content_block_stop", "message_delta",
                             "message_stop"] and
              all(d["type"] == e for e, d, _ in ev),
              f"Anthropic stream: the events in order ({names})")
        text = "".join(d["delta"]["text"] for e, d, _ in ev
                       if e == "content_block_delta")
        start = ev[0][1]["message"]
        end = ev[-2][1]
        check(text == "hello streaming world" and
              start["content"] == [] and start["stop_reason"] is None and
              start["usage"]["input_tokens"] > 0 and
              end["delta"]["stop_reason"] == "end_turn" and
              end["usage"]["output_tokens"] == (len(text) + 3) // 4,
              "Anthropic stream: text deltas, usage in message_delta")
        r, ev = read_sse(s, "/v1/messages", anthropic_body(
            "verdict", {"stream": True, "tools": [TOOL],
                        "tool_choice": {"type": "tool", "name": "report"}}))
        block = ev[1][1]["content_block"]
        partial = "".join(d["delta"]["partial_json"] for e, d, _ in ev
                          if e == "content_block_delta")
        check(block["type"] == "tool_use" and block["name"] == "report" and
              block["input"] == {} and
              json.loads(partial) == {"status": "compliant"} and
              ev[-2][1]["delta"]["stop_reason"] == "tool_use",
              "Anthropic stream: a forced tool as input_json_delta")
    finally:
        s.stop()
    check(s.proc.stderr.read() == b"", "stream: nothing on stderr")


def test_structured(tmp):
    s = Server(tmp, STREAM_SCRIPT, "so")
    try:
        st, a = post_json(s, "/v1/chat/completions", openai_body(
            "m", "verdict", {"response_format": SCHEMA_FORMAT}))
        check(st == 200 and json.loads(a["choices"][0]["message"]
                                       ["content"]) == {"status":
                                                        "compliant"},
              "json_schema: the answer as JSON text in message.content")
        st, a = post_json(s, "/v1/messages", anthropic_body(
            "verdict", {"tools": [TOOL],
                        "tool_choice": {"type": "tool", "name": "report"}}))
        check(st == 200 and a["content"] == [
            {"type": "tool_use", "id": a["content"][0].get("id"),
             "name": "report", "input": {"status": "compliant"}}] and
            a["content"][0]["id"].startswith("toolu_") and
            a["stop_reason"] == "tool_use" and
            a["usage"]["output_tokens"] ==
            (len(json.dumps({"status": "compliant"})) + 3) // 4,
            "forced tool: the answer as tool_use input")
        st, a = post_json(s, "/v1/messages", anthropic_body(
            "verdict", {"tools": [TOOL], "tool_choice": {"type": "any"}}))
        check(st == 200 and a["content"][0]["type"] == "tool_use",
              "tool_choice any with one tool forces it")
        st, a = post_json(s, "/v1/messages", anthropic_body(
            "verdict", {"tools": [TOOL], "tool_choice": {"type": "auto"}}))
        check(st == 200 and a["content"][0]["type"] == "text",
              "tool_choice auto: text")
        st, a = post_json(s, "/v1/messages", anthropic_body(
            "not-an-object", {"tools": [TOOL], "tool_choice":
                              {"type": "tool", "name": "report"}}))
        check(st == 418 and "not a JSON object" in
              a["error"]["message"],
              "a forced tool answered with no object: the script's fault")
        recs = fake_llm.read_log(s.log)
        check(recs[0]["structured"] == {
            "kind": "json_schema", "name": "verdict", "strict": True,
            "schema": SCHEMA_FORMAT["json_schema"]["schema"]} and
            recs[1]["structured"] == {"kind": "tool", "name": "report",
                                      "input_schema": TOOL["input_schema"]}
            and recs[3]["structured"] is None and
            recs[1]["usage"] == {"input_tokens": (len("be brief") +
                                                  len("verdict") + 3) // 4,
                                 "output_tokens": ceil4(len(json.dumps(
                                     {"status": "compliant"})))},
            "structured requests and usage logged")
    finally:
        s.stop()


def cached_of(a):
    return a["usage"]["prompt_tokens_details"]["cached_tokens"]


def ceil4(n):
    return (n + 3) // 4


SHARED = "".join(f"line {i:05d} of the shared change\n" for i in range(200))


def test_cache_openai(tmp):
    script = {"cache": "openai",
              "rules": [{"match": "together", "latency_ms": 300,
                         "answer": "{}"},
                        {"match": "thinking", "answer": "{}",
                         "reasoning_tokens": 50}],
              "default": {"answer": "{}"}}
    s = Server(tmp, script, "co")
    path = "/v1/chat/completions"

    def ask(user, extra=None, model="gpt-5-mini", system=SHARED):
        t0 = time.monotonic()
        st, a = post_json(s, path, openai_body(model, user, extra, system))
        return a, time.monotonic() - t0
    try:
        u1, u2 = "rule-1 " + "y" * 400, "rule-2 " + "z" * 400
        a, _ = ask(u1)
        total = ceil4(len(SHARED) + len(u1))
        check(cached_of(a) == 0 and a["usage"]["prompt_tokens"] == total and
              a["usage"]["total_tokens"] == total +
              a["usage"]["completion_tokens"],
              "OpenAI cache: the first request misses")
        a, _ = ask(u2)
        hit = (len(SHARED) + len("rule-")) // 4
        want = 1024 + (hit - 1024) // 128 * 128
        check(cached_of(a) == want,
              f"OpenAI cache: a shared prefix is cached in 128-token steps "
              f"from 1024 ({cached_of(a)}, want {want})")
        a, _ = ask(u1, model="gpt-5")
        check(cached_of(a) == 0, "OpenAI cache: per model")
        a, _ = ask(u1, {"prompt_cache_key": "check-1"})
        check(cached_of(a) == 0, "OpenAI cache: prompt_cache_key partitions")
        a, _ = ask(u2, {"prompt_cache_key": "check-1"})
        check(cached_of(a) == want, "OpenAI cache: hit within the key")
        a, _ = ask(u1, {"response_format": SCHEMA_FORMAT})
        check(cached_of(a) == 0, "OpenAI cache: response_format precedes the "
              "messages")
        short = "a short system prompt"
        a, _ = ask(u1, system=short)
        a, _ = ask(u1, system=short)
        check(cached_of(a) == 0, "OpenAI cache: never under 1024 tokens")
        other = SHARED.replace("line", "LINE")
        results = []
        threads = [threading.Thread(target=lambda u: results.append(
            ask("together " + u, system=other)[0]), args=(u,))
            for u in ("a", "b")]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        check([cached_of(a) for a in results] == [0, 0],
              "OpenAI cache: requests at the same instant all miss")
        a, _ = ask("together c", system=other)
        check(cached_of(a) > 0, "OpenAI cache: filled once they completed")
        a, _ = ask("thinking", system=short)
        u = a["usage"]
        check(u["completion_tokens"] == ceil4(2) + 50 and
              u["completion_tokens_details"]["reasoning_tokens"] == 50,
              "reasoning_tokens counted in completion_tokens and reported")
    finally:
        s.stop()
    check(s.proc.stderr.read() == b"", "OpenAI cache: nothing on stderr")


def test_prefill(tmp):
    """Uncached prompt tokens cost time; cached ones do not."""
    s = Server(tmp, {"cache": "openai", "prefill_ms_per_1k_tokens": 200,
                     "default": {"answer": "{}"}}, "pf")
    took = []
    try:
        for user in ("rule-1", "rule-2"):
            t0 = time.monotonic()
            st, a = post_json(s, "/v1/chat/completions",
                              openai_body("m", user, None, SHARED))
            took.append(time.monotonic() - t0)
        # ~1750 tokens cold: 350 ms; warm: ~1664 cached, 17 ms.
        check(took[0] >= 0.3 and took[1] < took[0] - 0.2,
              f"prefill_ms_per_1k_tokens: uncached tokens only "
              f"({took[0]:.2f} s cold, {took[1]:.2f} s warm)")
    finally:
        s.stop()


def cache_fill_race(tmp, fill):
    """What a second request gets while the first is still streaming."""
    script = {"cache": "openai", "cache_fill": fill, "stream": True,
              "rules": [{"match": "first", "answer": "x" * 40,
                         "chunk_chars": 4, "chunk_ms": 50}],
              "default": {"answer": "{}"}}
    s = Server(tmp, script, f"fill-{fill}")
    path = "/v1/chat/completions"
    try:
        c = s.conn(10)
        c.request("POST", path, body=json.dumps(openai_body(
            "m", "first", {"stream": True,
                           "stream_options": {"include_usage": True}},
            SHARED)), headers={"Content-Type": "application/json"})
        r = c.getresponse()
        r.readline()  # the first event: the prompt has been read
        st, a = post_json(s, path, openai_body("m", "second", None, SHARED))
        during = cached_of(a)
        rest = r.read().decode()
        c.close()
        st, a = post_json(s, path, openai_body("m", "third", None, SHARED))
        return during, cached_of(a), "[DONE]" in rest
    finally:
        s.stop()


def test_cache_fill(tmp):
    during, after, done = cache_fill_race(tmp, "complete")
    check(during == 0 and after > 0 and done,
          "cache_fill complete: a request during the stream misses")
    during, after, done = cache_fill_race(tmp, "first_byte")
    check(during > 0 and after == during and done,
          "cache_fill first_byte: hit once the first byte went out")


def anthropic_usage(s, system, messages, extra=None):
    body = {"model": "claude-sonnet-4-5", "max_tokens": 100,
            "system": system, "messages": messages}
    body.update(extra or {})
    st, a = post_json(s, "/v1/messages", body)
    return a["usage"]


def block(text, bp=False):
    b = {"type": "text", "text": text}
    if bp:
        b["cache_control"] = {"type": "ephemeral"}
    return b


def test_cache_anthropic(tmp):
    s = Server(tmp, {"cache": "anthropic", "stream": True,
                     "default": {"answer": "{}"}}, "ca")
    try:
        head = "You review changes. " * 10
        system = [block(head), block(SHARED, bp=True)]
        shared_t = ceil4(len(head) + len(SHARED))

        def user(text):
            return [{"role": "user", "content": text}]
        r1 = "rule-1 " + "q" * 400
        u = anthropic_usage(s, system, user(r1))
        total = ceil4(len(head) + len(SHARED) + len(r1))
        check(list(u) == ["input_tokens", "cache_creation_input_tokens",
                          "cache_read_input_tokens", "cache_creation",
                          "output_tokens", "service_tier"] and
              u["cache_creation_input_tokens"] == shared_t and
              u["cache_read_input_tokens"] == 0 and
              u["input_tokens"] == total - shared_t and
              u["cache_creation"]["ephemeral_5m_input_tokens"] == shared_t,
              f"Anthropic cache: the first request writes up to its "
              f"breakpoint ({u})")
        r2 = "rule-2 " + "w" * 300
        u = anthropic_usage(s, system, user(r2))
        check(u["cache_read_input_tokens"] == shared_t and
              u["cache_creation_input_tokens"] == 0 and
              u["input_tokens"] == ceil4(len(head) + len(SHARED) + len(r2))
              - shared_t, "Anthropic cache: the next one reads it")
        u = anthropic_usage(s, [block(head), block(SHARED)], user(r2))
        check(u["cache_read_input_tokens"] == 0 and
              u["cache_creation_input_tokens"] == 0 and
              u["input_tokens"] == ceil4(len(head) + len(SHARED) + len(r2)),
              "Anthropic cache: nothing without a breakpoint")
        # Two breakpoints: the instructions and the change.
        diff = "diff --git " * 300
        two = [{"role": "user", "content": [block(diff, bp=True),
                                            block("rule-3")]}]
        u = anthropic_usage(s, system, two)
        upto_diff = ceil4(len(head) + len(SHARED) + len(diff))
        check(u["cache_read_input_tokens"] == shared_t and
              u["cache_creation_input_tokens"] == upto_diff - shared_t,
              "Anthropic cache: reads the first breakpoint, writes to the "
              "last")
        two[0]["content"][1] = block("rule-4")
        u = anthropic_usage(s, system, two)
        check(u["cache_read_input_tokens"] == upto_diff and
              u["cache_creation_input_tokens"] == 0,
              "Anthropic cache: then reads to the last")
        # A breakpoint later than the stored prefix finds it looking back.
        later = [{"role": "user", "content": [block("extra " * 50, bp=True),
                                              block("rule-5")]}]
        u = anthropic_usage(s, [block(head), block(SHARED)], later)
        check(u["cache_read_input_tokens"] == shared_t,
              "Anthropic cache: a hit looking back from a later breakpoint")
        u = anthropic_usage(s, system, user(r1), {"tools": [TOOL]})
        check(u["cache_read_input_tokens"] == 0,
              "Anthropic cache: tools precede the system prompt")
        small = [block("tiny", bp=True)]
        anthropic_usage(s, small, user(r1))
        u = anthropic_usage(s, small, user(r1))
        check(u["cache_read_input_tokens"] == 0 and
              u["cache_creation_input_tokens"] == 0,
              "Anthropic cache: nothing under the minimum")
        r, ev = read_sse(s, "/v1/messages", {
            "model": "claude-sonnet-4-5", "max_tokens": 100, "stream": True,
            "system": system, "messages": user(r2)})
        start = ev[0][1]["message"]["usage"]
        check(start["cache_read_input_tokens"] == shared_t and
              start["output_tokens"] == 1 and
              ev[-2][1]["usage"]["cache_read_input_tokens"] == shared_t,
              "Anthropic cache: streamed answers report the counts")
    finally:
        s.stop()
    s = Server(tmp, {"cache": "anthropic", "cache_min_tokens": 4096,
                     "default": {"answer": "{}"}}, "ca4096")
    try:
        system = [block(SHARED, bp=True)]
        for _ in range(2):
            u = anthropic_usage(s, system, [{"role": "user",
                                             "content": "x"}])
        check(u["cache_read_input_tokens"] == 0 and
              u["cache_creation_input_tokens"] == 0,
              "Anthropic cache: cache_min_tokens (Haiku 4.5's 4096)")
    finally:
        s.stop()

# --- tools ------------------------------------------------------------------

READ = {"name": "read_file", "arguments": {"path": "src/a.c", "start": 1}}
SEARCH = {"name": "search", "arguments": {"pattern": "helper"}}
OPENAI_TOOLS = [{"type": "function", "function": {
    "name": n, "description": n, "parameters": {"type": "object"}}}
    for n in ("read_file", "search")]
ANTHROPIC_TOOLS = [{"name": n, "description": n,
                    "input_schema": {"type": "object"}}
                   for n in ("read_file", "search", "review_answer")]
TOOLS_SCRIPT = {
    "stream": True, "structured": True,
    "rules": [
        {"match": "hostile", "turns": [{"tool_calls": [READ],
                                        "ignore_tool_choice": True}]},
        {"match": "nofinal", "turns": [{"tool_calls": [READ]}]},
        {"match": "saw", "match_tool_result": "int main", "answer": "read it"},
        {"match": "conversation", "turns": [
            {"tool_calls": [READ, SEARCH], "answer": "Looking.",
             "chunk_chars": 3},
            {"tool_calls": [{"name": "review_answer", "id": "toolu_mine",
                             "arguments": {"status": "compliant"}}]},
            {"answer": "third and later"}],
         "final": {"answer": {"status": "attention"}}},
    ],
}


def openai_turn(calls, results):
    """The messages a client sends back after calls: its assistant message
    and a tool message per call."""
    return [{"role": "assistant", "content": None, "tool_calls": calls}] + [
        {"role": "tool", "tool_call_id": c["id"], "content": r}
        for c, r in zip(calls, results)]


def anthropic_turn(blocks, results):
    return [{"role": "assistant", "content": blocks},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": b["id"], "content": r}
                for b, r in zip(blocks, results)]}]


def openai_calls_of(events):
    """The calls of a streamed chat completion, assembled by index."""
    calls = {}
    for _, d, _ in events:
        if not isinstance(d, dict) or not d.get("choices"):
            continue
        for piece in d["choices"][0]["delta"].get("tool_calls") or []:
            c = calls.setdefault(piece["index"], {"arguments": ""})
            for key in ("id", "type"):
                if key in piece:
                    c[key] = piece[key]
            fn = piece.get("function", {})
            if "name" in fn:
                c["name"] = fn["name"]
            c["arguments"] += fn.get("arguments", "")
    return [calls[i] for i in sorted(calls)]


def test_tools_openai(s):
    path = "/v1/chat/completions"
    body = openai_body("gpt-5-mini", "conversation",
                       {"tools": OPENAI_TOOLS, "tool_choice": "auto"})
    st, a = post_json(s, path, body)
    msg = a["choices"][0]["message"]
    check(st == 200 and a["choices"][0]["finish_reason"] == "tool_calls" and
          msg["content"] == "Looking." and
          [c["function"]["name"] for c in msg["tool_calls"]] ==
          ["read_file", "search"] and
          all(c["type"] == "function" and c["id"].startswith("call_fake_")
              for c in msg["tool_calls"]) and
          json.loads(msg["tool_calls"][0]["function"]["arguments"]) ==
          READ["arguments"],
          "OpenAI tools: message.tool_calls, finish_reason tool_calls")
    r, ev = read_sse(s, path, dict(body, stream=True))
    calls = openai_calls_of(ev)
    pieces = [p for _, d, _ in ev if isinstance(d, dict) and d.get("choices")
              for p in d["choices"][0]["delta"].get("tool_calls") or []]
    check([c["name"] for c in calls] == ["read_file", "search"] and
          json.loads(calls[1]["arguments"]) == SEARCH["arguments"] and
          all(set(p) == {"index", "function"} and
              set(p["function"]) == {"arguments"}
              for p in pieces if "id" not in p) and
          sum("id" in p for p in pieces) == 2 and
          len(pieces) > 10 and
          ev[-2][1]["choices"][0]["finish_reason"] == "tool_calls",
          f"OpenAI tools streamed: id and name first, then arguments in "
          f"pieces by index ({len(pieces)} pieces)")
    body["messages"] += openai_turn(msg["tool_calls"], ["int main", "x"])
    st, a = post_json(s, path, body)
    msg2 = a["choices"][0]["message"]
    check(msg2["tool_calls"][0]["id"] == "toolu_mine",
          "turns: a request with one round of results gets turns[1]")
    body["messages"] += openai_turn(msg2["tool_calls"], ["y"])
    st, a = post_json(s, path, body)
    check(a["choices"][0]["message"]["content"] == "third and later",
          "turns: the last turn answers any later round")
    st, a = post_json(s, path, dict(body, tool_choice="none"))
    check(json.loads(a["choices"][0]["message"]["content"]) ==
          {"status": "attention"}, "turns: tool_choice none gets final")
    st, a = post_json(s, path, openai_body(
        "m", "nofinal", {"tools": OPENAI_TOOLS, "tool_choice": "none"}))
    check(st == 418 and "give the rule a final answer" in
          error_of(a).get("message", ""),
          "a rule that only calls tools, asked for none: 418")
    st, a = post_json(s, path, openai_body(
        "m", "hostile", {"tools": OPENAI_TOOLS, "tool_choice": "none"}))
    check(st == 200 and a["choices"][0]["message"]["tool_calls"],
          "ignore_tool_choice: calls anyway")
    st, a = post_json(s, path, openai_body(
        "m", "saw", {"messages": [{"role": "user", "content": "saw"}] +
                     openai_turn(msg["tool_calls"], ["int main", "x"])}))
    check(st == 200 and a["choices"][0]["message"]["content"] == "read it",
          "match_tool_result: matched on a result the client sent back")
    st, a = post_json(s, path, openai_body("m", "saw"))
    check(st == 418, "match_tool_result: not without the result")


def test_tools_anthropic(s):
    path = "/v1/messages"
    body = anthropic_body("conversation", {"tools": ANTHROPIC_TOOLS,
                                           "tool_choice": {"type": "any"}})
    st, a = post_json(s, path, body)
    blocks = [b for b in a["content"] if b["type"] == "tool_use"]
    check(st == 200 and a["stop_reason"] == "tool_use" and
          a["content"][0] == {"type": "text", "text": "Looking."} and
          [b["name"] for b in blocks] == ["read_file", "search"] and
          blocks[0]["input"] == READ["arguments"] and
          all(b["id"].startswith("toolu_fake_") for b in blocks),
          "Anthropic tools: tool_use blocks with input, stop_reason tool_use")
    r, ev = read_sse(s, path, dict(body, stream=True))
    starts = [d for e, d, _ in ev if e == "content_block_start"]
    inputs = {}
    for e, d, _ in ev:
        if e == "content_block_delta" and \
                d["delta"]["type"] == "input_json_delta":
            inputs[d["index"]] = inputs.get(d["index"], "") + \
                d["delta"]["partial_json"]
    check([b["content_block"]["type"] for b in starts] ==
          ["text", "tool_use", "tool_use"] and
          starts[1]["content_block"]["input"] == {} and
          json.loads(inputs[1]) == READ["arguments"] and
          json.loads(inputs[2]) == SEARCH["arguments"] and
          ev[-2][1]["delta"]["stop_reason"] == "tool_use",
          "Anthropic tools streamed: content_block_start tool_use, "
          "input_json_delta pieces")
    body["messages"] += anthropic_turn(blocks, ["int main", "x"])
    st, a = post_json(s, path, body)
    check(a["content"] == [{"type": "tool_use", "id": "toolu_mine",
                            "name": "review_answer",
                            "input": {"status": "compliant"}}],
          "Anthropic turns: the answer's tool after one round of results")
    st, a = post_json(s, path, dict(body, tool_choice={
        "type": "tool", "name": "review_answer"}))
    check(a["content"][0]["name"] == "review_answer" and
          a["content"][0]["input"] == {"status": "attention"},
          "Anthropic: a forced answer tool gets final as its input")


def test_tools(tmp):
    s = Server(tmp, TOOLS_SCRIPT, "tools")
    try:
        test_tools_openai(s)
        test_tools_anthropic(s)
        log = fake_llm.read_log(s.log)
        check(log[0]["tools"] == ["read_file", "search"] and
              log[0]["tool_choice"] == "auto" and
              log[0]["tool_rounds"] == 0 and
              log[2]["tool_rounds"] == 1 and log[2]["tool_results"] == 2 and
              log[2]["step"] == 1,
              "log: tools, tool_choice, tool_rounds, tool_results, step")
    finally:
        s.stop()
    check(s.proc.stderr.read() == b"", "tools: nothing on stderr")


def test_tools_refused(tmp):
    script = {"model_rules": [
        {"models": "gpt-5-chat*", "refuse": ["tools"]},
        {"models": "*:*", "refuse": ["tools"], "tools_refusal": "ollama"},
        {"models": "Qwen/*", "refuse": ["tools"], "tools_refusal": "vllm"}],
        "default": {"answer": "without tools"}}
    s = Server(tmp, script, "toolsno")
    path = "/v1/chat/completions"
    try:
        for model, want in (
                ("gpt-5-chat-latest",
                 lambda a: a["error"]["param"] == "tools" and
                 a["error"]["type"] == "invalid_request_error" and
                 a["error"]["message"].startswith("tools is not supported")),
                ("gemma:2b",
                 lambda a: a["error"]["message"] ==
                 "registry.ollama.ai/library/gemma:2b does not support tools"
                 and a["error"]["param"] is None),
                ("Qwen/Qwen2.5-7B",
                 lambda a: a["object"] == "error" and
                 "--enable-auto-tool-choice" in a["message"])):
            st, a = post_json(s, path, openai_body(
                model, "x", {"tools": OPENAI_TOOLS, "tool_choice": "auto"}))
            check(st == 400 and want(a),
                  f"tools refused in the server's words: {model}")
            st, a = post_json(s, path, openai_body(model, "x"))
            check(st == 200 and a["choices"][0]["message"]["content"] ==
                  "without tools", f"asked without tools: {model}")
        log = fake_llm.read_log(s.log)
        check([r["refused"] for r in log] == ["tools", None] * 3,
              "log: refused tools")
    finally:
        s.stop()


def test_bad_2026_scripts(tmp):
    path = os.path.join(tmp, "bad26.json")
    for spec, words in (
            ({"model_rules": [{"models": "x", "refuse": ["top_p"]}]},
             "refuse must be"),
            ({"model_rules": [{"refuse": ["temperature"]}]},
             "models must be"),
            ({"cache": "gemini"}, "cache must be"),
            ({"cache_fill": "complete"}, "without cache"),
            ({"cache": "openai", "cache_fill": "later"}, "cache_fill must"),
            ({"stream": "yes"}, "stream must be"),
            ({"rules": [{"chunk_chars": 0}]}, "chunk_chars must"),
            ({"prefill_ms_per_1k_tokens": -1}, "prefill_ms_per_1k_tokens"),
            ({"rules": [{"tool_calls": []}]}, "tool_calls must be a non-empty"),
            ({"rules": [{"tool_calls": [{"arguments": {}}]}]},
             "name must be a string"),
            ({"rules": [{"tool_calls": [{"name": "x", "args": {}}]}]},
             "unknown key(s) args"),
            ({"rules": [{"turns": [{}], "then": [{}]}]},
             "turns and then do not go together"),
            ({"rules": [{"turns": [{"times": 2}]}]}, "unknown key(s) times"),
            ({"model_rules": [{"models": "x", "refuse": ["tools"],
                               "tools_refusal": "lmstudio"}]},
             "tools_refusal must be")):
        with open(path, "w") as f:
            json.dump(spec, f)
        try:
            fake_llm.Script(path)
            said = "accepted"
        except fake_llm.ScriptError as e:
            said = str(e)
        check(words in said, f"bad script refused: {json.dumps(spec)} "
              f"({said})")


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
    test_batch_results(tmp)
    test_bad_script(tmp)
    test_model_rules(tmp)
    test_stream(tmp)
    test_structured(tmp)
    test_cache_openai(tmp)
    test_prefill(tmp)
    test_cache_fill(tmp)
    test_cache_anthropic(tmp)
    test_tools(tmp)
    test_tools_refused(tmp)
    test_bad_2026_scripts(tmp)
    shutil.rmtree(tmp)
    print(f"{len(failures)} failure(s)" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
