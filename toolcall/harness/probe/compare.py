"""One endpoint's probe against another's, scenario by scenario: what a gateway changes.

Probe the server straight (`--json direct.json`), then the same server through a gateway with
`--compare-to direct.json`: each scenario's two answers (streamed and unstreamed) are set side by
side, and every difference the probe can see is one change: a finding only one side has (the
gateway's `index_reused` where the server's was `index_absent`), or what the answer was (read or
refused, its calls, its finish, how its arguments came; not its size, which a gateway always
changes). The two reports are
compared as the probe wrote them, so the first may be from any earlier run, kept as a file.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: What a scenario's answer says, compared in this order.
FIELDS = ("status", "calls", "finish", "arguments")


class CannotCompare(ValueError):
    """The report to compare with cannot be read; the message names the file and why."""


def load(path: Path) -> dict[str, Any]:
    """An earlier probe's JSON report (`--json`), or `CannotCompare` naming what is wrong."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise CannotCompare(f"cannot read the probe report {path}: {exc}") from None
    if not isinstance(document, dict) or not isinstance(document.get("scenarios"), list):
        raise CannotCompare(f"{path} is not a probe's JSON report (no `scenarios` list)")
    return document


def changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every difference from `before` (the server straight) to `after` (through the gateway),
    for the scenarios both reports probed: `{scenario, streamed, what, before, after}`."""
    found: list[dict[str, Any]] = []
    was = {s.get("name"): s for s in before["scenarios"] if isinstance(s, Mapping)}
    for scenario in after["scenarios"]:
        name = scenario.get("name")
        if name not in was:
            continue
        for streamed in (True, False):
            side = "streamed" if streamed else "unstreamed"
            left, right = was[name].get(side) or {}, scenario.get(side) or {}
            for field in FIELDS:
                if left.get(field) != right.get(field):
                    change = {"what": field, "before": left.get(field), "after": right.get(field)}
                    found.append({"scenario": name, "streamed": streamed, **change})
            codes = [_codes(report, name, streamed) for report in (before, after)]
            if codes[0] != codes[1]:
                found.append(
                    {
                        "scenario": name,
                        "streamed": streamed,
                        "what": "findings",
                        "before": sorted(codes[0] - codes[1]),
                        "after": sorted(codes[1] - codes[0]),
                    }
                )
    return found


def _codes(report: Mapping[str, Any], scenario: str, streamed: bool) -> set[str]:
    return {
        str(f.get("code"))
        for f in report.get("findings") or []
        if f.get("scenario") == scenario and f.get("streamed") is streamed
    }


def terminal(compared_to: str, found: list[dict[str, Any]]) -> str:
    """The changes for a terminal, one a line, after a line naming the report compared with."""
    head = f"compared with {compared_to}: "
    if not found:
        return head + "no scenario's answer changed\n"
    lines = [head + f"{len(found)} change(s)"]
    for c in found:
        side = "streamed" if c["streamed"] else "unstreamed"
        lines.append(
            f"CHANGED  {c['scenario']} ({side}) {c['what']}: {c['before']!r} -> {c['after']!r}"
        )
    return "\n".join(lines) + "\n"
