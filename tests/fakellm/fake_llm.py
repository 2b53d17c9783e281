#!/usr/bin/env python3
"""A scripted stand-in for an LLM provider, for revline's tests.

It speaks real HTTP on 127.0.0.1 (OpenAI-compatible chat completions,
Anthropic messages, a model list, and any other path a rule names with a
raw body, such as OSV's /v1/query), answers from a JSON script with latency
and faults, and logs every request as JSON lines. Scripts can opt in to
the providers' current behaviour: reasoning models' refusals, SSE
streaming, structured output (forced tools), tool calls in conversations
that follow the results sent back, servers that refuse tools, prompt
caching with its usage counts and prefill latency. Standard library only.
See README.md beside this file for the script format.

    fake_llm.py --script SCRIPT.json --log LOG.jsonl [--port 0] [--port-file F]
    fake_llm.py --max-concurrency LOG.jsonl
    fake_llm.py --requests LOG.jsonl
"""

import argparse
import fnmatch
import hashlib
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
                 "usage", "models", "drip_ms", "chunk_chars", "chunk_ms",
                 "reasoning_tokens", "tool_calls", "ignore_tool_choice",
                 "results"}
# A drip promises this much and never gets there.
DRIP_LENGTH = 1 << 30
RULE_KEYS = RESPONSE_KEYS | {"match", "match_header", "match_path", "times",
                             "then", "turns", "final", "match_tool_result",
                             "comment"}
STEP_KEYS = RESPONSE_KEYS | {"times", "comment"}
# An entry of "results": the result of each query of a batch it matches.
RESULT_KEYS = {"match", "result", "comment"}
MAX_BODY = 64 << 20
JSON_MODE_MESSAGE = ("response_format json_object is not supported by this "
                     "model")
ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error",
               403: "permission_error", 404: "not_found_error",
               413: "request_too_large", 429: "rate_limit_error",
               500: "api_error", 503: "overloaded_error",
               529: "overloaded_error"}
STOP_REASONS = {"stop": "end_turn", "length": "max_tokens"}
SCRIPT_KEYS = {"rules", "default", "models", "comment", "model_rules",
               "stream", "structured", "cache", "cache_fill",
               "cache_min_tokens", "cache_step_tokens",
               "prefill_ms_per_1k_tokens"}
MODEL_RULE_KEYS = {"models", "reasoning", "refuse", "tools_refusal", "comment"}
# What a model rule can refuse, in the order the checks are made.
REFUSALS = ("temperature", "max_tokens", "reasoning_effort", "tools",
            "json_schema", "json_object")
# Whose words refuse tools: OpenAI's (a model without function calling),
# Ollama's (a model whose template has no tools), vLLM's (started without
# --enable-auto-tool-choice).
TOOLS_REFUSALS = ("openai", "ollama", "vllm")
TOOL_CALL_KEYS = {"name", "arguments", "id"}
CACHE_MODES = ("openai", "anthropic")
CACHE_FILLS = ("complete", "first_byte")
# Anthropic looks this many blocks back from a breakpoint for an entry.
ANTHROPIC_LOOKBACK = 20


class ScriptError(Exception):
    pass


# --- the script -------------------------------------------------------------

def check_results(what, results):
    """"results": a list of {"match", "result"}, each match a substring or
    a list of them (none: every query)."""
    if results is None:
        return
    if not isinstance(results, list):
        raise ScriptError(f"{what}: results must be a list")
    for i, entry in enumerate(results):
        check_keys(f"{what}.results[{i}]", entry, RESULT_KEYS)
        match = entry.get("match")
        if isinstance(match, str):
            match = [match]
        if match is not None and (not isinstance(match, list) or not all(
                isinstance(m, str) for m in match)):
            raise ScriptError(f"{what}.results[{i}]: match must be a "
                              f"string or a list of strings")
        if "result" not in entry:
            raise ScriptError(f"{what}.results[{i}]: no result")


def batch_results(req, results):
    """A batch API's answer (OSV's /v1/querybatch): one result per query of
    the request's "queries", in their order, each the result of the first
    entry whose match is in the query's compact JSON text, else {}."""
    queries = req.json.get("queries") if isinstance(req.json, dict) else None
    out = []
    for query in queries if isinstance(queries, list) else []:
        text = json.dumps(query, separators=(",", ":"), ensure_ascii=False)
        found = {}
        for entry in results:
            match = entry.get("match")
            match = [match] if isinstance(match, str) else match or []
            if all(m in text for m in match):
                found = entry["result"]
                break
        out.append(found)
    return {"results": out}


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
    check_results(what, spec.get("results"))
    drip = spec.get("drip_ms")
    if drip is not None and (not isinstance(drip, (int, float)) or drip <= 0):
        raise ScriptError(f"{what}: drip_ms must be a positive number")
    times = spec.get("times")
    if times is not None and (not isinstance(times, int) or times < 1):
        raise ScriptError(f"{what}: times must be a positive integer")
    for key in ("chunk_chars", "reasoning_tokens"):
        value = spec.get(key)
        if value is not None and (not isinstance(value, int) or
                                  isinstance(value, bool) or value < 0 or
                                  (key == "chunk_chars" and value == 0)):
            raise ScriptError(f"{what}: {key} must be a "
                              f"{'positive' if key == 'chunk_chars' else 'non-negative'}"
                              f" integer")
    chunk_ms = spec.get("chunk_ms")
    if chunk_ms is not None and (not isinstance(chunk_ms, (int, float)) or
                                 isinstance(chunk_ms, bool) or chunk_ms < 0):
        raise ScriptError(f"{what}: chunk_ms must be a non-negative number")
    check_tool_calls(what, spec.get("tool_calls"))
    if not isinstance(spec.get("ignore_tool_choice", False), bool):
        raise ScriptError(f"{what}: ignore_tool_choice must be true or false")
    match = spec.get("match")
    if match is not None and not isinstance(match, str) and not (
            isinstance(match, list) and match and
            all(isinstance(m, str) for m in match)):
        raise ScriptError(f"{what}: match must be a string or a non-empty "
                          f"list of strings")


def check_tool_calls(what, calls):
    """tool_calls: [{"name", "arguments": object or raw text, "id"?}, ...]."""
    if calls is None:
        return
    if not isinstance(calls, list) or not calls:
        raise ScriptError(f"{what}: tool_calls must be a non-empty list")
    for i, call in enumerate(calls):
        where = f"{what}.tool_calls[{i}]"
        if not isinstance(call, dict):
            raise ScriptError(f"{where}: expected an object")
        unknown = sorted(set(call) - TOOL_CALL_KEYS)
        if unknown:
            raise ScriptError(f"{where}: unknown key(s) {', '.join(unknown)}")
        if not isinstance(call.get("name"), str):
            raise ScriptError(f"{where}: name must be a string")
        if not isinstance(call.get("arguments", {}), (dict, str)):
            raise ScriptError(f"{where}: arguments must be an object, or "
                              f"the raw text the model writes")
        if not isinstance(call.get("id", ""), str):
            raise ScriptError(f"{where}: id must be a string")


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
        self.match_tool_result = spec.get("match_tool_result")
        if (self.match_tool_result is not None and
                not isinstance(self.match_tool_result, str)):
            raise ScriptError(f"{what}: match_tool_result must be a string")
        base = {k: v for k, v in spec.items() if k in RESPONSE_KEYS}
        self.turns = self.load_turns(what, spec, base, base_dir)
        self.final = None
        if spec.get("final") is not None:
            check_keys(f"{what}.final", spec["final"], STEP_KEYS)
            self.final = load_answer_file(dict(base, **spec["final"]),
                                          base_dir)
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

    @staticmethod
    def load_turns(what, spec, base, base_dir):
        """A conversation: turns[k] answers the request carrying k rounds
        of tool results (the last answers any later one)."""
        turns = spec.get("turns")
        if turns is None:
            return None
        if "then" in spec:
            raise ScriptError(f"{what}: turns and then do not go together")
        if not isinstance(turns, list) or not turns:
            raise ScriptError(f"{what}: turns must be a non-empty list")
        out = []
        for i, step in enumerate(turns):
            check_keys(f"{what}.turns[{i}]", step, STEP_KEYS - {"times"})
            out.append(load_answer_file(dict(base, **step), base_dir))
        return out

    def used_up(self):
        if self.times is not None and self.used >= self.times:
            return True
        return self.turns is None and self.step >= len(self.steps)

    def matches(self, req):
        if self.match is not None and not all(m in req.text
                                              for m in self.match):
            return False
        if (self.match_tool_result is not None and
                not any(self.match_tool_result in r
                        for r in req.tool_results)):
            return False
        if self.match_path is not None and self.match_path not in req.path:
            return False
        for name, want in self.match_header.items():
            value = req.headers.get(name)
            if value is None or want not in value:
                return False
        return True

    def take(self, req=None):
        """The response for this request; the caller holds the lock."""
        if self.turns is not None:
            self.used += 1
            if self.final is not None and req.tools_forbidden:
                return "final", self.final
            index = min(req.tool_rounds, len(self.turns) - 1)
            return index, self.turns[index]
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
        check_keys("script", spec, SCRIPT_KEYS)
        base_dir = os.path.dirname(os.path.abspath(path))
        self.rules = [Rule(i, r, base_dir)
                      for i, r in enumerate(spec.get("rules") or [])]
        default = spec.get("default")
        self.default = Rule(-1, default, base_dir) if default else None
        self.models = spec.get("models") or ["fake-model"]
        self.model_rules = [ModelRule(i, r) for i, r in
                            enumerate(spec.get("model_rules") or [])]
        for key in ("stream", "structured"):
            if not isinstance(spec.get(key, False), bool):
                raise ScriptError(f"script: {key} must be true or false")
        self.stream = spec.get("stream", False)
        self.structured = spec.get("structured", False)
        self.cache = PromptCache.from_script(spec)
        prefill = spec.get("prefill_ms_per_1k_tokens", 0)
        if (not isinstance(prefill, (int, float)) or isinstance(prefill, bool)
                or prefill < 0):
            raise ScriptError("script: prefill_ms_per_1k_tokens must be a "
                              "non-negative number")
        self.prefill_ms_per_1k = prefill
        self.lock = threading.Lock()

    def refusals(self, model):
        """What the model rules matching this model refuse (a set), and
        whose words refuse tools."""
        refused, words = set(), "openai"
        for rule in self.model_rules:
            if rule.matches(model):
                refused |= rule.refuse
                if "tools" in rule.refuse:
                    words = rule.tools_refusal
        return refused, words

    def reasoning(self, model):
        return any(r.reasoning and r.matches(model) for r in self.model_rules)

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
                    return (rule.index,) + rule.take(req)
            if (not other_path and self.default and
                    not self.default.used_up()):
                return (-1,) + self.default.take(req)
        return None


class ModelRule:
    """How the real API treats models whose name matches a pattern."""

    def __init__(self, index, spec):
        what = f"model_rules[{index}]"
        check_keys(what, spec, MODEL_RULE_KEYS)
        models = spec.get("models")
        if isinstance(models, str):
            models = [models]
        if (not isinstance(models, list) or not models or
                not all(isinstance(m, str) for m in models)):
            raise ScriptError(f"{what}: models must be a pattern or a "
                              f"non-empty list of patterns")
        self.patterns = models
        self.reasoning = spec.get("reasoning", False)
        if not isinstance(self.reasoning, bool):
            raise ScriptError(f"{what}: reasoning must be true or false")
        refuse = spec.get("refuse", [])
        if (not isinstance(refuse, list) or
                not all(r in REFUSALS for r in refuse)):
            raise ScriptError(f"{what}: refuse must be a list of "
                              f"{', '.join(REFUSALS)}")
        self.refuse = set(refuse)
        self.tools_refusal = spec.get("tools_refusal", "openai")
        if self.tools_refusal not in TOOLS_REFUSALS:
            raise ScriptError(f"{what}: tools_refusal must be one of "
                              f"{', '.join(TOOLS_REFUSALS)}")
        if self.reasoning:
            # OpenAI's reasoning models (o-series, gpt-5 family).
            self.refuse |= {"temperature", "max_tokens"}

    def matches(self, model):
        return any(fnmatch.fnmatchcase(model or "", p) for p in self.patterns)


def openai_refusal(param, code, message):
    return {"error": {"message": message, "type": "invalid_request_error",
                      "param": param, "code": code}}


def tools_refusal(req, words):
    """A server that takes no tools, in its own words and shape."""
    if words == "ollama":
        return {"error": {"message": f"registry.ollama.ai/library/"
                                     f"{req.model} does not support tools",
                          "type": "api_error", "param": None, "code": None}}
    if words == "vllm":
        return {"object": "error",
                "message": '"auto" tool choice requires '
                           '--enable-auto-tool-choice and --tool-call-parser'
                           ' to be set',
                "type": "BadRequestError", "param": None, "code": 400}
    return openai_refusal(
        "tools", None, "tools is not supported in this model. For a list of "
        "supported models, refer to https://platform.openai.com/docs/guides/"
        "function-calling#models-supporting-function-calling.")


def refusal(req, refused):
    """(what, error body) when a model rule refuses this request, else None.

    The wording and shapes are the real servers': OpenAI for the reasoning
    models' parameters and for tools (or Ollama's, or vLLM's), an older
    llama.cpp server for json_schema, LM Studio for json_object.
    """
    refused, words = refused
    body = req.json
    temperature = body.get("temperature")
    if ("temperature" in refused and isinstance(temperature, (int, float))
            and not isinstance(temperature, bool) and temperature != 1):
        shown = (int(temperature) if float(temperature).is_integer()
                 else temperature)
        return "temperature", openai_refusal(
            "temperature", "unsupported_value",
            f"Unsupported value: 'temperature' does not support {shown} "
            f"with this model. Only the default (1) value is supported.")
    if "max_tokens" in refused and body.get("max_tokens") is not None:
        return "max_tokens", openai_refusal(
            "max_tokens", "unsupported_parameter",
            "Unsupported parameter: 'max_tokens' is not supported with this "
            "model. Use 'max_completion_tokens' instead.")
    if ("reasoning_effort" in refused and
            body.get("reasoning_effort") is not None):
        return "reasoning_effort", openai_refusal(
            "reasoning_effort", "unsupported_parameter",
            "Unsupported parameter: 'reasoning_effort' is not supported "
            "with this model.")
    if "tools" in refused and body.get("tools"):
        return "tools", tools_refusal(req, words)
    kind = req.response_format_type
    if kind == "json_schema" and "json_schema" in refused:
        return "json_schema", {"error": {
            "code": 400, "type": "invalid_request_error",
            "message": 'response_format type must be one of "text" or '
                       '"json_object", but got: json_schema'}}
    if kind == "json_object" and "json_object" in refused:
        return "json_object", {
            "error": "'response_format.type' must be 'json_schema' or 'text'"}
    return None


# --- prompt caching ---------------------------------------------------------

class PromptCache:
    """The providers' prompt caches, by their published rules.

    Prompts are sequences of pieces (role, identity, chars): a text block
    counts its characters, anything else (an image, a tool result that is
    not text) only its identity. Tokens are ceil(chars / 4) of a prefix, as
    for the usage counts. Entries are partitioned by model, by what
    precedes the messages on the real APIs (tools, response_format) and, for
    OpenAI, by prompt_cache_key. An entry exists once a request carrying it
    has been processed (cache_fill: its answer complete, or its first byte
    sent), never while it is still being read: requests sent at the same
    instant all miss.
    """

    def __init__(self, mode, min_tokens, step_tokens, fill):
        self.mode = mode
        self.min_tokens = min_tokens
        self.step_tokens = step_tokens
        self.fill = fill
        self.lock = threading.Lock()
        self.prompts = {}   # openai: partition -> [pieces, ...]
        self.prefixes = set()  # anthropic: (partition, digest of a prefix)

    @classmethod
    def from_script(cls, spec):
        mode = spec.get("cache")
        extra = [k for k in ("cache_fill", "cache_min_tokens",
                             "cache_step_tokens") if k in spec]
        if mode is None:
            if extra:
                raise ScriptError(f"script: {extra[0]} without cache")
            return None
        if mode not in CACHE_MODES:
            raise ScriptError(f"script: cache must be one of "
                              f"{', '.join(CACHE_MODES)}")
        fill = spec.get("cache_fill", "complete")
        if fill not in CACHE_FILLS:
            raise ScriptError(f"script: cache_fill must be one of "
                              f"{', '.join(CACHE_FILLS)}")
        numbers = {}
        for key, default in (("cache_min_tokens", 1024),
                             ("cache_step_tokens", 128)):
            value = spec.get(key, default)
            if (not isinstance(value, int) or isinstance(value, bool) or
                    value < 1):
                raise ScriptError(f"script: {key} must be a positive "
                                  f"integer")
            numbers[key] = value
        if mode == "anthropic" and "cache_step_tokens" in spec:
            raise ScriptError("script: cache_step_tokens is OpenAI's rule; "
                              "Anthropic caches whole breakpoint prefixes")
        return cls(mode, numbers["cache_min_tokens"],
                   numbers["cache_step_tokens"], fill)

    def lookup(self, req, total_tokens):
        """(usage counts, fill) for a request; call fill() to store it."""
        if self.mode == "openai":
            return self.lookup_openai(req, total_tokens)
        return self.lookup_anthropic(req, total_tokens)

    def lookup_openai(self, req, total):
        pieces, _ = prompt_pieces(req.json)
        part = partition(req, ("tools", "tool_choice", "response_format"),
                         req.json.get("prompt_cache_key"))
        with self.lock:
            best = max((common_chars(p, pieces) for p in
                        self.prompts.get(part, ())), default=0)
        hit = min(best // 4, total)
        cached = 0
        if hit >= self.min_tokens:
            cached = hit - (hit - self.min_tokens) % self.step_tokens

        def fill():
            if total < self.min_tokens:
                return
            with self.lock:
                stored = self.prompts.setdefault(part, [])
                if pieces not in stored:
                    stored.append(pieces)
        return {"cached_tokens": cached, "uncached": total - cached}, fill

    def lookup_anthropic(self, req, total):
        pieces, breakpoints = prompt_pieces(req.json)
        part = partition(req, ("tools", "tool_choice"), None)
        digests = prefix_digests(part, pieces)
        cum = [0]
        for piece in pieces:
            cum.append(cum[-1] + piece[2])

        def tokens_upto(k):
            return (cum[k] + 3) // 4

        # A breakpoint after block i closes the prefix of i + 1 blocks.
        ends = sorted({i + 1 for i in breakpoints
                       if tokens_upto(i + 1) >= self.min_tokens})
        read_end = 0
        with self.lock:
            for end in ends:
                for k in range(end, max(end - ANTHROPIC_LOOKBACK, 0), -1):
                    if (tokens_upto(k) >= self.min_tokens and
                            digests[k] in self.prefixes):
                        read_end = max(read_end, k)
                        break
        read = tokens_upto(read_end)
        creation = tokens_upto(ends[-1]) - read if ends else 0
        creation = max(creation, 0)
        counts = {"cache_read_input_tokens": read,
                  "cache_creation_input_tokens": creation,
                  "input_tokens": max(total - read - creation, 0)}
        counts["uncached"] = counts["input_tokens"] + creation

        def fill():
            with self.lock:
                self.prefixes.update(digests[end] for end in ends)
        return counts, fill


def piece_of(role, block):
    if isinstance(block, str):
        return (role, block, len(block))
    if isinstance(block, dict):
        text = block.get("text")
        if isinstance(text, str):
            return (role, text, len(text))
        same = {k: v for k, v in block.items() if k != "cache_control"}
        return (role, json.dumps(same, sort_keys=True), block_chars(block))
    return (role, json.dumps(block, sort_keys=True), 0)


def prompt_pieces(body):
    """The prompt as pieces in order, and the indices of breakpoints.

    A breakpoint is a block with cache_control (Anthropic's rule; OpenAI
    ignores them). A string content is one piece and carries none.
    """
    pieces, breakpoints = [], []

    def add(role, content):
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("cache_control"):
                    breakpoints.append(len(pieces))
                pieces.append(piece_of(role, block))
        elif content is not None:
            pieces.append(piece_of(role, content))

    add("system", body.get("system"))
    for msg in body.get("messages") or []:
        if isinstance(msg, dict):
            role = str(msg.get("role"))
            # A tool message's result answers one call: its id is its own.
            add(role if role != "tool" else
                f"tool:{msg.get('tool_call_id')}", msg.get("content"))
            if msg.get("tool_calls"):
                calls = msg["tool_calls"]
                pieces.append((role, json.dumps(calls, sort_keys=True),
                               calls_chars(calls)))
    return pieces, breakpoints


def partition(req, keys, cache_key):
    """What must be equal, besides the prefix, for a hit."""
    before = {k: strip_cache_control(req.json.get(k)) for k in keys
              if k in req.json}
    return (req.model, json.dumps(before, sort_keys=True),
            cache_key if isinstance(cache_key, str) else None)


def strip_cache_control(value):
    if isinstance(value, list):
        return [strip_cache_control(v) for v in value]
    if isinstance(value, dict):
        return {k: strip_cache_control(v) for k, v in value.items()
                if k != "cache_control"}
    return value


def prefix_digests(part, pieces):
    """digests[k]: the identity of the first k pieces in this partition."""
    h = hashlib.sha256(json.dumps(part).encode("utf-8"))
    digests = [h.hexdigest()]
    for role, ident, _ in pieces:
        h.update(json.dumps([role, ident]).encode("utf-8"))
        digests.append(h.hexdigest())
    return digests


def common_chars(stored, pieces):
    """Characters of the longest common prefix of two piece lists."""
    total = 0
    for a, b in zip(stored, pieces):
        if a == b:
            total += a[2]
            continue
        if a[0] == b[0] and a[2] and b[2]:
            total += len(os.path.commonprefix([a[1], b[1]]))
        break
    return total


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
        rf = body.get("response_format")
        self.response_format_type = (rf.get("type") if isinstance(rf, dict)
                                     else None)
        self.stream = body.get("stream") is True
        options = body.get("stream_options")
        self.include_usage = (isinstance(options, dict) and
                              options.get("include_usage") is True)
        self.prompt_chars = prompt_chars(body) or len(raw)
        self.forced_tool = forced_tool(body)
        self.structured = structured_request(rf, self.forced_tool)
        tools = body.get("tools") if isinstance(body.get("tools"), list) else []
        self.tools = [tool_name(t) for t in tools] or None
        self.tool_choice = body.get("tool_choice")
        self.tools_forbidden = tools_forbidden(self.tool_choice)
        self.tool_rounds, self.tool_results = tool_turns(body)


def tool_name(tool):
    """A tool's name in either shape (OpenAI's under function)."""
    if not isinstance(tool, dict):
        return None
    fn = tool.get("function")
    return fn.get("name") if isinstance(fn, dict) else tool.get("name")


def tools_forbidden(choice):
    """Whether tool_choice leaves the model no tool of its own choosing:
    OpenAI's "none", Anthropic's none or a named (forced) tool."""
    if choice == "none":
        return True
    return isinstance(choice, dict) and choice.get("type") in ("none", "tool")


def text_of(content):
    """The text of a message's or a tool result's content."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content
                       if isinstance(p, dict) and
                       isinstance(p.get("text"), str))
    return ""


def tool_turns(body):
    """(rounds of tool calls answered, the results' texts) of a request:
    OpenAI's assistant messages with tool_calls and tool messages,
    Anthropic's user messages of tool_result blocks."""
    rounds, results = 0, []
    for msg in body.get("messages") or []:
        if not isinstance(msg, dict):
            continue
        if msg.get("role") == "assistant" and msg.get("tool_calls"):
            rounds += 1
        if msg.get("role") == "tool":
            results.append(text_of(msg.get("content")))
        content = msg.get("content")
        blocks = [b for b in content if isinstance(b, dict) and
                  b.get("type") == "tool_result"] \
            if msg.get("role") == "user" and isinstance(content, list) else []
        if blocks:
            rounds += 1
            results += [text_of(b.get("content")) for b in blocks]
    return rounds, results


def forced_tool(body):
    """The tool an Anthropic request forces (tool_choice), or None."""
    choice = body.get("tool_choice")
    tools = [t for t in body.get("tools") or [] if isinstance(t, dict)]
    if not isinstance(choice, dict):
        return None
    if choice.get("type") == "tool":
        return next((t for t in tools if t.get("name") == choice.get("name")),
                    None)
    if choice.get("type") == "any" and len(tools) == 1:
        return tools[0]
    return None


def structured_request(rf, tool):
    """What the request asked for its answer's form, for the log."""
    if isinstance(rf, dict) and rf.get("type") == "json_schema":
        js = rf.get("json_schema") if isinstance(rf.get("json_schema"),
                                                 dict) else {}
        return {"kind": "json_schema", "name": js.get("name"),
                "strict": js.get("strict"), "schema": js.get("schema")}
    if isinstance(rf, dict) and rf.get("type"):
        return {"kind": rf.get("type")}
    if tool is not None:
        return {"kind": "tool", "name": tool.get("name"),
                "input_schema": tool.get("input_schema")}
    return None


def block_chars(block):
    """A content block's characters: its text, a tool result's text, a
    tool call's input as JSON."""
    if not isinstance(block, dict):
        return 0
    if block.get("type") == "tool_result":
        return len(text_of(block.get("content")))
    if block.get("type") == "tool_use":
        return len(json.dumps(block.get("input")))
    text = block.get("text")
    return len(text) if isinstance(text, str) else 0


def content_chars(content):
    if isinstance(content, str):
        return len(content)
    if isinstance(content, list):
        return sum(block_chars(p) for p in content)
    return 0


def calls_chars(calls):
    """OpenAI's tool_calls: the characters of their arguments."""
    return sum(len(c["function"].get("arguments") or "")
               for c in calls if isinstance(c, dict) and
               isinstance(c.get("function"), dict) and
               isinstance(c["function"].get("arguments", ""), str)) \
        if isinstance(calls, list) else 0


def prompt_chars(body):
    total = content_chars(body.get("system"))
    for msg in body.get("messages") or []:
        if isinstance(msg, dict):
            total += content_chars(msg.get("content"))
            total += calls_chars(msg.get("tool_calls"))
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


def json_object_of(answer):
    """The answer as a JSON object (a forced tool's input), else None."""
    if isinstance(answer, str):
        try:
            answer = json.loads(answer)
        except ValueError:
            return None
    return answer if isinstance(answer, dict) else None


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


def scripted_calls(n, kind, calls):
    """The script's calls with their ids and the arguments' text, or None
    when an Anthropic call's arguments are not an object (which the real
    API, answering whole, never gives). Raw text is kept as the model
    wrote it: OpenAI's arguments are a string, streamed in pieces."""
    out = []
    prefix = "toolu_fake" if kind == "anthropic" else "call_fake"
    for i, call in enumerate(calls):
        args = call.get("arguments", {})
        text = args if isinstance(args, str) else json.dumps(args)
        out.append({"id": call.get("id", f"{prefix}_{n}_{i}"),
                    "name": call["name"], "arguments": text,
                    "input": args if isinstance(args, dict) else
                    json_object_of(args)})
    return out


def openai_answer(n, req, text, response, usage=None, calls=None):
    if usage is None:
        usage = usage_of(req, text, response)
        usage["total_tokens"] = (usage["prompt_tokens"] +
                                 usage["completion_tokens"])
    message = {"role": "assistant", "content": text}
    reason = response.get("finish_reason", "stop")
    if calls:
        # The content is null unless the model wrote text beside its calls.
        message = {"role": "assistant", "content": text or None,
                   "tool_calls": [{"id": c["id"], "type": "function",
                                   "function": {"name": c["name"],
                                                "arguments": c["arguments"]}}
                                  for c in calls]}
        reason = "tool_calls" if reason == "stop" else reason
    return {"id": f"chatcmpl-fake-{n}", "object": "chat.completion",
            "created": int(time.time()), "model": req.model or "fake-model",
            "choices": [{"index": 0, "message": message,
                         "finish_reason": reason}],
            "usage": usage}


def anthropic_answer(n, req, text, response, usage=None, tool_input=None,
                     calls=None):
    if usage is None:
        plain = usage_of(req, text, response)
        usage = {"input_tokens": plain["prompt_tokens"],
                 "output_tokens": plain["completion_tokens"]}
    reason = response.get("finish_reason", "stop")
    content = [{"type": "text", "text": text}]
    stop = STOP_REASONS.get(reason, reason)
    if tool_input is not None:
        content = [{"type": "tool_use", "id": f"toolu_fake_{n}",
                    "name": req.forced_tool.get("name"),
                    "input": tool_input}]
        stop = "tool_use" if reason == "stop" else stop
    if calls:
        content = [{"type": "text", "text": text}] if text else []
        content += [{"type": "tool_use", "id": c["id"], "name": c["name"],
                     "input": c["input"]} for c in calls]
        stop = "tool_use" if reason == "stop" else stop
    return {"id": f"msg_fake_{n}", "type": "message", "role": "assistant",
            "model": req.model or "fake-model",
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": usage}


def full_usage(script, req, kind, text, response, counts):
    """The usage object as the real API reports it, with the details.

    counts: the prompt cache's, or None. Plain answers (no cache, no
    reasoning) keep the original shape.
    """
    reasoning = response.get("reasoning_tokens")
    base = usage_of(req, text, response)
    if reasoning:
        base["completion_tokens"] += reasoning
    detailed = (counts is not None or reasoning is not None or
                (kind == "openai" and script.reasoning(req.model)))
    if kind == "anthropic":
        usage = {"input_tokens": base["prompt_tokens"]}
        if counts is not None:
            creation = counts["cache_creation_input_tokens"]
            usage = {"input_tokens": counts["input_tokens"],
                     "cache_creation_input_tokens": creation,
                     "cache_read_input_tokens":
                         counts["cache_read_input_tokens"],
                     "cache_creation": {"ephemeral_5m_input_tokens": creation,
                                        "ephemeral_1h_input_tokens": 0}}
        usage["output_tokens"] = base["completion_tokens"]
        if counts is not None:
            usage["service_tier"] = "standard"
        # usage_of mapped the OpenAI names; the others apply as they are.
        return override(usage, response, skip=OPENAI_USAGE_NAMES)
    usage = dict(base)
    usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    if detailed:
        usage["prompt_tokens_details"] = {
            "cached_tokens": counts["cached_tokens"] if counts else 0,
            "audio_tokens": 0}
        usage["completion_tokens_details"] = {
            "reasoning_tokens": reasoning or 0, "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0}
        usage = override(usage, response)
    return usage


OPENAI_USAGE_NAMES = ("prompt_tokens", "completion_tokens", "total_tokens")


def override(usage, response, skip=()):
    """The script's usage wins, nested objects key by key."""
    for key, value in (response.get("usage") or {}).items():
        if key in skip:
            continue
        if isinstance(value, dict) and isinstance(usage.get(key), dict):
            usage[key] = dict(usage[key], **value)
        else:
            usage[key] = value
    return usage


def sse(event, data):
    """One server-sent event: Anthropic names them, OpenAI does not."""
    text = json.dumps(data) if not isinstance(data, str) else data
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {text}\n\n".encode("utf-8")


def pieces_of(text, size):
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]


def openai_call_events(chunk, calls, size):
    """A streamed call: its index, id, name and empty arguments first, then
    the arguments' text in pieces, each naming only its index."""
    events = []
    for i, c in enumerate(calls):
        events.append((chunk({"tool_calls": [{
            "index": i, "id": c["id"], "type": "function",
            "function": {"name": c["name"], "arguments": ""}}]}), False))
        events += [(chunk({"tool_calls": [{"index": i, "function": {
            "arguments": p}}]}), True) for p in pieces_of(c["arguments"], size)
            if p]
    return events


def openai_events(n, req, text, response, usage, size, calls=None):
    """(event bytes, is a content delta) of a streamed chat completion."""
    base = {"id": f"chatcmpl-fake-{n}", "object": "chat.completion.chunk",
            "created": int(time.time()), "model": req.model or "fake-model"}

    def chunk(delta, finish=None):
        c = dict(base, choices=[{"index": 0, "delta": delta,
                                 "finish_reason": finish}])
        if req.include_usage:
            c["usage"] = None
        return sse(None, c)
    reason = response.get("finish_reason", "stop")
    events = [(chunk({"role": "assistant",
                      "content": None if calls and not text else ""}), False)]
    events += [(chunk({"content": p}), True) for p in pieces_of(text, size)
               if p]
    if calls:
        events += openai_call_events(chunk, calls, size)
        reason = "tool_calls" if reason == "stop" else reason
    events.append((chunk({}, reason), False))
    if req.include_usage:
        events.append((sse(None, dict(base, choices=[], usage=usage)), False))
    events.append((sse(None, "[DONE]"), False))
    return events


def anthropic_block_events(index, block, delta, field, body, size):
    """One content block streamed: its start, its deltas, its stop."""
    events = [(sse("content_block_start", {
        "type": "content_block_start", "index": index,
        "content_block": block}), False)]
    events += [(sse("content_block_delta", {
        "type": "content_block_delta", "index": index,
        "delta": {"type": delta, field: p}}), True)
        for p in pieces_of(body, size) if p]
    events.append((sse("content_block_stop", {"type": "content_block_stop",
                                              "index": index}), False))
    return events


def anthropic_call_events(text, calls, size):
    """The model's text (when any), then each tool_use block: its id and
    name with an empty input, then the input's JSON text in pieces."""
    events, index = [], 0
    if text:
        events += anthropic_block_events(0, {"type": "text", "text": ""},
                                         "text_delta", "text", text, size)
        index = 1
    for i, c in enumerate(calls):
        events += anthropic_block_events(
            index + i, {"type": "tool_use", "id": c["id"], "name": c["name"],
                        "input": {}},
            "input_json_delta", "partial_json", c["arguments"], size)
    return events


def anthropic_events(n, req, text, response, usage, size, tool_input,
                     calls=None):
    message = anthropic_answer(n, req, text, response, usage, tool_input,
                               calls)
    start = dict(message, content=[], stop_reason=None, stop_sequence=None,
                 usage=dict(usage, output_tokens=1))
    events = [(sse("message_start", {"type": "message_start",
                                     "message": start}), False)]
    if calls:
        events.append((sse("ping", {"type": "ping"}), False))
        events += anthropic_call_events(text, calls, size)
        events.append((sse("message_delta", {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"],
                      "stop_sequence": None},
            "usage": usage}), False))
        events.append((sse("message_stop", {"type": "message_stop"}), False))
        return events
    if tool_input is not None:
        block = dict(message["content"][0], input={})
        delta, field, body = "input_json_delta", "partial_json", \
            json.dumps(tool_input)
    else:
        block = {"type": "text", "text": ""}
        delta, field, body = "text_delta", "text", text
    events.append((sse("content_block_start", {
        "type": "content_block_start", "index": 0,
        "content_block": block}), False))
    events.append((sse("ping", {"type": "ping"}), False))
    events += [(sse("content_block_delta", {
        "type": "content_block_delta", "index": 0,
        "delta": {"type": delta, field: p}}), True)
        for p in pieces_of(body, size) if p]
    events.append((sse("content_block_stop", {"type": "content_block_stop",
                                              "index": 0}), False))
    events.append((sse("message_delta", {
        "type": "message_delta",
        "delta": {"stop_reason": message["stop_reason"],
                  "stop_sequence": None},
        "usage": usage}), False))
    events.append((sse("message_stop", {"type": "message_stop"}), False))
    return events


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
            "stream": req.stream, "structured": req.structured,
            "refused": None, "usage": None, "first_byte": None,
            "tools": req.tools, "tool_choice": req.tool_choice,
            "tool_rounds": req.tool_rounds,
            "tool_results": len(req.tool_results),
            "body_bytes": len(req.raw),
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
        script = self.server.script
        if kind == "openai" and script.model_rules:
            refused = refusal(req, script.refusals(req.model))
            if refused is not None:
                # The real API refuses before anything else: no rule used.
                rec["refused"] = refused[0]
                self.send(400, encode(refused[1]))
                return 400, None
        chosen = script.select(req)
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
        if ("body" not in response and "results" not in response and
                200 <= status < 300 and
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
        model_answer = (fault is None and kind in ("openai", "anthropic") and
                        "body" not in response and
                        200 <= response.get("status", 200) < 300)
        cache = self.server.script.cache
        looked_up = (None, None)
        if model_answer and cache is not None and cache.mode == kind:
            # The prompt is read now: an entry that a request still in
            # progress will fill is not there yet.
            looked_up = cache.lookup(req, tokens(req.prompt_chars))
        latency = response.get("latency_ms", 0)
        if latency:
            time.sleep(latency / 1000.0)
        if fault == "hang":
            self.wait_for_client_to_leave()
            raise ClientGone()
        if fault in ("reset", "close"):
            self.drop(fault == "reset")
            return None, fault
        if model_answer:
            return self.answer_llm(n, req, rec, kind, response, looked_up)
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

    def answer_llm(self, n, req, rec, kind, response, looked_up):
        """A model's answer: structured, cached, prefilled, maybe streamed."""
        script = self.server.script
        text = answer_text(response)
        tool_input = None
        calls = response.get("tool_calls")
        if calls and req.tools_forbidden and not response.get(
                "ignore_tool_choice"):
            # A real model may call nothing now; the script says what it answers.
            return self.refuse(req, 418, f"fake_llm: rules[{rec['rule']}] "
                               f"calls tools, and this request allows none "
                               f"(tool_choice {json.dumps(req.tool_choice)}):"
                               f" give the rule a final answer")
        if calls:
            calls = scripted_calls(n, kind, calls)
            if calls is None:
                return self.refuse(req, 418, f"fake_llm: rules[{rec['rule']}]"
                                   f" gives a tool call whose arguments are "
                                   f"not a JSON object, which Anthropic "
                                   f"answers whole never do")
            text = response.get("answer", "") if "answer" in response else ""
            if not isinstance(text, str):
                text = json.dumps(text)
        elif kind == "anthropic" and script.structured and req.forced_tool:
            tool_input = json_object_of(response.get("answer", ""))
            if tool_input is None:
                return self.refuse(req, 418, f"fake_llm: rules[{rec['rule']}]"
                                   f" answers a forced tool with something "
                                   f"that is not a JSON object")
            text = json.dumps(tool_input)
        counts, fill = looked_up
        usage = full_usage(script, req, kind, text + "".join(
            c["arguments"] for c in calls or []), response, counts)
        rec["usage"] = usage
        if script.prefill_ms_per_1k:
            uncached = (counts["uncached"] if counts else
                        tokens(req.prompt_chars))
            time.sleep(uncached * script.prefill_ms_per_1k / 1e6)

        def first_byte():
            rec["first_byte"] = time.monotonic()
            if fill and script.cache.fill == "first_byte":
                fill()

        def last_byte():
            # Before it goes out: a client that has the whole answer may
            # send its next request at once, and must find the entry.
            if fill and script.cache.fill == "complete":
                fill()
        headers = response.get("headers")
        if req.stream and script.stream:
            size = response.get("chunk_chars", 16)
            if kind == "anthropic":
                events = anthropic_events(n, req, text, response, usage, size,
                                          tool_input, calls)
            else:
                events = openai_events(n, req, text, response, usage, size,
                                       calls)
            self.stream_events(events, headers, response.get("chunk_ms", 0),
                               first_byte, last_byte)
        else:
            if kind == "anthropic":
                answer = anthropic_answer(n, req, text, response, usage,
                                          tool_input, calls)
            else:
                answer = openai_answer(n, req, text, response, usage, calls)
            first_byte()
            last_byte()
            self.send(response.get("status", 200), encode(answer),
                      response.get("content_type", "application/json"),
                      headers)
        return response.get("status", 200), None

    def stream_events(self, events, headers, chunk_ms, first_byte,
                      last_byte):
        """Server-sent events, one HTTP chunk each, chunk_ms before a delta."""
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream; "
                             "charset=utf-8")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Transfer-Encoding", "chunked")
            for name, value in (headers or {}).items():
                self.send_header(name, str(value))
            first_byte()
            self.end_headers()
            self.wfile.flush()
            for i, (data, is_delta) in enumerate(events):
                if is_delta and chunk_ms:
                    time.sleep(chunk_ms / 1000.0)
                if i == len(events) - 1:
                    last_byte()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except OSError:
            raise ClientGone() from None

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
        if "results" in response and "body" not in response:
            return status, encode(batch_results(req, response["results"])), \
                ctype
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
