"""The quirk fingerprint: how a raw stream carries its tool calls, as a few comparable values.

The vocabulary is listed once, in `providers.schema.json` (`$defs/quirk_values`): every quirk,
its values and what it means. Every value is computed here from the raw chunks alone (through
`walk`), never from what the assembler made of them, so a provider that changes its wire shows up
even when the assembler copes, and a bug in the assembler cannot hide one. Calls are told apart by
the plainest reading of the wire (a known id, else the index, else a new name), which is enough to
see where each call's deltas are without borrowing the library's routing rules.

A quirk a stream cannot show is None, printed "cannot tell", and never compared: later-delta
quirks in a whole-call stream, `calls_per_chunk` with one call, `arguments` when every call's
arguments are one `{}`-sized fragment, `finish_reason` of a turn without calls.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..reading import walk
from .profiles import format_schema

CANNOT_TELL = "cannot tell"


def _vocabulary() -> dict[str, tuple[tuple[Any, ...], str]]:
    values = format_schema("providers.schema.json")["$defs"]["quirk_values"]["properties"]
    return {
        name: (
            tuple(spec.get("enum", (True, False) if spec.get("type") == "boolean" else ())),
            spec["description"],
        )
        for name, spec in values.items()
    }


#: quirk -> (allowed values, what it means); `id_pattern` is a regex, not an enum.
QUIRKS: dict[str, tuple[tuple[Any, ...], str]] = _vocabulary()
ORDER = tuple(QUIRKS)
#: Quirks of the SSE framing, which a source of one JSON chunk per line cannot show.
FRAMING = ("sse_comments", "done")


@dataclass
class Observed:
    """A stream's fingerprint plus the call ids it saw (for `id_pattern`)."""

    quirks: dict[str, Any] = field(default_factory=dict)
    ids: list[str] = field(default_factory=list)


@dataclass
class _Call:
    deltas: list[Mapping[str, Any]] = field(default_factory=list)
    positions: list[int] = field(default_factory=list)


def observe(body: bytes) -> Observed:
    """Fingerprint a raw SSE body. Raises `wires.UnreadableBody` on a body it cannot read."""
    return observe_stream(walk.read(body))


def observe_stream(stream: walk.Stream) -> Observed:
    calls = _split_calls(stream.chunks)
    with_choice = [v for v in stream.chunks if v.choice is not None]
    finishes = [v for v in with_choice if v.finish_reason]
    later = [d for call in calls for d in call.deltas[1:]]
    finish = finishes[-1] if finishes else None
    quirks: dict[str, Any] = {
        "arguments": _arguments(calls),
        "calls_per_chunk": _calls_per_chunk(calls),
        "index": _presence(calls) if calls else None,
        "later_id": _later_id(calls) if later else None,
        "later_name": _later_name(calls) if later else None,
        "later_type": _later_type(later) if later else None,
        "trailing_empty_delta": _trailing_empty(calls) if later else None,
        "finish_reason": finish.finish_reason if calls and finish is not None else None,
        "finish_with_last_delta": bool(finish.tool_calls) if calls and finish is not None else None,
        "finish_reason_repeated": len(finishes) > 1 if calls and finishes else None,
        "finish_reason_null": _finish_reason_null(with_choice) if len(with_choice) > 1 else None,
        "usage": _usage(stream.chunks, finish),
        "usage_null": _usage_null(stream.chunks),
        "empty_tool_calls": _empty_tool_calls(with_choice),
        "role": _role(with_choice),
        "content_placeholder": _content_placeholder(with_choice),
        "reasoning_field": _reasoning_field(with_choice),
        "id_pattern": None,
        "sse_comments": bool(stream.comments),
        "done": stream.done,
    }
    ids = [str(_first_id(call) or "") for call in calls]
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


def shows(observed: Observed, quirk: str, value: Any) -> bool | None:
    """Whether the stream shows `quirk` with `value`: True, False, or None (cannot tell)."""
    if quirk == "id_pattern":
        ids = [i for i in observed.ids if i]
        return all(re.fullmatch(value, i) for i in ids) if ids else None
    got = observed.quirks.get(quirk)
    return None if got is None else got == value


def shown(value: Any) -> str:
    """A fingerprint value as a report prints it."""
    return CANNOT_TELL if value is None else repr(value)


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


# -- reading calls off the wire --------------------------------------------------------------


def _split_calls(views: Sequence[walk.ChunkView]) -> list[_Call]:
    """Each call's deltas in order: a known id wins, a new id or a new name opens a call, else
    the index, else the latest call."""
    calls: list[_Call] = []
    by_id: dict[str, _Call] = {}
    by_index: dict[Any, _Call] = {}
    for v in views:
        for delta in v.tool_calls:
            ident, index = delta.get("id"), delta.get("index")
            name = walk.function_of(delta).get("name")
            if ident and ident in by_id:
                call = by_id[ident]  # the index may disagree (Vertex); the id does not
            else:
                if ident or (index is None and name) or not calls:
                    call = _Call()
                elif index is not None:
                    call = by_index.get(index) or _Call()
                else:
                    call = calls[-1]
                if not call.deltas:
                    calls.append(call)
                if ident:
                    by_id[ident] = call
                if index is not None:
                    by_index[index] = call
            call.deltas.append(delta)
            call.positions.append(v.position)
    return calls


def _first_id(call: _Call) -> Any:
    return next((d.get("id") for d in call.deltas if d.get("id")), None)


def _arguments(calls: list[_Call]) -> str | None:
    if not calls:
        return None
    fragments = [[walk.function_of(d).get("arguments") for d in c.deltas] for c in calls]
    fragments = [[f for f in per if f] for per in fragments]
    if any(len(per) > 1 for per in fragments):
        return "incremental"
    # One fragment each: only a fragment with a member in it shows that arguments come whole.
    if any(isinstance(per[0], str) and len(per[0].strip()) > 2 for per in fragments if per):
        return "whole"
    return None


def _calls_per_chunk(calls: list[_Call]) -> str | None:
    if len(calls) < 2:
        return None
    owners: dict[int, set[int]] = {}
    for number, call in enumerate(calls):
        for position in call.positions:
            owners.setdefault(position, set()).add(number)
    return "many" if any(len(o) > 1 for o in owners.values()) else "one"


def _presence(calls: list[_Call]) -> str:
    flags = {"index" in d and d["index"] is not None for c in calls for d in c.deltas}
    if flags == {True, False}:
        return "mixed"
    return "present" if True in flags else "absent"


def _later_id(calls: list[_Call]) -> str:
    kinds = set()
    for call in calls:
        first = call.deltas[0].get("id")
        for delta in call.deltas[1:]:
            if "id" not in delta or delta["id"] is None:
                kinds.add("absent")
            elif not delta["id"]:
                kinds.add("empty")
            elif delta["id"] == first:
                kinds.add("repeated")
            else:
                kinds.add("mixed")
    return kinds.pop() if len(kinds) == 1 else "mixed"


def _later_name(calls: list[_Call]) -> str:
    kinds = set()
    for call in calls:
        for delta in call.deltas[1:]:
            function = walk.function_of(delta)
            name = function.get("name")
            if "name" not in function or name is None:
                kinds.add("absent")
            elif name == "":
                kinds.add("empty")
            else:
                kinds.add("repeated")
    return kinds.pop() if len(kinds) == 1 else "mixed"


def _later_type(later: list[Mapping[str, Any]]) -> str:
    return "repeated" if any("type" in delta for delta in later) else "absent"


def _trailing_empty(calls: list[_Call]) -> bool:
    """Whether some call's last delta carries neither name nor arguments text (Qwen)."""
    return any(_is_empty(call.deltas[-1]) for call in calls if len(call.deltas) > 1)


def _is_empty(delta: Mapping[str, Any]) -> bool:
    function = walk.function_of(delta)
    return not function.get("arguments") and not function.get("name")


def _finish_reason_null(views: Sequence[walk.ChunkView]) -> bool:
    return any(
        v.choice is not None and "finish_reason" in v.choice and v.choice["finish_reason"] is None
        for v in views
    )


def _usage_null(views: Sequence[walk.ChunkView]) -> str | None:
    """On chunks without usage: `usage: null`, or no key."""
    return _kinds(
        "absent" if "usage" not in v.chunk else "null"
        for v in views
        if v.chunk.get("usage") is None
    )


def _empty_tool_calls(views: Sequence[walk.ChunkView]) -> str | None:
    """What deltas without calls carry as `tool_calls`: no key, `null`, or `[]`."""
    kinds = []
    for v in views:
        if v.tool_calls:
            continue
        if "tool_calls" not in v.delta:
            kinds.append("absent")
        elif v.delta["tool_calls"] is None:
            kinds.append("null")
        elif v.delta["tool_calls"] == []:
            kinds.append("empty")
    return _kinds(kinds)


def _content_placeholder(views: Sequence[walk.ChunkView]) -> str | None:
    """`content` on deltas that carry no text: `null` or `""`."""
    return _kinds(
        "null" if v.delta["content"] is None else "empty"
        for v in views
        if "content" in v.delta and not v.delta["content"]
    )


def _reasoning_field(views: Sequence[walk.ChunkView]) -> str | None:
    """Which delta field carries the reasoning text; both is `mixed`, as for every other quirk
    whose stream shows more than one kind (a value outside the vocabulary would make
    `record --accept` write a providers.yaml nothing can load)."""
    return _kinds(k for v in views for k in ("reasoning_content", "reasoning") if v.delta.get(k))


def _usage(views: Sequence[walk.ChunkView], finish: walk.ChunkView | None) -> str:
    places = []
    for v in views:
        if v.choice is not None and v.choice.get("usage"):
            places.append("in_choice")
        if not v.chunk.get("usage"):
            continue
        if v.choice is None:
            places.append("usage_chunk")
        elif finish is not None and v.position == finish.position:
            places.append("finish_chunk")
        elif finish is not None and v.position > finish.position:
            places.append("after_finish")
        else:
            places.append("every_chunk")
    for place in ("usage_chunk", "finish_chunk", "after_finish", "in_choice"):
        if place in places:
            return place
    return "every_chunk" if places else "none"


def _role(views: Sequence[walk.ChunkView]) -> str | None:
    carrying = [v for v in views if v.delta]
    if not carrying:
        return None
    has = [("role" in v.delta) for v in carrying]
    if not any(has):
        return "absent"
    if all(has):
        return "every"
    if has[0] and not any(has[1:]):
        return "first"
    return "mixed"


def _kinds(kinds: Any) -> str | None:
    seen = set(kinds)
    if not seen:
        return None
    return seen.pop() if len(seen) == 1 else "mixed"
