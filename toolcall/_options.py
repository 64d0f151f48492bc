"""The seven options every way of reading a body takes, as one value.

`TurnBuilder`, `assemble`, `assemble_async`, `iter_events` and `aiter_events` each take the
same keywords (the JSON backend, the four limits, the wire, the HTTP status), and each keeps
them in its signature, where a caller and `help()` see them. Behind the signatures they travel
as one `ReadOptions`, so the one-call forms hand a builder one value rather than seven
arguments in an order, and `tests/library/test_options.py` holds the five signatures to its
fields and defaults: a keyword added to one and not the others fails there.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from ._call_table import DEFAULT_MAX_ARGUMENT_CHARS, DEFAULT_MAX_CALLS, DEFAULT_MAX_TEXT_CHARS
from ._framing.sse import DEFAULT_MAX_EVENT_CHARS


@dataclass(frozen=True, slots=True)
class ReadOptions:
    """How to read one body: `TurnBuilder`'s keywords but `events` and `partial_arguments`,
    which say what to give back rather than how to read."""

    json_backend: str = "auto"
    max_calls: int = DEFAULT_MAX_CALLS
    max_argument_chars: int = DEFAULT_MAX_ARGUMENT_CHARS
    max_text_chars: int = DEFAULT_MAX_TEXT_CHARS
    max_event_chars: int = DEFAULT_MAX_EVENT_CHARS
    wire: str = "auto"
    status: int | None = None

    def keywords(self) -> dict[str, Any]:
        """The options as the keywords `TurnBuilder` takes them."""
        return {name: getattr(self, name) for name in NAMES}


#: The options' names, in their order.
NAMES = tuple(field.name for field in fields(ReadOptions))
