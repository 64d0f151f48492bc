"""A body cut into its framing's events as the bytes arrive, each with its byte span.

The doctor reports where in a capture something happened (event 14, byte 2 316), and reads a
capture of gigabytes without holding it: so the body is cut here, incrementally, into contiguous
pieces that each end with one event (and the framing bytes before it), and the library is fed
one piece at a time. What the library emits while a piece is fed happened in that event.

Only the cut is made here, never a reading of the events: the library's decoders stay the one
reader of a framing (an event this cut gets wrong is still read right, only placed less well).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

#: An SSE event ends at an empty line; any of the three line ends may end a line.
_BLANK_LINE = re.compile(rb"(?:\r\n|\r(?!\n)|\n)(?:\r\n|\r(?!\n)|\n)")
_LINE_END = re.compile(rb"\r\n|\r(?!\n)|\n")
#: What a JSON array's scanner stops at: strings, nesting and separators.
_JSON_MARKS = re.compile(rb'["\\\[\]{},]')
#: A piece is cut at this size even without an event's end, so memory stays bounded.
MAX_PIECE = 1 << 20


@dataclass(frozen=True, slots=True)
class Piece:
    """Bytes `start`..`start + len(data)` of the body; `event` is the number of the event it
    ends (0-based, counting events with a payload), None for framing only (a comment, a
    separator, a piece of an event longer than `MAX_PIECE`)."""

    start: int
    data: bytes
    event: int | None


class Cutter:
    """Cuts one body in `framing` ("sse", "ndjson", "json-array") into `Piece`s."""

    def __init__(self, framing: str) -> None:
        self.framing = framing
        self._held = bytearray()
        self._offset = 0
        self.events = 0
        # JSON array scanner state: depth, inside a string, scan position.
        self._depth = 0
        self._string = False
        self._scanned = 0

    def feed(self, data: bytes) -> list[Piece]:
        """The pieces `data` completes, in order."""
        self._held += data
        pieces: list[Piece] = []
        while True:
            end = self._next_end()
            if end is None:
                break
            pieces.append(self._take(end, event=True))
        if len(self._held) > MAX_PIECE:
            pieces.append(self._take(len(self._held), event=False))
        return pieces

    def close(self) -> list[Piece]:
        """What is left: the last event, if it had no end."""
        if not self._held:
            return []
        return [self._take(len(self._held), event=bool(self._held.strip(b" \t\r\n],")))]

    def _take(self, end: int, *, event: bool) -> Piece:
        data = bytes(self._held[:end])
        del self._held[:end]
        self._scanned = max(0, self._scanned - end)
        number: int | None = None
        if event and self._has_payload(data):
            number = self.events
            self.events += 1
        piece = Piece(self._offset, data, number)
        self._offset += end
        return piece

    def _has_payload(self, data: bytes) -> bool:
        if self.framing == "sse":
            return any(
                line.startswith(b"data:") for line in data.lstrip(b"\xef\xbb\xbf").splitlines()
            )
        return bool(data.strip(b" \t\r\n[],\xef\xbb\xbf"))

    def _next_end(self) -> int | None:
        held = self._held
        if self.framing == "sse":
            found = _BLANK_LINE.search(held)
            # A lone CR at the very end may be the first half of CRLF: wait for the next byte.
            if found is None or (found.end() == len(held) and held.endswith(b"\r")):
                return None
            return found.end()
        if self.framing == "ndjson":
            found = _LINE_END.search(held)
            if found is None or (found.end() == len(held) and held.endswith(b"\r")):
                return None
            return found.end()
        return self._array_end()

    def _array_end(self) -> int | None:
        """The end of the next element of a JSON array: just after it closes at depth 1."""
        held = self._held
        position = self._scanned
        while (mark := _JSON_MARKS.search(held, position)) is not None:
            char = mark.group()
            position = mark.end()
            if self._string:
                if char == b"\\":
                    if position == len(held):
                        position -= 1  # the escaped character has not come yet
                        break
                    position += 1  # the escaped character, whatever it is
                elif char == b'"':
                    self._string = False
            elif char == b'"':
                self._string = True
            elif char in (b"[", b"{"):
                self._depth += 1
            elif char in (b"]", b"}"):
                self._depth -= 1
                if self._depth == 1 and char == b"}":
                    self._scanned = position
                    return position
        self._scanned = len(held) if mark is None else position
        return None


def pieces(framing: str, chunks: Iterable[bytes]) -> Iterator[Piece]:
    """Every piece of a body given as byte chunks, in order."""
    cutter = Cutter(framing)
    for chunk in chunks:
        yield from cutter.feed(chunk)
    yield from cutter.close()
