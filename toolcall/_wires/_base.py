"""What every wire reader shares: the interface a `TurnBuilder` reads through, and the few
operations a wire's events come down to.

A reader takes the decoded payloads of one wire and turns them into operations on the
wire-neutral core: open a call (id, name, provider metadata), append an arguments fragment to
it, add text or reasoning, record a stop reason, usage, turn metadata. The core (assembler,
watcher, validation, partial view) never learns which wire it was; a call is numbered in the
order the wire opened it, whatever the wire's own index (Anthropic's content block, Responses'
output item) said, so one turn reads the same on every wire.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any, ClassVar

from .._assembler import Assembler
from .._errors import StreamError, ToolCallError, shown
from .._events import Event, reasoning_delta, text_delta
from .._json import Dumps, Loads, Refused
from .._templates import WireTemplate


class WireReader:
    """Base of the readers of the wires other than chat completions.

    The attributes are the ones `TurnBuilder` reads at the end of a turn, the same as the chat
    reader's (`ChunkReader`): stop reasons in order, usage, text, reasoning, and whether the
    wire's closing event arrived. `cut` maps each stop reason that means "stopped before it
    was done" to why; `extra_content` is turn-level provider metadata (thinking signatures).
    """

    wire: ClassVar[str]
    #: Stop reasons that mean the output was cut, with the reason a `TruncatedError` gives.
    cut: ClassVar[Mapping[str, str]]
    #: What the wire sends last, for the `done_absent` diagnostic; None for a wire without one.
    end_mark: ClassVar[str | None] = None

    def __init__(self, assembler: Assembler, loads: Loads, dumps: Dumps) -> None:
        self.assembler = assembler
        self.loads = loads
        self.dumps = dumps
        self.chunks = 0
        self.done = self.end_mark is None
        self.finish_reasons: list[str] = []
        self.finish_id: object = None
        self.second_generation: tuple[int, object] | None = None
        self.usage: dict[str, Any] | None = None
        self.content: list[str] = []
        self.reasoning: list[str] = []
        self.extra_content: dict[str, Any] | None = None
        self.events: list[Event] | None = None
        # The envelope of the last event if it carried one arguments fragment (see `learn`).
        self._template: WireTemplate | None = None
        # The wire's key of each call (block index, item id) to its number in the turn.
        self._calls: dict[Hashable, int] = {}

    def read(self, payloads: list[str]) -> None:
        """Take the payloads of consecutive events (SSE `data`, or NDJSON lines)."""
        for text in payloads:
            self.chunks += 1
            template = self._template
            if template is not None:
                fragment = template.match(text)
                if fragment is not None:
                    self.fragment(template.wire_index, fragment)
                    continue
            try:
                event = self.loads(text)
            except Refused as exc:
                raise StreamError(
                    f"{self.wire} event {self.chunks} cannot be read: {exc}"
                ) from None
            except ValueError as exc:
                raise StreamError(
                    f"{self.wire} event {self.chunks} is not valid JSON: {exc}"
                ) from None
            if type(event) is not dict:
                raise StreamError(
                    f"{self.wire} event {self.chunks} is not a JSON object: {shown(event)}"
                )
            try:
                self.event(event)
            except ToolCallError:
                raise
            except (AttributeError, TypeError, KeyError, IndexError, ValueError) as exc:
                raise StreamError(
                    f"{self.wire} event {self.chunks} does not have the {self.wire} shape: "
                    f"{type(exc).__name__}: {shown(exc)}"
                ) from None
            self._template = self.learn(text, event)

    def event(self, event: dict[str, Any]) -> None:
        """Read one decoded event."""
        raise NotImplementedError

    def learn(self, text: str, event: dict[str, Any]) -> WireTemplate | None:
        """The envelope of `event`, just read, if all it did was append one arguments fragment.

        The next event is then first matched against it (`_templates`): the same text around
        one string literal decodes to the same event with only the fragment changed, and, as
        nothing else happened between the two, reading it would append that fragment to the
        same call. Only the literal is decoded. Any other event is read in full and replaces
        the template, so a template never outlives the state it was learned in.
        """
        return None

    def close(self) -> None:
        """End of body, before the turn is checked: hand over anything still held."""

    # -- operations on the core ---------------------------------------------------------------

    def open_call(
        self, key: Hashable, call_id: object, name: object, extra: dict[str, Any] | None = None
    ) -> int:
        """Open the turn's next call, known on the wire as `key`; returns its number."""
        number = len(self._calls)
        delta: dict[str, Any] = {"index": number, "function": {"name": name}}
        if extra:
            delta["extra_content"] = extra
        self.assembler.feed(delta)  # the limit on calls is checked here, before it is kept
        # The wire's own structure (block, item, part) tells calls apart, so the id is given to
        # the call opened rather than used to find one: a repeated id starts no merge.
        self.assembler._give_id(number, call_id)
        self._calls[key] = number
        return number

    def call_number(self, key: Hashable) -> int | None:
        return self._calls.get(key)

    def fragment(self, number: int, text: object) -> None:
        """Append a fragment of arguments text to call `number`."""
        if type(text) is not str:
            raise StreamError(f"arguments must be text, got {shown(text)}", index=number)
        if text:
            self.assembler._feed_fragment(number, text)

    def received(self, number: int) -> int:
        """How many argument characters call `number` has received."""
        return self.assembler._by_wire_index[number].chars

    def whole_arguments(self, number: int, value: object) -> None:
        """Arguments that arrived as one JSON value (an object), as the text the core reads.

        An object is written as text once, and the call keeps the object too: the watcher and
        the turn take it rather than parse the text back (`Assembler._feed_read`).
        """
        if value is None:
            value = {}
        if type(value) is str:
            self.fragment(number, value)
            return
        if type(value) is not dict:
            raise StreamError(f"arguments must be a JSON object, got {shown(value)}", index=number)
        try:
            text = self.dumps(value)
        except (ValueError, TypeError, RecursionError) as exc:
            raise StreamError(f"arguments cannot be written as JSON: {exc}", index=number) from None
        self.assembler._feed_read(number, text, value)

    def text(self, piece: object, *, reasoning: bool = False) -> None:
        """Keep a piece of text or reasoning (counted against the text limit) and report it."""
        if not piece:
            return
        what = "reasoning" if reasoning else "content"
        if type(piece) is not str:
            raise StreamError(f"{self.wire} event {self.chunks}: {what} is not text")
        self.assembler._spend_text(len(piece), None, what)
        (self.reasoning if reasoning else self.content).append(piece)
        if self.events is not None:
            self.events.append(reasoning_delta(piece) if reasoning else text_delta(piece))

    def finish(self, reason: object) -> None:
        if type(reason) is not str:
            raise StreamError(f"the stop reason must be a string, got {shown(reason)}")
        if reason not in self.finish_reasons:
            self.finish_reasons.append(reason)

    def keep_usage(self, usage: object, *, over: dict[str, Any] | None = None) -> None:
        """Usage as the wire reports it, the latest report replacing the one before (held
        whole, it could grow with every event); `over` is a first report it completes."""
        if isinstance(usage, dict) and usage:
            self.usage = usage if over is None else {**over, **usage}

    def keep_turn_extra(self, provider: str, key: str, value: object) -> None:
        """Append turn-level provider metadata (a thinking signature) under `provider.key`."""
        if type(value) is not str:
            raise StreamError(f"{provider} {key} must be text, got {shown(value)}")
        self.assembler._spend_text(len(value), None, "metadata")
        if self.extra_content is None:
            self.extra_content = {}
        self.extra_content.setdefault(provider, {}).setdefault(key, []).append(value)
