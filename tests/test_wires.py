"""Every published recording of the Responses, Anthropic, Gemini and Ollama wires, replayed,
and every synthesized wire case beside them (events no public recording shows, written from the
provider's documentation: a custom tool's call, tools the provider runs).

Each body is read whole, byte by byte, and at random splits, on both JSON backends, with events
on and off, by its wire named and detected, and must give exactly the calls, text, reasoning and
stop reason its hand-written expectation holds. With events on, each call must be reported done
while the body is still being fed: as soon as it closed, not at the end of the turn.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolcall
from tests.outcomes import BACKENDS, outcome
from tests.test_citations import facts_sections
from toolcall import ToolCallDone, Turn, TurnBuilder, TurnDone
from toolcall.harness.checks import expectation_differences
from toolcall.harness.checks.event_check import event_problems
from toolcall.harness.suite.profiles import load_suite
from toolcall.harness.suite.recordings import Recording, discover, offer_problems, sha256

ROOT = Path(__file__).resolve().parents[1]
RECORDINGS = [r for r in discover(ROOT / "cassettes") if r.wire != "chat"]
IDS = [r.name for r in RECORDINGS]


PUBLISHED = [r for r in RECORDINGS if not r.synthesized]
SYNTHESIZED = [r for r in RECORDINGS if r.synthesized]
FACTS = (ROOT / "docs" / "FACTS.md").read_text(encoding="utf-8")
FACTS_SECTIONS = facts_sections(ROOT)


def test_every_wire_has_recordings() -> None:
    assert {r.wire for r in PUBLISHED} == {"responses", "anthropic", "gemini", "ollama"}
    assert {r.provenance["framing"] for r in PUBLISHED} == {"sse", "jsonl", "ndjson", "json-array"}
    assert len(PUBLISHED) == 27
    assert sorted(r.id for r in SYNTHESIZED) == [
        "wires/anthropic/synthesized_anthropic_web_search",
        "wires/responses/synthesized_responses_custom_tool_call",
        "wires/responses/synthesized_responses_mcp_call",
    ]


@pytest.mark.parametrize("rec", SYNTHESIZED, ids=[r.name for r in SYNTHESIZED])
def test_a_synthesized_case_says_so_and_cites_the_documentation(rec: Recording) -> None:
    provenance = rec.provenance["provenance"]
    assert rec.provenance["kind"] == "synthesized" and rec.provenance["party"] == "documentation"
    assert sha256(rec.raw) == provenance["sha256"]
    assert provenance["documentation"] and all(
        url.startswith("https://") for url in provenance["documentation"]
    )
    section = provenance["fact"].removeprefix("docs/FACTS.md §")
    assert section in FACTS_SECTIONS
    assert all(url.split(" ")[0] in FACTS for url in provenance["documentation"])
    assert rec.name.startswith("synthesized_")


@pytest.mark.parametrize("rec", PUBLISHED, ids=[r.name for r in PUBLISHED])
def test_the_recording_is_the_published_bytes(rec: Recording) -> None:
    provenance = rec.provenance["provenance"]
    assert sha256(rec.raw) == provenance["sha256"]
    assert provenance["license"] in ("Apache-2.0", "MIT")
    assert len(provenance["commit"]) == 40
    assert rec.provenance["kind"] == "published" and rec.provenance["model"]
    assert rec.expected["recording"].rsplit(".", 1)[0] == rec.name


def check(turn: Turn, expected: dict[str, Any]) -> None:
    """`turn` holds exactly what the expectation says."""
    assert expectation_differences(turn, expected) == []


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rec", RECORDINGS, ids=IDS)
def test_whole_body_gives_the_expected_turn(rec: Recording, backend: str) -> None:
    body = rec.body()
    for wire in (rec.wire, "auto"):
        check(toolcall.assemble(body, wire=wire, json_backend=backend), rec.expected)


@pytest.mark.parametrize("rec", RECORDINGS, ids=IDS)
def test_byte_by_byte_with_events_each_call_is_done_before_the_body_ends(rec: Recording) -> None:
    body = rec.body()
    builder = TurnBuilder(partial_arguments=True)
    events = []
    for at in range(len(body)):
        events += builder.feed(body[at : at + 1])
    early = [e for e in events if isinstance(e, ToolCallDone)]
    events += builder.finish()
    assert builder.wire == rec.wire
    turn = events[-1]
    assert isinstance(turn, TurnDone)
    check(turn.turn, rec.expected)
    assert event_problems(events, turn.turn) == []
    calls = len(rec.expected["tool_calls"]) + len(rec.expected.get("custom_calls", []))
    assert [e.call.index for e in early] == list(range(calls))
    for event in early:
        if event.call.type != "custom":  # a custom call's input is text: it has no view
            assert builder.partial_arguments(event.call.index) == event.arguments


@pytest.mark.parametrize("rec", RECORDINGS, ids=IDS)
def test_random_splits_give_the_whole_answer(rec: Recording) -> None:
    body = rec.body()
    whole = outcome(body, wire=rec.wire)
    assert whole[0] == "turn"
    rng = random.Random(rec.name)
    for _ in range(20):
        cuts = sorted(rng.sample(range(len(body) + 1), rng.randint(1, 12)))
        bounds = [0, *cuts, len(body)]
        pieces = [body[a:b] for a, b in itertools.pairwise(bounds)]
        backend = rng.choice(BACKENDS)
        assert outcome(pieces, backend=backend) == whole
        assert outcome(pieces, backend=backend, events=False, wire=rec.wire) == whole
        assert outcome(pieces, partial=True) == whole


@pytest.mark.parametrize("rec", RECORDINGS, ids=IDS)
def test_async_and_iter_events_give_the_expected_turn(rec: Recording) -> None:
    body = rec.body()
    pieces = [body[at : at + 97] for at in range(0, len(body), 97)]

    async def chunks() -> AsyncIterator[bytes]:
        for piece in pieces:
            yield piece

    check(asyncio.run(toolcall.assemble_async(chunks(), wire=rec.wire)), rec.expected)
    events = list(toolcall.iter_events(iter(pieces)))
    done = events[-1]
    assert isinstance(done, TurnDone)
    check(done.turn, rec.expected)

    async def collect() -> list[toolcall.Event]:
        return [e async for e in toolcall.aiter_events(chunks(), wire=rec.wire)]

    assert [type(e) for e in asyncio.run(collect())] == [type(e) for e in events]


def test_expectations_name_every_call_the_source_recorded() -> None:
    for rec in RECORDINGS:
        assert len(rec.expected["tool_calls"]) == rec.provenance["tool_calls"], rec.name
        assert json.dumps(rec.expected)  # plain JSON


@settings(max_examples=150, deadline=None, derandomize=True)
@given(data=st.data())
def test_any_resplitting_of_any_wire_recording_gives_its_turn(data: st.DataObject) -> None:
    """The re-split property of test_properties.py, over every wire's published bodies."""
    rec = data.draw(st.sampled_from(RECORDINGS))
    body = rec.body()
    cuts = sorted(data.draw(st.lists(st.integers(0, len(body)), max_size=16)))
    bounds = [0, *cuts, len(body)]
    pieces = [body[a:b] for a, b in itertools.pairwise(bounds)]
    backend = data.draw(st.sampled_from(BACKENDS))
    assert outcome(pieces, backend=backend) == outcome(body, wire=rec.wire)


SUITE = load_suite(ROOT)


def test_providers_yaml_names_every_wire_recording_once_under_its_provider_and_wire() -> None:
    assert offer_problems(SUITE, RECORDINGS) == []
    named = sorted(name for offer in SUITE.wire_offers for name in offer.recordings)
    assert named == sorted(r.name for r in PUBLISHED)
    cases = sorted(name for offer in SUITE.wire_offers for name in offer.cases)
    assert cases == sorted(r.name for r in SYNTHESIZED)


def test_every_wire_offer_has_an_endpoint_and_one_kind_of_evidence() -> None:
    for offer in SUITE.wire_offers:
        kinds = [bool(offer.recordings), bool(offer.documentation), bool(offer.reported)]
        assert kinds.count(True) == 1, offer.row
        assert offer.endpoint.startswith(("https://", "http://")), offer.row
    rows = {o.row for o in SUITE.wire_offers}
    assert {"openai@responses", "deepseek@anthropic", "gemini@gemini"} <= rows
    assert "grok@responses" not in rows  # reported, not confirmed: left out


def test_a_wrong_wire_offer_is_named_with_what_is_wrong() -> None:
    (openai,) = [o for o in SUITE.wire_offers if o.row == "openai@responses"]
    (anthropic,) = [o for o in SUITE.wire_offers if o.row == "anthropic@anthropic"]
    wrong = dataclasses.replace(
        openai,
        recordings=(*openai.recordings, "no_such_recording", "fantasy_gemini-2.5-pro_multi_tool"),
    )
    stolen = dataclasses.replace(anthropic, provider="deepseek", recorded_as=("deepseek",))
    others = tuple(o for o in SUITE.wire_offers if o not in (openai, anthropic))
    suite = dataclasses.replace(SUITE, wire_offers=(*others, wrong, stolen))
    problems = offer_problems(suite, RECORDINGS)
    where = "providers.yaml: openai.wires.responses.recordings"
    assert f"{where}: 'no_such_recording' is not under cassettes/wires/" in problems
    assert f"{where}: 'fantasy_gemini-2.5-pro_multi_tool' is a gemini recording" in problems
    assert any("recorded from 'anthropic', not ['deepseek']" in p for p in problems)
    assert any(
        p.startswith("wires/gemini/fantasy_gemini-2.5-pro_multi_tool: named by 2") for p in problems
    )
    dropped = dataclasses.replace(SUITE, wire_offers=(*others, openai))
    assert any("named by 0 wire offers" in p for p in offer_problems(dropped, RECORDINGS))


def test_an_expectation_that_differs_is_a_difference_with_its_path() -> None:
    (rec,) = [r for r in RECORDINGS if "partialArgs_noargs" in r.name]
    turn = toolcall.assemble(rec.body())
    wrong = json.loads(json.dumps(rec.expected))
    wrong["tool_calls"][0]["thought_signature"]["length"] += 1
    wrong["tool_calls"][3]["arguments"] = {"id": "D"}
    paths = [path for path, _want, _got in expectation_differences(turn, wrong)]
    assert paths == ["$.tool_calls[0].thought_signature.length", "$.tool_calls[3].arguments.id"]
    del wrong["tool_calls"][0]["thought_signature"]
    assert "$.tool_calls[0].thought_signature" in [
        p for p, _w, _g in expectation_differences(turn, wrong)
    ]
