"""Arguments must end as exactly one JSON object.

The reasons are worded for the failure they point at: two objects back to back (`{}{}`) is the
signature of parallel calls merged into one (lobehub#11649, hermes-agent#62937), and a prefix that
stops mid-value is a cut-off call, which must never be "repaired" into a valid-looking one.

"JSON" is the library's one reading of it (`_json`): NaN, Infinity, a number past a double, a lone
surrogate and nesting past `MAX_DEPTH` are refused, because a tool in another language, or the
next request's encoder, would choke on them. Blank arguments are a call without parameters only
when blank in JSON's sense: `str.strip` would also take U+00A0 or U+3000 for nothing.
"""

from __future__ import annotations

import json
from typing import Any

from .._calls.call_types import ToolCall
from .._calls.object_closer import JSON_WHITESPACE
from .._errors import ArgumentsError, TruncatedError
from .._json import Refused, loads_arguments

#: The four characters JSON allows between tokens (RFC 8259, section 2).


def parse_arguments(call: ToolCall, *, truncated: str | None = None) -> dict[str, Any]:
    """The call's arguments as a dict, or a typed error naming the call and the reason.

    `truncated` says why the stream may have cut this call off (for example the finish reason
    `length`); invalid arguments are then reported as `TruncatedError`.
    """
    text = call.function.arguments
    context: dict[str, Any] = {
        "index": call.index,
        "call_id": call.id or None,
        "name": call.function.name,
    }
    if not text.strip(JSON_WHITESPACE):
        if truncated:
            raise TruncatedError(f"no arguments arrived ({truncated})", **context)
        # An empty string is how several providers send a call of a tool without parameters.
        return {}
    try:
        value = loads_arguments(text)
    except Refused as exc:
        if truncated:
            raise TruncatedError(
                f"arguments cannot be read ({truncated}): {exc}", **context
            ) from None
        raise ArgumentsError(f"arguments cannot be read: {exc}", **context) from None
    except json.JSONDecodeError as exc:
        if truncated:
            raise TruncatedError(
                f"arguments stop at character {len(text)} ({truncated}): {_tail(text)}", **context
            ) from None
        if exc.msg == "Extra data":
            raise ArgumentsError(
                f"two JSON values in one arguments buffer at character {exc.pos} "
                f"(were parallel calls merged?): {_around(text, exc.pos)}",
                **context,
            ) from None
        if exc.pos >= len(text.rstrip(JSON_WHITESPACE)):
            raise ArgumentsError(
                f"arguments end before the JSON is complete: {_tail(text)}", **context
            ) from None
        raise ArgumentsError(
            f"arguments are not valid JSON ({exc.msg} at character {exc.pos}): "
            f"{_around(text, exc.pos)}",
            **context,
        ) from None
    except ValueError as exc:  # an integer longer than int() converts (sys.set_int_max_str_digits)
        raise ArgumentsError(f"arguments cannot be read: {exc}", **context) from None
    if not isinstance(value, dict):
        raise ArgumentsError(
            f"arguments must be a JSON object, got {type(value).__name__}", **context
        )
    return value


def _tail(text: str) -> str:
    return repr(text[-40:]) if len(text) > 40 else repr(text)


def _around(text: str, pos: int) -> str:
    return repr(text[max(0, pos - 20) : pos + 20])
