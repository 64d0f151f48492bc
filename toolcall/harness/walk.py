"""One reading of a raw SSE body as the chunks a provider sent, for every part of the harness.

The fingerprint, the truncated variants, the structural comparison of synthesized cassettes with
recordings, and the chunks handed to other implementations all need the same view of a body: the
JSON payloads in order, where `choices[0]`, its `delta` and `tool_calls` are, and whether the
stream had comments and `[DONE]`. Reading it once here keeps them from disagreeing about a corner
(a chunk whose `choices` is `[]`, a `delta` that is `null`). The SSE decoding itself is the
library's, which the conformance suite checks byte by byte; nothing here routes or assembles
tool calls, so what is read from a stream never depends on the assembler it is used to judge.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolcall import SSEDecoder, ToolCallError

Chunk = dict[str, Any]


@dataclass(frozen=True)
class ChunkView:
    """One decoded chunk and the parts of it every reader looks at.

    `choice` is `choices[0]` (None on a `choices: []` chunk or when `choices` is missing);
    `delta` is that choice's delta, `{}` when absent or null; `tool_calls` the delta's list, empty
    when absent, null or `[]` (the delta itself still says which).
    """

    position: int
    chunk: Chunk
    choice: Mapping[str, Any] | None
    delta: Mapping[str, Any]
    tool_calls: tuple[Mapping[str, Any], ...]

    @property
    def finish_reason(self) -> Any:
        return self.choice.get("finish_reason") if self.choice is not None else None


@dataclass(frozen=True)
class Stream:
    """A body read as chunks, plus what the SSE framing showed around them."""

    chunks: tuple[ChunkView, ...]
    comments: tuple[str, ...]
    done: bool


class UnreadableStream(ValueError):
    """The body is not a stream of JSON chunks (bad SSE framing or a payload that is not JSON)."""


def read(body: bytes) -> Stream:
    """Decode `body` into chunk views. Raises `UnreadableStream` naming the event that failed."""
    decoder = SSEDecoder()
    try:
        payloads = decoder.feed(body) + decoder.close()
    except ToolCallError as exc:
        raise UnreadableStream(f"not an event stream: {exc}") from None
    views: list[ChunkView] = []
    done = False
    for number, payload in enumerate(payloads):
        if payload.strip() == "[DONE]":
            done = True
            continue
        try:
            chunk = json.loads(payload)
        except ValueError as exc:
            raise UnreadableStream(f"event {number} is not JSON: {exc}") from None
        if not isinstance(chunk, dict):
            raise UnreadableStream(f"event {number} is not a JSON object")
        views.append(view(len(views), chunk))
    return Stream(tuple(views), tuple(decoder.comments), done)


def view(position: int, chunk: Chunk) -> ChunkView:
    choices = chunk.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    choice = first if isinstance(first, Mapping) else None
    delta = choice.get("delta") if choice is not None else None
    delta = delta if isinstance(delta, Mapping) else {}
    calls = delta.get("tool_calls")
    tool_calls = (
        tuple(c for c in calls if isinstance(c, Mapping)) if isinstance(calls, list) else ()
    )
    return ChunkView(position, chunk, choice, delta, tool_calls)


def chunks(body: bytes) -> list[Chunk]:
    """The JSON payloads of an SSE body, in order, without `[DONE]`."""
    return [v.chunk for v in read(body).chunks]


def function_of(call: Mapping[str, Any]) -> Mapping[str, Any]:
    function = call.get("function")
    return function if isinstance(function, Mapping) else {}
