"""Every implementation over every cassette: the implementation x provider x scenario matrix.

Each applicable cassette is replayed once (through vcrpy and httpx, like the conformance suite, so
a stale cassette stops the run instead of being compared), decoded into chunks, and handed to each
implementation in turn. A published recording is judged by the expectation written by hand beside
it; a synthesized cassette has no such witness, so there the reference library's own turn for the
same bytes is the expectation, with the scenario's `expect` schema on top (see `verdict`). A peer
that crashes or answers wrongly is a finding in the table, never an error
of the run. The run itself is broken only when a cassette cannot be replayed or the reference
cannot make the expectation, because then no column can be judged.

The cases are the suite's (`case.cases`, narrowed by `case.Filters`): the cells on chat and on
every wire they are synthesized on, the cassettes recorded through a route, the published
recordings, the wire recordings (`cassettes/wires/`, see `recordings`) and the cut-off variants.
A row of another wire than chat gets a cell only for the implementations that read the wire
(whose `wires` name it: the reference, each wire's SDK, a program whose handshake names it); the
chat peers have none there, nor the wire SDKs on chat. A synthesized cell of another wire is
judged as a chat one is, by the reference's turn for its bytes and the scenario's schema.

The run goes implementation by implementation, so that progress can be told per column and one
broken program costs its own column only: a program that cannot start (or fails its handshake)
is unavailable, said once, and one that times out `CONSECUTIVE_TIMEOUTS` times in a row, cannot
be started again after a crash, or has used up the column's time budget (`COLUMN_BUDGET`, for a
program slow on every stream yet never quite timing out) has the rest of its cells skipped with
the reason.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from ..peers import CHAT, Assembled, Factory, Implementation, Unavailable, builtin, reads
from ..peers.external import External, StartFailed, TimedOut, parse_spec
from ..peers.reference import Reference
from ..recording.replay import no_network
from ..suite.case import ROUTE, Case, CaseError, Filters, cases
from ..suite.profiles import Suite
from .verdict import Verdict, judge

REFERENCE = Reference.name

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
class Result:
    implementation: str
    provider: str
    scenario: str
    verdict: Verdict
    #: The wire of the row: the text report gives the other wires' rows a grid of their own.
    wire: str = CHAT
    #: The id of the case judged (`case.Case.id`).
    case: str = ""
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
    #: What a column adds around the library it checks, as its program's handshake said.
    glue: dict[str, str] = field(default_factory=dict)
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
    filters: Filters | None = None,
    progress: TextIO | None = None,
    column_budget: float = COLUMN_BUDGET,
) -> Matrix:
    """Judge every implementation on every case the filters select, one column after another,
    telling `progress` (a terminal's standard error) what each column cost."""
    matrix = Matrix()
    began = time.monotonic()
    found = cases(suite, filters or Filters())  # a filter naming nothing stops the run here
    _say(progress, "replaying the cassettes ... ")
    selected = _selected(found, matrix)
    matrix.cases = selected
    _say(progress, f"{len(selected)} streams, {time.monotonic() - began:.0f} s\n")
    return judge_all(implementations, selected, matrix, progress, column_budget)


def judge_all(
    implementations: Sequence[Implementation],
    selected: Sequence[Case],
    matrix: Matrix,
    progress: TextIO | None = None,
    column_budget: float = COLUMN_BUDGET,
) -> Matrix:
    """Every implementation on every case it reads, one column after another, into `matrix`
    (the cases of the suite, or streams captured elsewhere: `toolcall probe`'s)."""
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
        if glue := getattr(implementation, "glue", ""):
            matrix.glue[implementation.name] = glue
        column = _column(implementation, selected, began + column_budget)
        matrix.results += column
        passed = sum(r.verdict.passed for r in column)
        skipped = sum(r.verdict.label == SKIPPED for r in column)
        said = f"{len(column)} streams, {passed} passed"
        said += f", {skipped} skipped" if skipped else ""
        _say(progress, f"{said}, {time.monotonic() - began:.0f} s\n")
    return matrix


def _selected(found: Iterable[Case], matrix: Matrix) -> list[Case]:
    """The cases to judge, each stream and expectation made before any column runs (so a
    cassette that does not replay stops the run at once); the cells that do not apply are
    listed in `matrix.not_applicable` with their reason."""
    selected = []
    for case in found:
        if case.not_applicable:
            matrix.not_applicable.append((row(case), case.scenario, case.not_applicable))
            continue
        try:
            case.expected  # noqa: B018  # made now; a stream's body with it
        except CaseError as exc:
            raise MatrixError(str(exc)) from None
        selected.append(case)
    return selected


def row(case: Case) -> str:
    """The matrix row of a case beside its column `case.scenario`: the provider, or
    `provider@route` through a route, or `provider@wire` for a scenario synthesized on another
    wire (a recording's column names its wire already)."""
    if case.kind == ROUTE:
        return f"{case.provider}@{case.route}"
    if case.wire != CHAT and "/" not in case.scenario:
        return f"{case.provider}@{case.wire}"
    return case.provider


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
    return Result(implementation.name, row(case), case.scenario, verdict, case.wire, case.id, kept)


def _say(progress: TextIO | None, text: str) -> None:
    if progress is not None:
        progress.write(text)
        progress.flush()


def _external_factory(
    name: str, command: list[str], timeout: float, cwd: Path | None, keys: list[str]
) -> Factory:
    def make() -> Implementation:
        return External(name, command, timeout=timeout, cwd=cwd, keys=keys)

    return make
