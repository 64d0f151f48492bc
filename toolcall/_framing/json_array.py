"""The JSON-array framing (Gemini's `streamGenerateContent` without `?alt=sse`), sans-IO like the
SSE decoder.

The body is one JSON array, `[{...}\\n,\\n{...}]`, compact or pretty-printed, and each element is
one event, sent as soon as it is made. Bytes in, split anywhere; the text of each complete
element out. The scan only looks for the bytes that change where it stands (quotes, backslashes
inside strings, brackets and braces outside them), all ASCII, which never occur inside a UTF-8
sequence, so an element is cut from the bytes once it closes and handed over as its text, or,
when it is long, as its bytes (`DocumentDecoder`). `max_event_chars` bounds one element,
checked as the bytes arrive, before anything is decoded.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .._errors import LimitExceeded, StreamError, ToolCallError
from .json_documents import DocumentDecoder
from .long_events import LongEvent
from .sse import DEFAULT_MAX_EVENT_CHARS, Span

_OUTSIDE = re.compile(rb'["{}\[\]]')
_INSIDE = re.compile(rb'["\\]')
_WHITESPACE = b" \t\r\n"
_BOM = b"\xef\xbb\xbf"


class JSONArrayDecoder(DocumentDecoder):
    """Splits a JSON-array body into its elements; the interface of `SSEDecoder` (`feed`,
    `close`, `error`), and `end_absent` when the array never closed. An element's envelope is
    the comma and whitespace around it, which no slice repeats as a socket hands it over, so
    it gives none to take an event by (`DocumentDecoder.envelope`)."""

    def __init__(self, *, max_event_chars: int = DEFAULT_MAX_EVENT_CHARS) -> None:
        super().__init__(max_event_chars=max_event_chars)
        self._at = 0  # where the scan goes on in `_buf`
        self._start = -1  # where the element in progress began in `_buf`; -1 between elements
        self._depth = 0
        self._in_string = False
        self._opened = False
        self._closed = False
        self._want = "value or end"  # after `[`; then "comma or end", or "value" after a comma
        self._elements = 0
        self._offset = 0  # bytes dropped from the front of `_buf`

    def take(self, data: bytes) -> list[str | LongEvent]:
        if self.error is not None:
            return []
        buf = self._buf
        buf += data
        out: list[str | LongEvent] = []
        try:
            self._scan(out)
        except ToolCallError as exc:
            self.error = exc
        # Keep only the element in progress (or nothing between elements).
        keep = self._start if self._start >= 0 else self._at
        if keep:
            del buf[:keep]
            self._offset += keep
            self._at -= keep
            if self._start >= 0:
                self._start = 0
        if self.error is None and self._start >= 0 and len(buf) > self._limit:
            self.error = self._too_long()
        return out

    def close(self) -> list[str | LongEvent]:
        """End of body: an element cut off is an error; an array never closed is reported."""
        if self.error is not None:
            raise self.error
        if self._start >= 0:
            raise StreamError(
                f"the JSON array body ended inside its element {self._elements + 1}, which "
                f"began at byte offset {self._offset + self._start}"
            )
        if self._opened and not self._closed:
            self.end_absent = "']' closing the JSON array"
        return []

    def _scan(self, out: list[str | LongEvent]) -> None:
        buf = self._buf
        end = len(buf)
        at = self._at
        while at < end:
            if self._start < 0:
                byte = buf[at]
                if byte in _WHITESPACE:
                    at += 1
                    continue
                if end - at < len(_BOM) and _BOM.startswith(buf[at:end]):
                    break  # perhaps a byte-order mark, still arriving
                at = self._between(buf, at, byte, out)
                continue
            if self._in_string:
                found = _INSIDE.search(buf, at)
                if found is None:
                    at = end
                    break
                at = found.start()
                if buf[at] == 0x5C:  # a backslash escapes the next byte, which may not be here
                    if at + 1 >= end:
                        break
                    at += 2
                    continue
                self._in_string = False
                at += 1
                continue
            found = _OUTSIDE.search(buf, at)
            if found is None:
                at = end
                break
            at = found.start()
            byte = buf[at]
            at += 1
            if byte == 0x22:  # "
                self._in_string = True
            elif byte in b"{[":
                self._depth += 1
            else:
                self._depth -= 1
                if self._depth == 0:
                    if at - self._start > self._limit:
                        raise self._too_long()  # by its closing bracket, checked below no more
                    with memoryview(buf) as view:
                        self._element(view[self._start : at], out)
                    self._start = -1
                    self._want = "comma or end"
            if self._start >= 0 and at - self._start > self._limit:
                raise self._too_long()
        self._at = at

    def _between(self, buf: bytearray, at: int, byte: int, out: list[str | LongEvent]) -> int:
        """Read the byte at `at` between elements; returns where the scan goes on."""
        if not self._opened:
            if at == 0 and self._offset == 0 and buf.startswith(_BOM):
                return at + len(_BOM)
            if byte != 0x5B:  # [
                raise StreamError("the body is not a JSON array: it does not begin with '['")
            self._opened = True
            return at + 1
        if self._closed:
            if buf.startswith(_BOM, at):  # a second body's byte-order mark
                return at + len(_BOM)
            if byte == 0x5B:  # another array after the first: a body sent twice
                self._closed = False
                self._want = "value or end"
                return at + 1
            raise StreamError(
                f"the JSON array body goes on after its closing ']' (byte offset "
                f"{self._offset + at})"
            )
        if byte == 0x5D and self._want != "value":  # ]
            self._closed = True
            return at + 1
        if byte == 0x2C and self._want == "comma or end":  # ,
            self._want = "value"
            return at + 1
        if byte in b"{[" and self._want != "comma or end":
            self._start = at
            self._depth = 1
            return at + 1
        wanted = {"value": "an element", "comma or end": "a comma or the closing ']'"}
        raise StreamError(
            f"the JSON array body has {chr(byte)!r} at byte offset {self._offset + at}, where "
            f"{wanted.get(self._want, 'an element or the closing ]')} belongs"
        )

    def _element(self, raw: memoryview, out: list[str | LongEvent]) -> None:
        self._elements += 1
        name = f"element {self._elements} of the JSON array"
        try:
            self._document(raw, name, out)
        except UnicodeDecodeError as exc:
            raise StreamError(f"{name} is not UTF-8: {exc.reason}") from None
        finally:
            raw.release()  # an error's traceback would hold it, and the buffer could not shrink

    def _too_long(self) -> LimitExceeded:
        return LimitExceeded(
            f"element {self._elements + 1} of the JSON array exceeds {self._limit} characters "
            "(max_event_chars)"
        )


class _Spanning(JSONArrayDecoder):
    """The decoder, noting where each element begins and ends in the body (`spans`): a
    subclass, so the builder's decoder does no such bookkeeping."""

    def __init__(self, *, max_event_chars: int) -> None:
        super().__init__(max_event_chars=max_event_chars)
        self.bounds: list[tuple[int, int]] = []

    def _element(self, raw: memoryview, out: list[str | LongEvent]) -> None:
        start = self._offset + self._start
        self.bounds.append((start, start + len(raw)))
        super()._element(raw, out)


def spans(body: bytes, *, max_event_chars: int = DEFAULT_MAX_EVENT_CHARS) -> Iterator[Span]:
    """Each element of a whole JSON-array body with its byte span (`_sse.spans`, which this is
    for the array): an element's span runs from where it begins to where the next one does, so
    the comma and line ends after it (Gemini's `\\n,\\r\\n`) are its own, the opening `[`
    is the first one's and the closing `]` the last one's. Raises the decoder's `StreamError`
    where it refuses the body, after the spans before it, the last of which then ends with its
    element."""
    decoder = _Spanning(max_event_chars=max_event_chars)
    texts = [d if isinstance(d, str) else d.text() for d in decoder.take(body)]
    bounds = decoder.bounds
    for number, text in enumerate(texts):
        start = 0 if number == 0 else bounds[number][0]
        if number + 1 < len(texts):
            end = bounds[number + 1][0]
        else:
            # the body's end, unless what follows the element is refused or cut off
            whole = decoder.error is None and decoder._start < 0
            end = len(body) if whole else bounds[number][1]
        yield Span(start, end, text)
    decoder.close()
    if not texts and body:
        yield Span(0, len(body), None)
