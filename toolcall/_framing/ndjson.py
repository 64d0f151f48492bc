"""Newline-delimited JSON framing (Ollama's `/api/chat`), sans-IO like the SSE decoder.

Bytes in, split anywhere; each complete line out, as its text, or, when it is long, as its
bytes (`DocumentDecoder`). A line ends at `\\n`, `\\r\\n` or a lone `\\r` (JSON escapes both
inside strings, so either byte outside one ends a line; neither occurs inside a UTF-8
sequence), and is numbered so whichever of the three its body uses. A byte-order mark that
begins a line (the body's, or a second body's a relay appended) is not part of it: no JSON
text begins with one. `max_event_chars` bounds one line, checked as the bytes arrive, before
anything is decoded; it counts the line's bytes (at least its characters), so the bound is
crossed at the same line however the body is split.
"""

from __future__ import annotations

from collections.abc import Iterator

from .._errors import LimitExceeded, StreamError
from .json_documents import DocumentDecoder
from .long_events import LongEvent
from .sse import DEFAULT_MAX_EVENT_CHARS, Span, by_lines


class NDJSONDecoder(DocumentDecoder):
    """Splits a body into its lines; the interface of `SSEDecoder` (`take`, `close`, `error`)."""

    def __init__(self, *, max_event_chars: int = DEFAULT_MAX_EVENT_CHARS) -> None:
        super().__init__(max_event_chars=max_event_chars)
        self._lines = 0
        # The last line ended with a `\r` that ended its slice: a `\n` opening the next slice
        # is that line end's, not another one.
        self._cr = False

    def take(self, data: bytes) -> list[str | LongEvent]:
        if self.error is not None:
            return []
        buf = self._buf
        start = taken = 0
        if self._cr:  # nothing is held after a line's end
            self._cr = False
            start = taken = int(data[:1] == b"\n")
        start += len(buf)
        buf += data
        out: list[str | LongEvent] = []
        # A `\r` ends a line, or begins the `\r\n` that does: looked for only in a slice that
        # holds one, the others' lines found by `buf.find` alone.
        ends = _line_ends(buf, start) if b"\r" in data else None
        # Each line is read from a view of the buffer: a slice and its bytes were two more
        # copies of a megabyte line (an Ollama call whole) beside the buffer and the text.
        with memoryview(buf) as view:
            while True:
                if ends is None:
                    end = buf.find(b"\n", start)
                    after = end + 1
                else:
                    end, after = next(ends, (-1, 0))
                if end < 0:
                    break
                if end - taken > self._limit:
                    self.error = self._too_long()
                    break
                self._line(view[taken:end], out)
                if self.error is not None:
                    break
                taken = start = after
        # A `\r` that ended the slice may be followed by the `\n` of its `\r\n`.
        self._cr = ends is not None and taken == len(buf) and buf[-1:] == b"\r"
        del buf[:taken]
        if self.error is None and len(buf) > self._limit:
            self.error = self._too_long()
        return out

    def take_whole(self, data: bytes) -> LongEvent | None:
        """A slice that is exactly one long line, with nothing held before it (a megabyte line
        as a socket or a test hands it over): the line as a `LongEvent` over the slice itself,
        its line end (`\\n`, `\\r\\n` or `\\r`) included (JSON whitespace), not copied into the
        buffer and out again. None for any other slice, which `take` reads."""
        if self._buf or self.error is not None or len(data) < self.long_from:
            return None
        if self._cr and data[:1] == b"\n":
            return None  # the line end of the line before ends here
        last = len(data) - 1
        end = data.find(b"\n")
        cr = data.find(b"\r", 0, last)
        if end < 0 and data[last] == 0x0D:
            end = last
        elif end == last and cr == last - 1:
            end = cr
        if end != last - (cr >= 0) or end > self._limit:
            return None
        self._cr = end == last and data[last] == 0x0D
        self._lines += 1
        return LongEvent(data, 0, len(data), 0, f"line {self._lines}")

    def envelope(self) -> tuple[bytes, bytes] | None:
        """The bytes around a line's payload when nothing is held: none before it, its newline
        after it (`_shortcut`)."""
        return (b"", b"\n") if not self._buf and self.error is None else None

    def passed(self, size: int) -> None:
        """A line was read without this decoder (`_shortcut`): it counts for the line numbers
        errors give."""
        self._lines += 1
        self._cr = False

    def close(self) -> list[str | LongEvent]:
        """End of body: a last line without its newline is still a line."""
        if self.error is not None:
            raise self.error
        out: list[str | LongEvent] = []
        if self._buf.strip():
            with memoryview(self._buf) as view:
                self._line(view, out)
            # A long line is handed over unread; it is one unless all of it is whitespace
            # outside ASCII, which no JSON line is.
            self.unterminated_final_event = bool(out)
        self._buf.clear()
        if self.error is not None:
            raise self.error  # a last line that is not UTF-8 is refused as any other line is
        return out

    def _line(self, raw: memoryview, out: list[str | LongEvent]) -> None:
        self._lines += 1
        try:
            self._document(raw, f"line {self._lines}", out)
        except UnicodeDecodeError as exc:
            self.error = StreamError(f"line {self._lines} is not UTF-8: {exc.reason}")

    def _too_long(self) -> LimitExceeded:
        return LimitExceeded(
            f"line {self._lines + 1} exceeds {self._limit} characters (max_event_chars)"
        )


def _line_ends(buf: bytearray, start: int) -> Iterator[tuple[int, int]]:
    """Where each line from `start` ends in a buffer that holds a `\r`, and where the next
    begins: at a `\n`, a `\r\n` or a lone `\r`. Each byte is looked for with `find`, once
    through the buffer, as `\n` alone is (a pattern's search is several times slower)."""
    lf = buf.find(b"\n", start)
    cr = buf.find(b"\r", start)
    while lf >= 0 or cr >= 0:
        if cr < 0 or 0 <= lf < cr:
            yield lf, lf + 1
            lf = buf.find(b"\n", lf + 1)
            continue
        after = cr + 1
        if lf == after:
            after += 1
            lf = buf.find(b"\n", after)
        yield cr, after
        cr = buf.find(b"\r", after)


def spans(body: bytes, *, max_event_chars: int = DEFAULT_MAX_EVENT_CHARS) -> Iterator[Span]:
    """Each line of a whole body with its byte span (`_sse.spans`, which this is for NDJSON):
    the decoder is fed one line at a time, and a blank line belongs to the line after it."""
    decoder = NDJSONDecoder(max_event_chars=max_event_chars)

    def feed(line: bytes) -> list[str]:
        return [d if isinstance(d, str) else d.text() for d in decoder.take(line)]

    def close() -> list[str]:
        return [d if isinstance(d, str) else d.text() for d in decoder.close()]

    return by_lines(body, feed, close)
