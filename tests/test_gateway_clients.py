"""`toolcall gateways` through the test relay on what an application sees: the HTTP clients on
fault streams, usage with both counts, providers a gateway does not route, the `fix:` lines, and
docs/MATRIX.md's section written from a run (in a temporary copy, never the checkout's)."""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from tests.gateway_relay import Rewrites, relaying
from toolcall.harness import serving
from toolcall.harness.gateways import command, report
from toolcall.harness.gateways.clients import available
from toolcall.harness.gateways.known import ByURL, Launch, PortkeyProviders, Route
from toolcall.harness.gateways.run import Case, Clients, GatewayRun, cases, run_gateway
from toolcall.harness.peers import Implementation
from toolcall.harness.suite.profiles import load_suite

ROOT = Path(__file__).resolve().parents[1]
SUITE = load_suite(ROOT)


def client(name: str = "openai-sdk-http") -> list[Implementation]:
    found, missing = available()
    chosen = [c for c in found if c.name == name]
    if not chosen:
        pytest.skip(f"{name} cannot run here: {missing.get(name)}")
    return chosen


def relayed(
    rewrites: Rewrites, todo: list[Case], clients: list[Implementation] | None = None
) -> GatewayRun:
    with serving.serving(SUITE) as served, relaying(served.base_url, rewrites) as url:
        return run_gateway(
            ByURL(url, "relay"),
            served,
            todo,
            ROOT,
            say=lambda _: None,
            bound=3.0,
            clients=Clients(clients if clients is not None else client()),
        )


def test_a_cut_closed_cleanly_is_a_loud_failure_made_silent() -> None:
    """Portkey's cut: serve drops the connection, which the openai SDK raises on; the relay ends
    the answer cleanly instead, and the SDK hands over truncated arguments without an error.
    The raw stream passes (it has no finish_reason); the client judgement fails it."""
    todo = [c for c in cases(SUITE, provider="glm") if c.fault == "cut"]
    (result,) = relayed(Rewrites(close_on_cut=True), todo).results
    assert result.fault is None, result.fault
    (verdict,) = result.client_failures
    assert verdict.kind == "made silently wrong"
    assert verdict.direct.raised is not None and verdict.direct.raised.startswith("APIConnection")
    assert verdict.through.loud is False and verdict.through.calls
    assert report.mark(result) == "CLIENT" and not result.passed
    table = report.text(report.document([GatewayRun("relay", "", results=[result])]))
    assert "CLIENT glm/single_call [cut]: openai-sdk-http made silently wrong" in table
    assert "straight from serve: raised APIConnectionError" in table
    assert "through relay: returned 1 call without an error: get_weather" in table
    assert "fix: treat a stream that ends without `finish_reason` as cut" in table


def test_a_cut_after_the_finish_closed_cleanly_is_the_whole_turn_and_no_failure() -> None:
    """Gemini's single call and its finish come in the first event, so serve's cut falls after
    the finish: a gateway that ends the stream cleanly there passes on the whole turn, and the
    client is held against its answer on the stream not cut. The Vercel AI SDK raises on the
    cut straight from serve and reads the uncut stream right, so silence here is right."""
    todo = [c for c in cases(SUITE, provider="gemini") if c.fault == "cut"]
    (result,) = relayed(Rewrites(close_on_cut=True), todo, client("vercel-ai")).results
    assert result.fault is None and result.client_failures == [], result.clients
    assert result.passed


def test_the_same_cut_dropped_as_serve_drops_it_passes_through_the_client() -> None:
    todo = [c for c in cases(SUITE, provider="glm") if c.fault is not None]
    run = relayed(Rewrites(), todo)
    assert [r.case.fault for r in run.results] == ["cut", "429", "500"]
    assert all(r.passed and r.clients == [] for r in run.results), [
        (r.case.fault, r.clients) for r in run.results
    ]


def test_usage_is_asked_for_where_the_provider_streams_it_and_its_counts_are_judged() -> None:
    """Gemini streams usage (its profile says so) and its requests did not ask: the client asks
    now. A relay that recounts total_tokens fails `USAGE`, with both counts in the report."""
    todo = [c for c in cases(SUITE, provider="gemini") if c.target == "single_call" and not c.fault]
    assert todo[0].request["stream_options"] == {"include_usage": True}
    doubao = cases(SUITE, provider="doubao", scenario="single_call")[0]
    assert "stream_options" not in doubao.request  # its profile: usage none
    run = relayed(Rewrites(usage_total=72), todo)
    (result,) = run.results
    assert result.usage is not None and result.usage.verdict == "changed"
    assert report.mark(result) == "USAGE" and not result.passed
    assert result.request is not None and result.request.intact
    table = report.text(report.document([run]))
    assert "provider sent prompt 322, completion 12, total 334; client got " in table
    assert "completion 12, total 72" in table
    assert "fix: bill from gemini's own counts" in table


def test_a_stream_answered_with_an_empty_200_is_an_error_with_its_fix() -> None:
    """Portkey's `deepseek` provider on a reasoning stream: status 200, nothing in it."""
    todo = cases(SUITE, provider="deepseek", scenario="reasoning_then_call")
    run = relayed(Rewrites(empty_200=True), todo)
    (result,) = run.results
    assert report.mark(result) == "ERROR" and result.error is not None
    assert result.error.startswith("empty 200")
    table = report.text(report.document([run]))
    assert "fix: treat an empty 200 as an error in the client: relay answers this deepseek" in table


def test_a_provider_the_gateway_cannot_route_is_listed_not_sent() -> None:
    class OnlyGLM(ByURL):
        def cannot_route(self, provider: str) -> str | None:
            return None if provider == "glm" else "no such provider in this gateway"

    todo = cases(SUITE, scenario="single_call")
    with serving.serving(SUITE) as served, relaying(served.base_url) as url:
        run = run_gateway(OnlyGLM(url, "relay"), served, todo, ROOT, say=lambda _: None)
    assert {r.case.provider for r in run.results} == {"glm"}
    assert run.skipped["gemini"] == "no such provider in this gateway"
    table = report.text(report.document([run]))
    assert "not routed: doubao: no such provider in this gateway" in table
    assert any(line.split()[:2] == ["doubao", "n/a"] for line in table.splitlines()), table


def test_portkey_named_providers_point_the_custom_host_at_serve() -> None:
    portkey = PortkeyProviders()
    assert portkey.cannot_route("glm") is None
    assert portkey.cannot_route("doubao") is not None
    route = Route("alias", "/kimi/single_call/fault/cut/v1", "kimi-k2")
    target = portkey.target(Launch(None, 4000), "http://127.0.0.1:9", route)
    assert target.headers["x-portkey-provider"] == "moonshot"
    assert (
        target.headers["x-portkey-custom-host"] == "http://127.0.0.1:9/kimi/single_call/fault/cut"
    )
    assert target.model == "kimi-k2" and target.base_url == "http://127.0.0.1:4000/v1"
    for endpoint in ("/chat/completions", "/v1/chat/completions"):  # moonshot's, deepseek's
        path = target.headers["x-portkey-custom-host"].removeprefix("http://127.0.0.1:9")
        assert serving.route(path + endpoint) == serving.Route("kimi", "single_call", "cut")


@pytest.mark.slow
def test_a_fix_names_the_gateways_of_the_run_that_pass_the_same_streams() -> None:
    todo = [c for c in cases(SUITE, provider="glm") if c.fault == "cut"]
    with serving.serving(SUITE) as served:
        with relaying(served.base_url, Rewrites(hang_on_cut=5)) as url:
            hangs = run_gateway(
                ByURL(url, "hangs"), served, todo, ROOT, say=lambda _: None, bound=2.0
            )
        with relaying(served.base_url) as url:
            drops = run_gateway(
                ByURL(url, "drops"), served, todo, ROOT, say=lambda _: None, bound=2.0
            )
    table = report.text(report.document([hangs, drops]))
    expected = "hangs keeps the connection open after upstream broke; the same streams pass "
    assert expected + "through drops (1 of 1)" in table, table


def arguments(tmp_path: Path, **given: object) -> argparse.Namespace:
    values = {
        "from_json": None,
        "docs": None,
        "markdown": None,
        "json": None,
        "strict": False,
    }
    values.update(given)
    return argparse.Namespace(**values)


@pytest.mark.slow
def test_the_docs_section_is_written_from_a_run_with_its_date_and_versions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A small run (GLM's single call and its faults through a relay that hangs on a cut) is
    written as JSON, then rendered into a copy of docs/MATRIX.md: the section between the
    markers is replaced, everything around it is kept byte for byte."""
    todo = [c for c in cases(SUITE, provider="glm") if c.target == "single_call"]
    with (
        serving.serving(SUITE) as served,
        relaying(served.base_url, Rewrites(hang_on_cut=5)) as url,
    ):
        run = run_gateway(ByURL(url, "relay"), served, todo, ROOT, say=lambda _: None, bound=2.0)
    about = {
        "date": "2026-12-04 18:00 UTC",
        "toolcall": "0.1.0",
        "python": "3.11.7",
        "node": "v20.11.1",
        "clients": {"openai-sdk-http": "openai 3.60.0"},
        "selection": {"provider": "glm"},
    }
    saved = tmp_path / "gateways.json"
    saved.write_text(json.dumps(report.document([run], about)), encoding="utf-8")
    docs = tmp_path / "MATRIX.md"
    shutil.copyfile(ROOT / "docs" / "MATRIX.md", docs)
    before = docs.read_text(encoding="utf-8")
    assert command.run(SUITE, arguments(tmp_path, from_json=saved, docs=docs)) == 0
    after = docs.read_text(encoding="utf-8")
    start, end = before.index(report.BEGIN), before.index(report.END)
    assert after.startswith(before[: start + len(report.BEGIN)])
    assert after.endswith(before[end:])
    section = after[start : after.index(report.END)]
    assert "Run of 2026-12-04 18:00 UTC: toolcall 0.1.0 on Python 3.11.7, Node v20.11.1" in section
    assert "openai-sdk-http (openai 3.60.0)" in section and "Narrowed to provider glm." in section
    assert "| relay (yours) | 3/4 |" in section
    assert "- HANG glm/single_call [cut]: hang" in section
    assert "- **fix:** set a read timeout in the client" in section
    assert "wrote the gateway section" in capsys.readouterr().out
    # rendered twice from the same run, the file does not change again
    assert command.run(SUITE, arguments(tmp_path, from_json=saved, docs=docs)) == 0
    assert docs.read_text(encoding="utf-8") == after


def test_a_docs_file_without_the_markers_is_refused_untouched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "gateways.json"
    saved.write_text(json.dumps(report.document([])), encoding="utf-8")
    docs = tmp_path / "MATRIX.md"
    docs.write_text("# no section here\n", encoding="utf-8")
    assert command.run(SUITE, arguments(tmp_path, from_json=saved, docs=docs)) == 2
    assert docs.read_text(encoding="utf-8") == "# no section here\n"
    assert "no lines" in capsys.readouterr().out


def test_a_run_says_when_it_was_made_with_what_and_over_what() -> None:
    class Named:
        name, version = "openai-sdk-http", "openai 9.9.9"

        def assemble(self, stream: object) -> object:
            raise AssertionError("not run")

    made = command.about(
        Clients([Named()]),  # type: ignore[list-item]
        provider="glm",
        scenario=None,
        gateways=["portkey"],
    )
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", made["date"])
    assert made["clients"] == {"openai-sdk-http": "openai 9.9.9"}
    assert made["selection"] == {"provider": "glm", "gateway": ["portkey"]}
    assert made["python"].count(".") == 2 and made["toolcall"]
    line = report.about_line(made)
    assert "HTTP clients: openai-sdk-http (openai 9.9.9)." in line
    assert line.endswith("Narrowed to provider glm, gateway portkey.")


_CRASHING_CLIENT = """
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m["cmd"] == "start":
        me = {"name": "crashing", "version": "1", "language": "python"}
        hello = {"protocol": 3, "implementation": me, "wires": ["chat"], "http_client": True}
        print(json.dumps(hello), flush=True)
    elif m["cmd"] == "assemble":
        print("APIConnectionError: Connection error.", file=sys.stderr, flush=True)
        sys.exit(1)
"""


def test_a_program_client_that_raises_is_told_by_what_it_raised_not_its_exit_status() -> None:
    """The JavaScript clients are protocol programs: an exception of their SDK ends the process
    with its name and message as the last line of standard error, read as what was raised."""
    from toolcall.harness.gateways.clients import answer
    from toolcall.harness.peers.external import External

    program = External("crashing", [sys.executable, "-c", _CRASHING_CLIENT], timeout=20)
    try:
        got = answer(program, "http://127.0.0.1:9/v1", {}, {"messages": []}, b"")
    finally:
        program.close()
    assert got.raised == "APIConnectionError: Connection error."
    assert got.describe() == "raised APIConnectionError (Connection error.)"
