"""What a check reports: findings gathered into one outcome per cassette or recording.

Each finding names the check, a JSON path, and what was declared against what was observed, so a
red CI line reads like a diff.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..suite.cassettes import CHAT
from ..suite.profiles import DIRECT


@dataclass(frozen=True)
class Finding:
    check: str
    path: str
    declared: Any
    observed: Any

    def line(self) -> str:
        declared, observed = _shown(self.declared), _shown(self.observed)
        return f"{self.check} {self.path}: declared {declared}, observed {observed}"


def _shown(value: Any) -> str:
    """A value as Python writes it, except text that holds a quote (a library message naming
    `id 'call_1'`), which `repr` would escape to `\\'`: that is shown in double quotes as it is."""
    if isinstance(value, str) and "'" in value:
        return f'"{value}"'
    return repr(value)


@dataclass
class Outcome:
    """The verdict on one cassette: a provider x scenario cell, or a published recording.

    For a recording, `scenario` is `published/<stem>` and `origin` says what kind of evidence it
    is (first-party, relay, documentation); cells leave `origin` empty. `route` is the route the
    cassette's stream came through (routes.yaml). `wire` is the API the stream was read from:
    chat completions, or another wire for a recording under `cassettes/wires/`.
    """

    provider: str
    scenario: str
    status: str  # "pass", "fail" or "n/a"
    note: str = ""
    origin: str = ""
    route: str = DIRECT
    wire: str = CHAT
    findings: list[Finding] = field(default_factory=list)
    diagnostics: list[str] = field(default_factory=list)
    #: What to edit or run for the first finding (`checks.where_to_fix`); empty when it says itself.
    fix: str = ""

    @property
    def row(self) -> str:
        """The matrix row: the provider, `provider@route` for a stream through a route, or
        `provider@wire` for a stream of another wire than chat completions."""
        if self.wire != CHAT:
            return f"{self.provider}@{self.wire}"
        return self.provider if self.route == DIRECT else f"{self.provider}@{self.route}"

    @property
    def reason(self) -> str:
        """One line for the matrix."""
        if self.status == "n/a":
            return self.note
        if not self.findings:
            return ""
        first = self.findings[0].line()
        more = len(self.findings) - 1
        return first + (f" (+{more} more)" if more else "")

    def report(self) -> str:
        lines = [f"{self.row} / {self.scenario}: {self.status}"]
        lines += [f"  {finding.line()}" for finding in self.findings]
        if self.fix:
            lines.append(f"  fix: {self.fix}")
        return "\n".join(lines)

    def failure(self) -> str:
        """The failure in one line: the cell, its first finding, and what to edit or run."""
        line = f"FAIL {self.row}/{self.scenario}: {self.reason}"
        return f"{line}; fix: {self.fix}" if self.fix else line


def differences(want: Any, got: Any, path: str = "$") -> list[tuple[str, Any, Any]]:
    """(JSON path, expected, observed) for every place two JSON values differ."""
    if isinstance(want, dict) and isinstance(got, dict):
        out = []
        for key in list(want) + [k for k in got if k not in want]:
            out += differences(want.get(key, _MISSING), got.get(key, _MISSING), f"{path}.{key}")
        return out
    if isinstance(want, list) and isinstance(got, list):
        if len(want) != len(got):
            return [(f"{path}.length", len(want), len(got))]
        out = []
        for number, (a, b) in enumerate(zip(want, got, strict=True)):
            out += differences(a, b, f"{path}[{number}]")
        return out
    if want != got or type(want) is not type(got):
        return [(path, want, got)]
    return []


class _Missing:
    def __repr__(self) -> str:
        return "(absent)"


_MISSING = _Missing()
