"""The run fails when a test writes into the checkout: the guard in conftest.py, seen firing.

(That it stays quiet when no test writes there is every other run of the suite.)
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TESTS_DIR = Path(__file__).resolve().parents[1]

TESTS = """
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_a_report() -> None:
    (ROOT / "reports").mkdir()
    (ROOT / "reports" / "gateways.md").write_text("a table of one provider")


def test_a_rewritten_file() -> None:
    (ROOT / "providers.yaml").write_text("rewritten")


def test_a_temporary_folder(tmp_path: Path) -> None:
    (tmp_path / "anything.yaml").write_text("x")
"""


def run_in_checkout(checkout: Path, tests: str, *options: str) -> tuple[int, str]:
    """pytest run in a small checkout holding the suite's conftest.py, `providers.yaml` and one
    test module with `tests`: its exit status and output."""
    (checkout / "tests").mkdir(parents=True)
    shutil.copy(TESTS_DIR / "conftest.py", checkout / "tests" / "conftest.py")
    (checkout / "providers.yaml").write_text("as committed", encoding="utf-8")
    (checkout / "tests" / "test_module.py").write_text(tests, encoding="utf-8")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:toolcall",
            "-p",
            "no:cacheprovider",
            *list(options),
        ],
        cwd=checkout / "tests",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return done.returncode, done.stdout + done.stderr


@pytest.mark.slow
def test_a_test_that_writes_into_the_checkout_fails_the_run(tmp_path: Path) -> None:
    status, out = run_in_checkout(tmp_path / "checkout", TESTS)
    assert "3 passed" in out and status != 0, out
    listed = out[out.index("the tests wrote into the checkout") :].split()
    assert "providers.yaml" in listed and "reports/gateways.md" in listed, out
    assert not [word for word in listed if "anything" in word]


@pytest.mark.slow
def test_the_reports_a_run_is_told_to_write_are_not_counted(tmp_path: Path) -> None:
    """`make conformance` writes the JUnit, Markdown and JSON reports it was asked for into
    `reports/`: the user's own request, not a test writing into the checkout."""
    checkout = tmp_path / "checkout"
    quiet = "def test_nothing() -> None:\n    assert True\n"
    status, out = run_in_checkout(checkout, quiet, "--junitxml=../reports/conformance.xml")
    assert (checkout / "reports" / "conformance.xml").exists(), out
    assert status == 0 and "wrote into the checkout" not in out, out
