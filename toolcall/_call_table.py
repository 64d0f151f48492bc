"""The table of one turn's calls: tool-call deltas, or the wire readers' operations, in;
complete calls out. Sans-IO.

`CallTable` is the one private interface every wire reader drives (chat's included): it opens
calls, appends or takes their arguments, spends the text budget, and reads a call back. The
public `Assembler` (`_assembler.py`) is a thin class in front of it with the Go twin's methods
only, so the caller never sees the readers' operations and the readers never go through the
caller's door.

Every rule here comes from a provider's real stream or from a bug that real clients shipped (see
the project's DESIGN notes and the cassettes); none of them names a provider:

- Route by `index` when present. A non-empty id already seen routes to its own call even when the
  index disagrees (Gemini on Vertex numbers the first chunk of call 0 as index 1). A new non-empty
  id on an index another id holds starts a new call (relays reuse index 0 for every call). With
  neither index nor known id, a delta with a name starts a call and a bare fragment continues the
  latest one (Gemini's compat endpoint sends no index at all). Parallel calls never merge.
- `id`: the first non-empty one wins; `""`, `null` and absent are the same (Qwen sends `"id": ""`
  on every later chunk); ids are never concatenated.
- `name`: fragments concatenate, but a fragment equal to the whole name held is a repeat (Vertex
  resends it on every chunk). Like arguments, fragments are kept in a list: `+=` made a name sent
  in 800,000 fragments cost 60 times what the same number of argument fragments did.
- `extra_content`: objects merge key by key, in place. Copying the held object on every delta made
  many small deltas quadratic; the merge walks its own stack, as deep input cannot break it.
- Arguments: fragments are kept in a list and joined once, so the cost stays linear in their size.
  A fragment that repeats everything so far and extends it is remembered as a possible cumulative
  re-send; `complete()` prefers the plain concatenation when it is valid JSON, and only falls back
  to the re-sent text when the concatenation is not, so a legitimate fragment that happens to
  start with the same characters is never mistaken for a re-send.
- Nothing is "done" because a later index appeared: Kimi may still send fragments for index 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._calls.call_state import CallState
from ._calls.call_types import CUSTOM, Delta, ToolCall, ToolCallFunction, written_when_read
from ._calls.delta_fields import value_chars, wire_arguments, wire_index, wire_object, wire_text
from ._calls.held_arguments import HeldArguments, hold
from ._calls.object_closer import JSON_WHITESPACE, ObjectCloser
from ._errors import LimitExceeded, StreamError, UsageError, check_limit, shown
from ._json import Dumps, loads_arguments
from ._turn.call_watcher import CallWatcher
from ._turn.diagnostics import Diagnostic

DEFAULT_MAX_CALLS = 512
DEFAULT_MAX_ARGUMENT_CHARS = 64 * 1024 * 1024
DEFAULT_MAX_TEXT_CHARS = 64 * 1024 * 1024
#: Fragments of a call kept as they came before they are joined into one string.
_LOOSE_KEPT = 64


class CallTable:
    """Accumulates tool-call deltas and the readers' operations and produces complete
    `ToolCall` values: the state behind `Assembler`, and what a `TurnBuilder` hands its reader.

    `feed` takes a `Delta`, the plain dict `json.loads` gives for one element of
    `delta.tool_calls`, or any object with the same attributes (the openai SDK's delta objects).

    `max_text_chars` bounds everything else a turn accumulates as text: each call's name, id, type
    and `extra_content` (its keys and strings, one character for each other value), and, in a
    `TurnBuilder`, the content and reasoning. With `max_calls` and `max_argument_chars` it bounds
    the memory a stream can make the assembler hold, whatever the stream.
    """

    def __init__(
        self,
        *,
        max_calls: int = DEFAULT_MAX_CALLS,
        max_argument_chars: int = DEFAULT_MAX_ARGUMENT_CHARS,
        max_text_chars: int = DEFAULT_MAX_TEXT_CHARS,
    ) -> None:
        self.max_calls = check_limit("max_calls", max_calls)
        # Characters, not bytes: len() is O(1) on str, encoding every fragment is not, and a
        # character is at most four bytes, so memory stays bounded all the same.
        self.max_argument_chars = check_limit("max_argument_chars", max_argument_chars)
        self.max_text_chars = check_limit("max_text_chars", max_text_chars)
        self.reset()

    def reset(self) -> None:
        """Forget everything: use between the rounds of a tool loop."""
        self._calls: list[CallState] = []
        self._by_wire_index: dict[int, CallState] = {}
        self._by_id: dict[str, CallState] = {}
        self._next_index = 0
        self._used_indices: set[int] = set()
        self._pending_extra: dict[str, Any] | None = None
        # Characters of arguments: exact for text held, a bound for objects not written yet.
        self._argument_chars = 0
        # Calls whose arguments are an object not written yet (`take_arguments`).
        self._unwritten = 0
        self._text_chars = 0
        self._diagnostics: list[Diagnostic] = []
        self._seen_codes: set[tuple[str, int]] = set()
        #: Told of every arguments fragment when a `TurnBuilder` reports events; None otherwise.
        self._watcher: CallWatcher | None = None

    def report_to(self, watcher: CallWatcher) -> None:
        """Tell `watcher` of every arguments fragment from now on (a builder reporting events)."""
        self._watcher = watcher

    def pending(self) -> int:
        """How many calls are in progress (with or without a name yet)."""
        return len(self._calls)

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """What the deltas did that was unusual, or what was repaired, in order of first sight."""
        return list(self._diagnostics)

    def diagnostics_after(self, count: int) -> list[Diagnostic]:
        """The diagnostics after the first `count`: only those a reader has not seen, so one
        who asks after every event (`TurnBuilder.diagnostics`) does not copy the list each time."""
        return self._diagnostics[count:]

    def feed(self, delta: Delta | Mapping[str, Any] | object) -> int:
        """Take one tool-call delta; returns the index of the call it was routed to."""
        if type(delta) is dict:
            raw_index = delta.get("index")
            call_id = delta.get("id")
            call_type = delta.get("type")
            extra = delta.get("extra_content")
            function = delta.get("function")
            if function is not None and type(function) is not dict:
                if isinstance(function, Mapping):
                    return self.feed({**delta, "function": dict(function)})
                raise StreamError(
                    f"function must be an object, got {type(function).__name__}",
                    index=raw_index if type(raw_index) is int else None,
                )
            name = function.get("name") if function else None
            arguments = function.get("arguments") if function else None
            if function is None and ("tool_calls" in delta or "choices" in delta):
                raise UsageError(_whole_delta("a dict", "choices" in delta))
        elif isinstance(delta, Delta):
            raw_index = delta.index
            call_id = delta.id
            call_type = delta.type
            extra = delta.extra_content
            name = delta.function.name
            arguments = delta.function.arguments
        elif isinstance(delta, Mapping):
            return self.feed(dict(delta))
        else:
            raw_index, call_id, call_type, name, arguments, extra = _read_attributes(delta)

        # The common case by far: an arguments fragment for a call already open at this index.
        if (
            type(raw_index) is int
            and (call_id is None or call_id == "")
            and (name is None or name == "")
            and type(arguments) is str
            and extra is None
        ):
            call = self._by_wire_index.get(raw_index)
            if call is not None:
                if call_type and not call.type:
                    self._set_type(call, call_type)
                if arguments:
                    self.extend(call, arguments)
                return call.index
        return self._route_delta(raw_index, call_id, call_type, name, arguments, extra)

    def _route_delta(
        self,
        raw_index: object,
        call_id: object,
        call_type: object,
        name: object,
        arguments: object,
        extra: object,
    ) -> int:
        """Everything but the common case: check the fields, route the delta to its call (or
        hold metadata that came before any call), and apply each field to it."""
        index = wire_index(raw_index)
        call_id = wire_text(call_id, "id", index)
        name = wire_text(name, "function.name", index)
        if (
            index is None
            and not call_id
            and not name
            and (arguments is None or arguments == "")
            and not self._calls
        ):
            # Nothing to route (an all-empty or metadata-only delta before any call): opening a
            # call here would shift the index of the first real call. Metadata waits for it.
            if extra:
                extra = wire_object(extra, "extra_content", None)
                if self._pending_extra is None:
                    self._pending_extra = {}
                self._merge_extra(self._pending_extra, extra, None)
            return self._next_index
        call = self._route(index, call_id, name)
        if call_id and not call.id:
            self.spend_text(len(call_id), "ids", call)
            call.id = call_id
            self._by_id[call_id] = call
            self._mark_late(call, "id")
        if call_type and not call.type:
            self._set_type(call, call_type)
        if self._pending_extra is not None:
            call.extra_content, self._pending_extra = self._pending_extra, None
        if extra:
            extra = wire_object(extra, "extra_content", call.index)
            if call.extra_content is None:
                call.extra_content = {}
            self._merge_extra(call.extra_content, extra, call)
        if name:
            self._add_name(call, name)
        if arguments is None:
            return call.index
        if type(arguments) is not str:
            try:
                arguments, _ = wire_arguments(arguments, call.index)
            except StreamError as exc:
                raise StreamError(exc.reason, **self._context(call)) from None
            self._note("arguments_object", call.index, "arguments arrived as JSON, not text")
        if arguments:
            self.extend(call, arguments)
        return call.index

    # -- what a wire reader does -------------------------------------------------------------
    # A reader of a wire (`_wires`) turns its events into these few operations, the same for
    # every wire; `number` is the call's number as the reader gave it (chat: the delta's index).

    def open_call(
        self,
        number: int,
        call_id: object,
        name: object,
        extra: Mapping[str, Any] | None = None,
        call_type: str = "",
    ) -> None:
        """Open call `number` where the wire's own structure (a block, an item, a part) says a
        call begins, with its id, name, provider metadata and type (`"custom"` for a custom
        tool, whose input is free text: reported started now, its name being whole, and never
        read as JSON; `input_done` says when it is complete).

        The id is given to the call opened rather than used to find one: another call may hold
        the same id (a server that numbers ids per response and reuses them); both keep it, the
        first stays the one the id routes to, and a diagnostic says so.
        """
        if number in self._by_wire_index:
            raise StreamError(f"call {number} was opened twice", index=number)
        name = wire_text(name, "function.name", number)
        call = self._open(number)
        if self._pending_extra is not None:
            call.extra_content, self._pending_extra = self._pending_extra, None
        if extra:
            if call.extra_content is None:
                call.extra_content = {}
            self._merge_extra(call.extra_content, extra, call)
        if name:
            self._add_name(call, name)
        if call_type:
            self._set_type(call, call_type)
        call_id = wire_text(call_id, "id", call.index)
        if call_id:
            self.spend_text(len(call_id), "ids", call)
            call.id = call_id
            if call_id in self._by_id:
                self._note(
                    "id_repeated", call.index, f"id {shown(call_id)} names an earlier call too"
                )
            else:
                self._by_id[call_id] = call
        if call.type == CUSTOM and self._watcher is not None:
            self._watcher.opened_custom(call)

    def input_done(self, number: int) -> None:
        """The wire said custom call `number`'s input is complete: a builder reports it done."""
        call = self._by_wire_index[number]
        if self._watcher is not None:
            self._watcher.input_done(call)

    def append_arguments(self, number: int, arguments: str, call_type: Any = None) -> int:
        """Append a fragment of arguments text to call `number`; returns the call's index.

        The same as `feed` of `{"index": number, "type": call_type, "function": {"arguments":
        ...}}`, without building it: the chat reader calls this for chunks it recognised by their
        envelope alone (see `_fast.templates`), and every other wire for its arguments deltas.
        """
        call = self._by_wire_index.get(number)
        if call is None:
            return self.feed(
                {"index": number, "type": call_type, "function": {"arguments": arguments}}
            )
        if call_type and not call.type:
            self._set_type(call, call_type)
        if arguments:
            self.extend(call, arguments)
        return call.index

    def take_arguments(self, number: int, value: dict[str, Any], write: Dumps) -> None:
        """Take whole arguments for call `number`: `value`, an object the wire sent decoded, and
        `write`, which writes it as the call's text.

        The call keeps `value`: while it is all its arguments are, the watcher and the turn take
        it instead of parsing text back (`read_arguments`). Its text is written only when first
        read (`_calls.call_types.written_when_read`), from a copy of it (`_calls.held_arguments`),
        and counted meanwhile by a bound on its length. With events on, the watcher reports the call
        with that same unwritten text (`CallWatcher.whole`), unless it must read the text now (the
        partial view, a call not named yet). Where it does, for an object too large to copy cheaply,
        or where the bound would cross `max_argument_chars`, the text is written at once and kept
        as any fragment is. Either way limits, events and the call's text are the same.
        """
        call = self._by_wire_index[number]
        fresh = not call.chars and call.unwritten is None
        watcher = self._watcher
        if fresh and (watcher is None or watcher.reports_whole(call)):
            held = hold(value)
            if held is not None and not self._over_limit(held[1]):
                call.value = value
                call.unwritten = HeldArguments(held[0], write, held[1])
                self._argument_chars += held[1]
                self._unwritten += 1
                if watcher is not None:
                    watcher.whole(call, call.unwritten, value)
                return
        try:
            text = write(value)
        except (ValueError, TypeError, RecursionError) as exc:
            raise StreamError(f"arguments cannot be written as JSON: {exc}", index=number) from None
        if fresh:
            call.value = value  # before the text goes in: the watcher reads it
        self.extend(call, text)

    def spend_text(self, size: int, what: str, call: CallState | None = None) -> None:
        """Count `size` characters of `what` against `max_text_chars`; raise past it."""
        self._text_chars += size
        if self._text_chars > self.max_text_chars:
            context = self._context(call) if call is not None else {}
            raise LimitExceeded(
                f"the turn's text exceeds {self.max_text_chars} characters (max_text_chars), "
                f"at {what}: content, reasoning, names, ids, types and extra_content count",
                **context,
            )

    def check_arguments_room(self, chars: int, number: int | None) -> None:
        """Raise `LimitExceeded` unless `chars` more characters of arguments, held by a reader
        until a call closes, still fit in `max_argument_chars`."""
        if self._over_limit(chars):
            raise LimitExceeded(
                f"tool-call arguments exceed {self.max_argument_chars} characters "
                "(max_argument_chars)",
                index=number,
            )

    def argument_room(self) -> int:
        """How many characters of arguments `max_argument_chars` still allows."""
        if self._unwritten:
            self._settle()
        return self.max_argument_chars - self._argument_chars

    def _over_limit(self, more: int = 0) -> bool:
        """Whether `more` characters of arguments would cross `max_argument_chars`, counted
        exactly: the objects not written yet are counted by a bound, so where it alone crosses
        the limit they are written and counted again before the answer is given."""
        if self._argument_chars + more <= self.max_argument_chars:
            return False
        if self._unwritten:
            self._settle()
        return self._argument_chars + more > self.max_argument_chars

    def _settle(self) -> None:
        """Write every object not written yet, and count the arguments exactly."""
        for call in self._calls:
            call.write()
        self._unwritten = 0
        self._argument_chars = sum(call.chars for call in self._calls)

    def call(self, number: int) -> CallState | None:
        """Call `number`'s state, for a reader to read back (its name, text, characters)."""
        return self._by_wire_index.get(number)

    def read_arguments(self) -> dict[int, dict[str, Any]]:
        """By call index, the object each call's arguments arrived as, where that is all they
        are: validation would parse their text back to an equal object."""
        return {call.index: call.value for call in self._calls if call.value is not None}

    def complete(self) -> list[ToolCall]:
        """All calls with a non-empty name, sorted by index.

        Call it when the stream has ended; a call's arguments are joined here, once.
        """
        out = []
        for call in sorted(self._calls, key=lambda c: c.index):
            if call.name_parts:
                kind = call.type or "function"
                if call.late and kind != CUSTOM:
                    self._check_not_reopened(call)
                if kind == CUSTOM:  # free text, kept exactly as it came
                    function = ToolCallFunction(call.name(), call.text())
                elif call.unwritten is not None:
                    function = written_when_read(call.name(), call.unwritten.text)
                else:
                    function = ToolCallFunction(call.name(), self._arguments_of(call))
                out.append(ToolCall(call.index, call.id, kind, function, call.extra_content))
        return out

    def nameless(self) -> list[tuple[int, str]]:
        """(index, arguments) of calls that received fragments but never a name.

        `complete()` leaves these out, as the Go contract says; the turn-level check reports them
        so that no fragment disappears without a word.
        """
        return [
            (c.index, c.text())
            for c in self._calls
            if not c.name_parts and (c.parts or c.unwritten is not None)
        ]

    def last_call_index(self) -> int | None:
        """Index of the call opened last: the one a cut-off stream was most likely writing."""
        return self._calls[-1].index if self._calls else None

    # -- internals -------------------------------------------------------------------------

    def _route(self, wire_index: int | None, call_id: str, name: str) -> CallState:
        if call_id:
            known = self._by_id.get(call_id)
            if known is not None:
                if wire_index is not None and self._by_wire_index.get(wire_index) is not known:
                    self._note(
                        "index_disagrees_with_id",
                        known.index,
                        f"id {shown(call_id)} arrived with index {wire_index}",
                    )
                return known
        if wire_index is not None:
            held = self._by_wire_index.get(wire_index)
            if held is None:
                return self._open(wire_index)
            if call_id and held.id and held.id != call_id:
                call = self._open(wire_index)
                self._note(
                    "index_reused",
                    call.index,
                    f"id {shown(call_id)} arrived on index {wire_index}, held by {shown(held.id)}",
                )
                return call
            return held
        if call_id or name or not self._calls:
            call = self._open(None)
            self._note("index_absent", call.index, "the delta carried no index")
            if not call_id and not name:
                self._note("orphan_fragment", call.index, "a fragment arrived before any call")
            return call
        return self._calls[-1]

    def _open(self, wire_index: int | None) -> CallState:
        if len(self._calls) >= self.max_calls:
            raise LimitExceeded(
                f"more than {self.max_calls} tool calls in one turn", index=wire_index
            )
        if wire_index is None or wire_index in self._used_indices:
            index = self._next_index
        else:
            index = wire_index
        self._used_indices.add(index)
        call = CallState(index)
        self._next_index = max(self._next_index, index + 1)
        self._calls.append(call)
        if wire_index is not None:
            self._by_wire_index[wire_index] = call
        return call

    def extend(self, call: CallState, fragment: str) -> None:
        """Append a non-empty fragment of arguments text to `call`, already open and found.

        Every fragment of every wire ends here; a reader's template match (`_wires._base`)
        calls it directly, with no routing, for the call the template holds.
        """
        if call.value is not None and (call.chars or call.unwritten is not None):
            # More after arguments that arrived whole: they are text like any other now.
            call.write()
            call.value = None
        size = len(fragment)
        if self._argument_chars + size > self.max_argument_chars and self._over_limit(size):
            raise LimitExceeded(
                f"tool-call arguments exceed {self.max_argument_chars} characters "
                "(max_argument_chars)",
                **self._context(call),
            )
        self._argument_chars += size
        since = call.chars_since_resend
        if since and size > since:
            start = call.resend_at[-1] if call.resend_at else 0
            if fragment.startswith(call.text()[start:]):
                call.resend_at.append(call.chars)
                since = 0
        parts = call.parts
        parts.append(fragment)
        call.chars += size
        call.chars_since_resend = since + size
        call.loose += 1
        if call.loose == _LOOSE_KEPT:
            parts[-_LOOSE_KEPT:] = ["".join(parts[-_LOOSE_KEPT:])]
            call.loose = 0
        if self._watcher is not None:
            self._watcher.fragment(call, fragment)

    def _add_name(self, call: CallState, name: str) -> None:
        """Append a fragment of the call's name.

        A name is settled once the call has a name and its arguments have begun: that is when
        a builder reports the call started (`ToolCallStarted`), so a fragment after it would make
        the turn disagree with what was reported. The rule holds with events off too, so that a
        body has one answer however it is read. A call whose arguments began before any name
        gets its name when it comes, and is reported started then.
        """
        call.write()
        if call.name_parts and len(name) == call.name_chars and name == call.name():
            self._note("name_repeated", call.index, f"name {shown(name)} was sent again")
            return
        if call.name_parts and call.chars:
            raise StreamError(
                f"the name fragment {shown(name)} arrived after the call's arguments began, "
                f"when its name was settled as {shown(call.name())}",
                **self._context(call),
            )
        self.spend_text(len(name), "names", call)
        call.name_parts.append(name)
        call.name_chars += len(name)
        self._mark_late(call, "name")
        if call.chars and self._watcher is not None:
            self._watcher.named(call)

    def _set_type(self, call: CallState, value: Any) -> None:
        call_type = wire_text(value, "type", call.index)
        self.spend_text(len(call_type), "types", call)
        call.type = call_type
        self._mark_late(call, "type")

    def _mark_late(self, call: CallState, what: str) -> None:
        call.write()
        if call.chars:
            call.late = what
            call.late_at = call.chars

    def _merge_extra(
        self, held: dict[str, Any], extra: Mapping[Any, Any], call: CallState | None
    ) -> None:
        """Merge `extra` into `held` in place, objects key by key, counting what it brings.

        Every object in `held` was made here, so merging into it never changes the caller's
        values. The walk keeps its own stack and the text limit ends it, so neither deep nor
        self-referencing input can break it.
        """
        stack: list[tuple[dict[str, Any], Mapping[Any, Any]]] = [(held, extra)]
        while stack:
            into, source = stack.pop()
            for key, value in source.items():
                size = 1 + (len(key) if type(key) is str else 0)
                if isinstance(value, Mapping):
                    old = into.get(key)
                    if not isinstance(old, dict):
                        old = into[key] = {}
                    stack.append((old, value))
                else:
                    into[key] = value
                    size += value_chars(value, self.max_text_chars - self._text_chars)
                self.spend_text(size, "extra_content", call)

    def _context(self, call: CallState) -> dict[str, Any]:
        """What an error says about the call it is about."""
        return {"index": call.index, "call_id": call.id or None, "name": call.name() or None}

    def _check_not_reopened(self, call: CallState) -> None:
        """Nothing may arrive for a call after its arguments closed as one JSON object.

        A `TurnBuilder` reports such a call done (`ToolCallDone`) the moment it closes, and the
        caller may already be running the tool: a later id, name or type would make the turn
        disagree with what was reported. `extra_content` is the exception: Gemini sends a
        call's thought signature in a metadata-only delta after the call (FACTS.md §8), and it
        matters only for the next request, which is built from the turn. The rule holds with
        events off too, so that a body has one answer however it is read. Only calls whose id,
        name or type changed after their arguments began are scanned, a rare case, so this
        costs nothing on the common path. Arguments need no check here: text after a closed
        object makes them invalid JSON, which validation reports in its own words, and a
        re-send of them can only add JSON whitespace to what closed.
        """
        closer = ObjectCloser()
        if not closer.feed(call.text()):
            return
        if call.late_at >= closer.end:
            raise StreamError(
                f"the call's {call.late} arrived after its arguments had closed as one JSON "
                "object (the call was complete)",
                **self._context(call),
            )

    def _arguments_of(self, call: CallState) -> str:
        text = call.text()
        if not call.resend_at or _is_json_object(text):
            return _ending_at_the_close(text)
        resent = text[call.resend_at[-1] :]
        if _is_json_object(resent):
            self._note(
                "arguments_resent",
                call.index,
                "a fragment re-sent all arguments so far; the re-sent text was kept",
            )
            return _ending_at_the_close(resent)
        return text

    def _note(self, code: str, index: int | None, message: str) -> None:
        key = (code, -1 if index is None else index)
        if key not in self._seen_codes:
            self._seen_codes.add(key)
            self._diagnostics.append(Diagnostic(code, message, index))


def _whole_delta(what: str, chunk: bool) -> str:
    """The hint for a whole message delta or chunk fed where one tool-call delta belongs: the
    openai SDK's `chunk.choices[0].delta` is the likeliest thing to hand over by mistake."""
    given = "a whole chunk" if chunk else "a whole message delta"
    return (
        f"feed() takes one tool-call delta, not {given} ({what}): feed each element of "
        "chunk.choices[0].delta.tool_calls (for call in delta.tool_calls or []: "
        "assembler.feed(call)), or hand the body's bytes to toolcall.assemble"
    )


def _read_attributes(delta: object) -> tuple[Any, Any, Any, Any, Any, Any]:
    """Read a delta-shaped object (the openai SDK's `ChoiceDeltaToolCall`, for one)."""
    if not hasattr(delta, "function") and (
        hasattr(delta, "tool_calls") or hasattr(delta, "choices")
    ):
        raise UsageError(_whole_delta(type(delta).__name__, hasattr(delta, "choices")))
    # str, list and tuple have an `index` method: they are not delta-shaped objects.
    if isinstance(delta, (Sequence, bytes, bytearray, memoryview)) or (
        not hasattr(delta, "function") and not hasattr(delta, "index")
    ):
        raise UsageError(
            f"feed() takes a Delta, a dict or a delta-shaped object, not {type(delta).__name__}"
        )
    function = getattr(delta, "function", None)
    if isinstance(function, Mapping):
        name, arguments = function.get("name"), function.get("arguments")
    elif function is not None:
        name, arguments = getattr(function, "name", None), getattr(function, "arguments", None)
    else:
        name = arguments = None
    return (
        getattr(delta, "index", None),
        getattr(delta, "id", None),
        getattr(delta, "type", None),
        name,
        arguments,
        getattr(delta, "extra_content", None),
    )


def _ending_at_the_close(text: str) -> str:
    """Arguments that are one JSON object end at the brace that closes it: JSON whitespace after
    it is left out, as a `TurnBuilder` reports the call done at that brace (so the call reported
    done is the call in the turn). Anything else is kept as it came, for validation to judge."""
    if not text or text[-1] not in JSON_WHITESPACE:
        return text
    closed = text.rstrip(JSON_WHITESPACE)
    return closed if closed.endswith("}") and _is_json_object(closed) else text


def _is_json_object(text: str) -> bool:
    try:
        return isinstance(loads_arguments(text), dict)
    except ValueError:  # not JSON, refused (Refused is one), or an integer too long to convert
        return False
