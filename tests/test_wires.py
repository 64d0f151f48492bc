"""Every published recording of the Responses, Anthropic, Gemini and Ollama wires, replayed.

Each body is read whole, byte by byte, and at random splits, on both JSON backends, with events
on and off, by its wire named and detected, and must give exactly the calls, text, reasoning and
stop reason its hand-written expectation holds. With events on, each call must be reported done
while the body is still being fed: as soon as it closed, not at the end of the turn.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolcall
from tests.outcomes import BACKENDS, outcome
from tests.wire_recordings import Recording, recordings, sha256
from toolcall import ToolCallDone, Turn, TurnBuilder, TurnDone
from toolcall.harness.event_check import event_problems

RECORDINGS = recordings()
IDS = [r.name for r in RECORDINGS]


def test_every_wire_has_recordings() -> None:
    assert {r.wire for r in RECORDINGS} == {"responses", "anthropic", "gemini", "ollama"}
    assert len(RECORDINGS) == 24


@pytest.mark.parametrize("rec", RECORDINGS, ids=IDS)
def test_the_recording_is_the_published_bytes(rec: Recording) -> None:
    provenance = rec.source["provenance"]
    assert sha256(rec.raw) == provenance["sha256"]
    assert provenance["license"] in ("Apache-2.0", "MIT")
    assert len(provenance["commit"]) == 40
    assert rec.source["kind"] == "published" and rec.source["model"]
    assert rec.expected["recording"].rsplit(".", 1)[0] == rec.name


def check(turn: Turn, expected: dict[str, Any]) -> None:
    """`turn` holds exactly what the expectation says."""
    calls = [
        {"id": call.id, "name": call.function.name, "arguments": arguments}
        for call, arguments in zip(turn.tool_calls, turn.arguments, strict=True)
    ]
    want = [{k: c[k] for k in ("id", "name", "arguments")} for c in expected["tool_calls"]]
    assert calls == want
    assert [c.index for c in turn.tool_calls] == list(range(len(want)))
    for call, wanted in zip(turn.tool_calls, expected["tool_calls"], strict=True):
        signature = wanted.get("thought_signature")
        held = (call.extra_content or {}).get("google", {}).get("thought_signature")
        if signature is None:
            assert held is None
        else:
            assert held.startswith(signature["starts"]) and len(held) == signature["length"]
    assert turn.content == expected["content"]
    assert turn.reasoning == expected["reasoning"]
    assert turn.finish_reason == expected["finish_reason"]


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
    assert [e.call.index for e in early] == list(range(len(rec.expected["tool_calls"])))
    for event in early:
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
        assert len(rec.expected["tool_calls"]) == rec.source["tool_calls"], rec.name
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
