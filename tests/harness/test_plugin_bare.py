"""The pytest plugin where the `harness` extra is missing, and where a test misuses it.

pytest loads the plugin in every project that installs `toolcall`, so without the extra it must
load harmlessly and speak only when asked. The missing extra is simulated in a subprocess: a
`sitecustomize` on PYTHONPATH refuses to import its modules, as an environment without them would.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXTRA = ("jsonschema", "vcr", "yaml", "httpx", "ruamel")

BLOCKER = f"""
import importlib.abc
import sys


class RefuseTheHarnessExtra(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {EXTRA!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


sys.meta_path.insert(0, RefuseTheHarnessExtra())
"""

INSTALL = "pip install 'toolcall-streams[harness]'"


def pytest_in(project: Path, *args: str, bare: bool = True) -> subprocess.CompletedProcess[str]:
    """pytest run in `project` (outside the checkout), without the extra when `bare`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    if bare:
        blocker = project.parent / "site"
        blocker.mkdir(exist_ok=True)
        (blocker / "sitecustomize.py").write_text(BLOCKER, encoding="utf-8")
        env["PYTHONPATH"] = str(blocker)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args]
    return subprocess.run(
        command, cwd=project, env=env, capture_output=True, text=True, timeout=120, check=False
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "test_sum.py").write_text("def test_sum():\n    assert 1 + 1 == 2\n")
    return folder


@pytest.mark.slow
def test_the_simulation_really_hides_the_extra(project: Path) -> None:
    """Without this, the tests below would prove nothing."""
    (project / "test_hidden.py").write_text(
        "import pytest\n\n"
        "def test_hidden():\n"
        "    with pytest.raises(ModuleNotFoundError):\n"
        "        import jsonschema\n"
    )
    done = pytest_in(project, "test_hidden.py")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
def test_a_project_without_the_extra_runs_its_own_tests(project: Path) -> None:
    done = pytest_in(project, "test_sum.py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout
    assert "Error while loading plugin" not in done.stdout + done.stderr


def test_the_plugin_module_imports_only_the_standard_library_and_pytest() -> None:
    """What pytest imports for the entry point leaves the suite's dependencies unloaded."""
    code = (
        "import sys, toolcall.harness.pytest_plugin\n"
        f"extra = {EXTRA!r}\n"
        "plugin = 'toolcall.harness.pytest_plugin'\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in extra\n"
        "             or (m.startswith('toolcall.harness.') and m != plugin)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]", done.stdout


@pytest.mark.parametrize(
    "option", ["--toolcall-provider=openai", "--toolcall-root=.", "--toolcall-report=r.md"]
)
def test_an_option_without_the_extra_says_what_to_install(project: Path, option: str) -> None:
    done = pytest_in(project, option, "test_sum.py")
    assert done.returncode == 4, done.stdout + done.stderr
    name = option.split("=")[0]
    assert f"{name} needs toolcall's harness extra (missing: " in done.stderr
    assert INSTALL in done.stderr
    assert "Traceback" not in done.stdout + done.stderr


@pytest.mark.slow
def test_the_fixture_without_the_extra_says_what_to_install(project: Path) -> None:
    (project / "test_mine.py").write_text(
        "def test_mine(toolcall_case):\n    toolcall_case.check({'tool_calls': []})\n"
    )
    done = pytest_in(project)
    out = done.stdout + done.stderr
    assert done.returncode != 0, out
    assert "the toolcall_case fixture needs toolcall's harness extra (missing: " in out
    assert INSTALL in out
    assert "During handling" not in out and "site-packages" not in out, out


WRONG_SHAPES = {
    "a_list": ("[]", "check() got a list"),
    "a_turn": ("toolcall.assemble(toolcall_case.body)", "check() got a Turn"),
    "tool_call_objects": (
        "{'tool_calls': list(toolcall.assemble(toolcall_case.body).tool_calls)}",
        "check() got tool_calls[0] has no function object",
    ),
    "parsed_arguments": (
        "{'tool_calls': [{'id': 'x', 'function': {'name': 'get_weather', 'arguments': {}}}]}",
        "check() got tool_calls[0]: id, name and arguments must be strings",
    ),
}


@pytest.mark.slow
def test_a_wrongly_shaped_answer_is_a_clean_test_failure(tmp_path: Path) -> None:
    """The mistake is the test's: one line saying which shape `check` takes, no traceback."""
    tests = "import toolcall\n\n" + "".join(
        f"\ndef test_{name}(toolcall_case):\n    toolcall_case.check({answer})\n"
        for name, (answer, _) in WRONG_SHAPES.items()
    )
    (tmp_path / "test_shapes.py").write_text(tests)
    done = pytest_in(
        tmp_path,
        f"--toolcall-root={ROOT}",
        "--toolcall-provider=openai",
        "--toolcall-scenario=single_call",
        "--toolcall-wire=chat",
        bare=False,
    )
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert f"{len(WRONG_SHAPES)} failed" in out, out
    for name, (_, reason) in WRONG_SHAPES.items():
        assert f"test_{name}[openai-single_call]" in out
        assert reason in out, textwrap.shorten(out, 3000)
    assert 'it takes {"tool_calls": [{"id": ...' in out
    assert "site-packages" not in out and "toolcall/harness/" not in out, out
    assert "Traceback" not in out and "During handling" not in out


@pytest.mark.slow
def test_a_suite_that_cannot_be_read_is_one_line_at_collection(tmp_path: Path) -> None:
    (tmp_path / "test_mine.py").write_text(
        "def test_mine(toolcall_case):\n    toolcall_case.check({'tool_calls': []})\n"
    )
    missing = tmp_path / "nowhere"
    done = pytest_in(tmp_path, f"--toolcall-root={missing}", "test_mine.py", bare=False)
    out = done.stdout + done.stderr
    assert done.returncode != 0
    assert f"{missing} holds no providers.yaml" in out, out
    assert "Traceback" not in out and "pytest_suite.py" not in out, out
