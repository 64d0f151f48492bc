"""The gateway x provider x scenario table, and what each gateway changed, as text, Markdown and
JSON.

One mark per cell, worst first, so a glance finds the failures: `TURN` (the assembled turn
differs), `ERROR` (no answer, or a status where a stream was due), `REQ` (a request field did not
reach upstream as sent), `CLIENT` (an HTTP client assembled differently through the gateway than
straight from serve), `HANG`, `EMPTY` or `HIDDEN` (a fault upstream that did not reach the client
as one), `pass` (the turn intact, the wire changed), `same` (byte for byte). A published column
counts its recordings. Under the table, per gateway, every change seen and on how many streams,
which is the part a reader of docs/MATRIX.md needs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from .run import FAULTS, GatewayRun, StreamResult


def mark(result: StreamResult) -> str:
    if result.case.fault:
        if result.fault is None:
            return "pass"
        return result.fault.split(":")[0].split()[0].upper()
    if result.error:
        return "ERROR"
    if result.turn:
        return "TURN"
    if result.request is not None and not result.request.intact:
        return "REQ"
    if result.clients:
        return "CLIENT"
    return "same" if result.wire == ["byte for byte"] else "pass"


def _columns(runs: Sequence[GatewayRun]) -> list[str]:
    seen: list[str] = []
    for run in runs:
        for result in run.results:
            if result.case.kind == "cell" and result.case.column not in seen:
                seen.append(result.case.column)
    tail = ["published"] if any(r.case.kind == "published" for g in runs for r in g.results) else []
    faults = [f for f in FAULTS if any(r.case.fault == f for g in runs for r in g.results)]
    return seen + tail + faults


def _cell(results: list[StreamResult]) -> str:
    if not results:
        return "n/a"
    if len(results) == 1:
        return mark(results[0])
    passed = sum(mark(r) in ("pass", "same") for r in results)
    return f"{passed}/{len(results)}"


def rows(run: GatewayRun, columns: Sequence[str]) -> list[list[str]]:
    providers = list(dict.fromkeys(r.case.provider for r in run.results))
    table = []
    for provider in providers:
        mine = [r for r in run.results if r.case.provider == provider]
        table.append([provider] + [_cell([r for r in mine if r.case.column == c]) for c in columns])
    return table


def changes(run: GatewayRun) -> list[tuple[str, int, list[str]]]:
    """(change, streams showing it, a few of those streams) for every change seen."""
    counted: Counter[str] = Counter()
    where: dict[str, list[str]] = {}
    for result in run.results:
        labels = list(result.wire) + [f"client: {n.split(':')[0]}" for n in result.client_notes]
        if result.request is not None:
            labels += [f"request: {note}" for note in result.request.notes()]
        for label in dict.fromkeys(labels):
            if label == "byte for byte":
                continue
            counted[label] += 1
            where.setdefault(label, []).append(f"{result.case.provider}/{result.case.target}")
    return [(label, n, where[label][:3]) for label, n in counted.most_common()]


def failures(run: GatewayRun) -> list[str]:
    out = []
    for result in run.results:
        if result.passed:
            continue
        case = result.case
        what = result.fault or result.error or "; ".join(result.turn or result.clients)
        if not what and result.request is not None:
            what = ", ".join(result.request.notes())
        out.append(f"{mark(result)} {case.provider}/{case.target}{_fault(result)}: {what}")
    return out


def _fault(result: StreamResult) -> str:
    return f" [{result.case.fault}]" if result.case.fault else ""


def text(runs: Sequence[GatewayRun]) -> str:
    columns = _columns(runs)
    lines: list[str] = []
    for run in runs:
        lines.append(f"== {run.name} {run.version}")
        if run.unavailable:
            lines.append(f"   unavailable: {run.unavailable}")
            continue
        table = [["provider", *columns], *rows(run, columns)]
        widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
        lines += ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)) for r in table]
        lines.append(f"   clients: {_clients(run)}")
        for label, count, examples in changes(run):
            lines.append(f"   changes: {label} ({count} streams, e.g. {', '.join(examples)})")
        lines += [f"   {line}" for line in failures(run)]
    return "\n".join(lines) + "\n"


def markdown(runs: Sequence[GatewayRun]) -> str:
    columns = _columns(runs)
    out = ["# Gateways in front of `toolcall serve`", ""]
    for run in runs:
        out.append(f"## {run.name} {run.version}")
        out.append("")
        if run.unavailable:
            out += [f"Unavailable: {run.unavailable}", ""]
            continue
        out.append("| provider | " + " | ".join(columns) + " |")
        out.append("|---" * (len(columns) + 1) + "|")
        out += ["| " + " | ".join(r) + " |" for r in rows(run, columns)]
        out += ["", f"HTTP clients through it: {_clients(run)}", ""]
        listed = changes(run)
        if listed:
            out += ["What it changed:", ""]
            out += [f"- {label}: {n} streams (e.g. {', '.join(ex)})" for label, n, ex in listed]
            out.append("")
        failed = failures(run)
        if failed:
            out += ["Failures:", ""] + [f"- {line}" for line in failed] + [""]
    return "\n".join(out)


def _clients(run: GatewayRun) -> str:
    ran = ", ".join(run.clients) or "none"
    missing = "; ".join(
        f"{name} unavailable: {why}" for name, why in run.clients_unavailable.items()
    )
    return ran + (f" ({missing})" if missing else "")


def document(runs: Sequence[GatewayRun]) -> dict[str, Any]:
    return {
        "gateways": [
            {
                "name": run.name,
                "version": run.version,
                "unavailable": run.unavailable,
                "streams": [_result(r) for r in run.results],
                "changes": [{"change": c, "streams": n} for c, n, _ in changes(run)],
            }
            for run in runs
        ]
    }


def _result(result: StreamResult) -> dict[str, Any]:
    case = result.case
    return {
        "provider": case.provider,
        "target": case.target,
        "fault": case.fault,
        "mark": mark(result),
        "passed": result.passed,
        "status": result.status,
        "seconds": round(result.seconds, 3),
        "request": result.request.notes() if result.request is not None else None,
        "turn": result.turn,
        "wire": result.wire,
        "fault_problem": result.fault,
        "error": result.error,
        "clients": result.clients,
        "client_notes": result.client_notes,
    }
