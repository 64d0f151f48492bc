"""A conformance failure is one line that names what to edit or run.

What to do depends on the cassette: a synthesized one is the profile's (edit providers.yaml at
the line named, then `make synthesize`), a recorded one the provider's (`make record ...
ACCEPT=1`), a published recording is judged by its `.expected.json`.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.helpers import stream_edit
from toolcall.harness.checks import Finding, Outcome, check_cell, check_recording, where_to_fix
from toolcall.harness.reports.conformance import summary, text
from toolcall.harness.suite import cassettes
from toolcall.harness.suite.profiles import load_suite
from toolcall.harness.suite.recordings import discover

ROOT = Path(__file__).resolve().parents[3]
GEMINI_INDEX = "      index: {value: absent,"


def break_gemini_index(root: Path) -> int:
    """Declare Gemini's index present (its cassettes show it absent); the line edited."""
    providers = root / "providers.yaml"
    lines = providers.read_text(encoding="utf-8").splitlines(keepends=True)
    (number,) = [n for n, line in enumerate(lines, 1) if line.startswith(GEMINI_INDEX)]
    lines[number - 1] = lines[number - 1].replace("{value: absent,", "{value: present,")
    providers.write_text("".join(lines), encoding="utf-8")
    return number


def test_a_synthesized_cell_names_the_profile_line_and_the_synthesize_command(
    suite_copy: Path,
) -> None:
    number = break_gemini_index(suite_copy)
    suite = load_suite(suite_copy)
    gemini = suite.providers["gemini"]
    outcome = check_cell(suite, gemini, gemini.cells["single_call"])
    assert outcome.status == "fail"
    line = outcome.failure()
    assert "\n" not in line
    assert line.startswith(
        "FAIL gemini/single_call: quirks quirks.index: declared 'present', observed 'absent'"
    )
    assert f"edit providers.yaml:{number} (providers.gemini.quirks.index)" in line
    assert line.endswith("then run make synthesize PROVIDER=gemini SCENARIO=single_call")
    assert "provider changed" not in line  # the README's old reading, wrong for synthesis


def test_a_recorded_cell_names_the_record_command() -> None:
    """The same difference on a recorded cassette is the provider's change."""
    suite = load_suite(ROOT)
    gemini = suite.providers["gemini"]
    recorded = dataclasses.replace(
        gemini.cells["parallel_calls"], provenance={"kind": "recorded", "date": "2026-01-01"}
    )
    finding = Finding("quirks", "quirks.index", "absent", "present")
    fix = where_to_fix.for_cell(suite, gemini, recorded, finding)
    assert fix.startswith("the provider changed how it streams: ")
    assert "make record PROVIDER=gemini SCENARIO=parallel_calls ACCEPT=1" in fix
    assert "(providers.gemini.quirks.index)" in fix
    replay = where_to_fix.for_cell(suite, gemini, recorded, Finding("replay", "$", "x", "y"))
    assert "make record PROVIDER=gemini SCENARIO=parallel_calls ACCEPT=1" in replay


def test_a_scenario_override_is_named_where_it_is_declared() -> None:
    suite = load_suite(ROOT)
    document = yaml.safe_load((ROOT / "providers.yaml").read_text(encoding="utf-8"))
    # A synthesized cell's fix is an edit of the profile; a recorded one's is a new recording.
    overrides = [
        (key, name, quirk)
        for key, profile in document["providers"].items()
        for name, entry in profile["scenarios"].items()
        for quirk in entry.get("quirks", {})
        if entry.get("provenance", {}).get("kind") == "synthesized"
    ]
    assert overrides, "no synthesized scenario overrides a quirk any more: nothing to test this on"
    key, name, quirk = overrides[0]
    provider = suite.providers[key]
    finding = Finding("quirks", f"quirks.{quirk}", 1, 0)
    fix = where_to_fix.for_cell(suite, provider, provider.cells[name], finding)
    assert f"(providers.{key}.scenarios.{name}.quirks.{quirk})" in fix
    number = int(fix.split("edit providers.yaml:", 1)[1].split(" ", 1)[0])
    line = (ROOT / "providers.yaml").read_text(encoding="utf-8").splitlines()[number - 1]
    assert line.strip().startswith(f"{quirk}:")


def test_a_broken_expectation_names_its_expected_json(suite_copy: Path) -> None:
    suite = load_suite(suite_copy)
    (recording,) = [
        r for r in discover(suite.cassettes, "qwen", wire="chat") if r.name.endswith("tool-call")
    ]
    expected = recording.path.with_name(recording.name + ".expected.json")
    document = json.loads(expected.read_text(encoding="utf-8"))
    document["tool_calls"][0]["name"] = "not_weather"
    expected.write_text(json.dumps(document), encoding="utf-8")
    (recording,) = [
        r for r in discover(suite.cassettes, "qwen", wire="chat") if r.name == recording.name
    ]
    outcome = check_recording(suite, recording)
    line = outcome.failure()
    assert line.startswith(
        "FAIL qwen/published/vercel-ai_qwen3-max-tool-call: expected $.tool_calls[0].name"
    )
    assert "edit cassettes/qwen/published/vercel-ai_qwen3-max-tool-call.expected.json" in line, line


def test_a_library_message_is_shown_without_escaped_quotes(suite_copy: Path) -> None:
    path = cassettes.cassette_path(suite_copy / "cassettes", "openai", "single_call")
    cassette = cassettes.load(path)
    body = cassette["interactions"][0]["response"]["body"]
    body["string"] = stream_edit.edit_chunks(body["string"], stream_edit.corrupt_arguments)
    cassettes.write_atomically(path, cassettes.dump(cassette))
    suite = load_suite(suite_copy)
    openai = suite.providers["openai"]
    outcome = check_cell(suite, openai, openai.cells["single_call"])
    line = outcome.failure()
    assert "name 'get_weather'" in line and "\\'" not in line, line
    assert "a library bug, or a broken cassette: cassettes/openai/single_call.yaml" in line


def test_the_summary_does_not_read_as_part_of_the_last_count() -> None:
    outcomes = [
        Outcome("a", "s1", "pass"),
        Outcome("a", "s2", "n/a"),
        Outcome("a", "published/r1", "pass", origin="first-party"),
        Outcome("a", "published/r2", "fail", origin="relay"),
    ]
    assert summary(outcomes) == (
        "2 passed, 1 failed, 1 not applicable; published recordings: 1 of 2 passed"
    )
    assert summary(outcomes[:2]) == "1 passed, 0 failed, 1 not applicable"
    assert "published recordings: 1 of 2 passed" in text(outcomes)


@pytest.mark.slow
def test_make_conformance_prints_one_line_per_failing_cell(suite_copy: Path) -> None:
    """No traceback of the test function above the matrix: the failure line and nothing else."""
    break_gemini_index(suite_copy)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/conformance/test_conformance.py",
            f"--toolcall-root={suite_copy}",
            "--toolcall-provider=gemini",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    failures = out.split("= FAILURES =", 1)[1].split("= toolcall conformance matrix =", 1)[0]
    body = [line for line in failures.splitlines()[1:-1] if line and not line.startswith("____")]
    assert len(body) == 4, failures  # the four gemini cells whose calls show the index
    assert all(line.startswith("FAIL gemini/") and "; fix: " in line for line in body), body
    assert "def test_case" not in out and "conformance_outcome" not in out


def test_a_recording_that_contradicts_the_profile_names_the_quirks_line(suite_copy: Path) -> None:
    providers = suite_copy / "providers.yaml"
    lines = providers.read_text(encoding="utf-8").splitlines(keepends=True)
    (number,) = [n for n, line in enumerate(lines, 1) if "later_id: {value: empty," in line]
    lines[number - 1] = lines[number - 1].replace("{value: empty,", "{value: absent,")
    providers.write_text("".join(lines), encoding="utf-8")
    suite = load_suite(suite_copy)
    (recording,) = [
        r for r in discover(suite.cassettes, "qwen", wire="chat") if r.name.endswith("tool-call")
    ]
    line = check_recording(suite, recording).failure()
    assert f"edit providers.yaml:{number} (providers.qwen.quirks.later_id)" in line, line
    assert "or waive it for vercel-ai_qwen3-max-tool-call with the reason (providers.yaml:" in line
