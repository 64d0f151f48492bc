"""What the framings whose events are JSON documents of the body share (NDJSON's lines, the
JSON array's elements): the interface the builder reads every decoder through, as
`SSEDecoder` offers it.

Neither has comments, and only the JSON array can lack its closing mark, but the builder and
the end of a turn read every decoder alike (`_turn.Framed`), so the attributes are here with
the values that say so.
"""

from __future__ import annotations

from ._errors import ToolCallError, check_limit
from ._sse import DEFAULT_MAX_EVENT_CHARS


class DocumentDecoder:
    """The state every such decoder keeps, and the shortcut's interface answered by default:
    no envelope, so no event is ever taken without the decoder (`_shortcut`)."""

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

    def passed(self, size: int) -> None:
        """A slice of `size` bytes was one event read without this decoder (`_shortcut`)."""
