"""`TurnBuilder.diagnostics`: the quirks seen so far, there from the event that showed them.

`toolcall doctor` places each diagnostic at its event by reading this after every event; the
rule it leans on (each read a prefix of the next, the turn's own at the end) is held here on
every wire, with a quirk each wire can show mid-stream.
"""

from __future__ import annotations

import copy
import itertools
from typing import Any

import pytest

import toolcall
from tests.helpers import wire_bodies

CALLS: list[wire_bodies.Call] = [("get_weather", {"city": "Paris"}), ("get_time", {"tz": "CET"})]


def _quirky(wire: str) -> tuple[list[Any], str, int]:
    """The wire's events with a quirk shown by one event: its code and that event's number.

    Chat sends a call's name again on a later fragment (`name_repeated`); the other wires,
    which keep calls apart by their block or item, give the second call the first one's id
    (`id_repeated`), told when the second call starts."""
    items = copy.deepcopy(wire_bodies.events(wire, CALLS))
    if wire == "chat":
        at = next(
            n
            for n, item in enumerate(items)
            if isinstance(item, dict)
            and item["choices"][0]["delta"].get("tool_calls", [{}])[0].get("function", {})
            and "name" not in item["choices"][0]["delta"]["tool_calls"][0]["function"]
        )
        items[at]["choices"][0]["delta"]["tool_calls"][0]["function"]["name"] = "get_weather"
        return items, "name_repeated", at
    key = {"responses": "call_id", "anthropic": "id"}.get(wire, "id")
    for at, item in enumerate(items):
        second = _second_call(wire, item)
        if second is not None:
            second[key] = "call_0" if wire != "anthropic" else "toolu_0"
            return items, "id_repeated", at
    raise AssertionError(f"no second call on {wire}")


def _second_call(wire: str, item: dict[str, Any]) -> dict[str, Any] | None:
    """The object holding the second call's id, if `item` starts that call."""
    if wire == "responses" and item.get("type") == "response.output_item.added":
        return item["item"] if item["item"]["call_id"] == "call_1" else None
    if wire == "anthropic" and item.get("type") == "content_block_start":
        return item["content_block"] if item["content_block"].get("id") == "toolu_1" else None
    if wire == "gemini":
        parts = item["candidates"][0]["content"]["parts"]
        found = [p["functionCall"] for p in parts if "functionCall" in p]
        return found[0] if found and found[0]["id"] == "call_1" else None
    if wire == "ollama":
        calls = item["message"].get("tool_calls", [])
        return calls[1] if len(calls) > 1 else None
    return None


@pytest.mark.parametrize("wire", wire_bodies.WIRES)
def test_a_quirk_is_there_from_its_event_on(wire: str) -> None:
    items, code, at = _quirky(wire)
    builder = toolcall.TurnBuilder(wire=wire)
    reads: list[tuple[toolcall.Diagnostic, ...]] = [builder.diagnostics]
    for item in items:
        builder.feed(wire_bodies.frame(wire, [item]))
        reads.append(builder.diagnostics)
    codes = [[d.code for d in read] for read in reads]
    assert codes[: at + 1] == [[]] * (at + 1)  # nothing before the event that shows it
    assert all(code in seen for seen in codes[at + 1 :])
    assert all(later[: len(read)] == read for read, later in itertools.pairwise(reads))
    done = builder.finish()[-1]
    assert isinstance(done, toolcall.TurnDone)
    assert builder.diagnostics == done.turn.diagnostics
    assert builder.diagnostics[: len(reads[-1])] == reads[-1]


@pytest.mark.parametrize("wire", wire_bodies.WIRES)
def test_what_only_the_end_tells_comes_with_the_turn(wire: str) -> None:
    items = wire_bodies.events(wire, CALLS)
    if wire == "chat":  # "stop" with calls, and no [DONE]: both told at the end
        items[-2]["choices"][0]["finish_reason"] = "stop"
        items.pop()
    body = wire_bodies.frame(wire, items)
    builder = toolcall.TurnBuilder(wire=wire, events=False)
    builder.feed(body)
    before = builder.diagnostics
    turn = toolcall.assemble(body, wire=wire)
    done = builder.finish()[-1]
    assert isinstance(done, toolcall.TurnDone)
    assert builder.diagnostics == done.turn.diagnostics == turn.diagnostics
    assert builder.diagnostics[: len(before)] == before
    ends = {"chat": {"stop_with_tool_calls", "done_absent"}, "ollama": {"stop_with_tool_calls"}}
    told = ends.get(wire, set())  # Ollama's done_reason is "stop" with calls too
    assert told <= {d.code for d in builder.diagnostics}
    assert not told & {d.code for d in before}


def test_a_read_is_a_tuple_the_caller_cannot_change() -> None:
    items, _, _ = _quirky("chat")
    builder = toolcall.TurnBuilder()
    builder.feed(wire_bodies.frame("chat", items))
    read = builder.diagnostics
    assert isinstance(read, tuple) and read
    assert builder.diagnostics is read  # nothing new: the same tuple, not a copy


def test_an_unsound_turn_gives_its_diagnostics_with_the_error() -> None:
    """A finish for calls with the call left as markup in the text (vllm-project/vllm#44326):
    `finish()` raises `UnsoundTurnError` carrying the turn, whose diagnostics the builder then
    gives too, though they were told only at the end."""
    items = wire_bodies.events("chat", [], text="<tool_call>get_current_time</tool_call>")
    items[-2]["choices"][0]["finish_reason"] = "tool_calls"
    builder = toolcall.TurnBuilder()
    builder.feed(wire_bodies.frame("chat", items))
    assert not builder.diagnostics
    with pytest.raises(toolcall.UnsoundTurnError) as info:
        builder.finish()
    assert builder.diagnostics == info.value.turn.diagnostics
    assert [d.code for d in info.value.turn.diagnostics] == ["tool_call_in_text"]
