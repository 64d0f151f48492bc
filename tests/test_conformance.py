"""The conformance suite: one test per provider x scenario, generated from providers.yaml."""

from __future__ import annotations

import pytest

from toolcall.harness.checks import Outcome


def test_cassette(conformance_outcome: Outcome) -> None:
    if conformance_outcome.status == "n/a":
        pytest.skip(f"not applicable: {conformance_outcome.note}")
    assert conformance_outcome.status == "pass", conformance_outcome.report()
