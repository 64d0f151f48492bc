"""Calls that are not functions: custom (freeform) tools' calls, and tools the provider runs.

A custom tool's call (Responses' `custom_tool_call` item) is a call of the turn, `type` "custom",
its input text kept verbatim and never read as JSON, in `Turn.custom_calls`, so a caller that
zips `tool_calls` with `arguments` is never handed one. A tool the provider runs itself
(Responses' `mcp_call` / `web_search_call` items, Anthropic's `server_tool_use` block) is never a
call to run, but the turn records it (`Turn.server_tool_calls`). Each holds split anywhere, on
both JSON backends, with events on and off and the partial view on, and within the limits.
"""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import pytest

import toolcall
from tests.helpers.outcomes import BACKENDS, outcome
from toolcall import (
    ArgumentsDelta,
    LimitExceeded,
    ServerToolCall,
    StreamError,
    ToolCallDone,
    ToolCallStarted,
    TruncatedError,
    TurnBuilder,
    TurnDone,
    UsageError,
)


def named(*events: dict[str, Any]) -> bytes:
    """Events as the Responses and Messages APIs send them: `event: <type>` then the data."""
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


#: Looks like JSON, and is not one object: a JSON reading of it would fail or change it.
INPUT = '{"a": 1} and then print("hi")\n  '
CUSTOM = {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_c", "name": "run"}
FUNCTION = {"type": "function_call", "id": "fc_1", "call_id": "call_f", "name": "add"}
MCP = {"type": "mcp_call", "id": "mcp_1", "name": "roll", "server_label": "dice"}


def responses_body(*, completed: bool = True, pieces: tuple[str, ...] = ()) -> bytes:
    """A custom call, a function call and a remote MCP call the provider ran, on Responses."""
    pieces = pieces or ('{"a": 1} and', " then ", 'print("hi")\n  ')
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"id": "resp_1"}},
        {"type": "response.output_item.added", "output_index": 0, "item": {**CUSTOM, "input": ""}},
        *(
            {
                "type": "response.custom_tool_call_input.delta",
                "output_index": 0,
                "item_id": "ctc_1",
                "delta": piece,
            }
            for piece in pieces
        ),
        {
            "type": "response.custom_tool_call_input.done",
            "output_index": 0,
            "item_id": "ctc_1",
            "input": "".join(pieces),
        },
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {**CUSTOM, "input": "".join(pieces), "status": "completed"},
        },
        {"type": "response.output_item.added", "output_index": 1, "item": {**MCP, "arguments": ""}},
        {
            "type": "response.mcp_call_arguments.delta",
            "output_index": 1,
            "item_id": "mcp_1",
            "delta": '{"sides":',
        },
        {
            "type": "response.mcp_call_arguments.delta",
            "output_index": 1,
            "item_id": "mcp_1",
            "delta": " 6}",
        },
        {
            "type": "response.mcp_call_arguments.done",
            "output_index": 1,
            "item_id": "mcp_1",
            "arguments": '{"sides": 6}',
        },
        {
            "type": "response.output_item.done",
            "output_index": 1,
            "item": {**MCP, "arguments": '{"sides": 6}', "output": "4", "error": None},
        },
        {
            "type": "response.output_item.added",
            "output_index": 2,
            "item": {**FUNCTION, "arguments": ""},
        },
        {
            "type": "response.function_call_arguments.delta",
            "output_index": 2,
            "item_id": "fc_1",
            "delta": '{"a": 2,',
        },
        {
            "type": "response.function_call_arguments.delta",
            "output_index": 2,
            "item_id": "fc_1",
            "delta": ' "b": 3}',
        },
        {
            "type": "response.output_item.added",
            "output_index": 3,
            "item": {"type": "web_search_call", "id": "ws_1", "status": "in_progress"},
        },
        {
            "type": "response.output_item.done",
            "output_index": 3,
            "item": {
                "type": "web_search_call",
                "id": "ws_1",
                "status": "completed",
                "action": {"type": "search", "query": "dice"},
            },
        },
    ]
    if completed:
        events.append({"type": "response.completed", "response": {"id": "resp_1", "usage": None}})
    return named(*events)


SERVER_BLOCK = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
RESULT_BLOCK = {
    "type": "web_search_tool_result",
    "tool_use_id": "srvtoolu_1",
    "content": [{"type": "web_search_result", "title": "Dice", "url": "https://example.invalid"}],
}


def anthropic_body(*, server_deltas: bool = True) -> bytes:
    """A web search the provider ran, its result, text, then a function call, on Messages."""
    server_input = (
        [
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": piece},
            }
            for piece in ('{"query": ', '"dice"}')
        ]
        if server_deltas
        else []
    )
    start = SERVER_BLOCK if server_deltas else {**SERVER_BLOCK, "input": {"query": "dice"}}
    return named(
        {"type": "message_start", "message": {"id": "msg_1", "usage": {"input_tokens": 5}}},
        {"type": "content_block_start", "index": 0, "content_block": start},
        *server_input,
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": RESULT_BLOCK},
        {"type": "content_block_stop", "index": 1},
        {"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": ""}},
        {
            "type": "content_block_delta",
            "index": 2,
            "delta": {"type": "text_delta", "text": "Rolling."},
        },
        {"type": "content_block_stop", "index": 2},
        {
            "type": "content_block_start",
            "index": 3,
            "content_block": {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 3,
            "delta": {"type": "input_json_delta", "partial_json": '{"a": 2}'},
        },
        {"type": "content_block_stop", "index": 3},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": 9},
        },
        {"type": "message_stop"},
    )


BODIES = {"responses": responses_body(), "anthropic": anthropic_body()}


def test_a_custom_call_is_a_call_of_the_turn_with_its_input_verbatim() -> None:
    turn = toolcall.assemble(BODIES["responses"], wire="responses")
    (custom,) = turn.custom_calls
    assert (custom.index, custom.id, custom.type) == (0, "call_c", "custom")
    assert custom.function.name == "run" and custom.function.arguments == INPUT
    # A caller that zips tool_calls with arguments is handed function calls only.
    assert [call.function.name for call in turn.tool_calls] == ["add"]
    assert turn.tool_calls[0].index == 1 and turn.arguments == ({"a": 2, "b": 3},)
    data = turn.to_dict()
    assert data["custom_calls"] == [custom.to_dict()]
    assert custom.to_dict()["function"] == {"name": "run", "arguments": INPUT}


def test_tools_the_provider_ran_are_recorded_never_called() -> None:
    turn = toolcall.assemble(BODIES["responses"], wire="responses")
    mcp, search = turn.server_tool_calls
    assert (mcp.kind, mcp.name, mcp.id, mcp.input) == ("mcp_call", "roll", "mcp_1", '{"sides": 6}')
    assert mcp.result is not None and mcp.result["output"] == "4"
    assert (search.kind, search.id, search.input) == ("web_search_call", "ws_1", "")
    assert search.result is not None and search.result["action"]["query"] == "dice"
    assert turn.to_dict()["server_tool_calls"] == [mcp.to_dict(), search.to_dict()]
    assert all(call.id not in ("mcp_1", "ws_1") for call in turn.tool_calls + turn.custom_calls)


@pytest.mark.parametrize("server_deltas", [True, False])
def test_anthropic_server_tool_use_is_recorded_with_its_result(server_deltas: bool) -> None:
    turn = toolcall.assemble(anthropic_body(server_deltas=server_deltas), wire="anthropic")
    (search,) = turn.server_tool_calls
    assert isinstance(search, ServerToolCall)
    assert (search.kind, search.name, search.id) == ("server_tool_use", "web_search", "srvtoolu_1")
    assert json.loads(search.input) == {"query": "dice"}
    assert search.result == RESULT_BLOCK
    assert [call.function.name for call in turn.tool_calls] == ["add"]
    assert turn.tool_calls[0].index == 0 and turn.content == "Rolling."


def test_a_turn_without_them_says_nothing_new() -> None:
    body = named(
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {**FUNCTION, "arguments": "{}"},
        },
        {"type": "response.completed", "response": {"id": "r"}},
    )
    data = toolcall.assemble(body).to_dict()
    assert "custom_calls" not in data and "server_tool_calls" not in data


@pytest.mark.parametrize("wire", sorted(BODIES))
def test_any_split_gives_one_answer_on_both_backends_events_on_and_off(wire: str) -> None:
    body = BODIES[wire]
    whole = outcome(body, wire=wire)
    assert whole[0] == "turn"
    answer = json.loads(whole[1])
    assert answer["server_tool_calls"] and ("custom_calls" in answer) == (wire == "responses")
    bytewise = [body[at : at + 1] for at in range(len(body))]
    for backend in BACKENDS:
        assert outcome(bytewise, backend=backend) == whole
        assert outcome(bytewise, backend=backend, events=False, wire=wire) == whole
        assert outcome(bytewise, backend=backend, fast=False) == whole
    assert outcome(bytewise, partial=True) == whole
    rng = random.Random(wire)
    for _ in range(30):
        cuts = sorted(rng.sample(range(len(body) + 1), rng.randint(1, 12)))
        pieces = [body[a:b] for a, b in itertools.pairwise([0, *cuts, len(body)])]
        backend = rng.choice(BACKENDS)
        assert outcome(pieces, backend=backend) == whole
        assert outcome(pieces, backend=backend, events=False, wire=wire) == whole
        assert outcome(pieces, partial=True) == whole


def test_events_report_the_custom_call_as_custom_and_done_at_its_done() -> None:
    body = BODIES["responses"]
    builder = TurnBuilder(partial_arguments=True)
    events = []
    done_at = body.index(b"event: response.output_item.done")
    events += builder.feed(body[:done_at])
    early = [e for e in events if isinstance(e, ToolCallDone)]
    assert [e.call.index for e in early] == [0]  # complete at its input's .done
    assert early[0].call.type == "custom" and early[0].arguments == {}
    assert early[0].call.function.arguments == INPUT
    events += builder.feed(body[done_at:]) + builder.finish()
    (started,) = [e for e in events if isinstance(e, ToolCallStarted) and e.index == 0]
    assert started.type == "custom" and started.name == "run"
    deltas = [e for e in events if isinstance(e, ArgumentsDelta) and e.index == 0]
    assert "".join(e.fragment for e in deltas) == INPUT
    assert all(e.changes == () for e in deltas)  # never read as JSON
    with pytest.raises(UsageError, match="custom tool's call"):
        builder.partial_arguments(0)
    assert builder.partial_arguments(1) == {"a": 2, "b": 3}
    function_start = next(e for e in events if isinstance(e, ToolCallStarted) and e.index == 1)
    assert function_start.type == "function"
    assert isinstance(events[-1], TurnDone)


def test_a_custom_input_that_is_one_json_object_is_still_text() -> None:
    body = responses_body(pieces=('{"x":', " 1}\n"))
    builder = TurnBuilder(partial_arguments=True)
    events = builder.feed(body) + builder.finish()
    turn = events[-1].turn  # type: ignore[union-attr]
    assert turn.custom_calls[0].function.arguments == '{"x": 1}\n'  # the newline is input
    (done,) = [e for e in events if isinstance(e, ToolCallDone) and e.call.index == 0]
    assert done.arguments == {}
    assert all(e.changes == () for e in events if isinstance(e, ArgumentsDelta) and e.index == 0)


def test_a_custom_input_only_in_its_done_is_taken_from_it() -> None:
    body = responses_body(pieces=(INPUT,)).replace(
        json.dumps(
            {
                "type": "response.custom_tool_call_input.delta",
                "output_index": 0,
                "item_id": "ctc_1",
                "delta": INPUT,
            }
        ).encode(),
        b'{"type": "response.in_progress"}',
    )
    assert toolcall.assemble(body).custom_calls[0].function.arguments == INPUT


def test_a_custom_done_that_differs_from_its_deltas_is_refused() -> None:
    body = BODIES["responses"].replace(b'"input": "{\\"a\\": 1} and then', b'"input": "other')
    with pytest.raises(StreamError, match="differ from its deltas"):
        toolcall.assemble(body)


def test_input_after_a_custom_call_was_complete_is_refused_events_on_and_off() -> None:
    late = {
        "type": "response.custom_tool_call_input.delta",
        "output_index": 0,
        "item_id": "ctc_1",
        "delta": "more",
    }
    body = BODIES["responses"].replace(
        b"event: response.completed", named(late) + b"event: response.completed"
    )
    for events in (True, False):
        assert outcome(body, events=events)[0] == "StreamError"
        assert "after its input was complete" in outcome(body, events=events)[1]


def test_a_cut_inside_a_custom_call_is_a_truncation_naming_it() -> None:
    body = responses_body(completed=False)
    cut = body[: body.index(b"event: response.custom_tool_call_input.done")]
    for events in (True, False):
        kind, message = outcome(cut, events=events, wire="responses")
        assert kind == "TruncatedError" and "'run'" in message
    with pytest.raises(TruncatedError):
        toolcall.assemble(cut)


@pytest.mark.parametrize("events", [True, False])
def test_a_custom_input_counts_against_max_argument_chars(events: bool) -> None:
    body = BODIES["responses"]
    needed = len(INPUT) + len('{"a": 2, "b": 3}')
    assert outcome(body, events=events, max_argument_chars=needed)[0] == "turn"
    kind, message = outcome(body, events=events, max_argument_chars=len(INPUT) - 1)
    assert kind == "LimitExceeded" and "max_argument_chars" in message
    assert outcome(body, events=events, max_calls=2)[0] == "turn"
    assert outcome(body, events=events, max_calls=1)[0] == "LimitExceeded"


@pytest.mark.parametrize("wire", sorted(BODIES))
def test_a_server_tool_counts_against_max_text_chars(wire: str) -> None:
    body = BODIES[wire]
    held = toolcall.assemble(body)
    (first, *_) = held.server_tool_calls
    roomy = 100_000
    assert outcome(body, wire=wire, max_text_chars=roomy)[0] == "turn"
    kind, message = outcome(body, wire=wire, max_text_chars=len(first.input) + 3)
    assert kind == "LimitExceeded" and "server tool" in message
    with pytest.raises(LimitExceeded):
        toolcall.assemble(body, max_text_chars=len(first.input) + 3)


def test_a_server_result_that_is_not_an_object_is_refused() -> None:
    body = BODIES["responses"].replace(
        b'"type": "web_search_call", "id": "ws_1", "status": "completed"',
        b'"type": "web_search_call", "id": "ws_1", "status": "completed", "x": 1',
    )
    assert toolcall.assemble(body).server_tool_calls[1].result["x"] == 1  # type: ignore[index]
    broken = BODIES["anthropic"].replace(b'"partial_json": "{\\"query\\": "', b'"partial_json": 7')
    with pytest.raises(StreamError, match="server tool's input fragment is not text"):
        toolcall.assemble(broken)
