"""From what the assembler does to the events a `TurnBuilder` reports about calls.

The assembler stays the Go twin (deltas in, calls out) and knows nothing of events; it tells a
watcher of each arguments fragment it keeps, after routing, so the fragment is reported against
the call it really went to, whatever the wire's index said. The watcher settles a call's name at
its first fragment, reports the fragment, and when the call's arguments close (`_closer`) parses
them once and reports the call done. At the end of the turn every call is reported started and
done; a call reported early was checked by the assembler: nothing arrived for it after.
"""

from __future__ import annotations

import copy
from typing import Any

from ._assembler import _Call
from ._closer import ObjectCloser
from ._events import ArgumentsDelta, Event, ToolCallDone, ToolCallStarted
from ._json import loads_arguments
from ._types import ToolCall, ToolCallFunction

_JSON_WHITESPACE = " \t\n\r"


class CallWatcher:
    """Appends call events to `events`, the list the builder hands back from `feed`."""

    __slots__ = ("_done", "_started", "events")

    def __init__(self, events: list[Event]) -> None:
        self.events = events
        self._started: set[int] = set()
        self._done: dict[int, ToolCallDone] = {}

    def fragment(self, call: _Call, fragment: str) -> None:
        """Called by the assembler for every non-empty fragment it appended to `call`."""
        if call.index not in self._started and call.name_parts:
            self._start(call)
        self.events.append(ArgumentsDelta(call.index, fragment))
        closer = call.closer
        if closer is None:
            closer = call.closer = ObjectCloser()
        if closer.feed(fragment) and call.name_parts:
            self._close(call, closer)

    def finish(self, calls: list[ToolCall], arguments: tuple[dict[str, Any], ...]) -> None:
        """End of turn: report every call not reported yet.

        A call reported done early needs no second report: the assembler refuses anything that
        arrived for it after its arguments closed (`Assembler._check_not_reopened`), so it is
        the call the turn holds.
        """
        for call, parsed in zip(calls, arguments, strict=True):
            if call.index in self._done:
                continue
            if call.index not in self._started:
                self.events.append(ToolCallStarted(call.index, call.id, call.function.name))
            self.events.append(ToolCallDone(call, parsed))

    def _start(self, call: _Call) -> None:
        self._started.add(call.index)
        self.events.append(ToolCallStarted(call.index, call.id, call.name()))

    def _close(self, call: _Call, closer: ObjectCloser) -> None:
        text = call.text()
        try:
            parsed = loads_arguments(text)
        except ValueError:  # not JSON after all; the end of the turn says why
            parsed = None
        if type(parsed) is not dict:
            closer.spoiled = True
            return
        if call.index not in self._started:
            self._start(call)
        extra = None if call.extra_content is None else copy.deepcopy(call.extra_content)
        function = ToolCallFunction(call.name(), text)
        kind = call.type or "function"
        done = ToolCallDone(ToolCall(call.index, call.id, kind, function, extra), parsed)
        self._done[call.index] = done
        self.events.append(done)
