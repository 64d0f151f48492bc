"""An HTTP server answering from a background thread, and stopped promptly.

`socketserver`'s accept loop checks for a shutdown request once per `poll_interval`, 0.5 s by
default, so every `shutdown()` waits a quarter of a second on average and up to half of one:
a suite that starts a server per test spends more time stopping servers than serving them. The
loop here polls every `POLL_SECONDS` instead; twenty wake-ups a second on an idle server cost
nothing measurable. One place starts and stops every server of the harness and of the tests,
so that none of them waits the default.
"""

from __future__ import annotations

import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TypeVar

#: How often the accept loop looks for a shutdown request: the longest `stop` waits for it.
POLL_SECONDS = 0.05
#: How long `stop` waits for the serving thread to end once the loop has stopped.
JOIN_SECONDS = 5.0

ServerT = TypeVar("ServerT", bound=socketserver.BaseServer)


def start(server: socketserver.BaseServer, *, name: str | None = None) -> threading.Thread:
    """Serve `server` from a daemon thread (a hung handler never keeps the process alive)."""
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": POLL_SECONDS}, name=name, daemon=True
    )
    thread.start()
    return thread


def stop(server: socketserver.BaseServer, thread: threading.Thread) -> None:
    """Stop the accept loop, close the listening socket and wait for the thread."""
    server.shutdown()
    server.server_close()
    thread.join(timeout=JOIN_SECONDS)


@contextmanager
def running(server: ServerT, *, name: str | None = None) -> Iterator[ServerT]:
    """`server` answering for the duration of the block, stopped when it ends."""
    thread = start(server, name=name)
    try:
        yield server
    finally:
        stop(server, thread)
