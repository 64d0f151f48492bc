"""What the pytest plugin does once one of its options or fixtures is used.

Kept apart from `pytest_plugin`, which pytest imports in every project that installs the package:
this module needs the `harness` extra (YAML, jsonschema, vcrpy), the plugin module must not.
The data comes from the checkout the tests run in, or from the package (`harness.locate`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from . import cassettes, conformance_report, matrix, recordings, streams, synthesize
from .checks import (
    Outcome,
    check_cell,
    check_cut,
    check_recording,
    check_route_cell,
    route_cassettes,
)
from .locate import suite_root
from .peers import CHAT
from .peers.external import Crashed, read_document
from .profiles import Cell, ProfileError, Provider, Suite, load_suite
from .verdict import judge
from .wires import NAMES as WIRES

_SUITE = pytest.StashKey[Suite]()


def _suite(config: pytest.Config) -> Suite:
    if _SUITE not in config.stash:
        explicit = config.getoption("--toolcall-root")
        try:
            root = suite_root(Path(explicit) if explicit else None, start=config.rootpath)
            config.stash[_SUITE] = load_suite(root)
        except ProfileError as exc:
            raise pytest.UsageError(str(exc)) from None
    return config.stash[_SUITE]


def check_selection(config: pytest.Config) -> None:
    """The suite loads and `--toolcall-provider` / `--toolcall-scenario` / `--toolcall-wire` name
    something in it."""
    wire = config.getoption("--toolcall-wire")
    if wire is not None and wire not in WIRES:
        raise pytest.UsageError(
            f"--toolcall-wire={wire}: not a wire; the wires: {', '.join(WIRES)}"
        )
    try:
        _suite(config).cells(
            config.getoption("--toolcall-provider"), config.getoption("--toolcall-scenario")
        )
    except ProfileError as exc:
        raise pytest.UsageError(str(exc)) from None


def parametrize(metafunc: pytest.Metafunc) -> None:
    """One test per case, per published recording or per cell, for whichever the test takes."""
    if "toolcall_case" in metafunc.fixturenames:
        _parametrize_cases(metafunc)
    if "published_recording" in metafunc.fixturenames:
        _parametrize_recordings(metafunc)
    if "route_cassette" in metafunc.fixturenames:
        found = route_cassettes(
            _suite(metafunc.config),
            metafunc.config.getoption("--toolcall-provider"),
            metafunc.config.getoption("--toolcall-scenario"),
        )
        _parametrize(
            metafunc,
            "route_cassette",
            found,
            [f"{p}@{r}-{s}" for p, r, s, _path in found],
            "cassettes recorded through a route",
        )
    if "conformance_cell" in metafunc.fixturenames:
        _parametrize_cells(metafunc)
    if "wire_recording" in metafunc.fixturenames:
        _parametrize_wire_recordings(metafunc)
    if "cut_stream" in metafunc.fixturenames:
        _parametrize_cuts(metafunc)


def _parametrize_cells(metafunc: pytest.Metafunc) -> None:
    """One test per provider x scenario cell on chat, then per cell synthesized on each other
    wire a provider offers (`provider@wire` rows)."""
    config = metafunc.config
    provider = config.getoption("--toolcall-provider")
    scenario = config.getoption("--toolcall-scenario")
    try:
        suite = _suite(config)
        chat = [(p, c, cassettes.CHAT) for p, _s, c in suite.cells(provider, scenario)]
        wires = [
            (p, c, wire)
            for p, c, wire in synthesize.cells(suite, provider, scenario)
            if wire != cassettes.CHAT
        ]
    except ProfileError as exc:
        raise pytest.UsageError(str(exc)) from None
    ids = [f"{p.key}-{c.scenario}" for p, c, _w in chat]
    ids += [f"{p.key}@{wire}-{c.scenario}" for p, c, wire in wires]
    _parametrize(metafunc, "conformance_cell", chat + wires, ids, "provider x scenario cells")


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
        for option in ("--toolcall-provider", "--toolcall-scenario", "--toolcall-wire")
        if config.getoption(option)
    ]
    reason = f"no {what} selected by {' '.join(narrowed) or 'this run'}"
    if what in ("published recordings", "wire recordings") and config.getoption(
        "--toolcall-scenario"
    ):
        reason += f" (a {what[:-1]} belongs to no scenario)"
    skipped = pytest.param(None, marks=pytest.mark.skip(reason=reason))
    metafunc.parametrize(name, [skipped], ids=["none-selected"])


def cell_outcome(config: pytest.Config, cell: tuple[Provider, Cell, str]) -> Outcome:
    """The checked outcome of one provider x scenario cell on its wire."""
    provider, checked, wire = cell
    return check_cell(_suite(config), provider, checked, wire)


def _parametrize_recordings(metafunc: pytest.Metafunc) -> None:
    """One test per published recording; a scenario filter (recordings have none) skips them."""
    config = metafunc.config
    if config.getoption("--toolcall-scenario"):
        found: list[recordings.Recording] = []
    else:
        suite = _suite(config)
        try:
            found = recordings.discover(
                suite.cassettes,
                config.getoption("--toolcall-provider"),
                wire=cassettes.CHAT,
                keep_unreadable=True,
            )
        except recordings.RecordingError as exc:
            raise pytest.UsageError(str(exc)) from None
    _parametrize(
        metafunc,
        "published_recording",
        found,
        [r.id for r in found],
        "published recordings",
    )


def recording_outcome(config: pytest.Config, recording: recordings.Recording) -> Outcome:
    """The checked outcome of one published recording."""
    return check_recording(_suite(config), recording)


def _parametrize_wire_recordings(metafunc: pytest.Metafunc) -> None:
    """One test per wire recording, narrowed by the provider that offers the wire; a scenario
    filter skips them, as it skips the published chat recordings."""
    config = metafunc.config
    found: list[recordings.Recording] = []
    if not config.getoption("--toolcall-scenario"):
        try:
            found = [
                r
                for r in recordings.selected(
                    _suite(config), config.getoption("--toolcall-provider")
                )
                if r.wire != cassettes.CHAT
            ]
        except recordings.RecordingError as exc:
            raise pytest.UsageError(str(exc)) from None
    _parametrize(metafunc, "wire_recording", found, [r.id for r in found], "wire recordings")


def wire_recording_outcome(config: pytest.Config, recording: recordings.Recording) -> Outcome:
    """The checked outcome of one wire recording."""
    return check_recording(_suite(config), recording)


def _parametrize_cuts(metafunc: pytest.Metafunc) -> None:
    """One test per cut-off variant, on every wire; a scenario filter skips them, as it skips
    the recordings most of them are cut from."""
    config = metafunc.config
    found: list[streams.Cut] = []
    if not config.getoption("--toolcall-scenario"):
        try:
            found = list(streams.cuts(_suite(config), config.getoption("--toolcall-provider")))
        except (ProfileError, recordings.RecordingError) as exc:
            raise pytest.UsageError(str(exc)) from None
    ids = [f"{c.provider}@{c.wire}-{c.scenario}" for c in found]
    _parametrize(metafunc, "cut_stream", found, ids, "cut-off streams")


def cut_outcome(config: pytest.Config, cut: streams.Cut) -> Outcome:
    """The checked outcome of one cut-off variant."""
    return check_cut(_suite(config), cut)


def route_outcome(config: pytest.Config, cassette: tuple[str, str, str, Path]) -> Outcome:
    """The checked outcome of one cassette recorded through a route."""
    provider, route, _scenario, path = cassette
    return check_route_cell(_suite(config), provider, route, path)


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
    except (ProfileError, matrix.MatrixError, recordings.RecordingError) as exc:
        raise pytest.UsageError(str(exc)) from None
    wire = config.getoption("--toolcall-wire")
    cases = [ToolcallCase(c) for c in found if wire is None or c.wire == wire]
    _parametrize(metafunc, "toolcall_case", cases, [c.id for c in cases], "cases")


ANSWER_SHAPE = (
    '{"tool_calls": [{"id": ..., "type": "function", "function": {"name": ..., '
    '"arguments": "<JSON text>"}}]}, or {"error": "..."}'
)


class ToolcallCase:
    """One stream for another project's assembler, on any wire, and the judge of its answer.

    `wire` is the API the stream is in (`chat`, `responses`, `anthropic`, `gemini`, `ollama`),
    `body` the stream as it came over HTTP, `events` its decoded JSON objects in order (the
    `data:` payloads without `[DONE]`, Ollama's lines), `chunks` the same on chat, and `request`
    the request body that asked for it. `check(answer)` takes what the assembler made of it in
    the implementation protocol's shape (`{"tool_calls": [{"id", "type", "function": {"name",
    "arguments"}}]}`, `"error"` for a stream it refuses, or both), or the exception it raised, and
    fails the test with the verdict's reason. An answer of another shape, or `chunks` asked of
    another wire's case, fails the test too, saying what to do, since the mistake is the test's,
    not the assembler's.
    """

    def __init__(self, case: matrix.Case) -> None:
        self._case = case
        self.id = f"{case.provider}/{case.scenario}"
        self.wire = case.wire
        self.body = case.body
        self.request = case.request

    @property
    def events(self) -> list[dict[str, Any]]:
        return self._case.stream.events

    @property
    def chunks(self) -> list[dict[str, Any]]:
        """The chat chunks; another wire's case has none, which is said, not given as `[]`."""
        __tracebackhide__ = True
        if self.wire != CHAT:
            pytest.fail(
                f"{self.id}: a case of the {self.wire} wire has no chat chunks; read .events or "
                ".body, or "
                "take only the chat cases (--toolcall-wire=chat, or skip when .wire != 'chat')",
                pytrace=False,
            )
        return self.events

    def check(self, answer: Mapping[str, Any] | BaseException) -> None:
        __tracebackhide__ = True
        if isinstance(answer, BaseException):
            verdict = judge(self._case.expected, answer)
        elif not isinstance(answer, Mapping):
            pytest.fail(
                f"{self.id}: check() got a {type(answer).__name__}; it takes {ANSWER_SHAPE}, "
                "or the exception the assembler raised",
                pytrace=False,
            )
        else:
            try:
                verdict = judge(self._case.expected, read_document(dict(answer)))
            except Crashed as exc:
                shape = str(exc)
            else:
                shape = ""
            if shape:  # failed here rather than in `except`, so no exception chain is printed
                pytest.fail(
                    f"{self.id}: check() got {shape}; it takes {ANSWER_SHAPE}", pytrace=False
                )
        if not verdict.passed:
            pytest.fail(f"{self.id}: {verdict.reason or verdict.label}", pytrace=False)

    def __repr__(self) -> str:
        return f"ToolcallCase({self.id})"


def summary(terminalreporter: pytest.TerminalReporter, outcomes: list[Outcome]) -> None:
    """The matrix at the end of the run, and the report files asked for."""
    terminalreporter.section("toolcall conformance matrix")
    terminalreporter.write_line(conformance_report.text(outcomes))
    target = terminalreporter.config.getoption("--toolcall-report")
    if target:
        path = Path(target)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(conformance_report.markdown(outcomes), encoding="utf-8")
        terminalreporter.write_line(f"Markdown report: {path}")
    target = terminalreporter.config.getoption("--toolcall-json")
    if target:
        path = Path(target)
        path.parent.mkdir(parents=True, exist_ok=True)
        document = conformance_report.document(outcomes)
        path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
        terminalreporter.write_line(f"JSON report: {path}")
