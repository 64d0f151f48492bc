"""The probe's HTTP: one request at a time to the endpoint, within a budget of requests and of
seconds, each with a timeout and a size cap, and a progress line for each on standard error.

The key is sent in the wire's own header and nowhere else: it is masked (`scrub.printable`) in
every line this module prints or raises, with the other keys of the environment. What cannot
be run is a `CannotRun` (exit 2): a URL that is not http(s), a host that does not answer, a key
refused, a streamed request answered by something that is not a stream. A request the server
refuses (a 4xx for one scenario) is kept as that scenario's answer; the judges say so.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TextIO
from urllib.parse import quote, urlsplit, urlunsplit

import httpx

from ..reading.wires import WIRES
from ..recording import scrub

#: A body may have this many bytes at most (a scenario's answer is a few kilobytes).
MAX_BYTES = 16 * 1024 * 1024
ANTHROPIC_VERSION = "2023-06-01"


class CannotRun(Exception):
    """The probe cannot go on; the message is one line, with no key in it (exit 2)."""


class BudgetSpent(Exception):
    """The budget of requests or of seconds is used up; the message says which."""


@dataclass(frozen=True)
class Endpoint:
    """Where the probe sends: the base URL as the wire's SDK takes it (chat and Responses: with
    `/v1`; Anthropic, Gemini and Ollama: the host's root), the wire and the model."""

    base_url: str
    wire: str
    model: str
    key: str | None = None
    #: every secret to mask in what is printed: the key and the other keys of the environment
    secrets: tuple[str, ...] = ()

    def url(self, *, streamed: bool) -> str:
        """The request URL: the wire's path of the wire table under the base URL, from its API
        root on when the base URL ends with that root (`/v1` as the OpenAI SDK takes it), else
        whole (`/v1/messages` under the root Anthropic's SDK takes); a query the base URL
        carries (`?api-version=`) stays after the path."""
        parts = urlsplit(self.base_url)
        query = [parts.query] if parts.query else []
        row = WIRES[self.wire].path
        verb = "streamGenerateContent" if streamed else "generateContent"
        ending = [verb.join(s.split("streamGenerateContent")) for s in row.ending]
        ending = [
            f"{quote(self.model, safe='')}{s[1:]}" if s.startswith("*") else s for s in ending
        ]
        root = [s for s in row.root.split("/") if s]
        if root and ending[: len(root)] == root:
            ending = ending[len(root) :]  # the ending starts with the root (Anthropic's /v1)
        base = parts.path.rstrip("/")
        if not root or not base.endswith("/" + "/".join(root)):
            base += row.root
        if self.wire == "gemini" and streamed:
            query.append("alt=sse")
        path = base + "/" + "/".join(ending)
        return urlunsplit(parts._replace(path=path, query="&".join(query), fragment=""))

    @property
    def stream_type(self) -> str:
        """The content type a streamed answer of the wire has (the wire table's)."""
        return WIRES[self.wire].content_type()

    def headers(self, *, streamed: bool) -> dict[str, str]:
        """The wire's headers, the key in the header its API reads it from."""
        accept = "text/event-stream" if streamed and self.wire != "ollama" else "application/json"
        headers = {"Content-Type": "application/json", "Accept": accept}
        if self.wire == "anthropic":
            headers["anthropic-version"] = ANTHROPIC_VERSION
        if not self.key:
            return headers
        named = {"anthropic": "x-api-key", "gemini": "x-goog-api-key"}
        if self.wire in named:
            headers[named[self.wire]] = self.key
        else:
            headers["Authorization"] = f"Bearer {self.key}"
        return headers


@dataclass(frozen=True)
class Exchange:
    """One request and what came back."""

    scenario: str
    streamed: bool
    url: str
    request: dict[str, Any]
    status: int
    content_type: str
    body: bytes
    seconds: float
    #: set when the server refused the request (its status and the start of its answer)
    refused: str | None = None
    #: the request in chat completions' words, as the matrix hands every implementation it
    chat: dict[str, Any] = field(default_factory=dict)


@dataclass
class Budget:
    """What the run may spend: requests and seconds, both said before the first request."""

    requests: int
    seconds: float
    used: int = 0
    started: float = field(default_factory=time.monotonic)

    def take(self) -> float:
        """Count one request; the seconds left, or `BudgetSpent`."""
        left = self.seconds - (time.monotonic() - self.started)
        if self.used >= self.requests:
            raise BudgetSpent(f"the budget of {self.requests} requests is used up")
        if left <= 0:
            raise BudgetSpent(f"the budget of {self.seconds:g} seconds is used up")
        self.used += 1
        return left


@dataclass
class Runner:
    endpoint: Endpoint
    budget: Budget
    timeout: float
    progress: TextIO | None = None
    total: int = 0
    #: one connection pool for the run (a client each would build a TLS context each time)
    client: httpx.Client | None = None

    def __enter__(self) -> Runner:
        limits = httpx.Timeout(self.timeout, connect=min(self.timeout, 15.0))
        # Plain http never uses TLS (and redirects are not followed), so no context is built.
        plain = self.endpoint.base_url.lower().startswith("http://")
        self.client = httpx.Client(timeout=limits, trust_env=False, verify=not plain)
        return self

    def __exit__(self, *_exc: object) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None

    def send(
        self,
        scenario: str,
        request: Mapping[str, Any],
        *,
        streamed: bool,
        chat: Mapping[str, Any] | None = None,
    ) -> Exchange:
        """POST one request; a refusal is kept in the exchange, what makes the run impossible
        is a `CannotRun`, a spent budget `BudgetSpent`."""
        left = self.budget.take()
        mode = "streamed" if streamed else "unstreamed"
        self._say(f"[{self.budget.used}/{self.total}] {self.endpoint.wire} {scenario} {mode} ... ")
        if self.client is None:
            raise RuntimeError("a Runner sends inside `with runner:`")
        try:
            exchange = _post(self.client, self.endpoint, scenario, dict(request), streamed, left)
        except CannotRun:
            self._say("failed\n")  # the line is ended before the reason is printed
            raise
        exchange = replace(exchange, chat=dict(chat or request))
        said = exchange.refused or f"{len(exchange.body)} bytes"
        self._say(f"{said}, {exchange.seconds:.1f} s\n")
        return exchange

    def _say(self, text: str) -> None:
        if self.progress is not None:
            self.progress.write(scrub.printable(text, self.endpoint.secrets, limit=400))
            self.progress.flush()


def _post(
    client: httpx.Client,
    endpoint: Endpoint,
    scenario: str,
    request: dict[str, Any],
    streamed: bool,
    left: float,
) -> Exchange:
    url = endpoint.url(streamed=streamed)
    timeout = float(client.timeout.read or 0)
    deadline = time.monotonic() + min(timeout, left)
    began = time.monotonic()
    content = json.dumps(request, ensure_ascii=False).encode("utf-8")
    headers = endpoint.headers(streamed=streamed)
    try:
        with client.stream("POST", url, content=content, headers=headers) as response:
            body = _read(response, deadline)
            status, kind = response.status_code, response.headers.get("content-type", "")
    except httpx.TimeoutException:
        raise CannotRun(f"{scenario}: no answer within the {timeout:g} s timeout") from None
    except httpx.HTTPError as exc:
        shown = scrub.printable(str(exc).replace(url, scrub.url(url)), endpoint.secrets)
        raise CannotRun(
            f"{scrub.url(url)} cannot be reached ({type(exc).__name__}: {shown})"
        ) from None
    seconds = time.monotonic() - began
    refused = None
    if status in (401, 403):
        raise CannotRun(f"HTTP {status}: the key was refused ({_detail(body, endpoint)})")
    if status != 200:
        refused = f"HTTP {status}: {_detail(body, endpoint)}"
    elif streamed and kind.split(";")[0].strip().lower() != endpoint.stream_type:
        raise CannotRun(
            f"{scenario}: a streamed request was answered with {kind or 'no content type'!r}, "
            f"not a stream ({endpoint.stream_type}); is "
            f"{scrub.url(endpoint.base_url)} a {endpoint.wire} endpoint?"
        )
    return Exchange(scenario, streamed, url, request, status, kind, body, seconds, refused)


def _read(response: httpx.Response, deadline: float) -> bytes:
    pieces, size = [], 0
    for piece in response.iter_bytes():
        size += len(piece)
        if size > MAX_BYTES:
            raise CannotRun(f"an answer passed {MAX_BYTES} bytes; stopped")
        if time.monotonic() > deadline:
            raise CannotRun("an answer did not end within the timeout or the budget's seconds")
        pieces.append(piece)
    return b"".join(pieces)


def _detail(body: bytes, endpoint: Endpoint) -> str:
    text = " ".join(body.decode("utf-8", "replace").split())
    return scrub.printable(text, endpoint.secrets, limit=200) or "(empty body)"
