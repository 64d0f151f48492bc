"""The Makefile explains itself: `make help` lists every target a user may call."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


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


def run_make(tmp_path: Path, target: str, *variables: str) -> list[list[str]]:
    """Real `make target` in a copy of the Makefile whose `.venv/bin/toolcall` only writes down its
    arguments: the argument lists the recipe gave it, one per call."""
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    os.utime(tmp_path / "pyproject.toml", (0, 0))
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    node_modules = tmp_path / "clients" / "js" / "node_modules"
    node_modules.mkdir(parents=True)
    (tmp_path / "clients" / "js" / "package-lock.json").write_text("", encoding="utf-8")
    os.utime(tmp_path / "clients" / "js" / "package-lock.json", (0, 0))
    for stamp in (bin_dir.parent / ".installed-stamp", bin_dir.parent / ".peers-stamp"):
        stamp.write_text("", encoding="utf-8")
    (node_modules / ".installed-stamp").write_text("", encoding="utf-8")
    calls = tmp_path / "calls.jsonl"
    stub = bin_dir / "toolcall"
    stub.write_text(
        f"#!{sys.executable}\nimport json, sys\n"
        f"with open({str(calls)!r}, 'a', encoding='utf-8') as out:\n"
        "    out.write(json.dumps(sys.argv[1:]) + '\\n')\n",
        encoding="utf-8",
    )
    stub.chmod(0o755)
    subprocess.run(
        ["make", "--no-print-directory", "-s", target, *variables],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if not calls.exists():
        return []
    return [json.loads(line) for line in calls.read_text(encoding="utf-8").splitlines()]


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_record_passes_route_model_and_each_header(tmp_path: Path) -> None:
    variables = [
        "PROVIDER=kimi",
        "ROUTE=portkey",
        "BASE_URL=http://127.0.0.1:8787/v1",
        "MODEL=kimi 'alias'",
        "HEADER=x-portkey-provider: openai; x-portkey-custom-host: http://127.0.0.1:1/kimi/v1",
    ]
    record, scan = run_make(tmp_path, "record", *variables)
    assert record == [
        "record",
        "--provider",
        "kimi",
        "--base-url",
        "http://127.0.0.1:8787/v1",
        "--route",
        "portkey",
        "--model",
        "kimi 'alias'",
        "--header",
        "x-portkey-provider: openai",
        "--header",
        " x-portkey-custom-host: http://127.0.0.1:1/kimi/v1",
    ]
    assert scan == ["scan"]


#: Values that would run `touch pwned` if a recipe put them in its text.
INJECTIONS = (
    "direct; touch pwned #",
    "x' ; touch pwned ; '",
    'x" ; touch pwned ; "',
    "`touch pwned`",
)


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize(
    ("target", "variable"),
    [
        *(("record", name) for name in ("PROVIDER", "SCENARIO", "ROUTE", "MODEL", "HEADER")),
        ("record", "BASE_URL"),
        ("drift", "ROUTE"),
        ("drift", "HEADER"),
        ("conformance", "PROVIDER"),
        ("matrix", "EXTERNAL"),
        ("synthesize", "SCENARIO"),
        ("add-provider", "NAME"),
        ("add-provider", "MODEL"),
    ],
)
def test_no_make_variable_reaches_the_shell(tmp_path: Path, target: str, variable: str) -> None:
    """A user's value is one argument of the program, whatever it holds: never a command."""
    for number, value in enumerate(INJECTIONS):
        copy = tmp_path / str(number)
        copy.mkdir()
        given = {
            "PROVIDER": "kimi",
            "NAME": "new",
            "BASE_URL": "http://127.0.0.1:1/v1",
            "KEY_ENV": "NEW_KEY",
            "MODEL": "m",
            variable: value,
        }
        calls = run_make(copy, target, *(f"{k}={v}" for k, v in given.items()))
        assert not (copy / "pwned").exists(), (target, variable, value)
        if target != "conformance":  # conformance runs pytest, not the stub
            assert any("touch pwned" in " ".join(call) for call in calls), calls


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


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_check_spreads_its_slow_run_as_make_test_does() -> None:
    """Every recording at every split point is minutes of one core
    (tests/conformance/test_split_points.py): the slow run takes the same workers as `make test`."""
    (slow,) = [x for x in dry_run("check") if "-m slow" in x]
    assert " -n auto " in slow + " "
    (serial,) = [x for x in dry_run("check", "PYTEST_WORKERS=") if "-m slow" in x]
    assert " -n " not in serial
