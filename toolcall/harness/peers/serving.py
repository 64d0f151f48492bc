"""Where an HTTP client under test fetches a stream: one place for every wire.

A client is judged on exactly the bytes every other implementation is handed, so the harness
serves the stream's body on 127.0.0.1 for the length of one assembly: a chat completions body is
registered with the process's one `toolcall serve` (under a one-off token the client sends as the
`X-Toolcall-Body` header), another wire's body is answered at that wire's own path
(`http_wires.answering`), anything else with a 404 naming the path, so a client that calls the
wrong endpoint is seen to. A stream that says where it is served already (through a gateway) is
fetched from there.
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from .. import serve
from . import CHAT, NDJSON_WIRES, Served, Stream
from .http_wires import answering

BODY_HEADER = "X-Toolcall-Body"
#: Each wire's base URL path (what a client is configured with) and its request path's ending.
PATHS = {
    "responses": ("/v1", "/v1/responses"),
    "anthropic": ("/v1", "/v1/messages"),
    "gemini": ("/v1beta", ":streamGenerateContent"),
    "ollama": ("", "/api/chat"),
}
NDJSON = "application/x-ndjson"
SSE = "text/event-stream"

_lock = threading.Lock()
_running: serve.Running | None = None


def simulator() -> serve.Running:
    """The process's one simulator serving registered bodies, started on first use."""
    global _running
    with _lock:
        if _running is None:
            _running = serve.start(None)
            atexit.register(serve.stop, _running)
        return _running


@contextmanager
def serving(stream: Stream) -> Iterator[Served]:
    """Where `stream` can be fetched for as long as the block runs."""
    if stream.served is not None:
        yield stream.served
        return
    if stream.wire == CHAT:
        catalogue = simulator().catalogue
        token = catalogue.register(stream.body)
        try:
            yield Served(simulator().url("any"), {BODY_HEADER: token})
        finally:
            catalogue.forget(token)
        return
    base, path = PATHS[stream.wire]
    content_type = NDJSON if stream.wire in NDJSON_WIRES else SSE
    with answering(stream.body, path, content_type) as url:
        yield Served(url + base)
