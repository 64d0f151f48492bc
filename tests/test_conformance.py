"""The conformance suite: one test per provider x scenario, per published recording and per
cassette recorded through a route."""

from __future__ import annotations

import pytest

from toolcall.harness.checks import Outcome


def test_cassette(conformance_outcome: Outcome) -> None:
    if conformance_outcome.status == "n/a":
        pytest.skip(f"not applicable: {conformance_outcome.note}")
    assert conformance_outcome.status == "pass", conformance_outcome.report()


def test_published_recording(recording_outcome: Outcome) -> None:
    assert recording_outcome.status == "pass", recording_outcome.report()


def test_route_cassette(route_outcome: Outcome) -> None:
    assert route_outcome.status == "pass", route_outcome.report()
