"""Gemini's own stream (`streamGenerateContent?alt=sse`), on the Gemini API and on Vertex AI.

Each event is a whole `GenerateContentResponse`: one candidate whose `content.parts` hold text
(`thought: true` for reasoning) and `functionCall` parts. A `functionCall` is a whole call (its
`args` an object, an `id` from gemini 3 on), several of them in one event for parallel calls.
Its `thoughtSignature` sits beside it in the part and must go back with the next request, so it
is kept on the call, as the chat wire carries it (`extra_content.google.thought_signature`); a
signature on a part without a call is kept on the turn. `finishReason` is `STOP` even with calls.

Vertex streams arguments (`streamFunctionCallArguments`): a `functionCall` with a name and
`willContinue: true` opens a call, the following ones carry `partialArgs` (a JSON path, a value,
`willContinue` while a string goes on), and an empty `functionCall: {}` closes it; when the last
`partialArgs` event has no `willContinue` there is no terminator, and that event closes the
call. The arguments are the object the paths describe, built as they come and handed to the
core whole when the call closes: a path can revisit any member, so no prefix of the JSON text
is final before then.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

from .._call_table import CallTable
from .._calls.delta_fields import value_chars
from .._errors import StreamError, shown
from .._fast.templates import PatternTemplate, pattern_template
from .._fast.text_runs import TextRuns
from .._json import MAX_DEPTH
from ._base import WireReader, provider_error

_STEP = re.compile(
    r"\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\[\"((?:[^\"\\]|\\.)*)\"\]"
)
_VALUE_KEYS = ("stringValue", "numberValue", "boolValue", "nullValue", "structValue", "listValue")
#: The JSON types each value key may hold (`nullValue` holds anything: it means null).
_VALUE_TYPES: dict[str, tuple[type, ...]] = {
    "stringValue": (str,),
    "numberValue": (int, float),
    "boolValue": (bool,),
    "structValue": (dict,),
    "listValue": (list,),
}


class GeminiReader(WireReader):
    wire = "gemini"
    cut: ClassVar[Mapping[str, str]] = {"MAX_TOKENS": "the output hit maxOutputTokens"}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The call whose arguments Vertex is streaming: its number and the object so far.
        self._streaming: tuple[int, _ArgumentsBuilder] | None = None

    def event(self, event: dict[str, Any]) -> None:
        if event.get("error"):
            raise provider_error(event["error"])
        self.keep_usage(event.get("usageMetadata"))
        candidates = event.get("candidates")
        if not candidates:
            return
        if len(candidates) != 1:
            raise StreamError(
                f"gemini event {self.chunks} has {len(candidates)} candidates: only one "
                "(candidateCount 1) can carry a turn"
            )
        candidate = candidates[0]
        for part in (candidate.get("content") or {}).get("parts") or ():
            self._part(part)
        reason = candidate.get("finishReason")
        if reason is not None:
            self._close_streaming()
            self.finish(reason)
            self.end_turn("finishReason")

    def adds_to_turn(self, event: dict[str, Any]) -> bool:
        """After the `finishReason`, an event may still report usage; one with a candidate that
        holds parts or a stop reason begins another generation."""
        if event.get("error"):
            return False
        candidates = event.get("candidates")
        if type(candidates) is not list:
            return False
        return any(
            type(c) is dict
            and ((c.get("content") or {}).get("parts") or c.get("finishReason") is not None)
            for c in candidates
        )

    def close(self) -> None:
        self._close_streaming()

    def learn(self, text: str, event: dict[str, Any]) -> PatternTemplate | None:
        """A template from a Vertex event that went on with the string value of the call being
        streamed, and did nothing else: an event like it, with another piece, goes on with
        the same string (`_StringPiece`)."""
        streaming = self._streaming
        if streaming is None:  # (the turn's end closes a call being streamed)
            return None
        try:
            (candidate,) = event["candidates"]
            (part,) = candidate["content"]["parts"]
            (entry,) = part["functionCall"]["partialArgs"]
        except (KeyError, TypeError, ValueError):
            return None
        if type(entry) is not dict:
            return None
        piece = entry.get("stringValue")
        if type(piece) is not str or not piece:
            return None
        number, builder = streaming
        held: Any = builder.root
        for step in _steps(entry["jsonPath"], self.chunks):
            held = _get(held, step, self.chunks)
        if not isinstance(held, TextRuns):
            return None
        template = pattern_template(text, "stringValue", piece, {}, number)
        if template is not None:
            template.sink = _StringPiece(held, builder, number, self.assembler).add
        return template

    def _part(self, part: dict[str, Any]) -> None:
        signature = part.get("thoughtSignature")
        if signature is not None and type(signature) is not str:
            raise StreamError(
                f"gemini event {self.chunks}: thoughtSignature must be text, got {shown(signature)}"
            )
        call = part.get("functionCall")
        if call is None:
            self.text(part.get("text"), reasoning=part.get("thought") is True)
            if signature is not None:
                self.keep_turn_extra("google", "thought_signatures", signature)
            return
        if self._streaming is not None and self._continues(call):
            number, arguments = self._streaming
            if not call:  # the empty `functionCall: {}` that ends a streamed call
                self._close_streaming()
                return
            self._add_partial(arguments, call.get("partialArgs"))
            if not call.get("willContinue"):
                self._close_streaming()
            return
        self._close_streaming()  # a new call ends one still streaming
        if not call:
            return  # a terminator with nothing open: nothing to end
        extra = None if signature is None else {"google": {"thought_signature": signature}}
        number = self.open_call(None, call.get("id"), call.get("name"), extra)
        if call.get("willContinue") or call.get("partialArgs"):
            builder = _ArgumentsBuilder()
            self._streaming = (number, builder)
            self._add_partial(builder, call.get("partialArgs"))
            if not call.get("willContinue"):
                self._close_streaming()
        else:
            self.whole_arguments(number, call.get("args"))

    def _continues(self, call: dict[str, Any]) -> bool:
        """Whether `call` goes on with the call being streamed rather than opening another: it
        has no name, or it carries arguments under that call's own name again."""
        name = call.get("name")
        if not name:
            return True
        assert self._streaming is not None
        state = self.assembler.call(self._streaming[0])
        return "partialArgs" in call and state is not None and name == state.name()

    def _add_partial(self, builder: _ArgumentsBuilder, entries: object) -> None:
        if entries is None:
            return
        if type(entries) is not list:
            raise StreamError(f"gemini event {self.chunks}: partialArgs is not a list")
        number = self._streaming[0] if self._streaming else None
        for entry in entries:
            # Each entry is counted before the next is taken, whatever its JSON type: a limit
            # checked once per event would let one event hold many values past it.
            builder.add(entry, self.chunks, self.assembler.argument_room() - builder.chars)
            self.assembler.check_arguments_room(builder.chars, number)

    def _close_streaming(self) -> None:
        if self._streaming is None:
            return
        number, builder = self._streaming
        self._streaming = None
        self.whole_arguments(number, builder.value())


class _StringPiece:
    """Where a Vertex event that matched a template puts its piece: on the string it goes on
    with, counted against `max_argument_chars` as `_ArgumentsBuilder.add` counts it."""

    __slots__ = ("assembler", "builder", "number", "text")

    def __init__(
        self, text: TextRuns, builder: _ArgumentsBuilder, number: int, assembler: CallTable
    ) -> None:
        self.text = text
        self.builder = builder
        self.number = number
        self.assembler = assembler

    def add(self, piece: str) -> None:
        self.builder.chars += len(piece)
        self.text.add(piece)
        self.assembler.check_arguments_room(self.builder.chars, self.number)


class _ArgumentsBuilder:
    """The arguments object `partialArgs` describe: each entry sets the value at a JSON path,
    and a string value at a path that already holds a string goes on from it."""

    __slots__ = ("chars", "root")

    def __init__(self) -> None:
        self.root: dict[str, Any] = {}
        #: Characters the object holds so far (strings, member names, one per other value and
        #: container, `_calls.delta_fields.value_chars`), counted as they arrive against
        #: `max_argument_chars`.
        self.chars = 0

    def add(self, entry: object, event: int, room: int) -> None:
        """Set the value `entry` gives at its path; `room` is what the limit still allows, so
        a value far past it is not counted to its end."""
        if type(entry) is not dict or type(entry.get("jsonPath")) is not str:
            raise StreamError(f"gemini event {event}: a partialArgs entry without a jsonPath")
        steps = _steps(entry["jsonPath"], event)
        present = [key for key in _VALUE_KEYS if key in entry]
        if len(present) != 1:
            raise StreamError(
                f"gemini event {event}: partialArgs entry for {entry['jsonPath']} has "
                f"{'no value' if not present else 'values ' + ', '.join(present)}"
            )
        key = present[0]
        value = None if key == "nullValue" else entry[key]
        kinds = _VALUE_TYPES.get(key)
        if kinds is not None and (type(value) not in kinds):
            raise StreamError(
                f"gemini event {event}: {key} {shown(value)} is not {_KIND_WORDS[key]}"
            )
        self.chars += value_chars(value, room)
        # Arguments nest no deeper than the library reads JSON anywhere: the path's containers
        # (the root included) and the value's own.
        if len(steps) + _depth(value, MAX_DEPTH) > MAX_DEPTH:
            raise StreamError(
                f"gemini event {event}: partialArgs entry for {entry['jsonPath'][:60]!r} nests "
                f"the arguments deeper than {MAX_DEPTH} levels"
            )
        holder: Any = self.root
        for step, following in zip(steps, [*steps[1:], None], strict=True):
            if following is None:
                held = _get(holder, step, event)
                if held is None and type(step) is str:
                    self.chars += len(step)  # a new member's name is text it holds too
                if type(value) is str and isinstance(held, TextRuns):
                    held.add(value)
                else:
                    _set(holder, step, _runs_of(value) if type(value) is str else value, event)
                return
            child = _get(holder, step, event)
            if child is None:
                self.chars += len(step) if type(step) is str else 1
                child = [] if type(following) is int else {}
                _set(holder, step, child, event)
            holder = child

    def value(self) -> dict[str, Any]:
        return _resolved(self.root)  # type: ignore[no-any-return]


_KIND_WORDS = {
    "stringValue": "text",
    "numberValue": "a number",
    "boolValue": "true or false",
    "structValue": "an object",
    "listValue": "a list",
}


def _depth(value: Any, limit: int) -> int:
    """How many containers deep `value` nests (0 for a scalar), counted no further than past
    `limit`; iterative, so a deep value cannot exhaust the stack."""
    if not isinstance(value, (dict, list)):
        return 0
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack and deepest <= limit:
        held, depth = stack.pop()
        deepest = max(deepest, depth)
        for item in held.values() if type(held) is dict else held:
            if isinstance(item, (dict, list)):
                stack.append((item, depth + 1))
    return deepest


def _steps(path: str, event: int) -> list[str | int]:
    if not path.startswith("$"):
        raise StreamError(f"gemini event {event}: jsonPath {path!r} does not start at $")
    steps: list[str | int] = []
    at = 1
    while at < len(path):
        found = _STEP.match(path, at)
        if found is None:
            raise StreamError(f"gemini event {event}: jsonPath {path!r} cannot be read at {at}")
        name, number, single, double = found.groups()
        if number is not None:
            steps.append(int(number))
        else:
            text = name if name is not None else single if single is not None else double
            steps.append(re.sub(r"\\(.)", r"\1", text) if name is None else text)
        at = found.end()
    if not steps:
        raise StreamError(f"gemini event {event}: jsonPath {path!r} names no member")
    return steps


def _get(holder: Any, step: str | int, event: int) -> Any:
    if type(step) is int:
        if type(holder) is not list:
            raise StreamError(f"gemini event {event}: jsonPath indexes [{step}] into an object")
        return holder[step] if step < len(holder) else None
    if type(holder) is not dict:
        raise StreamError(f"gemini event {event}: jsonPath names .{step} inside a list")
    return holder.get(step)


def _set(holder: Any, step: str | int, value: Any, event: int) -> None:
    if type(step) is int:
        if step > len(holder):
            raise StreamError(
                f"gemini event {event}: jsonPath skips to [{step}] of a list of {len(holder)}"
            )
        if step == len(holder):
            holder.append(value)
        else:
            holder[step] = value
    else:
        holder[step] = value


def _runs_of(first: str) -> TextRuns:
    """A string value still arriving in pieces: joined once, when the call closes."""
    runs = TextRuns()
    runs.add(first)
    return runs


def _resolved(value: Any) -> Any:
    """`value` with every string in runs joined; iterative, so deep paths cannot break the
    stack."""
    if isinstance(value, TextRuns):
        return value.joined()
    if not isinstance(value, (dict, list)):
        return value
    stack = [value]
    while stack:
        holder = stack.pop()
        keys = holder.keys() if type(holder) is dict else range(len(holder))
        for key in keys:
            item = holder[key]
            if isinstance(item, TextRuns):
                holder[key] = item.joined()
            elif isinstance(item, (dict, list)):
                stack.append(item)
    return value
