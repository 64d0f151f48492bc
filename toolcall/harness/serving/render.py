"""A `plain.Plan` written as each wire writes a turn: streamed as the wire's events
(`events`), framed into the bytes of one write each (`frame`), or answered whole (`answer`).

These are the plain, sound streams a fault mode transforms. Each wire's writer follows the
shape of that wire's recordings in cassettes/ (ids and timestamps fixed, so the same request
gets the same bytes): chat completions chunks, Responses and Anthropic Messages events with
their `event:` lines, Gemini's candidates (an event stream with `?alt=sse`, else one JSON
array), Ollama's lines of JSON.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..reading.wires import JSON_ARRAY, WIRES
from ..suite.cassettes import CHAT
from .plain import Plan

Event = dict[str, Any]
#: Chat completions' last line, which is no JSON event.
DONE = b"data: [DONE]\n\n"
_CREATED = 1764979200  # 2025-12-06, fixed so the bytes are the same on every run


def events(wire: str, plan: Plan) -> list[Event]:
    """The events `plan` streams as on `wire`."""
    return _WRITERS[wire](plan)


def frame(wire: str, written: list[Event], framing: str = "") -> list[bytes]:
    """`written` as the writes a server sends, one event each."""
    if wire == "ollama":
        return [json.dumps(e).encode() + b"\n" for e in written]
    if framing == JSON_ARRAY:
        return [text.encode() for text in _array_pieces([json.dumps(e) for e in written])]
    named = WIRES[wire].named_events
    pieces = [
        (f"event: {e['type']}\n" if named else "").encode() + b"data: " + json.dumps(e).encode()
        for e in written
    ]
    pieces = [piece + b"\n\n" for piece in pieces]
    return [*pieces, DONE] if wire == CHAT else pieces


def _array_pieces(texts: list[str]) -> list[str]:
    """A JSON array written one element a write, as Gemini without `?alt=sse` sends it."""
    if not texts:
        return ["[]"]
    last = len(texts) - 1
    return [
        ("[" if n == 0 else "\r\n,") + text + ("]" if n == last else "")
        for n, text in enumerate(texts)
    ]


def finish(wire: str, plan: Plan) -> str:
    """How `wire` says why the plan's turn ended."""
    if wire == CHAT:
        return "length" if plan.cut else "tool_calls" if plan.calls else "stop"
    if wire == "anthropic":
        return "max_tokens" if plan.cut else "tool_use" if plan.calls else "end_turn"
    if wire == "gemini":
        return "MAX_TOKENS" if plan.cut else "STOP"
    if wire == "ollama":
        return "length" if plan.cut else "stop"
    return "incomplete" if plan.cut else "completed"


def _chat(plan: Plan) -> list[Event]:
    def chunk(delta: dict[str, Any], reason: str | None = None) -> Event:
        choice = {"index": 0, "delta": delta, "finish_reason": reason}
        head = {"id": "chatcmpl-toolcall", "object": "chat.completion.chunk"}
        return {**head, "created": _CREATED, "model": plan.model, "choices": [choice]}

    written = [chunk({"role": "assistant", "content": ""})]
    written += [chunk({"content": plan.text[at : at + 12]}) for at in range(0, len(plan.text), 12)]
    for index, call in enumerate(plan.calls):
        opening = {"name": call.name, "arguments": ""}
        start = {"index": index, "id": call.id, "type": "function", "function": opening}
        written.append(chunk({"tool_calls": [start]}))
        written += [
            chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
            for piece in call.fragments()
        ]
    written.append(chunk({}, finish(CHAT, plan)))
    if plan.include_usage:
        written.append({**chunk({}), "choices": [], "usage": chat_usage(plan)})
    return written


def chat_usage(plan: Plan) -> dict[str, int]:
    total = plan.prompt_tokens + plan.completion_tokens
    return {
        "prompt_tokens": plan.prompt_tokens,
        "completion_tokens": plan.completion_tokens,
        "total_tokens": total,
    }


def _responses_items(plan: Plan) -> list[Event]:
    """The output items of the Responses answer, done."""
    text = {"type": "output_text", "text": plan.text, "annotations": []}
    message = {"type": "message", "id": "msg_toolcall", "status": "completed", "role": "assistant"}
    items: list[Event] = [{**message, "content": [text]}]
    for call in plan.calls:
        items.append(
            {
                "type": "function_call",
                "id": f"fc_{call.id}",
                "call_id": call.id,
                "name": call.name,
                "arguments": call.arguments,
                "status": "completed",
            }
        )
    return items


def responses_object(plan: Plan, status: str = "") -> Event:
    """The Responses `response` object of the plan, as `response.completed` and an unstreamed
    answer carry it (`status` in progress while streaming)."""
    usage = {
        "input_tokens": plan.prompt_tokens,
        "output_tokens": plan.completion_tokens,
        "total_tokens": plan.prompt_tokens + plan.completion_tokens,
    }
    done = not status
    answer: Event = {
        "id": "resp_toolcall",
        "object": "response",
        "created_at": _CREATED,
        "status": status or finish("responses", plan),
        "model": plan.model,
        "output": _responses_items(plan) if done else [],
        "usage": usage if done else None,
    }
    if done and plan.cut:
        answer["incomplete_details"] = {"reason": "max_output_tokens"}
    return answer


def _responses(plan: Plan) -> list[Event]:
    written: list[Event] = [
        {"type": "response.created", "response": responses_object(plan, "in_progress")}
    ]
    for n, item in enumerate(_responses_items(plan)):
        written += _responses_item(n, item, plan)
    ending = "response.incomplete" if plan.cut else "response.completed"
    written.append({"type": ending, "response": responses_object(plan)})
    return [{**e, "sequence_number": n} for n, e in enumerate(written)]


def _responses_item(n: int, item: Event, plan: Plan) -> list[Event]:
    """One output item's events: added, its deltas, done."""
    where = {"item_id": item["id"], "output_index": n}
    if item["type"] == "message":
        part = {"type": "output_text", "text": "", "annotations": []}
        opened = {**item, "status": "in_progress", "content": []}
        inside = [
            {"type": "response.content_part.added", **where, "content_index": 0, "part": part},
            {"type": "response.output_text.delta", **where, "content_index": 0, "delta": plan.text},
            {"type": "response.output_text.done", **where, "content_index": 0, "text": plan.text},
        ]
    else:
        opened = {**item, "status": "in_progress", "arguments": ""}
        call = plan.calls[n - 1]
        inside = [
            {"type": "response.function_call_arguments.delta", **where, "delta": piece}
            for piece in call.fragments()
        ]
        inside.append(
            {"type": "response.function_call_arguments.done", **where, "arguments": call.arguments}
        )
    return [
        {"type": "response.output_item.added", "output_index": n, "item": opened},
        *inside,
        {"type": "response.output_item.done", "output_index": n, "item": item},
    ]


def _anthropic(plan: Plan) -> list[Event]:
    message: Event = {
        "id": "msg_toolcall",
        "type": "message",
        "role": "assistant",
        "model": plan.model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": plan.prompt_tokens, "output_tokens": 1},
    }
    written: list[Event] = [{"type": "message_start", "message": message}]
    text_block = {"type": "text", "text": ""}
    written += [
        {"type": "content_block_start", "index": 0, "content_block": text_block},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": plan.text},
        },
        {"type": "content_block_stop", "index": 0},
    ]
    for index, call in enumerate(plan.calls, start=1):
        block = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
        written.append({"type": "content_block_start", "index": index, "content_block": block})
        written += [
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "input_json_delta", "partial_json": piece},
            }
            for piece in call.fragments()
        ]
        written.append({"type": "content_block_stop", "index": index})
    stop = {"stop_reason": finish("anthropic", plan), "stop_sequence": None}
    usage = {"output_tokens": plan.completion_tokens}
    written.append({"type": "message_delta", "delta": stop, "usage": usage})
    written.append({"type": "message_stop"})
    return written


def whole_calls(plan: Plan) -> list[tuple[str, Any]]:
    """The calls of a wire that sends each whole, arguments as an object: a cut one is left
    out, since an object cannot be cut and stay one."""
    kept = plan.calls[:-1] if plan.cut else plan.calls
    return [(call.name, json.loads(call.arguments)) for call in kept]


def _gemini(plan: Plan) -> list[Event]:
    def candidate(parts: list[Event], reason: str | None = None) -> Event:
        content: Event = {"content": {"role": "model", "parts": parts}, "index": 0}
        if reason:
            content["finishReason"] = reason
        return {"candidates": [content], "modelVersion": plan.model}

    written = [candidate([{"text": plan.text}])]
    written += [candidate([{"functionCall": {"name": n, "args": a}}]) for n, a in whole_calls(plan)]
    last = candidate([{"text": ""}], finish("gemini", plan))
    last["usageMetadata"] = {
        "promptTokenCount": plan.prompt_tokens,
        "candidatesTokenCount": plan.completion_tokens,
        "totalTokenCount": plan.prompt_tokens + plan.completion_tokens,
    }
    return [*written, last]


def _gemini_response(plan: Plan) -> Event:
    """The plan as `:generateContent` answers it: its stream's events made one."""
    return gemini_whole(_gemini(plan))


def gemini_whole(streamed: list[Event]) -> Event:
    """Gemini's streamed events as the one answer `:generateContent` gives for the same turn:
    one candidate holding every part the events spread out (adjacent texts joined, empty ones
    dropped), with the last event's finish, usage and model version."""
    parts: list[Event] = []
    for event in streamed:
        for sent in event.get("candidates") or []:
            for part in (sent.get("content") or {}).get("parts") or []:
                if set(part) == {"text"} and parts and set(parts[-1]) == {"text"}:
                    parts[-1] = {"text": parts[-1]["text"] + part["text"]}
                elif part != {"text": ""}:
                    parts.append(dict(part))
    whole: Event = {}
    candidate: Event = {"index": 0}
    for event in streamed:
        whole.update({k: v for k, v in event.items() if k != "candidates"})
        for seen in event.get("candidates") or []:
            candidate.update({k: v for k, v in seen.items() if k != "content"})
    candidate["content"] = {"role": "model", "parts": parts}
    return {"candidates": [candidate], **whole}


def _ollama(plan: Plan) -> list[Event]:
    def line(message: Event, done: bool = False) -> Event:
        head = {"model": plan.model, "created_at": "2025-12-06T00:00:00Z"}
        return {**head, "message": {"role": "assistant", **message}, "done": done}

    written = [line({"content": plan.text})]
    written += [
        line({"content": "", "tool_calls": [_ollama_call(plan, n, name, a)]})
        for n, (name, a) in enumerate(whole_calls(plan))
    ]
    last = line({"content": ""}, done=True)
    last.update(
        done_reason=finish("ollama", plan),
        prompt_eval_count=plan.prompt_tokens,
        eval_count=plan.completion_tokens,
    )
    return [*written, last]


_WRITERS: dict[str, Callable[[Plan], list[Event]]] = {
    CHAT: _chat,
    "responses": _responses,
    "anthropic": _anthropic,
    "gemini": _gemini,
    "ollama": _ollama,
}


def answer(wire: str, plan: Plan) -> Event:
    """The plan answered whole, to a request with `stream: false`."""
    if wire == CHAT:
        calls = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in plan.calls
        ]
        message: Event = {"role": "assistant", "content": plan.text}
        if calls:
            message["tool_calls"] = calls
        choice = {"index": 0, "message": message, "finish_reason": finish(CHAT, plan)}
        head = {"id": "chatcmpl-toolcall", "object": "chat.completion", "created": _CREATED}
        return {**head, "model": plan.model, "choices": [choice], "usage": chat_usage(plan)}
    if wire == "responses":
        return responses_object(plan)
    if wire == "anthropic":
        return _anthropic_message(plan)
    if wire == "gemini":
        return _gemini_response(plan)
    return _ollama(plan)[-1] | {"message": _ollama_message(plan)}


def _anthropic_message(plan: Plan) -> Event:
    content: list[Event] = [{"type": "text", "text": plan.text}]
    for call in plan.calls:
        try:
            given = json.loads(call.arguments)
        except ValueError:
            given = {}  # a cut call: an object cannot be cut and stay one
        content.append({"type": "tool_use", "id": call.id, "name": call.name, "input": given})
    return {
        "id": "msg_toolcall",
        "type": "message",
        "role": "assistant",
        "model": plan.model,
        "content": content,
        "stop_reason": finish("anthropic", plan),
        "stop_sequence": None,
        "usage": {"input_tokens": plan.prompt_tokens, "output_tokens": plan.completion_tokens},
    }


def _ollama_call(plan: Plan, index: int, name: str, arguments: Any) -> Event:
    """One Ollama call as its recordings show it: an id, and an index inside `function`."""
    function = {"index": index, "name": name, "arguments": arguments}
    return {"id": plan.calls[index].id, "function": function}


def _ollama_message(plan: Plan) -> Event:
    calls = [_ollama_call(plan, n, name, a) for n, (name, a) in enumerate(whole_calls(plan))]
    message: Event = {"role": "assistant", "content": plan.text}
    if calls:
        message["tool_calls"] = calls
    return message
