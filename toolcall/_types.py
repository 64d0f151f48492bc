"""The value types shared with the Go package this library mirrors.

Field names follow the wire and the Go package's JSON tags (`index`, `id`, `type`,
`function.name`, `function.arguments`), so `to_dict()` output can be compared byte for byte with
what the Go twin or any other implementation of the conformance suite produces. The classes are
frozen and slotted: a finished call is a value, and there may be many deltas in flight.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ._errors import StreamError
from ._fields import wire_arguments, wire_index, wire_object, wire_text


@dataclass(frozen=True, slots=True)
class ToolCallFunction:
    """The function half of a call: its name and its arguments as one JSON text.

    In a `Delta` both fields are fragments; in a `ToolCall` they are complete.
    """

    name: str = ""
    arguments: str = ""

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolCallFunction:
        name = data.get("name") or ""
        arguments = data.get("arguments") or ""
        if not isinstance(name, str) or not isinstance(arguments, str):
            raise StreamError("function.name and function.arguments must be strings")
        return cls(name=name, arguments=arguments)

    def to_dict(self) -> dict[str, str]:
        return {"name": self.name, "arguments": self.arguments}


class _WrittenWhenRead(ToolCallFunction):
    """A `ToolCallFunction` whose arguments arrived as an object (Gemini, Ollama, Anthropic's
    `input`) and are written as text the first time `arguments` is read.

    A caller who takes the parsed `Turn.arguments`, as most do, never pays for a megabyte of
    text written back from the object the wire sent, nor holds it. It is equal to, hashes,
    shows and pickles as the plain `ToolCallFunction` with that text. The text comes from
    `_text`, the one cell every holder of that call's text asks (`_held.HeldArguments`), which
    writes it from its own copy of the object: a caller who changes `Turn.arguments` does not
    change the text the model sent.
    """

    __slots__ = ("_text",)
    _text: Callable[[], str]

    def __getattr__(self, attribute: str) -> str:
        # Python comes here only when the `arguments` slot is still unset (or for a name the
        # class does not have): the text is written once, then read from the slot as usual.
        if attribute != "arguments":
            raise AttributeError(attribute)
        text = self._text()
        _set_arguments(self, text)
        return text

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ToolCallFunction):
            return NotImplemented
        return self.name == other.name and self.arguments == other.arguments

    __hash__ = ToolCallFunction.__hash__

    def __repr__(self) -> str:
        return f"ToolCallFunction(name={self.name!r}, arguments={self.arguments!r})"

    def __reduce__(self) -> tuple[type[ToolCallFunction], tuple[str, str]]:
        return ToolCallFunction, (self.name, self.arguments)


# Named as the public class it stands for: `type(x).__name__` in a caller's log or match on
# names says what the value is, not how it is held.
_WrittenWhenRead.__name__ = _WrittenWhenRead.__qualname__ = "ToolCallFunction"
_set_name = ToolCallFunction.__dict__["name"].__set__
_set_arguments = ToolCallFunction.__dict__["arguments"].__set__
_set_text = _WrittenWhenRead.__dict__["_text"].__set__


def written_when_read(name: str, text: Callable[[], str]) -> ToolCallFunction:
    """`ToolCallFunction(name, text())`, with `text` called only when the arguments are first
    read. `text` must give the same `str` every time and must not fail: both hold for
    `_held.HeldArguments.text`."""
    function = object.__new__(_WrittenWhenRead)
    _set_name(function, name)
    _set_text(function, text)
    return function


def same_arguments(first: ToolCallFunction, second: ToolCallFunction) -> bool:
    """Whether two functions hold one arguments text, without writing a text not written yet
    when both would write it from one cell."""
    if (
        type(first) is _WrittenWhenRead
        and type(second) is _WrittenWhenRead
        and first._text == second._text
    ):
        return True
    return first.arguments is second.arguments or first.arguments == second.arguments


@dataclass(frozen=True, slots=True)
class Delta:
    """One element of `choices[i].delta.tool_calls` in a streamed chunk.

    `index` is None when the provider left it out (Gemini's compat endpoint does); the Go type
    cannot say that, which is one reason this twin routes by id and name as well.
    """

    index: int | None = None
    id: str = ""
    type: str = ""
    function: ToolCallFunction = field(default_factory=ToolCallFunction)
    #: Provider metadata riding on the call (Gemini 3's `google.thought_signature`).
    extra_content: dict[str, Any] | None = field(default=None, hash=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Delta:
        """Read one element of `delta.tool_calls`, as `Assembler.feed` reads it (`_fields`)."""
        index = wire_index(data.get("index"))
        function = data.get("function")
        function = {} if function is None else wire_object(function, "function", index)
        arguments, _ = wire_arguments(function.get("arguments"), index)
        extra = data.get("extra_content")
        return cls(
            index=index,
            id=wire_text(data.get("id"), "id", index),
            type=wire_text(data.get("type"), "type", index),
            function=ToolCallFunction(
                wire_text(function.get("name"), "function.name", index), arguments
            ),
            extra_content=None
            if extra is None
            else dict(wire_object(extra, "extra_content", index)),
        )

    def to_dict(self) -> dict[str, Any]:
        """The delta as the wire would carry it, leaving out what is empty (Go's `omitempty`)."""
        out: dict[str, Any] = {}
        if self.index is not None:
            out["index"] = self.index
        if self.id:
            out["id"] = self.id
        if self.type:
            out["type"] = self.type
        function = {k: v for k, v in self.function.to_dict().items() if v}
        if function:
            out["function"] = function
        if self.extra_content:
            out["extra_content"] = self.extra_content
        return out


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A fully assembled call: what the caller executes and sends back on the next turn."""

    index: int
    id: str
    type: str
    function: ToolCallFunction
    #: Provider metadata the next request must carry back with the call: Gemini 3 answers 400
    #: ("Function call is missing a thought_signature") without `google.thought_signature`.
    #: None for every provider that sends none; absent from `to_dict()` then, as in Go.
    extra_content: dict[str, Any] | None = field(default=None, hash=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolCall:
        function = data.get("function")
        index = data.get("index")
        if not isinstance(function, Mapping) or not isinstance(index, int):
            raise StreamError("a tool call needs an integer index and a function object")
        return cls(
            index=index,
            id=str(data.get("id") or ""),
            type=str(data.get("type") or "function"),
            function=ToolCallFunction.from_dict(function),
            extra_content=_extra_content(data),
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "index": self.index,
            "id": self.id,
            "type": self.type,
            "function": self.function.to_dict(),
        }
        if self.extra_content is not None:
            out["extra_content"] = self.extra_content
        return out


def _extra_content(data: Mapping[str, Any]) -> dict[str, Any] | None:
    extra = data.get("extra_content")
    if extra is None:
        return None
    if not isinstance(extra, Mapping):
        raise StreamError("extra_content must be an object")
    return dict(extra)
