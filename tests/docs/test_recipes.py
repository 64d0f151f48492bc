"""The write recipes of docs/HARNESS.md, followed literally in a copy of the repository.

A copy (never this checkout's providers.yaml) gets the recipes' shell lines exactly as the manual
prints them, with the dummy key `anything` for `...` and the local simulator (`toolcall serve`)
for the servers: the recording recipe records DeepSeek from the simulator's DeepSeek through
`TOOLCALL_DEEPSEEK_BASE_URL`, the provider recipe adds `vllm` pointed at the simulator's GLM (the
one provider with every scenario). Then the copy must pass the checks whose verdict depends on
what the recipes wrote: conformance of the two providers they touched, and the tests that hold
providers.yaml and cassettes/ against the published evidence and the synthesis, for those two
providers and for the whole files. The copy's whole `make test` runs too, as a slow test
(`make check`): it proves the same once more, over everything, at the cost of the whole suite.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from toolcall.harness import cli, serving
from toolcall.harness.suite.profiles import load_suite

#: Whole runs in a copy of the repository, each a minute: `make check` runs them.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
#: The test modules whose verdict depends on providers.yaml and cassettes/ (besides conformance).
DATA_CHECKS = ("tests/conformance/test_evidence.py", "tests/harness/synthesize/test_synthesize.py")
#: Of those, the tests the recipes can change the verdict of: every test that is not one per
#: provider's cassette or recording (whose ids hold a `/`), and those of the two providers the
#: recipes wrote. The slow sibling runs everything.
TOUCHED = "deepseek or vllm or not /"
#: What a checkout holds that is not the repository's own text.
NOT_COPIED = {".venv", ".git", "node_modules", "build", "reports", ".pytest_cache", ".hypothesis"}


def recipe(heading: str) -> list[str]:
    """The shell lines of the first `sh` block under `heading`, comments dropped."""
    manual = (ROOT / "docs" / "HARNESS.md").read_text(encoding="utf-8")
    section = manual.split(f"\n## {heading}\n", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert block is not None, f"docs/HARNESS.md's {heading!r} recipe moved"
    return [line.split("  #")[0].strip() for line in block.group(1).splitlines() if line.strip()]


def _not_copied(folder: str, names: list[str]) -> list[str]:
    """What `_copy` leaves out of `folder`: the run's `reports/` only at the top, since the
    harness has a package of that name (`toolcall/harness/reports/`)."""
    top = Path(folder) == ROOT
    return [n for n in names if n in NOT_COPIED and (n != "reports" or top)]


def _copy(target: Path) -> Path:
    """The repository without its environment, with this checkout's environment linked in
    (mtimes kept, so make sees the installed stamps as current)."""
    shutil.copytree(ROOT, target, ignore=_not_copied)
    venv = ROOT / ".venv" if (ROOT / ".venv").is_dir() else Path(sys.prefix)
    (target / ".venv").symlink_to(venv)
    modules = ROOT / "clients" / "js" / "node_modules"
    if modules.is_dir():
        (target / "clients" / "js" / "node_modules").symlink_to(modules)
    # The linked environment is this one, installed already: make must not rebuild it there.
    for stamp, source in [
        (venv / ".installed-stamp", target / "pyproject.toml"),
        (modules / ".installed-stamp", target / "clients" / "js" / "package-lock.json"),
    ]:
        if stamp.is_file():
            # In nanoseconds: a float of seconds can round up past the stamp, and make rebuilds.
            when = min(stamp.stat().st_mtime_ns, source.stat().st_mtime_ns)
            os.utime(source, ns=(when, when))
    return target


def _run(line: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", line], cwd=cwd, env=env, capture_output=True, text=True, timeout=900
    )


def _environment() -> dict[str, str]:
    """This environment without any provider key, so only what the recipe sets is there."""
    keys = {p.key_env for p in load_suite(ROOT).providers.values()} | {"GITHUB_ACTIONS"}
    return {k: v for k, v in os.environ.items() if k not in keys and not k.startswith("TOOLCALL")}


@dataclass
class Followed:
    """A copy of the repository after every write recipe, and the environment they ran in."""

    repo: Path
    env: dict[str, str]


@pytest.fixture(scope="module")
def followed(tmp_path_factory: pytest.TempPathFactory) -> Followed:
    """Every write recipe followed in a copy, each line checked as it runs."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    repo = _copy(tmp_path_factory.mktemp("recipes") / "repo")
    env = _environment()
    with serving.serving(load_suite(ROOT)) as running:
        # Accepting: without ACCEPT=1 the change is printed as YAML and nothing is touched.
        env["DEEPSEEK_API_KEY"] = "anything"
        env["TOOLCALL_DEEPSEEK_BASE_URL"] = running.url("deepseek")
        env["ROUTE"] = "direct"  # the simulator replays DeepSeek's own streams
        before = (repo / "providers.yaml").read_bytes()
        look, _write, _diff = recipe("Accepting what a recording saw")
        done = _run(look, repo, env)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        printed = done.stdout[done.stdout.index("providers:\n") : done.stdout.index("checked ")]
        assert yaml.safe_load(printed)["providers"]["deepseek"]["scenarios"]
        assert (repo / "providers.yaml").read_bytes() == before

        # Recording, with `...` the dummy key.
        lines = recipe("Recording cassettes with your own key")
        assert lines[-1] == "make test"
        for line in lines[:-1]:
            line = line.replace("=...", "=anything")
            if line.startswith("export "):
                name, value = line.removeprefix("export ").split("=", 1)
                env[name] = value
                continue
            done = _run(line, repo, env)
            assert done.returncode == 0, f"{line}\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
            assert "[1/6] deepseek/single_call ... wrote" in done.stdout
            assert "n/a  deepseek/tool_stream_call: GLM-only" in done.stdout
            assert "secret scan: 0 hit(s)" in done.stdout

        # Adding a provider, pointed at the simulator's GLM: the server's model is GLM's, as a
        # real vLLM's is the one it serves (a stream naming another model is refused).
        lines = recipe("Adding a provider")
        assert lines[-1] == "make test" and "MODEL=Qwen/Qwen3-8B" in lines[0]
        for line in lines[:-1]:
            line = line.replace("http://localhost:8000/v1", running.url("glm"))
            line = line.replace("MODEL=Qwen/Qwen3-8B", "MODEL=glm-4.7")
            done = _run(line, repo, env)
            assert done.returncode == 0, f"{line}\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
    suite = load_suite(repo)
    assert "anything" in lines[1] and "vllm" in suite.providers
    for provider in ("deepseek", "vllm"):
        kinds = {c.provenance.get("kind") for c in suite.providers[provider].cells.values()}
        assert "recorded" in kinds and kinds <= {"recorded", None}, (provider, kinds)

    # Drift in CI, with no key set: a warning, never a silent green.
    (drift,) = recipe("Drift in CI")
    done = _run(drift, repo, {**_environment(), "GITHUB_ACTIONS": "true"})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "\n::warning title=toolcall record::checked 0 providers (no keys set: " in done.stdout

    # Scanning.
    scan = recipe("Scanning for secrets")[0]
    done = _run(scan, repo, env)
    assert done.returncode == 0 and "secret scan: 0 hit(s)" in done.stdout, done.stdout[-2000:]
    return Followed(repo, env)


def test_the_write_recipes_leave_a_copy_that_passes_its_data_checks(
    followed: Followed, capsys: pytest.CaptureFixture[str]
) -> None:
    for provider in ("deepseek", "vllm"):
        report = followed.repo / "reports" / f"{provider}.json"
        args = ["--root", str(followed.repo), "conformance", "--provider", provider]
        assert cli.main([*args, "--json", str(report)]) == 0, capsys.readouterr().out[-3000:]
        outcomes = json.loads(report.read_text("utf-8"))["outcomes"]
        assert {o["status"] for o in outcomes} <= {"pass", "n/a"}, outcomes
        assert "recorded" in {o["evidence"] for o in outcomes}, outcomes
    checks = " ".join(DATA_CHECKS)
    line = f"{sys.executable} -m pytest -q -p no:cacheprovider {checks} -k '{TOUCHED}'"
    done = _run(line, followed.repo, followed.env)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-3000:]
    assert re.search(r"\d+ passed", done.stdout), done.stdout[-2000:]


@pytest.mark.slow
def test_the_write_recipes_end_with_make_test_green(followed: Followed) -> None:
    """The recipes end in `make test`, so the copy's whole `make test` must pass (the recipe tests
    themselves deselected: they would copy the copy)."""
    env = {**followed.env, "PYTEST_ADDOPTS": "--deselect tests/docs/test_recipes.py"}
    done = _run("make test", followed.repo, env)
    tail = done.stdout[-4000:] + done.stderr[-3000:]
    assert done.returncode == 0, tail
    assert re.search(r"\d+ passed", done.stdout) and " failed" not in done.stdout.splitlines()[-1]
