"""The probes page: each `toolcall probe` report (an endpoint asked live) and each
`toolcall doctor` report (one stream examined), their findings first.

Their inner shapes belong to those commands; the page reads their documented top-level keys and
shows what is inside each as it is, so a new field appears without a change here."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .html import esc, page, value
from .inputs import MADE_BY

PROBE_FACTS = ("endpoint", "model", "wire")
DOCTOR_FACTS = ("wire", "framing", "model", "provider", "route")


def _report(
    name: str, document: Mapping[str, Any], facts: Sequence[str], rest: Sequence[str]
) -> str:
    findings = document["findings"]
    listed = "".join(f"<li>{_finding(f)}</li>" for f in findings) or "<li>none</li>"
    shown = [*facts, *(k for k in document if k not in (*facts, *rest, "findings"))]
    said = "".join(f"<dt>{esc(k)}</dt><dd>{_fact(document[k])}</dd>" for k in shown)
    parts = [
        f'<section class="report"><h3>{esc(name)}</h3><dl>{said}</dl>',
        f'<h4>Findings (<span data-findings="{len(findings)}">{len(findings)}</span>)</h4>'
        f"<ul>{listed}</ul>",
    ]
    parts += [f"<h4>{esc(k)}</h4>{value(document[k])}" for k in rest]
    return "".join(parts) + "</section>"


def _fact(item: Any) -> str:
    """A fact, or a guess at one (the doctor's `value` with its `evidence`) as its value first."""
    if isinstance(item, Mapping) and "value" in item:
        evidence = "".join(f"<li>{esc(e)}</li>" for e in item.get("evidence", []))
        return f"{esc(item['value'])}" + (f'<ul class="muted">{evidence}</ul>' if evidence else "")
    return value(item)


def _finding(finding: Any) -> str:
    """A finding as its line (severity, code, message) first, the rest of it folded below."""
    if not isinstance(finding, Mapping) or "message" not in finding:
        return value(finding)
    head = " ".join(str(finding[k]) for k in ("severity", "code") if finding.get(k))
    rest = {k: v for k, v in finding.items() if k not in ("severity", "code", "message")}
    folded = f"<details><summary>details</summary>{value(rest)}</details>" if rest else ""
    return f"<strong>{esc(head)}</strong> {esc(finding['message'])}{folded}"


def render(
    probes: Sequence[tuple[str, Mapping[str, Any]]],
    doctors: Sequence[tuple[str, Mapping[str, Any]]],
) -> str:
    parts = ["<h2>Probes</h2>"]
    if not probes:
        parts.append(
            f'<p class="muted">No probe yet: <code>{esc(MADE_BY["probe"])}</code> writes one.</p>'
        )
    parts += [_report(n, d, PROBE_FACTS, ("scenarios", "clients")) for n, d in probes]
    parts.append("<h2>Doctor</h2>")
    if not doctors:
        parts.append(
            f'<p class="muted">No doctor report yet: <code>{esc(MADE_BY["doctor"])}</code> '
            "writes one.</p>"
        )
    parts += [_report(n, d, DOCTOR_FACTS, ("calls", "clients")) for n, d in doctors]
    return page("Probes and doctor", "".join(parts))
