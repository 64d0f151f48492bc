"""`toolcall serve`: a local OpenAI-compatible server that answers from the cassettes.

Any HTTP client, in any language, can then be tested end to end against every provider's way of
streaming tool calls, with no key and no network: point its base URL at
`http://127.0.0.1:PORT/<provider>/v1` and send the request a scenario describes. The server picks
the cassette by provider (the path's first segment, or an `X-Toolcall-Provider` header) and by the
request (the scenario whose messages and tools the body carries, or one named in an
`X-Toolcall-Scenario` header, which may also name a published recording as `published/<stem>`),
then streams the cassette's body one SSE event per write, as a provider does.

Faults are asked for per request (`X-Toolcall-Fault`, or a `fault` query parameter), so one
server covers the failure paths of a client too:

- `cut`: the connection drops halfway through the events, mid-call;
- `429`: `429 Too Many Requests` with `Retry-After: 1` and an OpenAI-style error body;
- `500`: `500` with an error body;
- `drip`: a pause before every event (`X-Toolcall-Delay-Ms`, default 50 ms with `drip`);
- `keepalive`: a `: keep-alive` comment before every event.

The other wires (Responses, Anthropic Messages, Gemini, Ollama) are answered at their own paths
from the wire recordings (`serve_wires`).

The matrix also registers bodies of its own (a truncated variant, say) and hands the client a
token for them (`X-Toolcall-Body`), so an HTTP client is judged on exactly the bytes the in-process
implementations get. Everything here is the standard library's `http.server`: a test tool must not
need more than the suite it serves.
"""

from __future__ import annotations

import json
import secrets as random_tokens
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from . import cassettes, published, serve_wires
from .profiles import Suite

FAULTS = ("cut", "429", "500", "drip", "keepalive")
DEFAULT_DRIP_MS = 50


class NoCassette(LookupError):
    """No cassette answers this request; the message says what is known."""


@dataclass
class Catalogue:
    """Which body answers which request: the cassettes, plus bodies registered at run time."""

    suite: Suite | None
    registered: dict[str, bytes] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

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
        self, provider: str | None, request: Mapping[str, Any], headers: Mapping[str, str]
    ) -> bytes:
        token = headers.get("x-toolcall-body")
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
        scenario = headers.get("x-toolcall-scenario") or self._match(self.suite, request)
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

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.verbose:
            super().log_message(format, *args)

    def do_GET(self) -> None:
        suite = self.server.catalogue.suite
        if suite is not None and urlsplit(self.path).path.rstrip("/").endswith("/models"):
            models = [{"id": p.model, "object": "model"} for p in suite.providers.values()]
            self._json(200, {"object": "list", "data": models})
            return
        self._json(404, _error("not_found", "only POST …/chat/completions is served"))

    def do_POST(self) -> None:
        url = urlsplit(self.path)
        wire = serve_wires.wire_of(url.path)
        if wire is not None:
            serve_wires.answer(self, url, self.server.catalogue.suite, wire)
            return
        if not url.path.rstrip("/").endswith("/chat/completions"):
            self._json(404, _error("not_found", "only POST …/chat/completions is served"))
            return
        length = int(self.headers.get("Content-Length") or 0)
        try:
            request = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            self._json(400, _error("invalid_request_error", "the body is not JSON"))
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        fault = headers.get("x-toolcall-fault") or query.get("fault")
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
        provider = headers.get("x-toolcall-provider") or _provider_from_path(url.path)
        try:
            body = self.server.catalogue.body_for(provider, request, headers)
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


def _provider_from_path(path: str) -> str | None:
    """`/<provider>/v1/chat/completions` or `/<provider>/chat/completions` names the provider."""
    segments = [s for s in path.split("/") if s]
    if len(segments) >= 3 and segments[-2:] == ["chat", "completions"] and segments[0] != "v1":
        return segments[0]
    return None


def _error(kind: str, message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "code": kind}}
