"""A wire that repeats a call's arguments whole after streaming them (Responses' `.done` and
finished item) has the repetition checked against the deltas piece by piece: the check holds
no joined copy of the arguments beside the repetition, and still refuses one that differs."""

from __future__ import annotations

import json
import tracemalloc

import pytest

import toolcall

ITEM = "fc_1"
SIZE = 512 * 1024


def _events(text: str, repeated: str) -> list[bytes]:
    item = {"id": ITEM, "type": "function_call", "call_id": "call_1", "name": "write"}
    payloads: list[dict[str, object]] = [
        {"type": "response.output_item.added", "item": {**item, "arguments": ""}, "output_index": 0}
    ]
    payloads += [
        {
            "type": "response.function_call_arguments.delta",
            "delta": text[at : at + 4],
            "item_id": ITEM,
            "output_index": 0,
        }
        for at in range(0, len(text), 4)
    ]
    payloads.append(
        {"type": "response.function_call_arguments.done", "arguments": repeated, "item_id": ITEM}
    )
    payloads.append({"type": "response.completed", "response": {"status": "completed"}})
    return [f"data: {json.dumps(p)}\n\n".encode() for p in payloads]


def _arguments(size: int) -> str:
    return json.dumps({"text": "x" * size})


def test_the_repetition_is_checked_without_a_joined_copy() -> None:
    text = _arguments(SIZE)
    *deltas, done, completed = _events(text, text)
    builder = toolcall.TurnBuilder(wire="responses", events=False)
    for event in deltas:
        builder.feed(event)
    tracemalloc.start()
    try:
        builder.feed(done)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # The event's text and the repetition decoded from it: two copies of ASCII arguments (the
    # event's bytes were made before). Joining the deltas to compare them made a third.
    assert peak < 2.6 * len(text)
    builder.feed(completed)
    done_event = builder.finish()[-1]
    assert isinstance(done_event, toolcall.TurnDone)
    assert done_event.turn.tool_calls[0].function.arguments == text


@pytest.mark.slow
@pytest.mark.parametrize("where", [0, SIZE // 2, -2])
def test_a_repetition_that_differs_anywhere_is_refused(where: int) -> None:
    text = _arguments(SIZE)
    changed = list(text)
    changed[where + 10 if where >= 0 else where] = "y"
    builder = toolcall.TurnBuilder(wire="responses", events=False)
    with pytest.raises(toolcall.StreamError, match="differ from its deltas"):
        for event in _events(text, "".join(changed)):
            builder.feed(event)
        builder.finish()


def test_a_repetition_of_another_length_is_refused() -> None:
    text = _arguments(1024)
    builder = toolcall.TurnBuilder(wire="responses", events=False)
    with pytest.raises(toolcall.StreamError, match="differ from its deltas"):
        for event in _events(text, text + " "):
            builder.feed(event)
        builder.finish()
