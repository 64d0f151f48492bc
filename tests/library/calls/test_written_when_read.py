"""Arguments that arrive as an object (Gemini, Ollama, Anthropic's `input`) are written as text
only when `function.arguments` is first read, and nothing else about the turn changes.

Counted, not timed: the writer is wrapped to count its calls. The limits are checked against the
same turn read with the text written at once (as for an object too large to hold): both must
give one verdict for any arguments and any `max_argument_chars`, though one counts a bound and
the other the text.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
import tracemalloc
from collections.abc import Callable
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolcall._call_table
import toolcall._stream
from tests.helpers import wire_bodies
from tests.helpers.json_values import json_values
from tests.helpers.outcomes import outcome
from toolcall import (
    ArgumentsDelta,
    ToolCall,
    ToolCallDone,
    ToolCallFunction,
    ToolCallStarted,
    TurnBuilder,
    TurnDone,
    assemble,
)
from toolcall._calls.held_arguments import hold

WHOLE_WIRES = ("gemini", "ollama")

values = json_values(integers=st.integers(-(2**63), 2**64 - 1), text=12, width=4, leaves=12)
objects = st.dictionaries(st.text(max_size=6), values, max_size=5)


@pytest.fixture
def writes(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every value a builder's writer writes, from now on."""
    written: list[object] = []
    original = toolcall._stream.writer

    def counting_writer(name: str = "auto") -> Callable[[dict[str, Any]], str]:
        write = original(name)

        def counted(value: dict[str, Any]) -> str:
            written.append(value)
            return write(value)

        return counted

    monkeypatch.setattr(toolcall._stream, "writer", counting_writer)
    return written


def gemini_body(arguments: dict[str, Any]) -> bytes:
    return wire_bodies.body("gemini", [("write", arguments)])


@pytest.mark.parametrize("wire", WHOLE_WIRES)
def test_the_text_is_written_once_and_only_when_read(wire: str, writes: list[object]) -> None:
    arguments = {"path": "notes.md", "text": "line\nbreak \u00e9 \U0001f9ea" * 50}
    turn = assemble(wire_bodies.body(wire, [("write", arguments)]), wire=wire)
    assert writes == []
    assert turn.arguments == (arguments,)
    assert writes == []
    text = turn.tool_calls[0].function.arguments
    assert json.loads(text) == arguments
    assert turn.tool_calls[0].function.arguments is text
    assert len(writes) == 1


def test_with_events_on_the_delta_and_both_calls_share_one_text_written_when_read(
    writes: list[object],
) -> None:
    builder = TurnBuilder()
    seen = builder.feed(gemini_body({"a": 1})) + builder.finish()
    assert writes == []
    started, delta, done, turn_done = seen
    assert isinstance(started, ToolCallStarted)
    assert isinstance(delta, ArgumentsDelta) and isinstance(done, ToolCallDone)
    assert isinstance(turn_done, TurnDone)
    assert done.arguments == {"a": 1} and turn_done.turn.arguments == ({"a": 1},)
    assert writes == []
    text = turn_done.turn.tool_calls[0].function.arguments
    assert text == '{"a":1}'
    assert delta.fragment is text
    assert done.call.function.arguments is text
    assert len(writes) == 1


def test_the_delta_is_a_plain_arguments_delta_to_every_reader() -> None:
    builder = TurnBuilder()
    delta = builder.feed(gemini_body({"city": "Paris"}))[1]
    plain = ArgumentsDelta(0, '{"city":"Paris"}')
    assert isinstance(delta, ArgumentsDelta)
    assert type(delta).__name__ == "ArgumentsDelta"
    assert delta == plain and plain == delta and hash(delta) == hash(plain)
    assert repr(delta) == repr(plain)
    assert type(pickle.loads(pickle.dumps(delta))) is ArgumentsDelta
    assert copy.deepcopy(delta) == plain
    assert dataclasses.asdict(delta) == dataclasses.asdict(plain)
    assert dataclasses.replace(delta, index=3) == ArgumentsDelta(3, plain.fragment)
    match delta:
        case ArgumentsDelta(index=0, fragment=fragment):
            assert fragment == plain.fragment
        case _:
            pytest.fail("an ArgumentsDelta pattern did not match the delta")
    with pytest.raises(dataclasses.FrozenInstanceError):
        delta.fragment = "{}"  # type: ignore[misc]


def test_with_the_partial_view_on_the_text_is_not_written_either(writes: list[object]) -> None:
    """The view takes the object the wire sent, and the delta says what it changed; the text
    is written when the delta's fragment is first read."""
    builder = TurnBuilder(partial_arguments=True)
    seen = builder.feed(gemini_body({"a": 1, "b": [True]}))
    assert writes == []
    delta = seen[1]
    assert isinstance(delta, ArgumentsDelta)
    assert [change.path for change in delta.changes] == [("a",), ("b",), ("b", 0)]
    assert builder.partial_arguments(0) == {"a": 1, "b": [True]}
    assert delta.fragment == '{"a":1,"b":[true]}'
    assert len(writes) == 1
    assert builder.finish()[-1].turn.tool_calls[0].function.arguments is delta.fragment  # type: ignore[attr-defined]
    assert len(writes) == 1


def test_the_function_is_a_plain_tool_call_function_to_every_reader() -> None:
    turn = assemble(gemini_body({"city": "Paris", "days": [1, 2]}))
    function = turn.tool_calls[0].function
    plain = ToolCallFunction("write", '{"city":"Paris","days":[1,2]}')
    assert isinstance(function, ToolCallFunction)
    assert function == plain
    assert plain == function
    assert (function != plain) is False
    assert hash(function) == hash(plain)
    assert repr(function) == repr(plain)
    assert function.to_dict() == plain.to_dict()
    assert type(pickle.loads(pickle.dumps(function))) is ToolCallFunction
    assert copy.deepcopy(function) == plain
    assert dataclasses.replace(function, name="other") == ToolCallFunction("other", plain.arguments)
    assert dataclasses.asdict(turn.tool_calls[0])["function"] == plain.to_dict()
    call = turn.tool_calls[0]
    assert call == ToolCall(call.index, call.id, call.type, plain, call.extra_content)
    with pytest.raises(dataclasses.FrozenInstanceError):
        function.arguments = "{}"  # type: ignore[misc]


def test_changing_the_parsed_arguments_does_not_change_the_text_the_model_sent() -> None:
    turn = assemble(gemini_body({"items": [{"n": 1}], "note": "kept"}))
    turn.arguments[0]["items"][0]["n"] = 2
    turn.arguments[0]["added"] = True
    assert turn.tool_calls[0].function.arguments == '{"items":[{"n":1}],"note":"kept"}'


@settings(max_examples=80, deadline=None)
@given(value=objects)
def test_the_bound_holds_the_text_and_the_copy_is_the_callers_own(value: dict[str, Any]) -> None:
    held = hold(value)
    assert held is not None
    copied, bound = held
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    assert len(text) <= bound
    assert copied == value
    assert json.dumps(copied, ensure_ascii=False, separators=(",", ":")) == text
    stack = [(value, copied)]
    while stack:
        original, made = stack.pop()
        if isinstance(original, (dict, list)):
            assert made is not original
            pairs = (
                zip(original.values(), made.values(), strict=True)
                if isinstance(original, dict)
                else zip(original, made, strict=True)
            )
            stack.extend(pairs)


def test_a_value_too_wide_to_copy_cheaply_is_written_at_once(writes: list[object]) -> None:
    assert hold({str(n): n for n in range(5000)}) is None
    assemble(gemini_body({str(n): n for n in range(5000)}))
    assert len(writes) == 1


@settings(max_examples=60, deadline=None)
@given(
    arguments=st.lists(objects, min_size=1, max_size=3),
    slack=st.integers(-40, 40),
    wire=st.sampled_from(WHOLE_WIRES),
)
def test_a_limit_gives_the_verdict_written_text_gives(
    arguments: list[dict[str, Any]], slack: int, wire: str
) -> None:
    """Near the limit, where the bound counted crosses it and the text does not (or does), the
    turn read with its text not yet written answers as the turn read with the text written at
    once (`hold` refusing, as for an object too large to hold), with events off, on, and with
    the partial view."""
    calls = [(f"tool{n}", value) for n, value in enumerate(arguments)]
    body = wire_bodies.body(wire, calls)
    texts = sum(len(json.dumps(v, ensure_ascii=False, separators=(",", ":"))) for v in arguments)
    limit = max(1, texts + slack)
    lazy = outcome(body, events=False, wire=wire, max_argument_chars=limit)
    reported = outcome(body, events=True, wire=wire, max_argument_chars=limit)
    viewed = outcome(body, events=True, partial=True, wire=wire, max_argument_chars=limit)
    with mock.patch.object(toolcall._call_table, "hold", lambda value: None):
        written = outcome(body, events=True, partial=True, wire=wire, max_argument_chars=limit)
    assert lazy == reported == viewed == written
    assert (lazy[0] == "turn") == (slack >= 0)


def peak_over(run: Callable[[], object], size: int) -> float:
    """tracemalloc's peak while `run` runs, as a multiple of `size` (memory, not time)."""
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1] / size
    finally:
        tracemalloc.stop()


def fed_alone(body: bytes, events: bool) -> None:
    builder = TurnBuilder(events=events)
    for piece in body.splitlines(keepends=True):
        builder.feed(piece)
    builder.finish()


@pytest.mark.parametrize("events", [False, True])
def test_a_long_string_written_from_an_object_costs_about_its_size(events: bool) -> None:
    """orjson sets aside some fifteen times a long string it writes: such a value is written
    by the stdlib (and with events off, not at all until read)."""
    text = "plain words, " * 40_000
    body = gemini_body({"text": text})
    assert peak_over(lambda: fed_alone(body, events), len(text)) < 6


@pytest.mark.slow
def test_a_string_streamed_in_vertex_pieces_is_held_in_runs() -> None:
    """A `partialArgs` string of 100,000 pieces: one `str` kept per piece was sixteen times its
    size; joined in runs it is the text and little more."""
    pieces = [f"{n % 10}abc" for n in range(100_000)]
    events = [
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [{"functionCall": {"name": "w", "willContinue": True}}],
                    }
                }
            ]
        }
    ]
    for piece in pieces:
        entry = {"jsonPath": "$.text", "stringValue": piece, "willContinue": True}
        call = {"partialArgs": [entry], "willContinue": True}
        events.append(
            {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": call}]}}]}
        )
    events.append(
        {
            "candidates": [
                {
                    "content": {"role": "model", "parts": [{"functionCall": {}}]},
                    "finishReason": "STOP",
                }
            ]
        }
    )
    slices = [f"data: {json.dumps(event)}\n\n".encode() for event in events]

    def read() -> None:
        builder = TurnBuilder(events=False)
        for piece in slices:
            builder.feed(piece)
        (done,) = builder.finish()
        assert done.turn.arguments[0]["text"] == "".join(pieces)  # type: ignore[attr-defined]

    assert peak_over(read, 4 * len(pieces)) < 5
