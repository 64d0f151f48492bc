"""`toolcall serve`: a local OpenAI-compatible server that answers from the cassettes.

Any HTTP client, in any language, can then be tested end to end against every provider's way of
streaming tool calls, with no key and no network: point its base URL at
`http://127.0.0.1:PORT/<provider>/v1` and send the request a scenario describes. The server picks
the cassette by provider (the path's first segment, or an `X-Toolcall-Provider` header) and by the
request (the scenario whose messages and tools the body carries, or one named in an
`X-Toolcall-Scenario` header, which may also name a published recording as `published/<stem>`),
then streams the cassette's body one SSE event per write, as a provider does.

Gateways and proxies drop headers they do not know, so everything a header chooses can also be
chosen in the path, before the `/v1` a client's base URL ends with:

    /<provider>/v1/chat/completions                        the request's body picks the scenario
    /<provider>/<scenario>/v1/chat/completions             that scenario's cassette
    /<provider>/published/<recording>/v1/chat/completions  that published recording
    /<provider>[/<scenario>]/fault/<fault>/v1/chat/completions   with that fault

The `/v1` is optional. What the path names wins over the headers, which win over the body;
`published` and `fault` are therefore no scenario's name.

Faults are asked for per request (in the path, `X-Toolcall-Fault`, or a `fault` query parameter),
so one server covers the failure paths of a client too:

- `cut`: the connection drops halfway through the events, mid-call;
- `429`: `429 Too Many Requests` with `Retry-After: 1` and an OpenAI-style error body;
- `500`: `500` with an error body;
- `drip`: a pause before every event (`X-Toolcall-Delay-Ms`, default 50 ms with `drip`);
- `keepalive`: a `: keep-alive` comment before every event.

The matrix also registers bodies of its own (a truncated variant, say) and hands the client a
token for them (`X-Toolcall-Body`), so an HTTP client is judged on exactly the bytes the in-process
implementations get.

The server keeps the last `CAPTURED` requests it received (method, path, headers with credentials
masked, parsed body), in process (`Running.requests()`) and over HTTP (`GET /_toolcall/requests`;
`DELETE` empties it), so a test can compare what a gateway forwarded with the scenario's request.
A body over `CAPTURED_BODY_BYTES` is kept as its size only: memory stays bounded whatever arrives.

Everything here is the standard library's `http.server`: a test tool must not
need more than the suite it serves.
"""

from __future__ import annotations

import json
import secrets as random_tokens
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from . import cassettes, published
from .profiles import Suite

FAULTS = ("cut", "429", "500", "drip", "keepalive")
DEFAULT_DRIP_MS = 50
FAULT_SEGMENT = "fault"
CAPTURE_PATH = "/_toolcall/requests"
CAPTURED = 64
CAPTURED_BODY_BYTES = 1024 * 1024
# Masked in captured headers: a gateway forwards the client's key, and captures are printed.
SECRET_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "cookie", "x-api-key", "api-key", "x-goog-api-key"}
)


class NoCassette(LookupError):
    """No cassette answers this request; the message says what is known."""


class BadRoute(ValueError):
    """A chat completions path whose segments name nothing this server knows how to choose."""


@dataclass(frozen=True)
class Route:
    """What a chat completions path chooses; `None` leaves the choice to headers and body."""

    provider: str | None
    scenario: str | None  # a scenario, or `published/<recording>`
    fault: str | None


def route(path: str) -> Route | None:
    """The choices `path` makes, or `None` for a path that is not `…/chat/completions`."""
    segments = [unquote(s) for s in path.split("/") if s]
    if segments[-2:] != ["chat", "completions"]:
        return None
    prefix = segments[:-2]
    if prefix[-1:] == ["v1"]:
        prefix = prefix[:-1]
    fault = None
    if len(prefix) >= 2 and prefix[-2] == FAULT_SEGMENT:
        fault, prefix = prefix[-1], prefix[:-2]
    if not prefix:
        return Route(None, None, fault)
    provider, rest = prefix[0], prefix[1:]
    if not rest:
        return Route(provider, None, fault)
    if len(rest) == 1 and rest[0] not in (published.PUBLISHED, FAULT_SEGMENT):
        return Route(provider, rest[0], fault)
    if len(rest) == 2 and rest[0] == published.PUBLISHED:
        return Route(provider, f"{published.PUBLISHED}/{rest[1]}", fault)
    raise BadRoute(
        f"cannot read the path {path!r}: use /<provider>[/<scenario> | /published/<recording>]"
        f"[/fault/<fault>]/v1/chat/completions"
    )


@dataclass(frozen=True)
class Received:
    """One request as the server received it: what a gateway in front of it forwarded."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any  # the parsed JSON; None when absent, unreadable or over CAPTURED_BODY_BYTES
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
class Catalogue:
    """Which body answers which request: the cassettes, plus bodies registered at run time."""

    suite: Suite | None
    registered: dict[str, bytes] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    captured: deque[Received] = field(default_factory=lambda: deque(maxlen=CAPTURED))

    def capture(self, received: Received) -> None:
        with self.lock:
            self.captured.append(received)

    def requests(self) -> list[Received]:
        """The last `CAPTURED` requests received, oldest first."""
        with self.lock:
            return list(self.captured)

    def clear_requests(self) -> int:
        with self.lock:
            count = len(self.captured)
            self.captured.clear()
            return count

    def register(self, body: bytes) -> str:
        """Serve `body` to any request carrying the returned token in `X-Toolcall-Body`."""
        token = random_tokens.token_hex(8)
        with self.lock:
            self.registered[token] = body
        return token

    def forget(self, token: str) -> None:
        with self.lock:
            self.registered.pop(token, None)

    def body_for(
        self,
        provider: str | None,
        request: Mapping[str, Any],
        *,
        scenario: str | None = None,
        token: str | None = None,
    ) -> bytes:
        """The body registered under `token`, else the cassette of `scenario` (or of the
        scenario whose request this is) for `provider`."""
        if token:
            with self.lock:
                found = self.registered.get(token)
            if found is None:
                raise NoCassette(f"no registered body under X-Toolcall-Body {token!r}")
            return found
        if self.suite is None:
            raise NoCassette("this server only serves registered bodies (X-Toolcall-Body)")
        if provider is None:
            raise NoCassette(
                "name the provider: /<provider>/v1/chat/completions or X-Toolcall-Provider; "
                f"known: {sorted(self.suite.providers)}"
            )
        if provider not in self.suite.providers:
            raise NoCassette(
                f"unknown provider {provider!r}; known: {sorted(self.suite.providers)}"
            )
        scenario = scenario or self._match(self.suite, request)
        if scenario.startswith(published.PUBLISHED + "/"):
            path = self.suite.cassettes / provider / f"{scenario}.yaml"
        else:
            cell = self.suite.providers[provider].cells.get(scenario)
            if cell is None:
                raise NoCassette(
                    f"unknown scenario {scenario!r}; known: {sorted(self.suite.scenarios)}"
                )
            if cell.not_applicable:
                raise NoCassette(f"{provider}/{scenario} does not apply: {cell.not_applicable}")
            path = cassettes.cassette_path(self.suite.cassettes, provider, scenario)
        if not path.is_file():
            raise NoCassette(f"no cassette for {provider}/{scenario}")
        return cassettes.response_body(cassettes.load(path))

    @staticmethod
    def _match(suite: Suite, request: Mapping[str, Any]) -> str:
        """The scenario whose request this is: same messages and same tools."""
        for name, scenario in suite.scenarios.items():
            wanted = scenario.request
            if request.get("messages") == wanted.get("messages") and request.get(
                "tools"
            ) == wanted.get("tools"):
                return name
        raise NoCassette(
            "the request matches no scenario's messages and tools; send one from scenarios.yaml "
            f"or name it in X-Toolcall-Scenario (known: {sorted(suite.scenarios)})"
        )


def events(body: bytes) -> list[bytes]:
    """The body cut after each blank line, so each write is one whole event, as a provider
    flushes them."""
    parts = body.split(b"\n\n")
    out = [part + b"\n\n" for part in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        # Headers and a short body go out in two writes; without NODELAY the second waits for
        # the client's delayed ACK (about 40 ms a request on a kept-alive connection).
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.verbose:
            super().log_message(format, *args)

    def do_GET(self) -> None:
        suite = self.server.catalogue.suite
        if urlsplit(self.path).path == CAPTURE_PATH:
            received = self.server.catalogue.requests()
            self._json(200, {"requests": [r.to_json() for r in received]})
            return
        if suite is not None and urlsplit(self.path).path.rstrip("/").endswith("/models"):
            models = [{"id": p.model, "object": "model"} for p in suite.providers.values()]
            self._json(200, {"object": "list", "data": models})
            return
        self._json(404, _error("not_found", "only POST …/chat/completions is served"))

    def do_DELETE(self) -> None:
        if urlsplit(self.path).path == CAPTURE_PATH:
            self._json(200, {"cleared": self.server.catalogue.clear_requests()})
            return
        self._json(404, _error("not_found", f"only DELETE {CAPTURE_PATH} is served"))

    def do_POST(self) -> None:
        url = urlsplit(self.path)
        try:
            chosen = route(url.path)
        except BadRoute as exc:
            self._json(404, _error("not_found", str(exc)))
            return
        if chosen is None:
            self._json(404, _error("not_found", "only POST …/chat/completions is served"))
            return
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            request = json.loads(raw or b"{}")
        except ValueError:
            request = None
        headers = masked(dict(self.headers.items()))
        self.server.catalogue.capture(
            Received(
                "POST",
                self.path,
                headers,
                request if len(raw) <= CAPTURED_BODY_BYTES else None,
                len(raw),
            )
        )
        if request is None:
            self._json(400, _error("invalid_request_error", "the body is not JSON"))
            return
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        fault = chosen.fault or headers.get("x-toolcall-fault") or query.get("fault")
        if fault is not None and fault not in FAULTS:
            self._json(
                400, _error("invalid_request_error", f"unknown fault {fault!r}; known: {FAULTS}")
            )
            return
        if fault == "429":
            self._json(
                429, _error("rate_limit_exceeded", "simulated rate limit"), {"Retry-After": "1"}
            )
            return
        if fault == "500":
            self._json(500, _error("server_error", "simulated server error"))
            return
        if request.get("stream") is not True:
            self._json(400, _error("invalid_request_error", "only streamed requests are served"))
            return
        provider = chosen.provider or headers.get("x-toolcall-provider")
        try:
            body = self.server.catalogue.body_for(
                provider,
                request,
                scenario=chosen.scenario or headers.get("x-toolcall-scenario"),
                token=headers.get("x-toolcall-body"),
            )
        except NoCassette as exc:
            self._json(404, _error("not_found", str(exc)))
            return
        delay = float(
            headers.get("x-toolcall-delay-ms") or (DEFAULT_DRIP_MS if fault == "drip" else 0)
        )
        self._stream(events(body), fault=fault, delay=delay / 1000)

    def _stream(self, pieces: list[bytes], *, fault: str | None, delay: float) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        stop = len(pieces) // 2 if fault == "cut" else len(pieces)
        try:
            for piece in pieces[:stop]:
                if delay:
                    time.sleep(delay)
                if fault == "keepalive":
                    self._chunk(b": keep-alive\n\n")
                self._chunk(piece)
            if fault == "cut":
                self.close_connection = True
                self.wfile.flush()
                return  # no terminating chunk: the client sees the connection drop mid-stream
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _json(self, status: int, document: Any, headers: Mapping[str, str] | None = None) -> None:
        data = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], catalogue: Catalogue, verbose: bool) -> None:
        super().__init__(address, _Handler)
        self.catalogue = catalogue
        self.verbose = verbose

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up (a Node process exiting with a kept-alive connection open) is
        normal for a test server, not a traceback on the user's terminal."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


@dataclass
class Running:
    """A server serving in a background thread; `base_url` ends before `/<provider>/v1`."""

    server: _Server
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

    def url(self, provider: str) -> str:
        """The base URL an OpenAI-compatible client is given for `provider`."""
        return f"{self.base_url}/{provider}/v1"


def start(
    suite: Suite | None, *, host: str = "127.0.0.1", port: int = 0, verbose: bool = False
) -> Running:
    """Serve in a background thread (port 0: any free port); stop with `stop(running)`."""
    server = _Server((host, port), Catalogue(suite), verbose)
    thread = threading.Thread(target=server.serve_forever, name="toolcall-serve", daemon=True)
    thread.start()
    return Running(server, thread)


def stop(running: Running) -> None:
    running.server.shutdown()
    running.server.server_close()
    running.thread.join(timeout=5)


@contextmanager
def serving(suite: Suite | None, **options: Any) -> Iterator[Running]:
    running = start(suite, **options)
    try:
        yield running
    finally:
        stop(running)


def _error(kind: str, message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "code": kind}}
