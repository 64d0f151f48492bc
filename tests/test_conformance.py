"""The conformance suite: one test per case of the suite (`toolcall.harness.suite.case`), of every
kind: a provider x scenario cell on chat and on each wire it is synthesized on
(`provider@wire-scenario`), a cassette recorded through a route (`provider@route-scenario`), a
published recording (`provider/published/name`), a recording of another wire
(`wires/wire/name`) and a cut-off stream of any wire, whose only right answer is to report the
cut (`provider@wire-..._truncated`).

A failing case fails in one line, its first finding and what to edit or run (the matrix at the
end lists every case, reports/conformance.md every finding): a traceback of this file would say
nothing about the cassette.
"""

from __future__ import annotations

import pytest

from toolcall.harness.checks import Outcome


def test_case(conformance_outcome: Outcome) -> None:
    if conformance_outcome.status == "n/a":
        pytest.skip(f"not applicable: {conformance_outcome.note}")
    if conformance_outcome.status != "pass":
        pytest.fail(conformance_outcome.failure(), pytrace=False)
