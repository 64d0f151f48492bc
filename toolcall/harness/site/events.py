"""A case's stream as the case page shows it: one event at a time, with the bytes that decide
the turn marked.

Which bytes decide the turn is a property of the wire: the keys that carry a call's index, id,
name and argument fragments, and the ones that end or cut the turn (a finish or stop reason, the
stream's last event). Those keys and their scalar values are marked; the rest of each event is
context. The events are cut by the harness's one body reader (`wires.flushes`), so an event on
the page is what a client read in one piece, and a body it refuses is still shown, its rest whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..reading import wires
from .html import esc

#: The JSON keys whose values decide an assembled turn, per wire.
KEYS = {
    "chat": ("tool_calls", "index", "id", "name", "arguments", "finish_reason", "function_call"),
    "responses": (
        "type",
        "item_id",
        "output_index",
        "call_id",
        "name",
        "delta",
        "arguments",
        "status",
        "incomplete_details",
        "reason",
    ),
    "anthropic": (
        "type",
        "index",
        "id",
        "name",
        "partial_json",
        "input",
        "stop_reason",
    ),
    "gemini": ("functionCall", "name", "args", "id", "finishReason"),
    "ollama": ("tool_calls", "function", "name", "arguments", "index", "done", "done_reason"),
}
#: Bytes that end a stream on the wires that say so outside the JSON.
ENDINGS = re.compile(r"\[DONE\]")
#: A scalar JSON value: a string (escapes included), a number, true, false or null.
_SCALAR = r'"(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*|true|false|null'
#: Events shown on a page at most; a longer stream says how many more there are.
SHOWN = 400


@dataclass(frozen=True)
class Event:
    """One event's text and the spans of it (start, end) that are marked."""

    text: str
    marks: tuple[tuple[int, int], ...]


def pattern(wire: str) -> re.Pattern[str]:
    keys = "|".join(re.escape(k) for k in KEYS.get(wire, KEYS["chat"]))
    return re.compile(rf'"(?:{keys})"\s*:\s*(?:{_SCALAR})?')


def split(body: str, wire: str, framing: str = "") -> list[Event]:
    """The body's events, each with its marked spans."""
    found = pattern(wire)
    pieces = wires.flushes(wire, body.encode("utf-8"), framing)
    out = []
    for piece in pieces:
        text = piece.decode("utf-8", "replace")
        if not text.strip():
            continue
        spans = [m.span() for m in found.finditer(text)]
        spans += [m.span() for m in ENDINGS.finditer(text)]
        out.append(Event(text, tuple(sorted(spans))))
    return out


def marked(event: Event) -> str:
    """The event as HTML, its marked spans in `<mark>` (the rest escaped)."""
    parts = []
    at = 0
    for start, end in event.marks:
        if start < at:
            continue
        parts.append(esc(event.text[at:start]))
        parts.append(f"<mark>{esc(event.text[start:end])}</mark>")
        at = end
    parts.append(esc(event.text[at:]))
    return "".join(parts)
