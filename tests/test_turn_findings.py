"""What a turn says against what it holds, on every wire.

A server whose tool-call parser is off streams the call as markup in the text (`tool_call_in_text`,
a diagnostic naming the format); a turn that ended to have tools run holds no call, or a call's
name holds a template's tokens (`UnsoundTurnError`, carrying the turn as received). The markup of
each format is written in the text split at every point of its marker, as content and as
reasoning; prose and JSON that only name a marker are not reported.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

import toolcall
import toolcall._turn.markup
from tests import wire_bodies
from tests.wire_bodies import WIRES
from toolcall import (
    StreamError,
    TextDelta,
    ToolCallStarted,
    TurnBuilder,
    UnsoundTurnError,
    UsageError,
)

#: One call in each format's markup, as the reports and the families' templates write it, and
#: the marker the diagnostic names.
LEAKS: dict[str, tuple[str, str]] = {
    "Hermes/Qwen": (
        "<tool_call>",
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    ),
    "Qwen3-Coder XML": (
        "<tool_call>",
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
        "</function>\n</tool_call>",
    ),
    "GLM": (
        "<tool_call>",
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n"
        "</tool_call>",
    ),
    "Kimi": (
        "<|tool_calls_section_begin|>",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
        '<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>',
    ),
    "DeepSeek": (
        "<\uff5ctool\u2581calls\u2581begin\uff5c>",
        "<\uff5ctool\u2581calls\u2581begin\uff5c><\uff5ctool\u2581call\u2581begin\uff5c>function"
        '<\uff5ctool\u2581sep\uff5c>get_weather\n```json\n{"city": "Paris"}\n```'
        "<\uff5ctool\u2581call\u2581end\uff5c><\uff5ctool\u2581calls\u2581end\uff5c>",
    ),
    "harmony (gpt-oss)": (
        "to=functions.",
        "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>"
        '{"city": "Paris"}<|call|>',
    ),
    "Mistral": ("[TOOL_CALLS]", '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}'),
    "Gemma 4": ("<|tool_call>", '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|>'),
    "Inkling": (
        "<|content_invoke_tool_json|>",
        '<|content_invoke_tool_json|>{"name": "get_weather", "arguments": {"city": "Paris"}}',
    ),
}

#: Text that names markers, or holds them in strings, without a call after them.
PROSE = [
    "Wrap each call in a <tool_call> tag, then close it with </tool_call>.",
    "An empty <tool_call></tool_call> pair holds nothing.",
    '{"template": "<tool_call>", "end": "</tool_call>"}',
    "<tool_call> {not json} </tool_call>",
    "Kimi opens a call with <|tool_call_begin|> and a section with <|tool_calls_section_begin|>.",
    "DeepSeek's <\uff5ctool\u2581call\u2581begin\uff5c> token is full-width.",
    "The [TOOL_CALLS] token starts Mistral's calls.",
    "harmony routes a message with to=functions. and a name",
    "Gemma writes <|tool_call> before call: hmm, not quite",
    "<|content_invoke_tool_json|> is Inkling's marker",
    "<b>bold</b> and <|im_end|> and [INST] are other tokens",
    "",
]


def text_events(wire: str, content: list[str], reasoning: list[str]) -> list[Any]:
    """A turn of text only on `wire`, each piece its own event, reasoning before content."""
    if wire == "chat":
        chunks: list[Any] = [{"reasoning_content": p} for p in reasoning]
        chunks += [{"content": p} for p in content]
        choices = [[{"index": 0, "delta": d, "finish_reason": None}] for d in chunks]
        choices.append([{"index": 0, "delta": {}, "finish_reason": "stop"}])
        return [{"id": "c1", "choices": c} for c in choices] + ["[DONE]"]
    if wire == "responses":
        out: list[Any] = [{"type": "response.created", "response": {"status": "in_progress"}}]
        for kind, item, pieces in (
            ("reasoning_text", "rs_1", reasoning),
            ("output_text", "m", content),
        ):
            part = {"item_id": item, "output_index": 0, "content_index": 0}
            out += [{"type": f"response.{kind}.delta", **part, "delta": p} for p in pieces]
        return [*out, {"type": "response.completed", "response": {"status": "completed"}}]
    if wire == "anthropic":
        out = [{"type": "message_start", "message": {"usage": {"input_tokens": 1}}}]
        blocks = (("thinking", "thinking_delta", reasoning), ("text", "text_delta", content))
        for index, (kind, delta, pieces) in enumerate(blocks):
            start = {"type": kind, kind: ""}
            out.append({"type": "content_block_start", "index": index, "content_block": start})
            out += [
                {"type": "content_block_delta", "index": index, "delta": {"type": delta, kind: p}}
                for p in pieces
            ]
            out.append({"type": "content_block_stop", "index": index})
        out.append({"type": "message_delta", "delta": {"stop_reason": "end_turn"}})
        return [*out, {"type": "message_stop"}]
    if wire == "gemini":
        parts = [{"text": p, "thought": True} for p in reasoning] + [{"text": p} for p in content]
        out = [{"candidates": [{"content": {"role": "model", "parts": [p]}}]} for p in parts]
        return [*out, {"candidates": [{"content": {"parts": []}, "finishReason": "STOP"}]}]
    lines = [{"message": {"role": "assistant", "thinking": p}, "done": False} for p in reasoning]
    lines += [{"message": {"role": "assistant", "content": p}, "done": False} for p in content]
    return [*lines, {"message": {"role": "assistant", "content": ""}, "done": True}]


def read(wire: str, content: list[str], reasoning: list[str] | None = None) -> toolcall.Turn:
    body = wire_bodies.frame(wire, text_events(wire, content, reasoning or []))
    return toolcall.assemble(body, wire=wire)


def found(turn: toolcall.Turn) -> list[str]:
    return [d.message for d in turn.diagnostics if d.code == "tool_call_in_text"]


# -- markup left in the text ---------------------------------------------------------------------


@pytest.mark.parametrize("where", ["content", "reasoning"])
@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("family", list(LEAKS))
def test_markup_split_at_every_point_of_its_marker_is_reported(
    family: str, wire: str, where: str
) -> None:
    marker, leak = LEAKS[family]
    text = "Let me look that up.\n" + leak
    start = text.index(marker)
    for cut in range(start, start + len(marker) + 1):
        pieces = [p for p in (text[:cut], text[cut:]) if p]
        turn = read(wire, pieces, []) if where == "content" else read(wire, ["ok"], pieces)
        assert getattr(turn, where) == text and turn.tool_calls == ()
        (message,) = found(turn)
        assert message.startswith(f"the {where} holds {family} tool-call markup ({marker!r} at "), (
            cut,
            message,
        )
        assert f"character {start})" in message


@pytest.mark.parametrize("wire", WIRES)
def test_markup_split_into_one_character_events_is_reported_once_per_format(wire: str) -> None:
    text = LEAKS["Kimi"][1] + " then " + LEAKS["Mistral"][1] + LEAKS["Kimi"][1]
    turn = read(wire, list(text), list(LEAKS["GLM"][1]))
    assert [m.split(" tool-call")[0] for m in found(turn)] == [
        "the content holds Kimi",
        "the content holds Mistral",
        "the reasoning holds GLM",
    ]


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("text", PROSE)
def test_prose_and_json_that_only_name_a_marker_are_not_reported(wire: str, text: str) -> None:
    turn = read(wire, [text[:9], text[9:]] if text else [], [text] if text else [])
    assert found(turn) == []


@pytest.mark.parametrize("family", list(LEAKS))
def test_a_whole_call_quoted_in_a_code_block_is_reported(family: str) -> None:
    """A model explaining a template and a server leaking it write the same characters: the
    diagnostic says what the text holds, and changes nothing."""
    text = f"The format looks like this:\n```\n{LEAKS[family][1]}\n```\n"
    turn = read("chat", [text])
    assert turn.content == text and len(found(turn)) == 1


def test_markup_beside_calls_the_server_did_read_is_reported() -> None:
    body = wire_bodies.body("chat", [("add", {"a": 1})], text=LEAKS["Hermes/Qwen"][1])
    turn = toolcall.assemble(body)
    assert [c.function.name for c in turn.tool_calls] == ["add"] and len(found(turn)) == 1


def test_the_text_is_searched_once_however_many_pieces_it_came_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    searched: list[int] = []
    search = toolcall._turn.turn.markup_in  # type: ignore[attr-defined]

    def counting(text: str) -> Any:
        searched.append(len(text))
        return search(text)

    monkeypatch.setattr(toolcall._turn.turn, "markup_in", counting)  # type: ignore[attr-defined]
    text = ("word " * 2000) + LEAKS["GLM"][1]
    for size in (len(text), 7, 1):
        searched.clear()
        pieces = [text[i : i + size] for i in range(0, len(text), size)]
        assert len(found(read("chat", pieces, pieces))) == 2
        assert searched == [len(text), len(text)], size


class _Counting:
    """A `follows` pattern that counts the matches tried."""

    def __init__(self, pattern: Any, tried: list[int]) -> None:
        self.pattern, self.tried = pattern, tried

    def match(self, text: str, start: int, end: int) -> Any:
        self.tried.append(end - start)
        return self.pattern.match(text, start, end)


@pytest.mark.parametrize("repeats", [100, 10_000])
def test_markers_without_a_call_cost_one_bounded_match_each(
    monkeypatch: pytest.MonkeyPatch, repeats: int
) -> None:
    tried: list[int] = []
    counted = {
        marker: tuple(
            toolcall._turn.markup.Markup(m.format, m.marker, _Counting(m.follows, tried))  # type: ignore[arg-type]
            for m in markups
        )
        for marker, markups in toolcall._turn.markup._BY_MARKER.items()
    }
    monkeypatch.setattr(toolcall._turn.markup, "_BY_MARKER", counted)
    text = "<tool_call> is a tag. " * repeats + "[TOOL_CALLS] too. " * repeats
    assert toolcall._turn.markup.markup_in(text) == []
    # Three formats open with <tool_call>, one with [TOOL_CALLS]: four tries a repeat, each
    # reading at most the window after its marker.
    assert len(tried) == 4 * repeats and max(tried) <= 256


# -- a turn that ended to run tools and holds none -----------------------------------------------


def claiming(wire: str, text: str) -> bytes:
    """A turn of text only whose finish says it ended to have tools run, on the wires whose
    finish has such a word (chat completions' `tool_calls`, Anthropic's `tool_use`)."""
    items = wire_bodies.events(wire, [], text)
    for item in items:
        if isinstance(item, dict) and wire == "chat" and item["choices"][0]["finish_reason"]:
            item["choices"][0]["finish_reason"] = "tool_calls"
        if isinstance(item, dict) and item.get("type") == "message_delta":
            item["delta"]["stop_reason"] = "tool_use"
    return wire_bodies.frame(wire, items)


@pytest.mark.parametrize(("wire", "word"), [("chat", "tool_calls"), ("anthropic", "tool_use")])
def test_a_finish_for_calls_with_no_call_is_an_error_carrying_the_turn(
    wire: str, word: str
) -> None:
    body = claiming(wire, "Checking the time.")
    with pytest.raises(UnsoundTurnError, match=f"ended with '{word}'.*holds no tool call") as info:
        toolcall.assemble(body)
    assert isinstance(info.value, StreamError)
    turn = info.value.turn
    assert (turn.finish_reason, turn.content, turn.tool_calls) == (word, "Checking the time.", ())


@pytest.mark.parametrize("wire", ["chat", "anthropic"])
def test_the_error_names_the_markup_the_lost_call_went_to(wire: str) -> None:
    """vllm-project/vllm#44326: a call without arguments left as GLM markup, finish `tool_calls`."""
    body = claiming(wire, "<tool_call>get_current_time</tool_call>")
    with pytest.raises(UnsoundTurnError, match="the content holds GLM tool-call markup") as info:
        toolcall.assemble(body)
    assert [d.code for d in info.value.turn.diagnostics] == ["tool_call_in_text"]


@pytest.mark.parametrize("wire", ["chat", "anthropic"])
def test_events_callers_get_the_text_then_the_error(wire: str) -> None:
    body = claiming(wire, "Checking the time.")
    seen: list[Any] = []
    with pytest.raises(UnsoundTurnError):
        for event in toolcall.iter_events([body[:40], body[40:]]):
            seen.append(event)
    assert "".join(e.text for e in seen if isinstance(e, TextDelta)) == "Checking the time."
    builder = TurnBuilder()
    builder.feed(body)
    with pytest.raises(UnsoundTurnError):
        builder.finish()
    with pytest.raises(UsageError, match="UnsoundTurnError"):
        builder.finish()

    async def chunks() -> AsyncIterator[bytes]:
        yield body

    with pytest.raises(UnsoundTurnError):
        asyncio.run(toolcall.assemble_async(chunks()))


@pytest.mark.parametrize("wire", ["responses", "gemini", "ollama"])
def test_wires_whose_finish_says_the_same_word_either_way_claim_no_call(wire: str) -> None:
    turn = toolcall.assemble(wire_bodies.body(wire, [], text="Nothing to call."))
    assert toolcall.finish_kind(turn) == "stop" and turn.diagnostics == ()


@pytest.mark.parametrize("wire", WIRES)
def test_a_turn_that_ends_without_calls_under_its_plain_word_is_sound(wire: str) -> None:
    turn = toolcall.assemble(wire_bodies.body(wire, [], text="Done."))
    assert turn.content == "Done." and turn.tool_calls == ()


# -- names that name no tool ---------------------------------------------------------------------

BAD_NAMES = {
    "query_dataset<|channel|>commentary": "'<|'",  # vllm-project/vllm#32587
    "get_weather<|tool_call_end|>": "'<|'",
    "get_weather<\uff5ctool\u2581sep\uff5c>": "'<\uff5c'",
    "[TOOL_CALLS]get_weather": "'[TOOL_CALLS]'",
    "get_weather</tool_call>": "'</tool_call'",
    "get weather": "whitespace or a control character (' ' at character 3)",
    "get_weather\n": "whitespace or a control character ('\\n' at character 11)",
    "get\u200bweather": "whitespace or a control character ('\\u200b' at character 3)",
}


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("name", list(BAD_NAMES))
def test_a_name_holding_markup_or_whitespace_is_an_error_carrying_the_turn(
    wire: str, name: str
) -> None:
    body = wire_bodies.body(wire, [("add", {"a": 1}), (name, {"b": 2})])
    with pytest.raises(UnsoundTurnError) as info:
        toolcall.assemble(body, wire=wire)
    error = info.value
    assert BAD_NAMES[name] in str(error) and (error.index, error.name) == (1, name)
    assert [
        (c.function.name, a)
        for c, a in zip(error.turn.tool_calls, error.turn.arguments, strict=True)
    ] == [
        ("add", {"a": 1}),
        (name, {"b": 2}),
    ]
    seen: list[Any] = []
    with pytest.raises(UnsoundTurnError):
        for event in toolcall.iter_events([body]):
            seen.append(event)
    assert [e.name for e in seen if isinstance(e, ToolCallStarted)] == ["add", name]


@pytest.mark.parametrize("wire", WIRES)
def test_names_of_any_wire_s_rules_are_accepted(wire: str) -> None:
    names = ["get_weather", "ns.tool:v2", "mcp__files__read-file", "\u5929\u6c14", "a|b"]
    body = wire_bodies.body(wire, [(n, {"i": i}) for i, n in enumerate(names)])
    turn = toolcall.assemble(body, wire=wire)
    assert [c.function.name for c in turn.tool_calls] == names


def test_the_code_is_documented() -> None:
    assert "tool_call_in_text" in toolcall.DIAGNOSTIC_CODES
    assert json.dumps(toolcall.DIAGNOSTIC_CODES)


# -- the suite's judgement -----------------------------------------------------------------------


@pytest.mark.parametrize("family", ["Hermes/Qwen", "DeepSeek"])
def test_the_suite_finds_markup_left_in_a_cell_s_text(family: str) -> None:
    from pathlib import Path

    from toolcall.harness.checks import check_turn
    from toolcall.harness.suite.profiles import load_suite

    suite = load_suite(Path(__file__).resolve().parents[1])
    cell = suite.providers["openai"].cells["text_only"]
    plain = toolcall.assemble(wire_bodies.body("chat", [], text="Paris is sunny."))
    leaked = toolcall.assemble(wire_bodies.body("chat", [], text=LEAKS[family][1]))
    assert [f for f in check_turn(suite, cell, plain) if f.check == "text-markup"] == []
    (finding,) = [f for f in check_turn(suite, cell, leaked) if f.check == "text-markup"]
    assert f"holds {family} tool-call markup" in finding.observed


def test_the_fix_for_markup_in_a_recorded_cell_s_text_is_the_server_s() -> None:
    from pathlib import Path

    from toolcall.harness.checks import Finding, where_to_fix
    from toolcall.harness.suite.profiles import load_suite

    suite = load_suite(Path(__file__).resolve().parents[1])
    provider = suite.providers["openai"]
    finding = Finding("text-markup", "$.diagnostics", "no tool-call markup in the text", "x")
    cells = {c.provenance.get("kind"): c for c in provider.cells.values()}
    for kind, cell in cells.items():
        fix = where_to_fix.for_cell(suite, provider, cell, finding)
        assert ("tool-call parser" in fix) == (kind != "synthesized") and "make " in fix, fix
