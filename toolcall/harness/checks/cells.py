"""The checks of one provider x scenario cell, on any wire, and of a cassette recorded through
a route.

Order matters for the reader: replay first (is the cassette still the evidence for today's
request?), then the library under many byte splits (does transport chunking change anything?),
then the output schemas (is the result right?), then the fingerprint (does the provider still
stream the way its profile says?). A cell on another wire than chat completions is synthesized
from its provider's wire offer: the committed cassette must be what the synthesizer writes
today, its events must have the skeletons of the recordings it follows, every re-split must give
the whole body's turn with events that tell it, and that turn must equal the turn of the
provider's chat cassette of the same scenario, ids aside (`cross_wire.turn_differences`, the
comparison recorded pairs use).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import toolcall
from toolcall import ToolCallError, Turn

from .. import synthesize
from ..reading import wires
from ..recording.replay import ReplayError, replay, replay_own_request
from ..suite import cassettes, fingerprint, recordings
from ..suite.cassettes import CHAT, ROUTES, cassette_path
from ..suite.profiles import Cell, Provider, Suite
from . import cross_wire, where_to_fix
from .event_check import assemble_with_events
from .outcome import Finding, Outcome
from .turns import check_turn, splits


def check_cell(suite: Suite, provider: Provider, cell: Cell, wire: str = CHAT) -> Outcome:
    """Run every check on one provider x scenario cell on `wire`."""
    if cell.not_applicable:
        return Outcome(provider.key, cell.scenario, "n/a", note=cell.not_applicable, wire=wire)
    if wire != CHAT:
        return _check_synthesized_wire(suite, provider, cell, wire)
    path = cassette_path(suite.cassettes, provider.key, cell.scenario)
    outcome = Outcome(provider.key, cell.scenario, "pass", note=_provenance(cell.provenance))
    findings = outcome.findings
    if cell.provenance.get("kind") == "pending" and not path.is_file():
        findings += _check_provenance(provider, cell, {})
        outcome.status = "fail"
        return outcome
    try:
        replayed = replay(path, provider.base_url, suite.request_body(provider, cell))
    except ReplayError as exc:
        findings.append(Finding("replay", "$", "a cassette matching the request", str(exc)))
        outcome.status = "fail"
        outcome.fix = where_to_fix.for_cell(suite, provider, cell, findings[0])
        return outcome
    if replayed.provenance:
        outcome.note = _provenance(replayed.provenance)
    findings += _check_provenance(provider, cell, replayed.provenance)
    if replayed.status != 200:
        findings.append(Finding("replay", "$.status", 200, replayed.status))
    body = replayed.body
    _check_library(suite, cell, path, body, outcome)
    findings += _check_fingerprint(cell, body)
    if findings:
        outcome.status = "fail"
        outcome.fix = where_to_fix.for_cell(suite, provider, cell, findings[0])
    return outcome


def _check_synthesized_wire(suite: Suite, provider: Provider, cell: Cell, wire: str) -> Outcome:
    """Every check on one synthesized cassette of another wire; a cell whose reply needs an event
    no followed recording shows is left out (n/a), as `synthesize` leaves it out."""
    try:
        text = synthesize.cassette_text(suite, provider, cell, wire)
    except synthesize.Unshown as exc:
        return Outcome(provider.key, cell.scenario, "n/a", note=f"left out: {exc}", wire=wire)
    path = cassettes.cassette_path(suite.cassettes, provider.key, cell.scenario, wire=wire)
    outcome = Outcome(provider.key, cell.scenario, "pass", note="synthesized", wire=wire)
    findings = outcome.findings
    where = str(path.relative_to(suite.root))
    outcome.fix = f"make synthesize PROVIDER={provider.key} SCENARIO={cell.scenario}"
    try:
        committed = path.read_text(encoding="utf-8")
        body = cassettes.response_body(cassettes.load(path))
    except (OSError, cassettes.CassetteError) as exc:
        findings.append(Finding("cassette", where, "a readable cassette", str(exc)))
        outcome.status = "fail"
        return outcome
    if committed != text:
        findings.append(Finding("stale", where, "what make synthesize writes", "different"))
    followed = {r.name: r for r in recordings.discover(suite.cassettes, wire=wire)}
    shape = synthesize.shape(suite, provider.key, wire)
    follows = shape.follows if shape is not None else ()
    problems = synthesize.structure_problems(
        wire, body, [followed[name].body() for name in follows]
    )
    findings += [Finding("structure", where, "the followed recordings' keys", p) for p in problems]
    turns: dict[str, Turn] = {}
    for label, pieces in splits(body, seed=where):
        try:
            turn, event_problems = assemble_with_events(pieces)
        except ToolCallError as exc:
            findings.append(Finding("library", f"split[{label}]", "a turn", str(exc)))
            continue
        turns[label] = turn
        findings += [
            Finding("events", f"split[{label}]", "events that tell the turn", p)
            for p in event_problems
        ]
    whole = turns.get("whole")
    findings += [
        Finding("resplit", f"split[{label}]", "the same turn as whole", "different")
        for label, turn in turns.items()
        if whole is not None and cross_wire.comparable(turn) != cross_wire.comparable(whole)
    ]
    chat_path = cassettes.cassette_path(suite.cassettes, provider.key, cell.scenario)
    if whole is not None:
        try:
            chat = toolcall.assemble(cassettes.response_body(cassettes.load(chat_path)))
        except (cassettes.CassetteError, ToolCallError) as exc:
            findings.append(
                Finding("cross-wire", where, "a chat cassette that assembles", str(exc))
            )
        else:
            findings += [
                Finding("cross-wire", f"{where}{json_path[1:]}", want, got)
                for json_path, want, got in cross_wire.turn_differences(chat, whole)
            ]
    if findings:
        outcome.status = "fail"
    else:
        outcome.fix = ""
    return outcome


def _check_library(suite: Suite, cell: Cell, path: Path, body: bytes, outcome: Outcome) -> None:
    """The library under every byte split, then the turn against the scenario, into `outcome`."""
    turns: dict[str, Turn] = {}
    source = path.relative_to(suite.root) if path.is_relative_to(suite.root) else path
    findings = outcome.findings
    for label, pieces in splits(body, seed=f"{outcome.row}/{cell.scenario}"):
        try:
            turns[label], problems = assemble_with_events(pieces)
        except ToolCallError as exc:
            got = f"{type(exc).__name__} on {source}: {exc}"
            findings.append(Finding("library", f"split[{label}]", "a valid turn", got))
            break
        findings += [
            Finding("events", f"split[{label}]", "events that tell the turn", p) for p in problems
        ]
    if turns:
        whole = turns["whole"] if "whole" in turns else next(iter(turns.values()))
        reference = whole.to_dict()
        for label, turn in turns.items():
            if turn.to_dict() != reference:
                findings.append(
                    Finding("resplit", f"split[{label}]", "the same turn as whole", "different")
                )
        outcome.diagnostics = sorted({d.code for d in whole.diagnostics})
        findings += check_turn(suite, cell, whole)


def route_cassettes(
    suite: Suite, provider: str | None = None, scenario: str | None = None
) -> list[tuple[str, str, str, Path]]:
    """(provider, route, scenario, path) of every cassette recorded through a route
    (`cassettes/<provider>/routes/<route>/<scenario>.yaml`), optionally filtered."""
    found = []
    for path in sorted(suite.cassettes.glob(f"*/{ROUTES}/*/*.yaml")):
        key, route, name = path.parts[-4], path.parts[-2], path.name.removesuffix(".yaml")
        if (provider and key != provider) or (scenario and name != scenario):
            continue
        found.append((key, route, name, path))
    return found


def check_route_cell(suite: Suite, provider_key: str, route_key: str, path: Path) -> Outcome:
    """Every check on a cassette recorded through a route: the cell's own checks, with its
    fingerprint judged against the provider's quirks under the route's declared changes."""
    scenario = path.name.removesuffix(".yaml")
    outcome = Outcome(provider_key, scenario, "pass", note="recorded", route=route_key)
    findings = outcome.findings
    provider = suite.providers.get(provider_key)
    route = suite.routes.get(route_key)
    cell = provider.cells.get(scenario) if provider is not None else None
    if provider is None or cell is None or route is None:
        known = "a provider, scenario and route of the profiles"
        findings.append(Finding("profile", "$", known, f"{provider_key}/{route_key}/{scenario}"))
        outcome.status = "fail"
        return outcome
    try:
        replayed = replay_own_request(path)
    except ReplayError as exc:
        findings.append(Finding("replay", "$", "a cassette that replays", str(exc)))
        outcome.status = "fail"
        return outcome
    recorded = (replayed.provenance.get("kind"), replayed.provenance.get("route"))
    if recorded != ("recorded", route_key):
        findings.append(Finding("provenance", "$", ("recorded", route_key), recorded))
    outcome.note = _provenance(replayed.provenance)
    _check_library(suite, cell, path, replayed.body, outcome)
    try:
        observed = fingerprint.observe(replayed.body)
    except wires.UnreadableBody as exc:
        findings.append(Finding("quirks", "$", "a readable stream", str(exc)))
    else:
        accept = f"make record PROVIDER={provider_key} ROUTE={route_key} ACCEPT=1"
        changes = route.changes_for(provider_key, scenario)
        for quirk, want, got in fingerprint.compare({**cell.quirks, **changes}, observed):
            where = (
                f"routes.{route_key}.changes.{provider_key}.{quirk}"
                if quirk in changes
                else f"providers.{provider_key}.quirks.{quirk}"
            )
            findings.append(Finding("quirks", where, want, f"{got!r} (accept with {accept})"))
    if findings:
        outcome.status = "fail"
    return outcome


def _check_provenance(provider: Provider, cell: Cell, recorded: dict[str, Any]) -> list[Finding]:
    """The profile and the cassette must say the same thing about where the cassette came from:
    a recording the profile does not know of is evidence nobody accepted yet."""
    declared = cell.provenance.get("kind")
    observed = recorded.get("kind")
    if declared == observed:
        return []
    accept = f"make record PROVIDER={provider.key} SCENARIO={cell.scenario} ACCEPT=1"
    if declared == "pending":
        advice = f"not recorded yet: {accept}"
    elif observed == "recorded":
        advice = f"recorded, not accepted: record it again with {accept}"
    else:
        advice = f"a {observed} cassette: {accept}"
    path = f"providers.{provider.key}.scenarios.{cell.scenario}.provenance.kind"
    return [Finding("provenance", path, declared, advice)]


def _check_fingerprint(cell: Cell, body: bytes) -> list[Finding]:
    try:
        observed = fingerprint.observe(body)
    except wires.UnreadableBody as exc:
        return [Finding("quirks", "$", "a readable stream", str(exc))]
    return [
        Finding("quirks", f"quirks.{quirk}", want, got)
        for quirk, want, got in fingerprint.compare(cell.quirks, observed)
    ]


def _provenance(provenance: dict[str, Any]) -> str:
    kind = provenance.get("kind", "")
    if kind == "recorded":
        return f"recorded {provenance.get('date')} ({provenance.get('model')})"
    return str(kind)
