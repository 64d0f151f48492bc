"""JSON decoding of chunk payloads, the dominant cost of the whole flow.

Two backends. `stdlib` calls the C scanner behind `json.loads` directly: the checks `json.loads`
wraps around it (type tests, two regex matches, a method call) cost a fifth of decoding a typical
chunk, and we do them only when the fast call did not consume the whole payload. `orjson`, when the
optional `fast` extra is installed, decodes in about half the time of the stdlib. `auto` picks
orjson when it is importable.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ._errors import UsageError

Loads = Callable[[str], Any]

_scan_once = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def _stdlib_loads(text: str) -> Any:
    try:
        value, end = _scan_once(text, 0)
    except StopIteration:
        return json.loads(text)  # leading whitespace, or an error worth json's own message
    if end != len(text):
        return json.loads(text)  # trailing whitespace is fine; anything else raises here
    return value


def backend(name: str = "auto") -> Loads:
    """The `loads` function for a backend name: `auto`, `stdlib` or `orjson`."""
    if name == "stdlib":
        return _stdlib_loads
    if name in ("auto", "orjson"):
        try:
            import orjson
        except ImportError:
            if name == "orjson":
                raise UsageError(
                    "json backend 'orjson' needs: pip install 'toolcall[fast]'"
                ) from None
            return _stdlib_loads
        loads: Loads = orjson.loads
        return loads
    raise UsageError(f"unknown json backend {name!r}; use 'auto', 'stdlib' or 'orjson'")
