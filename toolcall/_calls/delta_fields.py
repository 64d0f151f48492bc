"""The one reading of a tool-call delta's fields, shared by `Delta.from_dict` and `Assembler.feed`.

Two readers had drifted apart (one took `"index": "1"`, the other refused it), so the same delta
was valid or not depending on the door it came in by. Each field now has one function, and each
function one answer: what it accepts, how it converts, and the `StreamError` it raises otherwise,
naming the wire index when there is one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .._errors import StreamError, shown


def wire_index(raw: Any) -> int | None:
    """The delta's `index`: absent or null is None (Gemini leaves it out).

    A string of decimal digits is read as the number: a relay that quotes numbers has said which
    call it means, and refusing it would fail the turn over a spelling.
    """
    if raw is None:
        return None
    if type(raw) is int:
        index = raw
    elif isinstance(raw, str) and raw.isascii() and raw.strip().lstrip("-").isdigit():
        try:
            index = int(raw)
        except ValueError:  # more digits than int() converts: no real index looks like that
            raise StreamError(f"index must be an integer, got {shown(raw)}") from None
    else:
        raise StreamError(f"index must be an integer, got {shown(raw)}")
    if index < 0:
        raise StreamError(f"index must not be negative, got {index}", index=index)
    return index


def wire_text(value: Any, field: str, index: int | None) -> str:
    """A text field (`id`, `type`, `function.name`): absent or null is `""`."""
    if value is None:
        return ""
    if type(value) is not str:
        raise StreamError(f"{field} must be a string, got {shown(value)}", index=index)
    return value


def wire_object(value: Any, field: str, index: int | None) -> Mapping[Any, Any]:
    """An object field (`function`, `extra_content`), which must be a JSON object."""
    if not isinstance(value, Mapping):
        raise StreamError(f"{field} must be an object, got {shown(value)}", index=index)
    return value


def wire_arguments(value: Any, index: int | None) -> tuple[str, bool]:
    """`function.arguments` as text, and whether it arrived as a JSON value instead.

    Some servers send the arguments as an object rather than its text; it is serialised once, and
    the flag lets the assembler report the repair (`arguments_object`).
    """
    if value is None:
        return "", False
    if type(value) is str:
        return value, False
    if isinstance(value, (dict, list)):
        try:
            return json.dumps(value, ensure_ascii=False, allow_nan=False), True
        except (TypeError, ValueError, RecursionError) as exc:
            raise StreamError(
                f"function.arguments cannot be serialised as JSON: {exc}", index=index
            ) from None
    raise StreamError(
        f"function.arguments must be a string, got {type(value).__name__}", index=index
    )


def value_chars(value: Any, budget: int) -> int:
    """Characters a JSON value holds: its strings and member names, one for each other value and
    each container, whatever its type, so an object or a list counts all it holds.

    Counting stops past `budget` (what the limit still allows): a list that holds itself would
    otherwise be counted for ever, and a value past the limit is refused whatever its full size.
    """
    if type(value) is str:
        return len(value)
    if not isinstance(value, (list, Mapping)):
        return 1
    size = 0
    stack = [value]
    while stack and size <= budget:
        held = stack.pop()
        size += 1
        items = held.items() if isinstance(held, Mapping) else ((None, item) for item in held)
        for key, item in items:
            if type(key) is str:
                size += len(key)
            if type(item) is str:
                size += len(item)
            elif isinstance(item, (list, Mapping)):
                stack.append(item)
            else:
                size += 1
    return size
