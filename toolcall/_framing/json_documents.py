"""What the framings whose events are JSON documents of the body share (NDJSON's lines, the
JSON array's elements): the interface the builder reads every decoder through, as
`SSEDecoder` offers it.

Neither has comments, and only the JSON array can lack its closing mark, but the builder and
the end of a turn read every decoder alike (`_turn.turn.Framed`), so the attributes are here with
the values that say so.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

from .._errors import ToolCallError, check_limit
from .long_events import LongEvent, tidy
from .sse import DEFAULT_MAX_EVENT_CHARS

#: A document this long is handed over as its bytes (a `LongEvent`).
LONG_DOCUMENT_BYTES = 64 * 1024


class DocumentDecoder(ABC):
    """The state every such decoder keeps, and the shortcut's interface answered by default:
    no envelope, so no event is ever taken without the decoder (`_fast.shortcut`).

    A document is held as bytes until it ends, then decoded; one of at least `long_from`
    bytes is handed over as a `LongEvent` instead. Decoded whole, a megabyte document cost
    its bytes and three times their size again while Python widened its text; decoded as it
    arrived, its pieces and their join; held as bytes, it costs them and the value read from
    them.
    """

    #: Bytes from which a document is handed over as its bytes.
    long_from: ClassVar[int] = LONG_DOCUMENT_BYTES

    def __init__(self, *, max_event_chars: int = DEFAULT_MAX_EVENT_CHARS) -> None:
        self._limit = check_limit("max_event_chars", max_event_chars)
        self._buf = bytearray()
        #: The error that stopped decoding; the events before it were returned first.
        self.error: ToolCallError | None = None
        self.comment_count = 0
        self.unterminated_final_event = False
        #: What the body never sent that ends its framing, once it ended (the array's `]`).
        self.end_absent: str | None = None

    def envelope(self) -> tuple[bytes, bytes] | None:
        """The bytes around the last event's payload, if a slice that repeats them around
        another payload is one event this decoder would return alone; None here."""
        return None

    def passed(self, size: int) -> None:  # noqa: B027 (nothing to count, unless overridden)
        """A slice of `size` bytes was one event read without this decoder (`_fast.shortcut`)."""

    @abstractmethod
    def take(self, data: bytes) -> list[str | LongEvent]:
        """Take the next slice of the body; return the documents it completes: the text of
        each, or a long one's bytes (`SSEDecoder.take`)."""

    def take_whole(self, data: bytes) -> LongEvent | None:
        """None: a slice is cut into documents as it comes (`SSEDecoder.take_whole`)."""
        return None

    def _document(self, raw: memoryview, name: str, out: list[str | LongEvent]) -> None:
        """Hand over the document `raw`: a long one as its bytes, any other as its text if it
        has any; raises `UnicodeDecodeError` where a short one is not UTF-8."""
        if len(raw) >= self.long_from:
            document = bytes(raw)
            out.append(LongEvent(document, 0, len(document), 0, name))
            return
        text = tidy(str(raw, "utf-8"))
        if text:
            out.append(text)
