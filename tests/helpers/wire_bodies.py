"""One turn written on each of the five wires, as event lists a test can edit, then frame.

The tests that hold a rule on every wire (test_every_wire.py, the wire properties, the fuzzer's
seeds) start from the same turn on each wire: optional reasoning, then optional text, then calls,
each with a name, an id and an arguments object, streamed in pieces where the wire streams them.
The events follow the shapes of the recordings in `cassettes/wires/` (`toolcall/_wires/` names
the fields each reader reads); framing is separate so that a test can repeat, drop or move events
first.
"""

from __future__ import annotations

import json
from typing import Any

WIRES = ("chat", "responses", "anthropic", "gemini", "ollama")
Call = tuple[str, dict[str, Any]]


def pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def events(
    wire: str, calls: list[Call], text: str = "", size: int = 7, *, reasoning: str = ""
) -> list[Any]:
    """The turn's events on `wire`: dicts, or chat's `[DONE]` as a string."""
    return _WRITERS[wire](calls, text, size, reasoning)


def frame(
    wire: str, items: list[Any], *, framing: str | None = None, ensure_ascii: bool = True
) -> bytes:
    """The body of `items`: SSE, NDJSON for Ollama, or (`framing="json-array"`) one JSON array;
    its text escaped to ASCII, or (`ensure_ascii=False`) as UTF-8."""
    framing = framing or ("ndjson" if wire == "ollama" else "sse")

    def dumps(item: Any) -> str:
        return json.dumps(item, ensure_ascii=ensure_ascii)

    if framing == "ndjson":
        return b"".join(dumps(item).encode() + b"\n" for item in items)
    if framing == "json-array":
        return ("[" + ",\n".join(dumps(item) for item in items) + "]").encode()
    out = []
    for item in items:
        payload = item if isinstance(item, str) else dumps(item)
        name = item.get("type") if isinstance(item, dict) and wire != "chat" else None
        out.append((f"event: {name}\n" if isinstance(name, str) else "") + f"data: {payload}\n\n")
    return "".join(out).encode()


def body(
    wire: str, calls: list[Call], text: str = "", size: int = 7, *, reasoning: str = ""
) -> bytes:
    return frame(wire, events(wire, calls, text, size, reasoning=reasoning))


def _chat(calls: list[Call], text: str, size: int, reasoning: str) -> list[Any]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [choice]}

    out: list[Any] = [chunk({"role": "assistant", "content": ""})]
    out += [chunk({"reasoning_content": piece}) for piece in pieces(reasoning, size) if piece]
    out += [chunk({"content": piece}) for piece in pieces(text, size) if piece]
    for index, (name, arguments) in enumerate(calls):
        head = {"index": index, "id": f"call_{index}", "type": "function"}
        out.append(chunk({"tool_calls": [{**head, "function": {"name": name, "arguments": ""}}]}))
        for piece in pieces(json.dumps(arguments), size):
            call = {"index": index, "function": {"arguments": piece}}
            out.append(chunk({"tool_calls": [call]}))
    out.append(chunk({}, "tool_calls" if calls else "stop"))
    return [*out, "[DONE]"]


def _responses(calls: list[Call], text: str, size: int, reasoning: str) -> list[Any]:
    out: list[Any] = [{"type": "response.created", "response": {"status": "in_progress"}}]
    at = 0
    if reasoning:
        item = {"type": "reasoning", "id": "rs_1", "content": [], "summary": []}
        out.append({"type": "response.output_item.added", "output_index": 0, "item": item})
        part = {"item_id": "rs_1", "output_index": 0, "content_index": 0}
        for piece in pieces(reasoning, size):
            out.append({"type": "response.reasoning_text.delta", **part, "delta": piece})
        out.append({"type": "response.reasoning_text.done", **part, "text": reasoning})
        at = 1
    if text:
        item = {"type": "message", "id": "msg_1", "role": "assistant", "content": []}
        out.append({"type": "response.output_item.added", "output_index": at, "item": item})
        part = {"item_id": "msg_1", "output_index": at, "content_index": 0}
        for piece in pieces(text, size):
            out.append({"type": "response.output_text.delta", **part, "delta": piece})
        out.append({"type": "response.output_text.done", **part, "text": text})
        at += 1
    for number, (name, arguments) in enumerate(calls):
        index = at + number
        item = {
            "type": "function_call",
            "id": f"fc_{number}",
            "call_id": f"call_{number}",
            "name": name,
            "arguments": "",
        }
        out.append({"type": "response.output_item.added", "output_index": index, "item": item})
        whole = json.dumps(arguments)
        ids = {"item_id": f"fc_{number}", "output_index": index}
        for piece in pieces(whole, size):
            out.append({"type": "response.function_call_arguments.delta", **ids, "delta": piece})
        out.append({"type": "response.function_call_arguments.done", **ids, "arguments": whole})
        done = {**item, "arguments": whole, "status": "completed"}
        out.append({"type": "response.output_item.done", "output_index": index, "item": done})
    usage = {"input_tokens": 10, "output_tokens": 5}
    out.append({"type": "response.completed", "response": {"status": "completed", "usage": usage}})
    return out


def _anthropic(calls: list[Call], text: str, size: int, reasoning: str) -> list[Any]:
    out: list[Any] = [{"type": "message_start", "message": {"usage": {"input_tokens": 10}}}]
    at = 0
    for kind, said in (("thinking", reasoning), ("text", text)):
        if not said:
            continue
        block = {"type": kind, kind: ""}
        out.append({"type": "content_block_start", "index": at, "content_block": block})
        for piece in pieces(said, size):
            delta = {"type": f"{kind}_delta", kind: piece}
            out.append({"type": "content_block_delta", "index": at, "delta": delta})
        out.append({"type": "content_block_stop", "index": at})
        at += 1
    for number, (name, arguments) in enumerate(calls):
        index = at + number
        block = {"type": "tool_use", "id": f"toolu_{number}", "name": name, "input": {}}
        out.append({"type": "content_block_start", "index": index, "content_block": block})
        for piece in pieces(json.dumps(arguments), size):
            delta = {"type": "input_json_delta", "partial_json": piece}
            out.append({"type": "content_block_delta", "index": index, "delta": delta})
        out.append({"type": "content_block_stop", "index": index})
    stop = "tool_use" if calls else "end_turn"
    out.append({"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"x": 1}})
    out.append({"type": "message_stop"})
    return out


def _gemini(calls: list[Call], text: str, size: int, reasoning: str) -> list[Any]:
    def event(parts: list[dict[str, Any]], finish: str | None = None) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        if finish:
            candidate["finishReason"] = finish
        return {"candidates": [candidate], "modelVersion": "gemini-2.5-flash"}

    out: list[Any] = [
        event([{"text": piece, "thought": True}]) for piece in pieces(reasoning, size) if piece
    ]
    out += [event([{"text": piece}]) for piece in pieces(text, size) if piece]
    out += [
        event([{"functionCall": {"id": f"call_{n}", "name": name, "args": arguments}}])
        for n, (name, arguments) in enumerate(calls)
    ]
    last = event([], "STOP")
    last["usageMetadata"] = {"promptTokenCount": 10, "totalTokenCount": 15}
    return [*out, last]


def _ollama(calls: list[Call], text: str, size: int, reasoning: str) -> list[Any]:
    def line(message: dict[str, Any], **more: Any) -> dict[str, Any]:
        return {"model": "qwen3", "message": {"role": "assistant", **message}, **more}

    out: list[Any] = [
        line({"content": "", "thinking": piece}, done=False)
        for piece in pieces(reasoning, size)
        if piece
    ]
    out += [line({"content": piece}, done=False) for piece in pieces(text, size) if piece]
    if calls:
        tool_calls = [
            {"id": f"call_{n}", "function": {"index": n, "name": name, "arguments": arguments}}
            for n, (name, arguments) in enumerate(calls)
        ]
        out.append(line({"content": "", "tool_calls": tool_calls}, done=False))
    out.append(line({"content": ""}, done=True, done_reason="stop", eval_count=5))
    return out


_WRITERS = {
    "chat": _chat,
    "responses": _responses,
    "anthropic": _anthropic,
    "gemini": _gemini,
    "ollama": _ollama,
}


def as_json_array(sse_body: bytes, *, pretty: bool = False) -> bytes:
    """A Gemini SSE body as the JSON array `streamGenerateContent` sends without `?alt=sse`."""
    from toolcall import SSEDecoder

    payloads = SSEDecoder().feed(sse_body + b"\n\n")
    if pretty:
        documents = [json.loads(p) for p in payloads]
        return json.dumps(documents, indent=2, ensure_ascii=False).encode()
    return ("[" + ",\n".join(payloads) + "]").encode()
