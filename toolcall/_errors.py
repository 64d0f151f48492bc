"""The library's exception types.

Like h11, the errors say who broke the rule: `StreamError` for what the provider sent (a
malformed stream, arguments that never became JSON, a call cut off), `ProviderError` for an error
the provider reported itself in the stream, `UsageError` for what the caller did wrong. Every error
carries the context the library knows (tool-call index, id, name) so a message read in a log says
where to look without a debugger; where the stream came from (provider, cassette) is the caller's
knowledge, and the harness puts it in its own findings. Anything that goes wrong inside the
library surfaces as one of these types, never as a bare `KeyError` or `TypeError`.
"""

from __future__ import annotations

import reprlib


class ToolCallError(Exception):
    """Base of every error the library raises."""

    def __init__(
        self,
        message: str,
        *,
        index: int | None = None,
        call_id: str | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(message)
        self.reason = message
        self.index = index
        self.call_id = call_id
        self.name = name

    def __str__(self) -> str:
        where = []
        if self.index is not None:
            where.append(f"tool call index {self.index}")
        if self.call_id:
            where.append(f"id {shown(self.call_id)}")
        if self.name:
            where.append(f"name {shown(self.name)}")
        return f"{', '.join(where)}: {self.reason}" if where else self.reason


class StreamError(ToolCallError):
    """The stream itself broke a rule: bad SSE, bad JSON, a bad delta, or a call left unusable."""


class ArgumentsError(StreamError):
    """A call's arguments did not end as exactly one JSON object."""


class TruncatedError(ArgumentsError):
    """A call was cut off (`finish_reason: "length"` or the stream ended before it finished).

    Kept apart from `ArgumentsError` because the remedy differs: a truncated call wants a larger
    `max_tokens` or a retry, not a bug report against the provider.
    """


class LimitExceeded(StreamError):
    """The stream asked for more calls or more argument text than the configured limits allow."""


class ProviderError(ToolCallError):
    """The provider reported an error itself: an error payload (`{"error": {...}}`) inside the
    stream, or an error answer instead of one (a 429's JSON, a gateway's 502 page).

    `status` is the HTTP status when the caller passed it (`assemble(..., status=...)`), `code`
    the error's code or type where the payload has one, `payload` the decoded error document.
    """

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        payload: object = None,
        status: int | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.payload = payload
        self.status = status


class SchemaError(ToolCallError):
    """A complete call does not fit the tool it names (unknown tool, or its parameters schema)."""

    def __init__(
        self,
        message: str,
        *,
        index: int | None = None,
        call_id: str | None = None,
        name: str | None = None,
        json_path: str = "$",
    ) -> None:
        super().__init__(message, index=index, call_id=call_id, name=name)
        self.json_path = json_path


class UsageError(ToolCallError):
    """The caller used the library wrongly (a value of the wrong type, a bad limit)."""


class _Short(reprlib.Repr):
    """reprlib's limits (six levels, a few items, short strings) plus integers of any size."""

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 128:  # repr() refuses past 4,300 digits, and nobody reads 40
            return f"<integer of {x.bit_length()} bits>"
        return super().repr_int(x, level)


_SHORT = _Short()
_SHORT.maxstring = 60
_SHORT.maxother = 60


def shown(value: object) -> str:
    """`value` for an error message, whatever it is.

    The value quoted is exactly the one that cannot be trusted: nested a thousand deep (`repr`
    recurses), an integer `repr` refuses to print, megabytes long, or an object whose own
    `__repr__` raises. A message that cannot be formatted would replace the library's error
    with a `RecursionError` or a `ValueError`.
    """
    return _SHORT.repr(value)


def check_limit(name: str, value: object) -> int:
    """A limit the caller passed, which must be a positive integer.

    `bool` and `float` are refused although Python compares them with integers: `nan` compares
    false with everything, so `max_calls=nan` would have switched the limit off.
    """
    if type(value) is not int or value < 1:
        raise UsageError(f"{name} must be a positive integer, got {shown(value)}")
    return value
