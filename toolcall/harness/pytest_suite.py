"""What the pytest plugin does once one of its options or fixtures is used.

Kept apart from `pytest_plugin`, which pytest imports in every project that installs the package:
this module needs the `harness` extra (YAML, jsonschema, vcrpy), the plugin module must not.
The data comes from the checkout the tests run in, or from the package (`harness.suite.locate`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from .checks import Outcome
from .matrix.verdict import judge
from .peers import CHAT
from .peers.external import Crashed, read_document
from .reports import conformance as conformance_report
from .suite import recordings
from .suite.case import Case, CaseError, Filters, cases, check
from .suite.locate import suite_root
from .suite.profiles import ProfileError, Suite, load_suite

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


def filters(config: pytest.Config) -> Filters:
    """The run's narrowing, from `--toolcall-provider`, `--toolcall-scenario`, `--toolcall-wire`
    and `--toolcall-case`."""
    return Filters(
        wire=config.getoption("--toolcall-wire"),
        provider=config.getoption("--toolcall-provider"),
        scenario=config.getoption("--toolcall-scenario"),
        case=config.getoption("--toolcall-case"),
    )


def check_selection(config: pytest.Config) -> None:
    """The suite loads and the narrowing options name something in it."""
    try:
        cases(_suite(config), filters(config))
    except ProfileError as exc:
        raise pytest.UsageError(str(exc)) from None


def parametrize(metafunc: pytest.Metafunc) -> None:
    """One test per case: every case of the suite for the conformance tests (`conformance_case`,
    the cells that do not apply among them), every case with a stream for another project's
    assembler (`toolcall_case`)."""
    config = metafunc.config
    for name in ("conformance_case", "toolcall_case"):
        if name not in metafunc.fixturenames:
            continue
        try:
            found = list(cases(_suite(config), filters(config)))
            if name == "toolcall_case":
                found = [c for c in found if not c.not_applicable]
        except (ProfileError, recordings.RecordingError) as exc:
            raise pytest.UsageError(str(exc)) from None
        values: list[Any] = (
            found if name == "conformance_case" else [ToolcallCase(c) for c in found]
        )
        _parametrize(metafunc, name, values, [c.id for c in found])


def _parametrize(metafunc: pytest.Metafunc, name: str, values: list[Any], ids: list[str]) -> None:
    """One test per value; when a narrowed run selects none, one skipped test that says what was
    selected, instead of pytest's `got empty parameter set`."""
    if values:
        metafunc.parametrize(name, values, ids=ids)
        return
    reason = f"no cases selected by {filters(metafunc.config).said('--toolcall-') or 'this run'}"
    skipped = pytest.param(None, marks=pytest.mark.skip(reason=reason))
    metafunc.parametrize(name, [skipped], ids=["none-selected"])


def outcome(config: pytest.Config, case: Case) -> Outcome:
    """The checked outcome of one case."""
    return check(_suite(config), case)


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

    def __init__(self, case: Case) -> None:
        self._case = case
        self.id = case.id
        self.wire = case.wire
        self.request = case.request

    @property
    def body(self) -> bytes:
        __tracebackhide__ = True
        return self._made().body

    def _made(self) -> Case:
        """The case with its stream and expectation read, or the test failed saying why not
        (a cassette that no longer replays is the suite's problem, said in one line)."""
        __tracebackhide__ = True
        try:
            self._case.expected  # noqa: B018  # reads the body with it
        except CaseError as exc:
            problem = str(exc)
        else:
            return self._case
        pytest.fail(problem, pytrace=False)

    @property
    def events(self) -> list[dict[str, Any]]:
        __tracebackhide__ = True
        return self._made().stream.events

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
        expected = self._made().expected
        if isinstance(answer, BaseException):
            verdict = judge(expected, answer)
        elif not isinstance(answer, Mapping):
            pytest.fail(
                f"{self.id}: check() got a {type(answer).__name__}; it takes {ANSWER_SHAPE}, "
                "or the exception the assembler raised",
                pytrace=False,
            )
        else:
            try:
                verdict = judge(expected, read_document(dict(answer)))
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
