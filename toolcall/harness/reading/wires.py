"""The harness's one table of wires, and its one reader of a body.

Every fact the harness holds about a wire is a field of its row in `WIRES`, chat completions
first: where `toolcall serve` answers it (`path`), the framings it is sent in, usual one first,
and so its content types, how a stream of it is cut short for the cut-off variant (`cut`),
whether its API names each event (`named_events`), how a synthesized cassette of it is written
(`synthesis`), and which peer is its own SDK (`sdk`). What the library knows already (a wire's
framings, each framing's decoder) comes from the library's own table, `toolcall._wires`, so a
sixth wire is one row there with its reader and one row here.

A body is read once, by the library's decoders (`events`): each event with the bytes it came
from, so a reader that cuts, splices or re-sends a stream keeps the body's bytes exactly, and
its decoded JSON object. `objects` is the strict view for a reader that wants only the objects.
Nothing here routes or assembles calls: what is read from a stream never depends on the
assembler it is used to judge.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolcall import ToolCallError
from toolcall import _wires as library

from ..suite.cassettes import CHAT
from . import cutoff

#: The framings, by the library's names.
SSE = "sse"
NDJSON = "ndjson"
JSON_ARRAY = "json-array"
#: The content type of a body in each framing, as a provider labels it.
CONTENT_TYPES: dict[str, str] = {
    SSE: "text/event-stream",
    NDJSON: "application/x-ndjson",
    JSON_ARRAY: "application/json",
}


@dataclass(frozen=True)
class WirePath:
    """Where one wire is served: the API root a client's base URL ends with, the segments a
    request path ends with (`*` stands for a model name), and what the answer's body is."""

    root: str
    ending: tuple[str, ...]
    content_type: str = CONTENT_TYPES[SSE]

    def matches(self, segments: list[str]) -> bool:
        tail = segments[-len(self.ending) :]
        return len(tail) == len(self.ending) and all(
            want == got or (want.startswith("*") and got.endswith(want[1:]))
            for want, got in zip(self.ending, tail, strict=True)
        )


@dataclass(frozen=True)
class Synthesis:
    """How a synthesized cassette of a wire is written (`synthesize.copies`): each event as a
    `data:` line, after an `event:` line on a wire that names its events, with the line end and
    JSON separators the wire's provider writes."""

    line_end: str
    separators: tuple[str, str]


@dataclass(frozen=True)
class Wire:
    """One wire, every fact the harness holds about it (the module's docstring)."""

    name: str
    #: where `toolcall serve` answers it, and the request paths that are its
    path: WirePath
    #: the framings it is sent in, its usual one first (the library's table says)
    framings: tuple[str, ...]
    #: how a stream of it is cut short and closed with its own ending for a cut (`cutoff`)
    cut: cutoff.CutRules
    #: its API names each event with an `event:` line holding the JSON's `type`
    named_events: bool
    #: how `synthesize.copies` writes a cassette of it; None when it is not written so
    synthesis: Synthesis | None
    #: the peer that is the wire's own SDK (its entry-point name), None when it has none
    sdk: str | None

    def content_type(self, framing: str = "") -> str:
        """The content type of a body of this wire in `framing` ("" for its usual one)."""
        return CONTENT_TYPES[framing or self.framings[0]]


def _row(
    name: str,
    root: str,
    ending: tuple[str, ...],
    *,
    named_events: bool = False,
    synthesis: Synthesis | None = None,
    sdk: str | None = None,
) -> Wire:
    framings = library.WIRES[name].framings
    path = WirePath(root, ending, CONTENT_TYPES[framings[0]])
    return Wire(name, path, framings, cutoff.RULES[name], named_events, synthesis, sdk)


_TABLE = (
    _row(CHAT, "/v1", ("chat", "completions"), sdk="openai-sdk"),
    _row(
        "responses",
        "/v1",
        ("responses",),
        named_events=True,
        synthesis=Synthesis("\n", (",", ":")),
        sdk="openai-responses",
    ),
    _row(
        "anthropic",
        "/v1",
        ("v1", "messages"),
        named_events=True,
        synthesis=Synthesis("\n", (",", ":")),
        sdk="anthropic-sdk",
    ),
    _row(
        "gemini",
        "/v1beta",
        ("models", "*:streamGenerateContent"),
        synthesis=Synthesis("\r\n", (", ", ": ")),
        sdk="google-genai",
    ),
    _row("ollama", "", ("api", "chat")),
)
#: Every wire by name, chat completions first.
WIRES: dict[str, Wire] = {row.name: row for row in _TABLE}
#: Every wire's name, chat completions first.
NAMES = tuple(WIRES)
#: Every wire's request path, checked in this order (`serve`).
WIRE_PATHS: dict[str, WirePath] = {row.name: row.path for row in _TABLE}


class UnknownWire(ValueError):
    """A wire name that is no row of the table."""


def wire(name: str) -> Wire:
    """The row of wire `name`; `UnknownWire` naming the known ones for any other."""
    found = WIRES.get(name)
    if found is None:
        raise UnknownWire(f"unknown wire {name!r}; the wires are {', '.join(WIRES)}")
    return found


# -- reading a body -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """One event of a body: its number (from 0), the bytes it came from (`raw`, which is
    `body[start:end]`, framing included: all the events' `raw` put together give the body
    back), what the framing carried (`data`: the `data:` lines joined, the line, the array's
    element; None for a comment or an `event:` line alone), the comment lines in it, and the
    JSON object it carries (`payload`: None for a comment, `[DONE]`, or data that is not a JSON
    object, nor JSON nested too deep to decode)."""

    number: int
    start: int
    end: int
    raw: bytes
    data: str | None
    payload: dict[str, Any] | None
    comments: tuple[str, ...] = ()

    @property
    def done(self) -> bool:
        """Whether it is chat's `[DONE]`."""
        return self.data is not None and self.data.strip() == "[DONE]"


class UnreadableBody(ValueError):
    """A body the library's decoder refuses, or, from `objects`, an event that is no JSON
    object. `events` holds the events read before it, `offset` the byte offset where the event
    it names begins."""

    def __init__(self, message: str, events: list[Event], offset: int) -> None:
        super().__init__(message)
        self.events = events
        self.offset = offset


def framing_of(name: str, body: bytes, framing: str = "") -> str:
    """The framing `body` is read in on wire `name`: `framing` when given, else as the library
    tells it from the body's first byte (its wire's usual framing for an empty body)."""
    row = wire(name)
    if not framing:
        return library.framing_of(name, body) or library.default_framing(name)
    if framing not in row.framings:
        raise UnknownWire(
            f"the {name} wire is not sent in framing {framing!r}; it is sent in "
            f"{', '.join(row.framings)}"
        )
    return framing


def events(wire_name: str, body: bytes, framing: str = "") -> list[Event]:
    """Every event of `body` on wire `wire_name`, split by the library's decoder of its
    framing (`framing_of`). Raises `UnreadableBody` naming the event and its byte offset where
    the decoder refuses the body (bad UTF-8, a line cut off, an array that is not one)."""
    found = framing_of(wire_name, body, framing)
    out: list[Event] = []
    try:
        for span in library.FRAMINGS[found].spans(body):
            out.append(_event(len(out), body, span))
    except ToolCallError as exc:
        at = out[-1].end if out else 0
        raise UnreadableBody(
            f"the {wire_name} body ({found}) cannot be read at event {len(out)}, from byte "
            f"offset {at}: {exc}",
            out,
            at,
        ) from None
    return out


def _event(number: int, body: bytes, span: library.Span) -> Event:
    payload = None
    if span.data is not None and span.data.strip() != "[DONE]":
        try:
            found = json.loads(span.data)
        except (ValueError, RecursionError):
            # Nested deeper than `json` recurses: data the library refuses as it refuses data
            # that is not JSON (a StreamError naming the event), not a body it cannot frame.
            found = None
        payload = found if isinstance(found, dict) else None
    raw = body[span.start : span.end]
    return Event(number, span.start, span.end, raw, span.data, payload, span.comments)


def objects(wire_name: str, body: bytes, framing: str = "") -> list[dict[str, Any]]:
    """The JSON objects `body` carries, in order, for a reader that wants nothing else:
    comments and `[DONE]` left out. Raises `UnreadableBody` for a body `events` refuses and
    for an event whose data is not a JSON object, naming it and its byte offset."""
    return objects_of(wire_name, events(wire_name, body, framing))


def objects_of(wire_name: str, read: list[Event]) -> list[dict[str, Any]]:
    """`objects` of events read already."""
    for event in read:
        if event.payload is None and event.data is not None and not event.done:
            raise UnreadableBody(
                f"event {event.number} of the {wire_name} body, at byte offset "
                f"{event.start}, is not a JSON object: {_why(event.data)}",
                read[: event.number],
                event.start,
            )
    return [event.payload for event in read if event.payload is not None]


def _why(data: str) -> str:
    try:
        found = json.loads(data)
    except ValueError as exc:
        return f"not JSON ({exc})"
    except RecursionError:
        return "JSON nested deeper than it can be decoded"
    return f"a JSON {type(found).__name__}"


def flushes(wire_name: str, body: bytes, framing: str = "") -> list[bytes]:
    """`body` as the pieces a provider flushes, one event each (`serve` writes one a write).
    A body the decoder refuses is still sent whole: its events before the refusal, then the
    rest in one piece (a hostile body registered with `serve` is sent as it is)."""
    try:
        return [event.raw for event in events(wire_name, body, framing)]
    except UnreadableBody as exc:
        rest = body[exc.offset :]
        return [event.raw for event in exc.events] + ([rest] if rest else [])


def frame(row: Wire, event: Mapping[str, Any]) -> str:
    """`event` written as a synthesized cassette of `row`'s wire writes it (`Synthesis`)."""
    synthesis = row.synthesis
    if synthesis is None:
        raise UnknownWire(f"the {row.name} wire has no synthesized cassettes")
    data = json.dumps(event, ensure_ascii=False, separators=synthesis.separators)
    eol = synthesis.line_end
    head = f"event: {event['type']}{eol}" if row.named_events else ""
    return f"{head}data: {data}{eol}{eol}"


__all__ = [
    "CONTENT_TYPES",
    "JSON_ARRAY",
    "NAMES",
    "NDJSON",
    "SSE",
    "WIRES",
    "WIRE_PATHS",
    "Event",
    "Synthesis",
    "UnknownWire",
    "UnreadableBody",
    "Wire",
    "WirePath",
    "events",
    "flushes",
    "frame",
    "framing_of",
    "objects",
    "objects_of",
    "wire",
]
