"""One probe run: each selected scenario asked streamed then unstreamed, `repeat` times, on
the endpoint's wire, each pair judged as soon as it is back.

A spent budget stops the run where it is: what was asked is judged and reported, what was not
is listed as not run. What makes the run impossible (`runner.CannotRun`) stops it at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..suite.profiles import Provider
from . import scenarios as scenario_list
from .judges import Finding, Seen, judge
from .runner import BudgetSpent, Exchange, Runner
from .scenarios import Scenario


@dataclass
class Outcome:
    """One scenario's answers over its repeats: what each mode held the last time, and why it
    was not run when it was not."""

    scenario: Scenario
    seen: dict[str, Seen] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    not_run: str | None = None

    def to_json(self) -> dict[str, Any]:
        codes = sorted({f.code for f in self.findings if f.severity != "note"})
        return {
            "name": self.scenario.name,
            "description": self.scenario.description,
            "not_run": self.not_run,
            "findings": codes,
            **{mode: vars(seen) | {"calls": list(seen.calls)} for mode, seen in self.seen.items()},
        }


@dataclass
class Probe:
    outcomes: list[Outcome] = field(default_factory=list)
    exchanges: list[Exchange] = field(default_factory=list)
    stopped: str | None = None

    @property
    def findings(self) -> list[Finding]:
        return [f for o in self.outcomes for f in o.findings]


def run(runner: Runner, chosen: list[Scenario], profile: Provider | None, repeat: int) -> Probe:
    """Ask and judge every scenario `repeat` times; a spent budget stops the rest."""
    probe = Probe()
    endpoint = runner.endpoint
    for scenario in chosen:
        outcome = Outcome(scenario)
        probe.outcomes.append(outcome)
        if probe.stopped:
            outcome.not_run = probe.stopped
            continue
        for number in range(1, repeat + 1):
            pair: list[Exchange | None] = [None, None]
            try:
                for at, streamed in enumerate((True, False)):
                    wire, model = endpoint.wire, endpoint.model
                    body = scenario_list.body(scenario, wire, model, streamed=streamed)
                    chat = scenario_list.chat_body(scenario, model, streamed=streamed)
                    pair[at] = runner.send(scenario.name, body, streamed=streamed, chat=chat)
            except BudgetSpent as exc:
                probe.stopped = str(exc)
            probe.exchanges += [e for e in pair if e is not None]
            if pair == [None, None]:
                outcome.not_run = probe.stopped
                break
            outcome.seen, found = judge(
                scenario, endpoint.wire, (pair[0], pair[1]), profile, number
            )
            outcome.findings += found
            if probe.stopped:
                break
    return probe
