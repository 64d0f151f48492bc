"""`toolcall gateways` end to end through a rewriting relay started here (no real gateway).

The relay does what the real gateways were measured doing, so each judgement is seen to fire on
the thing it is for: a dropped request field is `REQ`, an inserted index is a wire change and not
a failure, a cut the relay sits on is a `HANG` within the bound; and the transparent relay, the
README's "check your gateway" case, passes every stream.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.gateway_relay import Rewrites, relaying
from toolcall.harness import serving
from toolcall.harness.gateways import process, report
from toolcall.harness.gateways.known import ByURL
from toolcall.harness.gateways.run import GatewayRun, cases, run_gateway
from toolcall.harness.suite import recordings
from toolcall.harness.suite.profiles import load_suite

ROOT = Path(__file__).resolve().parents[3]
SUITE = load_suite(ROOT)


def through(rewrites: Rewrites, home: Path, *, bound: float = 3.0) -> GatewayRun:
    """A run of every glm case through the relay, its log under `home` (never the checkout)."""
    todo = cases(SUITE, provider="glm")
    with serving.serving(SUITE) as served, relaying(served.base_url, rewrites) as url:
        return run_gateway(ByURL(url, "relay"), served, todo, home, say=lambda _: None, bound=bound)


def test_the_case_listing_takes_every_chat_recording_and_no_other_wire() -> None:
    """`make gateways` unnarrowed: the gateways carry chat completions, so of the recordings they
    take every chat one and no other wire's, even where the other wire's provider has a chat
    profile too (a Responses recording posted to /chat/completions would be judged as a chat
    answer; an Anthropic one has no chat profile to take a request from)."""
    todo = cases(SUITE)
    assert {c.kind for c in todo} == {"cell", "published", "fault"}
    assert {c.provider for c in todo} <= set(SUITE.providers)
    published = {(c.provider, c.target) for c in todo if c.kind == "published"}
    everything = recordings.discover(SUITE.cassettes)
    chat = [r for r in everything if r.wire == "chat"]
    assert published == {(r.provider, f"published/{r.name}") for r in chat}
    others = [r for r in everything if r.wire != "chat"]
    assert any(r.provider in SUITE.providers for r in others)  # what the wire rule leaves out
    assert any(r.provider not in SUITE.providers for r in others)


def test_a_transparent_relay_passes_every_stream_byte_for_byte(tmp_path: Path) -> None:
    run = through(Rewrites(), tmp_path)
    assert run.unavailable is None
    kinds = {r.case.kind for r in run.results}
    assert kinds == {"cell", "published", "fault"}
    assert [r for r in run.results if not r.passed] == []
    streamed = [r for r in run.results if not r.case.fault]
    assert all(r.wire == ["byte for byte"] for r in streamed)
    assert all(r.request is not None and r.request.notes() == [] for r in streamed)


@pytest.mark.slow
def test_a_rewriting_relay_is_judged_field_by_field(tmp_path: Path) -> None:
    rewrites = Rewrites(
        drop_request_fields=("tool_stream",),
        insert_index=True,
        drop_comments=True,
        add_done=True,
        hang_on_cut=6.0,
    )
    run = through(rewrites, tmp_path, bound=2.0)
    by_target = {(r.case.target, r.case.fault): r for r in run.results}
    stripped = by_target[("tool_stream_call", None)]
    assert stripped.request is not None and stripped.request.stripped == ("tool_stream",)
    assert report.mark(stripped) == "REQ" and not stripped.passed
    assert by_target[("single_call", None)].passed  # no provider field to lose there
    cut = by_target[("single_call", "cut")]
    assert cut.fault is not None and cut.fault.startswith("hang"), cut.fault
    assert by_target[("single_call", "429")].passed and by_target[("single_call", "500")].passed
    table = report.text(report.document([run]))
    assert re.search(r"^glm .*REQ", table, re.MULTILINE), table
    assert "request: stripped tool_stream" in table
    assert "HANG glm/single_call [cut]" in table
    assert "fix: set a read timeout in the client" in table
    document = report.document([run])
    assert document["gateways"][0]["name"] == "relay"


def test_a_gateway_that_cannot_start_is_unavailable_with_the_reason(tmp_path: Path) -> None:
    class Broken(ByURL):
        def launch(self, home, port, serve_url, routes):  # type: ignore[no-untyped-def]
            from toolcall.harness.gateways.known import Launch

            return Launch(("sh", "-c", "echo config missing; exit 4"), port)

    with serving.serving(SUITE) as served:
        run = run_gateway(Broken("http://127.0.0.1:9", "broken"), served, [], tmp_path)
    assert run.unavailable is not None and "config missing" in run.unavailable
    assert "unavailable: did not start" in report.text(report.document([run]))


def checkout_copy(tmp_path: Path) -> Path:
    """What `make gateways` reads, copied (the Makefile, the suite's data), with the checkout's
    installed .venv (else the running environment, as in a worktree without one) linked in, and
    pyproject.toml made older than its install stamp."""
    copy = tmp_path / "checkout"
    copy.mkdir()
    for name in ("Makefile", "pyproject.toml", "providers.yaml", "routes.yaml", "scenarios.yaml"):
        shutil.copy2(ROOT / name, copy / name)
    shutil.copytree(ROOT / "cassettes", copy / "cassettes")
    os.utime(copy / "pyproject.toml", (0, 0))  # older than the environment's install stamp
    (copy / ".venv").symlink_to(ROOT / ".venv" if (ROOT / ".venv").is_dir() else sys.prefix)
    return copy


def readme_recipe() -> str:
    manual = (ROOT / "docs" / "HARNESS.md").read_text(encoding="utf-8")
    section = manual.split("\n## Checking your gateway\n", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert block is not None, "docs/HARNESS.md's gateway recipe moved"
    (line,) = [ln for ln in block.group(1).splitlines() if "GATEWAY_URL=" in ln]
    return line.split("  #")[0].strip()


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize("rewrites", [Rewrites(), Rewrites(drop_request_fields=("tool_stream",))])
def test_the_readme_recipe_checks_a_gateway_by_url(rewrites: Rewrites, tmp_path: Path) -> None:
    """Run as a user runs it, in a copy of the checkout: `make gateways` writes its reports
    (and a gateway's log) where it runs, and a user's own reports must survive `make test`."""
    line = readme_recipe()
    checkout = checkout_copy(tmp_path)
    port = process.free_port()
    with relaying(f"http://127.0.0.1:{port}", rewrites) as url:
        command = (
            line.replace("http://127.0.0.1:4000", url).replace("8765", str(port))
            + " PROVIDER=glm CLIENTS=0"
        )
        assert url in command and str(port) in command, "the recipe's URL or port changed"
        env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLCALL")}
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=checkout,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    out = done.stdout + done.stderr
    assert "== url (yours)" in out, out[-3000:]
    if rewrites.drop_request_fields:
        assert done.returncode != 0 and "request: stripped tool_stream" in out, out[-3000:]
    else:
        assert done.returncode == 0, out[-3000:]
        assert "FAIL" not in out and "REQ" not in out


def shell_in(checkout: Path, command: str, timeout: float) -> subprocess.CompletedProcess[str]:
    """`command` run by bash in `checkout` as a user types it, without this run's TOOLCALL_
    variables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLCALL")}
    return subprocess.run(
        ["bash", "-c", command],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.mark.slow  # every case through a relay; the narrowed recipe runs in make test
@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_the_readme_recipe_unnarrowed_streams_every_case(tmp_path: Path) -> None:
    """The same recipe over the whole suite, every provider and every recording, as `make
    gateways` runs by default: each case the listing makes is streamed and reported."""
    checkout = checkout_copy(tmp_path)
    port = process.free_port()
    with relaying(f"http://127.0.0.1:{port}", Rewrites()) as url:
        command = readme_recipe().replace("http://127.0.0.1:4000", url).replace("8765", str(port))
        done = shell_in(checkout, command + " CLIENTS=0", timeout=300)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-3000:]
    written = json.loads((checkout / "reports" / "gateways.json").read_text(encoding="utf-8"))
    streams = written["gateways"][0]["streams"]
    listed = [(c.provider, c.target, c.fault) for c in cases(SUITE)]
    assert [(s["provider"], s["target"], s["fault"]) for s in streams] == listed
    assert all(s["passed"] for s in streams)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_gateways_installs_and_runs_a_real_gateway_narrowed(tmp_path: Path) -> None:
    """`make gateways` with a built-in gateway, narrowed to the smallest one (openai-forward, a
    PyPI install) and one provider, as a user narrows it: installed on first use under the
    copy's .gateways/, started, every case of the provider streamed and the report written."""
    checkout = checkout_copy(tmp_path)
    (checkout / "gateways").symlink_to(ROOT / "gateways")
    done = shell_in(checkout, "make gateways GATEWAY=openai-forward PROVIDER=glm CLIENTS=0", 900)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-3000:]
    written = json.loads((checkout / "reports" / "gateways.json").read_text(encoding="utf-8"))
    (gateway,) = written["gateways"]
    assert gateway["name"] == "openai-forward" and gateway["unavailable"] is None, gateway
    listed = [(c.provider, c.target, c.fault) for c in cases(SUITE, provider="glm")]
    assert [(s["provider"], s["target"], s["fault"]) for s in gateway["streams"]] == listed


def test_an_http_client_that_merges_calls_through_the_gateway_is_a_client_finding(
    tmp_path: Path,
) -> None:
    """LiteLLM's `index: 0` on Gemini's index-less parallel calls, as measured: the turn this
    library assembles is intact, but the openai SDK's stream helper, which crashes on them
    straight from serve (a loud failure), merges them silently through the gateway."""
    from toolcall.harness.gateways.clients import available
    from toolcall.harness.gateways.run import Clients
    from toolcall.harness.peers import Implementation

    found, _missing = available()
    sdk: list[Implementation] = [c for c in found if c.name == "openai-sdk-http"]
    if not sdk:
        pytest.skip("the openai SDK is not installed")
    todo = [c for c in cases(SUITE, provider="gemini") if c.target == "parallel_calls"]
    with (
        serving.serving(SUITE) as served,
        relaying(served.base_url, Rewrites(insert_index=True)) as url,
    ):
        run = run_gateway(
            ByURL(url, "relay"), served, todo, tmp_path, say=lambda _: None, clients=Clients(sdk)
        )
    (result,) = run.results
    assert result.turn == [] and "index absent->present" in result.wire
    assert report.mark(result) == "CLIENT" and not result.passed
    (difference,) = result.client_failures
    assert difference.kind == "made silently wrong" and difference.direct.raised is not None
    assert "get_weatherget_weather" in difference.through.describe()


@pytest.mark.parametrize("command", ["serve", "gateways"])
def test_a_serve_port_in_use_is_one_line_not_a_traceback(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both commands that start `toolcall serve` say a port in use in one line, with the way
    out, and exit without a traceback (`gateways` before it installs or starts anything)."""
    from toolcall.harness.cli import main

    with serving.serving(None) as taken:
        port = str(taken.server.server_address[1])
        argv = (
            ["serve", "--port", port]
            if command == "serve"
            else [
                "gateways",
                "--gateway-url",
                "http://127.0.0.1:9",
                "--serve-port",
                port,
                "--no-clients",
            ]
        )
        code = main(argv)
    said = capsys.readouterr()
    out = said.out + said.err
    assert code in (1, 2)
    assert f"127.0.0.1:{port} is already in use" in out, out
    assert "Traceback" not in out
