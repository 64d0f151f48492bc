"""What `toolcall serve` accepts from a client, and the typed refusal of everything else.

A test server meets clients that are broken on purpose (that is what it is for) and pages in a
browser that reach it by DNS rebinding. Each check here turns one kind of bad input into a
`Refused` that the handler sends as a 4xx in the OpenAI error shape, before anything else
happens: a client never gets an empty reply, a body is never longer than `MAX_BODY_BYTES` nor
nested deeper than the JSON decoder allows, and the requests being served never hold more than
`MEMORY_BUDGET` together (`MemoryBudget`, `read_cost`).
"""

from __future__ import annotations

import json
import math
import re
import threading
from collections.abc import Collection
from io import BufferedIOBase
from typing import Any
from urllib.parse import urlsplit

MAX_BODY_BYTES = 16 * 1024 * 1024
#: What the bodies being served may take together, read as JSON. A body's length alone does
#: not bound that: 16 MiB of `[{},{},...]` are 5.6 million objects, 440 MB once read.
MEMORY_BUDGET = 512 * 1024 * 1024
#: Bounds measured on CPython 3.11 (tracemalloc's peak while `json.loads` reads): a string
#: costs at most 8 times its bytes (one astral character makes a whole string 4 bytes a
#: character, and decoding holds a copy), and any other value at most 62 bytes (`[[[]]]`,
#: nested lists), so 100 a value leaves room for other builds; the decoder itself takes about
#: 1.3 KiB whatever it reads.
COST_PER_BYTE = 8
COST_PER_VALUE = 100
COST_PER_READ = 4096
MAX_DELAY_MS = 5000.0
MAX_TRAILER_LINES = 64
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})

_LENGTH = re.compile(r"[0-9]{1,20}")
_CHUNK_SIZE = re.compile(rb"[0-9a-fA-F]{1,16}")
_JSON_KINDS = {
    list: "an array",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "a boolean",
    type(None): "null",
}


class Refused(Exception):
    """A request the server answers with `status` and an OpenAI-style error, and nothing else."""

    def __init__(self, status: int, kind: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind
        self.message = message


def invalid(message: str) -> Refused:
    """A 400 naming what is wrong with the request."""
    return Refused(400, "invalid_request_error", message)


def _too_large(size: str) -> Refused:
    limit = MAX_BODY_BYTES // (1024 * 1024)
    return Refused(413, "request_too_large", f"a body of {size} is over the {limit} MiB served")


def host_name(header: str) -> str:
    """The name in a `Host` header, without port or brackets, lower-cased."""
    value = header.strip().lower()
    if value.startswith("["):
        name, _bracket, rest = value[1:].partition("]")
        return name if rest == "" or (rest[:1] == ":" and rest[1:].isdigit()) else value
    name, colon, port = value.rpartition(":")
    if colon and port.isdigit() and ":" not in name:
        return name
    return value


def check_host(headers: list[str], target: str, allowed: Collection[str]) -> None:
    """Answer only the names the server was started for: a page on another site that resolves
    its own name to 127.0.0.1 (DNS rebinding) still sends its own name here. Exactly one `Host`
    is required, and a request line in absolute form (`POST http://name/...`) names a host too,
    which is checked the same way: a proxy or a server may take either for the host."""
    if len(headers) != 1:
        raise invalid(f"exactly one Host header is required, not {len(headers)}")
    names = [headers[0]]
    if not target.startswith("/") and target != "*":
        authority = urlsplit(target).netloc.rpartition("@")[2]
        if not authority:
            raise invalid("the request target is neither a path nor an absolute URL")
        names.append(authority)
    for name in names:
        if host_name(name) not in allowed:
            raise Refused(
                421,
                "misdirected_request",
                f"this server answers the host names {sorted(allowed)}, not {name!r} "
                "(start it with --allow-host to add one)",
            )


def content_length(values: list[str]) -> int:
    """The one length the `Content-Length` headers agree on, within `MAX_BODY_BYTES`."""
    distinct = {value.strip() for value in values}
    if len(distinct) > 1:
        raise invalid(f"conflicting Content-Length headers: {sorted(distinct)}")
    if not distinct:
        return 0
    text = distinct.pop()
    if not _LENGTH.fullmatch(text):
        raise invalid(f"Content-Length {text!r} is not a length in bytes")
    length = int(text)
    if length > MAX_BODY_BYTES:
        raise _too_large(f"{length} bytes")
    return length


def read_cost(raw: bytes) -> int:
    """An upper bound on the memory `raw` takes with the JSON read from it, counted at the speed
    of `bytes.count`: no JSON text holds more values and keys than it has commas, colons and
    openings of arrays and objects, plus one (those inside strings only raise the bound)."""
    values = 1 + sum(raw.count(mark) for mark in (b",", b":", b"[", b"{"))
    return COST_PER_READ + COST_PER_BYTE * len(raw) + COST_PER_VALUE * values


class MemoryBudget:
    """`MEMORY_BUDGET` shared by the requests being served: each takes its share before it
    reads its body and the rest before it reads the JSON, and gives all back when answered. A
    request that does not fit now gets a 503 (another may fit later); one that never could gets
    a 413."""

    def __init__(self, total: int = MEMORY_BUDGET) -> None:
        self.total = total
        self._used = 0
        self._lock = threading.Lock()

    def hold(self, held: int, wanted: int) -> int:
        """Hold `wanted` of the budget in place of `held`, and return it (0 gives all back)."""
        if wanted > self.total:
            raise Refused(
                413,
                "request_too_large",
                f"reading this body as JSON would take about {wanted // 2**20} MiB, more than "
                f"this server holds for all requests together ({self.total // 2**20} MiB)",
            )
        with self._lock:
            if self._used - held + wanted > self.total:
                raise Refused(
                    503,
                    "server_busy",
                    "this server holds as much request data as it allows; send again shortly",
                )
            self._used += wanted - held
        return wanted

    @property
    def used(self) -> int:
        return self._used


def read_chunked(stream: BufferedIOBase) -> bytes:
    """A `Transfer-Encoding: chunked` body (some proxies forward requests so), read chunk by
    chunk and refused as soon as it passes `MAX_BODY_BYTES`."""
    parts = []
    total = 0
    while True:
        line = stream.readline(1026)
        size_text = line.split(b";", 1)[0].strip()
        if not line.endswith(b"\n") or not _CHUNK_SIZE.fullmatch(size_text):
            raise invalid(f"chunk size line {line[:40]!r} is not a hexadecimal size")
        size = int(size_text, 16)
        if size == 0:
            break
        total += size
        if total > MAX_BODY_BYTES:
            raise _too_large(f"more than {total} bytes")
        data = stream.read(size)
        if len(data) < size or stream.readline(3) not in (b"\r\n", b"\n"):
            raise invalid("a chunk is shorter than its size, or not followed by CRLF")
        parts.append(data)
    for _line in range(MAX_TRAILER_LINES):
        if stream.readline(1026) in (b"\r\n", b"\n", b""):
            return b"".join(parts)
    raise invalid(f"more than {MAX_TRAILER_LINES} trailer lines after the last chunk")


def request_object(raw: bytes) -> dict[str, Any]:
    """The body as the JSON object a chat completions request is (an empty body is `{}`)."""
    if not raw:
        return {}
    try:
        document = json.loads(raw)
    except RecursionError:
        raise invalid("the body is nested too deeply to read") from None
    except ValueError:  # also UnicodeDecodeError
        raise invalid("the body is not JSON") from None
    if not isinstance(document, dict):
        kind = _JSON_KINDS.get(type(document), type(document).__name__)
        raise invalid(f"the body must be a JSON object, not {kind}")
    return document


def delay_seconds(header: str | None, default_ms: float) -> float:
    """`X-Toolcall-Delay-Ms` as seconds, checked before the 200 goes out."""
    if not header:
        return default_ms / 1000
    try:
        ms = float(header)
    except ValueError:
        raise invalid(f"X-Toolcall-Delay-Ms {header!r} is not a number") from None
    if not (math.isfinite(ms) and 0 <= ms <= MAX_DELAY_MS):
        raise invalid(f"X-Toolcall-Delay-Ms {header!r} is not between 0 and {MAX_DELAY_MS:g}")
    return ms / 1000


def error_body(kind: str, message: str) -> dict[str, Any]:
    """An error in the OpenAI shape, which every refusal of this server takes."""
    return {"error": {"message": message, "type": kind, "code": kind}}
