"""Hypothesis properties of the whole flow.

1. Any re-splitting of an SSE body gives the same Turn (DESIGN.md "Flow": "split anywhere").
2. Any interleaving of several calls' fragments that keeps each call's own order gives the same
   calls (DESIGN.md "Rules": route by index, never decide "done" from the next index; FACTS §4
   LibreChat-AI/agents#181).
3. A whole call in one delta (GLM, Grok, Gemini, Doubao: FACTS §0 first row) and the same call
   streamed incrementally (OpenAI, DeepSeek, Qwen, Kimi) give the same calls.
4. Arbitrary bytes given to `assemble` raise only `ToolCallError` subclasses, or succeed.
5. Arbitrary JSON-ish dicts given to `Assembler.feed` raise only `ToolCallError` subclasses.
6. Both JSON backends give one answer: any JSON-ish text decodes to the same value or the same
   error, and any body (odd values and mutations included) assembles to the same turn or error
   (DESIGN.md, "One reading of JSON").
"""

from __future__ import annotations

import itertools
import json
from collections import deque
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolcall
import toolcall._json
from tests.helpers.json_values import json_values as json_values_of
from tests.helpers.outcomes import outcome
from toolcall import Assembler, ToolCall, ToolCallError, ToolCallFunction

FAST = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# -- strategies ------------------------------------------------------------------------------

json_values = json_values_of()
argument_objects = st.dictionaries(st.text(max_size=6), json_values, max_size=4)
NAMES = ["get_weather", "add", "search", "读取文件", "f"]


@st.composite
def call_specs(draw: st.DrawFn) -> list[tuple[int, str, str, str, list[str]]]:
    """1-4 calls: (index, id, name, arguments text, fragments that join to the text)."""
    specs = []
    for i in range(draw(st.integers(1, 4))):
        name = draw(st.sampled_from(NAMES))
        call_id = draw(st.sampled_from([f"call_{i:02d}abc", f"{name}:{i}", f"function-call-{i}"]))
        text = json.dumps(draw(argument_objects), ensure_ascii=draw(st.booleans()))
        cuts = sorted(draw(st.sets(st.integers(1, len(text) - 1), max_size=8)))
        bounds = [0, *cuts, len(text)]
        pieces = [text[a:b] for a, b in itertools.pairwise(bounds)]
        specs.append((i, call_id, name, text, pieces))
    return specs


@st.composite
def styles(draw: st.DrawFn) -> dict[str, Any]:
    """How later fragments look: id absent / "" (Qwen) / repeated (Vertex); type repeated (Kimi)."""
    return {
        "later_id": draw(st.sampled_from(["absent", "empty", "repeat"])),
        "later_type": draw(st.booleans()),
        "args_on_head": draw(st.booleans()),
    }


def head_delta(spec: tuple[int, str, str, str, list[str]], first: str) -> dict[str, Any]:
    index, call_id, name, _, _ = spec
    return {
        "index": index,
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": first},
    }


def fragment_delta(
    spec: tuple[int, str, str, str, list[str]], piece: str, style: dict[str, Any]
) -> dict[str, Any]:
    out: dict[str, Any] = {"index": spec[0], "function": {"arguments": piece}}
    if style["later_id"] == "empty":
        out["id"] = ""
    elif style["later_id"] == "repeat":
        out["id"] = spec[1]
    if style["later_type"]:
        out["type"] = "function"
    return out


def incremental(
    spec: tuple[int, str, str, str, list[str]], style: dict[str, Any]
) -> list[dict[str, Any]]:
    pieces = spec[4]
    if style["args_on_head"]:
        return [head_delta(spec, pieces[0])] + [fragment_delta(spec, p, style) for p in pieces[1:]]
    return [head_delta(spec, "")] + [fragment_delta(spec, p, style) for p in pieces]


def expected(specs: list[tuple[int, str, str, str, list[str]]]) -> list[ToolCall]:
    return [
        ToolCall(i, cid, "function", ToolCallFunction(name, text))
        for i, cid, name, text, _ in specs
    ]


def chunk_of(*tool_calls: dict[str, Any]) -> dict[str, Any]:
    return {
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"tool_calls": list(tool_calls)}}],
    }


def sse(chunks: list[dict[str, Any] | str], newline: str = "\n") -> bytes:
    return "".join(
        f"data: {c if isinstance(c, str) else json.dumps(c, ensure_ascii=False)}{newline}{newline}"
        for c in chunks
    ).encode()


FINISH = {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}
USAGE = {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}}


def interleave(draw: st.DrawFn, per_call: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """A random merge of the calls' delta lists that keeps each list's own order."""
    labels = [i for i, deltas in enumerate(per_call) for _ in deltas]
    order = draw(st.permutations(labels))
    queues = [deque(deltas) for deltas in per_call]
    return [queues[i].popleft() for i in order]


# -- 1. re-splitting -----------------------------------------------------------------------


@st.composite
def bodies(draw: st.DrawFn) -> bytes:
    specs = draw(call_specs())
    style = draw(styles())
    deltas = interleave(draw, [incremental(s, style) for s in specs])
    chunks: list[dict[str, Any] | str] = [
        {
            "choices": [
                {"index": 0, "delta": {"role": "assistant", "reasoning_content": "想一想 🤔"}}
            ]
        },
        {"choices": [{"index": 0, "delta": {"content": draw(st.text(max_size=10))}}]},
    ]
    chunks += [chunk_of(d) for d in deltas]
    chunks.append(FINISH)
    chunks.append(USAGE)
    if draw(st.booleans()):
        chunks.append("[DONE]")
    body = sse(chunks, newline=draw(st.sampled_from(["\n", "\r\n", "\r"])))
    if draw(st.booleans()):
        body = b": keep-alive\n\n" + body
    return body


@pytest.mark.slow
@FAST
@given(data=st.data())
def test_any_resplitting_of_a_body_gives_the_same_turn(data: st.DataObject) -> None:
    """Property 1 (DESIGN.md "Flow": bytes split anywhere, even inside a UTF-8 character)."""
    body = data.draw(bodies())
    cuts = sorted(data.draw(st.lists(st.integers(0, len(body)), max_size=12)))
    bounds = [0, *cuts, len(body)]
    pieces = [body[a:b] for a, b in itertools.pairwise(bounds)]
    assert toolcall.assemble(pieces).to_dict() == toolcall.assemble(body).to_dict()


# -- 2. interleaving -----------------------------------------------------------------------


@pytest.mark.slow
@FAST
@given(specs=call_specs(), style=styles(), data=st.data())
def test_any_interleaving_gives_the_same_calls(
    specs: list[tuple[int, str, str, str, list[str]]], style: dict[str, Any], data: st.DataObject
) -> None:
    """Property 2 (FACTS §0: parallel calls by index; §4 late fragments for an earlier index)."""
    deltas = interleave(data.draw, [incremental(s, style) for s in specs])
    assembler = Assembler()
    for d in deltas:
        assembler.feed(d)
    assert assembler.complete() == expected(specs)
    assert assembler.diagnostics == []
    turn = toolcall.assemble(sse([*(chunk_of(d) for d in deltas), FINISH]))
    assert list(turn.tool_calls) == expected(specs)
    assert list(turn.arguments) == [json.loads(s[3]) for s in specs]


# -- 3. whole vs incremental ---------------------------------------------------------------


@FAST
@given(specs=call_specs(), style=styles(), one_chunk=st.booleans())
def test_whole_call_in_one_delta_equals_incremental_delivery(
    specs: list[tuple[int, str, str, str, list[str]]], style: dict[str, Any], one_chunk: bool
) -> None:
    """Property 3 (FACTS §0 row 1: GLM/Grok/Gemini whole calls; §7 Doubao: all calls in one
    tool_calls array with finish_reason on that chunk)."""
    whole = [head_delta(s, s[3]) for s in specs]
    streamed = [d for s in specs for d in incremental(s, style)]

    for deltas in (whole, streamed):
        assembler = Assembler()
        for d in deltas:
            assembler.feed(d)
        assert assembler.complete() == expected(specs)

    if one_chunk:
        whole_chunks: list[dict[str, Any] | str] = [
            {
                "choices": [
                    {"index": 0, "delta": {"tool_calls": whole}, "finish_reason": "tool_calls"}
                ]
            }
        ]
    else:
        whole_chunks = [*(chunk_of(d) for d in whole), FINISH]
    streamed_chunks: list[dict[str, Any] | str] = [*(chunk_of(d) for d in streamed), FINISH]
    assert (
        toolcall.assemble(sse(whole_chunks)).to_dict()
        == toolcall.assemble(sse(streamed_chunks)).to_dict()
    )


# -- 4. arbitrary bytes --------------------------------------------------------------------

SSE_TOKENS = [
    b"data: ",
    b"data:",
    b"\n",
    b"\r\n",
    b"\r",
    b": keep-alive",
    b"[DONE]",
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b'"choices"',
    b'"delta"',
    b'"tool_calls"',
    b'"index"',
    b'"id"',
    b'"function"',
    b'"name"',
    b'"arguments"',
    b'"finish_reason"',
    b'"error"',
    b'"usage"',
    b'"stop"',
    b'"length"',
    b'"f"',
    b'""',
    b"0",
    b"1",
    b"-1",
    b"null",
    b"true",
    b"\xe5\x8c\x97",
    b"\xe5",
    b"\xff",
    b"\xef\xbb\xbf",
]


@st.composite
def mutated_bodies(draw: st.DrawFn) -> bytes:
    body = bytearray(draw(bodies()))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(body)))
        kind = draw(st.sampled_from(["delete", "insert", "replace"]))
        span = draw(st.integers(1, 8))
        if kind == "delete":
            del body[at : at + span]
        elif kind == "insert":
            body[at:at] = draw(st.sampled_from(SSE_TOKENS))
        else:
            body[at : at + span] = draw(st.binary(min_size=1, max_size=span))
    return bytes(body)


@FAST
@given(
    body=st.binary(max_size=400)
    | st.lists(st.sampled_from(SSE_TOKENS), max_size=60).map(b"".join)
    | mutated_bodies(),
    backend=st.sampled_from(["stdlib", "orjson"]),
)
def test_arbitrary_bytes_raise_only_library_errors(body: bytes, backend: str) -> None:
    """Property 4 (_errors.py: nothing surfaces as a bare KeyError or TypeError)."""
    try:
        turn = toolcall.assemble(body, json_backend=backend)
    except ToolCallError:
        return
    assert isinstance(turn, toolcall.Turn)
    assert len(turn.arguments) == len(turn.tool_calls)


# -- 5. arbitrary delta dicts --------------------------------------------------------------

odd_strings = st.sampled_from(["", "0", "1", "-1", " 2 ", "²", "٣", "1e3", "0x1", "f", "g"])
delta_dicts = st.fixed_dictionaries(
    {},
    optional={
        "index": st.none() | st.integers(-3, 5) | st.integers() | odd_strings | json_values,
        "id": st.none() | st.sampled_from(["", "a", "b"]) | json_values,
        "type": st.none() | st.just("function") | json_values,
        "function": st.none()
        | json_values
        | st.fixed_dictionaries(
            {},
            optional={
                "name": st.none() | st.sampled_from(["", "f", "g"]) | json_values,
                "arguments": st.none()
                | st.sampled_from(["", '{"a":', "1}", "{}", '{"a":1}'])
                | st.text(max_size=6)
                | json_values,
            },
        ),
        "extra_content": json_values,
    },
)


@FAST
@given(deltas=st.lists(delta_dicts, max_size=8))
def test_arbitrary_delta_dicts_raise_only_library_errors(deltas: list[dict[str, Any]]) -> None:
    """Property 5 (DESIGN.md "Rules": bad input gives a typed error, never a crash)."""
    assembler = Assembler()
    for delta in deltas:
        try:
            routed = assembler.feed(delta)
        except ToolCallError:
            continue
        assert isinstance(routed, int)
        assert routed >= 0
    try:
        calls = assembler.complete()
    except ToolCallError:  # a call's type or name after its arguments closed: a typed error
        calls = []
    assert [c.index for c in calls] == sorted(c.index for c in calls)
    assert all(c.function.name and c.type and isinstance(c.type, str) for c in calls)
    assert len(calls) <= assembler.pending()

    body = sse([*(chunk_of(d) for d in deltas), FINISH])
    try:
        turn = toolcall.assemble(body)
    except ToolCallError:
        return
    assert len(turn.arguments) == len(turn.tool_calls)


# -- 6. one answer on both JSON backends ---------------------------------------------------

numbers = st.one_of(
    st.from_regex(r"-?(0|[1-9][0-9]{0,30})(\.[0-9]{1,20})?([eE][+-]?[0-9]{1,3})?", fullmatch=True),
    st.integers().map(str),
    st.integers(min_value=2**60, max_value=2**70).map(str),
    st.integers(min_value=-(2**70), max_value=-(2**60)).map(str),
    st.floats().map(repr),  # nan, inf and -inf write themselves as Python spells them
    st.sampled_from(["NaN", "Infinity", "-Infinity", "1e400", "-0", "-0.0", "1E-400", "9" * 400]),
)
# The inside of a JSON string: text escaped as JSON escapes it, or escapes written by hand (lone
# surrogates, a pair, an invalid escape, a raw control character).
plain = st.text(max_size=4).map(lambda text: json.dumps(text, ensure_ascii=False)[1:-1])
escapes = st.sampled_from(
    ["\\ud800", "\\uDFFF", "\\ud83d\\ude00", "\\u0000", "\\n", '\\"', "\\x", "\x01"]
)
strings = st.lists(plain | escapes, max_size=4).map(lambda parts: '"' + "".join(parts) + '"')
spaces = st.sampled_from(["", " ", "\n", "\t", "\r", "\u00a0", "\x0c"])


def json_texts() -> st.SearchStrategy[str]:
    leaves = numbers | strings | st.sampled_from(["null", "true", "false", "nul", "tru"])

    def nest(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        arrays = st.lists(inner, max_size=3).map(lambda items: "[" + ",".join(items) + "]")
        members = st.tuples(strings, spaces, inner).map(lambda kv: f"{kv[0]}:{kv[1]}{kv[2]}")
        objects = st.lists(members, max_size=3).map(lambda items: "{" + ",".join(items) + "}")
        deep = st.tuples(st.integers(100, 1100), inner).map(
            lambda d: "[" * d[0] + d[1] + "]" * d[0]
        )
        return arrays | objects | deep

    return st.tuples(spaces, st.recursive(leaves, nest, max_leaves=6), spaces).map("".join)


def decoded(json_backend: str, text: str) -> tuple[str, str]:
    try:
        return "value", json.dumps(toolcall._json.backend(json_backend)(text))
    except ValueError as exc:
        return type(exc).__name__, str(exc)


@FAST
@given(text=json_texts())
def test_both_backends_read_any_json_text_the_same_way(text: str) -> None:
    """Property 6: the same value, or the same error with the same message."""
    assert decoded("orjson", text) == decoded("stdlib", text)


@FAST
@given(number=numbers)
def test_both_backends_read_any_number_the_same_way(number: str) -> None:
    """Property 6: floats correctly rounded alike; integers past 64 bits as orjson reads them."""
    assert decoded("orjson", f"[{number}]") == decoded("stdlib", f"[{number}]")


@st.composite
def odd_bodies(draw: st.DrawFn) -> bytes:
    """A body with an odd JSON value written into one of its chunks, or mutated bytes."""
    body = draw(bodies())
    if draw(st.booleans()):
        return draw(mutated_bodies())
    events = body.split(b"\n\n")
    at = draw(st.integers(0, len(events) - 1))
    odd = draw(numbers | strings | json_texts()).encode("utf-8", "surrogatepass")
    target = draw(
        st.sampled_from([b'"index": 0', b'"prompt_tokens": 3', b'"content": ""', b"null"])
    )
    events[at] = events[at].replace(target, target.split(b":")[0] + b": " + odd, 1)
    return b"\n\n".join(events)


@pytest.mark.slow
@FAST
@given(body=odd_bodies())
def test_both_backends_assemble_any_body_the_same_way(body: bytes) -> None:
    """Property 6 on whole bodies, through the fast path and the reader."""
    assert outcome(body, backend="orjson") == outcome(body, backend="stdlib")
