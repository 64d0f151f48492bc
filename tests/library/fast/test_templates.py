"""The envelope fast path must give exactly what full decoding gives, on any stream.

`toolcall._fast.templates` skips decoding a chunk whose envelope repeats a learned one; these
tests compare every outcome with the same stream read with learning switched off, and probe the
cases where a careless matcher would take the wrong string.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from toolcall import StreamError, ToolCallError, TurnBuilder
from toolcall._call_table import CallTable
from toolcall._fast import enabled as fast_paths
from toolcall._fast import templates as _templates
from toolcall._fast.templates import learn
from toolcall._json import backend, writer
from toolcall._wires.chat import ChatReader

ENVELOPE = (
    '{"id":"c1","object":"chat.completion.chunk",'
    '"choices":[{"index":0,"delta":%s,"finish_reason":null}]%s}'
)


def fragment_chunk(
    index: int, arguments: str, tail: str = "", **call: Any
) -> tuple[str, dict[str, Any]]:
    delta = {"tool_calls": [{"index": index, **call, "function": {"arguments": arguments}}]}
    text = ENVELOPE % (json.dumps(delta, ensure_ascii=False), tail)
    return text, json.loads(text)


def read(payloads: list[str], *, fast: bool, json_backend: str = "stdlib") -> dict[str, Any]:
    with fast_paths(fast):
        reader = ChatReader(CallTable(), backend(json_backend), writer(json_backend))
    try:
        reader.read(payloads)
    except ToolCallError as exc:
        return {"error": (type(exc).__name__, str(exc))}
    calls = reader.assembler.complete()
    return {
        "calls": [c.to_dict() for c in calls],
        "diagnostics": [d.to_dict() for d in reader.assembler.diagnostics],
        "finish": reader.finish_reasons,
        "usage": reader.usage,
        "content": reader.content.joined(),
        "reasoning": reader.reasoning.joined(),
    }


def test_a_repeated_envelope_is_matched_and_the_fragment_decoded() -> None:
    text, chunk = fragment_chunk(0, '{"a"')
    template = learn(text, chunk)
    assert template is not None
    later, _ = fragment_chunk(0, ': "x\\"y \u4e0a\\\\"')
    assert template.match(later) == ': "x\\"y \u4e0a\\\\"'


def test_openai_obfuscation_tail_may_vary_but_only_a_tail_the_reader_ignores() -> None:
    text, chunk = fragment_chunk(0, "{", ',"obfuscation":"aZ"')
    template = learn(text, chunk)
    assert template is not None and template.varying_tail
    assert template.match(fragment_chunk(0, "x", ',"obfuscation":"q1w2e3"')[0]) == "x"
    assert template.match(fragment_chunk(0, "x", ',"obfuscation":"q","more":"z"')[0]) is None
    usage_tail, usage_chunk = fragment_chunk(0, "{", ',"usage":"aZ"')
    assert learn(usage_tail, usage_chunk) is None


@pytest.mark.parametrize(
    ("delta_extra", "tail", "why"),
    [
        ({"id": "call_1"}, "", "an id can open a call"),
        ({"function": {"name": "f", "arguments": "{"}}, "", "a name can open a call"),
        ({}, ',"usage":{"total_tokens":1}', "usage must be read"),
        ({"type": 7}, "", "a wrong type must raise"),
    ],
)
def test_chunks_that_do_more_than_carry_a_fragment_are_not_learned(
    delta_extra: dict[str, Any], tail: str, why: str
) -> None:
    call = {"index": 0, "function": {"arguments": "{"}, **delta_extra}
    text = ENVELOPE % (json.dumps({"tool_calls": [call]}), tail)
    assert learn(text, json.loads(text)) is None, why


def test_content_finish_and_two_calls_are_not_learned() -> None:
    for delta in (
        {"content": "hi", "tool_calls": [{"index": 0, "function": {"arguments": "{"}}]},
        {
            "tool_calls": [
                {"index": 0, "function": {"arguments": "{"}},
                {"index": 1, "function": {"arguments": "{"}},
            ]
        },
    ):
        text = ENVELOPE % (json.dumps(delta), "")
        assert learn(text, json.loads(text)) is None
    text = ENVELOPE.replace('"finish_reason":null', '"finish_reason":"length"') % (
        json.dumps({"tool_calls": [{"index": 0, "function": {"arguments": "{"}}]}),
        "",
    )
    assert learn(text, json.loads(text)) is None


def test_escaped_or_repeated_keys_are_not_learned() -> None:
    escaped = ENVELOPE % (
        '{"tool_calls":[{"index":0,"function":{"argum\\u0065nts":"{"}}]}',
        ',"arguments":"{"',
    )
    assert learn(escaped, json.loads(escaped)) is None
    twice = ENVELOPE % (
        '{"tool_calls":[{"index":0,"function":{"arguments":"{"}}]}',
        ',"x":{"arguments":"{"}',
    )
    assert learn(twice, json.loads(twice)) is None
    backslash_key = ENVELOPE % (
        '{"tool_calls":[{"index":0,"function":{"arguments":"{"}}]}',
        ',"a\\"b":1',
    )
    assert learn(backslash_key, json.loads(backslash_key)) is None


def test_a_broken_literal_falls_back_to_full_decoding_and_its_error() -> None:
    opening = {
        "index": 0,
        "id": "c",
        "type": "function",
        "function": {"name": "f", "arguments": ""},
    }
    head = "data: " + json.dumps({"choices": [{"index": 0, "delta": {"tool_calls": [opening]}}]})
    head += "\n\n"
    good, _ = fragment_chunk(0, '{"a":')
    bad = good.replace('"{\\"a\\":"', '"\\q"')
    builder = TurnBuilder(json_backend="stdlib")
    builder.feed((head + f"data: {good}\n\n").encode())
    with pytest.raises(StreamError, match="chunk 3 is not valid JSON"):
        builder.feed(f"data: {bad}\n\n".encode())


# Strings sometimes hold surrogates: lone ones must be refused alike by every path and backend.
json_text = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=8)
    | st.text(
        st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, blacklist_categories=[])
        | st.characters(),
        max_size=3,
    ),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


@pytest.mark.parametrize("json_backend", ["stdlib", "orjson"])
@settings(max_examples=150, deadline=None)
@given(
    calls=st.lists(
        st.dictionaries(st.text(max_size=6), json_text, max_size=4), min_size=1, max_size=3
    ),
    cuts=st.lists(st.integers(min_value=1, max_value=9), min_size=1, max_size=6),
    order=st.randoms(use_true_random=False),
    tail=st.sampled_from(
        ["", ',"obfuscation":"%s"', ',"system_fingerprint":"fp_x"', ',"usage":null']
    ),
    ascii_only=st.booleans(),
    ascii_arguments=st.booleans(),
    spaced=st.booleans(),
    merged_finish=st.booleans(),
)
@example(  # issue 10: learned from the first fragment, `\ud800` in a later one
    calls=[{"a": "xx\ud800yy"}],
    cuts=[2],
    order=random.Random(0),
    tail="",
    ascii_only=True,
    ascii_arguments=False,
    spaced=False,
    merged_finish=False,
)
@pytest.mark.slow
def test_fast_path_equals_full_decoding(
    json_backend: str,
    calls: list[dict[str, Any]],
    cuts: list[int],
    order: Any,
    tail: str,
    ascii_only: bool,
    ascii_arguments: bool,
    spaced: bool,
    merged_finish: bool,
) -> None:
    """On both backends; a raw lone surrogate in the arguments becomes a `\\ud800` escape in the
    chunk when the chunk is ASCII-only, which every path must refuse the same way."""
    separators = (", ", ": ") if spaced else (",", ":")
    streams = []
    for index, arguments in enumerate(calls):
        text = json.dumps(arguments, ensure_ascii=ascii_arguments)
        pieces, at, turn = [], 0, 0
        while at < len(text):
            size = cuts[turn % len(cuts)]
            pieces.append(text[at : at + size])
            at, turn = at + size, turn + 1
        head = {
            "tool_calls": [
                {
                    "index": index,
                    "id": f"call_{index}",
                    "type": "function",
                    "function": {"name": "f", "arguments": ""},
                }
            ]
        }
        events = [json.dumps({"choices": [{"index": 0, "delta": head}]})]
        for n, piece in enumerate(pieces):
            delta = {"tool_calls": [{"index": index, "function": {"arguments": piece}}]}
            body = json.dumps(delta, ensure_ascii=ascii_only, separators=separators)
            events.append(ENVELOPE % (body, tail.replace("%s", "o" * (n % 4))))
        streams.append(events)
    payloads: list[str] = []
    queues = [list(s) for s in streams]
    while any(queues):
        queue = order.choice([q for q in queues if q])
        payloads.append(queue.pop(0))
    if merged_finish and payloads[-1].count('"finish_reason":null') == 1:
        # Same envelope, finish on it (Doubao, Gemini): only the suffix tells it apart.
        payloads[-1] = payloads[-1].replace('"finish_reason":null', '"finish_reason":"tool_calls"')
    else:
        finish = {"index": 0, "delta": {}, "finish_reason": "tool_calls"}
        payloads.append(json.dumps({"choices": [finish]}))
    fast = read(payloads, fast=True, json_backend=json_backend)
    slow = read(payloads, fast=False, json_backend=json_backend)
    assert fast == slow
    assert slow == read(payloads, fast=False, json_backend="stdlib")
    if "error" in fast:
        assert "lone surrogate" in fast["error"][1]
        return
    assert fast["finish"] == ["tool_calls"]
    assert [json.loads(c["function"]["arguments"]) for c in fast["calls"]] == calls


def test_learning_is_used_on_a_real_cassette(monkeypatch: pytest.MonkeyPatch) -> None:
    from pathlib import Path

    from toolcall.harness.suite import cassettes

    root = Path(__file__).resolve().parents[3] / "cassettes"
    body = cassettes.response_body(cassettes.load(root / "openai" / "long_arguments.yaml"))
    matched: list[str] = []
    original = _templates.SuffixTemplate.match

    def counting(self: _templates.SuffixTemplate, text: str) -> str | None:
        found = original(self, text)
        if found is not None:
            matched.append(found)
        return found

    monkeypatch.setattr(_templates.SuffixTemplate, "match", counting)
    builder = TurnBuilder(json_backend="stdlib")
    builder.feed(body)
    turn = builder.finish()[-1].turn  # type: ignore[union-attr]
    assert len(matched) > 100
    assert turn.arguments[0]["path"]


@pytest.mark.parametrize("calls", [1, 9, 64])
def test_interleaved_calls_stay_on_the_fast_path_however_many(calls: int) -> None:
    """Past eight interleaved calls every chunk used to miss every kept template and be decoded
    in full (2.8x the floor at 9 calls, worse than no templates): a template is now looked up by
    the chunk's prefix, so only each call's opening and first fragment are decoded in full."""
    opening = [
        {"index": i, "id": f"c{i}", "type": "function", "function": {"name": "f", "arguments": ""}}
        for i in range(calls)
    ]
    payloads = [
        json.dumps({"id": "x", "choices": [{"index": 0, "delta": {"tool_calls": [call]}}]})
        for call in opening
    ]
    for round_ in range(20):
        payloads += [
            fragment_chunk(i, f'{{"n":{round_}' if round_ == 0 else "0")[0] for i in range(calls)
        ]
    full = 0
    loads = backend("stdlib")

    def counting(text: str) -> Any:
        nonlocal full
        full += 1
        return loads(text)

    reader = ChatReader(CallTable(max_calls=calls), counting, writer("stdlib"))
    reader.read(payloads)
    assert full == 2 * calls


text_deltas = st.lists(
    st.tuples(
        st.sampled_from(
            [
                ("content",),
                ("reasoning_content",),
                ("reasoning",),
                ("content", "reasoning_content"),  # DeepSeek: the other key is null
                ("reasoning_content", "reasoning"),
            ]
        ),
        st.text(max_size=6) | st.sampled_from(["", "\\", '"', "\ud800x", "上海"]),
        st.sampled_from([None, "", "x"]),
    ),
    min_size=1,
    max_size=25,
)


@pytest.mark.parametrize("json_backend", ["stdlib", "orjson"])
@settings(max_examples=200, deadline=None)
@given(deltas=text_deltas, ascii_only=st.booleans(), tail=st.sampled_from(["", ',"o":"%s"']))
def test_text_and_reasoning_on_the_fast_path_equal_full_decoding(
    json_backend: str,
    deltas: list[tuple[tuple[str, ...], str, str | None]],
    ascii_only: bool,
    tail: str,
) -> None:
    """Text and reasoning chunks take templates too (a stream of 256 KB of text cost 1.13x the
    floor without); the key that carries the piece, the other keys beside it and their values
    decide what the reader reads, so every mix must read the same on both paths."""
    payloads = []
    for n, (keys, piece, other) in enumerate(deltas):
        delta: dict[str, Any] = {keys[0]: piece}
        for key in keys[1:]:
            delta[key] = other
        body = json.dumps(delta, ensure_ascii=ascii_only)
        payloads.append(ENVELOPE % (body, tail.replace("%s", "o" * (n % 3))))
    payloads.append(json.dumps({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}))
    fast = read(payloads, fast=True, json_backend=json_backend)
    assert fast == read(payloads, fast=False, json_backend=json_backend)
