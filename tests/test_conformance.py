"""The conformance suite: one test per provider x scenario, per published recording, per
cassette recorded through a route, per recording of another wire (`provider@wire` rows) and per
cut-off stream of every wire, whose only right answer is to report the cut.

A failing cell fails in one line, its first finding and what to edit or run (the matrix at the
end lists every cell, reports/conformance.md every finding): a traceback of this file would say
nothing about the cassette.
"""

from __future__ import annotations

import pytest

from toolcall.harness.checks import Outcome


def test_cassette(conformance_outcome: Outcome) -> None:
    if conformance_outcome.status == "n/a":
        pytest.skip(f"not applicable: {conformance_outcome.note}")
    if conformance_outcome.status != "pass":
        pytest.fail(conformance_outcome.failure(), pytrace=False)


def test_published_recording(recording_outcome: Outcome) -> None:
    if recording_outcome.status != "pass":
        pytest.fail(recording_outcome.failure(), pytrace=False)


def test_route_cassette(route_outcome: Outcome) -> None:
    if route_outcome.status != "pass":
        pytest.fail(route_outcome.failure(), pytrace=False)


def test_wire_recording(wire_recording_outcome: Outcome) -> None:
    if wire_recording_outcome.status != "pass":
        pytest.fail(wire_recording_outcome.failure(), pytrace=False)


def test_cut_off_stream(cut_outcome: Outcome) -> None:
    if cut_outcome.status != "pass":
        pytest.fail(cut_outcome.failure(), pytrace=False)
