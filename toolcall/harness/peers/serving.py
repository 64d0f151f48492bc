"""Where an HTTP client under test fetches a stream: the process's one `toolcall serve`.

A client is judged on exactly the bytes every other implementation is handed, so the harness
registers the stream's body with one simulator (`harness.serving`, started once per process
on 127.0.0.1) for the length of one assembly, under a one-off token the client sends as the
`X-Toolcall-Body` header. The simulator answers it at that wire's own path only
(`wires.WIRE_PATHS`, the one table of them) and anything else with a 404 naming the
path, so a client that calls the wrong endpoint is seen to. A stream that says where it is
served already (through a gateway) is fetched from there.
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from ..reading.wires import WIRE_PATHS
from ..serving.server import Running, start, stop
from . import Served, Stream

BODY_HEADER = "X-Toolcall-Body"

_lock = threading.Lock()
_running: Running | None = None


def simulator() -> Running:
    """The process's one simulator serving registered bodies, started on first use."""
    global _running
    with _lock:
        if _running is None:
            _running = start(None)
            atexit.register(stop, _running)
        return _running


@contextmanager
def serving(stream: Stream) -> Iterator[Served]:
    """Where `stream` can be fetched for as long as the block runs: a base URL ending in its
    wire's API root (`/v1`, `/v1beta`, or none for Ollama), as an SDK of that wire is given."""
    if stream.served is not None:
        yield stream.served
        return
    running = simulator()
    token = running.catalogue.register(stream.body, stream.wire)
    try:
        yield Served(running.base_url + WIRE_PATHS[stream.wire].root, {BODY_HEADER: token})
    finally:
        running.catalogue.forget(token)


def origin(served: Served, wire: str) -> str:
    """`served`'s URL without the wire's API root, for an SDK that adds the root itself (the
    anthropic SDK posts to `/v1/messages`, google-genai to `/v1beta/models/...`)."""
    return served.base_url.removesuffix(WIRE_PATHS[wire].root)
