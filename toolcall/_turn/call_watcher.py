"""From what the assembler does to the events a `TurnBuilder` reports about calls.

The assembler stays the Go twin (deltas in, calls out) and knows nothing of events; it tells a
watcher of each arguments fragment it keeps, after routing, so the fragment is reported against
the call it really went to, whatever the wire's index said. The watcher settles a call's name at
its first fragment, reports the fragment, and when the call's arguments close
(`_calls.object_closer`) parses them once and reports the call done. At the end of the turn every
call is reported started and done; a call reported early was checked by the assembler: nothing
arrived for it after.
"""

from __future__ import annotations

import copy
from typing import Any

from .._calls.call_state import CallState
from .._calls.call_types import ToolCall, ToolCallFunction, same_arguments, written_when_read
from .._calls.held_arguments import HeldArguments
from .._calls.object_closer import JSON_WHITESPACE, ObjectCloser
from .._errors import ArgumentsError
from .._json import loads_arguments
from .events import (
    Event,
    ToolCallDone,
    ToolCallStarted,
    arguments_delta,
    fragment_written_when_read,
)
from .partial_arguments import ArgumentsChange, PartialArguments, not_json

#: The closer of a call whose input is free text: spoiled from the start, it never scans a
#: fragment nor says the input closed; the wire says when it is complete (`input_done`).
_FREE_TEXT = ObjectCloser()
_FREE_TEXT.spoiled = True


class CallWatcher:
    """Appends call events to `events`, the list the builder hands back from `feed`.

    With `partial` set, each call's arguments are also read as far as they go
    (`PartialArguments`), and each `ArgumentsDelta` carries what its fragment changed. A view
    that meets text that can never be JSON stops where it was, without a word: the end of the
    turn reports the arguments as it always does, so partial views on or off, a body has one
    answer.
    """

    __slots__ = ("_done", "_started", "custom", "events", "partial", "views")

    def __init__(self, events: list[Event], *, partial: bool = False) -> None:
        self.events = events
        self._started: set[int] = set()
        self._done: dict[int, ToolCallDone] = {}
        self.partial = partial
        #: Each call's arguments as far as they go, by index, when `partial` is set.
        self.views: dict[int, PartialArguments] = {}
        #: The indices of custom tools' calls, whose input is text and has no view.
        self.custom: set[int] = set()

    def fragment(self, call: CallState, fragment: str) -> None:
        """Called by the assembler for every non-empty fragment it appended to `call`.

        A call's arguments end at the brace that closes them: JSON whitespace after it is not
        reported (the assembler leaves it out of the turn too), so the call reported done, the
        deltas before it and the call in `TurnDone` all say the same.
        """
        closer = call.closer
        if closer is None:
            # A call's closer is made once it is reported started: only a call without one
            # may still need its start.
            if call.index not in self._started:
                if not call.name_parts:
                    return  # held until the call is named (`named`): no delta before its start
                self._start(call)
            closer = call.closer = ObjectCloser()
            if fragment[-1] == "}" and call.chars == len(fragment) and call.name_parts:
                # A whole call in one chunk (Grok, Gemini, GLM): parsing it settles whether it
                # closed, and the parse is needed anyway, so it is not scanned first.
                written = call.value
                parsed = written if written is not None else _object_or_none(fragment)
                if parsed is not None:
                    closer.closed = True
                    self._delta(call, fragment, written)
                    self._report_done(call, ToolCallFunction(call.name(), fragment), parsed)
                    return
        elif closer.closed and not closer.spoiled and not fragment.strip(JSON_WHITESPACE):
            return  # whitespace after the close
        if not closer.feed(fragment):
            # The common fragment, built here rather than through `_delta`: one call less on
            # every fragment of every stream with events on.
            if self.partial:
                self._delta(call, fragment)
            else:
                self.events.append(arguments_delta(call.index, fragment))
            return
        self._delta(call, fragment.rstrip(JSON_WHITESPACE))
        if call.name_parts:
            self._close(call, closer)

    def reports_whole(self, call: CallState) -> bool:
        """Whether arguments that arrive whole as an object can be reported for `call` without
        their text (`whole`): not before the call is named (its start, and so its arguments,
        wait for the name)."""
        return bool(call.name_parts) and call.closer is None

    def whole(self, call: CallState, held: HeldArguments, value: dict[str, Any]) -> None:
        """Called by the assembler for arguments that arrived whole as `value`, whose text is
        written only when read: the call is started, its one fragment reported and the call
        reported done, as for a whole call in one chunk, with the text left to `held`. The
        partial view takes the object, as it does for a call written from one."""
        if call.index not in self._started:
            self._start(call)
        closer = call.closer = ObjectCloser()
        closer.closed = True
        changes: tuple[ArgumentsChange, ...] = ()
        if self.partial:
            view = self.views[call.index] = PartialArguments(track_changes=True)
            view.feed_parsed(value)
            changes = tuple(view.changes())
        self.events.append(fragment_written_when_read(call.index, held.text, changes))
        self._report_done(call, written_when_read(call.name(), held.text), value)

    def opened_custom(self, call: CallState) -> None:
        """Called by the assembler when a call of a custom tool opens (its name is whole then):
        it is reported started, and its fragments are reported as they come, never read as
        JSON: its closer never closes and its partial view stays empty, so nothing is added to
        the path every function call's fragment takes."""
        self._start(call)
        self.custom.add(call.index)
        call.closer = _FREE_TEXT
        if self.partial:
            self.views[call.index] = not_json("a custom tool's input is text, not JSON")

    def input_done(self, call: CallState) -> None:
        """Called by the assembler when the wire says a custom call's input is complete: the
        call is reported done, its `arguments` empty (its input is text, in the call)."""
        if call.index in self._done:
            return
        if call.index not in self._started:
            self._start(call)
        self._report_done(call, ToolCallFunction(call.name(), call.text()), {})

    def named(self, call: CallState) -> None:
        """Called by the assembler when a call whose arguments began gets its name: it is
        reported started, then its arguments so far as one fragment."""
        self.fragment(call, call.text())

    def _delta(self, call: CallState, fragment: str, written: dict[str, Any] | None = None) -> None:
        """Report `fragment`; `written` is the object it was written from, when it is the
        call's whole arguments and was (the view then takes the object, not the text)."""
        if not fragment:
            return  # the fragment was whitespace after the close
        if self.partial:
            changes = self._read(call, fragment, written)
            self.events.append(arguments_delta(call.index, fragment, changes))
        else:
            self.events.append(arguments_delta(call.index, fragment))

    def parsed(self, call: ToolCall) -> dict[str, Any] | None:
        """The arguments parsed when `call` was reported done, if they are its final text: the
        turn then holds the same dict as the event, and the text is not parsed twice."""
        early = self._done.get(call.index)
        if early is None:
            return None
        if same_arguments(early.call.function, call.function):
            return early.arguments
        return None

    def finish(
        self,
        calls: list[ToolCall],
        arguments: tuple[dict[str, Any], ...],
        custom: tuple[ToolCall, ...] = (),
    ) -> None:
        """End of turn: report every call not reported yet, custom calls with empty arguments.

        A call reported done early needs no second report: the assembler refuses anything that
        arrived for it after its arguments closed (`CallTable._check_not_reopened`), so it is
        the call the turn holds.
        """
        pairs = [*zip(calls, arguments, strict=True), *((call, {}) for call in custom)]
        for call, parsed in sorted(pairs, key=lambda pair: pair[0].index):
            if call.index in self._done:
                continue
            if call.index not in self._started:
                self.events.append(
                    ToolCallStarted(call.index, call.id, call.function.name, call.type)
                )
            self.events.append(ToolCallDone(call, parsed))

    def _read(
        self, call: CallState, fragment: str, written: dict[str, Any] | None
    ) -> tuple[ArgumentsChange, ...]:
        view = self.views.get(call.index)
        if view is None:
            view = self.views[call.index] = PartialArguments(track_changes=True)
            if written is not None:
                # Text written from an object holds no repeated key, so the object is what the
                # view would read from it; a megabyte is not scanned again in Python.
                view.feed_parsed(written, len(fragment))
                return tuple(view.changes())
        elif view.failed or view.done:
            # Nothing follows a closed object: fed, the view would refuse it, and stay as it
            # was, as it does here (the end of the turn says what is wrong).
            return ()
        try:
            view.feed(fragment)
        except ArgumentsError:
            # The view stays as it was; the end of the turn says what is wrong, as always.
            return tuple(view.changes())
        return tuple(view.changes())

    def _start(self, call: CallState) -> None:
        self._started.add(call.index)
        self.events.append(
            ToolCallStarted(call.index, call.id, call.name(), call.type or "function")
        )

    def _close(self, call: CallState, closer: ObjectCloser) -> None:
        text = call.text().rstrip(JSON_WHITESPACE)
        parsed = _object_or_none(text)
        if parsed is None:
            closer.spoiled = True
            return
        self._report_done(call, ToolCallFunction(call.name(), text), parsed)

    def _report_done(
        self, call: CallState, function: ToolCallFunction, parsed: dict[str, Any]
    ) -> None:
        if call.index not in self._started:
            self._start(call)
        extra = None if call.extra_content is None else copy.deepcopy(call.extra_content)
        kind = call.type or "function"
        done = ToolCallDone(ToolCall(call.index, call.id, kind, function, extra), parsed)
        self._done[call.index] = done
        self.events.append(done)


def _object_or_none(text: str) -> dict[str, Any] | None:
    """`text` parsed, if it is one JSON object; None for anything else (the end of the turn
    reports what is wrong with it, as it always does)."""
    try:
        parsed = loads_arguments(text)
    except ValueError:
        return None
    return parsed if type(parsed) is dict else None
