"""Properties of every wire: any turn, written on any of the five wires, assembles to itself.

Hypothesis draws the turn (text, calls with names and JSON arguments of every type, how finely
the wire streams them) and each test holds one rule on all five wires at once: the calls come
out as written and under distinct numbers, the events say what the turn says, in order, any split
of the bytes gives the same answer, and a body sent twice is the same turn with its
`second_generation` diagnostic.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests import wire_bodies
from tests.json_values import json_values
from tests.outcomes import outcome
from tests.wire_bodies import WIRES
from toolcall import Event, TurnBuilder, TurnDone
from toolcall.harness.event_check import event_problems

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
