"""The README's openai SDK example, run as written against `toolcall serve`, and the hint a user
gets for feeding the SDK's whole delta instead of its tool calls."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import toolcall
from toolcall.harness import serving
from toolcall.harness.suite.profiles import load_suite

openai = pytest.importorskip("openai")
ROOT = Path(__file__).resolve().parents[1]


def sdk_example() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("### With the openai SDK", 1)[1]
    block = re.search(r"```python\n(.+?)```", section, re.DOTALL)
    assert block is not None, "the README's openai SDK example moved"
    return block.group(1)


def test_the_readme_sdk_example_assembles_both_ways() -> None:
    suite = load_suite(ROOT)
    scenario = suite.scenarios["parallel_calls"]
    with serving.serving(suite) as running:
        namespace: dict[str, Any] = {
            "base_url": running.url("qwen"),
            "api_key": "not-a-key",
            "request": {"model": "qwen3-max", **scenario.request},
        }
        exec(compile(sdk_example(), "README.md", "exec"), namespace)
    turn, calls = namespace["turn"], namespace["calls"]
    cities = sorted(arguments["city"] for arguments in turn.arguments)
    assert cities == ["Paris", "Tokyo"]
    assert [c.to_dict() for c in calls] == [c.to_dict() for c in turn.tool_calls]


def test_feeding_the_sdks_whole_delta_says_to_feed_each_tool_call() -> None:
    from openai.types.chat.chat_completion_chunk import (
        ChatCompletionChunk,
        ChoiceDelta,
        ChoiceDeltaToolCall,
        ChoiceDeltaToolCallFunction,
    )

    call = ChoiceDeltaToolCall(
        index=0, id="call_1", function=ChoiceDeltaToolCallFunction(name="f", arguments="{}")
    )
    delta = ChoiceDelta(role="assistant", tool_calls=[call])
    chunk = ChatCompletionChunk.construct(choices=[], id="x", object="chat.completion.chunk")
    for whole, given in ((delta, "a whole message delta (ChoiceDelta)"), (chunk, "a whole chunk")):
        with pytest.raises(toolcall.UsageError) as info:
            toolcall.Assembler().feed(whole)
        assert given in str(info.value)
        assert "feed each element of chunk.choices[0].delta.tool_calls" in str(info.value)
    as_dict = {"role": "assistant", "tool_calls": [call.model_dump()]}
    with pytest.raises(toolcall.UsageError, match="not a whole message delta \\(a dict\\)"):
        toolcall.Assembler().feed(as_dict)  # was taken as an empty delta: the calls were lost
    assembler = toolcall.Assembler()
    assembler.feed(call)
    assert [c.function.name for c in assembler.complete()] == ["f"]
