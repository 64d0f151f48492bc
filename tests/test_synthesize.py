"""Synthesized cassettes: each carries its scenario's reply, shows its declared quirks, is current.

The cassettes are generated from `providers.yaml`, so these tests are what keeps the three in step:
the library must assemble exactly the reply from every rendered stream, the fingerprint of every
stream must match the quirks the profile declares (so the synthesis data and the declaration
cannot drift apart), and the committed file must be byte-identical to what `synthesize` writes
today (so a hand edit or a stale cassette fails here, not in a confusing replay later).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import toolcall
from toolcall.harness.suite import cassettes, fingerprint
from toolcall.harness.suite.profiles import Cell, ProfileError, Provider, Suite, load_suite
from toolcall.harness.synthesize import (
    SynthesisError,
    cassette_text,
    render,
    settings,
    synthesize,
)

ROOT = Path(__file__).parents[1]
SUITE = load_suite(ROOT)
APPLICABLE = [(p, c) for p, _s, c in SUITE.cells() if c.not_applicable is None]
SYNTHESIZED = [(p, c) for p, c in APPLICABLE if c.provenance.get("kind") == "synthesized"]


def cell_ids(cells: list[tuple[Provider, Cell]]) -> list[str]:
    return [c.id for _p, c in cells]


@functools.cache
def body_of(cell_id: str) -> str:
    """Rendered once per cell: the long-arguments streams run to thousands of chunks."""
    provider_key, scenario = cell_id.split("/")
    provider = SUITE.providers[provider_key]
    return render(SUITE, provider, provider.cells[scenario])


def document(turn: toolcall.Turn) -> dict[str, Any]:
    """The conformance document scenarios.yaml's `expect` schemas describe."""
    data = turn.to_dict()
    calls = data["tool_calls"]
    for call, arguments in zip(calls, turn.arguments, strict=True):
        call["function"]["arguments"] = arguments
    return {
        key: data[key] for key in ("tool_calls", "finish_reason", "content", "reasoning", "usage")
    }


# -- (a) the stream carries exactly the reply ------------------------------------------------


@pytest.mark.parametrize(("provider", "cell"), SYNTHESIZED, ids=cell_ids(SYNTHESIZED))
def test_stream_assembles_to_the_reply(provider: Provider, cell: Cell) -> None:
    reply = SUITE.scenarios[cell.scenario].reply
    turn = toolcall.assemble(body_of(cell.id).encode("utf-8"))
    assert [c.function.name for c in turn.tool_calls] == [c["name"] for c in reply["calls"]]
    assert list(turn.arguments) == [c["arguments"] for c in reply["calls"]]
    assert turn.content == reply["content"]
    assert turn.reasoning == reply["reasoning"]
    finish = settings(provider, cell.scenario).get("finish", {})
    expected = (
        finish.get("reason_with_calls", "tool_calls")
        if reply["calls"]
        else finish.get("reason_without_calls", "stop")
    )
    assert turn.finish_reason == expected


@pytest.mark.parametrize(("provider", "cell"), SYNTHESIZED, ids=cell_ids(SYNTHESIZED))
def test_stream_meets_the_scenario_expectation(provider: Provider, cell: Cell) -> None:
    turn = toolcall.assemble(body_of(cell.id).encode("utf-8"))
    schema = SUITE.scenarios[cell.scenario].expect
    errors = sorted(Draft202012Validator(schema).iter_errors(document(turn)), key=str)
    assert not errors, errors[0].message


@pytest.mark.parametrize(("provider", "cell"), SYNTHESIZED, ids=cell_ids(SYNTHESIZED))
def test_every_chunk_is_one_json_object_per_data_line(provider: Provider, cell: Cell) -> None:
    body = body_of(cell.id)
    assert body.endswith("\n\n")
    for event in body[:-2].split("\n\n"):
        assert "\n" not in event
        if event.startswith(":"):
            continue
        assert event.startswith("data: ")
        payload = event[len("data: ") :]
        if payload != "[DONE]":
            assert isinstance(json.loads(payload), dict)


# -- (b) the stream shows the quirks the profile declares ------------------------------------


@pytest.mark.parametrize(("provider", "cell"), SYNTHESIZED, ids=cell_ids(SYNTHESIZED))
def test_fingerprint_matches_declared_quirks(provider: Provider, cell: Cell) -> None:
    observed = fingerprint.observe(body_of(cell.id).encode("utf-8"))
    assert fingerprint.compare(cell.quirks, observed) == []


# -- (c) the committed cassette is what synthesize writes today ------------------------------


@pytest.mark.parametrize(("provider", "cell"), SYNTHESIZED, ids=cell_ids(SYNTHESIZED))
def test_committed_cassette_is_current(provider: Provider, cell: Cell) -> None:
    committed = cassettes.cassette_path(SUITE.cassettes, provider.key, cell.scenario)
    command = f"make synthesize PROVIDER={provider.key} SCENARIO={cell.scenario}"
    assert committed.is_file(), f"{committed} is missing: run {command}"
    if cassettes.evidence_kind(committed) != "synthesized":
        pytest.skip(f"{committed.name} is {cassettes.evidence_kind(committed)} evidence")
    fresh = cassette_text(SUITE, provider, cell)
    assert fresh == committed.read_text(encoding="utf-8"), (
        f"{committed.relative_to(ROOT)} differs from what synthesize writes now (hand edit or "
        f"stale after a providers.yaml/scenarios.yaml change): run {command}"
    )


@pytest.mark.parametrize(("provider", "cell"), SYNTHESIZED, ids=cell_ids(SYNTHESIZED))
def test_cassette_request_and_headers(provider: Provider, cell: Cell) -> None:
    path = cassettes.cassette_path(SUITE.cassettes, provider.key, cell.scenario)
    if cassettes.evidence_kind(path) != "synthesized":
        pytest.skip(f"{path.name} is {cassettes.evidence_kind(path)} evidence")
    interaction = cassettes.load(path)["interactions"][0]
    request = interaction["request"]
    assert request["uri"] == provider.base_url + "/chat/completions"
    assert json.loads(request["body"]) == SUITE.request_body(provider, cell)
    assert {k.lower() for k in request["headers"]} == {"content-type", "accept"}
    response = interaction["response"]
    content_type = settings(provider, cell.scenario)["content_type"]
    assert response["headers"] == {"Content-Type": [content_type]}
    assert cassettes.response_body(cassettes.load(path)) == body_of(cell.id).encode("utf-8")


def test_no_cassette_without_an_applicable_cell() -> None:
    applicable = {
        cassettes.cassette_path(SUITE.cassettes, p.key, c.scenario) for p, c in APPLICABLE
    }
    on_disk = set(SUITE.cassettes.glob("*/*.yaml"))
    assert sorted(on_disk - applicable) == []


def test_no_credentials_in_cassettes() -> None:
    for path in SUITE.cassettes.glob("*/*.yaml"):
        text = path.read_text(encoding="utf-8")
        assert "authorization" not in text.lower(), path
        assert not re.search(r"\b(?:sk|xai|AIza)[-_][A-Za-z0-9]{16,}", text), path


# -- parallel calls never merge ---------------------------------------------------------------


@pytest.mark.parametrize("provider", list(SUITE.providers.values()), ids=list(SUITE.providers))
def test_parallel_calls_never_merge(provider: Provider) -> None:
    cell = provider.cells["parallel_calls"]
    if cell.not_applicable:
        pytest.skip(f"{cell.id} is not applicable: {cell.not_applicable}")
    path = cassettes.cassette_path(SUITE.cassettes, provider.key, cell.scenario)
    body = cassettes.response_body(cassettes.load(path))
    reply = SUITE.scenarios["parallel_calls"].reply
    # Whole body and 7-byte slices (the live path) must agree and keep the calls apart.
    for turn in (toolcall.assemble(body), toolcall.assemble(_slices(body, 7))):
        assert len(turn.tool_calls) == 2
        assert len({c.index for c in turn.tool_calls}) == 2
        assert all(c.id for c in turn.tool_calls)
        assert len({c.id for c in turn.tool_calls}) == 2
        if cassettes.evidence_kind(path) == "synthesized":
            assert list(turn.arguments) == [c["arguments"] for c in reply["calls"]]
        for call in turn.tool_calls:
            assert "}{" not in call.function.arguments
            assert call.function.name == reply["calls"][0]["name"]


def _slices(body: bytes, size: int) -> list[bytes]:
    return [body[i : i + size] for i in range(0, len(body), size)]


# -- profile policy ---------------------------------------------------------------------------


def test_tool_stream_is_sent_only_in_its_scenario() -> None:
    """`tool_stream` (a GLM request flag) changes the wire; a profile sending it anywhere else
    would make another scenario's cassette show a shape that scenario does not describe."""
    for _provider, _scenario, cell in SUITE.cells():
        if "tool_stream" in cell.request_extra:
            assert cell.scenario == "tool_stream_call", cell.id
            assert "arguments" in cell.quirks, f"{cell.id} must declare how arguments arrive"


def test_every_cell_says_where_its_cassette_comes_from_or_why_none() -> None:
    for provider, _scenario, cell in SUITE.cells():
        if cell.not_applicable:
            continue
        kind = cell.provenance.get("kind")
        assert kind in {"synthesized", "recorded", "pending"}, (
            f"{cell.id}: give it a provenance (make record PROVIDER={provider.key} "
            f"SCENARIO={cell.scenario} ACCEPT=1 writes one) or `not_applicable: <reason>`"
        )
        if kind == "synthesized":
            assert provider.synthesis, f"{cell.id}: synthesized, no synthesis block"


# -- the renderer follows the data, not the provider's name -----------------------------------


def variant(provider: Provider, **changes: Any) -> Provider:
    """`provider` with its synthesis block deep-updated (dotted keys: `arguments.mode`)."""
    block = json.loads(json.dumps(provider.synthesis))
    for dotted, value in changes.items():
        target = block
        *path, last = dotted.split("__")
        for key in path:
            target = target.setdefault(key, {})
        if value is None:
            target.pop(last, None)
        else:
            target[last] = value
    return dataclasses.replace(provider, synthesis=block)


def quirks_of(suite: Suite, provider: Provider, scenario: str) -> dict[str, Any]:
    body = render(suite, provider, provider.cells[scenario])
    return fingerprint.observe(body.encode("utf-8")).quirks


def test_same_input_renders_byte_identical_output() -> None:
    provider = SUITE.providers["openai"]
    cell = provider.cells["parallel_calls"]
    assert render(SUITE, provider, cell) == render(SUITE, provider, cell) == body_of(cell.id)


def test_done_and_keep_alive_follow_the_data() -> None:
    openai = variant(
        SUITE.providers["openai"],
        done=False,
        keep_alive={"count": 2, "line": ": keep-alive"},
    )
    body = render(SUITE, openai, openai.cells["single_call"])
    assert body.startswith(": keep-alive\n\n: keep-alive\n\ndata: ")
    assert "[DONE]" not in body
    observed = quirks_of(SUITE, openai, "single_call")
    assert observed["done"] is False
    assert observed["sse_comments"] is True


def test_whole_index_less_calls_follow_the_data() -> None:
    openai = variant(
        SUITE.providers["openai"],
        arguments__mode="whole",
        templates__tool_call__whole=(
            '{"function":{"arguments":$arguments,"name":$name},"id":$id,"type":"function"}'
        ),
        finish__with_last_tool_chunk=True,
    )
    observed = quirks_of(SUITE, openai, "parallel_calls")
    assert observed["arguments"] == "whole"
    assert observed["index"] == "absent"
    assert observed["finish_with_last_delta"] is True
    turn = toolcall.assemble(render(SUITE, openai, openai.cells["parallel_calls"]).encode())
    assert len(turn.tool_calls) == 2


def test_all_calls_in_one_chunk_follow_the_data() -> None:
    grok = variant(SUITE.providers["grok"], arguments__calls_per_chunk="all")
    assert quirks_of(SUITE, grok, "parallel_calls")["calls_per_chunk"] == "many"


def test_call_id_list_is_used_verbatim() -> None:
    grok = variant(SUITE.providers["grok"], call_id={"list": ["call_00000001", "call_00000002"]})
    turn = toolcall.assemble(render(SUITE, grok, grok.cells["parallel_calls"]).encode())
    assert [c.id for c in turn.tool_calls] == ["call_00000001", "call_00000002"]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"templates__tool__delta": '{"tool_calls":$calls}'}, r"tool\.delta: no value for \$calls"),
        ({"templates__choice": '{"index":0,"delta":$delta'}, r"templates\.choice renders bad JSON"),
        ({"colour": "blue"}, r"Additional properties"),
        ({"arguments__mode": "whole"}, r"needs templates\.tool_call\.whole"),
        ({"values__chunk_id": {"format": "{base64:8}"}}, r"unknown field \{base64\}"),
    ],
)
def test_a_broken_synthesis_block_is_reported(changes: dict[str, Any], message: str) -> None:
    openai = variant(SUITE.providers["openai"], **changes)
    with pytest.raises(SynthesisError, match=message):
        render(SUITE, openai, openai.cells["single_call"])


def test_not_applicable_cells_do_not_render() -> None:
    openai = SUITE.providers["openai"]
    with pytest.raises(SynthesisError, match="not applicable"):
        render(SUITE, openai, openai.cells["tool_stream_call"])


def test_unknown_filter_is_reported() -> None:
    with pytest.raises(ProfileError, match="unknown provider 'nobody'"):
        synthesize(SUITE, provider="nobody")


def test_cassette_text_is_what_synthesize_writes(tmp_path: Path) -> None:
    """On chat and on the provider's own wire, whose rendering copies the wire recordings."""
    provider = SUITE.providers["gemini"]
    cell = provider.cells["single_call"]
    shutil.copytree(SUITE.cassettes / "wires", tmp_path / "cassettes" / "wires")
    paths, left_out = synthesize(dataclasses.replace(SUITE, root=tmp_path), "gemini", "single_call")
    assert left_out == []
    chat, wire = tmp_path / "cassettes" / "gemini", tmp_path / "cassettes" / "gemini" / "wires"
    assert paths == [chat / "single_call.yaml", wire / "gemini" / "single_call.yaml"]
    assert paths[0].read_text(encoding="utf-8") == cassette_text(SUITE, provider, cell)
    assert paths[1].read_text(encoding="utf-8") == cassette_text(SUITE, provider, cell, "gemini")
