"""Shared fixtures: a private copy of the suite that a test may edit freely; and the proof that
no test wrote into the checkout.

The suite runs in a user's checkout, after they recorded, next to their reports: a test that
writes there (a cassette, a YAML file, `reports/`) destroys their work. Every file of the
checkout outside the caches is noted (time and size) when the run starts and compared when it
ends; a file added, removed or written fails the run, named. Under pytest-xdist the controller
does it, once, around all the workers.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

CACHES = frozenset(
    {".git", ".venv", "node_modules", "__pycache__", ".pytest_cache", ".hypothesis"}
    | {".mypy_cache", ".ruff_cache"}
)
_BEFORE = pytest.StashKey[dict[str, tuple[int, int]]]()

ROOT = Path(__file__).resolve().parents[1]

# The suite runs the same whatever `make test` was given: the make variables of the outer make
# (its MAKEFLAGS, and the user variables the Makefile exports) would reach every make a test runs.
MAKE_VARIABLES = (
    *("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "PYTEST_WORKERS", "PROVIDER", "SCENARIO", "ROUTE"),
    *("MODEL", "HEADER", "BASE_URL", "ACCEPT", "NAME", "KEY_ENV", "EXTERNAL", "GATEWAY"),
    *("GATEWAY_URL", "SERVE_PORT", "CLIENTS"),
)
for _name in MAKE_VARIABLES:
    os.environ.pop(_name, None)

# litellm fetches a price list from the internet when it is imported unless told not to; tests
# import it (importorskip) before its adapter could say so. Nothing here may leave the machine.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.fixture
def suite_copy(tmp_path: Path) -> Path:
    """providers.yaml, routes.yaml, scenarios.yaml and cassettes/ copied to a temporary root."""
    for name in ("providers.yaml", "routes.yaml", "scenarios.yaml"):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "cassettes", tmp_path / "cassettes")
    return tmp_path


def checkout_files(root: Path = ROOT) -> dict[str, tuple[int, int]]:
    """path -> (modification time, size) of every file of the checkout outside `CACHES`."""
    found = {}
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [name for name in subfolders if name not in CACHES]
        for name in files:
            path = os.path.join(folder, name)
            status = os.stat(path)
            found[os.path.relpath(path, root)] = (status.st_mtime_ns, status.st_size)
    return found


def _controller(config: pytest.Config) -> bool:
    return not hasattr(config, "workerinput")  # an xdist worker has it


def pytest_sessionstart(session: pytest.Session) -> None:
    if _controller(session.config):
        session.config.stash[_BEFORE] = checkout_files()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if not _controller(session.config) or _BEFORE not in session.config.stash:
        return
    before, after = session.config.stash[_BEFORE], checkout_files()
    asked = _asked_to_write(session.config)
    touched = sorted(
        p
        for p in before.keys() | after.keys()
        if before.get(p) != after.get(p) and os.path.realpath(ROOT / p) not in asked
    )
    if touched:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        lines = [f"the tests wrote into the checkout {ROOT}:", *(f"  {p}" for p in touched)]
        if reporter is not None:
            reporter.write_line("\n".join(lines), red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _asked_to_write(config: pytest.Config) -> set[str]:
    """The files the command line told this run to write (`make conformance`'s JUnit XML and
    reports): the run writing them is what was asked, not a test writing into the checkout."""
    paths = [
        config.getoption(name, None) for name in ("xmlpath", "toolcall_report", "toolcall_json")
    ]
    return {os.path.realpath(path) for path in paths if isinstance(path, str) and path}
