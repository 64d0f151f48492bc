"""Edits of real SSE bodies, the way a provider could change its stream tomorrow.

Each edit decodes the chunks, changes them, and writes them back with the provider's key order
intact, so the result differs from the original in exactly one quirk.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

Chunk = dict[str, Any]


def edit_chunks(body: str, edit: Callable[[list[Chunk]], list[Chunk]]) -> str:
    """Apply `edit` to the decoded chunks of an SSE body (`data: ` events, blank-line separated)."""
    events = [e for e in body.split("\n\n") if e.strip()]
    chunks, tail = [], []
    for event in events:
        data = event.split("data: ", 1)[1]
        if data == "[DONE]":
            tail.append(event)
        else:
            chunks.append(json.loads(data))
    out = [
        f"data: {json.dumps(c, ensure_ascii=False, separators=(',', ':'))}" for c in edit(chunks)
    ]
    return "\n\n".join(out + tail) + "\n\n"


def _tool_deltas(chunk: Chunk) -> list[dict[str, Any]]:
    choices = chunk.get("choices") or []
    if not choices:
        return []
    return list((choices[0].get("delta") or {}).get("tool_calls") or [])


def split_whole_calls(chunks: list[Chunk], size: int = 3) -> list[Chunk]:
    """Whole calls in one chunk become a head chunk plus arguments fragments (incremental)."""
    out: list[Chunk] = []
    for chunk in chunks:
        deltas = _tool_deltas(chunk)
        if len(deltas) != 1 or len(deltas[0]["function"].get("arguments") or "") <= size:
            out.append(chunk)
            continue
        arguments = deltas[0]["function"]["arguments"]
        deltas[0]["function"]["arguments"] = ""
        out.append(chunk)
        for start in range(0, len(arguments), size):
            piece = json.loads(json.dumps(chunk))
            piece["choices"][0].pop("finish_reason", None)
            fragment: dict[str, Any] = {"function": {"arguments": arguments[start : start + size]}}
            if "index" in deltas[0]:
                fragment = {"index": deltas[0]["index"], **fragment}
            piece["choices"][0]["delta"] = {"tool_calls": [fragment]}
            out.append(piece)
    return out


def add_index(chunks: list[Chunk]) -> list[Chunk]:
    """Give every tool-call delta an index, numbering calls in order of appearance."""
    seen: dict[str, int] = {}
    for chunk in chunks:
        for delta in _tool_deltas(chunk):
            key = delta.get("id") or f"anonymous-{len(seen)}"
            delta["index"] = seen.setdefault(key, len(seen))
    return chunks


def drop_empty_ids(chunks: list[Chunk]) -> list[Chunk]:
    """Later deltas' `"id": ""` becomes an absent key."""
    for chunk in chunks:
        for delta in _tool_deltas(chunk):
            if delta.get("id") == "":
                del delta["id"]
    return chunks


def corrupt_arguments(chunks: list[Chunk]) -> list[Chunk]:
    """The last arguments fragment loses its final character (a closing brace)."""
    last = None
    for chunk in chunks:
        for delta in _tool_deltas(chunk):
            if (delta.get("function") or {}).get("arguments"):
                last = delta
    assert last is not None, "the body has no arguments to corrupt"
    last["function"]["arguments"] = last["function"]["arguments"][:-1]
    return chunks
