"""The implementation matrix for the terminal, as Markdown and as JSON.

One row per provider and scenario, one column per implementation, each cell `pass` or the kind of
failure; below the grid, one line per failing cell with its reason. Implementations that could not
run are listed with why, so a missing package is visible rather than a silently shorter table.

The terminal gets a grid that fits `WIDTH` columns: implementations are numbered above it, cells
are short marks, and a line that would run longer is cut; the Markdown and JSON reports keep every
name and reason whole. A column cut off (see `matrix.SKIPPED`) is one line, not one per cell.
A column whose program said it adds glue around the library it checks (its handshake's `glue`)
says so under its name, in its version cell, and in the JSON's `glue`, since its verdicts judge
that code too.
"""

from __future__ import annotations

import json
import platform
import textwrap
from collections import Counter
from collections.abc import Sequence
from typing import Any

from ..matrix.run import SKIPPED, Matrix, Result
from ..peers import CHAT, Call
from ..peers.external import escaped
from ..suite.case import Case

#: The terminal width the text report fits (an ordinary terminal is 100 columns or wider).
WIDTH = 100
#: What each cell of the terminal grid says.
MARKS = "marks: ok = pass, FAIL = wrong answer, crash = no answer, skip = cut off, - = not run"

#: Said under every matrix: who decides what the right answer is, per kind of row.
JUDGES = (
    "judged by: published/<name> rows, the expectation written by hand beside the recording; "
    "scenario rows (synthesized cassettes, on chat and as provider@wire rows on the other wires), "
    "the reference's own turn for the same bytes plus the scenario's expect schema; "
    "*_truncated rows, that the cut is reported; <wire>/<name> rows "
    "(Responses, Anthropic, Gemini, Ollama recordings), the expectation written by hand beside "
    "the recording, with a cell for the implementations that read that wire"
)


def _rows(matrix: Matrix) -> list[tuple[str, str]]:
    return list(dict.fromkeys((r.provider, r.scenario) for r in matrix.results))


def _cells(matrix: Matrix) -> dict[tuple[str, str, str], Result]:
    return {(r.provider, r.scenario, r.implementation): r for r in matrix.results}


def _names(matrix: Matrix) -> list[str]:
    return [name for name, _version in matrix.implementations]


def _failures(matrix: Matrix) -> list[Result]:
    """The failing cells, skipped ones left out (`_skipped` says those once per column)."""
    return [r for r in matrix.results if not r.verdict.passed and r.verdict.label != SKIPPED]


def _skipped(matrix: Matrix) -> list[tuple[str, int, str]]:
    """Per column cut off: its name, how many cells were skipped, and why."""
    counts = Counter(r.implementation for r in matrix.results if r.verdict.label == SKIPPED)
    reasons = {r.implementation: r.verdict.reason for r in matrix.results}
    return [(name, count, reasons[name]) for name, count in counts.items()]


def summary(matrix: Matrix) -> str:
    parts = []
    for name in _names(matrix):
        mine = [r for r in matrix.results if r.implementation == name]
        parts.append(f"{name} {sum(r.verdict.passed for r in mine)}/{len(mine)}")
    return "passed: " + ", ".join(parts) if parts else "no implementation ran"


def versions(matrix: Matrix) -> str:
    """Each implementation with the version measured (a Node client says so, an external program
    names its language), then the Python that ran the in-process ones."""
    measured = [f"{name}: {version}" for name, version in matrix.implementations]
    measured.append(f"Python {platform.python_version()}")
    return "; ".join(measured)


def text(matrix: Matrix) -> str:
    """The matrix for a terminal `WIDTH` columns wide; the reports files have the details."""
    names = _names(matrix)
    cells = _cells(matrix)
    rows = _rows(matrix)
    lines = [f"measured on Python {platform.python_version()}; the columns:"]
    for number, (name, version) in enumerate(matrix.implementations, start=1):
        mine = [r for r in matrix.results if r.implementation == name]
        passed = f"{sum(r.verdict.passed for r in mine)}/{len(mine)}"
        lines.append(_cut(f"{number:>4} {name:<16} {passed:>7} passed   {version}"))
        if name in matrix.glue:
            lines.append(_cut(f"{'':>4} {'':<16} {'':>7} glue     {matrix.glue[name]}"))
    lines += [_cut(f"not available: {name}: {why}") for name, why in matrix.unavailable.items()]
    wire_rows = {(r.provider, r.scenario) for r in matrix.results if r.wire != CHAT}
    for group in (
        [row for row in rows if row not in wire_rows],
        [row for row in rows if row in wire_rows],
    ):
        if group:
            lines += ["", *_grid(group, names, cells)]
    lines.append(MARKS)
    failures = _failures(matrix)
    skipped = _skipped(matrix)
    if failures or skipped:
        lines.append("")
    lines += [_cut(f"FAIL {r.implementation} {_named(r)}: {r.verdict.reason}") for r in failures]
    lines += [_cut(f"SKIP {name}: {count} cells {why}") for name, count, why in skipped]
    if any(line.endswith("...") for line in lines):
        lines.append("(lines cut to fit; --markdown and --json write every name and reason whole)")
    lines += ["", *_wrapped(summary(matrix)), *_wrapped(JUDGES)]
    return escaped("\n".join(lines))


def _grid(
    rows: list[tuple[str, str]], names: list[str], cells: dict[tuple[str, str, str], Result]
) -> list[str]:
    """One grid: the rows given, and the columns (numbered as above) with a cell in them; chat
    rows and the other wires' rows get one each, so neither carries the other's empty columns."""
    numbered = [
        (number, name)
        for number, name in enumerate(names, start=1)
        if any((provider, scenario, name) in cells for provider, scenario in rows)
    ]
    provider_width = max([len("provider"), *(len(p) for p, _s in rows)]) + 2
    mark_width = 6
    longest = max([len("scenario"), *(len(s) for _p, s in rows)]) + 2
    scenario_width = min(longest, max(20, WIDTH - provider_width - mark_width * len(numbered)))
    header = "provider".ljust(provider_width) + "scenario".ljust(scenario_width)
    lines = [header + "".join(str(n).rjust(mark_width) for n, _name in numbered)]
    for provider, scenario in rows:
        marks = [_short_mark(cells.get((provider, scenario, name))) for _n, name in numbered]
        shown = _cut(scenario, scenario_width - 1).ljust(scenario_width)
        lines.append(
            provider.ljust(provider_width) + shown + "".join(m.rjust(mark_width) for m in marks)
        )
    return lines


def _named(result: Result) -> str:
    """A failing cell's case, by the id `toolcall case` and `--case` take (its row and column
    for a result made without one)."""
    return result.case or f"{result.provider}/{result.scenario}"


def _short_mark(result: Result | None) -> str:
    if result is None:
        return "-"
    if result.verdict.passed:
        return "ok"
    return {"crash": "crash", SKIPPED: "skip"}.get(result.verdict.label, "FAIL")


def _cut(line: str, width: int = WIDTH) -> str:
    return line if len(line) <= width else line[: width - 3] + "..."


def _wrapped(line: str) -> list[str]:
    return textwrap.wrap(line, WIDTH, break_on_hyphens=False, break_long_words=False)


def markdown(matrix: Matrix) -> str:
    names = _names(matrix)
    cells = _cells(matrix)
    lines = [
        "# Implementation matrix",
        "",
        f"Measured with {versions(matrix)}.",
        "",
        JUDGES[0].upper() + JUDGES[1:] + ".",
        "",
        "| implementation | version | passed |",
        "|---|---|---|",
    ]
    for name, version in matrix.implementations:
        mine = [r for r in matrix.results if r.implementation == name]
        shown = _escape(version)
        if name in matrix.glue:
            shown += f"; with glue: {_escape(matrix.glue[name])}"
        lines.append(f"| {name} | {shown} | {sum(r.verdict.passed for r in mine)}/{len(mine)} |")
    for name, why in matrix.unavailable.items():
        lines.append(f"| {name} | not available: {_escape(why)} | - |")
    lines += ["", "| provider | scenario | " + " | ".join(names) + " |"]
    lines.append("|---|---|" + "---|" * len(names))
    for provider, scenario in _rows(matrix):
        marks = [_mark(cells.get((provider, scenario, name))) for name in names]
        lines.append(f"| {provider} | {scenario} | " + " | ".join(marks) + " |")
    failures = _failures(matrix)
    skipped = _skipped(matrix)
    if failures or skipped:
        lines += ["", "## Failures", ""]
        lines += [
            f"- {r.implementation}, {_named(r)}: {_escape(r.verdict.reason)}" for r in failures
        ]
        lines += [f"- {name}: {count} cells {_escape(why)}" for name, count, why in skipped]
    if matrix.not_applicable:
        lines += ["", "## Not applicable", ""]
        lines += [f"- {p} / {s}: {_escape(why)}" for p, s, why in matrix.not_applicable]
    lines.append("")
    return escaped("\n".join(lines))


def _mark(result: Result | None) -> str:
    """A Markdown cell: `pass`, or the kind of failure in bold."""
    if result is None:
        return "-"
    label = result.verdict.label
    return label if result.verdict.passed else f"**{label}**"


def _escape(text: str) -> str:
    """Keep a reason on one Markdown line and out of the table syntax."""
    return text.replace("|", "\\|").replace("\n", " ")


def document(matrix: Matrix) -> dict[str, Any]:
    """The matrix for machines (`reports.schema.json`, `$defs/matrix`)."""
    implementations = []
    for name, version in matrix.implementations:
        mine = [r for r in matrix.results if r.implementation == name]
        passed = sum(r.verdict.passed for r in mine)
        implementations.append(
            {
                "name": name,
                "version": version,
                "passed": passed,
                "total": len(mine),
                "glue": matrix.glue.get(name, ""),
            }
        )
    return {
        "report": "matrix",
        "version": 1,
        "judged_by": JUDGES,
        "implementations": implementations,
        "unavailable": dict(matrix.unavailable),
        "results": [
            {
                "implementation": r.implementation,
                "provider": r.provider,
                "scenario": r.scenario,
                "verdict": r.verdict.label,
                "reason": r.verdict.reason,
                "wire": r.wire,
                "id": r.case or f"{r.provider}/{r.scenario}",
                "answer": _answer(r),
            }
            for r in matrix.results
        ],
        "cases": [_case(case) for case in matrix.cases],
        "not_applicable": [
            {"provider": p, "scenario": s, "reason": why} for p, s, why in matrix.not_applicable
        ],
    }


#: The most of a case's body the JSON carries (a recording can run to megabytes); the case page
#: says how much was left out, and `toolcall case ID` shows it whole.
BODY_LIMIT = 64 * 1024


def _answer(result: Result) -> dict[str, Any] | None:
    """The implementation's answer (its calls, or the error it reported), None when it gave
    none (a crash or a skipped cell: the reason says why)."""
    if result.answer is None:
        return None
    return {"calls": _calls(result.answer.calls), "error": result.answer.error}


def _calls(calls: Sequence[Call]) -> list[dict[str, str]]:
    return [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in calls]


def _case(case: Case) -> dict[str, Any]:
    """One case as the report's case page shows it: where it came from, its stream (up to
    `BODY_LIMIT` bytes) and what a correct implementation answers."""
    expected = case.expected
    if expected.truncated:
        error: str | None = f"the cut is reported ({expected.cut_said} or the stream's end)"
    else:
        error = expected.error
    return {
        "id": case.id,
        "provider": case.provider,
        "scenario": case.scenario,
        "wire": case.wire,
        "framing": case.framing,
        "route": case.route,
        "kind": case.kind,
        "provenance": json.loads(
            json.dumps({"source": case.source, **case.provenance}, default=str)
        ),
        "expected": {"calls": _calls(expected.calls), "error": error},
        "body": case.body[:BODY_LIMIT].decode("utf-8", "backslashreplace"),
        "body_bytes": len(case.body),
    }
