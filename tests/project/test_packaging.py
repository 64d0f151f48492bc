"""The suite as a tool others run: the built wheel carries the data, the plugin serves another
project, and the command says what is missing instead of a traceback."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from toolcall.harness import cli
from toolcall.harness.suite import locate
from toolcall.harness.suite.profiles import ProfileError

ROOT = Path(__file__).resolve().parents[2]
#: When this module was imported: a `build/` folder in the checkout newer than this was made by it.
BEFORE = time.time()


def run(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, **env}
    return subprocess.run(
        args, cwd=cwd, capture_output=True, text=True, timeout=300, env=environment, check=False
    )


#: What a checkout holds that is not part of the source a wheel is built from.
NOT_SOURCE = {
    ".venv",
    ".git",
    "node_modules",
    "build",
    "dist",
    "reports",
    "toolcall_streams.egg-info",
}
#: A cassette deleted since the last build, left behind in that build's folder.
STALE = Path("build/lib/toolcall/suite/cassettes/deleted/gone.yaml")


def _not_source(folder: str, names: list[str]) -> set[str]:
    """What the copy leaves out of `folder`: the run's `reports/` only at the top, since the
    harness has a package of that name (`toolcall/harness/reports/`)."""
    left_out = NOT_SOURCE.intersection(names)
    return left_out if Path(folder) == ROOT else left_out - {"reports"}


@pytest.fixture(scope="module")
def installed_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package built as a wheel and installed into a folder of its own.

    Built from a copy of the checkout, because building leaves a `build/` folder behind; the copy
    also holds a previous build's leftover cassette, which the wheel must not carry."""
    source = tmp_path_factory.mktemp("source") / "toolcall"
    shutil.copytree(ROOT, source, ignore=_not_source)
    (source / STALE).parent.mkdir(parents=True)
    (source / STALE).write_text("interactions: []\n", encoding="utf-8")
    out = tmp_path_factory.mktemp("wheel")
    built = run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(out),
            str(source),
        ],
        cwd=out,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    assert "project.license" not in built.stdout + built.stderr, "a deprecated license table"
    (wheel,) = out.glob("toolcall_streams-*.whl")
    target = tmp_path_factory.mktemp("site")
    installed = run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--target", str(target), str(wheel)],
        cwd=out,
    )
    assert installed.returncode == 0, installed.stderr[-2000:]
    return target


def _suite_files(root: Path) -> dict[str, bytes]:
    """The suite's files under `root` (a checkout, or the wheel's `toolcall/suite/`), by path."""
    files = [root / name for name in ("providers.yaml", "routes.yaml", "scenarios.yaml")]
    files += [path for path in (root / "cassettes").rglob("*") if path.is_file()]
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in files}


@pytest.mark.slow  # builds and installs the wheel
def test_the_wheel_ships_the_suite_and_runs_it_from_anywhere(
    installed_wheel: Path, tmp_path: Path
) -> None:
    suite = installed_wheel / "toolcall" / "suite"
    assert (suite / "providers.yaml").is_file()
    assert not (suite / "cassettes" / "deleted").exists(), "a deleted cassette shipped"
    assert not (ROOT / "build").exists() or (ROOT / "build").stat().st_mtime < BEFORE
    assert _suite_files(suite) == _suite_files(ROOT), "the wheel's suite is not the checkout's"
    # Every file is the checkout's, which the conformance tests pass: one provider run from the
    # installed copy, outside any checkout, shows the copy is found and read there.
    code = (
        "import sys, toolcall; assert toolcall.__file__.startswith(sys.argv[1]); "
        "from toolcall.harness import main; "
        "sys.argv = ['toolcall', 'conformance', '--provider', 'doubao']; "
        "raise SystemExit(main())"
    )
    done = run(
        [sys.executable, "-c", code, str(installed_wheel)],
        cwd=tmp_path,
        PYTHONPATH=str(installed_wheel),
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "0 failed" in done.stdout
    assert "published recordings" in done.stdout


def test_outside_a_checkout_without_data_the_error_says_what_to_do(tmp_path: Path) -> None:
    if locate.packaged() is not None:
        pytest.skip("this install ships the suite data")
    with pytest.raises(ProfileError, match=r"pip install 'toolcall-streams\[harness\]'"):
        locate.suite_root(start=tmp_path)
    assert locate.suite_root(start=ROOT / "cassettes" / "qwen") == ROOT


@pytest.mark.slow
def test_outside_a_checkout_the_command_says_how_to_point_it_at_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    if locate.packaged() is not None:
        pytest.skip("this install ships the suite data")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(locate.ENVIRONMENT, raising=False)
    assert cli.main(["scan"]) == 2
    err = capsys.readouterr().err
    assert "toolcall --root PATH" in err and "TOOLCALL_ROOT=PATH" in err
    monkeypatch.setenv(locate.ENVIRONMENT, str(ROOT))
    assert cli.main(["scan"]) == 0
    monkeypatch.setenv(locate.ENVIRONMENT, str(tmp_path))
    assert cli.main(["scan"]) == 2
    assert "TOOLCALL_ROOT names a toolcall checkout" in capsys.readouterr().err


def test_writing_commands_refuse_the_installed_copy(
    suite_copy: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(locate, "packaged", lambda: suite_copy)
    before = (suite_copy / "providers.yaml").read_bytes()
    args = ["--root", str(suite_copy), "add-provider", "x", "--base-url", "http://h/v1"]
    assert cli.main([*args, "--key-env", "X_KEY", "--model", "m"]) == 2
    assert "writes to a checkout, not the installed copy" in capsys.readouterr().err
    assert (suite_copy / "providers.yaml").read_bytes() == before


@pytest.mark.parametrize("missing", ["yaml", "ruamel"])
def test_the_command_without_the_harness_extra_names_it(tmp_path: Path, missing: str) -> None:
    """A fake module that cannot be imported stands in for an install without the extra."""
    fake = f"raise ModuleNotFoundError('no {missing}', name='{missing}')\n"
    (tmp_path / f"{missing}.py").write_text(fake)
    code = (
        "import sys; from toolcall.harness import main; sys.argv = ['toolcall', 'scan']; "
        "raise SystemExit(main())"
    )
    done = run([sys.executable, "-c", code], cwd=tmp_path, PYTHONPATH=str(tmp_path))
    assert done.returncode == 2
    assert "pip install 'toolcall-streams[harness]'" in done.stderr
    assert "Traceback" not in done.stderr


TOY_PROJECT = '''
import json

import toolcall


def naive(chunks):
    """Keys calls by index alone, as many hand-written clients do."""
    calls = {}
    for chunk in chunks:
        for choice in chunk.get("choices") or []:
            for delta in (choice.get("delta") or {}).get("tool_calls") or []:
                new = {"id": "", "function": {"name": "", "arguments": ""}}
                call = calls.setdefault(delta.get("index") or 0, new)
                call["id"] = call["id"] or delta.get("id") or ""
                function = delta.get("function") or {}
                call["function"]["name"] += function.get("name") or ""
                call["function"]["arguments"] += function.get("arguments") or ""
    return {"tool_calls": [calls[i] for i in sorted(calls)]}


def test_naive_on_chunks(toolcall_case):
    toolcall_case.check(naive(toolcall_case.chunks))


def test_reference_on_bytes(toolcall_case):
    try:
        turn = toolcall.assemble(toolcall_case.body)
    except toolcall.ToolCallError as exc:
        toolcall_case.check({"error": str(exc)})
        return
    toolcall_case.check({"tool_calls": [c.to_dict() for c in turn.tool_calls]})
'''


@pytest.mark.slow  # pytest in another project over every case
def test_the_plugin_checks_another_projects_assembler(tmp_path: Path) -> None:
    (tmp_path / "test_toy.py").write_text(textwrap.dedent(TOY_PROJECT))
    # `--option=value`: a bare path argument would move pytest's rootdir to the checkout.
    args = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        f"--toolcall-root={ROOT}",
    ]
    # The toy reads chat chunks, so it takes the chat cases, as docs/HARNESS.md tells a chat-only
    # assembler to.
    done = run([*args, "--toolcall-provider=gemini", "--toolcall-wire=chat"], cwd=tmp_path)
    out = done.stdout
    assert done.returncode == 1, out[-3000:]
    assert "FAILED test_toy.py::test_naive_on_chunks[gemini-parallel_calls]" in out
    assert "gemini-parallel_calls: merged calls" in out
    assert "doubled name" in out  # Vertex's published recording repeats the name
    assert "2 failed, 12 passed" in out, out[-1500:]
