"""The quirk fingerprint: how a raw stream carries its tool calls, as a few comparable values.

The vocabulary is small and closed (`QUIRKS`), and every value is computed from the raw stream,
never from what the assembler made of it, so a provider that changes its wire shows up here even
when the assembler copes. A value of None means "this stream cannot tell" (no later deltas in a
whole-call stream, fewer than two calls, no reasoning), and is never compared.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from toolcall import Assembler, SSEDecoder

#: quirk -> (allowed values, what it means). `id_pattern` is a regex, not an enum.
QUIRKS: dict[str, tuple[tuple[Any, ...], str]] = {
    "arguments": (("whole", "incremental"), "each call's arguments in one fragment, or many"),
    "calls_per_chunk": (("one", "many"), "whether one chunk carries deltas of several calls"),
    "index": (("present", "absent", "mixed"), "whether tool-call deltas carry `index`"),
    "later_id": (("absent", "empty", "repeated", "mixed"), "`id` on a call's later deltas"),
    "later_name": (("absent", "repeated"), "`function.name` on a call's later deltas"),
    "later_type": (("absent", "repeated"), "`type` on a call's later deltas"),
    "trailing_empty_delta": ((True, False), "a call ends with an all-empty delta"),
    "finish_reason": (("tool_calls", "stop", "length"), "the turn's finish_reason"),
    "finish_with_last_delta": ((True, False), "finish_reason shares a chunk with tool data"),
    "finish_reason_null": ((True, False), "earlier chunks carry `finish_reason: null`"),
    "usage": (
        ("usage_chunk", "finish_chunk", "in_choice", "every_chunk", "none"),
        "where non-null usage is: a `choices: []` chunk, the finish chunk, `choices[0].usage`",
    ),
    "reasoning_field": (("reasoning_content", "reasoning"), "the delta field carrying reasoning"),
    "id_pattern": ((), "a regex every call id fully matches"),
    "sse_comments": ((True, False), "SSE comment lines such as `: keep-alive`"),
    "done": ((True, False), "the stream ends with `data: [DONE]`"),
}

ORDER = tuple(QUIRKS)


@dataclass
class Observed:
    """A stream's fingerprint plus the call ids it saw (for `id_pattern`)."""

    quirks: dict[str, Any] = field(default_factory=dict)
    ids: list[str] = field(default_factory=list)


def observe(body: bytes) -> Observed:
    """Fingerprint a raw SSE body. Raises the library's errors on a stream it cannot read."""
    decoder = SSEDecoder()
    payloads = decoder.feed(body) + decoder.close()
    assembler = Assembler()
    deltas: dict[int, list[dict[str, Any]]] = {}
    order: list[int] = []
    finish_reason = None
    finish_chunk_has_tools = None
    finish_null = False
    usage_places: set[str] = set()
    reasoning_fields: set[str] = set()
    multi_call_chunk = False
    indexed = 0
    unindexed = 0
    done = False
    for text in payloads:
        if text == "[DONE]":
            done = True
            continue
        chunk = json.loads(text)
        choices = chunk.get("choices") or []
        if chunk.get("usage"):
            usage_places.add("usage_chunk" if not choices else "chunk")
        if not choices:
            continue
        choice = choices[0]
        delta = choice.get("delta") or {}
        calls_here: set[int] = set()
        for raw in delta.get("tool_calls") or []:
            if "index" in raw and raw["index"] is not None:
                indexed += 1
            else:
                unindexed += 1
            routed = assembler.feed(raw)
            if routed not in deltas:
                deltas[routed] = []
                order.append(routed)
            deltas[routed].append(raw)
            calls_here.add(routed)
        multi_call_chunk = multi_call_chunk or len(calls_here) > 1
        for name in ("reasoning_content", "reasoning"):
            if delta.get(name):
                reasoning_fields.add(name)
        if choice.get("usage"):
            usage_places.add("in_choice")
        reason = choice.get("finish_reason")
        if reason:
            finish_reason = reason
            finish_chunk_has_tools = bool(calls_here)
            if chunk.get("usage"):
                usage_places.discard("chunk")
                usage_places.add("finish_chunk")
        elif "finish_reason" in choice:
            finish_null = True

    calls = [deltas[i] for i in order]
    later = [d for call in calls for d in call[1:]]
    quirks: dict[str, Any] = {
        "arguments": _arguments(calls),
        "calls_per_chunk": ("many" if multi_call_chunk else "one") if len(calls) > 1 else None,
        "index": _presence(indexed, unindexed) if calls else None,
        "later_id": _later_id(calls) if later else None,
        "later_name": _later_key(later, lambda d: _function(d).get("name")) if later else None,
        "later_type": _later_key(later, lambda d: d.get("type")) if later else None,
        "trailing_empty_delta": any(_is_empty(call[-1]) for call in calls if len(call) > 1)
        if later
        else None,
        "finish_reason": finish_reason if calls else None,
        "finish_with_last_delta": finish_chunk_has_tools if calls else None,
        "finish_reason_null": finish_null,
        "usage": _usage(usage_places),
        "reasoning_field": "/".join(sorted(reasoning_fields)) or None,
        "id_pattern": None,
        "sse_comments": bool(decoder.comments),
        "done": done,
    }
    ids = [str(call[0].get("id") or "") for call in calls]
    return Observed(quirks=quirks, ids=ids)


def compare(declared: Mapping[str, Any], observed: Observed) -> list[tuple[str, Any, Any]]:
    """(quirk, declared, observed) for every declared quirk the stream contradicts."""
    drift = []
    for quirk in ORDER:
        if quirk not in declared:
            continue
        want = declared[quirk]
        if quirk == "id_pattern":
            bad = [i for i in observed.ids if not re.fullmatch(want, i)]
            if bad:
                drift.append((quirk, want, suggest_pattern(observed.ids)))
            continue
        got = observed.quirks.get(quirk)
        if got is not None and got != want:
            drift.append((quirk, want, got))
    return drift


def suggest_pattern(ids: list[str]) -> str:
    """A regex that generalises the ids seen: runs with digits become classes, words stay."""
    shapes = []
    for value in ids:
        parts = []
        for run in re.findall(r"[A-Za-z0-9]+|[^A-Za-z0-9]+", value):
            if not run[0].isalnum() or (run.isalpha() and len(run) < 8):
                parts.append(re.escape(run))
            elif run.isdigit():
                parts.append(f"[0-9]{{{len(run)}}}")
            elif re.fullmatch(r"[0-9a-f]+", run):
                parts.append(f"[0-9a-f]{{{len(run)}}}")
            elif re.fullmatch(r"[0-9a-z]+", run):
                parts.append(f"[0-9a-z]{{{len(run)}}}")
            else:
                parts.append(f"[A-Za-z0-9]{{{len(run)}}}")
        shapes.append("".join(parts))
    unique = sorted(set(shapes))
    return unique[0] if len(unique) == 1 else "(?:" + "|".join(unique) + ")"


def _function(delta: Mapping[str, Any]) -> Mapping[str, Any]:
    function = delta.get("function")
    return function if isinstance(function, Mapping) else {}


def _arguments(calls: list[list[dict[str, Any]]]) -> str | None:
    counts = [sum(1 for d in call if _function(d).get("arguments")) for call in calls]
    if not counts:
        return None
    return "incremental" if max(counts) > 1 else "whole"


def _presence(present: int, absent: int) -> str:
    if present and absent:
        return "mixed"
    return "present" if present else "absent"


def _later_id(calls: list[list[dict[str, Any]]]) -> str:
    kinds = set()
    for call in calls:
        first = call[0].get("id")
        for delta in call[1:]:
            if "id" not in delta:
                kinds.add("absent")
            elif not delta["id"]:
                kinds.add("empty")
            elif delta["id"] == first:
                kinds.add("repeated")
            else:
                kinds.add("mixed")
    return kinds.pop() if len(kinds) == 1 else "mixed"


def _later_key(later: list[dict[str, Any]], read: Any) -> str:
    return "repeated" if any(read(d) for d in later) else "absent"


def _is_empty(delta: Mapping[str, Any]) -> bool:
    return not _function(delta).get("arguments") and not _function(delta).get("name")


def _usage(places: set[str]) -> str:
    for place in ("usage_chunk", "finish_chunk", "in_choice"):
        if place in places:
            return place
    return "every_chunk" if "chunk" in places else "none"
