"""OpenAI's Responses API stream (`POST /v1/responses`, `stream: true`).

A call is an output item: `response.output_item.added` opens it (`type: "function_call"`, its
`call_id` and `name`), `response.function_call_arguments.delta` events carry its arguments keyed
by the item's id (and its `output_index`), `response.function_call_arguments.done` repeats them
whole, and `response.output_item.done` repeats the item. Some servers send no deltas at all (LM
Studio sends only `.done`), so the whole text is taken from `.done`, or from the finished item,
when no delta came; when deltas came, a `.done` that disagrees with them is an error, not a
choice between two answers. Text and reasoning follow the same rule (`.delta`, else `.done`).

A custom (freeform) tool's call is a `custom_tool_call` item: the same shape, its input text in
`response.custom_tool_call_input.delta` events and repeated by `.done` (`input`) and by the
finished item; it is a call of the turn (`"custom"`), its input never read as JSON, complete at
its `.done` or its finished item. Items of tools the provider runs itself (`mcp_call`,
`web_search_call`, `file_search_call`, `code_interpreter_call`, `image_generation_call`) are no
calls: each is recorded on the turn (`ServerToolCall`) with the input its deltas streamed
(`response.mcp_call_arguments.delta`, `response.code_interpreter_call_code.delta`) or its
finished item holds, and that finished item as its result.

The turn ends at `response.completed` (stop reason `"completed"`) or `response.incomplete`,
a cut, whose stop reason is `incomplete_details.reason` (`max_output_tokens`, `content_filter`);
`response.failed` and `error` events are the provider's errors.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from .._errors import StreamError, shown
from .._fast.repeated_text import Path, decode_around, find
from .._fast.templates import INTEGER_HOLE, STRING_HOLE, PatternTemplate, pattern_template
from .._fast.text_runs import TextRuns
from .._framing.long_events import LongEvent
from ._base import WireReader, provider_error

_TEXT = {
    "response.output_text.delta": False,
    "response.reasoning_text.delta": True,
    "response.reasoning_summary_text.delta": True,
}
#: Members of an arguments delta this reader never reads, which change with every event.
_UNREAD = {"obfuscation": STRING_HOLE, "sequence_number": INTEGER_HOLE}
#: Output items of tools the provider runs itself, and the member of the item holding the input
#: the model sent it ("" where the input is only in the finished item, the result).
_SERVER_ITEMS = {
    "mcp_call": "arguments",
    "code_interpreter_call": "code",
    "web_search_call": "",
    "file_search_call": "",
    "image_generation_call": "",
}
#: The events that stream a server item's input, and the member each one's piece is in.
_SERVER_INPUT = {
    "response.mcp_call_arguments.delta": "delta",
    "response.code_interpreter_call_code.delta": "delta",
}
_SERVER_INPUT_DONE = {
    "response.mcp_call_arguments.done": "arguments",
    "response.code_interpreter_call_code.done": "code",
}
#: The item type of a custom tool's call.
_CUSTOM_ITEM = "custom_tool_call"
_TEXT_DONE = {
    "response.output_text.done": False,
    "response.reasoning_text.done": True,
    "response.reasoning_summary_text.done": True,
}


#: Characters of arguments from which a long event is searched for their repetition.
_REPEATED_FROM = 4096


#: What a long event may repeat: a call's arguments (by the call's number) or a streamed text
#: part's text (by its item id and content index).
Source = tuple[str, object]


class _Repeated:
    """Where a long event repeats what `source` streamed (`ResponsesReader._repeating`)."""

    __slots__ = ("source",)

    def __init__(self, source: Source) -> None:
        self.source = source


def _repeats_at(kind: object, path: Path, source: Source) -> bool:
    """Whether an event of type `kind` may hold, at `path`, the repetition of what `source`
    streamed: arguments where this wire repeats them (`.done`, the finished item, each item of
    the finished response); a text part's text at its `.done`, where it is checked, or at
    places this reader never reads (the finished part, item and response)."""
    finished = kind in ("response.completed", "response.incomplete")
    if source[0] == "call":
        if kind in (
            "response.function_call_arguments.done",
            "response.custom_tool_call_input.done",
        ):
            return path in (("arguments",), ("input",))
        if kind == "response.output_item.done":
            return path in (("item", "arguments"), ("item", "input"))
        return (
            finished
            and len(path) == 4
            and path[:2] == ("response", "output")
            and type(path[2]) is int
            and path[3] in ("arguments", "input")
        )
    if type(kind) is str and kind in _TEXT_DONE:
        return path == ("text",)
    if kind in ("response.content_part.done", "response.reasoning_summary_part.done"):
        return path[:1] == ("part",)
    if kind == "response.output_item.done":
        return path[:2] in (("item", "content"), ("item", "summary"))
    return finished and path[:2] == ("response", "output") and path[-1:] == ("text",)


class ResponsesReader(WireReader):
    wire = "responses"
    cut: ClassVar[Mapping[str, str]] = {
        "max_output_tokens": "the response is incomplete: the output hit max_output_tokens",
        "content_filter": "the response is incomplete: the provider's filter cut it",
        "incomplete": "the response is incomplete",
    }
    end_mark = "'response.completed'"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Output index to item id, for a delta that names only its index.
        self._items: dict[object, object] = {}
        # The pieces each text part (item id, content index) received as deltas: its `.done`
        # repeats them, and is checked against them.
        self._streamed: dict[tuple[object, object], TextRuns] = {}
        # Custom calls whose input the wire said is complete.
        self._inputs_done: set[int] = set()

    def event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "response.function_call_arguments.delta":
            self.append(self._number(event), event["delta"])
        elif kind in _TEXT:
            part = (event.get("item_id"), event.get("content_index"))
            pieces = self._streamed.get(part)
            if pieces is None:
                self.assembler.spend_text(len(str(part[0])), "item ids")
                pieces = self._streamed[part] = TextRuns()
            piece = event["delta"]
            self.text(piece, reasoning=_TEXT[kind])
            if piece:
                pieces.add(piece)
        elif kind in _TEXT_DONE:
            self._text_done(kind, event)
        elif kind == "response.output_item.added":
            item = event["item"]
            item_kind = item.get("type")
            if item_kind == "function_call":
                self._open(event, item)
            elif item_kind == _CUSTOM_ITEM:
                self._open(event, item, "input")
            elif item_kind in _SERVER_ITEMS:
                self._open_server(event, item)
        elif kind == "response.function_call_arguments.done":
            self._whole(self._number(event), event["arguments"])
        elif kind == "response.output_item.done":
            self._item_done(event, event["item"])
        elif kind == "response.custom_tool_call_input.delta":
            self._custom_input(event)
        elif kind == "response.custom_tool_call_input.done":
            self._custom_done(event, event["input"])
        elif kind in _SERVER_INPUT:
            self.server_input(self._server_key(event), event[_SERVER_INPUT[kind]])
        elif kind in _SERVER_INPUT_DONE:
            self.server_whole_input(self._server_key(event), event[_SERVER_INPUT_DONE[kind]])
        elif kind in ("response.completed", "response.incomplete"):
            response = event["response"]
            self.keep_usage(response.get("usage"))
            if kind == "response.incomplete":
                details = response.get("incomplete_details") or {}
                self.finish(details.get("reason") or "incomplete")
            else:
                self.finish("completed")
            self.done = True
            self.end_turn(kind)
        elif kind == "response.failed":
            response = event.get("response") or {}
            raise provider_error(response.get("error") or event)
        elif kind == "error":
            raise provider_error(event.get("error") or event)

    def _text_done(self, kind: str, event: dict[str, Any]) -> None:
        """A text part's `.done`: the whole text, which repeats its deltas (or is the text, when
        none came)."""
        part = (event.get("item_id"), event.get("content_index"))
        pieces = self._streamed.get(part)
        text = event["text"]
        if type(text) is _Repeated:
            if text.source == ("text", part):
                return  # found, written as the stdlib writes it, to be what streamed
            text = event["text"] = self._resolved(text)
        if text is None:
            return  # nothing repeated, as with arguments: nothing to take or check
        if type(text) is not str:
            raise StreamError(
                f"responses event {self.chunks}: the whole text {kind} repeated is not "
                f"text: {shown(text)}"
            )
        if not pieces:  # no text came before: the repetition is the text
            self.text(text, reasoning=_TEXT_DONE[kind])
            pieces = self._streamed[part] = TextRuns()
            pieces.add(text)
        elif text != pieces.joined():
            raise StreamError(
                f"responses event {self.chunks}: the whole text {kind} repeated "
                f"({len(str(event['text']))} characters) differs from its deltas "
                f"({len(pieces.joined())} characters)"
            )

    def _item_done(self, event: dict[str, Any], item: dict[str, Any]) -> None:
        """A finished output item: a call's whole arguments or input, or a server tool's
        result."""
        item_kind = item.get("type")
        if item_kind == "function_call":
            number = self.call_number(item.get("id"))
            if number is None:
                number = self._open(event, item)
            self._whole(number, item.get("arguments"))
        elif item_kind == _CUSTOM_ITEM:
            self._custom_done(event, item.get("input"), item)
        elif item_kind in _SERVER_ITEMS:
            key = self._open_server(event, item)
            member = _SERVER_ITEMS[item_kind]
            if member:
                self.server_whole_input(key, item.get(member))
            self.server_result(key, item)

    def _custom_input(self, event: dict[str, Any]) -> None:
        """A piece of a custom call's input, refused once its input was said to be complete."""
        number = self._number(event)
        if number in self._inputs_done:
            raise StreamError(
                f"responses event {self.chunks}: input arrived for a custom tool call after "
                "its input was complete",
                index=number,
                name=self._opened_name(number),
            )
        self.append(number, event["delta"])

    def read_long(self, event: LongEvent) -> None:
        """A long event, read without making its repetition of a call's arguments text where
        it repeats them at one of the places this wire does (`_fast.repeated_text`); any other, as
        any other event."""
        value = self._repeating(event)
        if value is None:
            super().read_long(event)
        else:
            self.read_value(value)

    def _repeating(self, event: LongEvent) -> dict[str, Any] | None:
        """The event's value with a `_Repeated` where it repeats a long call's arguments or a
        long text part's text, or None where it repeats none, or somewhere this wire does not
        repeat that (`_repeats_at`)."""
        sources: list[tuple[Source, list[str]]] = []
        for number in dict.fromkeys(self._calls.values()):
            call = self.assembler.call(number)
            if call is not None and call.unwritten is None and call.chars >= _REPEATED_FROM:
                sources.append((("call", number), call.parts))
        for part, runs in self._streamed.items():
            if sum(map(len, runs.parts)) >= _REPEATED_FROM:
                sources.append((("text", part), runs.parts))
        spans: list[tuple[int, int, int]] = []
        for key, (_, parts) in enumerate(sources):
            at = event.start
            while (found := find(event.data, parts, at, event.end)) is not None:
                if all(start != found[0] for start, _, _ in spans):  # two sources, one text
                    spans.append((*found, key))
                at = found[1]
        if not spans:
            return None
        decoded = decode_around(event.data, event.start, event.end, spans, self.loads)
        if decoded is None or type(decoded[0]) is not dict:
            return None
        value: dict[str, Any] = decoded[0]
        places = decoded[1]
        kind = value.get("type")
        for path, key in places.items():
            if not _repeats_at(kind, path, sources[key][0]):
                return None
        for path, key in places.items():
            *inner, last = path
            container: Any = value
            for step in inner:
                container = container[step]
            container[last] = _Repeated(sources[key][0])
        return value

    def _resolved(self, repeated: _Repeated) -> str:
        """The text a `_Repeated` stands for, where it is read against another source."""
        kind, key = repeated.source
        if kind == "call":
            return self.streamed(key) or ""  # type: ignore[arg-type]
        return self._streamed[key].joined()  # type: ignore[index]

    def adds_to_turn(self, event: dict[str, Any]) -> bool:
        return event.get("type") != "error"

    def learn(self, text: str, event: dict[str, Any]) -> PatternTemplate | None:
        if event.get("type") != "response.function_call_arguments.delta" or not event["delta"]:
            return None
        return pattern_template(text, "delta", event["delta"], _UNREAD, self._number(event))

    def _open(self, event: dict[str, Any], item: dict[str, Any], member: str = "arguments") -> int:
        """Open the call `item` is (a function's, or with `member` "input" a custom tool's)."""
        item_id = self._item_key(event, item)
        again = self.call_number(item_id) is not None
        call_type = "custom" if member == "input" else ""
        number = self.open_call(item_id, item.get("call_id"), item.get("name"), None, call_type)
        if not again:  # a repeated open is the same call: its arguments are what came since
            self.append(number, item.get(member) or "")
        return number

    def _item_key(self, event: dict[str, Any], item: dict[str, Any]) -> object:
        """The key of an output item (its id, else its place), remembered by its place."""
        item_id = item.get("id")
        if item_id is None:
            item_id = ("output", event.get("output_index"))
        self._items[event.get("output_index")] = item_id
        return item_id

    def _custom_done(
        self, event: dict[str, Any], text: object, item: dict[str, Any] | None = None
    ) -> None:
        """A custom call's whole input (its `.done`, or its finished `item`): checked against
        the deltas as a function's arguments are, and the call complete from here on."""
        if item is not None and self.call_number(item.get("id")) is None:
            number = self._open(event, item, "input")
        else:
            number = self._number(event)
        self._whole(number, text)
        self._inputs_done.add(number)
        self.assembler.input_done(number)

    def _open_server(self, event: dict[str, Any], item: dict[str, Any]) -> object:
        key = self._item_key(event, item)
        self.open_server(key, item.get("type"), item.get("name"), item.get("id"))
        return key

    def _server_key(self, event: dict[str, Any]) -> object:
        item_id = event.get("item_id")
        if not self.is_server(item_id):
            item_id = self._items.get(event.get("output_index"), item_id)
        if not self.is_server(item_id):
            raise StreamError(
                f"responses event {self.chunks}: input for item {item_id!r} (output_index "
                f"{event.get('output_index')!r}), which no response.output_item.added opened"
            )
        return item_id

    def _number(self, event: dict[str, Any]) -> int:
        item_id = event.get("item_id")
        number = self.call_number(item_id)
        if number is None:
            number = self.call_number(self._items.get(event.get("output_index"), item_id))
        if number is None:
            raise StreamError(
                f"responses event {self.chunks}: arguments for item {item_id!r} (output_index "
                f"{event.get('output_index')!r}), which no response.output_item.added opened"
            )
        return number

    def _whole(self, number: int, arguments: object) -> None:
        """The whole arguments, from `.done` or the finished item: the arguments when no delta
        came, and checked against the deltas when they did, whatever its JSON type."""
        if arguments is None:
            return
        if type(arguments) is _Repeated:
            if arguments.source == ("call", number):
                return  # found, written as the stdlib writes it, to be what the deltas sent
            arguments = self._resolved(arguments)
        if type(arguments) is not str:
            raise StreamError(
                f"responses event {self.chunks}: the whole arguments repeated are not text: "
                f"{shown(arguments)}",
                index=number,
            )
        call = self.assembler.call(number)
        if call is None or not call.chars:
            self.append(number, arguments)
        elif not call.holds(arguments):
            raise StreamError(
                "the whole arguments the stream repeated at the end differ from its deltas "
                f"({len(arguments)} characters against {call.chars})",
                index=number,
                name=self._opened_name(number),
            )
