"""The overview page: the runs' counts per wire, provider and route, and the implementations
side by side, each count linking where it is explained."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .html import esc, implementation_href, page, table
from .inputs import MADE_BY, Inputs

STATUSES = (("pass", "passed"), ("fail", "failed"), ("n/a", "not applicable"))


def _absent(key: str) -> str:
    return f'<p class="muted">No run yet: <code>{esc(MADE_BY[key])}</code> writes it.</p>'


def _by(outcomes: Sequence[Mapping[str, Any]], key: str) -> str:
    """Conformance outcomes counted per value of `key` (wire, provider, route)."""
    counts: dict[str, Counter[str]] = {}
    for outcome in outcomes:
        counts.setdefault(str(outcome[key]), Counter())[outcome["status"]] += 1
    rows = [
        [esc(name), *(str(c[s]) for s, _w in STATUSES), str(sum(c.values()))]
        for name, c in counts.items()
    ]
    return table([key, *(w for _s, w in STATUSES), "total"], rows, numeric=(1, 2, 3, 4))


def conformance(document: Mapping[str, Any] | None) -> str:
    if document is None:
        return "<h2>Conformance</h2>" + _absent("conformance")
    summary = document["summary"]
    said = ", ".join(
        f'<span data-count="{k}">{summary[k]}</span> {esc(k.replace("_", " "))}'
        for k in ("passed", "failed", "not_applicable")
    )
    outcomes = document["outcomes"]
    return (
        f'<h2>Conformance</h2><p id="conformance-summary">{said}; '
        f'<span data-count="recordings">{summary["recordings"]}</span> of the outcomes are '
        "published recordings.</p>"
        + _beside(f"<h3>Per {k}</h3>{_by(outcomes, k)}" for k in ("wire", "provider", "route"))
    )


def _beside(blocks: Iterable[str]) -> str:
    """Tables side by side where the window is wide enough, one under another where not."""
    return '<div class="beside">' + "".join(f"<div>{b}</div>" for b in blocks) + "</div>"


def _side_by_side(
    results: Iterable[Mapping[str, Any]], names: Sequence[str], key: str, label: str
) -> str:
    """Implementations side by side: one row per value of `key`, `passed/total` per column."""
    cells: dict[str, dict[str, list[int]]] = {}
    for result in results:
        row = cells.setdefault(str(result.get(key) or "unknown"), {})
        count = row.setdefault(result["implementation"], [0, 0])
        count[0] += result["verdict"] == "pass"
        count[1] += 1
    rows = [
        [esc(value)] + [f"{row[n][0]}/{row[n][1]}" if n in row else "\u2013" for n in names]
        for value, row in cells.items()
    ]
    return f"<h3>Per {esc(label)}</h3>" + table(
        [label, *names], rows, numeric=range(1, 1 + len(names))
    )


def matrix(document: Mapping[str, Any] | None) -> str:
    if document is None:
        return "<h2>Implementations</h2>" + _absent("matrix")
    names = [i["name"] for i in document["implementations"]]
    rows = [
        [
            f'<a href="{implementation_href(i["name"])}">{esc(i["name"])}</a>',
            esc(i["version"]) + (f"; with glue: {esc(i['glue'])}" if i.get("glue") else ""),
            f'<span data-impl="{esc(i["name"])}" data-passed="{i["passed"]}" '
            f'data-total="{i["total"]}">{i["passed"]} of {i["total"]}</span>',
        ]
        for i in document["implementations"]
    ]
    rows += [
        [esc(n), f"not available: {esc(why)}", "\u2013"]
        for n, why in document["unavailable"].items()
    ]
    # A result's `provider` is its matrix row (`deepseek@anthropic`); its case names the
    # provider and the route apart.
    cases = {c["id"]: c for c in document.get("cases", [])}
    results = []
    for r in document["results"]:
        case = cases.get(r.get("id", ""), {})
        where = {"provider": case.get("provider", r["provider"]), "route": case.get("route")}
        results.append({**r, **where})
    return (
        '<h2>Implementations</h2><p><a href="matrix.html">The matrix</a> has every cell. '
        "A count is passed/total; \u2013 means the implementation does not read that wire.</p>"
        + _beside(
            [
                "<h3>Passed</h3>" + table(["implementation", "version", "passed"], rows),
                _side_by_side(results, names, "wire", "wire"),
            ]
        )
        + _beside(_side_by_side(results, names, k, k) for k in ("provider", "route"))
        + f'<p class="muted">{esc(document["judged_by"])}</p>'
    )


def gateways(document: Mapping[str, Any] | None) -> str:
    if document is None:
        return "<h2>Gateways</h2>" + _absent("gateways")
    rows = []
    for gateway in document["gateways"]:
        streams = gateway["streams"]
        passed = sum(1 for s in streams if s["passed"])
        state = f"unavailable: {gateway['unavailable']}" if gateway["unavailable"] else ""
        rows.append(
            [
                esc(gateway["name"]),
                esc(gateway["version"]),
                f"{passed} of {len(streams)}",
                esc(state),
            ]
        )
    return '<h2>Gateways</h2><p><a href="gateways.html">Every stream</a>.</p>' + table(
        ["gateway", "version", "streams passed", "note"], rows
    )


def render(inputs: Inputs) -> str:
    probes = len(inputs.probes)
    doctors = len(inputs.doctors)
    body = (
        matrix(inputs.matrix)
        + conformance(inputs.conformance)
        + gateways(inputs.gateways)
        + f'<h2>Probes and doctor</h2><p><a href="probes.html">{probes} probe report(s), '
        f"{doctors} doctor report(s)</a>.</p>"
    )
    return page("Overview", body)
