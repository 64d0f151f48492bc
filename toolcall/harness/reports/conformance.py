"""The conformance run's provider x scenario matrix, for the terminal and as Markdown. (The
other two reports are of other runs: `matrix_report` of implementations side by side,
`gateways.report` of streams through gateways.)

A matrix is what a user scans first: which providers, which scenarios, what broke. Each failing
cell gets one line below it with the first finding, so the reason is on screen without opening a
log; the Markdown copy is the artifact CI uploads. Beside the scenarios, a `recordings` column
says what real evidence backs each provider (published recordings passed / total, and their
kind), because a cell that passes on a synthesized cassette shows our model of the provider, and
only a recording shows the provider. A stream that came through a route other than the vendor's
own API has its own row, `provider@route`, so what a relay or gateway does is never read as the
provider's; so has a provider's wire other than chat completions (`openai@responses`), whose
only column is its recordings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..checks import Outcome
from ..reading.streams import CUT_SUFFIX, TRUNCATED
from ..suite.cassettes import CHAT
from ..suite.profiles import DIRECT

MARK = {"pass": "pass", "fail": "FAIL", "n/a": "n/a"}


RECORDINGS = "recordings"


def _grid(outcomes: Sequence[Outcome]) -> tuple[list[str], list[str], dict[tuple[str, str], str]]:
    """Rows in the order providers first came, each provider's direct row before its routes."""
    first = {provider: n for n, provider in reversed(list(enumerate(o.provider for o in outcomes)))}
    ordered = sorted(
        outcomes, key=lambda o: (first[o.provider], o.route != DIRECT, o.route, o.wire != CHAT)
    )
    providers = list(dict.fromkeys(o.row for o in ordered))
    scenarios = list(dict.fromkeys(_column(o) for o in outcomes if not o.origin))
    cells: dict[tuple[str, str], str] = {}
    for o in outcomes:
        if not o.origin and cells.get((o.row, _column(o))) != MARK["fail"]:
            cells[(o.row, _column(o))] = MARK[o.status]
    if any(o.origin for o in outcomes):
        scenarios.append(RECORDINGS)
        for provider in providers:
            cells[(provider, RECORDINGS)] = evidence(outcomes, provider)
    return providers, scenarios, cells


def _column(outcome: Outcome) -> str:
    """The column of an outcome: its scenario, except that the cut-off variants of a row's
    recordings share the cut column (failing if any fails), as a row has one cell a column."""
    if outcome.scenario.endswith(CUT_SUFFIX):
        return TRUNCATED
    return outcome.scenario


def evidence(outcomes: Sequence[Outcome], row: str) -> str:
    """`passed/total` published recordings of a matrix row, and what kind when not first-party."""
    mine = [o for o in outcomes if o.origin and o.row == row]
    if not mine:
        return "none"
    passed = sum(o.status == "pass" for o in mine)
    kinds = {o.origin for o in mine}
    label = f"{passed}/{len(mine)}"
    if "first-party" not in kinds:
        label += " (" + " and ".join(sorted(kinds)) + " only)"
    return label


def summary(outcomes: Sequence[Outcome]) -> str:
    """The counts, then how the published recordings fared among them (a recording is never
    `n/a`, so a count in parentheses after the last figure read as a part of that one)."""
    counts = {status: sum(o.status == status for o in outcomes) for status in MARK}
    line = f"{counts['pass']} passed, {counts['fail']} failed, {counts['n/a']} not applicable"
    recordings = [o for o in outcomes if o.origin]
    if not recordings:
        return line
    passed = sum(o.status == "pass" for o in recordings)
    return f"{line}; published recordings: {passed} of {len(recordings)} passed"


def text(outcomes: Sequence[Outcome]) -> str:
    providers, scenarios, cells = _grid(outcomes)
    width = max([len("provider"), *map(len, providers)]) + 2
    columns = [max(len(s), *(len(cells.get((p, s), "")) for p in providers)) + 2 for s in scenarios]
    lines = [
        "provider".ljust(width)
        + "".join(s.ljust(w) for s, w in zip(scenarios, columns, strict=False))
    ]
    for provider in providers:
        row = provider.ljust(width)
        row += "".join(
            cells.get((provider, s), "-").ljust(w) for s, w in zip(scenarios, columns, strict=False)
        )
        lines.append(row.rstrip())
    failures = [o for o in outcomes if o.status == "fail"]
    if failures:
        lines.append("")
        lines += [o.failure() for o in failures]
    lines += ["", summary(outcomes)]
    return "\n".join(lines)


def markdown(outcomes: Sequence[Outcome]) -> str:
    providers, scenarios, cells = _grid(outcomes)
    lines = [
        "# Conformance report",
        "",
        "| provider | " + " | ".join(scenarios) + " |",
        "|---|" + "---|" * len(scenarios),
    ]
    for provider in providers:
        row = [cells.get((provider, s), "-") for s in scenarios]
        lines.append(f"| {provider} | " + " | ".join(row) + " |")
    lines += ["", summary(outcomes), ""]
    failures = [o for o in outcomes if o.status == "fail"]
    if failures:
        lines += ["## Failures", ""]
        for outcome in failures:
            lines.append(f"### {outcome.row} / {outcome.scenario}")
            lines += [f"- `{finding.line()}`" for finding in outcome.findings]
            if outcome.fix:
                lines.append(f"- fix: {outcome.fix}")
            lines.append("")
    skipped = [o for o in outcomes if o.status == "n/a"]
    if skipped:
        lines += ["## Not applicable", ""]
        lines += [f"- {o.row} / {o.scenario}: {o.note}" for o in skipped]
        lines.append("")
    return "\n".join(lines)


def document(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """The conformance report for machines (`reports.schema.json`, `$defs/conformance`)."""
    counts = {status: sum(o.status == status for o in outcomes) for status in MARK}
    return {
        "report": "conformance",
        "version": 1,
        "summary": {
            "passed": counts["pass"],
            "failed": counts["fail"],
            "not_applicable": counts["n/a"],
            "recordings": sum(1 for o in outcomes if o.origin),
        },
        "outcomes": [
            {
                "provider": o.provider,
                "route": o.route,
                "wire": o.wire,
                "scenario": o.scenario,
                "status": o.status,
                "evidence": _evidence_of(o),
                "note": o.note,
                "findings": [
                    {
                        "check": f.check,
                        "path": f.path,
                        "declared": str(f.declared),
                        "observed": str(f.observed),
                    }
                    for f in o.findings
                ],
            }
            for o in outcomes
        ],
    }


def _evidence_of(outcome: Outcome) -> str:
    """A recording's origin, or the kind a cell's cassette says it is (its note's first word)."""
    if outcome.origin:
        return outcome.origin
    return outcome.note.split(" ")[0] if outcome.status != "n/a" else ""
