"""The pytest plugin: the conformance suite here, and every cassette for other projects.

Registered through the `pytest11` entry point, so any project with `toolcall[harness]` installed
has it, with its options namespaced (`--toolcall-provider`, `--toolcall-scenario`,
`--toolcall-root`, `--toolcall-report`, `--toolcall-json`). It generates tests only for tests
that ask for its fixtures, so it stays silent elsewhere:

- `conformance_outcome` / `recording_outcome`: this repository's own suite, one test per
  provider x scenario and per published recording, with the matrix printed at the end;
- `toolcall_case`: the hook for another project's assembler. A test that takes it runs once per
  case (every cassette, truncated variant and published recording), gets the raw body
  (`toolcall_case.body`, to test an SSE parser too) or the decoded chunks (`.chunks`) and the
  request, and hands its answer to `toolcall_case.check(...)`, which fails with the same verdict
  `toolcall matrix` would print.

The data comes from the checkout the tests run in, or from the package (`harness.locate`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from . import matrix, published, report
from .checks import Outcome, check_cell, check_recording
from .locate import suite_root
from .peers.external import read_document
from .profiles import Cell, ProfileError, Provider, Suite, load_suite
from .verdict import judge

_OUTCOMES = pytest.StashKey[list[Outcome]]()
_SUITE = pytest.StashKey[Suite]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("toolcall", "toolcall conformance suite")
    group.addoption(
        "--toolcall-provider", default=None, help="only this provider (a providers.yaml key)"
    )
    group.addoption(
        "--toolcall-scenario", default=None, help="only this scenario (a scenarios.yaml key)"
    )
    group.addoption(
        "--toolcall-root",
        default=None,
        help="folder holding providers.yaml, scenarios.yaml and cassettes/ (default: the "
        "checkout around the rootdir, else the data the package ships)",
    )
    group.addoption(
        "--toolcall-report", default=None, help="write the Markdown matrix to this file"
    )
    group.addoption(
        "--toolcall-json",
        default=None,
        help="write the report as JSON (toolcall/schemas/reports.schema.json) to this file",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_OUTCOMES] = []
    provider = config.getoption("--toolcall-provider")
    scenario = config.getoption("--toolcall-scenario")
    if provider or scenario:
        # Checked before collection, so a typo is one line of error, not a traceback.
        try:
            _suite(config).cells(provider, scenario)
        except ProfileError as exc:
            raise pytest.UsageError(str(exc)) from None


def _suite(config: pytest.Config) -> Suite:
    if _SUITE not in config.stash:
        explicit = config.getoption("--toolcall-root")
        try:
            root = suite_root(Path(explicit) if explicit else None, start=config.rootpath)
            config.stash[_SUITE] = load_suite(root)
        except ProfileError as exc:
            raise pytest.UsageError(str(exc)) from None
    return config.stash[_SUITE]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "toolcall_case" in metafunc.fixturenames:
        _parametrize_cases(metafunc)
    if "published_recording" in metafunc.fixturenames:
        _parametrize_recordings(metafunc)
    if "conformance_cell" not in metafunc.fixturenames:
        return
    config = metafunc.config
    provider = config.getoption("--toolcall-provider")
    scenario = config.getoption("--toolcall-scenario")
    try:
        cells = _suite(config).cells(provider, scenario)
    except ProfileError as exc:
        raise pytest.UsageError(str(exc)) from None
    _parametrize(
        metafunc,
        "conformance_cell",
        [(p, c) for p, _s, c in cells],
        [f"{p.key}-{s.name}" for p, s, _c in cells],
        "provider x scenario cells",
    )


def _parametrize(
    metafunc: pytest.Metafunc, name: str, values: list[Any], ids: list[str], what: str
) -> None:
    """One test per value; when a narrowed run selects none, one skipped test that says what was
    selected, instead of pytest's `got empty parameter set`."""
    if values:
        metafunc.parametrize(name, values, ids=ids)
        return
    config = metafunc.config
    narrowed = [
        f"{option}={config.getoption(option)}"
        for option in ("--toolcall-provider", "--toolcall-scenario")
        if config.getoption(option)
    ]
    reason = f"no {what} selected by {' '.join(narrowed) or 'this run'}"
    if what == "published recordings" and config.getoption("--toolcall-scenario"):
        reason += " (a published recording belongs to no scenario)"
    skipped = pytest.param(None, marks=pytest.mark.skip(reason=reason))
    metafunc.parametrize(name, [skipped], ids=["none-selected"])


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
    """One test per published recording; a scenario filter (recordings have none) skips them."""
    config = metafunc.config
    if config.getoption("--toolcall-scenario"):
        recordings: list[published.Recording] = []
    else:
        suite = _suite(config)
        try:
            recordings = published.discover(
                suite.cassettes, config.getoption("--toolcall-provider"), keep_unreadable=True
            )
        except published.PublishedError as exc:
            raise pytest.UsageError(str(exc)) from None
    _parametrize(
        metafunc,
        "published_recording",
        recordings,
        [r.id for r in recordings],
        "published recordings",
    )


@pytest.fixture
def recording_outcome(
    request: pytest.FixtureRequest, published_recording: published.Recording
) -> Outcome:
    """The checked outcome of one published recording, also kept for the end-of-run report."""
    outcome = check_recording(_suite(request.config), published_recording)
    request.config.stash[_OUTCOMES].append(outcome)
    return outcome


def _parametrize_cases(metafunc: pytest.Metafunc) -> None:
    config = metafunc.config
    try:
        found = list(
            matrix.cases(
                _suite(config),
                matrix.Matrix(),
                provider=config.getoption("--toolcall-provider"),
                scenario=config.getoption("--toolcall-scenario"),
            )
        )
    except (ProfileError, matrix.MatrixError, published.PublishedError) as exc:
        raise pytest.UsageError(str(exc)) from None
    cases = [ToolcallCase(c) for c in found]
    _parametrize(metafunc, "toolcall_case", cases, [c.id for c in cases], "cases")


class ToolcallCase:
    """One stream for another project's assembler, and the judge of its answer.

    `body` is the stream as it came over HTTP, `chunks` its decoded `data:` payloads (no
    `[DONE]`), `request` the request body that asked for it. `check(answer)` takes what the
    assembler made of it in the implementation protocol's shape (`{"tool_calls": [{"id", "type",
    "function": {"name", "arguments"}}]}`, `"error"` for a stream it refuses, or both), or the
    exception it raised, and fails the test with the verdict's reason.
    """

    def __init__(self, case: matrix.Case) -> None:
        self._case = case
        self.id = f"{case.provider}/{case.scenario}"
        self.body = case.body
        self.chunks = case.chunks
        self.request = case.request

    def check(self, answer: Mapping[str, Any] | BaseException) -> None:
        judged = answer if isinstance(answer, BaseException) else read_document(dict(answer))
        verdict = judge(self._case.expected, judged)
        if not verdict.passed:
            pytest.fail(f"{self.id}: {verdict.reason or verdict.label}", pytrace=False)

    def __repr__(self) -> str:
        return f"ToolcallCase({self.id})"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    outcomes = terminalreporter.config.stash[_OUTCOMES]
    if not outcomes:
        return
    terminalreporter.section("toolcall conformance matrix")
    terminalreporter.write_line(report.text(outcomes))
    target = terminalreporter.config.getoption("--toolcall-report")
    if target:
        path = Path(target)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(report.markdown(outcomes), encoding="utf-8")
        terminalreporter.write_line(f"Markdown report: {path}")
    target = terminalreporter.config.getoption("--toolcall-json")
    if target:
        path = Path(target)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report.document(outcomes), indent=1) + "\n", encoding="utf-8")
        terminalreporter.write_line(f"JSON report: {path}")
