"""An unstreamed answer read on each wire: its calls, text, reasoning, finish reason and usage.

The library reads streams; an unstreamed answer is one JSON document whose shape each wire's API
reference gives, and the probe needs only what the judges compare with the stream: which calls,
with which arguments, and how the turn ended. The finish reason keeps the wire's own word, as
`toolcall.Turn` does, so `toolcall.finish_kind` reads both alike.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..suite.cassettes import CHAT


class Unreadable(ValueError):
    """The answer is not the wire's unstreamed document; the message says what is wrong."""


@dataclass(frozen=True)
class Call:
    id: str
    name: str
    #: the arguments as the answer gave them: JSON text (an object is serialized once)
    arguments: str


@dataclass(frozen=True)
class Answer:
    tool_calls: tuple[Call, ...] = ()
    finish_reason: str | None = None
    content: str = ""
    reasoning: str = ""
    usage: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def read(wire: str, body: bytes) -> Answer:
    """The answer of an unstreamed request on `wire`; `Unreadable` when it is not one."""
    try:
        document = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise Unreadable(f"not one JSON document: {exc}") from None
    if not isinstance(document, dict):
        raise Unreadable("not a JSON object")
    try:
        return _READERS[wire](document)
    except (KeyError, IndexError, TypeError, AttributeError) as exc:
        raise Unreadable(f"not a {wire} answer ({type(exc).__name__}: {exc})") from None


def _chat(document: dict[str, Any]) -> Answer:
    choice = document["choices"][0]
    message = choice["message"]
    calls = tuple(
        Call(str(c.get("id") or ""), c["function"]["name"], _text(c["function"]["arguments"]))
        for c in message.get("tool_calls") or []
    )
    reasoning = message.get("reasoning_content") or message.get("reasoning") or ""
    return Answer(
        calls,
        choice.get("finish_reason"),
        message.get("content") or "",
        reasoning if isinstance(reasoning, str) else "",
        document.get("usage"),
    )


def _responses(document: dict[str, Any]) -> Answer:
    calls, text, reasoning = [], [], []
    for item in document.get("output") or []:
        if item.get("type") == "function_call":
            calls.append(Call(str(item.get("call_id", "")), item["name"], item["arguments"]))
        elif item.get("type") == "message":
            text += [p.get("text", "") for p in item.get("content") or []]
        elif item.get("type") == "reasoning":
            reasoning += [p.get("text", "") for p in item.get("summary") or []]
    finish = document.get("status")
    if finish == "incomplete":
        finish = (document.get("incomplete_details") or {}).get("reason", finish)
    return Answer(tuple(calls), finish, "".join(text), "".join(reasoning), document.get("usage"))


def _anthropic(document: dict[str, Any]) -> Answer:
    calls, text, reasoning = [], [], []
    for block in document["content"]:
        if block.get("type") == "tool_use":
            calls.append(Call(str(block.get("id", "")), block["name"], _text(block["input"])))
        elif block.get("type") == "text":
            text.append(block.get("text", ""))
        elif block.get("type") == "thinking":
            reasoning.append(block.get("thinking", ""))
    usage = document.get("usage")
    return Answer(
        tuple(calls), document.get("stop_reason"), "".join(text), "".join(reasoning), usage
    )


def _gemini(document: dict[str, Any]) -> Answer:
    candidate = document["candidates"][0]
    calls, text, reasoning = [], [], []
    for part in (candidate.get("content") or {}).get("parts") or []:
        if "functionCall" in part:
            call = part["functionCall"]
            calls.append(Call(str(call.get("id", "")), call["name"], _text(call.get("args", {}))))
        elif part.get("thought"):
            reasoning.append(part.get("text", ""))
        elif "text" in part:
            text.append(part["text"])
    finish = candidate.get("finishReason")
    return Answer(
        tuple(calls), finish, "".join(text), "".join(reasoning), document.get("usageMetadata")
    )


def _ollama(document: dict[str, Any]) -> Answer:
    message = document["message"]
    calls = tuple(
        Call(str(c.get("id", "")), c["function"]["name"], _text(c["function"].get("arguments", {})))
        for c in message.get("tool_calls") or []
    )
    counts = ("prompt_eval_count", "eval_count")
    usage: dict[str, Any] | None = {k: document[k] for k in counts if k in document} or None
    return Answer(
        calls,
        document.get("done_reason"),
        message.get("content") or "",
        message.get("thinking") or "",
        usage,
    )


_READERS = {
    CHAT: _chat,
    "responses": _responses,
    "anthropic": _anthropic,
    "gemini": _gemini,
    "ollama": _ollama,
}
