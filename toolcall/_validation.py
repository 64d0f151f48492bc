"""Arguments must end as exactly one JSON object.

The reasons are worded for the failure they point at: two objects back to back (`{}{}`) is the
signature of parallel calls merged into one (lobehub#11649, hermes-agent#62937), and a prefix that
stops mid-value is a cut-off call, which must never be "repaired" into a valid-looking one.
"""

from __future__ import annotations

import json
from typing import Any

from ._errors import ArgumentsError, TruncatedError
from ._types import ToolCall


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
    if not text.strip():
        if truncated:
            raise TruncatedError(f"no arguments arrived ({truncated})", **context)
        # An empty string is how several providers send a call of a tool without parameters.
        return {}
    try:
        value = json.loads(text)
    except RecursionError:
        raise ArgumentsError("arguments nest too deeply to parse", **context) from None
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
        if exc.pos >= len(text.rstrip()):
            raise ArgumentsError(
                f"arguments end before the JSON is complete: {_tail(text)}", **context
            ) from None
        raise ArgumentsError(
            f"arguments are not valid JSON ({exc.msg} at character {exc.pos}): "
            f"{_around(text, exc.pos)}",
            **context,
        ) from None
    if not isinstance(value, dict):
        raise ArgumentsError(
            f"arguments must be a JSON object, got {type(value).__name__}", **context
        )
    return value


def _tail(text: str) -> str:
    return repr(text[-40:]) if len(text) > 40 else repr(text)


def _around(text: str, pos: int) -> str:
    return repr(text[max(0, pos - 20) : pos + 20])
