"""What the framings whose events are JSON documents of the body share (NDJSON's lines, the
JSON array's elements): the interface the builder reads every decoder through, as
`SSEDecoder` offers it.

Neither has comments, and only the JSON array can lack its closing mark, but the builder and
the end of a turn read every decoder alike (`_turn.Framed`), so the attributes are here with
the values that say so.
"""

from __future__ import annotations

import codecs
from abc import ABC, abstractmethod
from typing import ClassVar, cast

from ._errors import ToolCallError, check_limit
from ._sse import DEFAULT_MAX_EVENT_CHARS, LongEvent

#: Bytes of one document held before they are decoded as they come (`DocumentDecoder`).
DECODED_FROM = 64 * 1024


class DocumentDecoder(ABC):
    """The state every such decoder keeps, and the shortcut's interface answered by default:
    no envelope, so no event is ever taken without the decoder (`_shortcut`).

    A document is held as bytes until it ends, then decoded whole; one held past
    `DECODED_FROM` bytes (an Ollama line or a Gemini element carrying a whole call, a
    megabyte) is decoded as it arrives instead, by an incremental decoder that keeps a
    character split between two reads whole. Decoded whole, a megabyte document cost its
    bytes and three times their size again while Python widened its text to two bytes a
    character; decoded in pieces, it costs the pieces and their join.
    """

    #: Bytes of one document held before they are decoded as they come.
    decoded_from: ClassVar[int] = DECODED_FROM

    def __init__(self, *, max_event_chars: int = DEFAULT_MAX_EVENT_CHARS) -> None:
        self._limit = check_limit("max_event_chars", max_event_chars)
        self._buf = bytearray()
        # The start of a long document, decoded, and how many bytes it was (`DECODED_FROM`).
        self._pieces: list[str] = []
        self._decoded = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")()
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
        """A slice of `size` bytes was one event read without this decoder (`_shortcut`)."""

    @abstractmethod
    def feed(self, data: bytes) -> list[str]:
        """Take the next slice of the body; return the text of the documents it completes."""

    def take(self, data: bytes) -> list[str | LongEvent]:
        """What a `TurnBuilder` reads (`SSEDecoder.take`): here, what `feed` gives, for a
        document is made text as it comes."""
        return cast("list[str | LongEvent]", self.feed(data))

    def take_whole(self, data: bytes) -> LongEvent | None:
        """None: a document is made text as it comes (`SSEDecoder.take_whole`)."""
        return None

    def _decode_front(self, size: int) -> None:
        """Decode the first `size` bytes held, the start of a long document, into its pieces
        and let go of them; raises `UnicodeDecodeError` where they are not UTF-8."""
        with memoryview(self._buf) as view:
            self._pieces.append(self._decoder.decode(view[:size]))
        del self._buf[:size]
        self._decoded += size

    def _document(self, raw: bytes | memoryview) -> str:
        """The text of a document whose last bytes are `raw`, its start decoded or not; raises
        `UnicodeDecodeError` where it is not UTF-8."""
        pieces = self._pieces
        if not pieces:
            return str(raw, "utf-8")
        try:
            pieces.append(self._decoder.decode(raw, True))
            return "".join(pieces)
        finally:
            pieces.clear()
            self._decoded = 0
