"""The doctor's report for a person: readable text for a terminal, Markdown for a bug report.

Both are made from the JSON document (`report.examine`), so they never say more or less than
`--json`. The Markdown is what a maintainer of another project needs in an issue: what is wrong,
the smallest excerpt of the bytes that shows it, where, and the versions.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

#: Characters of one excerpt shown.
EXCERPT = 400


def _guess(name: str, guess: Mapping[str, Any]) -> str:
    value = guess["value"]
    line = f"{name:9} {value}"
    if guess["candidates"] and value == "unknown":
        line += f" (one of: {', '.join(guess['candidates'])})"
    if guess["evidence"]:
        line += f"  [{'; '.join(guess['evidence'])}]"
    return line


def _call_line(call: Mapping[str, Any]) -> str:
    arguments = call["arguments"]
    shown = (
        json.dumps(arguments, ensure_ascii=False)
        if arguments is not None
        else call["arguments_text"]
    )
    if len(shown) > 160:
        shown = shown[:157] + "..."
    line = f"  [{call['index']}] {call['name']}({shown})  id {call['id']!r}"
    if call["event"] is not None:
        line += f", from event {call['event']}"
    return line if call["complete"] else line + "  (INCOMPLETE: the stream broke first)"


def _where(finding: Mapping[str, Any]) -> str:
    where = finding["where"]
    if where is None:
        return ""
    if where["event"] is None:
        return f" at the end of the body (byte {where['offset']})"
    return f" at event {where['event']}, byte {where['offset']}"


def text(document: Mapping[str, Any]) -> str:
    """The report for a terminal."""
    capture = document["capture"]
    lines = [
        f"{document['source']}: {capture['form']}, {capture['bytes']} bytes, "
        f"{capture['events']} events"
    ]
    if capture["compressed"]:
        lines[0] += ", gzip"
    if capture["status"] is not None:
        lines[0] += f", HTTP {capture['status']}"
    lines += [
        _guess("wire", document["wire"]),
        _guess("framing", document["framing"]),
        _guess("model", document["model"]),
        _guess("provider", document["provider"]),
        _guess("route", document["route"]),
        "",
        *_turn_lines(document),
        "",
        *_finding_lines(document["findings"]),
        *_client_lines(document),
        "",
        "keep it as evidence:",
        f"  {document['publish']}",
        "",
        "sound: the turn can be used as received"
        if document["sound"]
        else "NOT SOUND: a finding above says the turn cannot be used as received",
    ]
    return "\n".join(lines) + "\n"


def _turn_lines(document: Mapping[str, Any]) -> list[str]:
    turn = document["turn"]
    if turn is None:
        calls = document["calls"]
        lines = [f"turn: none (the stream broke before it ended); {len(calls)} call(s) began"]
        return lines + [_call_line(call) for call in calls]
    lines = [f"turn: finish {turn['finish_reason']!r}, {len(document['calls'])} call(s)"]
    lines += [_call_line(call) for call in document["calls"]]
    for custom in turn["custom_calls"]:
        lines.append(
            f"  custom tool {custom['name']}: {custom['input'][:160]!r}  id {custom['id']!r}"
        )
    for ran in turn["server_tool_calls"]:
        lines.append(f"  the provider ran {ran['kind']} {ran['name']!r} itself (nothing to run)")
    if turn["usage"] is not None:
        lines.append(f"  usage {json.dumps(turn['usage'])}")
    for key in ("content", "reasoning"):
        if turn[f"{key}_chars"]:
            shown = turn[key].replace("\n", " ")
            more = "..." if turn[f"{key}_chars"] > len(turn[key]) else ""
            lines.append(f"  {key} ({turn[f'{key}_chars']} chars): {shown}{more}")
    return lines


def _finding_lines(found: Sequence[Mapping[str, Any]]) -> list[str]:
    if not found:
        return ["findings: none"]
    lines = [f"findings: {len(found)}"]
    for f in found:
        lines.append(f"  {f['severity'].upper()} {f['code']}{_where(f)}: {f['message']}")
        if f["cause"]:
            lines.append(f"    usual cause: {f['cause']}")
        if f["declared_by"]:
            more = len(f["declared_by"]) - 3
            extra = f" (and {more} more)" if more > 0 else ""
            lines.append(f"    declared by: {', '.join(f['declared_by'][:3])}{extra}")
        if f["shown_in"]:
            more = len(f["shown_in"]) - 3
            extra = f" (and {more} more)" if more > 0 else ""
            lines.append(f"    also in: {', '.join(f['shown_in'][:3])}{extra}")
        if f["excerpt"] and f["severity"] == "error":
            lines.append(f"    bytes: {_cut(f['excerpt'])}")
    return lines


def _client_lines(document: Mapping[str, Any]) -> list[str]:
    verdicts = document["clients"]
    if not verdicts and not document["unavailable"]:
        return []
    lines = ["", "clients:"]
    for v in verdicts:
        said = v["verdict"] if v["verdict"] == "pass" else v["reason"] or v["verdict"]
        lines.append(f"  {v['name']} ({v['version']}): {said}")
        if v["fix"]:
            lines.append(f"    fix: {v['fix']}")
    by_reason: dict[str, list[str]] = {}
    for name, why in document["unavailable"].items():
        by_reason.setdefault(why, []).append(name)
    for why, names in by_reason.items():
        lines.append(f"  not run here: {', '.join(names)} ({why})")
    return lines


def _cut(excerpt: str) -> str:
    flat = excerpt.replace("\n", "\\n")
    return flat if len(flat) <= EXCERPT else flat[: EXCERPT - 3] + "..."


def markdown(document: Mapping[str, Any]) -> str:
    """A bug report ready to paste: the findings, the bytes that show each, the versions."""
    errors = [f for f in document["findings"] if f["severity"] != "info"]
    title = errors[0]["code"] if errors else "no problem found"
    model, wire = document["model"]["value"], document["wire"]["value"]
    lines = [
        f"### Streamed tool call: {title} ({model}, {wire} wire)",
        "",
        f"- provider: {document['provider']['value']}, route: {document['route']['value']}",
        f"- framing: {document['framing']['value']}, {document['capture']['events']} events, "
        f"{document['capture']['bytes']} bytes ({document['capture']['form']})",
        f"- finish: {(document['turn'] or {}).get('finish_reason')!r}, "
        f"{len(document['calls'])} call(s): "
        + ", ".join(f"`{c['name']}`" for c in document["calls"]),
        "",
    ]
    for f in errors:
        lines += [f"**{f['code']}** ({f['severity']}){_where(f)}: {f['message']}", ""]
        if f["cause"]:
            lines += [f"Usual cause: {f['cause']}", ""]
        if f["excerpt"]:
            lines += ["```", f["excerpt"][: EXCERPT * 2], "```", ""]
    failing = [v for v in document["clients"] if v["verdict"] != "pass"]
    if failing:
        lines += ["Clients that break on these bytes:", ""]
        lines += [f"- {v['name']} ({v['version']}): {v['reason']}" for v in failing]
        lines.append("")
    versions = ", ".join(f"{k} {v}" for k, v in document["versions"].items())
    lines += [f"Found with `toolcall doctor` ({versions}).", ""]
    return "\n".join(lines)
