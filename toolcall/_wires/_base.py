"""What every wire reader shares: the interface a `TurnBuilder` reads through, and the few
operations a wire's events come down to.

A reader takes the decoded payloads of one wire and turns them into the assembler's named
operations (`CallTable.open_call`, `append_arguments`, `take_arguments`, `spend_text`): open a
call (id, name, provider metadata), append an arguments fragment to it, take whole arguments,
add text or reasoning; and keeps the stop reasons, usage and turn metadata the end of the turn
reads (`_turn.turn.end_turn`). The core (assembler, watcher, validation, partial view) never learns
which wire it was; a call is numbered in the order the wire opened it, whatever the wire's own
index (Anthropic's content block, Responses' output item) said, so one turn reads the same on
every wire, and two calls never share a number.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from functools import partial
from typing import Any, ClassVar

from .._call_table import CallTable
from .._calls.call_types import ServerToolCall
from .._calls.delta_fields import value_chars
from .._errors import ProviderError, StreamError, ToolCallError, shown
from .._fast import is_enabled as fast_paths_enabled
from .._fast.shortcut import Template
from .._fast.templates import PatternTemplate
from .._fast.text_runs import TextRuns
from .._framing.long_events import LongEvent
from .._json import UNREAD, Dumps, Loads, ReadsUtf8, Refused
from .._turn.events import Event, reasoning_delta, text_delta


class _ServerCall:
    """A tool the provider runs, while the stream tells it: its input in pieces, its result."""

    __slots__ = ("id", "kind", "name", "parts", "result")

    def __init__(self, kind: str, name: str, call_id: str) -> None:
        self.kind = kind
        self.name = name
        self.id = call_id
        self.parts: list[str] = []
        self.result: dict[str, Any] | None = None


#: Chat's last event, which a relay that also serves chat completions sends after any wire's end.
RELAY_END = "[DONE]"


class WireReader:
    """Base of every wire's reader (chat completions included).

    The attributes are the ones the end of a turn reads (`_turn.turn.Gathered`): stop reasons in
    order, usage, text, reasoning, and whether the wire's closing event arrived. `cut` maps each
    stop reason that means "stopped before it was done" to why; `extra_content` is turn-level
    provider metadata (thinking signatures).

    What ends a turn ends it on every wire: once the wire's end has come (`end_turn`), an event
    that would add to the turn (`adds_to_turn`) begins a second generation (a relay that sent
    the whole answer twice); it and everything after it are left out, and `second_generation`
    says where it began. One `[DONE]` after the end, where the framing lets a relay send it
    (`done_after_end`), ends the body as chat's does; events after it are read as any after
    the end.
    """

    wire: ClassVar[str]
    #: Stop reasons that mean the output was cut, with the reason a `TruncatedError` gives.
    cut: ClassVar[Mapping[str, str]]
    #: What the wire sends last, for the `done_absent` diagnostic; None for a wire without one.
    end_mark: ClassVar[str | None] = None

    def __init__(
        self,
        assembler: CallTable,
        loads: Loads,
        dumps: Dumps,
        reads_utf8: ReadsUtf8 | None = None,
    ) -> None:
        self.assembler = assembler
        self.loads = loads
        self.dumps = dumps
        #: Reads a long event's bytes without making them text (`_json.utf8_reader`), if any.
        self.reads_utf8 = reads_utf8
        self.chunks = 0
        self.done = self.end_mark is None
        self.finish_reasons: list[str] = []
        #: Where a second generation began, in words, for the diagnostic; None if none did.
        self.second_generation: str | None = None
        #: What ended the turn, once it has ended (see `end_turn`).
        self.ended: str | None = None
        #: Whether the framing lets a relay end the body with `[DONE]` (SSE does); set by the
        #: builder from the framing (`_wires.Framing`).
        self.done_after_end = False
        #: Where a relay's `[DONE]` came after the end, in words, for the diagnostic.
        self.relay_done: str | None = None
        self.usage: dict[str, Any] | None = None
        self.content = TextRuns()
        self.reasoning = TextRuns()
        self.extra_content: dict[str, Any] | None = None
        self.events: list[Event] | None = None
        #: False reads every event in full: the reference the template fast path must equal
        #: (`_fast.enabled`). The builder sets it for the readers it makes.
        self.learning = fast_paths_enabled()
        # The envelope of the last event if it carried one arguments fragment (see `learn`).
        self._template: PatternTemplate | None = None
        # The wire's key of each call (block index, item id) to its number in the turn.
        self._calls: dict[Hashable, int] = {}
        # What each call was opened with (id, name), to check an open the wire repeats.
        self._opened: list[tuple[object, object]] = []
        # Tools the provider runs itself, by the wire's key, in the order the wire opened them.
        self._servers: dict[Hashable, _ServerCall] = {}

    def read(self, payloads: list[str]) -> None:
        """Take the payloads of consecutive events (SSE `data`, NDJSON lines, array elements).

        An event that matches the template learned from the one before is a fragment for the
        call the template holds: it goes to that call directly, with none of the checks and
        look-ups a decoded event needs, which were made when the template was learned.
        """
        for text in payloads:
            self.chunks += 1
            if self.second_generation is not None:
                continue
            template = self._template
            if template is not None:
                fragment = template.match(text)
                if fragment is not None:
                    if fragment:
                        template.sink(fragment)  # type: ignore[misc]
                    continue
            try:
                event = self.loads(text)
            except Refused as exc:
                raise StreamError(
                    f"{self.wire} event {self.chunks} cannot be read: {exc}"
                ) from None
            except ValueError as exc:
                if self._relay_ends(text):
                    continue
                raise StreamError(
                    f"{self.wire} event {self.chunks} is not valid JSON: {exc}"
                ) from None
            if not self._take_decoded(event):
                continue
            template = self.learn(text, event) if self.learning else None
            if template is not None and template.sink is None:
                call = self.assembler.call(template.wire_index)
                if call is None:
                    template = None
                else:
                    template.sink = partial(self.assembler.extend, call)
            self._template = template

    def _relay_ends(self, text: str) -> bool:
        """Whether `text`, which is not JSON, is the `[DONE]` a relay serving this wire beside
        chat completions sends after the wire's own end (OpenRouter on Anthropic Messages and
        Responses): kept for the `done_after_end` diagnostic. Looked at only once an event has
        failed to decode: the events that decode pay nothing for it. Before the end, a second
        time, or in a framing of JSON documents, it is what it always was: not JSON."""
        if (
            text != RELAY_END
            or not self.done_after_end
            or self.ended is None
            or self.relay_done is not None
        ):
            return False
        self.relay_done = (
            f"{self.wire} event {self.chunks}: {RELAY_END} after the turn ended at "
            f"{self.ended}, as a relay that also serves chat completions ends a stream"
        )
        self._template = None
        return True

    def _take_decoded(self, event: object) -> bool:
        """Read one decoded event, whatever it was decoded from; False when it was left out,
        as part of a second generation."""
        if type(event) is not dict:
            raise StreamError(
                f"{self.wire} event {self.chunks} is not a JSON object: {shown(event)}"
            )
        try:
            if self.ended is not None and self.adds_to_turn(event):
                self.second_generation = (
                    f"{self.wire} event {self.chunks}, after the turn ended at "
                    f"{self.ended}, began another generation; it and all after it were "
                    "left out"
                )
                return False
            self.event(event)
        except ToolCallError:
            raise
        except (AttributeError, TypeError, KeyError, IndexError, ValueError) as exc:
            raise StreamError(
                f"{self.wire} event {self.chunks} does not have the {self.wire} shape: "
                f"{type(exc).__name__}: {shown(exc)}"
            ) from None
        return True

    def read_long(self, event: LongEvent) -> None:
        """Take a long event held as bytes (`_framing.long_events.LongEvent`): read from its bytes
        where the backend can (`_json.utf8_reader`), else made text and read as any other; a wire
        that repeats what it streamed may check it without reading it (Responses)."""
        reads = self.reads_utf8
        value = UNREAD if reads is None else reads(event.payload())
        if value is not UNREAD:
            self.read_value(value)
            return
        text = event.text()
        if text:  # a long NDJSON line of whitespace is no event, as a short one is not
            self.read([text])

    def read_value(self, event: object) -> None:
        """Take an event decoded without its text (`read_long`), as `read` takes a decoded
        one. No template is learned from it: a long event is not one a stream repeats with
        only a fragment changed, and learning needs the text."""
        self.chunks += 1
        if self.second_generation is None:
            self._take_decoded(event)
        self._template = None

    def next_template(self) -> Template | None:
        """The template the next event most likely matches, for the builder to take it by
        (`_fast.shortcut`): the one learned from the event before, while the turn goes on."""
        return self._template if self.second_generation is None else None

    def take(self, template: PatternTemplate, fragment: str) -> bool:
        """An event the builder matched against `next_template()`, read as `read` reads it;
        True when the template that most likely follows changed (never, here: it is the
        same one until an event is read the ordinary way)."""
        self.chunks += 1
        if fragment:
            template.sink(fragment)  # type: ignore[misc]
        return False

    def event(self, event: dict[str, Any]) -> None:
        """Read one decoded event."""
        raise NotImplementedError

    def adds_to_turn(self, event: dict[str, Any]) -> bool:
        """Whether `event`, arriving after the turn ended, would add to it (and so begins a
        second generation). Every event does, unless the wire says otherwise."""
        return True

    def learn(self, text: str, event: dict[str, Any]) -> PatternTemplate | None:
        """The envelope of `event`, just read, if all it did was append one arguments fragment.

        The next event is then first matched against it (`_fast.templates`): the same text around
        one string literal decodes to the same event with only the fragment changed, and, as
        nothing else happened between the two, reading it would append that fragment to the
        same call. Only the literal is decoded. Any other event is read in full and replaces
        the template, so a template never outlives the state it was learned in.
        """
        return None

    def close(self) -> None:
        """End of body, before the turn is checked: hand over anything still held, and refuse
        what the wire left unfinished."""

    # -- operations on the core ---------------------------------------------------------------

    def open_call(
        self,
        key: Hashable,
        call_id: object,
        name: object,
        extra: dict[str, Any] | None = None,
        call_type: str = "",
    ) -> int:
        """Open the turn's next call, known on the wire as `key`; returns its number.
        `call_type` is `"custom"` for a custom tool's call, whose input is free text.

        `key` None is a call the wire gives no key of its own (a part, a line). An open the wire
        repeats for a key it already opened is checked against the first: the same id and name
        is the same call; anything else is a `StreamError`, never a second call on its number.
        """
        if key is not None:
            number = self._calls.get(key)
            if number is not None:
                if self._opened[number] != (call_id, name):
                    raise StreamError(
                        f"{self.wire} event {self.chunks} opens {shown(key)} again as "
                        f"{shown(name)} (id {shown(call_id)}), which was opened as "
                        f"{shown(self._opened[number][1])} (id {shown(self._opened[number][0])})",
                        index=number,
                    )
                return number
        number = len(self._opened)
        # The wire's own structure (block, item, part) tells calls apart, so the id is given to
        # the call opened rather than used to find one: a repeated id starts no merge.
        self.assembler.open_call(number, call_id, name, extra, call_type)
        self._opened.append((call_id, name))
        if key is not None:
            self._calls[key] = number
        return number

    def _opened_name(self, number: int | None) -> str | None:
        name = None if number is None else self._opened[number][1]
        return name if type(name) is str and name else None

    def call_number(self, key: Hashable) -> int | None:
        return self._calls.get(key)

    def append(self, number: int, text: object) -> None:
        """Append a fragment of arguments text to call `number`."""
        if type(text) is not str:
            raise StreamError(f"arguments must be text, got {shown(text)}", index=number)
        if text:
            self.assembler.append_arguments(number, text)

    def streamed(self, number: int) -> str | None:
        """The arguments text call `number` has received, None if none yet."""
        call = self.assembler.call(number)
        if call is None or not (call.chars or call.unwritten is not None):
            return None
        return call.text()

    def whole_arguments(self, number: int, value: object) -> None:
        """Arguments that arrived as one JSON value (an object), as the text the core reads.

        The call keeps the object: the watcher and the turn take it rather than parse text
        back, and its text is written from it when somebody first reads it
        (`CallTable.take_arguments`).
        """
        if value is None:
            value = {}
        if type(value) is str:
            self.append(number, value)
            return
        if type(value) is not dict:
            raise StreamError(f"arguments must be a JSON object, got {shown(value)}", index=number)
        self.assembler.take_arguments(number, value, self.dumps)

    # -- tools the provider runs itself ---------------------------------------------------------
    # Never calls of the turn: recorded (`Turn.server_tool_calls`), counted against the text
    # limit like everything else the turn holds, and never read as JSON.

    def open_server(self, key: Hashable, kind: object, name: object, call_id: object) -> None:
        """A tool the provider runs began, known on the wire as `key` (an open the wire repeats
        is the same one)."""
        if key in self._servers:
            return
        fields = [value if type(value) is str else "" for value in (kind, name, call_id)]
        self.assembler.spend_text(sum(map(len, fields)) + 1, "server tool calls")
        self._servers[key] = _ServerCall(*fields)

    def is_server(self, key: Hashable) -> bool:
        return key in self._servers

    def server_input(self, key: Hashable, piece: object) -> None:
        """A fragment of the input the model sent a tool the provider runs."""
        if type(piece) is not str:
            raise StreamError(
                f"{self.wire} event {self.chunks}: a server tool's input fragment "
                f"is not text: {shown(piece)}"
            )
        if piece:
            self.assembler.spend_text(len(piece), "server tool input")
            self._servers[key].parts.append(piece)

    def server_whole_input(self, key: Hashable, value: object) -> None:
        """The whole input, where the wire repeats it or sends it at once: taken when no
        fragment came (text as it is, an object written as JSON), else left to the fragments."""
        held = self._servers[key]
        if held.parts or value is None or value == "":
            return
        if type(value) is not str:
            try:
                value = self.dumps(value)  # type: ignore[arg-type]  # any JSON value, checked
            except (ValueError, TypeError, RecursionError) as exc:
                raise StreamError(
                    f"{self.wire} event {self.chunks}: a server tool's input cannot be written "
                    f"as JSON: {exc}"
                ) from None
        self.server_input(key, value)

    def server_result(self, key: Hashable, result: object) -> None:
        """What the provider reported of running the tool, as the wire sent it (an object)."""
        if type(result) is not dict:
            raise StreamError(
                f"{self.wire} event {self.chunks}: a server tool's result is not "
                f"an object: {shown(result)}"
            )
        room = self.assembler.max_text_chars
        self.assembler.spend_text(value_chars(result, room), "server tool results")
        self._servers[key].result = result

    def server_tool_calls(self) -> tuple[ServerToolCall, ...]:
        """The tools the provider ran, in the order the wire opened them."""
        return tuple(
            ServerToolCall(held.kind, held.name, held.id, "".join(held.parts), held.result)
            for held in self._servers.values()
        )

    def text(self, piece: object, *, reasoning: bool = False) -> None:
        """Keep a piece of text or reasoning (counted against the text limit) and report it."""
        if not piece:
            return
        what = "reasoning" if reasoning else "content"
        if type(piece) is not str:
            raise StreamError(f"{self.wire} event {self.chunks}: {what} is not text")
        self.assembler.spend_text(len(piece), what)
        (self.reasoning if reasoning else self.content).add(piece)
        if self.events is not None:
            self.events.append(reasoning_delta(piece) if reasoning else text_delta(piece))

    def finish(self, reason: object) -> None:
        if type(reason) is not str:
            raise StreamError(f"the stop reason must be a string, got {shown(reason)}")
        if reason not in self.finish_reasons:
            self.finish_reasons.append(reason)

    def end_turn(self, what: str) -> None:
        """The wire's own end of the turn arrived (`what`, for the diagnostic)."""
        if self.ended is None:
            self.ended = f"{what} (event {self.chunks})"

    def keep_usage(self, usage: object, *, over: dict[str, Any] | None = None) -> None:
        """Usage as the wire reports it, the latest report replacing the one before (held
        whole, it could grow with every event); `over` is a first report it completes."""
        if isinstance(usage, dict) and usage:
            self.usage = usage if over is None else {**over, **usage}

    def keep_turn_extra(self, provider: str, key: str, value: object) -> None:
        """Append turn-level provider metadata (a thinking signature) under `provider.key`."""
        if type(value) is not str:
            raise StreamError(f"{provider} {key} must be text, got {shown(value)}")
        self.assembler.spend_text(len(value), "metadata")
        if self.extra_content is None:
            self.extra_content = {}
        self.extra_content.setdefault(provider, {}).setdefault(key, []).append(value)


def provider_error(error: Any) -> ProviderError:
    """The `ProviderError` for an error a stream reported in one of its events."""
    if isinstance(error, dict):
        message = error.get("message") or error
        code = error.get("code") or error.get("type")
        return ProviderError(
            "the provider reported an error: "
            + (message if type(message) is str else shown(message)),
            code=None if code is None else code if type(code) is str else shown(code),
            payload=error,
        )
    shown_error = error if type(error) is str else shown(error)
    return ProviderError(f"the provider reported an error: {shown_error}", payload=error)
