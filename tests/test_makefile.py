"""The Makefile explains itself: `make help` lists every target a user may call."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


#: The widest a `make help` line may be: the project's line length.
WIDTH = 100


def make(*arguments: str) -> str:
    """What `make` prints for these arguments in the checkout (it must succeed)."""
    done = subprocess.run(
        ["make", "--no-print-directory", *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def make_help() -> str:
    return make("-s", "help")


def dry_run(target: str, *variables: str) -> list[str]:
    """The commands `make -n target` prints, a continued line joined into one."""
    return make("-n", target, *variables).replace("\\\n", " ").splitlines()


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_help_lists_every_phony_target() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    phony = re.search(r"^\.PHONY: (.+)$", makefile, re.MULTILINE)
    assert phony is not None
    listed = {line.split()[0] for line in make_help().splitlines() if line.strip()}
    assert set(phony.group(1).split()) == listed


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_record_passes_route_model_and_each_header() -> None:
    variables = [
        "PROVIDER=kimi",
        "ROUTE=portkey",
        "BASE_URL=http://127.0.0.1:8787/v1",
        "MODEL=kimi alias",
        "HEADER=x-portkey-provider: openai; x-portkey-custom-host: http://127.0.0.1:1/kimi/v1",
    ]
    (line,) = [x for x in dry_run("record", *variables) if "toolcall record" in x]
    assert "--route portkey" in line and "--model 'kimi alias'" in line
    assert "--header 'x-portkey-provider: openai'" in line
    assert "--header 'x-portkey-custom-host: http://127.0.0.1:1/kimi/v1'" in line


def test_make_help_shows_every_description_whole_and_within_the_width() -> None:
    """Each `## ` line is one target's whole description: a second `## ` line would be dropped."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    described = [line for line in makefile.splitlines() if line.startswith("## ")]
    shown = make_help().splitlines()
    for line in described:
        parsed = re.fullmatch(r"## ([a-z-]+): (.+)", line)
        assert parsed is not None, f"not a `## target: description` line: {line!r}"
        target, text = parsed.groups()
        assert f"{target:<16}{text}" in shown, line
    assert [line for line in shown if len(line) > WIDTH] == []


def _pytest_line(*variables: str) -> str:
    """The pytest command `make test` would run with these variables."""
    (line,) = [x for x in dry_run("test", *variables) if "-m pytest" in x]
    return line


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_test_spreads_the_suite_unless_told_not_to() -> None:
    """As the README says: over the cores by default, in one process with `PYTEST_WORKERS=`."""
    assert " -n auto " in _pytest_line() + " "
    serial = _pytest_line("PYTEST_WORKERS=")
    assert " -n " not in serial and '-m "not slow"' in serial
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(`PYTEST_WORKERS=` runs it in one process)" in readme
