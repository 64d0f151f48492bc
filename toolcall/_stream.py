"""The whole flow in one object: body bytes in, events and a finished, validated turn out.

`TurnBuilder` is sans-IO like the pieces it joins (framing, the wire's reader, assembler): the
caller owns the socket and hands over bytes as they arrive, split anywhere, and gets back the
events those bytes completed. `iter_events` and `aiter_events` wrap an (async) iterator of byte
chunks for a caller who wants the events in a `for` loop; `assemble` and `assemble_async` are the
one-call forms for a caller who wants only the turn, and do not pay for events.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Sequence
from typing import Any, cast

from ._call_table import (
    DEFAULT_MAX_ARGUMENT_CHARS,
    DEFAULT_MAX_CALLS,
    DEFAULT_MAX_TEXT_CHARS,
    CallTable,
)
from ._errors import StreamError, ToolCallError, UsageError, shown
from ._fast import is_enabled as fast_paths_enabled
from ._fast.shortcut import Shortcut, Template
from ._framing.error_answer import (
    ERROR_BODY_BYTES,
    error_answer,
    is_error_document,
    looks_like_an_answer,
)
from ._framing.long_events import LongEvent
from ._framing.sse import DEFAULT_MAX_EVENT_CHARS
from ._json import UNREAD, Refused, backend, utf8_reader, writer
from ._options import ReadOptions
from ._turn.call_watcher import CallWatcher
from ._turn.diagnostics import Diagnostic
from ._turn.events import Event, TurnDone
from ._turn.turn import Turn, UnsoundTurnError, end_turn
from ._wires import (
    FRAMINGS,
    WIRES,
    Decoder,
    WireReader,
    check_wire,
    default_framing,
    framing_of,
    wire_of,
)

_WINDOW = 64 * 1024
#: Shortcuts a builder keeps, one per template, and the longest template prefix it keeps one
#: for (`_next_shortcut`): together they bound what the shortcuts hold, whatever the stream.
_SHORTCUTS_KEPT = 256
_PREFIX_KEPT = 2048


class TurnBuilder:
    """Feed body bytes as they arrive and get back the events they completed; `finish()` at the
    end of the body returns the rest, `TurnDone` with the validated `Turn` last.

    With `events=False`, `feed` returns an empty list and `finish` only `TurnDone`: the cost of
    plain assembly, for a caller who waits for the whole turn.

    One builder reads one body, like h11's connection state machine: after `finish()` returned,
    or after it or `feed()` raised the library's error, every further call raises `UsageError`
    saying which. Reading on after a broken chunk would return a turn with that chunk missing,
    and a second `finish()` would blame the provider for the caller's loop.

    The limits bound what a stream can make it hold: `max_calls`, `max_argument_chars` (all
    calls' arguments), `max_text_chars` (content, reasoning, names, ids, types, extra_content)
    and `max_event_chars` (one SSE event, checked as it arrives, before it is decoded).

    `wire` names the API the body comes from: "chat" (chat completions), "responses" (OpenAI's
    Responses API), "anthropic" (Messages), "gemini" (`streamGenerateContent`, Vertex included,
    as SSE or as the JSON array it sends without `?alt=sse`) or "ollama" (`/api/chat`,
    newline-delimited JSON). The default, "auto", tells the framing from the body's first byte and
    the wire from its first event where only one wire can have sent it (`_wires`), and raises
    `UsageError` where two can; `wire` then says which it is. Every wire gives the same events,
    errors and limits.

    `status` is the HTTP status of the answer, where the caller has it (`response.status_code`):
    outside 2xx the body is the provider's error answer, kept (its first 64 KiB) and raised by
    `finish()` as a `ProviderError` with the status and the provider's message. Without it, a
    body that begins as a JSON document or an HTML page and never becomes a stream is read the
    same way, without the status.
    """

    def __init__(
        self,
        *,
        json_backend: str = "auto",
        max_calls: int = DEFAULT_MAX_CALLS,
        max_argument_chars: int = DEFAULT_MAX_ARGUMENT_CHARS,
        max_text_chars: int = DEFAULT_MAX_TEXT_CHARS,
        max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
        events: bool = True,
        partial_arguments: bool = False,
        wire: str = "auto",
        status: int | None = None,
    ) -> None:
        if status is not None and (type(status) is not int or not 100 <= status <= 599):
            raise UsageError(f"status must be an HTTP status (100-599) or None: {shown(status)}")
        if type(events) is not bool or type(partial_arguments) is not bool:
            raise UsageError(
                f"events and partial_arguments must be True or False, got {shown(events)} and "
                f"{shown(partial_arguments)}"
            )
        if partial_arguments and not events:
            raise UsageError("partial_arguments=True needs events: the views follow them")
        self._wire = check_wire(wire)
        self._max_event_chars = max_event_chars
        # The framing's decoder, chosen from the body's first byte that is not whitespace;
        # until then the bytes before it wait in `_lead`.
        self._decoder: Decoder | None = None
        self._framing = ""
        self._documents = False
        self._lead = bytearray()
        self._assembler = CallTable(
            max_calls=max_calls,
            max_argument_chars=max_argument_chars,
            max_text_chars=max_text_chars,
        )
        self._loads = backend(json_backend)
        self._dumps = writer(json_backend)
        self._reads_utf8 = utf8_reader(json_backend)
        self._events: list[Event] | None = [] if events else None
        self._watcher: CallWatcher | None = None
        if self._events is not None:
            self._watcher = CallWatcher(self._events, partial=partial_arguments)
            self._assembler.report_to(self._watcher)
        # False when made inside `_fast.enabled(False)`: every event read in full, as text,
        # the reference each fast path must equal.
        self._fast = fast_paths_enabled()
        # The wire's reader, made when the first event says which wire it is.
        self._reader: WireReader | None = None
        # An event like the last, taken from its bytes in one step (`_fast.shortcut`).
        self._shortcut: Shortcut | None = None
        # Shortcuts by the template they take events by; None for a template named once.
        self._shortcuts: dict[Template, Shortcut | None] = {}
        # The body is an error answer, not a stream: nothing more is read, finish() raises.
        self._answer = False
        # None while the builder reads; once it is done, what ended it, for the UsageError.
        self._ended: str | None = None
        # The status when it says the body is an error answer, read whole by finish().
        self._error_status = None if status is None or 200 <= status <= 299 else status
        # The start of the body, until it has shown itself to be a stream (or an error answer).
        self._head: bytearray | None = bytearray()
        # The diagnostics read so far (`diagnostics`), the turn's once finish() returned it.
        self._seen: tuple[Diagnostic, ...] = ()

    def feed(self, data: bytes) -> list[Event]:
        """Take the next slice of the HTTP body (any bytes-like object, including empty); return
        the events it completed, in stream order.

        A large slice (a whole replayed body) is worked through in windows: decoding megabytes
        of events into one list first is slower than the JSON itself, while a window stays in
        the processor's cache.
        """
        if self._ended is not None:
            raise UsageError(f"feed() after {self._ended}: a TurnBuilder reads one body")
        if type(data) is not bytes:
            data = _as_bytes(data, "feed() takes bytes")
        try:
            shortcut = self._shortcut
            changed = None if shortcut is None else shortcut.read(data)
            if changed is None:
                self._feed(data)
            elif changed:
                self._shortcut = self._next_shortcut()
        except ToolCallError as exc:
            self._ended = f"the {type(exc).__name__} it raised ({exc})"
            raise
        events = self._events
        if not events:
            return []
        taken = events.copy()
        events.clear()
        return taken

    def _feed(self, data: bytes) -> None:
        """Read a slice the shortcut did not take, and learn the next shortcut."""
        head = self._head
        if head is not None:
            head += data[: ERROR_BODY_BYTES - len(head)]
            if self._error_status is not None or self._answer:
                return
        decoder = self._decoder
        if decoder is None:
            decoder = self._frame(data)
            if decoder is None:
                return
            if self._lead:
                data, self._lead = bytes(self._lead), bytearray()
        reader = self._reader
        if len(data) <= _WINDOW:
            payloads = decoder.take(data)
            # A long event comes first of an SSE slice's (the one its decoder held), anywhere
            # among a document framing's: the check costs a chat chunk one type test.
            if reader is not None and (
                (not payloads or type(payloads[0]) is not LongEvent)
                if not self._documents
                else LongEvent not in map(type, payloads)
            ):
                reader.read(payloads)  # type: ignore[arg-type]
            else:
                self._read(payloads)
        elif (event := decoder.take_whole(data)) is not None:
            self._read([event])  # one long event, read from the slice itself
        else:
            view = memoryview(data)
            for start in range(0, len(data), _WINDOW):
                # A window after an error raises it, before anything after it is read.
                self._read(decoder.take(bytes(view[start : start + _WINDOW])))
                if self._answer:
                    break
        if decoder.error is not None and not self._answer:
            # The events before it are read: errors come in stream order. A body already
            # shown to be an error answer is read as one, whatever follows its start.
            raise decoder.error
        if head is not None and self._showed_a_stream():
            self._head = None  # a stream: nothing more to keep
        self._shortcut = self._next_shortcut()

    def _next_shortcut(self) -> Shortcut | None:
        """The shortcut for the next slice (`_fast.shortcut`), once the body is a stream, the
        framing can say how its last event was framed and the reader which template follows.

        A template gets one the second time it is named, and keeps it: where each event is
        another call's (parallel calls taking turns on chat), the reader names each call's
        template in turn, and making a shortcut every time cost more than the event. At most
        `_SHORTCUTS_KEPT` are kept, for prefixes of at most `_PREFIX_KEPT` characters (the
        envelope of a fragment is a few hundred), so a stream that never repeats itself, or
        whose envelopes are huge, makes them hold little.
        """
        reader, decoder = self._reader, self._decoder
        if reader is None or decoder is None or self._head is not None or self._answer:
            return None
        template = reader.next_template()
        if template is None or len(template.prefix) > _PREFIX_KEPT:
            return None
        envelope = decoder.envelope()
        if envelope is None:
            return None
        kept = self._shortcuts
        shortcut = kept.get(template)
        if shortcut is not None and shortcut.envelope == envelope:
            return shortcut
        if len(kept) >= _SHORTCUTS_KEPT:
            kept.clear()
        if template not in kept:
            kept[template] = None
            return None
        shortcut = Shortcut(envelope, template, reader.take, decoder.passed, self._max_event_chars)
        kept[template] = shortcut
        return shortcut

    def _frame(self, data: bytes) -> Decoder | None:
        """The decoder of the body's framing, once its first byte that is not whitespace has
        come (`_wires.framing_of`); None before. Bytes wait in `_lead` only while it has not:
        the slice that shows it is read as it came, not copied (it may be a whole body)."""
        lead = self._lead
        if lead:
            since = len(lead)
            lead += data
            framing = framing_of(self._wire, lead, since)
        else:
            framing = framing_of(self._wire, data)
            if framing is None:
                lead += data
        return None if framing is None else self._use(framing)

    def _use(self, framing: str) -> Decoder:
        self._framing = framing
        self._documents = FRAMINGS[framing].documents
        make = FRAMINGS[framing].decoder if self._fast else _text_only(framing)
        decoder = self._decoder = make(max_event_chars=self._max_event_chars)
        return decoder

    def _read(self, payloads: Sequence[str | LongEvent]) -> None:
        """Read payloads, first choosing the reader from the first of them if none is yet: a
        long one from its bytes (`_read_long`), the text ones between them as text."""
        start = 0
        for at, payload in enumerate(payloads):
            if type(payload) is LongEvent:
                self._read_text(cast("list[str]", payloads[start:at]))
                self._read_long(payload)
                start = at + 1
        self._read_text(cast("list[str]", payloads[start:] if start else payloads))

    def _read_long(self, event: LongEvent) -> None:
        """A long event, held as bytes (`_framing.long_events.LongEvent`): the reader reads it from
        its bytes, or checks it without reading it. The first event of a body, where it chooses the
        reader or may show an error answer, is decoded here once, and handed to the reader
        decoded."""
        if self._answer:
            return
        reader = self._reader
        if reader is None and (self._wire == "auto" or self._documents):
            reads = self._reads_utf8
            value = UNREAD if reads is None else reads(event.payload())
            if value is UNREAD:
                text = event.text()
                if text:  # a long NDJSON line of whitespace is no event, as a short one is not
                    self._read_text([text])
            elif self._chosen_by(value):
                reader = self._reader = self._reader_for(self._wire)
                reader.read_value(value)
            return
        if reader is None:
            reader = self._reader = self._reader_for(self._wire)
        reader.read_long(event)

    def _read_text(self, payloads: list[str]) -> None:
        if self._answer:
            return
        reader = self._reader
        if reader is None:
            if not payloads:
                return
            if self._wire == "auto" or self._documents:
                # The first event names the wire, or, where the framing makes each event a
                # JSON document of the body, may show the body to be an error answer.
                first = payloads[0]
                try:
                    decoded = self._loads(first) if first != "[DONE]" else None
                except Refused:
                    decoded = None  # JSON the library does not read: the reader says why
                except ValueError:
                    decoded = None
                    if self._documents and self._reads_as_an_answer():
                        self._answer = True
                        return
                if not self._chosen_by(decoded):
                    return
                # The reader decodes the event again: held here too, a large first event (a
                # whole Gemini answer) would be held twice.
                del decoded
            reader = self._reader = self._reader_for(self._wire)
        reader.read(payloads)

    def _chosen_by(self, decoded: object) -> bool:
        """Take the body's first event, decoded (None if it is not JSON): the wire it names,
        when the wire is "auto"; False when it shows the body to be an error answer."""
        if self._documents and is_error_document(decoded) and self._head is not None:
            self._answer = True
            return False
        if self._wire == "auto":
            self._wire = wire_of(self._framing, decoded)
        return True

    def _reader_for(self, wire: str) -> WireReader:
        reader = WIRES[wire].reader(self._assembler, self._loads, self._dumps, self._reads_utf8)
        reader.learning = self._fast
        reader.events = self._events
        reader.done_after_end = FRAMINGS[self._framing].done_after_end
        return reader

    def _showed_a_stream(self) -> bool:
        reader = self._reader
        return reader is not None and bool(reader.chunks or reader.done)

    def _reads_as_an_answer(self) -> bool:
        """Whether the body, failing to read as a stream before it showed itself one, is an
        error answer instead: a JSON document or a page the caller gave no status for."""
        head = self._head
        return head is not None and not self._showed_a_stream() and looks_like_an_answer(head)

    @property
    def wire(self) -> str:
        """The wire being read: as passed, or as detected ("auto" until the first event)."""
        return self._wire

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """The diagnostics seen so far, in order of first sight: what the calls did that was
        unusual or was repaired, each there from the `feed` whose event showed it (a repair
        decided once a call's arguments are whole, `arguments_resent`, from then).

        Those only the end of the body can tell (`done_absent`, `stop_with_tool_calls`, markup
        in the text) come with the turn: once `finish()` returned it (or raised
        `UnsoundTurnError` with it), this is `turn.diagnostics`. Each value is a prefix of the
        next, so a caller who places a quirk at its event (`toolcall doctor`) reads those past
        the last length. A read costs the new ones only; a builder nobody asks pays nothing.
        """
        new = self._assembler.diagnostics_after(len(self._seen))
        if new:
            self._seen += tuple(new)
        return self._seen

    def partial_arguments(self, index: int) -> dict[str, Any]:
        """Call `index`'s arguments as far as they have arrived (`TurnBuilder(partial_arguments=
        True)`): completed members, the string in progress so far, nested values.

        The objects are live and read-only: the same dict, filled in place as more arrives (a
        copy on every call would cost the whole prefix). The string in progress grows in place
        by what arrived since the last read when nobody else holds it, so reading the view after
        every fragment costs what arrived, as applying `ArgumentsDelta.changes` does; a caller
        that keeps the string pays a copy on the next read, as a `str` requires. A call whose
        arguments arrived whole is read from the object the wire sent, not scanned again. A call
        whose arguments have not begun, or cannot be JSON, shows what was read. A custom tool's
        call has no view: its input is text, never read as JSON (`UsageError`).
        """
        if self._watcher is None or not self._watcher.partial:
            raise UsageError("partial_arguments() needs TurnBuilder(partial_arguments=True)")
        if index in self._watcher.custom:
            raise UsageError(
                f"call {index} is a custom tool's call: its input is text, not JSON arguments; "
                "read it from its ArgumentsDelta fragments or from the call"
            )
        view = self._watcher.views.get(index)
        return {} if view is None else view.value()

    def finish(self) -> list[Event]:
        """End of body: flush, then check every call; the last events, `TurnDone` last.

        Raises the library's errors only, and then no `TurnDone` comes.
        """
        if self._ended is not None:
            raise UsageError(f"finish() after {self._ended}: a TurnBuilder reads one body")
        try:
            turn = self._finish()
        except ToolCallError as exc:
            self._ended = f"the {type(exc).__name__} it raised ({exc})"
            if isinstance(exc, UnsoundTurnError):
                self._seen = exc.turn.diagnostics
            raise
        self._ended = "finish() returned the turn"
        self._seen = turn.diagnostics
        events = self._events
        taken = [] if events is None else events.copy()
        taken.append(TurnDone(turn))
        return taken

    def _finish(self) -> Turn:
        head = self._head
        if head is not None and self._error_status is not None:
            raise error_answer(bytes(head), self._error_status)
        if self._answer and head is not None:
            raise error_answer(bytes(head), None)
        decoder = self._decoder
        if decoder is None:
            decoder = self._use(default_framing(self._wire))
            decoder.take(bytes(self._lead))
        # Until a stream has shown itself, the body may be an error answer: a JSON document or
        # a page, which a decoder refuses as a line cut off, or reads as no event at all.
        answer = self._reads_as_an_answer()
        try:
            self._read(decoder.close())
        except StreamError:
            if answer and head is not None:
                raise error_answer(bytes(head), None) from None
            raise
        if head is not None and (self._answer or not self._showed_a_stream()):
            if answer or self._answer:
                raise error_answer(bytes(head), None)
            if not head.strip():
                raise StreamError(
                    "the body is empty (an HTTP error answer? pass its status to see it)"
                )
        if self._reader is None:
            if self._wire == "auto":
                self._wire = wire_of(self._framing, None)
            self._reader = self._reader_for(self._wire)
        reader = self._reader
        reader.close()
        return end_turn(self._assembler, reader, decoder, self._watcher)


def assemble(
    body: bytes | Iterable[bytes],
    *,
    json_backend: str = "auto",
    max_calls: int = DEFAULT_MAX_CALLS,
    max_argument_chars: int = DEFAULT_MAX_ARGUMENT_CHARS,
    max_text_chars: int = DEFAULT_MAX_TEXT_CHARS,
    max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
    wire: str = "auto",
    status: int | None = None,
) -> Turn:
    """Assemble a whole body, or an iterator of byte chunks (`httpx.Response.iter_bytes()`).

    The keywords are `TurnBuilder`'s; no events are gathered, since only the turn is returned.
    Pass `status=response.status_code`: an error answer is then a `ProviderError` with the status
    and the provider's message.
    """
    options = ReadOptions(
        json_backend=json_backend,
        max_calls=max_calls,
        max_argument_chars=max_argument_chars,
        max_text_chars=max_text_chars,
        max_event_chars=max_event_chars,
        wire=wire,
        status=status,
    )
    builder = _builder(options, events=False)
    if isinstance(body, (bytes, bytearray, memoryview)):
        builder.feed(body)  # type: ignore[arg-type]  # any bytes-like object; feed converts
    else:
        for piece in _pieces(body, "assemble()"):
            builder.feed(piece)
    return _turn(builder.finish())


async def assemble_async(
    body: AsyncIterable[bytes],
    *,
    json_backend: str = "auto",
    max_calls: int = DEFAULT_MAX_CALLS,
    max_argument_chars: int = DEFAULT_MAX_ARGUMENT_CHARS,
    max_text_chars: int = DEFAULT_MAX_TEXT_CHARS,
    max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
    wire: str = "auto",
    status: int | None = None,
) -> Turn:
    """Assemble from an async iterator of byte chunks (`httpx.Response.aiter_bytes()`)."""
    options = ReadOptions(
        json_backend=json_backend,
        max_calls=max_calls,
        max_argument_chars=max_argument_chars,
        max_text_chars=max_text_chars,
        max_event_chars=max_event_chars,
        wire=wire,
        status=status,
    )
    builder = _builder(options, events=False)
    async for piece in _async_pieces(body, "assemble_async()"):
        builder.feed(piece)
    return _turn(builder.finish())


def iter_events(
    body: Iterable[bytes],
    *,
    json_backend: str = "auto",
    max_calls: int = DEFAULT_MAX_CALLS,
    max_argument_chars: int = DEFAULT_MAX_ARGUMENT_CHARS,
    max_text_chars: int = DEFAULT_MAX_TEXT_CHARS,
    max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
    wire: str = "auto",
    status: int | None = None,
) -> Iterator[Event]:
    """The events of a body read from an iterator of byte chunks (`iter_bytes()`), as they come.

    Each event is yielded as soon as the chunk that completed it was read, `TurnDone` last.
    """
    options = ReadOptions(
        json_backend=json_backend,
        max_calls=max_calls,
        max_argument_chars=max_argument_chars,
        max_text_chars=max_text_chars,
        max_event_chars=max_event_chars,
        wire=wire,
        status=status,
    )
    builder = _builder(options, events=True)
    for piece in _pieces(body, "iter_events()"):
        yield from builder.feed(piece)
    yield from builder.finish()


async def aiter_events(
    body: AsyncIterable[bytes],
    *,
    json_backend: str = "auto",
    max_calls: int = DEFAULT_MAX_CALLS,
    max_argument_chars: int = DEFAULT_MAX_ARGUMENT_CHARS,
    max_text_chars: int = DEFAULT_MAX_TEXT_CHARS,
    max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
    wire: str = "auto",
    status: int | None = None,
) -> AsyncIterator[Event]:
    """`iter_events` over an async iterator of byte chunks (`httpx.Response.aiter_bytes()`)."""
    options = ReadOptions(
        json_backend=json_backend,
        max_calls=max_calls,
        max_argument_chars=max_argument_chars,
        max_text_chars=max_text_chars,
        max_event_chars=max_event_chars,
        wire=wire,
        status=status,
    )
    builder = _builder(options, events=True)
    async for piece in _async_pieces(body, "aiter_events()"):
        for event in builder.feed(piece):
            yield event
    for event in builder.finish():
        yield event


def _builder(options: ReadOptions, *, events: bool) -> TurnBuilder:
    """The builder behind the one-call forms, whose keywords are `TurnBuilder`'s own."""
    return TurnBuilder(events=events, **options.keywords())


def _turn(events: list[Event]) -> Turn:
    last = events[-1]
    assert isinstance(last, TurnDone)  # finish() ends every list it returns with TurnDone
    return last.turn


def _pieces(body: Iterable[bytes], who: str) -> Iterator[bytes]:
    """The byte chunks of `body`, each checked to be bytes-like, or a `UsageError`."""
    if isinstance(body, str):
        raise UsageError(f"{who} takes bytes, not str: pass the body undecoded")
    if isinstance(body, (bytes, bytearray, memoryview)):
        yield _as_bytes(body, "the body must be bytes")
        return
    try:
        pieces = iter(body)
    except TypeError:
        raise UsageError(
            f"{who} takes bytes or an iterable of bytes, not {type(body).__name__}"
        ) from None
    for piece in pieces:
        yield _as_bytes(piece, "the body must be bytes")


async def _async_pieces(body: AsyncIterable[bytes], who: str) -> AsyncIterator[bytes]:
    if not hasattr(body, "__aiter__"):
        raise UsageError(
            f"{who} takes an async iterable of bytes (aiter_bytes()), not "
            f"{type(body).__name__}; use the plain form for bytes or a plain iterable"
        )
    async for piece in body:
        yield _as_bytes(piece, "the body must be bytes")


def _as_bytes(data: object, what: str) -> bytes:
    """`data` as bytes, if it is a bytes-like object (a strided memoryview in its order)."""
    if type(data) is bytes:
        return data
    if isinstance(data, (bytes, bytearray)):
        return bytes(data)
    if isinstance(data, memoryview):
        try:
            return data.tobytes()
        except ValueError as exc:  # a released view
            raise UsageError(f"{what}: {exc}") from None
    raise UsageError(f"{what}, not {type(data).__name__}")


#: The plain path's decoders, by framing, made once each (`_text_only`).
_TEXT_ONLY: dict[str, Callable[..., Decoder]] = {}


def _text_only(framing: str) -> Callable[..., Decoder]:
    """The framing's own decoder with no event long enough to be held as bytes: every event is
    made text as it comes, the plain path a builder made inside `_fast.enabled(False)` takes.
    A subclass that says only that, so the decoder's reading stays the one the fast path
    shares, and a test that sets the threshold on the framing's class still sets the fast
    path's."""
    made = _TEXT_ONLY.get(framing)
    if made is None:
        fast = FRAMINGS[framing].decoder
        assert isinstance(fast, type)
        made = type(
            f"TextOnly{fast.__name__}", (fast,), {"__slots__": (), "long_from": sys.maxsize}
        )
        _TEXT_ONLY[framing] = made
    return made
