"""A body of any size read by the harness's one body reader (`wires.events`), a window at a time.

The doctor reports where in a capture something happened (event 14, byte 2 316) and must read a
capture of gigabytes without holding it. `wires.events` reads a whole body; here it reads the
body in windows of `WINDOW` bytes, each starting where an event starts, and every event but a
window's last is handed on with its number and byte offset in the whole body. The last is read
again at the start of the next window, since the window may have cut it. A window holding less
than two events (one event longer than the window) grows until it holds two, up to the
library's own limit on one event.

A JSON array is one document: a window after the first begins with an element, so the array's
`[` is put before it to read it, and taken off again.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..reading import wires

WINDOW = 4 << 20
#: A wire sent in each framing, to name the framing to `wires.events` (the events of a
#: framing do not depend on the wire).
_A_WIRE = {wires.SSE: "chat", wires.NDJSON: "ollama", wires.JSON_ARRAY: "gemini"}


@dataclass(frozen=True, slots=True)
class Piece:
    """Bytes `start`..`start + len(raw)` of the body: event `number` (from 0, as `wires.events`
    numbers them), and its JSON object (None for a comment, `[DONE]`, or no object). A piece
    with `refused` set is the rest of a body the reader refused at that event."""

    number: int
    start: int
    raw: bytes
    payload: dict[str, Any] | None
    #: whether the event carries data (not a comment or a blank line alone)
    carries: bool = True
    refused: bool = False


def pieces(framing: str, chunks: Iterator[bytes]) -> Iterator[Piece]:
    """Every event of the body given as byte chunks, in order."""
    held = bytearray()
    offset = number = 0
    pad = b""  # the `[` put before a later window of a JSON array
    target = WINDOW
    ended = False
    while True:
        ended = ended or _fill(held, chunks, target)
        window = pad + bytes(held)
        found, refused = _read(framing, window)
        if refused is not None and _whole(framing, window, refused):
            ended = True  # refused where the window did not cut: the rest is not read
        if not ended and len(found) < 2:
            target *= 2  # one event longer than the window: read on
            continue
        taken = found if ended else found[:-1]
        for event in taken:
            start = offset + event.start - len(pad) if event.number else offset
            raw = event.raw[len(pad) :] if event.number == 0 else event.raw
            carries = event.data is not None
            yield Piece(number + event.number, start, raw, event.payload, carries)
        if ended:
            if refused is not None:
                at = max(refused, len(pad))
                rest = window[at:]
                yield Piece(number + len(found), offset + at - len(pad), rest, None, True, True)
            return
        cut = found[-1].start - len(pad)
        number += len(taken)
        offset += cut
        del held[:cut]
        pad = b"[" if framing == wires.JSON_ARRAY else b""
        target = WINDOW


def _whole(framing: str, window: bytes, refused: int) -> bool:
    """Whether the event refused at `refused` ends inside the window (the window did not cut
    it): a blank line (SSE) or a line end (NDJSON) follows. An array's element cannot be told
    whole so cheaply: the window grows instead."""
    after = window[refused:].lstrip(b"\r\n")
    if framing == wires.SSE:
        return b"\n\n" in after or b"\r\n\r\n" in after or b"\r\r" in after
    return framing == wires.NDJSON and b"\n" in after


def _fill(held: bytearray, chunks: Iterator[bytes], target: int) -> bool:
    """Read chunks into `held` up to `target` bytes; whether the body ended."""
    while len(held) < target:
        chunk = next(chunks, None)
        if chunk is None:
            return True
        held += chunk
    return False


def _read(framing: str, window: bytes) -> tuple[list[wires.Event], int | None]:
    """The window's events, and where the reader refused it (None: it did not)."""
    try:
        return wires.events(_A_WIRE[framing], window, framing), None
    except wires.UnreadableBody as exc:
        return exc.events, exc.offset
