"""What the server keeps of the requests it received, for a test to compare with what it sent.

The last `CAPTURED` POSTs (method, path, headers with credentials masked, parsed body) are kept
in process and served at `CAPTURE_PATH`. A body over `CAPTURED_BODY_BYTES` is kept as its size
only, so memory stays bounded whatever arrives; so is one nested deeper than `CAPTURED_DEPTH`,
which could not be sent back as JSON. A body JSON cannot carry back (`NaN`, `Infinity`, `1e400`,
which Python reads as floats) is kept as its text: what `GET /_toolcall/requests` sends is
strict JSON.
"""

from __future__ import annotations

import json
import math
import threading
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

CAPTURE_PATH = "/_toolcall/requests"
CAPTURED = 64
CAPTURED_BODY_BYTES = 256 * 1024  # 64 of them: 16 MiB at most
# Deeper than any request a client sends (a few levels of messages, tools and schemas), and far
# from the recursion limit that encoding the capture for `GET /_toolcall/requests` runs into.
CAPTURED_DEPTH = 100
# Masked in captured headers: a gateway forwards the client's key, and captures are printed.
SECRET_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "cookie", "x-api-key", "api-key", "x-goog-api-key"}
)


@dataclass(frozen=True)
class Received:
    """One request as the server received it: what a gateway in front of it forwarded."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any  # the parsed JSON; None when absent, unreadable, over CAPTURED_BODY_BYTES or deeper
    # than CAPTURED_DEPTH; its text when it holds a number strict JSON has not (NaN, 1e400)
    body_bytes: int

    def to_json(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "path": self.path,
            "headers": self.headers,
            "body": self.body,
            "body_bytes": self.body_bytes,
        }


def masked(headers: Mapping[str, str]) -> dict[str, str]:
    """Header names lower-cased, credentials replaced: whether one was forwarded is kept."""
    return {
        name.lower(): "<masked>" if name.lower() in SECRET_HEADERS else value
        for name, value in headers.items()
    }


@dataclass
class Captures:
    """The last `CAPTURED` requests, shared by the handlers' threads."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    kept: deque[Received] = field(default_factory=lambda: deque(maxlen=CAPTURED))

    def add(self, received: Received) -> None:
        with self.lock:
            self.kept.append(received)

    def requests(self) -> list[Received]:
        """The requests kept, oldest first."""
        with self.lock:
            return list(self.kept)

    def clear(self) -> int:
        with self.lock:
            count = len(self.kept)
            self.kept.clear()
            return count


def received(path: str, headers: dict[str, str], raw: bytes, parsed: Any) -> Received:
    """A POST as kept: its body only when it is small and shallow enough to keep and to send
    back as JSON, else its size alone."""
    kept = len(raw) <= CAPTURED_BODY_BYTES and _nested_within(parsed, CAPTURED_DEPTH)
    body = parsed if kept else None
    if kept and not _finite(parsed):
        body = raw.decode("utf-8", "replace")
    return Received("POST", path, headers, body, len(raw))


def parsed_or_none(raw: bytes) -> Any:
    """`raw` read as JSON, or None when it is empty or not JSON (kept all the same)."""
    try:
        return json.loads(raw) if raw else None
    except (ValueError, RecursionError):
        return None


def _nested_within(value: Any, depth: int) -> bool:
    """Whether `value` nests no deeper than `depth` arrays and objects (checked without
    recursion, so a body nested as deep as the parser allows cannot exhaust the stack here)."""
    todo = [(value, 1)]
    while todo:
        node, level = todo.pop()
        if not isinstance(node, (dict, list)):
            continue
        if level > depth:
            return False
        children = node.values() if isinstance(node, dict) else node
        todo += [(child, level + 1) for child in children]
    return True


def _finite(value: Any) -> bool:
    """Whether every number in `value` is finite, so that strict JSON can carry it (walked
    without recursion, as `_nested_within`)."""
    todo = [value]
    while todo:
        node = todo.pop()
        if isinstance(node, float) and not math.isfinite(node):
            return False
        if isinstance(node, dict):
            todo += node.values()
        elif isinstance(node, list):
            todo += node
    return True
