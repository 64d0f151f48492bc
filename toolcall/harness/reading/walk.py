"""A chat completions body seen as the chunks a provider sent, for every part of the harness.

The fingerprint, the truncated variants, the structural comparison of synthesized cassettes with
recordings, and the chunks handed to other implementations all need the same view of a body: the
JSON payloads in order, where `choices[0]`, its `delta` and `tool_calls` are, and whether the
stream had comments and `[DONE]`. Reading it once here keeps them from disagreeing about a corner
(a chunk whose `choices` is `[]`, a `delta` that is `null`). The SSE decoding itself is the
library's, which the conformance suite checks byte by byte; nothing here routes or assembles
tool calls, so what is read from a stream never depends on the assembler it is used to judge.
The body is read by the harness's one reader, `wires.events`; this is the chat chunks' view of
what it read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..suite.cassettes import CHAT
from . import wires

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
    """A chat body read as chunks, plus what the SSE framing showed around them."""

    chunks: tuple[ChunkView, ...]
    comments: tuple[str, ...]
    done: bool


def read(body: bytes) -> Stream:
    """Read a chat body into chunk views. Raises `wires.UnreadableBody` naming the event that
    failed and its byte offset (bad framing, or a payload that is not a JSON object)."""
    read = wires.events(CHAT, body)
    views = [view(n, chunk) for n, chunk in enumerate(wires.objects_of(CHAT, read))]
    comments = tuple(comment for event in read for comment in event.comments)
    done = any(event.done for event in read)
    return Stream(tuple(views), comments, done)


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
    """The JSON payloads of a chat body, in order, without `[DONE]`."""
    return [v.chunk for v in read(body).chunks]


def function_of(call: Mapping[str, Any]) -> Mapping[str, Any]:
    function = call.get("function")
    return function if isinstance(function, Mapping) else {}
