"""`Assembler`, the twin of the Go package's: tool-call deltas in, complete calls out.

A thin public class in front of the table of calls (`_call_table.CallTable`). The table also
answers the wire readers' operations (opening a call, appending or taking arguments, spending
the text budget, reading a call back), which are how a `TurnBuilder` drives it; a caller who
feeds deltas by hand gets only what the Go twin offers and the documentation promises:
`feed`, `complete`, `reset`, `pending` and `diagnostics`, with the three limits it was made
with, and `nameless` for the fragments no call claimed. The routing rules are the table's, and
listed there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._call_table import (
    DEFAULT_MAX_ARGUMENT_CHARS,
    DEFAULT_MAX_CALLS,
    DEFAULT_MAX_TEXT_CHARS,
    CallTable,
)
from ._calls.call_types import Delta, ToolCall
from ._turn.diagnostics import Diagnostic


class Assembler:
    """Accumulates tool-call deltas and produces complete `ToolCall` values.

    `feed` takes a `Delta`, the plain dict `json.loads` gives for one element of
    `delta.tool_calls`, or any object with the same attributes (the openai SDK's delta objects).

    `max_text_chars` bounds everything else a turn accumulates as text: each call's name, id, type
    and `extra_content` (its keys and strings, one character for each other value), and, in a
    `TurnBuilder`, the content and reasoning. With `max_calls` and `max_argument_chars` it bounds
    the memory a stream can make the assembler hold, whatever the stream.
    """

    __slots__ = ("_table",)

    def __init__(
        self,
        *,
        max_calls: int = DEFAULT_MAX_CALLS,
        max_argument_chars: int = DEFAULT_MAX_ARGUMENT_CHARS,
        max_text_chars: int = DEFAULT_MAX_TEXT_CHARS,
    ) -> None:
        self._table = CallTable(
            max_calls=max_calls,
            max_argument_chars=max_argument_chars,
            max_text_chars=max_text_chars,
        )

    @property
    def max_calls(self) -> int:
        """Calls a turn may hold; one more is `LimitExceeded`."""
        return self._table.max_calls

    @property
    def max_argument_chars(self) -> int:
        """Characters of arguments all calls together may hold."""
        return self._table.max_argument_chars

    @property
    def max_text_chars(self) -> int:
        """Characters of everything else held as text (names, ids, types, `extra_content`)."""
        return self._table.max_text_chars

    def reset(self) -> None:
        """Forget everything: use between the rounds of a tool loop."""
        self._table.reset()

    def feed(self, delta: Delta | Mapping[str, Any] | object) -> int:
        """Take one tool-call delta; returns the index of the call it was routed to."""
        return self._table.feed(delta)

    def complete(self) -> list[ToolCall]:
        """All calls with a non-empty name, sorted by index.

        Call it when the stream has ended; a call's arguments are joined here, once.
        """
        return self._table.complete()

    def nameless(self) -> list[tuple[int, str]]:
        """(index, arguments) of calls that received fragments but never a name: what
        `complete` leaves out, for a caller to report or log."""
        return self._table.nameless()

    def pending(self) -> int:
        """How many calls are in progress (with or without a name yet)."""
        return self._table.pending()

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """What the deltas did that was unusual, or what was repaired, in order of first sight."""
        return self._table.diagnostics
