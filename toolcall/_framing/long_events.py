"""A long event held as the UTF-8 bytes it came in: an SSE payload, an NDJSON line or a JSON
array's element of at least 64 KiB (a whole call, a repetition of one, a megabyte).

Its decoder hands it over as bytes rather than text, and the reader reads it from them where
the backend can (`_json.utf8_reader`), checks it without reading it (Responses' repetitions,
`_fast.repeated_text`), or makes it text a window at a time: a megabyte payload costs its bytes and
the value read from them, rather than its text, that text widened, and the value.
"""

from __future__ import annotations

import codecs

from .._errors import StreamError

#: Bytes a `LongEvent` is decoded by at a time.
_DECODED_BY = 64 * 1024
#: JSON's whitespace, which ends a document without being part of it.
_SPACES = b" \t\r\n"


def tidy(text: str) -> str:
    """A document's text as it is read: without a byte-order mark that begins it (the body's,
    or a second body's a relay appended; no JSON text begins with one) and the whitespace
    around it."""
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.strip()


class LongEvent:
    """A long payload: `data[start:end]`, where `data` is the slice that was one whole event
    (not copied) or the bytes the decoder held it in (its own); `offset`, the byte offset in
    the body where it begins, for the error that says where it is not UTF-8. `document` names
    a framing's JSON document ("line 5"; None for an SSE payload): its text is `tidy`, and the
    error names it, as for a short one."""

    __slots__ = ("data", "document", "end", "offset", "start")

    def __init__(
        self,
        data: bytes | bytearray,
        start: int,
        end: int,
        offset: int,
        document: str | None = None,
    ) -> None:
        self.data = data
        self.start = start
        self.end = end
        self.offset = offset
        self.document = document

    def payload(self) -> bytes:
        """The payload's bytes as one `bytes`, for a reader that reads bytes (`_json.
        utf8_reader`): held from now on in place of the decoder's buffer it was copied from,
        which is let go of, so the two are held together only while it is copied."""
        data, start, end = self.data, self.start, self.end
        if type(data) is bytes and start == 0 and end == len(data):
            return data
        payload = bytes(memoryview(data)[start:end])
        self.data, self.start, self.end = payload, 0, len(payload)
        return payload

    def text(self) -> str:
        """The payload made text, once: decoded a window at a time, and the decoder's own bytes
        let go of as they are, so the bytes, their text and the text's pieces are never all
        held at once (a megabyte decoded in one call held three times its size while Python
        widened its text)."""
        data, at, end = self.data, self.start, self.end
        if self.document is not None:
            # A document's line end and the spaces before it are left out here, where leaving
            # them out costs nothing: stripped from the text, they cost a copy of a megabyte.
            while end > at and data[end - 1] in _SPACES:
                end -= 1
        owned = type(data) is bytearray
        decode = codecs.getincrementaldecoder("utf-8")().decode
        pieces: list[str] = []
        done = 0
        window: bytes | bytearray = b""
        try:
            while at < end:
                window = data[at : min(end, at + _DECODED_BY)]
                pieces.append(decode(window))
                done += len(window)
                if owned:
                    del data[: len(window)]  # type: ignore[union-attr]
                    end -= len(window)
                else:
                    at += len(window)
            # The line end that followed in the body ends it here too, so a character cut off
            # before it is refused as the bytes that came say, where they came.
            window = b"\n"
            pieces.append(decode(window, True)[:-1])
        except UnicodeDecodeError as exc:
            # The decoder's error counts from the bytes it held back before `window`.
            at = self.offset + done - (len(exc.object) - len(window)) + exc.start
            if self.document is not None:
                raise StreamError(f"{self.document} is not UTF-8: {exc.reason}") from None
            raise StreamError(
                f"SSE body is not valid UTF-8 at byte offset {at}: {exc.reason}"
            ) from None
        text = "".join(pieces)
        return text if self.document is None else tidy(text)
