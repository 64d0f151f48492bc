"""`toolcall doctor UP DOWN` around a real gateway of `make gateways`: LiteLLM, the one measured
changing streams (docs/MATRIX.md), installed as `make gateways` installs it.

One stream is captured twice, straight from `toolcall serve` and through the gateway, and the
comparison must name what LiteLLM really does to it. Gemini's parallel calls come without an
`index` (its compatible endpoint sends none); LiteLLM numbers each of them 0, so where the
provider's stream was `index_absent` the client's is `index_reused`, which a client keyed by
index alone merges into one call (the openai SDK, in the matrix). It also splits the finish
reason and the usage into chunks of their own and names the model by its own alias.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.gateway_home import litellm_home
from toolcall.harness import serving
from toolcall.harness.cli import main
from toolcall.harness.gateways import process
from toolcall.harness.gateways.known import LiteLLM, child_environment
from toolcall.harness.gateways.run import Case, cases, send
from toolcall.harness.suite.profiles import load_suite

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]
SUITE = load_suite(ROOT)


def captured(tmp_path: Path, case: Case) -> tuple[Path, Path]:
    """The case's stream as the provider sent it (from serve) and as the client got it (through
    LiteLLM, started for this one stream), each written as the body a user captures."""
    gateway = LiteLLM()
    home = litellm_home(gateway, tmp_path)
    with serving.serving(SUITE) as served:
        port = process.free_port()
        launch = gateway.launch(home, port, served.base_url, [case.route])
        assert launch.command is not None
        env = child_environment(launch.env)
        log = tmp_path / "litellm.log"
        with process.running(launch.command, port, log=log, env=env, cwd=launch.cwd):
            target = gateway.target(launch, served.base_url, case.route)
            request = {**case.request, "model": target.model}
            down = send(target.base_url + "/chat/completions", request, target.headers, bound=60)
        up = send(
            served.base_url + case.route.path + "/chat/completions", case.request, {}, bound=60
        )
    assert (up.status, down.status) == (200, 200), (up, down)
    paths = (tmp_path / "upstream.sse", tmp_path / "downstream.sse")
    paths[0].write_bytes(up.body)
    paths[1].write_bytes(down.body)
    return paths


def test_the_two_capture_comparison_names_what_litellm_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (case,) = [
        c for c in cases(SUITE, provider="gemini", scenario="parallel_calls") if c.fault is None
    ]
    upstream, downstream = captured(tmp_path, case)
    capsys.readouterr()  # what the install said, on first use
    code = main(["doctor", str(upstream), str(downstream), "--no-clients", "--json"])
    document = json.loads(capsys.readouterr().out)
    found = {c["layer"]: c for c in document["changes"]}
    assert code == 0  # the calls are the same: the library tells them apart by their ids
    assert (found["findings"]["a"], found["findings"]["b"]) == (["index_absent"], ["index_reused"])
    assert found["events"]["a"] < found["events"]["b"]
    assert found["model"]["b"] == case.route.alias
    assert "calls" not in found
    # and the line a person reads names it the same way
    assert main(["doctor", str(upstream), str(downstream), "--no-clients"]) == 0
    lines = capsys.readouterr().out.splitlines()
    (said,) = [line for line in lines if line.startswith("findings")]
    assert "['index_absent'] -> B ['index_reused']" in said
