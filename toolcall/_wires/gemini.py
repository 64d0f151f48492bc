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
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from .._chunks import _provider_error
from .._errors import LimitExceeded, StreamError, shown
from ._base import WireReader

_STEP = re.compile(
    r"\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\[\"((?:[^\"\\]|\\.)*)\"\]"
)
_VALUE_KEYS = ("stringValue", "numberValue", "boolValue", "nullValue", "structValue", "listValue")


class GeminiReader(WireReader):
    wire = "gemini"
    cut: ClassVar[Mapping[str, str]] = {"MAX_TOKENS": "the output hit maxOutputTokens"}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The call whose arguments Vertex is streaming: its number and the object so far.
        self._streaming: tuple[int, _ArgumentsBuilder] | None = None

    def event(self, event: dict[str, Any]) -> None:
        if event.get("error"):
            raise _provider_error(event["error"])
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

    def close(self) -> None:
        self._close_streaming()

    def _part(self, part: dict[str, Any]) -> None:
        signature = part.get("thoughtSignature")
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
        number = self.open_call(len(self._calls), call.get("id"), call.get("name"), extra)
        if call.get("willContinue") or call.get("partialArgs"):
            builder = _ArgumentsBuilder(self.assembler._size)
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
        number = self._streaming[0]
        return "partialArgs" in call and name == self.assembler._by_wire_index[number].name()

    def _add_partial(self, builder: _ArgumentsBuilder, entries: object) -> None:
        if entries is None:
            return
        if type(entries) is not list:
            raise StreamError(f"gemini event {self.chunks}: partialArgs is not a list")
        for entry in entries:
            builder.add(entry, self.chunks)
        assembler = self.assembler
        if assembler._argument_chars + builder.chars > assembler.max_argument_chars:
            raise LimitExceeded(
                f"tool-call arguments exceed {assembler.max_argument_chars} characters "
                "(max_argument_chars)",
                index=self._streaming[0] if self._streaming else None,
            )

    def _close_streaming(self) -> None:
        if self._streaming is None:
            return
        number, builder = self._streaming
        self._streaming = None
        self.whole_arguments(number, builder.value())


class _Text:
    """A string value still arriving in pieces: joined once, when the call closes."""

    __slots__ = ("parts",)

    def __init__(self, first: str) -> None:
        self.parts = [first]


class _ArgumentsBuilder:
    """The arguments object `partialArgs` describe: each entry sets the value at a JSON path,
    and a string value at a path that already holds a string goes on from it."""

    __slots__ = ("_size", "chars", "root")

    def __init__(self, size: Callable[[Any], int]) -> None:
        self.root: dict[str, Any] = {}
        #: Characters the object holds so far (strings, member names, one per other value),
        #: counted as they arrive against `max_argument_chars`; `size` counts a whole value.
        self.chars = 0
        self._size = size

    def add(self, entry: object, event: int) -> None:
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
        if key == "stringValue" and type(value) is not str:
            raise StreamError(f"gemini event {event}: stringValue {shown(value)} is not text")
        self.chars += len(value) if type(value) is str else self._size(value)
        holder: Any = self.root
        for step, following in zip(steps, [*steps[1:], None], strict=True):
            if following is None:
                held = _get(holder, step, event)
                if held is None and type(step) is str:
                    self.chars += len(step)  # a new member's name is text it holds too
                if type(value) is str and isinstance(held, _Text):
                    held.parts.append(value)
                else:
                    _set(holder, step, _Text(value) if type(value) is str else value, event)
                return
            child = _get(holder, step, event)
            if child is None:
                self.chars += len(step) if type(step) is str else 1
                child = [] if type(following) is int else {}
                _set(holder, step, child, event)
            holder = child

    def value(self) -> dict[str, Any]:
        return _resolved(self.root)  # type: ignore[no-any-return]


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


def _resolved(value: Any) -> Any:
    """`value` with every `_Text` joined; iterative, so deep paths cannot exhaust the stack."""
    if isinstance(value, _Text):
        return "".join(value.parts)
    if not isinstance(value, (dict, list)):
        return value
    stack = [value]
    while stack:
        holder = stack.pop()
        keys = holder.keys() if type(holder) is dict else range(len(holder))
        for key in keys:
            item = holder[key]
            if isinstance(item, _Text):
                holder[key] = "".join(item.parts)
            elif isinstance(item, (dict, list)):
                stack.append(item)
    return value
