"""pytest wiring for the conformance suite: one test per provider x scenario, then the matrix.

The tests are generated from providers.yaml and scenarios.yaml, so adding a provider or scenario
is a YAML change. `--provider` and `--scenario` narrow the run (the Makefile passes PROVIDER= and
SCENARIO= through); the matrix is printed at the end of the run and written as Markdown, and the
JUnit XML comes from pytest's own `--junitxml`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from . import published, report
from .checks import Outcome, check_cell, check_recording
from .profiles import Cell, ProfileError, Provider, Suite, load_suite

_OUTCOMES = pytest.StashKey[list[Outcome]]()
_SUITE = pytest.StashKey[Suite]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("toolcall conformance")
    group.addoption("--provider", default=None, help="only this provider (a providers.yaml key)")
    group.addoption("--scenario", default=None, help="only this scenario (a scenarios.yaml key)")
    group.addoption(
        "--conformance-root",
        default=None,
        help="folder holding providers.yaml, scenarios.yaml and cassettes/ (default: rootdir)",
    )
    group.addoption(
        "--conformance-report",
        default=None,
        help="write the Markdown matrix to this file",
    )
    group.addoption(
        "--conformance-json",
        default=None,
        help="write the report as JSON (toolcall/schemas/reports.schema.json) to this file",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_OUTCOMES] = []
    provider = config.getoption("--provider")
    scenario = config.getoption("--scenario")
    if provider or scenario:
        # Checked before collection, so a typo is one line of error, not a traceback.
        try:
            _suite(config).cells(provider, scenario)
        except ProfileError as exc:
            raise pytest.UsageError(str(exc)) from None


def _suite(config: pytest.Config) -> Suite:
    if _SUITE not in config.stash:
        root = config.getoption("--conformance-root") or config.rootpath
        config.stash[_SUITE] = load_suite(Path(root))
    return config.stash[_SUITE]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "published_recording" in metafunc.fixturenames:
        _parametrize_recordings(metafunc)
    if "conformance_cell" not in metafunc.fixturenames:
        return
    config = metafunc.config
    provider = config.getoption("--provider")
    scenario = config.getoption("--scenario")
    try:
        cells = _suite(config).cells(provider, scenario)
    except ProfileError as exc:
        raise pytest.UsageError(str(exc)) from None
    metafunc.parametrize(
        "conformance_cell",
        [(p, c) for p, _s, c in cells],
        ids=[f"{p.key}-{s.name}" for p, s, _c in cells],
    )


@pytest.fixture
def conformance_outcome(
    request: pytest.FixtureRequest, conformance_cell: tuple[Provider, Cell]
) -> Outcome:
    """The checked outcome of this test's cell, also kept for the end-of-run matrix."""
    provider, cell = conformance_cell
    outcome = check_cell(_suite(request.config), provider, cell)
    request.config.stash[_OUTCOMES].append(outcome)
    return outcome


def _parametrize_recordings(metafunc: pytest.Metafunc) -> None:
    """One test per published recording; `--scenario` (a scenario, not a recording) skips them."""
    config = metafunc.config
    if config.getoption("--scenario"):
        recordings: list[published.Recording] = []
    else:
        suite = _suite(config)
        try:
            recordings = published.discover(suite.cassettes, config.getoption("--provider"))
        except published.PublishedError as exc:
            raise pytest.UsageError(str(exc)) from None
    metafunc.parametrize("published_recording", recordings, ids=[r.id for r in recordings])


@pytest.fixture
def recording_outcome(
    request: pytest.FixtureRequest, published_recording: published.Recording
) -> Outcome:
    """The checked outcome of one published recording, also kept for the end-of-run report."""
    outcome = check_recording(_suite(request.config), published_recording)
    request.config.stash[_OUTCOMES].append(outcome)
    return outcome


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    outcomes = terminalreporter.config.stash[_OUTCOMES]
    if not outcomes:
        return
    terminalreporter.section("toolcall conformance matrix")
    terminalreporter.write_line(report.text(outcomes))
    target = terminalreporter.config.getoption("--conformance-report")
    if target:
        path = Path(target)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(report.markdown(outcomes), encoding="utf-8")
        terminalreporter.write_line(f"Markdown report: {path}")
    target = terminalreporter.config.getoption("--conformance-json")
    if target:
        path = Path(target)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report.document(outcomes), indent=1) + "\n", encoding="utf-8")
        terminalreporter.write_line(f"JSON report: {path}")
