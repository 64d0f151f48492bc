"""The implementation matrix for the terminal and as Markdown.

One row per provider and scenario, one column per implementation, each cell `pass` or the kind of
failure; below the grid, one line per failing cell with its reason. Implementations that could not
run are listed with why, so a missing package is visible rather than a silently shorter table.
"""

from __future__ import annotations

import platform
from typing import Any

from .matrix import Matrix, Result

#: Said under every matrix: who decides what the right answer is, per kind of row.
JUDGES = (
    "judged by: published/<name> rows, the expectation written by hand beside the recording; "
    "scenario rows (synthesized cassettes), the reference's own turn for the same bytes plus the "
    "scenario's expect schema; *_truncated rows, that the cut is reported"
)


def _rows(matrix: Matrix) -> list[tuple[str, str]]:
    return list(dict.fromkeys((r.provider, r.scenario) for r in matrix.results))


def _cells(matrix: Matrix) -> dict[tuple[str, str, str], Result]:
    return {(r.provider, r.scenario, r.implementation): r for r in matrix.results}


def _names(matrix: Matrix) -> list[str]:
    return [name for name, _version in matrix.implementations]


def _failures(matrix: Matrix) -> list[Result]:
    return [r for r in matrix.results if not r.verdict.passed]


def summary(matrix: Matrix) -> str:
    parts = []
    for name in _names(matrix):
        mine = [r for r in matrix.results if r.implementation == name]
        parts.append(f"{name} {sum(r.verdict.passed for r in mine)}/{len(mine)}")
    return "passed: " + ", ".join(parts) if parts else "no implementation ran"


def versions(matrix: Matrix) -> str:
    """The versions measured, with the Python that ran them."""
    measured = [version for _name, version in matrix.implementations]
    measured.append(f"Python {platform.python_version()}")
    return ", ".join(measured)


def text(matrix: Matrix) -> str:
    names = _names(matrix)
    cells = _cells(matrix)
    rows = _rows(matrix)
    header = ["provider", "scenario", *names]
    table = [header]
    for provider, scenario in rows:
        marks = [_mark(cells.get((provider, scenario, name))) for name in names]
        table.append([provider, scenario, *marks])
    widths = [max(len(row[i]) for row in table) + 2 for i in range(len(header))]
    lines = [f"measured with: {versions(matrix)}"]
    lines += [f"not available: {name}: {why}" for name, why in matrix.unavailable.items()]
    lines.append("")
    lines += [
        "".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in table
    ]
    failures = _failures(matrix)
    if failures:
        lines.append("")
        lines += [
            f"FAIL {r.implementation} {r.provider}/{r.scenario}: {r.verdict.reason}"
            for r in failures
        ]
    lines += ["", summary(matrix), JUDGES]
    return "\n".join(lines)


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
        lines.append(f"| {name} | {version} | {sum(r.verdict.passed for r in mine)}/{len(mine)} |")
    for name, why in matrix.unavailable.items():
        lines.append(f"| {name} | not available: {_escape(why)} | - |")
    lines += ["", "| provider | scenario | " + " | ".join(names) + " |"]
    lines.append("|---|---|" + "---|" * len(names))
    for provider, scenario in _rows(matrix):
        marks = [_mark(cells.get((provider, scenario, name)), bold=True) for name in names]
        lines.append(f"| {provider} | {scenario} | " + " | ".join(marks) + " |")
    failures = _failures(matrix)
    if failures:
        lines += ["", "## Failures", ""]
        lines += [
            f"- {r.implementation}, {r.provider} / {r.scenario}: {_escape(r.verdict.reason)}"
            for r in failures
        ]
    if matrix.not_applicable:
        lines += ["", "## Not applicable", ""]
        lines += [f"- {p} / {s}: {_escape(why)}" for p, s, why in matrix.not_applicable]
    lines.append("")
    return "\n".join(lines)


def _mark(result: Result | None, *, bold: bool = False) -> str:
    if result is None:
        return "-"
    label = result.verdict.label
    if result.verdict.passed or not bold:
        return label
    return f"**{label}**"


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
            {"name": name, "version": version, "passed": passed, "total": len(mine)}
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
            }
            for r in matrix.results
        ],
        "not_applicable": [
            {"provider": p, "scenario": s, "reason": why} for p, s, why in matrix.not_applicable
        ],
    }
