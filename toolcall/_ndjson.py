"""Newline-delimited JSON framing (Ollama's `/api/chat`), sans-IO like the SSE decoder.

Bytes in, split anywhere; the text of each complete line out. A line ends at `\\n`, `\\r\\n` or
a lone `\\r` (JSON escapes both inside strings, so either byte outside one ends a line; neither
occurs inside a UTF-8 sequence), so a line is cut from the bytes and decoded whole, or, when it
is long, as it arrives (`DocumentDecoder`). A byte-order mark that begins a line (the body's,
or a second body's a relay appended) is not part of it: no JSON text begins with one.
`max_event_chars` bounds one line, checked as the bytes arrive, before anything is decoded; it
counts the line's bytes (at least its characters), so the bound is crossed at the same line
however the body is split.
"""

from __future__ import annotations

from ._documents import DocumentDecoder
from ._errors import LimitExceeded, StreamError
from ._sse import DEFAULT_MAX_EVENT_CHARS


class NDJSONDecoder(DocumentDecoder):
    """Splits a body into its lines; the interface of `SSEDecoder` (`feed`, `close`, `error`)."""

    def __init__(self, *, max_event_chars: int = DEFAULT_MAX_EVENT_CHARS) -> None:
        super().__init__(max_event_chars=max_event_chars)
        self._lines = 0

    def feed(self, data: bytes) -> list[str]:
        if self.error is not None:
            return []
        buf = self._buf
        start = len(buf)
        if b"\r" in data:
            # `\r\n` becomes two line ends, and the empty line between them is skipped.
            data = data.replace(b"\r", b"\n")
        buf += data
        out: list[str] = []
        taken = 0
        # Each line is decoded from a view of the buffer: a slice and its bytes were two more
        # copies of a megabyte line (an Ollama call whole) beside the buffer and the text.
        with memoryview(buf) as view:
            while True:
                end = buf.find(b"\n", start)
                if end < 0:
                    break
                if end - taken + self._decoded > self._limit:
                    self.error = self._too_long()
                    break
                self._line(view[taken:end], out)
                if self.error is not None:
                    break
                taken = start = end + 1
        del buf[:taken]
        if self.error is None and len(buf) + self._decoded > self._limit:
            self.error = self._too_long()
        if self.error is None and len(buf) >= self.decoded_from:
            try:
                self._decode_front(len(buf))
            except UnicodeDecodeError as exc:
                self.error = StreamError(f"line {self._lines + 1} is not UTF-8: {exc.reason}")
        return out

    def envelope(self) -> tuple[bytes, bytes] | None:
        """The bytes around a line's payload when nothing is held: none before it, its newline
        after it (`_shortcut`)."""
        held = self._buf or self._pieces
        return (b"", b"\n") if not held and self.error is None else None

    def passed(self, size: int) -> None:
        """A line was read without this decoder (`_shortcut`): it counts for the line numbers
        errors give."""
        self._lines += 1

    def close(self) -> list[str]:
        """End of body: a last line without its newline is still a line."""
        if self.error is not None:
            raise self.error
        out: list[str] = []
        if self._pieces or self._buf.strip():
            self._line(bytes(self._buf), out)
            self.unterminated_final_event = bool(out)
        self._buf.clear()
        if self.error is not None:
            raise self.error  # a last line that is not UTF-8 is refused as any other line is
        return out

    def _line(self, raw: bytes | memoryview, out: list[str]) -> None:
        self._lines += 1
        try:
            text = self._document(raw)
        except UnicodeDecodeError as exc:
            self.error = StreamError(f"line {self._lines} is not UTF-8: {exc.reason}")
            return
        if text.startswith("\ufeff"):
            text = text[1:]
        text = text.strip()
        if text:
            out.append(text)

    def _too_long(self) -> LimitExceeded:
        return LimitExceeded(
            f"line {self._lines + 1} exceeds {self._limit} characters (max_event_chars)"
        )
