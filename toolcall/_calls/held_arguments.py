"""An arguments object held to be written as text later, and how long that text can be.

Gemini, Ollama and Anthropic's `input` send a call's arguments as an object; the call's text is
written from it only when somebody reads `function.arguments`
(`_calls.call_types.written_when_read`). Two things are needed to wait: a copy of the object that
nobody else holds (the caller may change `Turn.arguments`, and the text must stay what the model
sent), and a bound on the text's length, so `max_argument_chars` is checked without writing it. Both
come from one walk over the object. Only its containers are copied: strings and numbers are
immutable and shared.

The bound is generous (a character of a string takes at most six written: `\\u001f`), and exact
is never needed: an assembler counts the bound, and only when a limit would be crossed writes
what it holds to count it exactly, so a verdict never depends on the bound.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class HeldArguments:
    """The text of an arguments object, written the first time anybody asks and then kept.

    One call's text can be asked for from several places: the call in the `Turn`, the call
    in `ToolCallDone`, the `ArgumentsDelta` that reported it, the assembler when more text
    follows or a limit is near. They all ask this one cell, so the text is written at most
    once, whoever asks first, and all of them hold the same `str`.
    """

    __slots__ = ("_copy", "_text", "_write", "bound")

    def __init__(self, copy: dict[str, Any], write: Callable[[Any], str], bound: int) -> None:
        self._copy: dict[str, Any] | None = copy
        self._write = write
        self._text: str | None = None
        #: What the assembler counted for the text before it was written.
        self.bound = bound

    def text(self) -> str:
        if self._text is None:
            assert self._copy is not None
            self._text = self._write(self._copy)
            self._copy = None  # the text says everything now
        return self._text


#: Members walked at most: past it, writing the text at once costs less than the walk.
MEMBERS_HELD = 4096
#: The longest compact text of a double: `-2.2250738585072014e-308`.
_FLOAT_CHARS = 24


def hold(value: dict[str, Any], members: int = MEMBERS_HELD) -> tuple[dict[str, Any], int] | None:
    """A copy of `value`'s containers and a bound on its compact JSON text's length; None when
    it has more than `members` members or anything a JSON object cannot hold (then the text is
    written at once, as it always could be)."""
    copy: dict[str, Any] = {}
    bound = 2
    stack: list[tuple[Any, Any]] = [(value, copy)]
    while stack:
        source, target = stack.pop()
        is_object = type(source) is dict
        members -= len(source)
        if members < 0:
            return None
        for key, item in source.items() if is_object else enumerate(source):
            if is_object:
                if type(key) is not str:
                    return None
                bound += 6 * len(key) + 4  # quotes, colon, comma
            else:
                bound += 1  # comma
            kind = type(item)
            if kind is str:
                bound += 6 * len(item) + 2
            elif kind is dict or kind is list:
                held: Any = {} if kind is dict else []
                stack.append((item, held))
                item = held
                bound += 2
            elif kind is int:
                # Decimal digits are fewer than 0.31 per bit, plus the sign and one.
                bound += item.bit_length() * 31 // 100 + 2
            elif kind is float:
                if item != item or item in (float("inf"), float("-inf")):
                    return None
                bound += _FLOAT_CHARS
            elif item is None or kind is bool:
                bound += 5
            else:
                return None
            if is_object:
                target[key] = item
            else:
                target.append(item)
    return copy, bound
