#!/usr/bin/env python3
"""A scripted stand-in for an LLM provider, for revline's tests.

It speaks real HTTP on 127.0.0.1 (OpenAI-compatible chat completions,
Anthropic messages, a model list, and any other path a rule names with a
raw body, such as OSV's /v1/query), answers from a JSON script with latency
and faults, and logs every request as JSON lines. Standard library only.
See README.md beside this file for the script format.

    fake_llm.py --script SCRIPT.json --log LOG.jsonl [--port 0] [--port-file F]
    fake_llm.py --max-concurrency LOG.jsonl
    fake_llm.py --requests LOG.jsonl
"""

import argparse
import json
import os
import select
import signal
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FAULTS = ("hang", "reset", "close", "truncate", "non_json", "wrong_shape",
          "reject_json_mode", "drip")
RESPONSE_KEYS = {"latency_ms", "status", "headers", "answer", "answer_file",
                 "body", "content_type", "fault", "error", "finish_reason",
                 "usage", "models", "drip_ms"}
# A drip promises this much and never gets there.
DRIP_LENGTH = 1 << 30
RULE_KEYS = RESPONSE_KEYS | {"match", "match_header", "match_path", "times",
                             "then", "comment"}
STEP_KEYS = RESPONSE_KEYS | {"times", "comment"}
MAX_BODY = 64 << 20
JSON_MODE_MESSAGE = ("response_format json_object is not supported by this "
                     "model")
ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error",
               403: "permission_error", 404: "not_found_error",
               413: "request_too_large", 429: "rate_limit_error",
               500: "api_error", 503: "overloaded_error",
               529: "overloaded_error"}
STOP_REASONS = {"stop": "end_turn", "length": "max_tokens"}


class ScriptError(Exception):
    pass


# --- the script -------------------------------------------------------------

def check_keys(what, spec, allowed):
    if not isinstance(spec, dict):
        raise ScriptError(f"{what}: expected an object")
    unknown = sorted(set(spec) - allowed)
    if unknown:
        raise ScriptError(f"{what}: unknown key(s) {', '.join(unknown)}")
    fault = spec.get("fault")
    if fault is not None and fault not in FAULTS:
        raise ScriptError(f"{what}: unknown fault {fault!r} "
                          f"(one of {', '.join(FAULTS)})")
    drip = spec.get("drip_ms")
    if drip is not None and (not isinstance(drip, (int, float)) or drip <= 0):
        raise ScriptError(f"{what}: drip_ms must be a positive number")
    times = spec.get("times")
    if times is not None and (not isinstance(times, int) or times < 1):
        raise ScriptError(f"{what}: times must be a positive integer")
    match = spec.get("match")
    if match is not None and not isinstance(match, str) and not (
            isinstance(match, list) and match and
            all(isinstance(m, str) for m in match)):
        raise ScriptError(f"{what}: match must be a string or a non-empty "
                          f"list of strings")


def load_answer_file(step, base_dir):
    """Fixture answers may live in files, relative to the script."""
    path = step.pop("answer_file", None)
    if path is not None:
        with open(os.path.join(base_dir, path), encoding="utf-8") as f:
            step["answer"] = f.read()
    return step


class Rule:
    """One scripted behaviour; "then" makes it a sequence of steps."""

    def __init__(self, index, spec, base_dir):
        what = "default" if index < 0 else f"rules[{index}]"
        check_keys(what, spec, RULE_KEYS)
        self.index = index
        match = spec.get("match")
        self.match = [match] if isinstance(match, str) else match
        self.match_path = spec.get("match_path")
        self.match_header = {k.lower(): str(v) for k, v in
                             (spec.get("match_header") or {}).items()}
        self.times = spec.get("times")
        self.used = 0
        base = {k: v for k, v in spec.items() if k in RESPONSE_KEYS}
        steps = spec.get("then")
        if steps is None:
            self.steps = [(None, load_answer_file(dict(base), base_dir))]
        else:
            if not isinstance(steps, list) or not steps:
                raise ScriptError(f"{what}: then must be a non-empty list")
            self.steps = []
            for i, step in enumerate(steps):
                check_keys(f"{what}.then[{i}]", step, STEP_KEYS)
                merged = dict(base)
                merged.update(step)
                count = merged.pop("times", None)
                if count is None and i < len(steps) - 1:
                    count = 1
                self.steps.append((count, load_answer_file(merged, base_dir)))
        self.step = 0
        self.step_used = 0

    def used_up(self):
        if self.times is not None and self.used >= self.times:
            return True
        return self.step >= len(self.steps)

    def matches(self, req):
        if self.match is not None and not all(m in req.text
                                              for m in self.match):
            return False
        if self.match_path is not None and self.match_path not in req.path:
            return False
        for name, want in self.match_header.items():
            value = req.headers.get(name)
            if value is None or want not in value:
                return False
        return True

    def take(self):
        """The response for this request; the caller holds the lock."""
        index = self.step
        count, response = self.steps[index]
        self.used += 1
        self.step_used += 1
        if count is not None and self.step_used >= count:
            self.step += 1
            self.step_used = 0
        return index, response


class Script:
    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            try:
                spec = json.load(f)
            except ValueError as e:
                raise ScriptError(f"{path}: {e}") from None
        check_keys("script", spec, {"rules", "default", "models", "comment"})
        base_dir = os.path.dirname(os.path.abspath(path))
        self.rules = [Rule(i, r, base_dir)
                      for i, r in enumerate(spec.get("rules") or [])]
        default = spec.get("default")
        self.default = Rule(-1, default, base_dir) if default else None
        self.models = spec.get("models") or ["fake-model"]
        self.lock = threading.Lock()

    def select(self, req, other_path=False):
        """(rule index, step index, response), or None when nothing fits.

        A path that is no LLM endpoint (other_path) is served only by the
        rules that name it with match_path, never by the default.
        """
        with self.lock:
            for rule in self.rules:
                if other_path and rule.match_path is None:
                    continue
                if not rule.used_up() and rule.matches(req):
                    return (rule.index,) + rule.take()
            if (not other_path and self.default and
                    not self.default.used_up()):
                return (-1,) + self.default.take()
        return None


# --- the log ----------------------------------------------------------------

class Log:
    """JSON lines: one when a request arrives, one when it ends (same n)."""

    def __init__(self, path):
        self.file = open(path, "a", encoding="utf-8")
        self.lock = threading.Lock()
        self.count = 0

    def next_number(self):
        with self.lock:
            self.count += 1
            return self.count

    def write(self, record):
        line = json.dumps(record, separators=(",", ":")) + "\n"
        with self.lock:
            self.file.write(line)
            self.file.flush()


def read_log(path):
    """The requests of a log, one merged record per n, in arrival order."""
    records = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                rec = json.loads(line)
            except ValueError:
                continue  # a line cut short when the server was killed
            records.setdefault(rec["n"], {}).update(rec)
    return [records[n] for n in sorted(records)]


def max_concurrency(records):
    """The most requests the server was handling at one moment."""
    edges = []
    for rec in records:
        end = rec.get("end")
        edges.append((rec["start"], 1))
        edges.append((float("inf") if end is None else end, -1))
    # An end and a start at the same instant do not overlap.
    edges.sort(key=lambda e: (e[0], e[1]))
    now = best = 0
    for _, delta in edges:
        now += delta
        best = max(best, now)
    return best


# --- requests and answers ---------------------------------------------------

class Request:
    def __init__(self, handler, raw):
        self.method = handler.command
        self.path = handler.path.split("?", 1)[0]
        self.headers = {k.lower(): v for k, v in handler.headers.items()}
        self.raw = raw
        self.text = raw.decode("utf-8", errors="replace")
        self.json = None
        if raw:
            try:
                self.json = json.loads(self.text)
            except ValueError:
                pass
        body = self.json if isinstance(self.json, dict) else {}
        self.model = body.get("model") if isinstance(body.get("model"),
                                                     str) else None
        self.response_format = "response_format" in body
        self.stream = body.get("stream") is True
        self.prompt_chars = prompt_chars(body) or len(raw)


def content_chars(content):
    if isinstance(content, str):
        return len(content)
    if isinstance(content, list):
        return sum(len(p.get("text", "")) if isinstance(p, dict) else 0
                   for p in content)
    return 0


def prompt_chars(body):
    total = content_chars(body.get("system"))
    for msg in body.get("messages") or []:
        if isinstance(msg, dict):
            total += content_chars(msg.get("content"))
    return total


def tokens(chars):
    return max(1, (chars + 3) // 4)


def endpoint_kind(path):
    if path.endswith("/chat/completions"):
        return "openai"
    if path.endswith("/messages"):
        return "anthropic"
    if path.endswith("/models"):
        return "models"
    return None


def answer_text(response):
    answer = response.get("answer", "")
    if isinstance(answer, str):
        return answer
    return json.dumps(answer)


def usage_of(req, text, response):
    usage = {"prompt_tokens": tokens(req.prompt_chars),
             "completion_tokens": tokens(len(text))}
    usage.update(response.get("usage") or {})
    return usage


def openai_answer(n, req, text, response):
    usage = usage_of(req, text, response)
    usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    return {"id": f"chatcmpl-fake-{n}", "object": "chat.completion",
            "created": int(time.time()), "model": req.model or "fake-model",
            "choices": [{"index": 0,
                         "message": {"role": "assistant", "content": text},
                         "finish_reason": response.get("finish_reason",
                                                       "stop")}],
            "usage": usage}


def anthropic_answer(n, req, text, response):
    usage = usage_of(req, text, response)
    reason = response.get("finish_reason", "stop")
    return {"id": f"msg_fake_{n}", "type": "message", "role": "assistant",
            "model": req.model or "fake-model",
            "content": [{"type": "text", "text": text}],
            "stop_reason": STOP_REASONS.get(reason, reason),
            "stop_sequence": None,
            "usage": {"input_tokens": usage["prompt_tokens"],
                      "output_tokens": usage["completion_tokens"]}}


def model_list(models):
    # One shape that OpenAI and Anthropic clients both read.
    data = [{"id": m, "object": "model", "type": "model", "display_name": m,
             "created": 0, "created_at": "2024-01-01T00:00:00Z",
             "owned_by": "fake-llm"} for m in models]
    return {"object": "list", "data": data, "has_more": False,
            "first_id": models[0] if models else None,
            "last_id": models[-1] if models else None}


def error_body(kind, status, message):
    etype = ERROR_TYPES.get(status, "api_error")
    if kind == "anthropic":
        return {"type": "error", "error": {"type": etype, "message": message}}
    return {"error": {"message": message, "type": etype, "code": None}}


def encode(value):
    return json.dumps(value).encode("utf-8")


# --- the handler ------------------------------------------------------------

class ClientGone(Exception):
    pass


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes; with Nagle's algorithm the
    # second waits for the client's delayed ACK (40 ms), which would show
    # up as latency that a real server does not have.
    disable_nagle_algorithm = True
    server_version = "fake-llm/1"
    sys_version = ""

    def version_string(self):
        return self.server_version

    def log_message(self, format, *args):  # quiet: tests read the JSON log
        pass

    def do_GET(self):
        self.serve()

    do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_GET

    # -- reading

    def read_body(self):
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            return self.read_chunked()
        length = self.headers.get("Content-Length")
        if length is None:
            return b""
        try:
            length = int(length)
        except ValueError:
            raise BadRequest(400, "bad Content-Length") from None
        if length < 0 or length > MAX_BODY:
            raise BadRequest(413, "request body too large")
        return self.read_exactly(length)

    def read_exactly(self, length):
        data = self.rfile.read(length)
        if len(data) != length:
            raise ClientGone()
        return data

    def read_chunked(self):
        parts, total = [], 0
        while True:
            line = self.rfile.readline(1024)
            if not line:
                raise ClientGone()
            try:
                size = int(line.split(b";")[0].strip(), 16)
            except ValueError:
                raise BadRequest(400, "bad chunk size") from None
            if size == 0:
                while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                    pass
                return b"".join(parts)
            total += size
            if total > MAX_BODY:
                raise BadRequest(413, "request body too large")
            parts.append(self.read_exactly(size))
            self.rfile.readline(16)

    # -- writing

    def send(self, status, body, content_type="application/json",
             headers=None, length=None):
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length",
                             str(len(body) if length is None else length))
            for name, value in (headers or {}).items():
                self.send_header(name, str(value))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
        except OSError:
            raise ClientGone() from None

    def drop(self, reset):
        """Close without an answer: RST with a zero linger, else FIN."""
        sock = self.connection
        if reset:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                            struct.pack("ii", 1, 0))
        self.close_connection = True
        # The socket closes for real only once its reader is closed too.
        self.rfile.close()
        sock.close()

    def drip(self, status, ctype, headers, interval_ms):
        """Headers that promise a gigabyte, then a blank every interval, forever.

        Each byte keeps the transfer alive, so only a limit on the whole
        transfer (not a low-speed one) ends it; the client going away does.
        """
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(DRIP_LENGTH))
        for name, value in (headers or {}).items():
            self.send_header(name, str(value))
        try:
            self.end_headers()
            self.wfile.flush()
            for _ in range(DRIP_LENGTH):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(interval_ms / 1000.0)
        except OSError:
            raise ClientGone() from None
        raise ClientGone()

    def wait_for_client_to_leave(self):
        sock = self.connection
        while True:
            ready, _, _ = select.select([sock], [], [], 0.2)
            if not ready:
                continue
            try:
                if not sock.recv(65536):
                    break
            except OSError:
                break
        self.close_connection = True

    # -- one request

    def serve(self):
        server = self.server
        n = server.log.next_number()
        rec = {"n": n, "phase": "start", "method": self.command,
               "path": self.path, "start": time.monotonic(), "end": None,
               "status": None, "fault": None, "rule": None, "step": None}
        try:
            raw = self.read_body()
        except ClientGone:
            self.close_connection = True
            return
        except BadRequest as e:
            raw = b""
            self.close_connection = True  # the unread body is still there
            req = Request(self, raw)
            self.describe(rec, req)
            server.log.write(rec)
            self.finish_with(rec, lambda: self.refuse(req, e.status,
                                                     e.message))
            return
        req = Request(self, raw)
        self.describe(rec, req)
        server.log.write(rec)
        self.finish_with(rec, lambda: self.answer(n, req, rec))

    def describe(self, rec, req):
        rec.update({
            "model": req.model, "response_format": req.response_format,
            "stream": req.stream, "body_bytes": len(req.raw),
            "authorization": "present" if ("authorization" in req.headers or
                                           "x-api-key" in req.headers)
            else "absent",
            "user_agent": req.headers.get("user-agent"),
            "content_type": req.headers.get("content-type"),
            "body": req.json})

    def finish_with(self, rec, action):
        client_gone = False
        try:
            status, fault = action()
        except ClientGone:
            # A drip sent its status before the client went; the rest sent none.
            status, fault, client_gone = rec.get("status"), rec.get("fault"), True
            self.close_connection = True
        rec.update({"phase": "end", "end": time.monotonic(),
                    "status": status, "fault": fault,
                    "client_gone": client_gone})
        self.server.log.write(rec)

    def refuse(self, req, status, message):
        kind = endpoint_kind(req.path)
        self.send(status, encode(error_body(kind, status, message)))
        return status, None

    def answer(self, n, req, rec):
        kind = endpoint_kind(req.path)
        if kind is None:
            return self.answer_other(n, req, rec)
        want = "GET" if kind == "models" else "POST"
        if req.method not in (want, "HEAD" if want == "GET" else want):
            return self.refuse(req, 405, f"fake_llm: {req.path} takes "
                               f"{want}")
        if kind != "models" and not isinstance(req.json, dict):
            return self.refuse(req, 400, "fake_llm: the request body is "
                               "not a JSON object")
        chosen = self.server.script.select(req)
        if chosen is None:
            # 418: a 4xx the client will not retry, and plainly the script's.
            return self.refuse(req, 418, "fake_llm: no rule matches this "
                               "request and the script has no default")
        return self.respond(n, req, rec, kind, chosen)

    def answer_other(self, n, req, rec):
        """Any other path (OSV's /v1/query...): only a match_path rule."""
        chosen = self.server.script.select(req, other_path=True)
        if chosen is None:
            return self.refuse(req, 404, f"fake_llm: no endpoint at "
                               f"{req.path}")
        response = chosen[2]
        status = response.get("status", 200)
        if ("body" not in response and 200 <= status < 300 and
                response.get("fault") in (None, "truncate",
                                          "reject_json_mode")):
            rec["rule"], rec["step"] = chosen[0], chosen[1]
            return self.refuse(req, 418, f"fake_llm: rules[{chosen[0]}] "
                               f"answers {req.path}, which is no LLM "
                               f"endpoint, without a body")
        return self.respond(n, req, rec, None, chosen)

    def respond(self, n, req, rec, kind, chosen):
        rec["rule"], rec["step"], response = chosen
        fault = response.get("fault")
        rec["fault"] = fault
        latency = response.get("latency_ms", 0)
        if latency:
            time.sleep(latency / 1000.0)
        if fault == "hang":
            self.wait_for_client_to_leave()
            raise ClientGone()
        if fault in ("reset", "close"):
            self.drop(fault == "reset")
            return None, fault
        status, body, ctype = self.build(n, req, kind, response)
        headers = response.get("headers")
        if fault == "drip":
            rec["status"] = status
            self.drip(status, ctype, headers, response.get("drip_ms", 1000))
        if fault == "truncate":
            self.send(status, body, ctype, headers, length=len(body) + 100)
            self.close_connection = True
        else:
            self.send(status, body, ctype, headers)
        return status, fault

    def build(self, n, req, kind, response):
        """(status, body bytes, content type) of an answer that is sent."""
        fault = response.get("fault")
        status = response.get("status", 200)
        if fault == "reject_json_mode" and req.response_format:
            err = {"error": {"message": JSON_MODE_MESSAGE,
                             "type": "invalid_request_error",
                             "param": "response_format", "code": None}}
            return 400, encode(err), "application/json"
        if fault == "non_json":
            return (status, b"<!DOCTYPE html>\n<html><head><title>Gateway"
                    b"</title></head><body><h1>Welcome</h1><p>Please sign"
                    b" in.</p></body></html>\n", "text/html; charset=utf-8")
        if fault == "wrong_shape":
            return status, encode({"id": f"fake-{n}", "object": "unknown",
                                   "result": "no choices or content here"}), \
                "application/json"
        ctype = response.get("content_type", "application/json")
        if "body" in response:
            body = response["body"]
            if not isinstance(body, str):
                body = json.dumps(body)
            return status, body.encode("utf-8"), ctype
        if not 200 <= status < 300:
            message = response.get("error", f"fake error {status}")
            return status, encode(error_body(kind, status, message)), ctype
        if kind == "models":
            models = response.get("models") or self.server.script.models
            return status, encode(model_list(models)), ctype
        text = answer_text(response)
        shape = anthropic_answer if kind == "anthropic" else openai_answer
        return status, encode(shape(n, req, text, response)), ctype


class BadRequest(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.message = message


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # 5 by default: bursts of connects would stall

    def handle_error(self, request, client_address):
        # A client that goes away mid-answer is normal here; say anything
        # else on stderr, never on stdout.
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, BrokenPipeError, TimeoutError)):
            return
        import traceback
        traceback.print_exc(file=sys.stderr)


def write_port_file(path, port):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="ascii") as f:
        f.write(f"{port}\n")
    os.rename(tmp, path)  # readers never see half a number


def serve(args):
    try:
        script = Script(args.script)
    except (OSError, ScriptError) as e:
        print(f"fake_llm: {e}", file=sys.stderr)
        return 2
    server = Server(("127.0.0.1", args.port), Handler)
    server.script = script
    server.log = Log(args.log)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    if args.port_file:
        write_port_file(args.port_file, server.server_address[1])
    try:
        server.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(description="A scripted fake LLM server.")
    p.add_argument("--script", help="the JSON script")
    p.add_argument("--log", help="JSON lines log of every request")
    p.add_argument("--port", type=int, default=0, help="0: any free port")
    p.add_argument("--port-file", help="written with the port once listening")
    p.add_argument("--max-concurrency", metavar="LOG",
                   help="print the most requests handled at once in LOG")
    p.add_argument("--requests", metavar="LOG",
                   help="print LOG's requests, one merged JSON line each")
    args = p.parse_args(argv)
    if args.max_concurrency:
        print(max_concurrency(read_log(args.max_concurrency)))
        return 0
    if args.requests:
        for rec in read_log(args.requests):
            print(json.dumps(rec, separators=(",", ":")))
        return 0
    if not args.script or not args.log:
        p.error("--script and --log are required to serve")
    return serve(args)


if __name__ == "__main__":
    sys.exit(main())
