"""Each wire's traps that no published recording shows: cuts, errors, thinking, odd paths, limits.

The streams are written here from each wire's documented event shapes; the recordings
(test_wires.py) prove the common paths on real bytes.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import toolcall
from tests.helpers.outcomes import outcome
from toolcall import (
    LimitExceeded,
    ProviderError,
    StreamError,
    ToolCallDone,
    TruncatedError,
    TurnBuilder,
    UsageError,
)


def sse(*events: dict[str, Any], named: bool = True) -> bytes:
    out = []
    for event in events:
        head = f"event: {event['type']}\n" if named and "type" in event else ""
        out.append(f"{head}data: {json.dumps(event)}\n\n")
    return "".join(out).encode()


def ndjson(*lines: dict[str, Any]) -> bytes:
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


# -- Anthropic --------------------------------------------------------------------------------


def anthropic_call(stop: str = "tool_use", *, text: str = '{"q": "x"}') -> list[dict[str, Any]]:
    return [
        {"type": "message_start", "message": {"usage": {"input_tokens": 5}}},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "thinking", "thinking": "", "signature": ""},
        },
        {"type": "ping"},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "thinking_delta", "thinking": "Hm."},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "signature_delta", "signature": "sig1"},
        },
        {"type": "content_block_stop", "index": 0},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {"type": "tool_use", "id": "toolu_1", "name": "find", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": text},
        },
        {"type": "content_block_stop", "index": 1},
        {"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 9}},
        {"type": "message_stop"},
    ]


def test_anthropic_thinking_is_reasoning_and_its_signature_stays_on_the_turn() -> None:
    turn = toolcall.assemble(sse(*anthropic_call()))
    assert turn.reasoning == "Hm."
    assert turn.extra_content == {"anthropic": {"thinking_signatures": ["sig1"]}}
    assert turn.arguments == ({"q": "x"},)
    assert turn.usage == {"input_tokens": 5, "output_tokens": 9}
    assert turn.to_dict()["extra_content"] == turn.extra_content


def test_anthropic_max_tokens_with_a_call_is_truncated() -> None:
    with pytest.raises(TruncatedError, match="max_tokens"):
        toolcall.assemble(sse(*anthropic_call("max_tokens", text='{"q": "x')))
    with pytest.raises(TruncatedError):  # even when the cut arguments happen to close
        toolcall.assemble(sse(*anthropic_call("max_tokens")))


def test_anthropic_error_event_is_a_provider_error() -> None:
    events = anthropic_call()[:7]
    events.append({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    with pytest.raises(ProviderError, match="Overloaded") as caught:
        toolcall.assemble(sse(*events), wire="anthropic")
    assert caught.value.code == "overloaded_error"


def test_anthropic_call_without_input_text_gets_its_input_and_is_done_at_its_stop() -> None:
    events = [e for e in anthropic_call() if e.get("delta", {}).get("type") != "input_json_delta"]
    builder = TurnBuilder()
    seen = builder.feed(sse(*events[:9]))  # up to the call's content_block_stop
    assert [e.arguments for e in seen if isinstance(e, ToolCallDone)] == [{}]
    builder.feed(sse(*events[9:]))
    (done,) = builder.finish()
    assert done.turn.tool_calls[0].function.arguments == "{}"  # type: ignore[attr-defined]


def test_anthropic_input_for_a_block_that_is_no_call_is_a_stream_error() -> None:
    events = anthropic_call()
    events[7] = {**events[7], "index": 5}
    with pytest.raises(StreamError, match="content block 5"):
        toolcall.assemble(sse(*events))


# -- Responses --------------------------------------------------------------------------------


def responses_call(end: dict[str, Any], *deltas: str, done: str | None = None) -> bytes:
    item = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "f",
        "arguments": "",
    }
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"status": "in_progress"}},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
    ]
    events += [
        {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": d}
        for d in deltas
    ]
    if done is not None:
        events.append(
            {"type": "response.function_call_arguments.done", "item_id": "fc_1", "arguments": done}
        )
    events.append(end)
    return sse(*events)


COMPLETED = {"type": "response.completed", "response": {"status": "completed", "usage": {"x": 1}}}


def test_responses_delta_keyed_by_output_index_alone_reaches_its_call() -> None:
    turn = toolcall.assemble(responses_call(COMPLETED, '{"a"', ": 1}", done='{"a": 1}'))
    assert turn.arguments == ({"a": 1},)
    assert turn.finish_reason == "completed"
    assert turn.usage == {"x": 1}


def test_responses_incomplete_with_a_call_is_truncated_naming_the_reason() -> None:
    incomplete = {
        "type": "response.incomplete",
        "response": {"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}},
    }
    with pytest.raises(TruncatedError, match="max_output_tokens"):
        toolcall.assemble(responses_call(incomplete, '{"a": '))


def test_responses_done_that_disagrees_with_the_deltas_is_a_stream_error() -> None:
    with pytest.raises(StreamError, match="differ from its deltas"):
        toolcall.assemble(responses_call(COMPLETED, '{"a": 1}', done='{"a": 2}'))


@pytest.mark.parametrize(
    "end",
    [
        {"type": "error", "code": "server_error", "message": "boom"},
        {
            "type": "response.failed",
            "response": {"error": {"code": "server_error", "message": "boom"}},
        },
    ],
)
def test_responses_error_and_failed_are_provider_errors(end: dict[str, Any]) -> None:
    with pytest.raises(ProviderError, match="boom"):
        toolcall.assemble(responses_call(end, '{"a"'))


# -- Gemini -----------------------------------------------------------------------------------


def gemini(*parts: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}}
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate]}


def partial(*entries: dict[str, Any], more: bool = True) -> dict[str, Any]:
    call: dict[str, Any] = {"partialArgs": list(entries)}
    if more:
        call["willContinue"] = True
    return {"functionCall": call}


def test_vertex_partial_args_build_nested_values_of_every_kind() -> None:
    body = sse(
        gemini({"functionCall": {"name": "f", "willContinue": True}}),
        gemini(partial({"jsonPath": "$.a.b[0]", "stringValue": "x", "willContinue": True})),
        gemini(partial({"jsonPath": "$.a.b[0]", "stringValue": "y"})),
        gemini(partial({"jsonPath": "$.a.b[1]", "boolValue": True})),
        gemini(partial({"jsonPath": "$['odd key']", "nullValue": None})),
        gemini(partial({"jsonPath": "$.n", "numberValue": 3})),
        gemini({"functionCall": {}}),
        gemini({"text": ""}, finish="STOP"),
    )
    turn = toolcall.assemble(body)
    assert turn.arguments == ({"a": {"b": ["xy", True]}, "odd key": None, "n": 3},)


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ({"jsonPath": "a.b", "stringValue": "x"}, "does not start at"),
        ({"jsonPath": "$.a[2]", "stringValue": "x"}, "skips to"),
        ({"jsonPath": "$.a"}, "has no value"),
        ({"jsonPath": "$.a", "stringValue": 3}, "is not text"),
    ],
)
def test_vertex_partial_args_that_describe_no_object_are_stream_errors(
    entry: dict[str, Any], problem: str
) -> None:
    body = sse(
        gemini({"functionCall": {"name": "f", "willContinue": True}}),
        gemini(partial(entry)),
        gemini({"functionCall": {}}, finish="STOP"),
    )
    with pytest.raises(StreamError, match=problem):
        toolcall.assemble(body)


def test_gemini_max_tokens_with_a_call_is_truncated() -> None:
    body = sse(
        gemini({"functionCall": {"name": "f", "willContinue": True}}),
        gemini(partial({"jsonPath": "$.a", "stringValue": "x", "willContinue": True})),
        gemini(finish="MAX_TOKENS"),
    )
    with pytest.raises(TruncatedError, match="MAX_TOKENS"):
        toolcall.assemble(body)


def test_gemini_error_and_two_candidates() -> None:
    with pytest.raises(ProviderError, match="quota"):
        toolcall.assemble(
            sse(gemini({"text": "a"}), {"error": {"code": 429, "message": "quota"}}), wire="gemini"
        )
    two = {"candidates": [gemini()["candidates"][0]] * 2}
    with pytest.raises(StreamError, match="2 candidates"):
        toolcall.assemble(sse(two), wire="gemini")


def test_gemini_thought_signature_beside_text_stays_on_the_turn() -> None:
    body = sse(gemini({"text": "Hi", "thoughtSignature": "s1"}, finish="STOP"))
    turn = toolcall.assemble(body)
    assert turn.content == "Hi"
    assert turn.extra_content == {"google": {"thought_signatures": ["s1"]}}


def test_vertex_partial_args_count_against_the_argument_limit() -> None:
    body = sse(
        gemini({"functionCall": {"name": "f", "willContinue": True}}),
        gemini(partial({"jsonPath": "$.a", "stringValue": "x" * 50, "willContinue": True})),
        gemini({"functionCall": {}}, finish="STOP"),
    )
    with pytest.raises(LimitExceeded, match="max_argument_chars"):
        toolcall.assemble(body, max_argument_chars=40)


# -- Ollama -----------------------------------------------------------------------------------

OLLAMA = [
    {
        "model": "m",
        "message": {"role": "assistant", "content": "", "thinking": "Hm"},
        "done": False,
    },
    {
        "model": "m",
        "message": {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "c1", "function": {"index": 0, "name": "f", "arguments": {"é": [1]}}}
            ],
        },
        "done": False,
    },
    {
        "model": "m",
        "message": {"role": "assistant", "content": ""},
        "done": True,
        "done_reason": "stop",
    },
]


def test_ollama_any_split_gives_one_answer() -> None:
    body = ndjson(*OLLAMA)[:-1]  # the last line without its newline is still read
    whole = outcome(body)
    assert whole[0] == "turn"
    for cut in range(len(body) + 1):
        assert outcome([body[:cut], body[cut:]]) == whole, cut
    turn = toolcall.assemble(body)
    assert turn.arguments == ({"é": [1]},) and turn.reasoning == "Hm"


def test_ollama_length_with_a_call_is_truncated_and_an_error_line_is_a_provider_error() -> None:
    cut = [*OLLAMA[:2], {**OLLAMA[2], "done_reason": "length"}]
    with pytest.raises(TruncatedError, match="length"):
        toolcall.assemble(ndjson(*cut))
    with pytest.raises(ProviderError, match="model not found"):
        toolcall.assemble(ndjson(OLLAMA[0], {"error": "model not found"}))


def test_ollama_line_past_max_event_chars_is_refused_before_it_ends() -> None:
    builder = TurnBuilder(wire="ollama", max_event_chars=100)
    with pytest.raises(LimitExceeded, match="max_event_chars"):
        builder.feed(b'{"message": {"content": "' + b"x" * 200)


def test_ollama_line_that_is_not_utf8_is_a_stream_error() -> None:
    with pytest.raises(StreamError, match="UTF-8"):
        toolcall.assemble(b'{"done": false}\n\xff\n', wire="ollama")


# -- every wire -------------------------------------------------------------------------------


def test_the_wire_is_detected_from_the_first_event_or_refused_where_two_fit() -> None:
    for body, wire in [
        (sse(*anthropic_call()), "anthropic"),
        (responses_call(COMPLETED, "{}"), "responses"),
        (sse(gemini({"text": "a"}, finish="STOP")), "gemini"),
        (ndjson(*OLLAMA), "ollama"),
        (b'data: {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}\n\n', "chat"),
    ]:
        builder = TurnBuilder()
        assert builder.wire == "auto"
        builder.feed(body)
        builder.finish()
        assert builder.wire == wire
    with pytest.raises(UsageError, match="pass wire="):
        toolcall.assemble(sse({"type": "error", "error": {"message": "x"}}))
    with pytest.raises(UsageError, match="wire must be"):
        TurnBuilder(wire="messages")


def two_calls() -> list[bytes]:
    """A body with two calls on each wire."""
    block = {"type": "tool_use", "id": "toolu_2", "name": "g", "input": {}}
    anthropic = anthropic_call()
    anthropic.insert(9, {"type": "content_block_start", "index": 2, "content_block": block})
    anthropic.insert(10, {"type": "content_block_stop", "index": 2})
    second = {
        "type": "function_call",
        "id": "fc_2",
        "call_id": "c2",
        "name": "g",
        "arguments": "{}",
    }
    added = {"type": "response.output_item.added", "output_index": 1, "item": second}
    # The second call opens before the response completes: after it, it would be a second
    # generation, left out.
    responses = responses_call(added, "{}") + sse(COMPLETED)
    call = {"functionCall": {"name": "f", "args": {}}}
    tool_calls = OLLAMA[1]["message"]["tool_calls"] * 2
    ollama = [OLLAMA[0], {**OLLAMA[1], "message": {"tool_calls": tool_calls}}, OLLAMA[2]]
    return [
        sse(*anthropic),
        responses,
        sse(gemini(call, call, finish="STOP")),
        ndjson(*ollama),
    ]


@pytest.mark.parametrize("body", two_calls(), ids=["anthropic", "responses", "gemini", "ollama"])
def test_max_calls_holds_on_every_wire(body: bytes) -> None:
    assert len(toolcall.assemble(body, max_calls=2).tool_calls) == 2
    with pytest.raises(LimitExceeded, match="more than 1 tool calls"):
        toolcall.assemble(body, max_calls=1)


def test_a_shape_the_wire_does_not_have_is_a_stream_error_not_a_traceback() -> None:
    with pytest.raises(StreamError, match="does not have the anthropic shape"):
        toolcall.assemble(sse({"type": "content_block_start", "index": 0, "content_block": 3}))
    with pytest.raises(StreamError, match="does not have the gemini shape"):
        toolcall.assemble(sse({"candidates": [{"content": {"parts": [7]}}]}))


def test_a_repeated_id_keeps_both_calls_and_says_so() -> None:
    two = {**OLLAMA[1], "message": {"tool_calls": OLLAMA[1]["message"]["tool_calls"] * 2}}
    turn = toolcall.assemble(ndjson(OLLAMA[0], two, OLLAMA[2]))
    assert [c.id for c in turn.tool_calls] == ["c1", "c1"]
    assert turn.arguments == ({"é": [1]}, {"é": [1]})
    assert "id_repeated" in [d.code for d in turn.diagnostics]


def test_a_path_nested_past_what_json_can_write_is_a_stream_error() -> None:
    body = sse(
        gemini({"functionCall": {"name": "f", "willContinue": True}}),
        gemini(partial({"jsonPath": "$" + ".a" * 5000, "numberValue": 1}, more=False)),
        gemini(finish="STOP"),
    )
    with pytest.raises(StreamError, match="deeper than 128 levels"):
        toolcall.assemble(body)


def test_vertex_continuation_that_repeats_the_name_goes_on_with_the_same_call() -> None:
    body = sse(
        gemini({"functionCall": {"name": "f", "willContinue": True}}),
        gemini(
            {
                "functionCall": {
                    "name": "f",
                    **partial({"jsonPath": "$.a", "numberValue": 1})["functionCall"],
                }
            }
        ),
        gemini({"functionCall": {"name": "g", "willContinue": True}}),
        gemini(partial({"jsonPath": "$.b", "numberValue": 2}, more=False)),
        gemini(finish="STOP"),
    )
    turn = toolcall.assemble(body)
    assert [c.function.name for c in turn.tool_calls] == ["f", "g"]
    assert turn.arguments == ({"a": 1}, {"b": 2})


def test_anthropic_server_tool_use_is_no_call_of_the_turn() -> None:
    events = anthropic_call()
    server = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
    events[1:1] = [
        {"type": "content_block_start", "index": 7, "content_block": server},
        {
            "type": "content_block_delta",
            "index": 7,
            "delta": {"type": "input_json_delta", "partial_json": '{"query": "x"}'},
        },
        {"type": "content_block_stop", "index": 7},
    ]
    turn = toolcall.assemble(sse(*events))
    assert [c.function.name for c in turn.tool_calls] == ["find"]


def test_vertex_member_names_and_whole_values_count_against_the_argument_limit() -> None:
    for entry in (
        {"jsonPath": "$." + "k" * 60, "numberValue": 1},
        {"jsonPath": "$.a", "listValue": ["x" * 60]},
    ):
        body = sse(
            gemini({"functionCall": {"name": "f", "willContinue": True}}),
            gemini(partial(entry)),
            gemini({"functionCall": {}}, finish="STOP"),
        )
        assert toolcall.assemble(body, max_argument_chars=200).tool_calls
        builder = TurnBuilder(max_argument_chars=50)
        head, call, _ = body.split(b"\n\n", 2)
        builder.feed(head + b"\n\n")
        with pytest.raises(LimitExceeded, match="max_argument_chars"):
            builder.feed(call + b"\n\n")  # as it arrives, before the call closes


def test_anthropic_server_tool_blocks_count_against_the_text_limit() -> None:
    server = {"type": "server_tool_use", "id": "s", "name": "web_search", "input": {}}
    starts = [
        {"type": "content_block_start", "index": i, "content_block": server} for i in range(50)
    ]
    with pytest.raises(LimitExceeded, match="max_text_chars"):
        toolcall.assemble(sse(*anthropic_call()[:1], *starts), max_text_chars=20)
