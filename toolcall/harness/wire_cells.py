"""The conformance check of one synthesized wire cassette, as a matrix outcome (row
`provider@wire`, column the scenario).

The committed cassette must be what the synthesizer writes today, its events must have the
skeletons of the recordings it follows, every re-split must give the whole body's turn with
events that tell it, and that turn must equal the turn of the provider's chat cassette of the
same scenario, ids aside (`cross_wire.turn_differences`, the comparison recorded pairs use).
"""

from __future__ import annotations

import toolcall
from toolcall import ToolCallError, Turn

from . import cassettes, cross_wire, recordings, synthesize
from .checks import Finding, Outcome, splits
from .event_check import assemble_with_events
from .profiles import Cell, Provider, Suite


def check_wire_cell(suite: Suite, provider: Provider, cell: Cell, wire: str) -> Outcome | None:
    """Run every check on one synthesized wire cassette; None for a cell left out (its reply
    needs an event no followed recording shows)."""
    try:
        text = synthesize.cassette_text(suite, provider, cell, wire)
    except synthesize.Unshown:
        return None
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
    problems = synthesize.structure_problems(body, [followed[name].body() for name in follows])
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
