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

The other wires are answered at the path their provider serves (`WIRE_PATHS`, the one table of
them), since that is where their SDKs post:

- `POST /v1/responses` (or `/responses`, as DeepSeek's base URL puts it): the Responses API;
- `POST /v1/messages`: Anthropic's Messages API;
- `POST /v1beta/models/{model}:streamGenerateContent?alt=sse`: Gemini's own API, as an event
  stream; without `alt=sse` (or with `alt=json`) Gemini answers one JSON array instead, so that
  request is answered by a recording of that framing, and each framing only by its own;
- `POST /api/chat`: Ollama's, newline-delimited JSON (`application/x-ndjson`).

There the recording is the one `X-Toolcall-Scenario: wires/<wire>/<name>` names, else the first
one the provider of a path prefix (`/<provider>/v1/responses`, a provider or `wire_only` key of
providers.yaml) offers on that wire. Faults are served on chat completions only: a keep-alive
comment or a cut mid-event means something else on each wire, and no recording shows one yet.

The matrix also registers bodies of its own (a truncated variant, say) and hands the client a
token for them (`X-Toolcall-Body`), so an HTTP client is judged on exactly the bytes the in-process
implementations get; a body is registered for one wire and served at that wire's path only, so a
client that calls another endpoint is told so. This is the one way a recorded body reaches a
client that is not handed it in memory: every SDK and program of the matrix fetches it here.
Every body is written one event per write (one line for Ollama), as a provider flushes them.

The server keeps the last `CAPTURED` POSTs it received (method, path, headers with credentials
masked, parsed body), in process (`Running.requests()`) and over HTTP (`GET /_toolcall/requests`;
`DELETE` empties it), so a test can compare what a gateway forwarded with the scenario's request.
A body over `CAPTURED_BODY_BYTES` is kept as its size only: memory stays bounded whatever arrives;
so is one nested deeper than `CAPTURED_DEPTH`, which the capture could not be sent back as. A
body JSON cannot carry back (`NaN`, `Infinity`, `1e400`, which Python reads as floats) is kept as
its text: what `GET /_toolcall/requests` sends is strict JSON.

It is a server on the user's machine that clients broken on purpose talk to, so it holds
itself to limits (the checks on input are in `serve_input`):

- it reads nothing it was not asked for: a recording name is looked up among the recordings
  that exist, never joined to a path, and an unknown name gets the same 404 whether or not
  some file of that name exists elsewhere;
- it answers only the host names it was started for (the loopback names, `--host`, and
  `--allow-host`), with 421 otherwise: a web page that resolves its own name to 127.0.0.1
  (DNS rebinding) still sends its own name;
- every malformed request gets a 4xx in the OpenAI error shape before any 200: a body that is
  not a JSON object or is nested past the decoder, a bad `Content-Length` or one over 16 MiB
  (413, refused before reading), a bad `X-Toolcall-Delay-Ms`; a bug here is a 500, never an
  empty reply. A refusal sent before the body was read closes the connection, or the body
  would be read as the next request. Every reply has a status line, whatever the request
  line: one that is not `METHOD target HTTP/1.x` (`GARBAGE`, HTTP/0.9's `GET /`) is a 400,
  `HTTP/2.0` (a client with `--http2-prior-knowledge`) a 505; up to `BLANK_LINES` empty lines
  before a request line are ignored, between kept-alive requests too (RFC 9112, section 2.2);
- the requests being served hold at most `serve_input.MEMORY_BUDGET` together, counting what
  reading each body as JSON takes (bounded from its counts of commas, colons and brackets
  before it is read): a body that could never fit gets a 413, one that does not fit now a 503;
- a connection silent for `IDLE_TIMEOUT` is closed, at most `MAX_HANDLERS` are served at once
  (one more gets a 503 from the accept loop, which never blocks), and the listen backlog is
  `LISTEN_BACKLOG`, so a burst of clients queues instead of being reset.

The idle timeout is per read, not a deadline for the whole request: a client sending one
header byte every few seconds keeps its thread, but only one of `MAX_HANDLERS`; a deadline
would need a selector loop of our own. Everything here is the standard library's `http.server`:
a test tool must not need more than the suite it serves, and these limits fit in a few
overrides of it.
"""

from __future__ import annotations

import json
import math
import secrets as random_tokens
import socket
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import SplitResult, parse_qs, quote, unquote, urlsplit

from . import background, cassettes, recordings, serve_input
from .cassettes import CHAT, WIRES
from .profiles import Suite
from .recordings import Recording
from .wires import WIRE_PATHS, flushes

FAULTS = ("cut", "429", "500", "drip", "keepalive")
DEFAULT_DRIP_MS = 50
FAULT_SEGMENT = "fault"
CAPTURE_PATH = "/_toolcall/requests"
IDLE_TIMEOUT = 30.0  # seconds a connection may stay silent, between requests or within one
MAX_HANDLERS = 256  # connections served at once; a thread each
LISTEN_BACKLOG = 1024  # the kernel caps it at net.core.somaxconn
CAPTURED = 64
CAPTURED_BODY_BYTES = 256 * 1024  # 64 of them: 16 MiB at most
# Deeper than any request a client sends (a few levels of messages, tools and schemas), and far
# from the recursion limit that encoding the capture for `GET /_toolcall/requests` runs into.
CAPTURED_DEPTH = 100
#: Empty lines ignored before a request line (RFC 9112, section 2.2, asks for at least one).
BLANK_LINES = 8
# Masked in captured headers: a gateway forwards the client's key, and captures are printed.
SECRET_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "cookie", "x-api-key", "api-key", "x-goog-api-key"}
)


class NoCassette(LookupError):
    """No cassette or recording answers this request; the message says what is known."""


#: First segments that are an API root, not a provider's name.
_API_ROOTS = ("v1", "v1beta", "api", "responses")


def wire_of(path: str) -> str | None:
    """The wire a request path is for, or None for a path that is no wire's."""
    segments = [unquote(s) for s in path.split("/") if s]
    return next((wire for wire, at in WIRE_PATHS.items() if at.matches(segments)), None)


def provider_of(path: str) -> str | None:
    """The provider a path prefix names on another wire (`/<provider>/v1/messages`), if any."""
    segments = [s for s in path.split("/") if s]
    return segments[0] if len(segments) > 1 and segments[0] not in _API_ROOTS else None


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
    if not WIRE_PATHS[CHAT].matches(segments):
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
    if len(rest) == 1 and rest[0] not in (recordings.PUBLISHED, FAULT_SEGMENT):
        return Route(provider, rest[0], fault)
    if len(rest) == 2 and rest[0] == recordings.PUBLISHED:
        return Route(provider, f"{recordings.PUBLISHED}/{rest[1]}", fault)
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
class Catalogue:
    """Which body answers which request: the cassettes, plus bodies registered at run time."""

    suite: Suite | None
    registered: dict[str, tuple[str, bytes]] = field(default_factory=dict)
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

    def register(self, body: bytes, wire: str = CHAT) -> str:
        """Serve `body` at `wire`'s path to any request carrying the returned token in
        `X-Toolcall-Body`."""
        token = random_tokens.token_hex(8)
        with self.lock:
            self.registered[token] = (wire, body)
        return token

    def registered_body(self, token: str, wire: str) -> bytes:
        """The body registered under `token`, asked for at `wire`'s path."""
        with self.lock:
            found = self.registered.get(token)
        if found is None:
            raise NoCassette(f"no registered body under X-Toolcall-Body {token!r}")
        if found[0] != wire:
            ending = "/".join(WIRE_PATHS[found[0]].ending)
            raise NoCassette(
                f"the body under X-Toolcall-Body {token!r} is of the {found[0]} wire, served at "
                f"…/{ending}, not at this {wire} path"
            )
        return found[1]

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
            return self.registered_body(token, CHAT)
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
        if scenario.startswith(recordings.PUBLISHED + "/"):
            stem = scenario.removeprefix(recordings.PUBLISHED + "/")
            known = self._published(self.suite, provider)
            if stem not in known:  # the name is looked up, never joined to a path
                raise NoCassette(
                    f"no published recording {stem!r} for {provider}; known: {sorted(known)}"
                )
            path = known[stem]
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
    def _published(suite: Suite, provider: str) -> dict[str, Path]:
        """The provider's published recordings by name: the only names a request may use."""
        folder = suite.cassettes / provider / recordings.PUBLISHED
        return {path.name.removesuffix(".yaml"): path for path in folder.glob("*.yaml")}

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
            "or name it in the path (/<provider>/<scenario>/v1) or in X-Toolcall-Scenario "
            f"(known: {sorted(suite.scenarios)})"
        )

    def recording_for(
        self, wire: str, provider: str | None, scenario: str | None, framing: str = ""
    ) -> Recording:
        """The recording a request on another wire than chat asks for, by name or by its
        path's provider, in the `framing` it asks for (`recordings.Recording.framing`)."""
        if self.suite is None:
            raise NoCassette("this server only serves registered bodies (X-Toolcall-Body)")
        suite = self.suite
        offers = [o for o in suite.wire_offers if o.wire == wire]
        by_name = {r.name: r for r in recordings.discover(suite.cassettes, wire=wire)}
        known = sorted(f"{WIRES}/{wire}/{name}" for name in by_name)
        if provider is not None and provider not in {o.provider for o in suite.wire_offers}:
            providers = sorted({o.provider for o in suite.wire_offers})
            raise NoCassette(f"unknown provider {provider!r}; the wires are offered by {providers}")
        if scenario:
            name = scenario.removeprefix(f"{WIRES}/{wire}/")
            if not scenario.startswith(f"{WIRES}/{wire}/") or name not in by_name:
                raise NoCassette(f"no {wire} recording {scenario!r} on this path; known: {known}")
            if provider is not None and not any(
                o.provider == provider and name in o.recordings for o in offers
            ):
                raise NoCassette(f"{scenario} is not a recording of {provider}'s {wire} wire")
            found = by_name[name]
            if found.framing != framing:
                asked = "without ?alt=sse" if found.framing else "with ?alt=sse"
                raise NoCassette(f"{scenario} is answered to a request {asked}")
            return found
        if provider is None:
            raise NoCassette(
                f"name the recording in X-Toolcall-Scenario ({known}) or the provider as the "
                "path's first segment (/<provider>/...)"
            )
        names = [n for o in offers if o.provider == provider for n in o.recordings]
        fitting = [n for n in names if n in by_name and by_name[n].framing == framing]
        if not fitting:
            framed = f" as a {framing}" if framing else ""
            raise NoCassette(f"{provider} has no {wire} recording{framed}; known: {known}")
        return by_name[fitting[0]]


def _alt(url: SplitResult) -> str:
    """The `alt` a Gemini request gives (its framing), "" when none."""
    return parse_qs(url.query).get("alt", [""])[-1]


def framing_asked(wire: str, url: SplitResult) -> str:
    """The framing a request asks for when not its wire's usual one: Gemini's JSON array
    without `?alt=sse`, else ""."""
    return recordings.JSON_ARRAY if wire == "gemini" and _alt(url) != "sse" else ""


def wire_request_problem(wire: str, url: SplitResult, request: Any) -> str | None:
    """Why a request on another wire than chat is not a streamed one this server answers."""
    if not isinstance(request, dict):
        return "the body is not a JSON object"
    if wire == "gemini":
        alt = _alt(url)
        if alt not in ("sse", "json", ""):
            return (
                f"?alt={alt} is neither framing of :streamGenerateContent: ?alt=sse (an event "
                "stream) or no alt (a JSON array)"
            )
        return None
    if wire == "ollama":
        return None if request.get("stream", True) is True else "only streamed requests are served"
    return None if request.get("stream") is True else "only streamed requests are served"


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    # What a refusal is framed as until the request line gave its version: http.server's default,
    # HTTP/0.9, would send a body with no status line.
    default_request_version = "HTTP/1.1"
    raw_requestline: bytes
    _replied = False  # a status line went out for the current request
    _body_pending = False  # the current request has a body not read yet
    _held = 0  # what the current request holds of the server's memory budget

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.idle_timeout)  # per read: idle clients let go
        # Headers and a short body go out in two writes; without NODELAY the second waits for
        # the client's delayed ACK (about 40 ms a request on a kept-alive connection).
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.verbose:
            super().log_message(format, *args)

    def handle_one_request(self) -> None:
        self._replied = False
        self._body_pending = False
        try:
            super().handle_one_request()
        finally:
            self._held = self.server.memory.hold(self._held, 0)

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
            serve_input.check_host(hosts, self.path, self.server.allowed_hosts)
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
        self._json(code, _error(kind, text), close=True)

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
        """Keep this request for `GET /_toolcall/requests`: its body only when it is small and
        shallow enough to keep and to send back as JSON, else its size alone."""
        kept = len(raw) <= CAPTURED_BODY_BYTES and _nested_within(parsed, CAPTURED_DEPTH)
        body = parsed if kept else None
        if kept and not _finite(parsed):
            body = raw.decode("utf-8", "replace")
        self.server.catalogue.capture(Received("POST", self.path, headers, body, len(raw)))

    def _hold(self, cost: int) -> None:
        """Hold `cost` of the memory budget for this request, in place of what it held."""
        self._held = self.server.memory.hold(self._held, cost)

    def _refuse(self, refusal: serve_input.Refused) -> None:
        if self._replied:  # too late for a status: end the stream short instead
            self.close_connection = True
            return
        self._json(refusal.status, _error(refusal.kind, refusal.message))

    def _get(self) -> None:
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

    def _delete(self) -> None:
        if urlsplit(self.path).path == CAPTURE_PATH:
            self._json(200, {"cleared": self.server.catalogue.clear_requests()})
            return
        self._json(404, _error("not_found", f"only DELETE {CAPTURE_PATH} is served"))

    def _post(self) -> None:
        url = urlsplit(self.path)
        wire = wire_of(url.path)
        chosen = None
        if wire in (None, CHAT):
            try:
                chosen = route(url.path)
            except BadRoute as exc:
                raise serve_input.Refused(404, "not_found", str(exc)) from None
            if chosen is None:
                raise serve_input.Refused(
                    404, "not_found", "only POST …/chat/completions and the wires' paths are served"
                )
        raw = self._read_body()
        self._hold(serve_input.read_cost(raw))
        headers = masked(dict(self.headers.items()))
        try:
            request = serve_input.request_object(raw)
        except serve_input.Refused:
            # Captured all the same (a JSON array is kept as the array): what arrived is news.
            small = len(raw) <= CAPTURED_BODY_BYTES
            self._capture(headers, raw, _parsed_or_none(raw) if small else None)
            raise
        self._capture(headers, raw, request if raw else None)
        if wire is not None and wire != CHAT:
            self._post_wire(url, wire, headers, request)
            return
        assert chosen is not None  # a chat completions path, or refused above
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
        default_ms = DEFAULT_DRIP_MS if fault == "drip" else 0
        delay = serve_input.delay_seconds(headers.get("x-toolcall-delay-ms"), default_ms)
        self._stream(flushes(CHAT, body), fault=fault, delay=delay)

    def _post_wire(
        self, url: SplitResult, wire: str, headers: Mapping[str, str], request: Any
    ) -> None:
        """Answer one POST on another wire than chat (its body already read and checked): the
        registered body or the recording streamed, or a `Refused` naming the problem."""
        if headers.get("x-toolcall-fault"):
            raise serve_input.invalid("faults are served on chat completions only")
        problem = wire_request_problem(wire, url, request)
        if problem is not None:
            raise serve_input.invalid(problem)
        catalogue = self.server.catalogue
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
        content_type = "application/json" if framing else WIRE_PATHS[wire].content_type
        pieces = flushes(wire, body, framing)
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


class _Server(ThreadingHTTPServer):
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
        super().__init__(address, _Handler)
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
            _error("server_error", "this server is serving as many connections as it allows")
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

    def url(self, provider: str, scenario: str | None = None, *, fault: str | None = None) -> str:
        """The base URL an OpenAI-compatible client is given for `provider`; with `scenario`
        (or `published/<recording>`) and `fault` chosen in the path, for clients behind a
        gateway that drops the `X-Toolcall-*` headers."""
        chosen = [provider, *([scenario] if scenario else []), *(["fault", fault] if fault else [])]
        return f"{self.base_url}/{'/'.join(quote(part, safe='/') for part in chosen)}/v1"


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
    `allowed_hosts`. Binding fails with `OSError` (a port in use: `errno.EADDRINUSE`).
    """
    names = serve_input.LOOPBACK_NAMES | {host.lower(), *(n.lower() for n in allowed_hosts)}
    server = _Server(
        (host, port),
        Catalogue(suite),
        verbose=verbose,
        allowed_hosts=frozenset(names),
        idle_timeout=idle_timeout,
        max_handlers=max_handlers,
    )
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


def _parsed_or_none(raw: bytes) -> Any:
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


def _error(kind: str, message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "code": kind}}
