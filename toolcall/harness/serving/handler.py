"""How one request is answered: read within the limits, checked, captured, then streamed from
the catalogue or refused with a status and an OpenAI-style error.

A refusal sent before the body was read closes the connection, or the body would be read as the
next request. Every reply has a status line, whatever the request line: one that is not
`METHOD target HTTP/1.x` is a 400, `HTTP/2.0` a 505; up to `BLANK_LINES` empty lines before a
request line are ignored, between kept-alive requests too (RFC 9112, section 2.2).
"""

from __future__ import annotations

import json
import socket
import sys
import time
import traceback
from collections.abc import Callable, Collection, Mapping
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from typing import Any, Protocol, cast
from urllib.parse import SplitResult, parse_qs, unquote, urlsplit

from ..reading.wires import WIRE_PATHS, flushes, objects
from ..suite.cassettes import CHAT
from . import input as serve_input
from . import plain, render
from .capture import CAPTURE_PATH, CAPTURED_BODY_BYTES, masked, parsed_or_none, received
from .catalogue import Catalogue, NoCassette
from .faults import BY_NAME, Fault
from .input import error_body
from .routes import (
    FAULTS,
    GEMINI_UNSTREAMED,
    BadRoute,
    Route,
    framing_asked,
    provider_of,
    route,
    unstreamed_gemini,
    wire_of,
    wire_request_problem,
)

DEFAULT_DRIP_MS = 50
GEMINI_METHOD = ":streamGenerateContent"
#: Empty lines ignored before a request line (RFC 9112, section 2.2, asks for at least one).
BLANK_LINES = 8


class ServerState(Protocol):
    """What a handler reads from the server it runs in."""

    catalogue: Catalogue
    verbose: bool
    allowed_hosts: Collection[str]
    idle_timeout: float
    memory: serve_input.MemoryBudget


class Handler(BaseHTTPRequestHandler):
    """One connection's requests: each answered, refused in the OpenAI error shape, or cut
    short once its stream has begun; never an empty reply."""

    protocol_version = "HTTP/1.1"
    # What a refusal is framed as until the request line gave its version: http.server's default,
    # HTTP/0.9, would send a body with no status line.
    default_request_version = "HTTP/1.1"
    raw_requestline: bytes
    _replied = False  # a status line went out for the current request
    _body_pending = False  # the current request has a body not read yet
    _held = 0  # what the current request holds of the server's memory budget

    @property
    def state(self) -> ServerState:
        """What the server holds for its handlers (`server.Server` is one)."""
        return cast(ServerState, self.server)

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.state.idle_timeout)  # per read: idle clients let go
        # Headers and a short body go out in two writes; without NODELAY the second waits for
        # the client's delayed ACK (about 40 ms a request on a kept-alive connection).
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        if self.state.verbose:
            super().log_message(format, *args)

    def handle_one_request(self) -> None:
        self._replied = False
        self._body_pending = False
        try:
            super().handle_one_request()
        finally:
            self._held = self.state.memory.hold(self._held, 0)

    def parse_request(self) -> bool:
        for _ in range(BLANK_LINES):
            if self.raw_requestline not in (b"\r\n", b"\n"):
                break
            self.raw_requestline = self.rfile.readline(65537)
        if not self.raw_requestline:  # the client closed after its empty lines
            self.close_connection = True
            return False
        if len(self.raw_requestline) > 65536 or len(self.raw_requestline.split()) != 3:
            # Not `METHOD target HTTP/1.x` (HTTP/0.9's `GET /` included): a 400 with its status
            # line, which http.server would leave out for a request of no version.
            line = str(self.raw_requestline, "iso-8859-1").rstrip("\r\n")
            self.command, self.request_version = "", self.default_request_version
            self.requestline = line[:200]
            self.send_error(400, f"not a request line (METHOD target HTTP/1.x): {line[:80]!r}")
            return False
        if not super().parse_request():
            return False
        self._body_pending = any(h in self.headers for h in ("Content-Length", "Transfer-Encoding"))
        try:
            hosts = self.headers.get_all("Host") or []
            serve_input.check_host(hosts, self.path, self.state.allowed_hosts)
        except serve_input.Refused as exc:
            self._refuse(exc)
            return False
        return True

    def send_response(self, code: int, message: str | None = None) -> None:
        self._replied = True
        super().send_response(code, message)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own refusals (a bad request line, too many headers, an unknown
        method) in the same JSON shape as ours."""
        self.close_connection = True
        if self._replied:
            return
        text = message or explain or HTTPStatus(code).phrase
        kind = "server_error" if code >= 500 else "invalid_request_error"
        self._json(code, error_body(kind, text), close=True)

    def do_GET(self) -> None:
        self._guarded(self._get)

    def do_POST(self) -> None:
        self._guarded(self._post)

    def do_DELETE(self) -> None:
        self._guarded(self._delete)

    def _guarded(self, action: Callable[[], None]) -> None:
        """Every request gets an answer: a refusal as its 4xx, a timeout as 408, a bug in this
        server as a 500 (and its traceback on stderr), never an empty reply."""
        try:
            action()
        except serve_input.Refused as exc:
            self._refuse(exc)
        except TimeoutError:
            self._refuse(serve_input.Refused(408, "timeout", "the request stopped arriving"))
        except ConnectionError:
            self.close_connection = True
        except Exception as exc:
            traceback.print_exc(file=sys.stderr)
            failure = f"the server failed on this request ({type(exc).__name__}: {exc})"
            self._refuse(serve_input.Refused(500, "server_error", failure))

    def _capture(self, headers: dict[str, str], raw: bytes, parsed: Any) -> None:
        """Keep this request for `GET /_toolcall/requests` (`capture.received` says how much)."""
        self.state.catalogue.capture(received(self.path, headers, raw, parsed))

    def _hold(self, cost: int) -> None:
        """Hold `cost` of the memory budget for this request, in place of what it held."""
        self._held = self.state.memory.hold(self._held, cost)

    def _refuse(self, refusal: serve_input.Refused) -> None:
        if self._replied:  # too late for a status: end the stream short instead
            self.close_connection = True
            return
        self._json(refusal.status, error_body(refusal.kind, refusal.message))

    def _get(self) -> None:
        suite = self.state.catalogue.suite
        if urlsplit(self.path).path == CAPTURE_PATH:
            received = self.state.catalogue.requests()
            self._json(200, {"requests": [r.to_json() for r in received]})
            return
        if suite is not None and urlsplit(self.path).path.rstrip("/").endswith("/models"):
            models = [{"id": p.model, "object": "model"} for p in suite.providers.values()]
            self._json(200, {"object": "list", "data": models})
            return
        self._json(404, error_body("not_found", "only POST …/chat/completions is served"))

    def _delete(self) -> None:
        if urlsplit(self.path).path == CAPTURE_PATH:
            self._json(200, {"cleared": self.state.catalogue.clear_requests()})
            return
        self._json(404, error_body("not_found", f"only DELETE {CAPTURE_PATH} is served"))

    def _post(self) -> None:
        url = urlsplit(self.path)
        wire = wire_of(url.path)
        chosen = self._chat_route(url.path) if wire in (None, CHAT) else None
        headers = masked(dict(self.headers.items()))
        request = self._read_request(headers)
        fault = fault_asked(url, chosen, headers, request)
        if fault in BY_NAME:
            self._post_fault(BY_NAME[fault], wire or CHAT, url, request)
        elif wire is not None and wire != CHAT:
            if fault is not None:
                raise serve_input.invalid(
                    f"the faults {', '.join(FAULTS)} are served on chat completions only, "
                    f"not on the {wire} wire: {fault!r}"
                )
            self._post_wire(url, wire, headers, request)
        else:
            assert chosen is not None  # a chat completions path, or refused by _chat_route
            self._post_chat(chosen, fault, headers, request)

    @staticmethod
    def _chat_route(path: str) -> Route:
        """What a chat completions path chooses; a `Refused` 404 for any other path."""
        try:
            chosen = route(path)
        except BadRoute as exc:
            raise serve_input.Refused(404, "not_found", str(exc)) from None
        if chosen is None:
            raise serve_input.Refused(
                404, "not_found", "only POST …/chat/completions and the wires' paths are served"
            )
        return chosen

    def _read_request(self, headers: dict[str, str]) -> dict[str, Any]:
        """The body read within the limits, captured, and checked to be a JSON object."""
        raw = self._read_body()
        self._hold(serve_input.read_cost(raw))
        try:
            request = serve_input.request_object(raw)
        except serve_input.Refused:
            # Captured all the same (a JSON array is kept as the array): what arrived is news.
            small = len(raw) <= CAPTURED_BODY_BYTES
            self._capture(headers, raw, parsed_or_none(raw) if small else None)
            raise
        self._capture(headers, raw, request if raw else None)
        return request

    def _post_chat(
        self, chosen: Route, fault: str | None, headers: Mapping[str, str], request: Any
    ) -> None:
        """Answer a chat completions POST from the cassettes, with a transport fault if asked."""
        if fault == "429":
            self._json(
                429, error_body("rate_limit_exceeded", "simulated rate limit"), {"Retry-After": "1"}
            )
            return
        if fault == "500":
            self._json(500, error_body("server_error", "simulated server error"))
            return
        if request.get("stream") is not True:
            raise serve_input.invalid("only streamed requests are served")
        provider = chosen.provider or headers.get("x-toolcall-provider")
        try:
            body = self.state.catalogue.body_for(
                provider,
                request,
                scenario=chosen.scenario or headers.get("x-toolcall-scenario"),
                token=headers.get("x-toolcall-body"),
            )
        except NoCassette as exc:
            self._json(404, error_body("not_found", str(exc)))
            return
        default_ms = DEFAULT_DRIP_MS if fault == "drip" else 0
        delay = serve_input.delay_seconds(headers.get("x-toolcall-delay-ms"), default_ms)
        self._stream(flushes(CHAT, body), fault=fault, delay=delay)

    def _post_wire(
        self, url: SplitResult, wire: str, headers: Mapping[str, str], request: Any
    ) -> None:
        """Answer one POST on another wire than chat (its body already read and checked): the
        registered body or the recording streamed, or a `Refused` naming the problem."""
        problem = wire_request_problem(wire, url, request)
        if problem is not None:
            raise serve_input.invalid(problem)
        catalogue = self.state.catalogue
        token = headers.get("x-toolcall-body")
        framing = ""
        try:
            if token:
                body = catalogue.registered_body(token, wire)
            else:
                scenario = headers.get("x-toolcall-scenario")
                asked = framing_asked(wire, url)
                recording = catalogue.recording_for(wire, provider_of(url.path), scenario, asked)
                body, framing = recording.body(), recording.framing
        except NoCassette as exc:
            raise serve_input.Refused(404, "not_found", str(exc)) from None
        if wire == "gemini" and unstreamed_gemini(url.path):
            self._json(200, render.gemini_whole(objects(wire, body, framing)))
            return
        content_type = "application/json" if framing else WIRE_PATHS[wire].content_type
        pieces = flushes(wire, body, framing)
        self._stream(pieces, fault=None, delay=0.0, wire=wire, content_type=content_type)

    def _post_fault(self, fault: Fault, wire: str, url: SplitResult, request: Any) -> None:
        """Answer with a fault mode: the request's plain answer transformed on its wire,
        streamed or, to a request with `stream: false`, whole."""
        if wire not in fault.transforms:
            served = ", ".join(fault.transforms)
            raise serve_input.invalid(
                f"the fault {fault.name!r} is not served on the {wire} wire ({fault.cannot[wire]});"
                f" it is served on {served}"
            )
        problem = wire_request_problem(wire, url, request) if wire == "gemini" else None
        if problem is not None:
            raise serve_input.invalid(problem)
        drawn = plain.plan(wire, request)
        if _unstreamed(wire, url, request):
            self._json(200, fault.answer(wire, drawn))
            return
        framing = framing_asked(wire, url)
        pieces = render.frame(wire, fault.stream(wire, drawn), framing)
        content_type = "application/json" if framing else WIRE_PATHS[wire].content_type
        self._stream(pieces, fault=None, delay=0.0, wire=wire, content_type=content_type)

    def _read_body(self) -> bytes:
        """The whole body, framed by Content-Length or chunked, within MAX_BODY_BYTES."""
        encodings = [e.strip().lower() for e in self.headers.get_all("Transfer-Encoding") or []]
        lengths = self.headers.get_all("Content-Length") or []
        if encodings and lengths:
            raise serve_input.Refused(
                400,
                "invalid_request_error",
                "both Transfer-Encoding and Content-Length: send one",
            )
        if encodings:
            if encodings != ["chunked"]:
                raise serve_input.Refused(
                    400,
                    "invalid_request_error",
                    f"Transfer-Encoding {', '.join(encodings)!r} is not served; "
                    "send Content-Length or chunked",
                )
            self._hold(serve_input.COST_PER_BYTE * serve_input.MAX_BODY_BYTES)
            raw = serve_input.read_chunked(self.rfile)
        else:
            length = serve_input.content_length(lengths)
            self._hold(serve_input.COST_PER_BYTE * length)
            raw = self.rfile.read(length)
            if len(raw) < length:
                raise serve_input.Refused(
                    400, "invalid_request_error", f"the body ended after {len(raw)} bytes"
                )
        self._body_pending = False
        return raw

    def _stream(
        self,
        pieces: list[bytes],
        *,
        fault: str | None,
        delay: float,
        wire: str = CHAT,
        content_type: str = "",
    ) -> None:
        self.send_response(200)
        content_type = content_type or WIRE_PATHS[wire].content_type
        self.send_header("Content-Type", f"{content_type}; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        stop = len(pieces) // 2 if fault == "cut" else len(pieces)
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

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _json(
        self,
        status: int,
        document: Any,
        headers: Mapping[str, str] | None = None,
        *,
        close: bool = False,
    ) -> None:
        """Send `document` as strict JSON (a `NaN` here is a bug, answered as one: a 500); close
        the connection when the request's body was not read, or it would be read as the next
        request."""
        data = json.dumps(document, allow_nan=False).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if close or self._body_pending:
            self.send_header("Connection", "close")  # http.server then closes after the reply
        self.end_headers()
        self.wfile.write(data)


def _unstreamed(wire: str, url: SplitResult, request: Any) -> bool:
    """Whether a request asks for a whole answer: Gemini's `:generateContent` path, or
    `stream` not true (Ollama streams unless told not to)."""
    if wire == "gemini":
        return unstreamed_gemini(url.path)
    return request.get("stream", wire == "ollama") is not True


def fault_asked(
    url: SplitResult, chosen: Route | None, headers: Mapping[str, str], request: Any
) -> str | None:
    """The fault a request asks for: in the path, a header, the query or the model's name (a
    `fault:NAME` model, Gemini's in the path); refused when no mode has that name."""
    query = {k: v[-1] for k, v in parse_qs(url.query).items()}
    model = request.get("model") if isinstance(request, dict) else None
    methods = (GEMINI_METHOD, GEMINI_UNSTREAMED)
    in_path = [unquote(s) for s in url.path.split("/") if s.endswith(methods)]
    if in_path:
        model = in_path[-1].rsplit(":", 1)[0]
    fault = (
        (chosen.fault if chosen else None)
        or headers.get("x-toolcall-fault")
        or query.get("fault")
        or plain.fault_of_model(model)
    )
    if fault is not None and fault not in FAULTS and fault not in BY_NAME:
        raise serve_input.invalid(
            f"unknown fault {fault!r}; known: the stream faults {', '.join(BY_NAME)} (on the "
            "wires `toolcall serve --faults` lists) and, on chat completions only, "
            + ", ".join(FAULTS)
        )
    return fault
