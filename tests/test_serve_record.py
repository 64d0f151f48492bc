"""Round trip: record every cell from `toolcall serve` and the recordings are the cassettes served.

The recorder talks real HTTP to the simulator, with a dummy key, into a scratch copy of the suite;
each recorded body must be byte for byte the body served, the cassette must say it was recorded,
and the copy must pass conformance as it stands.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from toolcall.harness import cassettes, serve
from toolcall.harness.checks import check_cell
from toolcall.harness.profiles import load_suite
from toolcall.harness.record import RecordOptions, record_cell

ROOT = Path(__file__).resolve().parent.parent


def test_recording_from_the_simulator_gives_back_the_cassettes(tmp_path: Path) -> None:
    for name in ("providers.yaml", "scenarios.yaml"):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "cassettes", tmp_path / "cassettes")
    served = load_suite(ROOT)
    scratch = load_suite(tmp_path)
    with serve.serving(served) as running:
        recorded = []
        for provider, _scenario, cell in scratch.cells():
            if cell.not_applicable:
                continue
            options = RecordOptions(
                base_url=running.url(provider.key),
                environ={provider.key_env: "anything-but-a-word-0123456789"},
                attempts=1,
            )
            result = record_cell(scratch, provider, cell, options)
            recorded.append((provider, cell, result.path))
    assert len(recorded) == 47
    for provider, cell, path in recorded:
        original = cassettes.cassette_path(ROOT / "cassettes", provider.key, cell.scenario)
        assert cassettes.response_body(cassettes.load(path)) == cassettes.response_body(
            cassettes.load(original)
        ), path
        assert cassettes.evidence_kind(path) == "recorded"
        outcome = check_cell(scratch, provider, cell)
        assert outcome.status == "pass", outcome.report()
