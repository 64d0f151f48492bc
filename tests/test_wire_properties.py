"""Properties of every wire: any turn, written on any of the five wires, assembles to itself.

Hypothesis draws the turn (text, calls with names and JSON arguments of every type, how finely
the wire streams them) and each test holds one rule on all five wires at once: the calls come
out as written and under distinct numbers, the events say what the turn says, in order, any split
of the bytes gives the same answer, a body sent twice is the same turn with its
`second_generation` diagnostic, and a turn whose events pass 64 KB (held as their bytes, read
from them, Responses' repetitions checked in place) reads as every event decoded as text.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import toolcall._stream
from tests import wire_bodies
from tests.fuzzing import LONG, events_of, no_event_long
from tests.json_values import json_values
from tests.outcomes import outcome
from tests.wire_bodies import WIRES
from toolcall import Event, TurnBuilder, TurnDone
from toolcall.harness.checks.event_check import event_problems

values = json_values(floats=st.floats(allow_nan=False, allow_infinity=False, width=32), text=12)
names = st.from_regex(r"[a-z][a-z_]{0,10}", fullmatch=True)
calls = st.lists(
    st.tuples(names, st.dictionaries(st.text(max_size=6), values, max_size=4)), max_size=4
)
texts = st.text(max_size=30)
sizes = st.integers(1, 12)


def turn_of(body: bytes, pieces: list[int] | None = None) -> tuple[Any, list[Event]]:
    builder = TurnBuilder()
    seen: list[Event] = []
    bounds = [0, *sorted(set(pieces or [])), len(body)]
    for start, end in itertools.pairwise(bounds):
        seen += builder.feed(body[start:end])
    seen += builder.finish()
    done = seen[-1]
    assert isinstance(done, TurnDone)
    return done.turn, seen


def roundtrip(value: Any) -> Any:
    """The value as JSON reads it back (float32 draws written by json.dumps)."""
    return json.loads(json.dumps(value))


@settings(max_examples=40, deadline=None)
@given(calls=calls, text=texts, size=sizes)
def test_any_turn_assembles_to_itself_on_every_wire(
    calls: list[wire_bodies.Call], text: str, size: int
) -> None:
    for wire in WIRES:
        turn, seen = turn_of(wire_bodies.body(wire, calls, text, size))
        assert [
            (c.function.name, a) for c, a in zip(turn.tool_calls, turn.arguments, strict=True)
        ] == [(name, roundtrip(arguments)) for name, arguments in calls], wire
        assert [c.index for c in turn.tool_calls] == list(range(len(calls))), wire
        assert turn.content == text, wire
        assert event_problems(seen, turn) == [], wire


@settings(max_examples=25, deadline=None)
@given(calls=calls, text=texts, size=sizes, cuts=st.lists(st.integers(0, 3000), max_size=6))
def test_any_split_gives_the_same_answer_on_every_wire(
    calls: list[wire_bodies.Call], text: str, size: int, cuts: list[int]
) -> None:
    for wire in WIRES:
        body = wire_bodies.body(wire, calls, text, size)
        bounds = sorted({0, len(body), *(c for c in cuts if c < len(body))})
        pieces = [body[a:b] for a, b in itertools.pairwise(bounds)]
        assert outcome(pieces) == outcome(body), wire


@settings(max_examples=25, deadline=None)
@given(calls=calls, text=texts, size=sizes)
def test_a_body_sent_twice_is_the_same_turn_on_every_wire(
    calls: list[wire_bodies.Call], text: str, size: int
) -> None:
    framings = [(wire, None) for wire in WIRES] + [("gemini", "json-array")]
    for wire, framing in framings:
        once = wire_bodies.frame(wire, wire_bodies.events(wire, calls, text, size), framing=framing)
        turn, _ = turn_of(once)
        twice, seen = turn_of(once + once)
        assert (twice.tool_calls, twice.arguments, twice.content) == (
            turn.tool_calls,
            turn.arguments,
            turn.content,
        ), wire
        assert [d.code for d in twice.diagnostics][-1] == "second_generation", wire
        assert event_problems(seen, twice) == [], wire


@settings(max_examples=5, deadline=None)
@given(
    unit=st.text(min_size=1, max_size=5),
    name=names,
    size=st.sampled_from([4093, 2 * LONG]),
    reasoning=st.booleans(),
    events_on=st.booleans(),
    cuts=st.lists(st.integers(0, 600_000), max_size=4),
)
def test_a_turn_past_64_kb_reads_as_every_event_decoded_on_every_wire(
    unit: str, name: str, size: int, reasoning: bool, events_on: bool, cuts: list[int]
) -> None:
    """Long arguments (streamed in pieces, or in one event), after long reasoning or not: the
    long-event paths give the answer of every event held and decoded as text, on both
    backends, however the body is split, and they are taken wherever an event is long (a
    call in one event, Responses' repetitions)."""
    long = (unit * (LONG // len(unit) + 1))[:LONG]
    calls: list[wire_bodies.Call] = [(name, {"text": long, "n": 1})]
    taken = []
    original = toolcall._stream.TurnBuilder._read_long

    def counted(builder: toolcall._stream.TurnBuilder, event: Any) -> None:
        taken.append(event)
        original(builder, event)

    for wire in WIRES:
        items = wire_bodies.events(wire, calls, "ok", size, reasoning=long if reasoning else "")
        body = wire_bodies.frame(wire, items)
        with no_event_long():
            want = outcome(body, backend="stdlib", fast=False, events=events_on)
        assert want[0] == "turn", (wire, want)
        bounds = sorted({0, len(body), *(c for c in cuts if c < len(body))})
        pieces = [body[a:b] for a, b in itertools.pairwise(bounds)]
        toolcall._stream.TurnBuilder._read_long = counted  # type: ignore[method-assign]
        try:
            for backend in ("auto", "stdlib"):
                assert outcome(pieces, backend=backend, events=events_on) == want, wire
            # One event a slice, as a socket hands them over: a long one is held as its bytes.
            assert outcome(events_of(body), events=events_on) == want, wire
        finally:
            toolcall._stream.TurnBuilder._read_long = original  # type: ignore[method-assign]
        if size > LONG or wire in ("responses", "gemini", "ollama"):  # a call in one event
            assert taken, f"{wire}: no event was held as its bytes"
        taken.clear()
