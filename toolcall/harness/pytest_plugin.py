"""The pytest plugin: the conformance suite here, and every cassette for other projects.

Registered through the `pytest11` entry point, so any project with `toolcall` installed has it,
with its options namespaced (`--toolcall-provider`, `--toolcall-scenario`, `--toolcall-wire`,
`--toolcall-case`, `--toolcall-root`, `--toolcall-report`, `--toolcall-json`). It generates
tests only for tests that ask for its fixtures, so it stays silent elsewhere:

- `conformance_outcome`: this repository's own suite, one test per case of every kind
  (`case.cases`: the cells on every wire, the cassettes recorded through a route, the published
  and wire recordings, the cut-off variants), with the matrix printed at the end;
- `toolcall_case`: the hook for another project's assembler. A test that takes it runs once per
  case on every wire (every case with a stream: cassettes, cut-off variants, recordings), gets the
  case's wire (`toolcall_case.wire`), its raw body (`.body`, to test a parser too) and decoded
  events (`.events`; `.chunks` on chat) and the request, and hands its answer to
  `toolcall_case.check(...)`, which fails with the same verdict `toolcall matrix` would print.
  `--toolcall-wire` narrows the cases to one wire, for an assembler that reads one.

Both take their cases from the same `case.cases`, narrowed by the same options.

pytest loads this module in every project where the package is installed, with or without the
`harness` extra, so it imports only the standard library and pytest: a project that installed
the bare library must still be able to run its tests. The suite (YAML, jsonschema, vcrpy) is
imported from `pytest_suite` when an option or a fixture of the plugin is used, and a missing
extra is then one line naming what to install.
"""

from __future__ import annotations

import importlib
import pickle
from typing import TYPE_CHECKING, Any

import pytest

from . import missing_extra

if TYPE_CHECKING:
    from .checks import Outcome
    from .suite.case import Case

#: The outcomes checked in this process, each with its test's place in the collection.
_OUTCOMES = pytest.StashKey[list[tuple[int, "Outcome"]]]()
#: Each collected test's place, by node id (built on the first outcome kept).
_PLACES = pytest.StashKey[dict[str, int]]()
#: The key under which a pytest-xdist worker hands its outcomes to the controller.
_WORKER_OUTPUT = "toolcall_outcomes"
_OPTIONS = (
    "--toolcall-provider",
    "--toolcall-scenario",
    "--toolcall-wire",
    "--toolcall-case",
    "--toolcall-root",
    "--toolcall-report",
    "--toolcall-json",
)
_FIXTURES = ("toolcall_case", "conformance_case")


def _require_harness(what: str, *, collecting: bool = False) -> None:
    """Import the suite, or stop with one line naming what asked for it and what to install.

    While options are read that is a usage error; during collection, a collection error of the
    test that asked (pytest prints a `UsageError` raised there with its traceback). Raised after
    the `except` block, so that no "during handling of the above exception" comes with it.
    """
    try:
        importlib.import_module(f"{__package__}.pytest_suite")
    except ModuleNotFoundError as exc:
        hint = missing_extra(exc)
        if hint is None:
            raise
        message = f"{what} needs toolcall's harness extra {hint}"
    else:
        return
    if collecting:
        pytest.fail(message, pytrace=False)
    raise pytest.UsageError(message)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("toolcall", "toolcall conformance suite")
    group.addoption(
        "--toolcall-provider", default=None, help="only this provider (a providers.yaml key)"
    )
    group.addoption(
        "--toolcall-scenario", default=None, help="only this scenario (a scenarios.yaml key)"
    )
    group.addoption(
        "--toolcall-wire",
        default=None,
        help="only the cases of this wire (chat, responses, anthropic, gemini, ollama)",
    )
    group.addoption(
        "--toolcall-case",
        default=None,
        help="only this case: its id as the reports show it, or a glob of ids",
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
    used = [option for option in _OPTIONS if config.getoption(option)]
    if not used:
        return
    _require_harness(used[0])
    from . import pytest_suite

    if any(config.getoption(o) for o in _OPTIONS[:4]):
        # Checked before collection, so a typo is one line of error, not a traceback.
        pytest_suite.check_selection(config)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    asked = [name for name in _FIXTURES if name in metafunc.fixturenames]
    if not asked:
        return
    _require_harness(f"the {asked[0]} fixture", collecting=True)
    from . import pytest_suite

    try:
        pytest_suite.parametrize(metafunc)
    except pytest.UsageError as exc:
        problem = str(exc)  # a suite that cannot be read: said once, not with a traceback
    else:
        return
    pytest.fail(problem, pytrace=False)


def _keep(request: pytest.FixtureRequest, outcome: Outcome) -> None:
    """Keep `outcome` for the matrix at the end, with its test's place in the collection, so
    that the matrix reads in collection order however the tests were run or distributed."""
    places = request.config.stash.get(_PLACES, None)
    if places is None:
        places = {item.nodeid: n for n, item in enumerate(request.session.items)}
        request.config.stash[_PLACES] = places
    request.config.stash[_OUTCOMES].append((places.get(request.node.nodeid, -1), outcome))


@pytest.fixture
def conformance_outcome(request: pytest.FixtureRequest, conformance_case: Case) -> Outcome:
    """The checked outcome of this test's case, also kept for the end-of-run matrix."""
    from . import pytest_suite

    outcome = pytest_suite.outcome(request.config, conformance_case)
    _keep(request, outcome)
    return outcome


def pytest_sessionfinish(session: pytest.Session) -> None:
    """On a pytest-xdist worker, hand the outcomes to the controller, which prints the one
    matrix and writes the reports. Pickled: the outcomes hold findings of any value, the two
    ends are the same interpreter and environment, and nothing else writes this channel."""
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output[_WORKER_OUTPUT] = pickle.dumps(session.config.stash[_OUTCOMES])


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """On the pytest-xdist controller: the outcomes a worker checked (none if it crashed)."""
    pickled = getattr(node, "workeroutput", {}).get(_WORKER_OUTPUT)
    if pickled:
        node.config.stash[_OUTCOMES].extend(pickle.loads(pickled))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    kept: list[tuple[int, Outcome]] = terminalreporter.config.stash[_OUTCOMES]
    if not kept:
        return
    from . import pytest_suite

    in_order = sorted(kept, key=lambda placed: placed[0])
    pytest_suite.summary(terminalreporter, [outcome for _place, outcome in in_order])
