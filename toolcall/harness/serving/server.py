"""The server's life: a `ThreadingHTTPServer` held to limits, started in a background thread.

It is a server on the user's machine that clients broken on purpose talk to: a connection
silent for `IDLE_TIMEOUT` is closed, at most `MAX_HANDLERS` are served at once (one more gets a
503 from the accept loop, which never blocks), and the listen backlog is `LISTEN_BACKLOG`, so a
burst of clients queues instead of being reset. The idle timeout is per read, not a deadline
for the whole request: a client sending one header byte every few seconds keeps its thread,
but only one of `MAX_HANDLERS`; a deadline would need a selector loop of our own.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import ThreadingHTTPServer
from typing import Any
from urllib.parse import quote

from .. import background
from ..suite.profiles import Suite
from . import input as serve_input
from .capture import Received
from .catalogue import Catalogue
from .handler import Handler
from .input import error_body

IDLE_TIMEOUT = 30.0  # seconds a connection may stay silent, between requests or within one
MAX_HANDLERS = 256  # connections served at once; a thread each
LISTEN_BACKLOG = 1024  # the kernel caps it at net.core.somaxconn


class Server(ThreadingHTTPServer):
    """`ThreadingHTTPServer` with limits: at most `max_handlers` connections served at once
    (one more gets a 503 straight from the accept loop, which never blocks), a listen backlog
    for bursts of clients."""

    daemon_threads = True  # not tracked, so `stop()` does not wait for a client's open connection
    request_queue_size = LISTEN_BACKLOG

    def __init__(
        self,
        address: tuple[str, int],
        catalogue: Catalogue,
        *,
        verbose: bool,
        allowed_hosts: frozenset[str],
        idle_timeout: float,
        max_handlers: int,
    ) -> None:
        super().__init__(address, Handler)
        self.catalogue = catalogue
        self.verbose = verbose
        self.allowed_hosts = allowed_hosts | {str(self.server_address[0]).lower()}
        self.idle_timeout = idle_timeout
        self.handler_slots = threading.BoundedSemaphore(max_handlers)
        self.memory = serve_input.MemoryBudget()

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.handler_slots.acquire(blocking=False):
            self._refuse_busy(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.handler_slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.handler_slots.release()

    def _refuse_busy(self, request: socket.socket) -> None:
        body = json.dumps(
            error_body("server_error", "this server is serving as many connections as it allows")
        ).encode()
        head = (
            "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n"
        )
        try:
            request.settimeout(1)
            request.sendall(head.encode() + body)
            # Closing with the request unread would send a reset the 503 may not survive.
            request.setblocking(False)
            request.recv(1 << 16)
        except OSError:
            pass
        finally:
            self.shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up (a Node process exiting with a kept-alive connection open) is
        normal for a test server, not a traceback on the user's terminal."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


@dataclass
class Running:
    """A server serving in a background thread; `base_url` ends before `/<provider>/v1`."""

    server: Server
    thread: threading.Thread

    @property
    def base_url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def catalogue(self) -> Catalogue:
        return self.server.catalogue

    def requests(self) -> list[Received]:
        """The last requests this server received, oldest first (see `Catalogue.requests`)."""
        return self.server.catalogue.requests()

    def url(self, provider: str, scenario: str | None = None, *, fault: str | None = None) -> str:
        """The base URL an OpenAI-compatible client is given for `provider`; with `scenario`
        (or `published/<recording>`) and `fault` chosen in the path, for clients behind a
        gateway that drops the `X-Toolcall-*` headers."""
        chosen = [provider, *([scenario] if scenario else []), *(["fault", fault] if fault else [])]
        return f"{self.base_url}/{'/'.join(quote(part, safe='/') for part in chosen)}/v1"


class CannotListen(OSError):
    """The server could not bind its address: a port in use, a host not of this machine. An
    `OSError` with the bind's own `errno`, and the address, so every command that starts the
    server (`serve`, `gateways`) says it in one line instead of a traceback."""

    def __init__(self, host: str, port: int, cause: OSError) -> None:
        super().__init__(cause.errno, cause.strerror)
        self.host = host
        self.port = port


def start(
    suite: Suite | None,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    verbose: bool = False,
    allowed_hosts: Iterable[str] = (),
    idle_timeout: float = IDLE_TIMEOUT,
    max_handlers: int = MAX_HANDLERS,
) -> Running:
    """Serve in a background thread (port 0: any free port); stop with `stop(running)`.

    The server answers requests whose `Host` is a loopback name, `host`, or one of
    `allowed_hosts`. Binding fails with `CannotListen` (a port in use: `errno.EADDRINUSE`).
    """
    names = serve_input.LOOPBACK_NAMES | {host.lower(), *(n.lower() for n in allowed_hosts)}
    try:
        server = Server(
            (host, port),
            Catalogue(suite),
            verbose=verbose,
            allowed_hosts=frozenset(names),
            idle_timeout=idle_timeout,
            max_handlers=max_handlers,
        )
    except OSError as exc:
        raise CannotListen(host, port, exc) from None
    return Running(server, background.start(server, name="toolcall-serve"))


def stop(running: Running) -> None:
    background.stop(running.server, running.thread)


@contextmanager
def serving(suite: Suite | None, **options: Any) -> Iterator[Running]:
    running = start(suite, **options)
    try:
        yield running
    finally:
        stop(running)
