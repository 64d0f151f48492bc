"""The whole flow: SSE body bytes -> chunks -> assembler -> a validated `Turn`.

`toolcall.assemble`, `assemble_async` and `TurnBuilder`, fed bodies built from chunk dicts shaped
like the public recordings in docs/FACTS.md (each test cites its section).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

import toolcall
from tests.helpers import wire_bodies
from tests.helpers.memory import fed_peak
from toolcall import (
    ProviderError,
    StreamError,
    ToolCall,
    ToolCallFunction,
    Turn,
    TurnBuilder,
    UsageError,
)

# -- helpers ---------------------------------------------------------------------------------


def sse(*chunks: dict[str, Any] | str, done: bool = True, newline: str = "\n") -> bytes:
    """Chunks (dicts, or raw payload text) -> SSE body bytes, one `data: ` event each."""
    events = [c if isinstance(c, str) else json.dumps(c, ensure_ascii=False) for c in chunks]
    if done:
        events.append("[DONE]")
    return "".join(f"data: {e}{newline}{newline}" for e in events).encode()


def chunk(
    delta: dict[str, Any] | None = None,
    *,
    finish: str | None = None,
    usage: dict[str, Any] | None = None,
    **choice_extra: Any,
) -> dict[str, Any]:
    choice: dict[str, Any] = {"index": 0, "delta": delta if delta is not None else {}}
    if finish is not None:
        choice["finish_reason"] = finish
    choice.update(choice_extra)
    out: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "choices": [choice],
    }
    if usage is not None:
        out["usage"] = usage
    return out


def calls_delta(*tool_calls: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"tool_calls": list(tool_calls), **extra}


def tc(index: int | None, id: str | None, name: str | None, arguments: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if index is not None:
        out["index"] = index
    if id is not None:
        out["id"] = id
    function: dict[str, Any] = {"arguments": arguments}
    if name is not None:
        function["name"] = name
        out["type"] = "function"
    out["function"] = function
    return out


def call(index: int, id: str, name: str, arguments: str) -> ToolCall:
    return ToolCall(index, id, "function", ToolCallFunction(name, arguments))


def codes(turn: Turn) -> list[str]:
    return [d.code for d in turn.diagnostics]


USAGE = {"prompt_tokens": 295, "completion_tokens": 22, "total_tokens": 317}

# OpenAI shape (FACTS §1): head chunk, argument chunks, finish on its own chunk, usage chunk.
OPENAI = [
    chunk({"role": "assistant", "content": None, "tool_calls": [tc(0, "call_ZR5", "add", "")]}),
    chunk(calls_delta(tc(0, None, None, '{"a":2,'))),
    chunk(calls_delta(tc(0, None, None, '"b":3}'))),
    chunk({}, finish="tool_calls"),
    {"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [], "usage": USAGE},
]


# -- [DONE], comments, framing -------------------------------------------------------------


def test_openai_stream_assembles_with_usage_from_the_choices_empty_chunk() -> None:
    """OpenAI: usage in a separate `choices: []` chunk, `data: [DONE]` last: FACTS §1."""
    turn = toolcall.assemble(sse(*OPENAI))
    assert turn.tool_calls == (call(0, "call_ZR5", "add", '{"a":2,"b":3}'),)
    assert turn.arguments == ({"a": 2, "b": 3},)
    assert turn.finish_reason == "tool_calls"
    assert turn.usage == USAGE
    assert turn.content == ""
    assert turn.reasoning == ""
    assert turn.diagnostics == ()


def test_done_is_optional_and_its_absence_is_a_diagnostic() -> None:
    """`[DONE]` is optional at EOF (FACTS §9.7; Gemini's is only assumed, FACTS §0)."""
    with_done = toolcall.assemble(sse(*OPENAI))
    without = toolcall.assemble(sse(*OPENAI, done=False))
    assert without.tool_calls == with_done.tool_calls
    assert without.usage == with_done.usage
    assert codes(with_done) == []
    assert codes(without) == ["done_absent"]


def test_keep_alive_comment_is_skipped_and_reported() -> None:
    """DeepSeek sends `: keep-alive` comment lines under load: FACTS §2 (rate-limit docs)."""
    body = b": keep-alive\n\n" + sse(*OPENAI[:2], done=False)
    body += b": keep-alive\n\n" + sse(*OPENAI[2:])
    turn = toolcall.assemble(body)
    assert turn.tool_calls == (call(0, "call_ZR5", "add", '{"a":2,"b":3}'),)
    assert codes(turn) == ["sse_comment"]
    assert turn.diagnostics[0].message == "2 SSE comment line(s)"


def test_crlf_framing_gives_the_same_turn() -> None:
    """`\\r\\n` framing is accepted though not seen in recordings (FACTS §0, last paragraph)."""
    assert toolcall.assemble(sse(*OPENAI, newline="\r\n")) == toolcall.assemble(sse(*OPENAI))


# -- provider errors and malformed chunks --------------------------------------------------


def test_error_payload_is_a_provider_error_with_message_and_code() -> None:
    """A provider's own error inside the stream is a ProviderError (DESIGN.md "Flow", "Blame")."""
    payload = {"message": "Rate limit reached for requests", "type": "requests", "code": 429}
    body = sse(OPENAI[0], {"error": payload})
    with pytest.raises(ProviderError) as info:
        toolcall.assemble(body)
    err = info.value
    assert str(err) == "the provider reported an error: Rate limit reached for requests"
    assert err.code == "429"
    assert err.payload == payload


def test_error_payload_without_code_falls_back_to_type() -> None:
    """OpenAI-style errors carry `type` when `code` is null (DESIGN.md "Flow" error payloads)."""
    payload = {"message": "Server overloaded", "type": "server_error", "code": None}
    with pytest.raises(ProviderError) as info:
        toolcall.assemble(sse({"error": payload}))
    assert info.value.code == "server_error"


def test_error_payload_that_is_a_string() -> None:
    """An error that is not an object still becomes a ProviderError, not a crash."""
    with pytest.raises(ProviderError) as info:
        toolcall.assemble(sse({"error": "quota exhausted"}))
    assert str(info.value) == "the provider reported an error: quota exhausted"
    assert info.value.code is None


def test_chunk_that_is_not_json_names_the_chunk_number() -> None:
    """A relay's non-JSON frame reached JSON.parse in deepseek-harness discussion #6593
    (FACTS §2): the error names the chunk."""
    with pytest.raises(StreamError, match=r"^chunk 2 is not valid JSON"):
        toolcall.assemble(sse(OPENAI[0], "keep-alive", *OPENAI[1:]))


@pytest.mark.parametrize("payload", ["[1]", "5", '"text"', "null"])
def test_chunk_that_is_json_but_not_an_object_is_a_stream_error(payload: str) -> None:
    """Chunks must have the chat.completion.chunk shape (DESIGN.md "Rules": typed error)."""
    with pytest.raises(
        StreamError, match=r"^chunk 1 does not have the chat\.completion\.chunk shape"
    ):
        toolcall.assemble(sse(payload))


@pytest.mark.parametrize("backend", ["stdlib", "orjson"])
def test_chunk_nested_too_deeply_is_a_stream_error_on_both_backends(backend: str) -> None:
    """The stdlib backend raised RecursionError on deep nesting (DESIGN.md "Rules": no crash)."""
    with pytest.raises(StreamError, match=r"^chunk 1 "):
        toolcall.assemble(sse("[" * 100_000 + "]" * 100_000), json_backend=backend)


@pytest.mark.parametrize("tool_calls", [[5], ["index"], {"index": 0}, "abc"])
def test_tool_calls_that_are_not_objects_are_a_stream_error(tool_calls: Any) -> None:
    """Malformed tool_calls are the provider's fault: StreamError, not UsageError.

    DESIGN.md "Blame"."""
    with pytest.raises(StreamError) as info:
        toolcall.assemble(sse(chunk({"tool_calls": tool_calls})))
    assert type(info.value) is StreamError


def test_several_choices_are_a_stream_error() -> None:
    """n>1 is out of scope: a turn is one choice (DESIGN.md "Flow")."""
    two = {"choices": [{"index": 0, "delta": {}}, {"index": 1, "delta": {}}]}
    with pytest.raises(StreamError, match=r"^chunk 1 has choices \[0, 1\]"):
        toolcall.assemble(sse(two))
    with pytest.raises(StreamError, match=r"^chunk 1 has choices \[1\]"):
        toolcall.assemble(sse({"choices": [{"index": 1, "delta": {}}]}))


def test_non_string_finish_reason_is_a_stream_error() -> None:
    """finish_reason is a string or absent (FACTS §0 finish_reason row)."""
    with pytest.raises(StreamError, match="finish_reason must be a string"):
        toolcall.assemble(sse(chunk({}, finish=["stop"])))  # type: ignore[arg-type]


def test_non_string_content_is_a_stream_error() -> None:
    """content is text; anything else would reach the user as garbage (_chunks.py)."""
    with pytest.raises(StreamError, match="content is not a string"):
        toolcall.assemble(sse(chunk({"content": ["Hi"]}, finish="stop")))


# -- usage, content, reasoning, finish_reason ----------------------------------------------


def test_usage_on_the_finish_chunk() -> None:
    """DeepSeek: `delta: {"content": ""}`, finish and usage on one chunk: FACTS §2."""
    turn = toolcall.assemble(
        sse(
            chunk(calls_delta(tc(0, "call_00_io", "weather", ""))),
            chunk(calls_delta(tc(0, None, None, '{"location": "SF"}'))),
            chunk({"content": ""}, finish="tool_calls", usage=USAGE),
        )
    )
    assert turn.usage == USAGE
    assert turn.tool_calls == (call(0, "call_00_io", "weather", '{"location": "SF"}'),)


def test_usage_inside_choices_0() -> None:
    """Moonshot reports usage in `choices[0].usage`: FACTS §4, earendil-works/pi#2017."""
    turn = toolcall.assemble(
        sse(
            chunk(calls_delta(tc(0, "add:0", "add", '{"a":1}'))),
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls", "usage": USAGE}]},
        )
    )
    assert turn.usage == USAGE


def test_null_usage_on_every_chunk_keeps_the_real_one() -> None:
    """Doubao sends `"usage": null` on every chunk (FACTS §7); a later null must not erase it."""
    chunks = [
        {**chunk(calls_delta(tc(0, "call_p", "f", "{}"))), "usage": None},
        {**chunk({}, finish="tool_calls"), "usage": USAGE},
        {**chunk({}), "usage": None},
    ]
    assert toolcall.assemble(sse(*chunks)).usage == USAGE


def test_content_and_reasoning_are_kept_apart_from_arguments() -> None:
    """deepseek-reasoner streams reasoning_content, then content, then the call: FACTS §2
    (cassettes/deepseek/published/vercel-ai_deepseek-reasoner-tool-call.yaml)."""
    turn = toolcall.assemble(
        sse(
            chunk({"role": "assistant", "content": None, "reasoning_content": ""}),
            chunk({"reasoning_content": "The user wants "}),
            chunk({"reasoning_content": "the weather."}),
            chunk({"content": "Let me check", "reasoning_content": None}),
            chunk({"content": "."}),
            chunk(calls_delta(tc(0, "call_00_w", "weather", '{"location":'))),
            chunk(calls_delta(tc(0, None, None, ' "Paris"}'))),
            chunk({"content": "", "reasoning_content": None}, finish="tool_calls", usage=USAGE),
        )
    )
    assert turn.reasoning == "The user wants the weather."
    assert turn.content == "Let me check."
    assert turn.tool_calls == (call(0, "call_00_w", "weather", '{"location": "Paris"}'),)


def test_reasoning_field_of_relays_is_read() -> None:
    """Relays such as OpenRouter name the field `reasoning` (_chunks.py module doc)."""
    turn = toolcall.assemble(
        sse(chunk({"reasoning": "hmm"}), chunk({"content": "hi"}, finish="stop"))
    )
    assert (turn.reasoning, turn.content, turn.tool_calls) == ("hmm", "hi", ())


def test_finish_reason_stop_with_calls_keeps_the_calls_and_flags_it() -> None:
    """Gemini 3 may say `stop` with tool calls present: FACTS §8, open-webui/computer#224,
    microclaw#230; decide from the state, not the finish_reason (FACTS §9.5)."""
    frame = {
        "choices": [
            {
                "delta": {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "function": {"arguments": '{"pattern":"*"}', "name": "glob"},
                            "id": "function-call-18439433602034082669",
                            "type": "function",
                        }
                    ],
                },
                "finish_reason": "stop",
                "index": 0,
            }
        ],
        "created": 1788465147,
        "model": "gemini-3-flash-preview",
        "object": "chat.completion.chunk",
        "usage": {"completion_tokens": 12, "prompt_tokens": 3379, "total_tokens": 3459},
    }
    turn = toolcall.assemble(sse(frame, done=False))
    assert turn.tool_calls == (
        call(0, "function-call-18439433602034082669", "glob", '{"pattern":"*"}'),
    )
    assert turn.finish_reason == "stop"
    assert turn.usage == {"completion_tokens": 12, "prompt_tokens": 3379, "total_tokens": 3459}
    assert codes(turn) == ["index_absent", "stop_with_tool_calls", "done_absent"]


def test_empty_completion_is_a_turn_without_calls() -> None:
    """Gemini: a role-only delta plus `stop` with 0 completion tokens: FACTS §8."""
    frame = {
        "choices": [{"delta": {"role": "assistant"}, "finish_reason": "stop", "index": 0}],
        "usage": {"completion_tokens": 0, "prompt_tokens": 5051, "total_tokens": 5051},
    }
    turn = toolcall.assemble(sse(frame))
    assert (turn.tool_calls, turn.arguments, turn.content, turn.finish_reason) == (
        (),
        (),
        "",
        "stop",
    )
    assert codes(turn) == []


# -- provider shapes -----------------------------------------------------------------------


def test_doubao_both_calls_and_finish_in_one_chunk() -> None:
    """Doubao: both parallel calls complete in one `tool_calls` array, finish on that chunk:
    FACTS §7
    (cassettes/doubao/published/ai4j_doubao-seed-code-preview_parallel_tool_stream.yaml)."""
    delta = calls_delta(
        tc(0, "call_pwdm5g0i3dwe825aghkb1t8j", "get_weather", '{"city":"北京"}'),
        tc(1, "call_k6mgf4zrsf3hh51lxl67gjgg", "get_time", '{"city":"北京"}'),
        content="",
        role="assistant",
    )
    turn = toolcall.assemble(sse({**chunk(delta, finish="tool_calls"), "usage": None}))
    assert turn.tool_calls == (
        call(0, "call_pwdm5g0i3dwe825aghkb1t8j", "get_weather", '{"city":"北京"}'),
        call(1, "call_k6mgf4zrsf3hh51lxl67gjgg", "get_time", '{"city":"北京"}'),
    )
    assert turn.arguments == ({"city": "北京"}, {"city": "北京"})


def test_qwen_stream_with_empty_ids_and_trailing_empty_delta() -> None:
    """Qwen: later `"id": ""`, repeated type, trailing empty tool delta, `choices: []` usage:
    FACTS §5 (cassettes/qwen/published/vercel-ai_qwen3-max-tool-call.yaml)."""
    turn = toolcall.assemble(
        sse(
            chunk(calls_delta(tc(0, "call_eee1", "weather", ""), role="assistant", content=None)),
            chunk(
                calls_delta(tc(0, "", None, '{"location": "San Francisco') | {"type": "function"})
            ),
            chunk(calls_delta(tc(0, "", None, '"}') | {"type": "function"})),
            {
                "choices": [
                    {
                        "delta": calls_delta(
                            {
                                "function": {"arguments": ""},
                                "index": 0,
                                "id": "",
                                "type": "function",
                            }
                        ),
                        "index": 0,
                    }
                ]
            },
            chunk({}, finish="tool_calls"),
            {"choices": [], "usage": USAGE},
        )
    )
    assert turn.tool_calls == (call(0, "call_eee1", "weather", '{"location": "San Francisco"}'),)
    assert turn.usage == USAGE
    assert turn.diagnostics == ()


VERTEX_BODY = (
    b"".join(
        b"data: " + json.dumps(c).encode() + b"\n\n"
        for c in [
            {
                "choices": [
                    {
                        "delta": {
                            "role": "assistant",
                            "tool_calls": [
                                {
                                    "function": {
                                        "arguments": arguments,
                                        "name": "get_current_weather",
                                    },
                                    "id": call_id,
                                    "index": index,
                                    "type": "function",
                                }
                            ],
                        },
                        "index": 0,
                        **({"finish_reason": "tool_calls"} if last else {}),
                    }
                ],
                "object": "chat.completion.chunk",
            }
            for call_id, index, arguments, last in [
                ("function-call-c855", 1, "", False),
                ("function-call-c855", 0, '{"location":"Boston, MA', False),
                ("function-call-c855", 0, '"', False),
                ("function-call-c855", 0, "}", False),
                ("function-call-df0d", 0, "", False),
                ("function-call-df0d", 1, '{"location":"New Delhi, India', False),
                ("function-call-df0d", 1, '"', False),
                ("function-call-df0d", 1, "}", True),
            ]
        ]
    )
    + b"data: [DONE]\n\n"
)


def test_vertex_inconsistent_index_is_routed_by_id() -> None:
    """Gemini on Vertex: call 0 opens with index 1, id and full name repeated on every chunk:
    FACTS §8
    (cassettes/gemini/published/vertex-docs_gemini-3.1-pro_stream_function_call_arguments.yaml)."""
    turn = toolcall.assemble(VERTEX_BODY)
    assert {(c.id, c.function.name, c.function.arguments) for c in turn.tool_calls} == {
        ("function-call-c855", "get_current_weather", '{"location":"Boston, MA"}'),
        ("function-call-df0d", "get_current_weather", '{"location":"New Delhi, India"}'),
    }
    assert sorted(c.index for c in turn.tool_calls) == [0, 1]


# -- backends, slicing, input forms --------------------------------------------------------

RICH = [
    chunk({"role": "assistant", "reasoning_content": "思考"}),
    chunk({"content": "Sure → "}),
    chunk(calls_delta(tc(0, "call_a", "add", '{"a": 1.5e3, "s": "\\u00e9\\ud83d\\ude00"'))),
    chunk(calls_delta(tc(1, "call_b", "mul", '{"n": null, "l": [true, false, -0]}'))),
    chunk(calls_delta(tc(0, None, None, ', "big": 12345678901234567890}'))),
    chunk({"content": ""}, finish="tool_calls", usage=USAGE),
]


def test_stdlib_and_orjson_backends_give_identical_turns() -> None:
    """The optional orjson backend must not change any result (_json.py)."""
    body = sse(*RICH)
    stdlib = toolcall.assemble(body, json_backend="stdlib")
    fast = toolcall.assemble(body, json_backend="orjson")
    auto = toolcall.assemble(body)
    assert stdlib.to_dict() == fast.to_dict() == auto.to_dict()
    assert stdlib == fast
    assert stdlib.arguments[0]["s"] == "é😀"
    assert stdlib.arguments[0]["big"] == 12345678901234567890


def test_unknown_json_backend_is_a_usage_error() -> None:
    """A bad option is the caller's mistake (DESIGN.md "Blame")."""
    with pytest.raises(UsageError, match="unknown json backend 'simd'"):
        toolcall.assemble(sse(*OPENAI), json_backend="simd")
    for unhashable in (["stdlib"], {"auto": 1}):
        with pytest.raises(UsageError, match="unknown json backend"):
            toolcall.TurnBuilder(json_backend=unhashable)  # type: ignore[arg-type]


def test_turn_to_dict_is_json_ready() -> None:
    """Turn.to_dict() is what the harness compares across implementations (DESIGN.md "Blame")."""
    turn = toolcall.assemble(sse(*OPENAI, done=False))
    assert turn.to_dict() == {
        "tool_calls": [
            {
                "index": 0,
                "id": "call_ZR5",
                "type": "function",
                "function": {"name": "add", "arguments": '{"a":2,"b":3}'},
            }
        ],
        "finish_reason": "tool_calls",
        "usage": USAGE,
        "content": "",
        "reasoning": "",
        "diagnostics": [
            {"code": "done_absent", "message": "no 'data: [DONE]' before the end", "index": None}
        ],
    }
    assert json.loads(json.dumps(turn.to_dict())) == turn.to_dict()


def test_turn_builder_fed_byte_by_byte_equals_the_whole_body() -> None:
    """Live HTTP splits a body anywhere, even inside a UTF-8 character (DESIGN.md "Flow")."""
    body = sse(*RICH)
    builder = TurnBuilder()
    for i in range(len(body)):
        builder.feed(body[i : i + 1])
    builder.feed(b"")
    assert builder.finish()[-1] == toolcall.TurnDone(toolcall.assemble(body))


def test_body_larger_than_the_window_gives_the_same_turn() -> None:
    """A whole replayed body is worked through in 64 KiB windows (_stream.py)."""
    long = json.dumps({"text": "x" * 200_000, "é": "北京" * 10_000})
    chunks = [chunk(calls_delta(tc(0, "call_a", "f", "")))]
    chunks += [
        chunk(calls_delta(tc(0, None, None, long[i : i + 997]))) for i in range(0, len(long), 997)
    ]
    chunks.append(chunk({}, finish="tool_calls"))
    body = sse(*chunks)
    assert len(body) > 3 * 64 * 1024
    whole = toolcall.assemble(body)
    assert whole.tool_calls[0].function.arguments == long
    assert toolcall.assemble([body[i : i + 4093] for i in range(0, len(body), 4093)]) == whole


def test_assemble_takes_an_iterable_of_byte_chunks() -> None:
    """`httpx.Response.iter_bytes()` form (_stream.py)."""
    body = sse(*OPENAI)
    assert toolcall.assemble(iter([body[:7], body[7:100], body[100:]])) == toolcall.assemble(body)


@pytest.mark.parametrize("pieces", [["data: {}\n\n"], [b"data: ", 5]])
def test_assemble_of_non_bytes_pieces_is_a_usage_error(pieces: list[Any]) -> None:
    """A str or int piece is the caller's mistake (DESIGN.md "Blame")."""
    with pytest.raises(UsageError, match="the body must be bytes"):
        toolcall.assemble(pieces)


def test_turn_builder_feed_of_str_is_a_usage_error() -> None:
    """TurnBuilder.feed(str) used to escape as TypeError (_errors.py: never a bare TypeError)."""
    with pytest.raises(UsageError, match="feed\\(\\) takes bytes, not str"):
        TurnBuilder().feed("data: [DONE]\n\n")  # type: ignore[arg-type]


def test_assemble_accepts_bytearray_and_memoryview() -> None:
    """Any bytes-like whole body is accepted."""
    body = sse(*OPENAI)
    expected = toolcall.assemble(body)
    assert toolcall.assemble(bytearray(body)) == expected
    assert toolcall.assemble(memoryview(body)) == expected


def test_assemble_async_takes_an_async_generator_of_byte_pieces() -> None:
    """`httpx.Response.aiter_bytes()` form (_stream.py)."""
    body = sse(*RICH)

    async def pieces() -> AsyncIterator[bytes]:
        for i in range(0, len(body), 13):
            await asyncio.sleep(0)
            yield body[i : i + 13]

    turn = asyncio.run(toolcall.assemble_async(pieces()))
    assert turn == toolcall.assemble(body)
    assert [c.id for c in turn.tool_calls] == ["call_a", "call_b"]


def test_assemble_async_rejects_non_bytes_pieces() -> None:
    """The async form checks pieces like the sync one (DESIGN.md "Blame": UsageError)."""

    async def pieces() -> AsyncIterator[Any]:
        yield "data: [DONE]\n\n"

    with pytest.raises(UsageError):
        asyncio.run(toolcall.assemble_async(pieces()))


def test_gemini_thought_signatures_stay_with_their_calls() -> None:
    """Gemini 3 attaches `extra_content.google.thought_signature` to each call, sometimes in a
    metadata-only delta, and answers 400 on the next turn without it (FACTS.md §8;
    litellm#16895). Two no-index parallel calls keep their own signatures; a call without one has
    none; `to_dict()` carries it only where it exists.
    """

    def call(name: str, arguments: str, signature: str | None) -> dict[str, Any]:
        out: dict[str, Any] = {"function": {"arguments": arguments, "name": name}, "id": ""}
        if signature:
            out["extra_content"] = {"google": {"thought_signature": signature}}
        out["type"] = "function"
        return out

    body = sse(
        chunk(calls_delta(call("get_weather", '{"city":"Oslo"}', "sig-A"))),
        chunk(calls_delta(call("get_weather", '{"city":"Rome"}', None))),
        chunk(calls_delta({"extra_content": {"google": {"thought_signature": "sig-B"}}})),
        chunk(calls_delta(call("get_time", '{"tz":"UTC"}', None)), finish="stop"),
    )
    turn = toolcall.assemble(body)
    signatures = [c.extra_content for c in turn.tool_calls]
    assert signatures == [
        {"google": {"thought_signature": "sig-A"}},
        {"google": {"thought_signature": "sig-B"}},
        None,
    ]
    assert turn.to_dict()["tool_calls"][0]["extra_content"] == signatures[0]
    assert "extra_content" not in turn.to_dict()["tool_calls"][2]
    assert [a["city"] for a in turn.arguments[:2]] == ["Oslo", "Rome"]


def test_extra_content_that_is_not_an_object_is_a_stream_error() -> None:
    head = tc(0, "call_1", "f", "{}")
    head["extra_content"] = "sig"
    with pytest.raises(toolcall.StreamError, match="extra_content must be an object"):
        toolcall.assemble(sse(chunk(calls_delta(head)), chunk(finish="tool_calls")))


@pytest.mark.slow
@pytest.mark.parametrize("wire", ["chat", "responses", "anthropic"])
def test_a_body_fed_in_one_slice_is_read_where_it_is_not_copied(wire: str) -> None:
    """Replay hands a whole body over in one slice, which is also the slice that shows the
    framing: it is read in place, while a copy kept for detecting the framing was twice the
    body. Counted by tracemalloc, not timed."""
    body = wire_bodies.body(wire, [("write", {"text": "plain words, " * 40_000})])
    peak = fed_peak([body], events=False, wire=wire)
    # The call's text, in its loosely joined parts, is a quarter of this body or less.
    assert peak < len(body) / 2
