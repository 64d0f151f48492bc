"""The "Check yours" recipes of docs/HARNESS.md, run as printed: each ends in a red, readable
result for a naive assembler, or in a stream served over HTTP."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

#: Whole runs of pytest, the matrix and serve as a user starts them: `make check` runs them.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
HARNESS = (ROOT / "docs" / "HARNESS.md").read_text(encoding="utf-8")
SECTION = HARNESS.split("## Check yours", 1)[1].split("\n## ", 1)[0]

# What a maintainer's project would hold: the naive assembler many clients are.
MY_PROJECT = '''
def assemble_tool_calls(chunks):
    """Keys calls by index alone and appends every fragment."""
    calls = {}
    for chunk in chunks:
        for choice in chunk.get("choices") or []:
            for delta in (choice.get("delta") or {}).get("tool_calls") or []:
                new = {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}
                call = calls.setdefault(delta.get("index") or 0, new)
                call["id"] = call["id"] or delta.get("id") or ""
                function = delta.get("function") or {}
                call["function"]["name"] += function.get("name") or ""
                call["function"]["arguments"] += function.get("arguments") or ""
    return [calls[i] for i in sorted(calls)]
'''


def blocks(language: str, after: str) -> str:
    """The first `language` code block after the words `after` in the section."""
    found = re.search(rf"```{language}\n(.+?)```", SECTION.split(after, 1)[1], re.DOTALL)
    assert found is not None, f"docs/HARNESS.md's {after!r} recipe moved"
    return found.group(1)


def commands(block: str) -> list[str]:
    """Shell lines of a block, continuations joined and comments dropped."""
    joined = block.replace("\\\n", " ")
    return [line.split("  #")[0].strip() for line in joined.splitlines() if line.strip()]


def environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return {**env, **extra}


def run_pytest(folder: Path, command: list[str]) -> subprocess.CompletedProcess[str]:
    """A user's pytest run in `folder`, with the checkout's suite as the installed package's."""
    return subprocess.run(
        command,
        cwd=folder,
        env=environment(TOOLCALL_ROOT=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_plugin_recipe_fails_a_naive_assembler_one_line_per_case(tmp_path: Path) -> None:
    (tmp_path / "my_project.py").write_text(MY_PROJECT)
    test_file = blocks("python", "the pytest plugin")
    name = test_file.splitlines()[0].removeprefix("# ").split(",")[0]
    (tmp_path / name).write_text(test_file)
    (command,) = commands(blocks("sh", "the pytest plugin"))
    assert command == f"pytest -q {name}"
    # The packaged suite, as an installed wheel would carry it: here the checkout's.
    done = run_pytest(tmp_path, [sys.executable, "-m", *command.split(), "-p", "no:cacheprovider"])
    out = done.stdout
    assert done.returncode == 1, out[-3000:] + done.stderr
    failed = [line for line in out.splitlines() if line.startswith("FAILED ")]
    section = out.split("= FAILURES =", 1)[1].split("= short test summary info =", 1)[0]
    messages = [line for line in section.splitlines()[1:-1] if not line.startswith("_")]
    assert failed and len(messages) == len(failed), section  # one line per failing case
    assert "gemini-parallel_calls: merged calls: 2 calls came back as 1" in out
    assert "doubled name" in out and "truncated arguments passed as valid" in out
    assert "Traceback" not in out and "site-packages" not in out


# An assembler of another wire, reading the decoded events the plugin hands over; it reports a
# turn stopped at `max_tokens` as cut, which is the only right answer to a cut-off case.
ANTHROPIC_PROJECT = """
def assemble_anthropic(events):
    calls = {}
    for event in events:
        block, delta = event.get("content_block") or {}, event.get("delta") or {}
        if event.get("type") == "content_block_start" and block.get("type") == "tool_use":
            call = {"id": block["id"], "type": "function",
                    "function": {"name": block["name"], "arguments": ""}}
            calls[event["index"]] = call
        elif delta.get("type") == "input_json_delta" and event["index"] in calls:
            calls[event["index"]]["function"]["arguments"] += delta["partial_json"]
        elif delta.get("stop_reason") == "max_tokens":
            return {"error": "the turn stopped at max_tokens"}
    return {"tool_calls": [calls[i] for i in sorted(calls)]}


def test_mine(toolcall_case):
    toolcall_case.check(assemble_anthropic(toolcall_case.events))


def test_chunks(toolcall_case):
    toolcall_case.chunks
"""


PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]


def test_an_assembler_of_one_wire_takes_only_its_cases(tmp_path: Path) -> None:
    """The wire cases once carried no chunks and said nowhere which wire they were. Narrowed to
    Anthropic, the events are there and a right assembler passes them all, cut-off variants
    included; the chunks are refused with a message, not handed over empty."""
    (tmp_path / "test_anthropic.py").write_text(ANTHROPIC_PROJECT)
    done = run_pytest(tmp_path, [*PYTEST, "test_anthropic.py", "--toolcall-wire=anthropic", "-rf"])
    out = done.stdout
    assert done.returncode == 1, out[-3000:] + done.stderr
    # The four Anthropic recordings and the cut-off variant of each, the synthesized web search
    # case (a tool the provider ran, whose input is no call's: no cut of it), and the ten cells
    # synthesized on Anthropic (DeepSeek's and Qwen's) with the cut of each long_arguments one,
    # in both tests.
    assert "21 failed, 21 passed" in out, out[-3000:]
    failed = [line for line in out.splitlines() if line.startswith("FAILED ")]
    assert len(failed) == 21 and all("test_chunks[" in f for f in failed)
    assert sum("test_chunks[anthropic@anthropic-anthropic/" in f for f in failed) == 4
    assert sum("test_chunks[deepseek@anthropic-" in f for f in failed) == 6
    # "FAILED <node id>", then " - <message>" where the terminal is wide enough for it.
    assert sum(f.split()[1].endswith("_truncated]") for f in failed) == 6
    assert "a case of the anthropic wire has no chat chunks; read .events or .body" in out


def test_the_external_recipe_gives_the_naive_program_a_red_column() -> None:
    (command,) = commands(blocks("sh", "`--external`"))
    toolcall = ROOT / ".venv" / "bin" / "toolcall"
    if not toolcall.exists():
        pytest.skip("the recipe runs from a checkout's .venv (make creates it)")
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=ROOT,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    out = done.stdout + done.stderr
    assert "naive" in out and "gemini-parallel_calls" in out, out[-3000:]
    # The terminal cuts long lines to fit (the reports keep them whole): the case names suffice.
    assert "FAIL naive gemini-parallel_calls: merged calls" in out, out[-3000:]
    assert "FAIL naive gemini/published/vertex-docs_gemini-3.1-pro" in out, out[-3000:]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_the_serve_recipe_streams_a_providers_cassette() -> None:
    serve, *rest = commands(blocks("sh", "`toolcall serve`"))
    (curl,) = rest
    assert serve.endswith(" &") and "--port 8765" in serve and "8765" in curl
    toolcall = ROOT / ".venv" / "bin" / "toolcall"
    if not toolcall.exists() or shutil.which("curl") is None:
        pytest.skip("the recipe runs from a checkout's .venv, with curl")
    port = str(free_port())
    server = subprocess.Popen(
        ["bash", "-c", "exec " + serve.removesuffix("&").strip().replace("8765", port)],
        cwd=ROOT,
        env=environment(PYTHONUNBUFFERED="1"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # serve says where it serves once it listens, or ends (and the line is empty).
        assert server.stdout is not None and server.stderr is not None
        announced = server.stdout.readline()
        assert announced.startswith("toolcall serve: http://"), announced or server.stderr.read()
        done = subprocess.run(
            ["bash", "-c", curl.replace("8765", port)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("data: ") and '"tool_calls"' in done.stdout
    assert done.stdout.count("function-call-") >= 2  # Gemini's two parallel calls
