"""One case model for the whole harness: every stream the suite judges, of every kind, on every
wire, and the one way to list, narrow and check them.

Five kinds of case come from the suite's files (`KINDS`):

- `cell`: a provider x scenario cassette, on chat completions (`<provider>-<scenario>`) or
  synthesized on another wire the provider offers (`<provider>@<wire>-<scenario>`);
- `route`: a cassette recorded through a route (`<provider>@<route>-<scenario>`);
- `published`: a published chat recording (`<provider>/published/<name>`);
- `wire-recording`: a recording of another wire (`wires/<wire>/<name>`);
- `cut`: a cut-off variant of a stream, on any wire (`<provider>@<wire>-<column>`).

The id is the pytest id of the conformance test, the name the reports and `toolcall case` show,
and what `--case` narrows by. `cases(suite, filters)` lists them lazily in one order (the chat
cells, the synthesized wire cells, the published recordings, the route cassettes, the wire
recordings, the cut-off variants), the conformance run, the matrix, the pytest plugin and
`toolcall case` alike; `check(suite, case)` runs every check of its kind. A case's body and
expected answer are read only when asked (`Case.body`, `Case.expected`), so listing the cases
costs no replay: the conformance checks read the files themselves.

A cell that does not apply (a scenario the provider cannot serve, a synthesized cell whose reply
needs an event no followed recording shows) is a case too, with `not_applicable` saying why: the
conformance run reports it, the matrix lists it below its grid and judges nothing on it.
"""

from __future__ import annotations

import difflib
import fnmatch
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import toolcall

from .. import synthesize
from ..checks import (
    Outcome,
    check_cell,
    check_cut,
    check_recording,
    check_route_cell,
    conformance_document,
    route_cassettes,
)
from ..matrix.verdict import Expected
from ..peers import Call, Stream
from ..reading import streams
from ..reading.wires import NAMES as WIRES
from ..recording.replay import ReplayError, replay, replay_own_request
from . import cassettes, recordings
from .cassettes import CHAT
from .profiles import DIRECT, Cell, ProfileError, Provider, Suite

CELL = "cell"
ROUTE = "route"
PUBLISHED = "published"
WIRE_RECORDING = "wire-recording"
CUT = "cut"
#: A stream captured from a live endpoint (`Case.captured`), never one of the suite's cases.
CAPTURED = "captured"
#: Every kind of case, in the order `cases` lists them (routes come after the published ones).
KINDS = (CELL, ROUTE, PUBLISHED, WIRE_RECORDING, CUT)
_ORDER = (CELL, PUBLISHED, ROUTE, WIRE_RECORDING, CUT)
#: What makes `--case` a pattern rather than an exact id.
_GLOB = "*?["


class CaseError(Exception):
    """A case's stream or expectation cannot be made: its cassette does not replay, its
    recording does not read, or the reference cannot assemble it (a cut it accepts)."""


class FilterError(ProfileError):
    """A filter that names nothing in the suite; the message names what is known."""


@dataclass(frozen=True, eq=False)
class Case:
    """One stream the suite judges, whatever its kind and wire.

    `scenario` is its column in the reports (a scenario, `long_arguments_truncated`,
    `published/<name>`, `<wire>/<name>`, `<wire>/<name>_truncated`); `provider` the provider
    it is of (a wire recording's is the one its provenance names, `anthropic` say) and
    `offered_by` the provider whose wire offer in providers.yaml names it, when that differs in
    kind (a wire recording and its cut-off variant). `source` is the file of the suite it comes
    from, relative to the suite's root; `provenance` what that file or the profile says of where
    the stream came from. `origin` is what the checks of its kind take.
    """

    id: str
    kind: str
    wire: str
    provider: str
    scenario: str
    request: Mapping[str, Any]
    source: str
    route: str = DIRECT
    framing: str = ""
    offered_by: str = ""
    provenance: Mapping[str, Any] = field(default_factory=dict)
    origin: Any = field(default=None, repr=False)

    @cached_property
    def not_applicable(self) -> str:
        """Why the case does not apply, or "" (a synthesized wire cell is rendered to know)."""
        if self.kind != CELL:
            return ""
        provider, cell, suite = self.origin
        if cell.not_applicable:
            return str(cell.not_applicable)
        if self.wire == CHAT:
            return ""
        try:
            synthesize.cassette_text(suite, provider, cell, self.wire)
        except synthesize.Unshown as exc:
            return f"left out: {exc}"
        return ""

    @cached_property
    def body(self) -> bytes:
        """The bytes as a client is served them (replayed through vcrpy on chat)."""
        if self.not_applicable:
            raise CaseError(f"{self.id}: not applicable: {self.not_applicable}")
        try:
            return _body(self)
        except (ReplayError, cassettes.CassetteError) as exc:
            raise CaseError(f"{self.id}: {exc}") from None

    @cached_property
    def expected(self) -> Expected:
        """What a correct implementation answers: the hand-written expectation of a recording,
        the cut reported for a cut-off variant, else the reference's own turn for the same
        bytes with the scenario's `expect` schema on top."""
        if self.kind in (PUBLISHED, WIRE_RECORDING):
            recording: recordings.Recording = self.origin
            if recording.problem is not None:
                raise CaseError(f"{self.id}: {recording.problem}")
            return expected_from_file(recording.expected, self.wire)
        if self.kind == CUT:
            _reference_refuses(self)
            return Expected(truncated=True, cut_said=streams.cut_said(self.wire))
        try:
            turn = toolcall.assemble(self.body, wire=self.wire)
        except toolcall.ToolCallError as exc:
            raise CaseError(f"{self.id}: the reference cannot assemble it: {exc}") from None
        document = conformance_document(turn)
        if self.wire != CHAT:  # the scenario's schema speaks chat completions' finish words
            document["finish_reason"] = toolcall.finish_kind(turn)
        return Expected(
            calls=tuple(Call(c.id, c.function.name, c.function.arguments) for c in turn.tool_calls),
            arguments=turn.arguments,
            document=document,
            schema=self.origin[2].scenarios[self.origin[1].scenario].expect,
        )

    @classmethod
    def captured(
        cls,
        case_id: str,
        wire: str,
        scenario: str,
        request: Mapping[str, Any],
        body: bytes,
        expected: Expected,
        source: str,
        framing: str = "",
    ) -> Case:
        """A stream captured outside the suite (`toolcall probe`'s from a live endpoint,
        `toolcall doctor`'s from a user's file), judged as a case: its bytes and expectation are
        given, not read from the suite's files. Its kind is `CAPTURED`, which `cases` never
        lists."""
        found = cls(case_id, CAPTURED, wire, "", scenario, request, source, framing=framing)
        found.__dict__.update(not_applicable="", body=body, expected=expected)
        return found

    def with_body(self, body: bytes) -> Case:
        """The same case over other bytes, its expectation kept: a stream altered on purpose
        (a test's), judged as the case's own would be."""
        altered = replace(self)
        altered.__dict__.update(not_applicable="", expected=self.expected, body=body)
        return altered

    @property
    def stream(self) -> Stream:
        """The case as every implementation is handed it: wire, body, request and its id."""
        return Stream(self.wire, self.body, self.request, case=self.id)

    @property
    def names(self) -> frozenset[str]:
        """Every name of its provider a report shows, as `--provider` accepts them: the
        provider, the offering one, and their rows (`provider@wire`, `provider@route`)."""
        names = {self.provider, self.offered_by} - {""}
        rows = {f"{n}@{self.wire}" for n in names if self.wire != CHAT}
        rows |= {f"{n}@{self.route}" for n in names if self.route != DIRECT}
        return frozenset(names | rows)


@dataclass(frozen=True)
class Filters:
    """What a run narrows to; each filter is optional and they all hold at once. `provider`
    takes any name a report shows (`Case.names`), `scenario` any column (`Case.scenario`, the
    id of a wire recording, and `long_arguments_truncated` for every cut-off variant of every
    wire), `case` an exact id or a glob (`*`, `?`, `[...]`)."""

    wire: str | None = None
    provider: str | None = None
    route: str | None = None
    scenario: str | None = None
    case: str | None = None
    kind: str | None = None

    def keeps(self, case: Case) -> bool:
        """Whether `case` passes every filter given."""
        return (
            (self.wire is None or case.wire == self.wire)
            and (self.provider is None or self.provider in case.names)
            and (self.route is None or case.route == self.route)
            and (self.scenario is None or self.scenario in _columns(case))
            and (self.kind is None or case.kind == self.kind)
            and (self.case is None or fnmatch.fnmatchcase(case.id, self.case))
        )

    def said(self, prefix: str = "--") -> str:
        """The filters given, as `--name=value` words (for a run that selected nothing), each
        name after `prefix` (`--toolcall-` for pytest's options)."""
        given = [(name, getattr(self, name)) for name in _FILTER_NAMES]
        return " ".join(f"{prefix}{name}={value}" for name, value in given if value is not None)


_FILTER_NAMES = ("wire", "provider", "route", "scenario", "case", "kind")


def _columns(case: Case) -> tuple[str, ...]:
    """The columns a case is shown in: its own, a wire recording's id (the conformance report's
    column for it), and `long_arguments_truncated` for every cut-off variant (the conformance
    report's one cut column)."""
    return (case.scenario, case.id, streams.TRUNCATED if case.kind == CUT else case.scenario)


def cases(suite: Suite, filters: Filters | None = None) -> Iterator[Case]:
    """Every case `filters` keep, in the suite's one order. An unknown filter value raises
    `FilterError` here, before anything is listed; the cases themselves come lazily."""
    filters = filters or Filters()
    every = _validate(suite, filters)
    listed = every if every is not None else _all(suite, filters)
    return (case for case in listed if filters.keeps(case))


def check(suite: Suite, case: Case) -> Outcome:
    """Every check of the case's kind, as the conformance run makes it."""
    if case.kind == CELL:
        provider, cell, _suite = case.origin
        return check_cell(suite, provider, cell, case.wire)
    if case.kind == ROUTE:
        return check_route_cell(suite, case.provider, case.route, case.origin)
    if case.kind == CUT:
        cut: streams.Cut = case.origin
        return check_cut(suite, cut)
    recording: recordings.Recording = case.origin
    return check_recording(suite, recording)


def find(suite: Suite, case_id: str) -> Case:
    """The case of that exact id; `FilterError` with the nearest ids when there is none."""
    seen = []
    for case in _all(suite, Filters()):
        if case.id == case_id:
            return case
        seen.append(case.id)
    raise FilterError(_unknown_case(suite, case_id, seen))


def expected_from_file(expected: Mapping[str, Any], wire: str = CHAT) -> Expected:
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


# -- listing ------------------------------------------------------------------------------------


def _all(suite: Suite, filters: Filters) -> Iterator[Case]:
    """Every case of the kinds and wires the filters leave possible, in the one order."""
    makers = {
        CELL: _cells,
        PUBLISHED: _published,
        ROUTE: _routes,
        WIRE_RECORDING: _wire_recordings,
        CUT: _cuts,
    }
    for kind in _ORDER:
        if filters.kind not in (None, kind):
            continue
        if kind in (PUBLISHED, ROUTE) and filters.wire not in (None, CHAT):
            continue
        if kind == WIRE_RECORDING and filters.wire == CHAT:
            continue
        yield from makers[kind](suite)


def _cells(suite: Suite) -> Iterator[Case]:
    """The chat cells in file order, then each cell synthesized on another wire."""
    for provider, _scenario, cell in suite.cells():
        yield _cell(suite, provider, cell, CHAT)
    for provider, cell, wire in synthesize.cells(suite):
        if wire != CHAT:
            yield _cell(suite, provider, cell, wire)


def _cell(suite: Suite, provider: Provider, cell: Cell, wire: str) -> Case:
    path = cassettes.cassette_path(suite.cassettes, provider.key, cell.scenario, wire=wire)
    provenance: dict[str, Any] = dict(cell.provenance)
    if wire != CHAT:
        shape = synthesize.shape(suite, provider.key, wire)
        provenance = {
            "kind": synthesize.SYNTHESIZED,
            "follows": list(shape.follows if shape else ()),
        }
    return Case(
        id=f"{provider.key}-{cell.scenario}"
        if wire == CHAT
        else f"{provider.key}@{wire}-{cell.scenario}",
        kind=CELL,
        wire=wire,
        provider=provider.key,
        scenario=cell.scenario,
        request=suite.request_body(provider, cell),
        source=_relative(path, suite.root),
        provenance=provenance,
        origin=(provider, cell, suite),
    )


def _routes(suite: Suite) -> Iterator[Case]:
    for key, route, scenario, path in route_cassettes(suite):
        provider = suite.providers.get(key)
        cell = provider.cells.get(scenario) if provider is not None else None
        request = suite.request_body(provider, cell) if provider and cell else {}
        yield Case(
            id=f"{key}@{route}-{scenario}",
            kind=ROUTE,
            wire=CHAT,
            provider=key,
            scenario=scenario,
            request=request,
            source=_relative(path, suite.root),
            route=route,
            provenance={"kind": "recorded", "route": route},
            origin=path,
        )


def _published(suite: Suite) -> Iterator[Case]:
    for recording in recordings.discover(suite.cassettes, wire=CHAT, keep_unreadable=True):
        yield _recording(suite, recording, PUBLISHED)


def _wire_recordings(suite: Suite) -> Iterator[Case]:
    """Every wire's recordings, by wire then name (`recordings.discover`'s order)."""
    for recording in recordings.discover(suite.cassettes, keep_unreadable=True):
        if recording.wire != CHAT:
            yield _recording(suite, recording, WIRE_RECORDING)


def _recording(suite: Suite, recording: recordings.Recording, kind: str) -> Case:
    offer = recordings.offer_of(suite, recording) if recording.wire != CHAT else None
    readable = recording.problem is None
    return Case(
        id=recording.id,
        kind=kind,
        wire=recording.wire,
        provider=recording.provider,
        scenario=recording.column,
        request=recordings.request(recording) if readable else {},
        source=_relative(recording.path, suite.root),
        route=recording.route if readable else DIRECT,
        framing=recording.framing,
        offered_by=offer.provider if offer is not None else "",
        provenance=recording.provenance,
        origin=recording,
    )


def _cuts(suite: Suite) -> Iterator[Case]:
    for cut in streams.cuts(suite):
        offer = recordings.offer_of(suite, cut.recording) if cut.recording is not None else None
        provenance: dict[str, Any] = {"kind": "cut", "cut_from": cut.source}
        if cut.recording is not None:
            provenance["recording"] = cut.recording.provenance
        yield Case(
            id=f"{cut.provider}@{cut.wire}-{cut.scenario}",
            kind=CUT,
            wire=cut.wire,
            provider=cut.provider,
            scenario=cut.scenario,
            request=cut.request,
            source=cut.source,
            framing=cut.recording.framing if cut.recording is not None else "",
            offered_by=offer.provider if offer is not None else "",
            provenance=provenance,
            origin=cut,
        )


# -- reading ------------------------------------------------------------------------------------


def _body(case: Case) -> bytes:
    """The body as served; raises `ReplayError` or `CassetteError`."""
    if case.kind == CELL:
        provider, cell, suite = case.origin
        if case.wire != CHAT:
            path = cassettes.cassette_path(
                suite.cassettes, provider.key, cell.scenario, wire=case.wire
            )
            return cassettes.response_body(cassettes.load(path))
        path = cassettes.cassette_path(suite.cassettes, provider.key, cell.scenario)
        return replay(path, provider.base_url, dict(case.request)).body
    if case.kind == ROUTE:
        return replay_own_request(case.origin).body
    if case.kind == CUT:
        cut: streams.Cut = case.origin
        return cut.body
    recording: recordings.Recording = case.origin
    if recording.problem is not None:
        raise CaseError(f"{case.id}: {recording.problem}")
    if recording.wire == CHAT:
        return replay_own_request(recording.path).body
    return recording.body()


def _reference_refuses(case: Case) -> None:
    """A cut stream must raise TruncatedError in the reference, or the variant is not a cut."""
    try:
        toolcall.assemble(case.body, wire=case.wire)
    except toolcall.TruncatedError:
        return
    except toolcall.ToolCallError as exc:
        raise CaseError(f"{case.id}: the reference raised {type(exc).__name__}: {exc}") from None
    raise CaseError(f"{case.id}: the reference accepted the cut stream")


def _relative(path: Path, root: Path) -> str:
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


# -- validating ---------------------------------------------------------------------------------


def _validate(suite: Suite, filters: Filters) -> list[Case] | None:
    """Every filter given names something of the suite, or one line naming what does. The
    provider, scenario and case filters are checked against every case, listed once and given
    back (without a stream read) for `cases` to narrow; else None."""
    if filters.wire is not None and filters.wire not in WIRES:
        raise FilterError(_unknown("wire", filters.wire, WIRES))
    if filters.kind is not None and filters.kind not in KINDS:
        raise FilterError(_unknown("kind", filters.kind, KINDS))
    if filters.route is not None:
        known = [DIRECT, *sorted(set(suite.routes) - {DIRECT})]
        if filters.route not in known:
            raise FilterError(_unknown("route", filters.route, known))
    if filters.provider is None and filters.scenario is None and filters.case is None:
        return None
    every = list(_all(suite, Filters()))
    if filters.provider is not None:
        names = sorted({name for case in every for name in case.names})
        if filters.provider not in names:
            raise FilterError(_unknown("provider", filters.provider, names))
    if filters.scenario is not None:
        columns = [*suite.scenarios, streams.TRUNCATED]
        columns += [c.scenario for c in every if c.scenario not in columns]
        columns += [c.id for c in every if c.kind == WIRE_RECORDING]
        if filters.scenario not in columns:
            raise FilterError(_unknown("scenario", filters.scenario, columns, shown=9))
    if filters.case is not None and not any(fnmatch.fnmatchcase(c.id, filters.case) for c in every):
        raise FilterError(_unknown_case(suite, filters.case, [c.id for c in every]))
    return every


def _unknown(what: str, value: str, known: Iterable[str], *, shown: int = 0) -> str:
    """`unknown <what> 'x'; known: [...]`, the list cut to its first `shown` with the nearest
    matches after it when it is long (a recording's column is one of a hundred)."""
    known = list(known)
    if not shown or len(known) <= shown:
        return f"unknown {what} {value!r}; known: {sorted(known)}"
    near = difflib.get_close_matches(value, known, n=3, cutoff=0.5)
    line = f"unknown {what} {value!r}; known: {sorted(known[:shown])} and {len(known) - shown} more"
    return line + (f"; nearest: {near}" if near else "")


def _unknown_case(suite: Suite, value: str, ids: list[str] | None = None) -> str:
    """No case has that id (or matches that pattern): the nearest ids, and where to list them."""
    ids = ids if ids is not None else [c.id for c in _all(suite, Filters())]
    what = "pattern" if any(ch in value for ch in _GLOB) else "id"
    near = difflib.get_close_matches(value, ids, n=3, cutoff=0.4)
    line = f"no case has the {what} {value!r}"
    line += f"; nearest: {', '.join(near)}" if near else ""
    return line + " (toolcall case --list lists every case)"
