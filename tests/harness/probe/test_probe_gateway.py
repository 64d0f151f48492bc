"""`toolcall probe` through a real gateway of `make gateways` (LiteLLM, installed as `make
gateways` installs it) in front of `toolcall serve`, with `--compare-to` the probe of serve
straight: the report names what the gateway changes, as a probe of that gateway finds it.

Measured: on chat, serve replays Gemini's parallel calls, which come without an `index`;
LiteLLM numbers each of them 0, so the probe's `index_absent` becomes `index_reused`. On
Anthropic's wire LiteLLM answers from its Responses client: every scenario's calls and finish
come through the same, but the request with `thinking` is refused (LiteLLM knows no reasoning
for a model it has no entry for). The recipe of docs/HARNESS.md is run line by line.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers.gateway_home import litellm_home
from toolcall.harness import serving
from toolcall.harness.cli import main
from toolcall.harness.gateways import process
from toolcall.harness.gateways.known import LiteLLM, Route, child_environment
from toolcall.harness.suite.profiles import load_suite

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]
SUITE = load_suite(ROOT)
HARNESS = (ROOT / "docs" / "HARNESS.md").read_text(encoding="utf-8")
SECTION = HARNESS.split("**What a gateway changes.**", 1)[1].split("\n## ", 1)[0]
#: The streams LiteLLM routes to serve: Gemini's parallel calls replayed, and the plain answer.
ROUTES = (
    Route("gemini-parallel", "/gemini/parallel_calls/v1", "gemini-2.5-flash"),
    Route("plain", "/v1", "fault:plain"),
)


@dataclass(frozen=True)
class Running:
    serve: str
    gateway: str


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    tmp = tmp_path_factory.mktemp("litellm")
    gateway = LiteLLM()
    home = litellm_home(gateway, tmp)
    with serving.serving(SUITE) as served:
        port = process.free_port()
        launch = gateway.launch(home, port, served.base_url, ROUTES)
        assert launch.command is not None
        env = child_environment(launch.env)
        log = tmp / "litellm.log"
        with (
            process.running(launch.command, port, log=log, env=env, cwd=launch.cwd),
            pytest.MonkeyPatch.context() as patch,
        ):
            patch.setenv("LITELLM_KEY", gateway.master_key)
            yield Running(served.base_url, f"http://127.0.0.1:{port}")


def recipe() -> list[str]:
    found = re.search(r"```sh\n(.+?)```", SECTION, re.DOTALL)
    assert found is not None, "docs/HARNESS.md's gateway recipe moved"
    lines = found.group(1).replace("\\\n", " ").splitlines()
    return [line.strip() for line in lines if line.strip()]


def run(line: str, at: Running, folder: Path) -> int:
    """One line of the recipe as printed, at this test's ports and folder."""
    line = line.replace("http://127.0.0.1:8765", at.serve).replace(
        "http://127.0.0.1:4000", at.gateway
    )
    words = shlex.split(line.replace("reports/", f"{folder}/"))
    assert words[0].endswith("toolcall"), words
    return main(words[1:])


def test_the_recipe_names_litellms_renumbered_gemini_calls(
    running: Running, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    direct, through = recipe()
    assert run(direct, running, tmp_path) == 0
    capsys.readouterr()
    assert run(through, running, tmp_path) == 0
    said = capsys.readouterr().out
    assert (
        "CHANGED  parallel_calls (streamed) findings: ['index_absent'] -> ['index_reused']" in said
    )
    document = json.loads((tmp_path / "litellm.json").read_text())
    assert document["changes"] == [
        {
            "scenario": "parallel_calls",
            "streamed": True,
            "what": "findings",
            "before": ["index_absent"],
            "after": ["index_reused"],
        }
    ]


def probe(base_url: str, model: str, out: Path, *more: str) -> int:
    args = ["probe", "--base-url", base_url, "--model", model, "--wire", "anthropic"]
    return main([*args, "--family", "other", "--no-clients", "--json", str(out), *more])


def test_on_anthropics_wire_only_the_thinking_request_changes(
    running: Running, tmp_path: Path
) -> None:
    direct, through = tmp_path / "direct.json", tmp_path / "through.json"
    assert probe(running.serve, "fault:plain", direct) == 0
    key = ("--key-env", "LITELLM_KEY", "--compare-to", str(direct))
    assert probe(running.gateway, "plain", through, *key) == 0
    changes = json.loads(through.read_text())["changes"]
    assert {c["scenario"] for c in changes} == {"reasoning_then_call"}
    status = [c for c in changes if c["what"] == "status"]
    assert [(c["streamed"], c["before"], c["after"]) for c in status] == [
        (True, "read", "refused"),
        (False, "read", "refused"),
    ]
    assert all(c["after"] == ["request_refused"] for c in changes if c["what"] == "findings"), (
        changes
    )
