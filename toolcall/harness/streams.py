"""A cassette's body as the chunks every implementation is fed, and the cut-off variant of it.

Implementations are compared on the decoded chunks, not on bytes: that is what every client works
from once its SSE reader has run, and it keeps the comparison about assembly. The body is decoded
with the library's own SSE decoder, which the conformance suite has already checked byte by byte.

The truncated variant answers the question a cut-off turn asks of a client: does it notice? For a
provider whose arguments arrive in several fragments, `long_arguments` is cut after half of its
argument fragments and ended by a `finish_reason: "length"` chunk made from the provider's own
finish chunk (same envelope, key order and usage placement, with an empty delta); any chunks the
provider sends after its finish chunk (a usage-only chunk) follow as they were. A provider that
sends the whole call in one chunk cannot be cut mid-arguments this way, so it gets no variant.
"""

from __future__ import annotations

import copy
from typing import Any

from . import walk

Chunk = walk.Chunk

TRUNCATED = "long_arguments_truncated"
TRUNCATED_FROM = "long_arguments"


def decode(body: bytes) -> list[Chunk]:
    """The JSON payloads of an SSE body, in order, without `[DONE]`."""
    return walk.chunks(body)


def truncate(chunks: list[Chunk]) -> list[Chunk] | None:
    """The stream cut after half its argument fragments, or None when it has fewer than two."""
    fragments = [i for i, chunk in enumerate(chunks) if _carries_arguments(chunk)]
    finishes = [i for i, chunk in enumerate(chunks) if _finish_reason(chunk)]
    if len(fragments) < 2 or not finishes:
        return None
    keep = fragments[len(fragments) // 2 - 1] + 1
    if finishes[-1] < keep:
        return None
    finish = copy.deepcopy(chunks[finishes[-1]])
    choice = finish["choices"][0]
    choice["delta"] = {}
    choice["finish_reason"] = "length"
    return [*chunks[:keep], finish, *chunks[finishes[-1] + 1 :]]


def _carries_arguments(chunk: Chunk) -> bool:
    return any(walk.function_of(call).get("arguments") for call in walk.view(0, chunk).tool_calls)


def _finish_reason(chunk: Chunk) -> Any:
    return walk.view(0, chunk).finish_reason
