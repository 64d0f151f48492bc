"""Which clients break on this endpoint: every stream the probe captured, through every
implementation the matrix can run here (`matrix.roster`: the library, the SDKs and parsers
installed, the HTTP clients and the external programs), judged as the matrix judges a cassette.

What a correct client makes of a captured stream is what the reference library made of it: its
calls, or for a turn cut at the token limit, saying so (`verdict.judge`). A stream the library
refuses for another reason (a call lost, a name holding template tokens) expects an error; a
client that hands over calls anyway is named.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import toolcall

from ..matrix import run as matrix
from ..matrix.verdict import Expected
from ..peers import Call, Implementation
from ..reading import streams
from ..recording import scrub
from ..suite.case import Case
from .runner import Exchange


@dataclass
class Clients:
    """Per implementation: its version and its verdicts (scenario, label, reason)."""

    versions: dict[str, str] = field(default_factory=dict)
    unavailable: dict[str, str] = field(default_factory=dict)
    verdicts: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)

    def broken(self) -> dict[str, list[tuple[str, str, str]]]:
        """The implementations that failed a stream, with the streams they failed."""
        found = {n: [v for v in vs if v[1] != "pass"] for n, vs in self.verdicts.items()}
        return {name: failed for name, failed in found.items() if failed}

    def to_json(self) -> list[dict[str, Any]]:
        return [
            {
                "name": name,
                "version": self.versions.get(name, ""),
                "available": name not in self.unavailable,
                "unavailable": self.unavailable.get(name),
                "passed": sum(v[1] == "pass" for v in self.verdicts.get(name, [])),
                "failed": [
                    {"scenario": s, "label": label, "reason": reason}
                    for s, label, reason in self.verdicts.get(name, [])
                    if label != "pass"
                ],
            }
            for name in [*self.versions, *self.unavailable]
        ]


def expected(wire: str, body: bytes) -> Expected:
    """What a correct client returns for `body`: the reference library's reading of it."""
    try:
        turn = toolcall.assemble(body, wire=wire)
    except toolcall.TruncatedError:
        return Expected(truncated=True, cut_said=streams.cut_said(wire))
    except toolcall.ToolCallError as exc:
        return Expected(error=type(exc).__name__)
    return Expected(
        calls=tuple(Call(c.id, c.function.name, c.function.arguments) for c in turn.tool_calls),
        arguments=turn.arguments,
    )


def run(
    wire: str,
    captured: Sequence[Exchange],
    implementations: Sequence[Implementation],
    unavailable: Mapping[str, str],
    *,
    progress: TextIO | None = None,
) -> Clients:
    """The captured streams (answered, not refused) through `implementations` (what
    `matrix.roster` made of the user's choice; `unavailable` those that cannot run here)."""
    cases = [
        Case.captured(
            f"probe@{wire}-{e.scenario}",
            wire,
            e.scenario,
            e.chat,
            e.body,
            expected(wire, e.body),
            scrub.url(e.url),
        )
        for e in captured
        if e.streamed and e.refused is None
    ]
    judged = matrix.judge_all(implementations, cases, matrix.Matrix(), progress)
    found = Clients(
        versions=dict(judged.implementations),
        unavailable={**unavailable, **judged.unavailable},
    )
    for result in judged.results:
        verdict = (result.scenario, result.verdict.label, result.verdict.reason)
        found.verdicts.setdefault(result.implementation, []).append(verdict)
    return found
