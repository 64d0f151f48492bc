"""Newline-delimited JSON framing (Ollama's `/api/chat`), sans-IO like the SSE decoder.

Bytes in, split anywhere; each complete line out, as its text, or, when it is long, as its
bytes (`DocumentDecoder`). A line ends at `\\n`, `\\r\\n` or a lone `\\r` (JSON escapes both
inside strings, so either byte outside one ends a line; neither occurs inside a UTF-8
sequence). A byte-order mark that begins a line (the body's, or a second body's a relay
appended) is not part of it: no JSON text begins with one. `max_event_chars` bounds one line,
checked as the bytes arrive, before anything is decoded; it counts the line's bytes (at least
its characters), so the bound is crossed at the same line however the body is split.
"""

from __future__ import annotations

from ._documents import DocumentDecoder
from ._errors import LimitExceeded, StreamError
from ._long import LongEvent
from ._sse import DEFAULT_MAX_EVENT_CHARS


class NDJSONDecoder(DocumentDecoder):
    """Splits a body into its lines; the interface of `SSEDecoder` (`take`, `close`, `error`)."""

    def __init__(self, *, max_event_chars: int = DEFAULT_MAX_EVENT_CHARS) -> None:
        super().__init__(max_event_chars=max_event_chars)
        self._lines = 0

    def take(self, data: bytes) -> list[str | LongEvent]:
        if self.error is not None:
            return []
        buf = self._buf
        start = len(buf)
        if b"\r" in data:
            # `\r\n` becomes two line ends, and the empty line between them is skipped.
            data = data.replace(b"\r", b"\n")
        buf += data
        out: list[str | LongEvent] = []
        taken = 0
        # Each line is read from a view of the buffer: a slice and its bytes were two more
        # copies of a megabyte line (an Ollama call whole) beside the buffer and the text.
        with memoryview(buf) as view:
            while True:
                end = buf.find(b"\n", start)
                if end < 0:
                    break
                if end - taken > self._limit:
                    self.error = self._too_long()
                    break
                self._line(view[taken:end], out)
                if self.error is not None:
                    break
                taken = start = end + 1
        del buf[:taken]
        if self.error is None and len(buf) > self._limit:
            self.error = self._too_long()
        return out

    def take_whole(self, data: bytes) -> LongEvent | None:
        """A slice that is exactly one long line, with nothing held before it (a megabyte line
        as a socket or a test hands it over): the line as a `LongEvent` over the slice itself,
        its line end included (JSON whitespace), not copied into the buffer and out again.
        None for any other slice, which `take` reads."""
        if self._buf or self.error is not None or len(data) < self.long_from:
            return None
        if data.find(b"\n") != len(data) - 1 or len(data) - 1 > self._limit or b"\r" in data:
            return None
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
