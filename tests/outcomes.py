"""One comparable answer for a body: the turn it assembles, or the library error it raises.

The hostile-input tests and the fuzzer both ask whether two ways of reading the same body (two
JSON backends, the fast paths or the plain one, any split of the bytes) give one answer.
An answer is the turn's `to_dict()` or the error's type and message; anything that is not a
`ToolCallError` is not an answer, and propagates so that the test fails on it. With events on,
the events must also tell the same turn (`toolcall.harness.checks.event_check`), or the answer
says so.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from toolcall import Event, ToolCallError, TurnBuilder, TurnDone
from toolcall._fast import enabled as fast_paths
from toolcall.harness.checks.event_check import event_problems

BACKENDS = ("stdlib", "orjson")


def outcome(
    body: bytes | Iterable[bytes],
    *,
    backend: str = "auto",
    fast: bool = True,
    events: bool = True,
    partial: bool = False,
    wire: str = "auto",
    **limits: int,
) -> tuple[str, Any]:
    """("turn", the turn as JSON text) or (error type, message); a list of pieces re-splits."""
    # `fast=False` is the reference for the fast paths: every event read in full, as text.
    with fast_paths(fast):
        builder = TurnBuilder(
            json_backend=backend, events=events, partial_arguments=partial, wire=wire, **limits
        )
    pieces = [body] if isinstance(body, bytes) else body
    seen: list[Event] = []
    try:
        for piece in pieces:
            seen += builder.feed(piece)
        seen += builder.finish()
    except ToolCallError as exc:
        return type(exc).__name__, str(exc)
    done = seen[-1]
    assert isinstance(done, TurnDone)
    turn = done.turn
    if events:
        problems = event_problems(seen, turn)
        if problems:
            return "events disagree with the turn", "; ".join(problems)
    data = turn.to_dict()
    # Parsed arguments too: they are what the caller runs the tool with. As JSON text, answers
    # are hashable and keep 1 and 1.0 apart.
    data["arguments"] = list(turn.arguments)
    return "turn", json.dumps(data, sort_keys=True)


def sse(*payloads: str | dict[str, Any], done: bool = True) -> bytes:
    """Payloads (raw text, or chunks to serialise) as one `data: ` event each."""
    events = [p if isinstance(p, str) else json.dumps(p, ensure_ascii=False) for p in payloads]
    if done:
        events.append("[DONE]")
    return "".join(f"data: {e}\n\n" for e in events).encode()


def chunk(
    *tool_calls: dict[str, Any],
    finish: str | None = None,
    chunk_id: str = "chatcmpl-1",
    **delta: Any,
) -> dict[str, Any]:
    """A chat.completion.chunk with one choice carrying `tool_calls` and any other delta keys."""
    if tool_calls:
        delta["tool_calls"] = list(tool_calls)
    choice: dict[str, Any] = {"index": 0, "delta": delta, "finish_reason": finish}
    return {"id": chunk_id, "object": "chat.completion.chunk", "choices": [choice]}


def head(index: int = 0, call_id: str = "call_a", name: str = "f", arguments: str = "") -> Any:
    """The delta that opens a call."""
    return {
        "index": index,
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }


def fragment(arguments: str, index: int = 0) -> dict[str, Any]:
    return {"index": index, "function": {"arguments": arguments}}
