"""Round trip: record every cell from `toolcall serve` and the recordings are the cassettes served.

The recorder talks real HTTP to the simulator, with a dummy key, into a scratch copy of the suite;
each recorded body must be byte for byte the body served, the cassette must say it was recorded,
and once the recordings are accepted into the copy's providers.yaml the copy must pass
conformance, with every declared quirk value unchanged (the streams are the same streams).
`make test` does it for two providers of opposite shapes (GLM streams arguments incrementally and
has every scenario; Gemini sends whole calls); `make check` for all of them.
"""

from __future__ import annotations

import shutil
from collections.abc import Collection
from pathlib import Path

import pytest

from toolcall.harness import serving
from toolcall.harness.checks import check_cell
from toolcall.harness.recording import accept
from toolcall.harness.recording.record import Recorded, RecordOptions, record_cell
from toolcall.harness.suite import cassettes
from toolcall.harness.suite.profiles import load_suite

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_recording_two_providers_from_the_simulator_gives_back_their_cassettes(
    tmp_path: Path,
) -> None:
    round_trip(tmp_path, only={"glm", "gemini"})


@pytest.mark.slow
def test_recording_from_the_simulator_gives_back_the_cassettes(tmp_path: Path) -> None:
    round_trip(tmp_path, only=None)


def round_trip(tmp_path: Path, only: Collection[str] | None) -> None:
    """Record every applicable cell of the `only` providers (all when None), accept, check."""
    for name in ("providers.yaml", "routes.yaml", "scenarios.yaml"):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "cassettes", tmp_path / "cassettes")
    served = load_suite(ROOT)
    scratch = load_suite(tmp_path)
    runs: dict[str, list[Recorded]] = {}
    with serving.serving(served) as running:
        for provider, _scenario, cell in scratch.cells():
            if cell.not_applicable or (only is not None and provider.key not in only):
                continue
            options = RecordOptions(
                base_url=running.url(provider.key),
                route="direct",
                environ={provider.key_env: "anything-but-a-word-0123456789"},
                attempts=1,
            )
            runs.setdefault(provider.key, []).append(record_cell(scratch, provider, cell, options))
    applicable = [
        c for p, _s, c in served.cells() if not c.not_applicable and (only is None or p.key in only)
    ]
    assert set(runs) == set(only or served.providers)
    assert sum(len(found) for found in runs.values()) == len(applicable)
    changes = [accept.plan(scratch, scratch.providers[key], found) for key, found in runs.items()]
    for change in changes:
        declared = scratch.providers[change.provider].quirks
        assert [q for q in change.quirks if q in declared] == [], change.provider
    accept.apply(tmp_path / "providers.yaml", changes)
    accepted = load_suite(tmp_path)
    for key, found in runs.items():
        provider = accepted.providers[key]
        for recorded in found:
            cell = provider.cells[recorded.scenario]
            assert cell.provenance["kind"] == "recorded"
            original = cassettes.cassette_path(ROOT / "cassettes", key, cell.scenario)
            assert cassettes.response_body(cassettes.load(recorded.path)) == (
                cassettes.response_body(cassettes.load(original))
            ), recorded.path
            assert cassettes.evidence_kind(recorded.path) == "recorded"
            outcome = check_cell(accepted, provider, cell)
            assert outcome.status == "pass", outcome.report()
