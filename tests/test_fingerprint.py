"""The fingerprint and the structure outline, on small streams written out by hand.

Each test builds the chunks a provider would send and checks one rule of the vocabulary in
`providers.schema.json` (`$defs/quirk_values`), including where a stream cannot tell.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolcall.harness.checks import structure
from toolcall.harness.matrix.verdict import judge
from toolcall.harness.peers import Assembled, Call
from toolcall.harness.reading import walk, wires
from toolcall.harness.suite import fingerprint
from toolcall.harness.suite.case import expected_from_file


def body(*chunks: dict[str, Any], done: bool = True, comment: bool = False) -> bytes:
    text = ": keep-alive\n\n" if comment else ""
    text += "".join(f"data: {json.dumps(c)}\n\n" for c in chunks)
    return (text + ("data: [DONE]\n\n" if done else "")).encode()


def chunk(delta: dict[str, Any] | None = None, finish: str | None = None, **extra: Any) -> Any:
    choice: dict[str, Any] = {"index": 0, "delta": delta or {}}
    if finish is not None or extra.pop("null_finish", False):
        choice["finish_reason"] = finish
    return {"id": "c", "choices": [choice], **extra}


def call(**fields: Any) -> dict[str, Any]:
    return {"tool_calls": [fields]}


def observe(raw: bytes) -> dict[str, Any]:
    return fingerprint.observe(raw).quirks


HEAD = call(index=0, id="call_1", type="function", function={"name": "f", "arguments": ""})


def test_vocabulary_is_read_from_the_schema() -> None:
    assert fingerprint.QUIRKS["usage"][0] == (
        "usage_chunk",
        "finish_chunk",
        "after_finish",
        "in_choice",
        "every_chunk",
        "none",
    )
    assert fingerprint.QUIRKS["done"][0] == (True, False)
    assert fingerprint.ORDER[0] == "arguments"


def test_incremental_whole_and_cannot_tell() -> None:
    incremental = body(
        chunk(HEAD, null_finish=True),
        chunk(call(index=0, function={"arguments": '{"a":'})),
        chunk(call(index=0, function={"arguments": "1}"})),
        chunk(finish="tool_calls"),
    )
    assert observe(incremental)["arguments"] == "incremental"
    whole = body(
        chunk(call(index=0, id="x", function={"name": "f", "arguments": '{"a":1}'})),
        chunk(finish="tool_calls"),
    )
    assert observe(whole)["arguments"] == "whole"
    empty_object = body(
        chunk(HEAD), chunk(call(index=0, function={"arguments": "{}"})), chunk(finish="tool_calls")
    )
    assert observe(empty_object)["arguments"] is None  # one `{}` fragment shows neither


def test_later_delta_vocabulary() -> None:
    raw = body(
        chunk(HEAD),
        chunk(call(index=0, id="", type="function", function={"name": "", "arguments": "{}"})),
        chunk(call(index=0, id="", function={"arguments": ""})),
        chunk(finish="tool_calls"),
    )
    quirks = observe(raw)
    assert quirks["later_id"] == "empty"
    assert quirks["later_name"] == "mixed"  # "" once, absent once
    assert quirks["later_type"] == "repeated"
    assert quirks["trailing_empty_delta"] is True


def test_calls_are_told_apart_by_id_when_the_index_disagrees() -> None:
    """Vertex numbers its first call 1 and its second 0; the id says which is which."""
    raw = body(
        chunk(call(index=1, id="A", function={"name": "f", "arguments": '{"x":'})),
        chunk(call(index=0, id="B", function={"name": "g", "arguments": '{"y":'})),
        chunk(call(index=0, id="A", function={"name": "f", "arguments": "1}"})),
        chunk(call(index=1, id="B", function={"name": "g", "arguments": "2}"})),
        chunk(finish="tool_calls"),
    )
    observed = fingerprint.observe(raw)
    assert observed.ids == ["A", "B"]
    assert observed.quirks["later_id"] == "repeated"
    assert observed.quirks["later_name"] == "repeated"
    assert observed.quirks["calls_per_chunk"] == "one"


def test_finish_and_usage_placement() -> None:
    repeated = body(
        chunk(call(index=0, id="a", function={"name": "f", "arguments": '{"a":1}'}), "tool_calls"),
        chunk(call(index=1, id="b", function={"name": "g", "arguments": '{"b":1}'}), "tool_calls"),
    )
    quirks = observe(repeated)
    assert quirks["finish_reason_repeated"] is True
    assert quirks["finish_with_last_delta"] is True
    after = body(
        chunk(HEAD, usage=None),
        chunk(call(index=0, function={"arguments": '{"a":1}'})),
        chunk(finish="tool_calls"),
        chunk(usage={"total_tokens": 3}),
    )
    assert observe(after)["usage"] == "after_finish"
    assert observe(after)["usage_null"] == "mixed"
    usage_chunk = body(chunk(HEAD), {"id": "c", "choices": [], "usage": {"total_tokens": 3}})
    assert observe(usage_chunk)["usage"] == "usage_chunk"


def test_envelope_vocabulary() -> None:
    raw = body(
        chunk({"role": "assistant", "content": None, "tool_calls": None}, null_finish=True),
        chunk({"content": "", "tool_calls": []}, null_finish=True),
        chunk(finish="stop"),
        comment=True,
        done=False,
    )
    quirks = observe(raw)
    assert quirks["empty_tool_calls"] == "mixed"
    assert quirks["content_placeholder"] == "mixed"
    assert quirks["role"] == "first"
    assert quirks["finish_reason_null"] is True
    assert quirks["sse_comments"] is True
    assert quirks["done"] is False
    assert quirks["finish_reason"] is None  # a turn without calls cannot show it


def test_compare_skips_what_a_stream_cannot_tell() -> None:
    raw = body(chunk({"content": "hi"}), chunk(finish="stop"))
    observed = fingerprint.observe(raw)
    assert fingerprint.compare({"arguments": "whole", "done": False}, observed) == [
        ("done", False, True)
    ]
    assert fingerprint.shows(observed, "arguments", "whole") is None
    assert fingerprint.shown(None) == "cannot tell"


def test_unreadable_stream_is_a_typed_error() -> None:
    with pytest.raises(wires.UnreadableBody, match="event 0 of the chat body, at byte offset 0"):
        walk.read(b"data: {nope\n\n")


def test_outline_masks_values_and_keeps_structure() -> None:
    one = body(chunk({"content": "hello"}, id="x1", created=1), chunk(finish="stop"))
    other = body(
        chunk({"content": "bye"}, id="x2", created=2),
        chunk({"content": "again"}, id="x2", created=2),
        chunk(finish="stop"),
    )
    assert structure.outline(one) == structure.outline(other)  # runs count once
    moved = body(chunk({"content": None}, id="x1", created=1), chunk(finish="stop"))
    lines = structure.differences(structure.outline(one), structure.outline(moved))
    assert lines == ["run 0: $.choices[0].delta.content: recorded '<str>', synthesized None"]
    reordered = body({"created": 1, "id": "x", "choices": [{"index": 0, "delta": {}}]})
    plain = body({"id": "x", "created": 1, "choices": [{"index": 0, "delta": {}}]})
    (line,) = structure.differences(structure.outline(plain), structure.outline(reordered))
    assert "keys in order ['id', 'created', 'choices']" in line


def test_error_expectations_are_judged() -> None:
    expected = expected_from_file({"error": {"kind": "malformed", "why": "not JSON at all"}})
    accepted = judge(expected, Assembled(calls=(Call("a", "f", "{}"),)))
    assert accepted.label == "error not reported"
    assert judge(expected, Assembled(error="bad stream")).passed
    cut = expected_from_file({"error": {"kind": "truncated", "why": "finish_reason length"}})
    assert judge(cut, Assembled(calls=(Call("a", "f", '{"a":'),))).label == (
        "truncated arguments passed as valid"
    )


def test_a_stream_with_both_reasoning_fields_gets_a_value_of_the_vocabulary() -> None:
    both_in_one = body(
        chunk({"reasoning_content": "think", "reasoning": "think"}), chunk(finish="stop")
    )
    across = body(
        chunk({"reasoning_content": "a"}), chunk({"reasoning": "b"}), chunk(finish="stop")
    )
    one = body(chunk({"reasoning": "b"}), chunk(finish="stop"))
    allowed, _meaning = fingerprint.QUIRKS["reasoning_field"]
    assert observe(both_in_one)["reasoning_field"] == "mixed"
    assert observe(across)["reasoning_field"] == "mixed"
    assert observe(one)["reasoning_field"] == "reasoning"
    assert "mixed" in allowed
