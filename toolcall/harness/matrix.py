"""Every implementation over every cassette: the implementation x provider x scenario matrix.

Each applicable cassette is replayed once (through vcrpy and httpx, like the conformance suite, so
a stale cassette stops the run instead of being compared), decoded into chunks, and handed to each
implementation in turn. A published recording is judged by the expectation written by hand beside
it; a synthesized cassette has no such witness, so there the reference library's own turn for the
same bytes is the expectation, with the scenario's `expect` schema on top (see `verdict`). A peer
that crashes or answers wrongly is a finding in the table, never an error
of the run. The run itself is broken only when a cassette cannot be replayed or the reference
cannot make the expectation, because then no column can be judged.

The wire recordings (`cassettes/wires/`, see `recordings`) are rows of their own, judged by
their hand-written expectations, with a cell only for the implementations that read the wire
(whose `wires` name it: the reference, each wire's SDK, a program whose handshake names it); the
chat peers have none there, nor the wire SDKs on chat.

The run goes implementation by implementation, so that progress can be told per column and one
broken program costs its own column only: a program that cannot start (or fails its handshake)
is unavailable, said once, and one that times out `CONSECUTIVE_TIMEOUTS` times in a row, cannot
be started again after a crash, or has used up the column's time budget (`COLUMN_BUDGET`, for a
program slow on every stream yet never quite timing out) has the rest of its cells skipped with
the reason.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import toolcall

from . import recordings, streams
from .cassettes import cassette_path
from .checks import conformance_document
from .peers import (
    CHAT,
    Assembled,
    Call,
    Factory,
    Implementation,
    Stream,
    Unavailable,
    builtin,
    reads,
)
from .peers.external import External, StartFailed, TimedOut, parse_spec
from .peers.reference import Reference
from .profiles import DIRECT, Suite
from .replay import ReplayError, no_network, replay, replay_own_request
from .verdict import Expected, Verdict, judge

REFERENCE = Reference.name
#: A case's kind when no recording backs it (a scenario's cassette, a hand-written wire case).
SYNTHESIZED = recordings.SYNTHESIZED

#: Timeouts in a row after which a program's remaining cells are skipped: a silent program then
#: costs a few timeouts, not one per stream.
CONSECUTIVE_TIMEOUTS = 3
#: Seconds one implementation may take over all its streams (the slowest client, the AI SDK run
#: with Node as one long-lived program, takes about 15 s for the whole suite on a loaded machine).
COLUMN_BUDGET = 600.0
SKIPPED = "skipped"


class MatrixError(Exception):
    """The run cannot judge anything: a cassette failed to replay or the reference failed."""


class UnknownImplementation(ValueError):
    """An implementation name that is not known, or an external one that would shadow another."""


@dataclass(frozen=True)
class Case:
    """One stream to assemble: a provider's cassette for a scenario, or its truncated variant."""

    provider: str
    scenario: str
    request: dict[str, Any]
    expected: Expected
    #: The stream as bytes: the cassette's body, or the truncated variant written back as SSE.
    body: bytes
    #: The API the body is in; only the implementations that read it get the case.
    wire: str = CHAT
    #: A framing other than the wire's usual one (Gemini's JSON array), else "": only the
    #: implementations that read it get the case (`peers.reads`).
    framing: str = ""
    #: The route the stream came through (routes.yaml), and where it came from: a recording's
    #: provenance, or the files it was made from; the report's case page shows both.
    route: str = DIRECT
    provenance: Mapping[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        """The case's name in reports and on the command line: `provider/scenario`."""
        return f"{self.provider}/{self.scenario}"

    @property
    def stream(self) -> Stream:
        """The case as every implementation is handed it: its wire, body and request."""
        return Stream(self.wire, self.body, self.request)


@dataclass(frozen=True)
class Result:
    implementation: str
    provider: str
    scenario: str
    verdict: Verdict
    #: The wire of the row: the text report gives the other wires' rows a grid of their own.
    wire: str = CHAT
    #: What the implementation handed back (None when it raised or was skipped): the report
    #: shows it beside the expected turn.
    answer: Assembled | None = None


@dataclass
class Matrix:
    """Everything a report shows: who ran, who could not, every verdict, and the n/a cells."""

    implementations: list[tuple[str, str]] = field(default_factory=list)  # (name, version)
    unavailable: dict[str, str] = field(default_factory=dict)
    results: list[Result] = field(default_factory=list)
    not_applicable: list[tuple[str, str, str]] = field(default_factory=list)
    #: Programs that never started or failed their handshake (also in `unavailable`).
    never_started: list[str] = field(default_factory=list)
    #: Every case judged, in order: the JSON report carries each one's stream and expectation.
    cases: list[Case] = field(default_factory=list)

    @property
    def reference_failed(self) -> bool:
        return any(r.implementation == REFERENCE and not r.verdict.passed for r in self.results)


def roster(
    names: Sequence[str] | None,
    externals: Sequence[str],
    *,
    timeout: float,
    cwd: Path | None = None,
    keys: Iterable[str] = (),
) -> tuple[list[Implementation], dict[str, str]]:
    """The implementations to run (in-process ones first, then external programs) and the ones
    that cannot run here, with why. An unknown name is an error naming the known ones. A program
    named with `--external` always runs, beside the implementations `names` selects.

    External programs run in `cwd` (the caller's directory when None, where a relative path in
    their command was written), and `keys` are masked in whatever they print."""
    factories: dict[str, Factory] = builtin()
    named_externals = []
    for spec in externals:
        name, command = parse_spec(spec)
        if name in factories:
            raise UnknownImplementation(f"--external {name}=...: {name!r} is already taken")
        factories[name] = _external_factory(name, command, timeout, cwd, list(keys))
        named_externals.append(name)
    selected = list(dict.fromkeys([*names, *named_externals])) if names else list(factories)
    unknown = [name for name in selected if name not in factories]
    if unknown:
        raise UnknownImplementation(
            f"unknown implementation(s) {unknown}; known: {list(factories)} "
            "(add another with --external NAME=COMMAND)"
        )
    available: list[Implementation] = []
    unavailable: dict[str, str] = {}
    for name in selected:
        try:
            available.append(factories[name]())
        except Unavailable as exc:
            unavailable[name] = str(exc)
    return available, unavailable


def run(
    suite: Suite,
    implementations: Sequence[Implementation],
    *,
    provider: str | None = None,
    scenario: str | None = None,
    progress: TextIO | None = None,
    column_budget: float = COLUMN_BUDGET,
) -> Matrix:
    """Judge every implementation on every case the filters select, one column after another,
    telling `progress` (a terminal's standard error) what each column cost."""
    matrix = Matrix()
    began = time.monotonic()
    _say(progress, "replaying the cassettes ... ")
    selected = list(cases(suite, matrix, provider=provider, scenario=scenario))
    matrix.cases = selected
    _say(progress, f"{len(selected)} streams, {time.monotonic() - began:.0f} s\n")
    total = len(implementations)
    for number, implementation in enumerate(implementations, start=1):
        began = time.monotonic()
        _say(progress, f"[{number}/{total}] {implementation.name} ... ")
        try:
            _start(implementation)
        except StartFailed as exc:
            matrix.unavailable[implementation.name] = str(exc)
            matrix.never_started.append(implementation.name)
            _say(progress, f"did not start: {exc}\n")
            continue
        matrix.implementations.append((implementation.name, implementation.version))
        column = _column(implementation, selected, began + column_budget)
        matrix.results += column
        passed = sum(r.verdict.passed for r in column)
        skipped = sum(r.verdict.label == SKIPPED for r in column)
        said = f"{len(column)} streams, {passed} passed"
        said += f", {skipped} skipped" if skipped else ""
        _say(progress, f"{said}, {time.monotonic() - began:.0f} s\n")
    return matrix


def _start(implementation: Implementation) -> None:
    """Start a program before its column, so a failed start or handshake is said once."""
    start = getattr(implementation, "start", None)
    if callable(start):
        start()


def _column(
    implementation: Implementation, selected: Sequence[Case], deadline: float
) -> list[Result]:
    """One implementation over every case; the program is told to stop afterwards."""
    column: list[Result] = []
    cut_off = ""
    timeouts = 0
    for case in selected:
        if not reads(implementation, case.wire, case.framing):
            continue
        if cut_off:
            verdict = Verdict(SKIPPED, f"skipped: {cut_off}")
            column.append(_result(implementation, case, verdict))
            continue
        answer: Any
        try:
            with no_network(loopback=True):
                # A fresh copy each: litellm fills in a missing `index` in the chunks it is
                # handed, which would otherwise change the stream the next one is judged on.
                answer = implementation.assemble(copy.deepcopy(case.stream))
        except Exception as exc:
            answer = exc
        verdict = judge(case.expected, answer)
        column.append(_result(implementation, case, verdict, answer))
        timeouts = timeouts + 1 if isinstance(answer, TimedOut) else 0
        if isinstance(answer, StartFailed):
            cut_off = f"the program did not start again: {answer}"
        elif timeouts >= CONSECUTIVE_TIMEOUTS:
            cut_off = f"{timeouts} timeouts in a row"
        elif time.monotonic() > deadline:
            cut_off = "the column's time budget is used up"
    close = getattr(implementation, "close", None)
    if callable(close):
        close()  # an external program is told to stop, not left running
    return column


def _result(
    implementation: Implementation, case: Case, verdict: Verdict, answer: object = None
) -> Result:
    kept = answer if isinstance(answer, Assembled) else None
    return Result(implementation.name, case.provider, case.scenario, verdict, case.wire, kept)


def _say(progress: TextIO | None, text: str) -> None:
    if progress is not None:
        progress.write(text)
        progress.flush()


def cases(
    suite: Suite, matrix: Matrix, *, provider: str | None, scenario: str | None
) -> Iterator[Case]:
    """The cases in file order, each truncated variant right after the cassette it is cut from.

    Cells that do not apply are recorded in `matrix.not_applicable` with their reason.
    """
    truncated_only = scenario == streams.TRUNCATED
    selected = streams.TRUNCATED_FROM if truncated_only else scenario
    for p, s, cell in suite.cells(provider, selected):
        if cell.not_applicable:
            matrix.not_applicable.append((p.key, s.name, cell.not_applicable))
            continue
        request = suite.request_body(p, cell)
        path = cassette_path(suite.cassettes, p.key, s.name)
        try:
            body = replay(path, p.base_url, request).body
        except ReplayError as exc:
            raise MatrixError(f"{cell.id}: {exc}") from None
        made = {"kind": SYNTHESIZED, "cassette": _relative(path, suite.root)}
        if not truncated_only:
            expected = _expected(cell.id, body, s.expect)
            yield Case(p.key, s.name, request, expected, body, provenance=made)
        wants_variant = scenario is None or truncated_only
        if s.name == streams.TRUNCATED_FROM and wants_variant:
            cut_body = streams.cut(CHAT, body)
            if cut_body is None:
                reason = "the calls arrive in the finishing chunk: there is nothing to cut"
                matrix.not_applicable.append((p.key, streams.TRUNCATED, reason))
                continue
            _check_reference_refuses(f"{p.key}/{streams.TRUNCATED}", CHAT, cut_body)
            cut_from = {**made, "kind": "cut", "cut_from": f"{p.key}/{s.name}"}
            yield Case(
                p.key,
                streams.TRUNCATED,
                request,
                Expected(truncated=True),
                cut_body,
                provenance=cut_from,
            )
    if scenario is None:
        yield from recording_cases(suite, provider)
    if scenario is None or truncated_only:
        yield from cut_cases(suite, provider)


def cut_cases(suite: Suite, provider: str | None) -> Iterator[Case]:
    """The cut-off variant of every recording of another wire than chat (`streams.cut`), a row
    `<wire>/<name>_truncated` whose only right answer is to report the cut; narrowed to a
    provider as the recordings' own cases are (the provider their provenance names)."""
    try:
        found = list(streams.cuts(suite, chat=False))
    except recordings.RecordingError as exc:
        raise MatrixError(str(exc)) from None
    for cut in found:
        if cut.recording is None or (provider is not None and cut.provider != provider):
            continue  # the matrix's rows on the other wires are their recordings
        _check_reference_refuses(f"{cut.provider}/{cut.scenario}", cut.wire, cut.body)
        expected = Expected(truncated=True, cut_said=streams.cut_said(cut.wire))
        made = {**cut.recording.provenance, "kind": "cut", "cut_from": cut.source}
        yield Case(
            cut.provider,
            cut.scenario,
            cut.request,
            expected,
            cut.body,
            cut.wire,
            route=cut.recording.route,
            provenance=made,
        )


def recording_cases(suite: Suite, provider: str | None) -> Iterator[Case]:
    """Every published recording, on every wire, judged by its hand-written expectation, never
    by our output: a row `published/<name>` on chat, `<wire>/<name>` on the other wires.

    The reference gets no special treatment here: if it disagrees with the expectation, its cell
    fails like anyone's (and the run exits 1, since the reference must pass).
    """
    try:
        found = recordings.discover(suite.cassettes, provider)
    except recordings.RecordingError as exc:
        raise MatrixError(str(exc)) from None
    for recording in found:
        body = recording.body()
        if recording.wire == CHAT:
            try:
                body = replay_own_request(recording.path).body
            except ReplayError as exc:
                raise MatrixError(f"{recording.id}: {exc}") from None
        yield Case(
            recording.provider,
            recording.column,
            recordings.request(recording),
            expected_from_file(recording.expected, recording.wire),
            body,
            recording.wire,
            recording.framing,
            recording.route,
            {**recording.provenance, "kind": SYNTHESIZED if recording.synthesized else "recording"},
        )


def _relative(path: Path, root: Path) -> str:
    """A cassette's path as the report shows it: inside the suite when it is."""
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def expected_from_file(expected: dict[str, Any], wire: str = CHAT) -> Expected:
    """A hand-written expectation of a recording on `wire` as the judge reads it: calls, the cut
    of a truncated turn reported, or another kind of error reported."""
    if "error" in expected:
        kind = expected["error"]["kind"]
        if kind == "truncated":
            return Expected(truncated=True, cut_said=streams.cut_said(wire))
        return Expected(error=kind)
    calls = expected["tool_calls"]
    return Expected(
        calls=tuple(
            Call(c["id"], c["name"], json.dumps(c["arguments"], ensure_ascii=False)) for c in calls
        ),
        arguments=tuple(c["arguments"] for c in calls),
    )


def _expected(where: str, body: bytes, schema: dict[str, Any]) -> Expected:
    try:
        turn = toolcall.assemble(body)
    except toolcall.ToolCallError as exc:
        raise MatrixError(f"{where}: the reference cannot assemble the cassette: {exc}") from None
    return Expected(
        calls=tuple(Call(c.id, c.function.name, c.function.arguments) for c in turn.tool_calls),
        arguments=turn.arguments,
        document=conformance_document(turn),
        schema=schema,
    )


def _check_reference_refuses(where: str, wire: str, body: bytes) -> None:
    """A cut stream must raise TruncatedError in the reference, or the variant is not a cut."""
    try:
        toolcall.assemble(body, wire=wire)
    except toolcall.TruncatedError:
        return
    except toolcall.ToolCallError as exc:
        raise MatrixError(f"{where}: the reference raised {type(exc).__name__}: {exc}") from None
    raise MatrixError(f"{where}: the reference accepted the cut stream")


def _external_factory(
    name: str, command: list[str], timeout: float, cwd: Path | None, keys: list[str]
) -> Factory:
    def make() -> Implementation:
        return External(name, command, timeout=timeout, cwd=cwd, keys=keys)

    return make
