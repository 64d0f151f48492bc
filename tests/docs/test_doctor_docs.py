"""The doctor's recipe in docs/HARNESS.md, run as printed against a `toolcall serve` of this
checkout: each line of its block, with what the text after it says each run shows."""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from toolcall.harness import serving
from toolcall.harness.suite.profiles import load_suite

#: A serve, three curl captures and three runs of the doctor, clients included: `make check`.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
HARNESS = (ROOT / "docs" / "HARNESS.md").read_text(encoding="utf-8")
SECTION = HARNESS.split("## Your own stream: `toolcall doctor`", 1)[1].split("\n## ", 1)[0]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def block() -> list[str]:
    found = re.search(r"```sh\n(.+?)```", SECTION, re.DOTALL)
    assert found is not None, "docs/HARNESS.md's doctor recipe moved"
    return [line.strip() for line in found.group(1).splitlines() if line.strip()]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def run(line: str, port: int, folder: Path) -> subprocess.CompletedProcess[bytes]:
    """One line of the recipe: `.venv/bin/toolcall` is this checkout's command line (the
    installed one may be another checkout's), a `> file` its output written there."""
    words = shlex.split(line.replace("8765", str(port)))
    target = None
    if ">" in words:
        words, target = words[: words.index(">")], words[words.index(">") + 1]
    if words[0] == ".venv/bin/toolcall":
        words = [sys.executable, "-m", "toolcall.harness.cli", *words[1:]]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TOOLCALL_ROOT": str(ROOT)}
    done = subprocess.run(words, cwd=folder, env=env, capture_output=True, timeout=300, check=False)
    if target is not None:
        (folder / target).write_bytes(done.stdout)
    return done


def test_the_recipe_shows_what_the_text_says(tmp_path: Path) -> None:
    lines = block()
    assert lines[0] == ".venv/bin/toolcall serve --port 8765 &"
    port = free_port()
    with serving.serving(load_suite(ROOT), port=port):
        done = [run(line, port, tmp_path) for line in lines[1:]]
    captured = done[:2]
    examined, markdown, compared = (
        subprocess.CompletedProcess(d.args, d.returncode, d.stdout.decode(), d.stderr.decode())
        for d in done[2:]
    )
    # curl says 18 (a transfer closed before its end) for the connection cut mid-call
    assert [(c.returncode, c.stderr) for c in captured] == [(0, b""), (18, b"")]
    assert examined.returncode == 1
    assert "truncated at the end of the body (byte 326)" in examined.stdout
    # openai is in the dev extra; langchain-core and litellm come with `make matrix`'s peers.
    peers = {"openai-sdk": "openai", "langchain-core": "langchain_core", "litellm": "litellm"}
    installed = [name for name, module in peers.items() if importlib.util.find_spec(module)]
    assert "openai-sdk" in installed
    for client in installed:
        verdict = next(line for line in examined.stdout.splitlines() if f"  {client} (" in line)
        assert "truncated arguments passed as valid" in verdict
    assert "fix: treat a stream that ends without `finish_reason` as cut" in examined.stdout
    assert markdown.returncode == 1
    assert markdown.stdout.startswith("### Streamed tool call: truncated")
    assert "```" in markdown.stdout
    assert compared.returncode == 1
    assert "the turn is sound: A True -> B False" in compared.stdout


def test_the_readme_opens_check_yours_with_the_doctor() -> None:
    section = README.split("## Check yours", 1)[1].split("\n## ", 1)[0]
    first = section.strip().split("\n\n", 1)[0]
    assert "toolcall doctor" in first and "docs/HARNESS.md#your-own-stream-toolcall-doctor" in first
