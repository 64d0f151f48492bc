"""A small stand-in for a model server, for the probe's tests: it answers every wire, streamed
and unstreamed, with a deterministic turn made from the request (a call of the named or first
tool, arguments that match its schema, cut at a small token limit), and with a fault of the
public reports when its base URL says `/fault/<name>`. `toolcall serve` answers recorded bodies;
this one answers what is asked, which a probe's requests need.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from toolcall.harness import background

FAULTS = (
    "markup",  # the call left as markup in the text, no call (vllm #50512)
    "special_tokens",  # template tokens inside the name (vllm #32587)
    "drop_calls",  # the stream drops the calls, finish still says so (vllm #44326)
    "length_lie",  # a cut turn says it ended for calls (vllm #58228)
    "no_usage",  # usage left out though asked for
    "no_end",  # the wire's last event left out
    "drop_brace",  # the opening `{"` of the arguments dropped (vllm #34887)
    "index_zero",  # every call on index 0 (ollama #15457): chat only
    "buffered",  # the arguments sent whole, in one fragment: a note, not a fault
    "not_stream",  # a streamed request answered with one JSON document
    "stop_lie",  # the finish says stop (end_turn) with calls (litellm #21041)
    "text_unstreamed",  # the unstreamed answer loses the text the stream has (vllm #56263)
)


@dataclass
class Turn:
    text: str = ""
    reasoning: str = ""
    calls: list[tuple[str, str, Any]] = field(default_factory=list)  # id, name, arguments
    cut: bool = False


def value(schema: dict[str, Any]) -> Any:
    """A value matching `schema` (the keywords the scenarios use)."""
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type", "object")
    if kind == "object":
        props = schema.get("properties", {})
        keys = schema.get("required") or list(props)[:1]
        return {k: value(props[k]) for k in keys if k in props}
    if kind == "array":
        item = schema.get("items", {"type": "string"})
        count = schema.get("minItems", 1)
        if "enum" in item:
            return item["enum"][:count]
        return [value(item) if item.get("type") != "string" else f"v{n}" for n in range(count)]
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0) + 1)
        return int(low)
    if kind == "boolean":
        return True
    return "Lisbon"


def decide(wire: str, request: dict[str, Any]) -> tuple[Turn, int | None]:
    """The turn this 'model' gives, and the token limit asked."""
    tools, named, limit, answered, think = _read_request(wire, request)
    turn = Turn(text="I will check.", reasoning="Thinking it over." if think else "")
    if answered or not tools:
        turn.text = "It is 21 degrees and clear."
        return turn, limit
    name = named or next(iter(tools))
    count = 3 if "once per city" in json.dumps(request) else 1
    turn.calls = [(f"call_{n}", name, value(tools[name])) for n in range(count)]
    turn.cut = bool(limit and limit < 100)
    return turn, limit


def _read_request(wire: str, r: dict[str, Any]) -> tuple[dict[str, Any], Any, Any, bool, bool]:
    if wire == "gemini":
        decls = [f for t in r.get("tools", []) for f in t.get("functionDeclarations", [])]
        tools = {f["name"]: f.get("parameters", {}) for f in decls}
        config = r.get("toolConfig", {}).get("functionCallingConfig", {})
        named = (config.get("allowedFunctionNames") or [None])[0]
        gen = r.get("generationConfig", {})
        last = r["contents"][-1]["parts"][0]
        return (
            tools,
            named,
            gen.get("maxOutputTokens"),
            "functionResponse" in last,
            "thinkingConfig" in gen,
        )
    if wire == "anthropic":
        tools = {t["name"]: t["input_schema"] for t in r.get("tools", [])}
        choice = r.get("tool_choice", {})
        last = r["messages"][-1]["content"]
        answered = isinstance(last, list) and last[0].get("type") == "tool_result"
        limit = r["max_tokens"] if r["max_tokens"] != 4096 else None
        return tools, choice.get("name"), limit, answered, "thinking" in r
    if wire == "responses":
        tools = {t["name"]: t["parameters"] for t in r.get("tools", [])}
        choice = r.get("tool_choice")
        named = choice.get("name") if isinstance(choice, dict) else None
        answered = r["input"][-1].get("type") == "function_call_output"
        return tools, named, r.get("max_output_tokens"), answered, "reasoning" in r
    tools = {t["function"]["name"]: t["function"]["parameters"] for t in r.get("tools", [])}
    choice = r.get("tool_choice")
    named = choice["function"]["name"] if isinstance(choice, dict) else None
    limit = r.get("max_tokens") or (r.get("options") or {}).get("num_predict")
    answered = r["messages"][-1]["role"] == "tool"
    think = bool(r.get("reasoning_effort") or r.get("think") or r.get("enable_thinking"))
    return tools, named, limit, answered, think


def _arguments(turn: Turn, arguments: Any, fault: str) -> str:
    text = json.dumps(arguments)
    if turn.cut:
        text = text[:6]
    if fault == "drop_brace":
        text = text[2:]
    return text


def _pieces(text: str, fault: str) -> list[str]:
    if fault == "buffered":
        return [text]
    return [text[i : i + 5] for i in range(0, len(text), 5)] or [""]


def _name(name: str, fault: str) -> str:
    return name + "<|channel|>commentary" if fault == "special_tokens" else name


def _finish(turn: Turn, fault: str, said: dict[str, str]) -> str:
    """The wire's word: `said` maps stop, calls and length."""
    if turn.cut and fault != "length_lie":
        return said["length"]
    lie = fault in ("markup", "stop_lie")
    return said["calls"] if turn.calls and not lie else said["stop"]


def _markup(turn: Turn, fault: str) -> str:
    if fault != "markup" or not turn.calls:
        return turn.text
    _id, name, arguments = turn.calls[0]
    call = json.dumps({"name": name, "arguments": arguments})
    return f"{turn.text}<tool_call>{call}</tool_call>"


def _calls(turn: Turn, fault: str) -> list[tuple[str, str, Any]]:
    return [] if fault == "markup" else turn.calls


def sse(events: list[dict[str, Any]], *, named: bool, done: bool) -> bytes:
    out = []
    for e in events:
        head = f"event: {e['type']}\n" if named else ""
        out.append(f"{head}data: {json.dumps(e)}\n\n")
    return ("".join(out) + ("data: [DONE]\n\n" if done else "")).encode()


CHAT_SAID = {"stop": "stop", "calls": "tool_calls", "length": "length"}
USAGE: dict[str, Any] = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}


def chat(turn: Turn, fault: str, streamed: bool) -> bytes:
    calls = _calls(turn, fault)
    finish = _finish(turn, fault, CHAT_SAID)
    text = _markup(turn, fault)
    if not streamed:
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if turn.reasoning:
            message["reasoning_content"] = turn.reasoning
        if calls:
            message["tool_calls"] = [
                {
                    "id": i,
                    "type": "function",
                    "function": {"name": _name(n, fault), "arguments": _arguments(turn, a, fault)},
                }
                for i, n, a in calls
            ]
        choice = {"index": 0, "message": message, "finish_reason": finish}
        document: dict[str, Any] = {"id": "c1", "object": "chat.completion", "choices": [choice]}
        if fault != "no_usage":
            document["usage"] = USAGE
        return json.dumps(document).encode()
    chunks: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
    if turn.reasoning:
        chunks.append({"reasoning_content": turn.reasoning})
    chunks.append({"content": text})
    for n, (i, name, a) in enumerate([] if fault == "drop_calls" else calls):
        index = 0 if fault == "index_zero" else n
        head = {
            "index": index,
            "id": i,
            "type": "function",
            "function": {"name": _name(name, fault), "arguments": ""},
        }
        chunks.append({"tool_calls": [head]})
        for piece in _pieces(_arguments(turn, a, fault), fault):
            chunks.append({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    events: list[dict[str, Any]] = [
        {
            "id": "c1",
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": d, "finish_reason": None}],
        }
        for d in chunks
    ]
    events.append(
        {
            "id": "c1",
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
        }
    )
    if fault != "no_usage":
        events.append(
            {"id": "c1", "object": "chat.completion.chunk", "choices": [], "usage": USAGE}
        )
    return sse(events, named=False, done=fault != "no_end")


def anthropic(turn: Turn, fault: str, streamed: bool) -> bytes:
    calls = _calls(turn, fault)
    stop = _finish(turn, fault, {"stop": "end_turn", "calls": "tool_use", "length": "max_tokens"})
    usage = {"input_tokens": 10, "output_tokens": 5}
    blocks: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    if turn.reasoning:
        blocks.append(
            (
                {"type": "thinking", "thinking": ""},
                [
                    {"type": "thinking_delta", "thinking": turn.reasoning},
                    {"type": "signature_delta", "signature": "sig"},
                ],
            )
        )
    blocks.append(
        ({"type": "text", "text": ""}, [{"type": "text_delta", "text": _markup(turn, fault)}])
    )
    for i, name, a in [] if fault == "drop_calls" and streamed else calls:
        deltas = [
            {"type": "input_json_delta", "partial_json": p}
            for p in _pieces(_arguments(turn, a, fault), fault)
        ]
        start = {"type": "tool_use", "id": i, "name": _name(name, fault), "input": a}
        blocks.append(({**start, "input": {}} if streamed else start, deltas))
    if not streamed:
        content = []
        for start, deltas in blocks:
            if start["type"] == "text":
                content.append({"type": "text", "text": deltas[0]["text"]})
            elif start["type"] == "thinking":
                content.append({"type": "thinking", "thinking": turn.reasoning, "signature": "sig"})
            else:
                content.append({**start, "input": {} if turn.cut else start["input"]})
        document: dict[str, Any] = {
            "id": "m1",
            "type": "message",
            "role": "assistant",
            "content": content,
            "stop_reason": stop,
        }
        if fault != "no_usage":
            document["usage"] = usage
        return json.dumps(document).encode()
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": "m1",
                "type": "message",
                "role": "assistant",
                "content": [],
                "stop_reason": None,
                "usage": usage,
            },
        }
    ]
    for n, (start, deltas) in enumerate(blocks):
        events.append({"type": "content_block_start", "index": n, "content_block": start})
        events += [{"type": "content_block_delta", "index": n, "delta": d} for d in deltas]
        events.append({"type": "content_block_stop", "index": n})
    message_delta: dict[str, Any] = {"type": "message_delta", "delta": {"stop_reason": stop}}
    if fault != "no_usage":
        message_delta["usage"] = {"output_tokens": 5}
    events.append(message_delta)
    if fault != "no_end":
        events.append({"type": "message_stop"})
    return sse(events, named=True, done=False)


def responses(turn: Turn, fault: str, streamed: bool) -> bytes:
    calls = _calls(turn, fault)
    usage = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
    items: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    if turn.reasoning:
        summary = [{"type": "summary_text", "text": turn.reasoning}]
        items.append(({"id": "rs_1", "type": "reasoning", "summary": summary}, []))
    text = _markup(turn, fault)
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    items.append(
        (
            message,
            [
                {
                    "type": "response.output_text.delta",
                    "item_id": "msg_1",
                    "content_index": 0,
                    "delta": text,
                }
            ],
        )
    )
    for n, (i, name, a) in enumerate([] if fault == "drop_calls" and streamed else calls):
        arguments = _arguments(turn, a, fault)
        item = {
            "id": f"fc_{n}",
            "type": "function_call",
            "call_id": i,
            "name": _name(name, fault),
            "arguments": arguments,
            "status": "completed",
        }
        deltas = [
            {"type": "response.function_call_arguments.delta", "item_id": f"fc_{n}", "delta": p}
            for p in _pieces(arguments, fault)
        ]
        items.append((item, deltas))
    cut = turn.cut and fault != "length_lie"
    response: dict[str, Any] = {
        "id": "resp_1",
        "object": "response",
        "status": "incomplete" if cut else "completed",
        "incomplete_details": {"reason": "max_output_tokens"} if cut else None,
        "output": [item for item, _d in items],
    }
    if fault != "no_usage":
        response["usage"] = usage
    if not streamed:
        return json.dumps(response).encode()
    events: list[dict[str, Any]] = [
        {
            "type": "response.created",
            "response": {
                "id": "resp_1",
                "object": "response",
                "status": "in_progress",
                "output": [],
            },
        }
    ]
    for n, (item, deltas) in enumerate(items):
        opened: dict[str, Any] = {**item, "status": "in_progress"}
        if item["type"] == "function_call":
            opened["arguments"] = ""
        if item["type"] == "message":
            opened["content"] = []
        events.append({"type": "response.output_item.added", "output_index": n, "item": opened})
        if item["type"] == "message":
            events.append(
                {
                    "type": "response.content_part.added",
                    "item_id": "msg_1",
                    "output_index": n,
                    "content_index": 0,
                    "part": {"type": "output_text", "text": "", "annotations": []},
                }
            )
        events += [{**d, "output_index": n} for d in deltas]
        if item["type"] == "function_call":
            events.append(
                {
                    "type": "response.function_call_arguments.done",
                    "item_id": item["id"],
                    "output_index": n,
                    "arguments": item["arguments"],
                }
            )
        events.append({"type": "response.output_item.done", "output_index": n, "item": item})
    if fault != "no_end":
        kind = "response.incomplete" if cut else "response.completed"
        events.append({"type": kind, "response": response})
    return sse(events, named=True, done=False)


def gemini(turn: Turn, fault: str, streamed: bool) -> bytes:
    calls = _calls(turn, fault)
    finish = _finish(turn, fault, {"stop": "STOP", "calls": "STOP", "length": "MAX_TOKENS"})
    parts: list[dict[str, Any]] = []
    if turn.reasoning:
        parts.append({"text": turn.reasoning, "thought": True})
    parts.append({"text": _markup(turn, fault)})
    if not turn.cut:
        for _i, name, a in [] if fault == "drop_calls" and streamed else calls:
            parts.append({"functionCall": {"name": _name(name, fault), "args": a}})
    usage = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}
    if not streamed:
        document: dict[str, Any] = {
            "candidates": [
                {"content": {"role": "model", "parts": parts}, "finishReason": finish, "index": 0}
            ]
        }
        if fault != "no_usage":
            document["usageMetadata"] = usage
        return json.dumps(document).encode()
    events: list[dict[str, Any]] = [
        {"candidates": [{"content": {"role": "model", "parts": [p]}, "index": 0}]} for p in parts
    ]
    events[-1]["candidates"][0]["finishReason"] = finish
    if fault != "no_usage":
        events[-1]["usageMetadata"] = usage
    return "".join(f"data: {json.dumps(e)}\r\n\r\n" for e in events).encode()


def ollama(turn: Turn, fault: str, streamed: bool) -> bytes:
    calls = [] if turn.cut else _calls(turn, fault)
    reason = "length" if turn.cut and fault != "length_lie" else "stop"
    tool_calls = [{"function": {"name": _name(n, fault), "arguments": a}} for _i, n, a in calls]
    usage = {} if fault == "no_usage" else {"prompt_eval_count": 10, "eval_count": 5}
    if not streamed:
        message: dict[str, Any] = {
            "role": "assistant",
            "content": _markup(turn, fault),
            "thinking": turn.reasoning,
        }
        if tool_calls:
            message["tool_calls"] = tool_calls
        return json.dumps(
            {"model": "m", "message": message, "done": True, "done_reason": reason, **usage}
        ).encode()
    lines: list[dict[str, Any]] = []
    if turn.reasoning:
        lines.append({"role": "assistant", "content": "", "thinking": turn.reasoning})
    lines.append({"role": "assistant", "content": _markup(turn, fault)})
    if tool_calls and fault != "drop_calls":
        lines.append({"role": "assistant", "content": "", "tool_calls": tool_calls})
    out = [{"model": "m", "message": m, "done": False} for m in lines]
    if fault != "no_end":
        out.append(
            {
                "model": "m",
                "message": {"role": "assistant", "content": ""},
                "done": True,
                "done_reason": reason,
                **usage,
            }
        )
    return "".join(json.dumps(o) + "\n" for o in out).encode()


RENDER = {
    "chat": chat,
    "responses": responses,
    "anthropic": anthropic,
    "gemini": gemini,
    "ollama": ollama,
}


def wire_of(path: str) -> tuple[str, bool]:
    """The wire a path is for, and whether it asks for a stream by its path (Gemini)."""
    if path.endswith("/chat/completions"):
        return "chat", False
    if path.endswith("/responses"):
        return "responses", False
    if path.endswith("/v1/messages"):
        return "anthropic", False
    if ":streamGenerateContent" in path:
        return "gemini", True
    if ":generateContent" in path:
        return "gemini", False
    if path.endswith("/api/chat"):
        return "ollama", False
    raise LookupError(path)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        path = self.path.split("?")[0]
        fault = ""
        if path.startswith("/fault/"):
            _, _, fault, rest = path.split("/", 3)
            path = "/" + rest
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.server.seen.append(dict(self.headers.items()))  # type: ignore[attr-defined]
        try:
            if path.startswith("/nowhere/"):
                raise LookupError(path)
            wire, by_path = wire_of(path)
        except LookupError:
            self._send(404, "application/json", b'{"error": "not found"}')
            return
        request = json.loads(raw)
        streamed = by_path if wire == "gemini" else request.get("stream", wire == "ollama")
        turn, _limit = decide(wire, request)
        if fault == "text_unstreamed" and not streamed:
            turn.text = ""
        body = RENDER[wire](turn, fault, bool(streamed))
        kind = "application/json"
        if streamed and fault == "not_stream":
            body = RENDER[wire](turn, fault, False)
        elif streamed:
            kind = "application/x-ndjson" if wire == "ollama" else "text/event-stream"
        self._send(200, kind, body)

    def _send(self, status: int, kind: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextmanager
def model_server() -> Iterator[tuple[str, list[dict[str, str]]]]:
    """The server on 127.0.0.1, its root URL and the headers of each request it received."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    seen: list[dict[str, str]] = []
    server.seen = seen  # type: ignore[attr-defined]
    with background.running(server):
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
