"""The value types shared with the Go package this library mirrors.

Field names follow the wire and the Go package's JSON tags (`index`, `id`, `type`,
`function.name`, `function.arguments`), so `to_dict()` output can be compared byte for byte with
what the Go twin or any other implementation of the conformance suite produces. The classes are
frozen and slotted: a finished call is a value, and there may be many deltas in flight.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .._errors import StreamError
from .delta_fields import wire_arguments, wire_index, wire_object, wire_text


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


T = TypeVar("T")


def written_when_read_type(public: type[T], field_name: str) -> type[T]:
    """A private subclass of `public`, a frozen slotted dataclass, whose field `field_name` is
    left unset and written the first time it is read, by the callable in its `_text` slot.

    Arguments that arrive as an object (Gemini, Ollama, Anthropic's `input`) are written as
    text only when somebody reads them: a caller who takes the parsed `Turn.arguments`, as most
    do, never pays for a megabyte written back from the object the wire sent, nor holds it.
    The callable is the one cell every holder of a call's text asks
    (`_calls.held_arguments.HeldArguments`), so the text is written once, from the cell's own copy
    of the object. The subclass is equal to, hashes, shows, pickles and copies as `public` with the
    field written, and is named as `public`, so `type(x).__name__` says what the value is, not how
    it is held.
    """
    setter = public.__dict__[field_name].__set__
    names = [field.name for field in dataclasses.fields(public)]  # type: ignore[arg-type]

    def __getattr__(self: Any, attribute: str) -> Any:
        # Python comes here only while the slot is unset (or for a name the class does not
        # have): the value is written once, then read from the slot as usual.
        if attribute != field_name:
            raise AttributeError(attribute)
        value = self._text()
        setter(self, value)
        return value

    def values(self: Any) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in names)

    def __eq__(self: Any, other: object) -> bool:
        if not isinstance(other, public):
            return NotImplemented
        return values(self) == values(other)

    def __reduce__(self: Any) -> tuple[type[T], tuple[Any, ...]]:
        return public, values(self)

    namespace = {
        "__slots__": ("_text",),
        "__getattr__": __getattr__,
        "__eq__": __eq__,
        "__hash__": public.__hash__,
        "__reduce__": __reduce__,
        "__qualname__": public.__qualname__,
        "__doc__": public.__doc__,
    }
    return type(public.__name__, (public,), namespace)


_WrittenWhenRead = written_when_read_type(ToolCallFunction, "arguments")
_set_name = ToolCallFunction.__dict__["name"].__set__
_set_text = _WrittenWhenRead.__dict__["_text"].__set__
_get_text = _WrittenWhenRead.__dict__["_text"].__get__


def written_when_read(name: str, text: Callable[[], str]) -> ToolCallFunction:
    """`ToolCallFunction(name, text())`, with `text` called only when the arguments are first
    read. `text` must give the same `str` every time and must not fail: both hold for
    `_calls.held_arguments.HeldArguments.text`."""
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
        and _get_text(first) == _get_text(second)
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
        """Read one element of `delta.tool_calls`, as `Assembler.feed` reads it
        (`_calls.delta_fields`)."""
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
    """A fully assembled call: what the caller executes and sends back on the next turn.

    `type` is `"function"` for a function call, whose `function.arguments` is one JSON object's
    text, or `"custom"` (`CUSTOM`) for a call of a custom (freeform) tool, whose
    `function.arguments` carries the tool's input verbatim, free text that is never parsed.
    """

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


#: The `type` of a call whose input is free text (the Responses API's custom tools), never JSON.
CUSTOM = "custom"


@dataclass(frozen=True, slots=True)
class ServerToolCall:
    """A tool the provider ran itself during the turn (a web search, a remote MCP call, code it
    executed): a record of what happened, never a call for the caller to run.

    `kind` is the wire's own word for it (Responses' item type `mcp_call`, `web_search_call`,
    ...; Anthropic's block type `server_tool_use`); `name` the tool's name where the wire gives
    one; `input` what the model sent the tool, as text exactly as the wire carried it (JSON on
    every wire that has it, never parsed here); `result` what the provider reported of running
    it, as the wire sent it (Anthropic's result block, Responses' finished item), or None when
    the turn carried none.
    """

    kind: str
    name: str
    id: str
    input: str
    result: dict[str, Any] | None = field(default=None, hash=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "id": self.id,
            "input": self.input,
            "result": self.result,
        }


def _extra_content(data: Mapping[str, Any]) -> dict[str, Any] | None:
    extra = data.get("extra_content")
    if extra is None:
        return None
    if not isinstance(extra, Mapping):
        raise StreamError("extra_content must be an object")
    return dict(extra)
