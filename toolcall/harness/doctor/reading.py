"""The captured body read by the library, event by event, with where each thing happened.

The body is read by the harness's one body reader a window at a time (`windows`: each event
with its number and byte offset), and each event is fed to one `toolcall.TurnBuilder`: what the
builder reports while an event is fed (a diagnostic, an error, text) happened in that event, so
every finding can say "event 14, byte 2 316". Nothing is
held but what a finding may quote: the first `HEAD_KEPT` bytes (for identifying and excerpts),
the last events (for an error at the end) and the events where something happened. The turn
itself is held by the library within its own limits.

A body of JSON lines whose events are another wire's than Ollama's (a capture that dropped the
SSE framing, as some published sources do) is read as the SSE it was: each line made a `data:`
event, named on the two wires that name events.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import toolcall
from toolcall._wires import framing_of, wire_of

from ..reading import wires
from .capture import Capture
from .windows import Piece, pieces

#: The start of the body kept for identifying it and quoting it.
HEAD_KEPT = 1 << 20
#: How many bytes of one event a finding quotes.
EXCERPT = 600
_MARKUP_AT = re.compile(r"the (content|reasoning) holds .*? at character ([0-9]+)\)")


@dataclass(frozen=True)
class Where:
    """A place in the body: the event's number (None: the end of the body) and byte offset."""

    event: int | None
    offset: int

    def said(self) -> str:
        if self.event is None:
            return f"at the end of the body (byte {self.offset})"
        return f"event {self.event}, byte {self.offset}"


#: Characters of a call's arguments kept as they arrive (for a turn that breaks before its end).
ARGUMENTS_KEPT = 64 * 1024


@dataclass
class Started:
    """A call as far as its events went: where it began, its arguments so far (the first
    `ARGUMENTS_KEPT` characters), and whether it completed."""

    id: str
    name: str
    began: Where
    arguments: str = ""
    length: int = 0
    done: bool = False


@dataclass
class Reading:
    """What the library made of the body, and where."""

    wire: str = "unknown"
    framing: str = "unknown"
    #: True when JSON lines of another wire's events were read as the SSE they were.
    lines_as_sse: bool = False
    turn: toolcall.Turn | None = None
    error: toolcall.ToolCallError | None = None
    error_at: Where | None = None
    #: The events that carry data (the numbering counts comments and blank lines too).
    events: int = 0
    size: int = 0
    head: bytearray = field(default_factory=bytearray)
    #: The first events, decoded (for identifying the stream).
    first_events: list[dict[str, Any]] = field(default_factory=list)
    #: Where each diagnostic of the turn was first raised, by its position in the turn.
    diagnostic_at: dict[int, Where] = field(default_factory=dict)
    #: Raw bytes of events a finding may quote, by event number.
    excerpts: dict[int, bytes] = field(default_factory=dict)
    #: The last event that said how the turn finished (a finish reason, a stop, `done`).
    finish_at: Where | None = None
    #: The calls by index as their events went, complete or not.
    started: dict[int, Started] = field(default_factory=dict)
    #: (channel, characters before, where) each time an event added text or reasoning.
    text_marks: list[tuple[str, int, Where]] = field(default_factory=list)

    def markup_where(self, message: str) -> Where | None:
        """Where a `tool_call_in_text` diagnostic's markup began, from the character its
        message names and the text each event added."""
        found = _MARKUP_AT.search(message)
        if found is None:
            return None
        channel, at = found.group(1), int(found.group(2))
        place = None
        for mark_channel, before, where in self.text_marks:
            if mark_channel == channel and before <= at:
                place = where
        return place


def read(capture: Capture, wire: str = "auto") -> Reading:
    """Feed the capture's body to the library event by event; never raises the library's
    errors (they are part of the reading)."""
    reading = Reading()
    chunks = capture.chunks()
    first, chunks = _first_bytes(chunks)
    framing = framing_of("auto", first) or "sse"
    reading.framing = framing
    sse_lines = framing == "ndjson" and wire not in ("auto", "ollama")
    if framing == "ndjson" and wire == "auto":
        sse_lines = _not_ollama(first)
    reading.lines_as_sse = sse_lines
    builder = toolcall.TurnBuilder(wire=wire, status=capture.status)
    recent: deque[Piece] = deque(maxlen=3)
    counts = _Counts()
    for piece in pieces(framing, chunks):
        recent.append(piece)
        _keep_head(reading, piece)
        data = _as_sse(piece.raw) if sse_lines and not piece.refused else piece.raw
        where = Where(piece.number, piece.start)
        try:
            events = builder.feed(data)
        except toolcall.ToolCallError as exc:
            reading.error, reading.error_at = exc, where
            _keep_excerpt(reading, piece)
            break
        _note(reading, builder, events, where, counts, piece)
        if piece.payload is not None and _finishes(piece.payload):
            reading.finish_at = where
            _keep_excerpt(reading, piece)
        reading.size = piece.start + len(piece.raw)
        reading.events += piece.carries
    else:
        _finish(reading, builder, counts, recent)
    if builder.wire != "auto":
        reading.wire = builder.wire
    else:
        reading.wire = wire_of_url(capture.url) or _guess_wire(reading, framing)
    return reading


def wire_of_url(url: str | None) -> str | None:
    """The wire a request's URL names by its path (the wire table's paths), or None: it says
    the wire of an answer that never showed it (an error answer)."""
    segments = [s for s in (urlsplit(url).path if url else "").split("/") if s]
    return next((name for name, path in wires.WIRE_PATHS.items() if path.matches(segments)), None)


def body_pieces(capture: Capture, reading: Reading) -> Iterator[bytes]:
    """The body as a client receives it (lines of another wire's events made SSE again), an
    event at a time."""
    for piece in pieces(reading.framing, capture.chunks()):
        yield _as_sse(piece.raw) if reading.lines_as_sse and not piece.refused else piece.raw


def body(capture: Capture, reading: Reading, limit: int) -> bytes | None:
    """The body whole (`body_pieces`), or None when it is larger than `limit`: the peers take
    a body whole."""
    if reading.size > limit:
        return None
    return b"".join(body_pieces(capture, reading))


@dataclass
class _Counts:
    diagnostics: int = 0
    content: int = 0
    reasoning: int = 0


def _first_bytes(chunks: Iterator[bytes]) -> tuple[bytes, Iterator[bytes]]:
    """The body's first bytes that show its framing, and the chunks, nothing lost."""
    taken: list[bytes] = []
    for chunk in chunks:
        taken.append(chunk)
        so_far = b"".join(taken)
        if b"\n" in so_far.lstrip() or len(so_far) > 1 << 16:
            break
    first = b"".join(taken)

    def again() -> Iterator[bytes]:
        yield first
        yield from chunks

    return first, again()


def _not_ollama(first: bytes) -> bool:
    line = first.lstrip(b"\xef\xbb\xbf \t\r\n").split(b"\n", 1)[0]
    try:
        event = json.loads(line)
    except (ValueError, RecursionError):
        return False
    if not isinstance(event, dict) or "done" in event:
        return False
    return isinstance(event.get("type"), str) or "choices" in event or "candidates" in event


def _as_sse(line: bytes) -> bytes:
    """One JSON line as the SSE event it was; named by its `type` where it has one, as the two
    wires whose events have a type name them (an SDK may skip an event without a name)."""
    text = line.strip()
    if not text:
        return b""
    name = b""
    try:
        kind = json.loads(text).get("type")
    except (ValueError, AttributeError, RecursionError):
        kind = None
    if isinstance(kind, str):
        name = b"event: " + kind.encode() + b"\n"
    return name + b"data: " + text + b"\n\n"


_ENDS = ("response.completed", "response.incomplete", "response.failed")


def _finishes(payload: dict[str, Any]) -> bool:
    """Whether an event says how the turn finished, on any wire: chat's and Gemini's finish
    reason, Anthropic's stop reason, the Responses API's end, Ollama's `done`."""
    for key, reason in (("choices", "finish_reason"), ("candidates", "finishReason")):
        listed = payload.get(key)
        if isinstance(listed, list) and any(isinstance(c, dict) and c.get(reason) for c in listed):
            return True
    delta = payload.get("delta")
    if payload.get("type") == "message_delta" and isinstance(delta, dict):
        return bool(delta.get("stop_reason"))
    return payload.get("type") in _ENDS or payload.get("done") is True


def _keep_head(reading: Reading, piece: Piece) -> None:
    if piece.start < HEAD_KEPT:
        reading.head += piece.raw  # a bytearray: appended in place
        if piece.payload is not None and len(reading.first_events) < 64:
            reading.first_events.append(piece.payload)


def _keep_excerpt(reading: Reading, piece: Piece) -> None:
    if len(reading.excerpts) < 256:
        reading.excerpts.setdefault(piece.number, piece.raw[:EXCERPT])


def _note(
    reading: Reading,
    builder: toolcall.TurnBuilder,
    events: list[toolcall.Event],
    where: Where,
    counts: _Counts,
    piece: Piece,
) -> None:
    """What one event made the builder report: new diagnostics, text."""
    held = builder.diagnostics  # each read a prefix of the next: the new ones are past the count
    for number in range(counts.diagnostics, len(held)):
        reading.diagnostic_at[number] = where
        _keep_excerpt(reading, piece)
    counts.diagnostics = len(held)
    for event in events:
        if isinstance(event, (toolcall.ToolCallStarted, toolcall.ArgumentsDelta)):
            _follow(reading, event, where)
        elif isinstance(event, toolcall.ToolCallDone) and event.call.index in reading.started:
            reading.started[event.call.index].done = True
        elif isinstance(event, toolcall.TextDelta):
            reading.text_marks.append(("content", counts.content, where))
            counts.content += len(event.text)
        elif isinstance(event, toolcall.ReasoningDelta):
            reading.text_marks.append(("reasoning", counts.reasoning, where))
            counts.reasoning += len(event.text)
    if len(reading.text_marks) > 100_000:
        del reading.text_marks[50_000:-1]  # bounded: the first places, and the latest


def _follow(
    reading: Reading, event: toolcall.ToolCallStarted | toolcall.ArgumentsDelta, where: Where
) -> None:
    """A call's start or next fragment, kept for a turn that breaks before its end."""
    if isinstance(event, toolcall.ToolCallStarted):
        reading.started.setdefault(event.index, Started(event.id, event.name, where))
        return
    call = reading.started.setdefault(event.index, Started("", "", where))
    if call.length < ARGUMENTS_KEPT:
        call.arguments += event.fragment[: ARGUMENTS_KEPT - call.length]
    call.length += len(event.fragment)


def _finish(
    reading: Reading, builder: toolcall.TurnBuilder, counts: _Counts, recent: deque[Piece]
) -> None:
    end = Where(None, reading.size)
    for piece in recent:
        _keep_excerpt(reading, piece)
    try:
        last = builder.finish()
    except toolcall.UnsoundTurnError as exc:
        reading.error, reading.error_at, reading.turn = exc, end, exc.turn
        return
    except toolcall.ToolCallError as exc:
        reading.error, reading.error_at = exc, end
        return
    done = last[-1]
    assert isinstance(done, toolcall.TurnDone)  # finish() ends with the turn
    reading.turn = done.turn


def _guess_wire(reading: Reading, framing: str) -> str:
    """The wire of a body the builder never named (it broke first): from its first event."""
    if not reading.first_events or isinstance(reading.error, toolcall.ProviderError):
        return "unknown"
    try:
        return wire_of("sse" if reading.lines_as_sse else framing, reading.first_events[0])
    except toolcall.ToolCallError:
        return "unknown"
