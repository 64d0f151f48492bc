"""A conformance run narrowed by SCENARIO or PROVIDER says what it selected, and a typo is one line.

`make conformance SCENARIO=...` passes `--toolcall-scenario`; published recordings belong to no
scenario, so such a run selects none of them; a run that selects nothing at all must read as
that, not as pytest's `got empty parameter set`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def pytest_run(*options: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs"]
    return subprocess.run(
        [*command, "tests/conformance/test_conformance.py", *options],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.slow
def test_a_scenario_selects_its_cells_on_every_wire_and_no_recordings() -> None:
    done = pytest_run("--toolcall-provider=gemini", "--toolcall-scenario=single_call")
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-3000:]
    assert "empty parameter set" not in out
    # A user who recorded Gemini through a route has that cassette selected: the checkout's
    # data decides, not what a fresh clone holds.
    routed = len(list((ROOT / "cassettes" / "gemini" / "routes").glob("*/single_call.yaml")))
    # gemini and gemini@gemini single_call, and any route a user recorded it through; a
    # published recording belongs to no scenario, nor does a cut-off variant of another column.
    assert f"{2 + routed} passed in" in out, out[-3000:]


@pytest.mark.slow
def test_a_selection_of_nothing_says_so() -> None:
    """A wire-only provider has no scenario cells: the run is one skipped test saying what was
    asked, not pytest's `got empty parameter set`."""
    done = pytest_run("--toolcall-provider=anthropic", "--toolcall-scenario=single_call")
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-3000:]
    assert "empty parameter set" not in out
    selected = "--toolcall-provider=anthropic --toolcall-scenario=single_call"
    assert f"no cases selected by {selected}" in out, out[-3000:]
    assert "1 skipped" in out


@pytest.mark.slow
def test_a_typo_in_the_selection_is_one_line() -> None:
    done = pytest_run("--toolcall-scenario=singel_call")
    assert done.returncode == 4
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert done.stderr.startswith("ERROR: unknown scenario 'singel_call'; known: ")
    assert "Traceback" not in done.stdout + done.stderr


@pytest.mark.slow  # a whole conformance run, twice
def test_a_run_spread_over_workers_prints_and_writes_the_same_matrix(tmp_path: Path) -> None:
    """Under pytest-xdist (what `make test` uses) the workers check the cells and the controller
    prints the matrix: it must hold every outcome, in the order a run in one process gives."""
    reports = {}
    for name, spread in (("one", ()), ("spread", ("-n", "2", "--dist", "load"))):
        target = tmp_path / f"{name}.json"
        done = pytest_run("--toolcall-provider=doubao", f"--toolcall-json={target}", *spread)
        out = done.stdout + done.stderr
        assert done.returncode == 0, out[-3000:]
        assert "toolcall conformance matrix" in out, out[-3000:]
        reports[name] = json.loads(target.read_text(encoding="utf-8"))
    assert reports["spread"]["summary"]["passed"] > 0
    assert reports["spread"] == reports["one"]


@pytest.mark.slow  # a conformance run of a few cases
def test_a_glob_of_case_ids_selects_those_cases_and_an_unknown_one_is_one_line() -> None:
    """`make conformance CASE=...` passes `--toolcall-case`: the ids the reports show."""
    done = pytest_run("--toolcall-case=qwen@anthropic-*", "-vv")
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-3000:]
    ran = [line for line in out.splitlines() if "::test_case[" in line]
    assert len(ran) == 7 and all("test_case[qwen@anthropic-" in line for line in ran)
    assert "6 passed, 1 skipped" in out  # reasoning_then_call is left out on Anthropic
    done = pytest_run("--toolcall-case=qwen@antropic-single_call")
    assert done.returncode == 4
    assert done.stderr.startswith("ERROR: no case has the id 'qwen@antropic-single_call'; ")
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
