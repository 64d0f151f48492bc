"""Every stream through every gateway: start serve and the gateway, send, judge, stop.

`toolcall serve` runs in this process on 127.0.0.1; each gateway runs as a child in front of it.
For each stream the client sends the request the scenario describes (with httpx, as an
application would), reads the whole answer under a time bound, and the judge compares what came
back with the cassette's own bytes and what `serve` received with what was sent. Nothing here
raises for a gateway's behaviour: a gateway that will not install or start is `unavailable` with
the reason, a stream it breaks is a finding in the table.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from .. import serving
from ..peers import Implementation, Unavailable
from ..reading import wires
from ..suite import cassettes, recordings
from ..suite.profiles import Cell, Provider, Suite
from . import judge, process
from .clients import Answer, Verdict, answer, reference
from .clients import judge as judge_client
from .clients import judge_fault as judge_client_fault
from .known import Gateway, Launch, Route, child_environment

FAULTS = ("cut", "429", "500")
#: How a stream answered with status 200 and no body starts its error.
EMPTY_200 = "empty 200"
#: The scenario whose request carries a fault (every provider has it).
FAULT_SCENARIO = "single_call"
#: The scenario whose request a published recording is sent with (it publishes none of its own).
PUBLISHED_SCENARIO = "single_call"
#: The wire the gateways carry: each is checked as a chat-completions gateway (the client posts to
#: `/chat/completions`), so only chat recordings are sent through it; another wire's recording
#: would be posted as a chat request and judged as a chat answer, and its provider may have no
#: chat profile at all.
WIRE = cassettes.CHAT


@dataclass(frozen=True)
class Case:
    """One stream to send: which cassette (`target`: a scenario or `published/<stem>`), with
    which fault, the request the client sends, and the bytes serve answers with directly."""

    provider: str
    target: str
    fault: str | None
    request: dict[str, Any]
    direct: bytes

    @property
    def kind(self) -> str:
        if self.fault:
            return "fault"
        return "published" if self.target.startswith(recordings.PUBLISHED + "/") else "cell"

    @property
    def column(self) -> str:
        """The table column: the scenario, `published`, or the fault."""
        if self.fault:
            return self.fault
        return recordings.PUBLISHED if self.kind == "published" else self.target

    @property
    def route(self) -> Route:
        alias = re.sub(r"[^A-Za-z0-9_.-]", "-", f"{self.provider}.{self.target}.{self.fault}")
        path = route_path(self.provider, self.target, self.fault)
        return Route(alias, path, str(self.request.get("model", "")))


@dataclass
class StreamResult:
    gateway: str
    case: Case
    status: int | None
    seconds: float
    request: judge.RequestVerdict | None = None
    turn: list[str] = field(default_factory=list)
    wire: list[str] = field(default_factory=list)
    fault: str | None = None
    error: str | None = None
    usage: judge.Usage | None = None
    #: what each HTTP client did differently through the gateway (failures and notes)
    clients: list[Verdict] = field(default_factory=list)
    #: why the clients were not run on this stream (the gateway never ended the exchange)
    clients_skipped: str | None = None

    @property
    def client_failures(self) -> list[Verdict]:
        return [v for v in self.clients if v.failed]

    @property
    def passed(self) -> bool:
        if self.error or self.client_failures:
            return False
        if self.case.fault:
            return self.fault is None
        intact = self.request is None or self.request.intact
        usage = self.usage is None or not self.usage.failed
        return not self.turn and intact and usage


@dataclass
class GatewayRun:
    name: str
    version: str
    #: how clients reach the upstream through it (which provider setting, which headers)
    how: str = ""
    unavailable: str | None = None
    #: providers this gateway cannot route the way it is checked here, with why
    skipped: dict[str, str] = field(default_factory=dict)
    results: list[StreamResult] = field(default_factory=list)
    #: the HTTP clients run through it, and the ones that could not run here with why
    clients: list[str] = field(default_factory=list)
    clients_unavailable: dict[str, str] = field(default_factory=dict)


@dataclass
class Clients:
    """The HTTP clients to run through each gateway, and their answers straight from serve,
    kept across gateways (they do not depend on the gateway)."""

    available: list[Implementation] = field(default_factory=list)
    unavailable: dict[str, str] = field(default_factory=dict)
    direct: dict[tuple[str, str, str, str | None], Answer] = field(default_factory=dict)


def cases(suite: Suite, *, provider: str | None = None, scenario: str | None = None) -> list[Case]:
    """Every applicable cell, every published recording of the gateways' wire and every fault,
    in suite order."""
    out: list[Case] = []
    for p, _s, cell in suite.cells(provider, scenario):
        if cell.not_applicable:
            continue
        body = _body(cassettes.cassette_path(suite.cassettes, p.key, cell.scenario))
        out.append(Case(p.key, cell.scenario, None, client_request(suite, p, cell), body))
    if scenario is None:
        for recording in recordings.discover(suite.cassettes, provider, wire=WIRE):
            chosen = suite.providers[recording.provider]
            request = client_request(suite, chosen, chosen.cells[PUBLISHED_SCENARIO])
            target = f"{recordings.PUBLISHED}/{recording.name}"
            out.append(Case(recording.provider, target, None, request, _body(recording.path)))
        for p, _s, cell in suite.cells(provider, FAULT_SCENARIO):
            if cell.not_applicable:
                continue
            request = client_request(suite, p, cell)
            body = _body(cassettes.cassette_path(suite.cassettes, p.key, cell.scenario))
            for fault in FAULTS:
                out.append(Case(p.key, cell.scenario, fault, request, body))
    return out


def client_request(suite: Suite, provider: Provider, cell: Cell) -> dict[str, Any]:
    """The cell's request as an application that bills by usage sends it: with
    `stream_options.include_usage` wherever the provider streams usage (its `usage` quirk is
    not `none`), since LiteLLM hides usage from a client that did not ask."""
    request = suite.request_body(provider, cell)
    if cell.quirks.get("usage", "none") != "none" and not judge.asks_usage(request):
        options = request.get("stream_options")
        kept = dict(options) if isinstance(options, dict) else {}
        request["stream_options"] = {**kept, "include_usage": True}
    return request


def route_path(provider: str, target: str, fault: str | None) -> str:
    """The base path (ending in `/v1`) on serve that answers with `target` (a scenario or
    `published/<stem>`), faulted or not: `serve`'s path routing, since gateways drop headers."""
    middle = f"/{serving.FAULT_SEGMENT}/{fault}" if fault else ""
    return f"/{provider}/{target}{middle}/v1"


def _before_cut(body: bytes) -> bytes:
    """What serve sends of `body` before its `cut` drops the connection: the first half of
    the events (`wires.flushes`, as serve cuts them)."""
    pieces = wires.flushes(WIRE, body)
    return b"".join(pieces[: len(pieces) // 2])


def _body(path: Path) -> bytes:
    return cassettes.response_body(cassettes.load(path))


def run_gateway(
    gateway: Gateway,
    running: serving.Running,
    todo: Sequence[Case],
    root: Path,
    *,
    say: Callable[[str], None] = print,
    bound: float = judge.FAULT_BOUND,
    clients: Clients | None = None,
) -> GatewayRun:
    """Install (first use), start, stream every case through, stop; never raises for the
    gateway's sake."""
    clients = clients or Clients()
    outcome = GatewayRun(gateway.name, gateway.version, gateway.how)
    outcome.clients = [c.name for c in clients.available]
    outcome.clients_unavailable = dict(clients.unavailable)
    for provider in dict.fromkeys(c.provider for c in todo):
        reason = gateway.cannot_route(provider)
        if reason is not None:
            outcome.skipped[provider] = reason
    todo = [c for c in todo if c.provider not in outcome.skipped]
    try:
        home = gateway.install(root)
    except Unavailable as exc:
        outcome.unavailable = str(exc)
        return outcome
    port = process.free_port()
    launch = gateway.launch(home, port, running.base_url, [c.route for c in todo])
    try:
        with _started(launch, root / ".gateways" / f"{gateway.name}.log"):
            say(f"{gateway.name} {gateway.version}: {len(todo)} streams")
            for number, case in enumerate(todo, 1):
                result = stream(gateway, launch, running, case, bound=bound, clients=clients)
                outcome.results.append(result)
                mark = "ok" if result.passed else "FAIL"
                say(f"  [{number}/{len(todo)}] {case.provider}/{case.column}: {mark}")
    except process.DidNotStart as exc:
        outcome.unavailable = f"did not start: {exc}"
    return outcome


@contextmanager
def _started(launch: Launch, log: Path) -> Iterator[None]:
    """The gateway's process group running, or nothing to start for a gateway given by URL."""
    if launch.command is None:
        yield
        return
    with process.running(
        launch.command, launch.port, log=log, env=child_environment(launch.env), cwd=launch.cwd
    ):
        yield


def stream(
    gateway: Gateway,
    launch: Launch,
    running: serving.Running,
    case: Case,
    *,
    bound: float = judge.FAULT_BOUND,
    clients: Clients | None = None,
) -> StreamResult:
    """Send one case through the gateway and judge what came back and what serve received,
    then what each HTTP client made of it, faults included."""
    target = gateway.target(launch, running.base_url, case.route)
    request = {**case.request, "model": target.model}
    running.server.catalogue.clear_requests()
    exchange = send(target.base_url + "/chat/completions", request, target.headers, bound=bound)
    result = StreamResult(gateway.name, case, exchange.status, exchange.seconds)
    if case.fault:
        before_cut = _before_cut(case.direct) if case.fault == "cut" else b""
        result.fault = judge.judge_fault(case.fault, exchange, before_cut=before_cut, bound=bound)
    elif exchange.timed_out or exchange.transport_error:
        result.error = exchange.transport_error or f"no answer within {bound:g} s"
    elif exchange.status != 200:
        result.error = f"HTTP {exchange.status}: {exchange.body[:160]!r}"
    elif not exchange.body.strip():
        result.error = f"{EMPTY_200}: the gateway answered the stream with nothing"
    else:
        arrived = [r.body for r in running.requests() if r.method == "POST"]
        if arrived and isinstance(arrived[-1], dict):
            result.request = judge.judge_request(case.request, arrived[-1])
        else:
            result.error = "serve received no request"
        result.turn = judge.judge_turn(judge.outcome(case.direct), judge.outcome(exchange.body))
        result.wire = judge.wire_changes(case.direct, exchange.body)
        asked = judge.asks_usage(case.request)
        result.usage = judge.judge_usage(case.direct, exchange.body, asked=asked)
    if clients is None or not clients.available:
        return result
    if exchange.timed_out:
        result.clients_skipped = (
            f"the gateway did not end the exchange within {bound:g} s; a client without a "
            "read timeout waits as long"
        )
        return result
    _clients(result, clients, running, target.base_url, target.headers, request)
    return result


def _clients(
    result: StreamResult,
    clients: Clients,
    running: serving.Running,
    base_url: str,
    headers: dict[str, str],
    request: dict[str, Any],
) -> None:
    """Each client straight from serve (once per stream, kept) and through the gateway: a
    normal stream held against this library's turn for the same bytes, a fault against the
    error it must raise or report. A cut that comes after the finish (Gemini and Grok send a
    whole call and its finish in the first event) leaves a whole turn to pass on, so there a
    client that stays silent through the gateway is held against itself on the stream not cut
    (and one that raises, against itself on the cut)."""
    case = result.case
    right = reference(judge.outcome(case.direct), case.direct)
    whole = case.fault == "cut" and judge.outcome(_before_cut(case.direct)).finished
    for client in clients.available:
        through = answer(client, base_url, headers, request, case.direct)
        if case.fault and not (whole and not through.loud):
            direct = _direct(clients, client, running, case, case.fault)
            verdict = judge_client_fault(client.name, direct, through)
        else:
            direct = _direct(clients, client, running, case, None)
            verdict = judge_client(client.name, right, direct, through)
        if verdict is not None:
            result.clients.append(verdict)


def _direct(
    clients: Clients,
    client: Implementation,
    running: serving.Running,
    case: Case,
    fault: str | None,
) -> Answer:
    """The client's answer straight from serve on the case's stream with `fault`, asked once."""
    key = (client.name, case.provider, case.target, fault)
    if key not in clients.direct:
        url = running.base_url + route_path(case.provider, case.target, fault)
        clients.direct[key] = answer(client, url, {}, case.request, case.direct)
    return clients.direct[key]


def send(
    url: str, request: dict[str, Any], headers: dict[str, str], *, bound: float
) -> judge.Exchange:
    """POST the request and read the whole answer; a read that stalls past `bound` seconds, or
    an answer that takes longer in all, counts as a hang."""
    started = time.monotonic()
    timeout = httpx.Timeout(bound, connect=5.0)
    pieces: list[bytes] = []
    status: int | None = None
    try:
        with (
            httpx.Client(timeout=timeout, trust_env=False) as client,
            client.stream("POST", url, json=request, headers=headers) as response,
        ):
            status = response.status_code
            for piece in response.iter_bytes():
                pieces.append(piece)
                if time.monotonic() - started > bound:
                    return judge.Exchange(status, b"".join(pieces), bound, timed_out=True)
    except httpx.TimeoutException:
        return judge.Exchange(status, b"".join(pieces), time.monotonic() - started, timed_out=True)
    except httpx.HTTPError as exc:
        seconds = time.monotonic() - started
        reason = f"{type(exc).__name__}: {exc}"
        return judge.Exchange(status, b"".join(pieces), seconds, transport_error=reason)
    return judge.Exchange(status, b"".join(pieces), time.monotonic() - started)
