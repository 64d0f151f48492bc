"""Bad input gives a typed error that names the call, never a silent merge, drop or crash.

The rules come from DESIGN.md "Rules" ("Bad input ...") and "Blame" (StreamError for the
provider's stream, UsageError for the caller); the evidence for each case is in its docstring.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import toolcall
from toolcall import (
    ArgumentsError,
    Assembler,
    LimitExceeded,
    StreamError,
    ToolCall,
    ToolCallError,
    ToolCallFunction,
    TruncatedError,
    UsageError,
    parse_arguments,
)

# -- helpers ---------------------------------------------------------------------------------


def make_call(
    arguments: str, index: int = 3, id: str = "call_x", name: str = "get_weather"
) -> ToolCall:
    return ToolCall(index, id, "function", ToolCallFunction(name, arguments))


def body(*chunks: dict[str, Any], done: bool = True) -> bytes:
    """Chunks (dicts) -> an SSE body, `data: ` with a space and blank-line separated."""
    text = "".join(f"data: {json.dumps(c, ensure_ascii=False)}\n\n" for c in chunks)
    return (text + ("data: [DONE]\n\n" if done else "")).encode()


def chunk(
    tool_calls: list[dict[str, Any]] | None = None, finish: str | None = None
) -> dict[str, Any]:
    choice: dict[str, Any] = {"index": 0, "delta": {}}
    if tool_calls is not None:
        choice["delta"]["tool_calls"] = tool_calls
    if finish is not None:
        choice["finish_reason"] = finish
    return {"object": "chat.completion.chunk", "choices": [choice]}


def head(
    index: int = 0, id: str = "call_a", name: str = "f", arguments: str = ""
) -> dict[str, Any]:
    return {
        "index": index,
        "id": id,
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }


def frag(index: int, arguments: str) -> dict[str, Any]:
    return {"index": index, "function": {"arguments": arguments}}


# -- parse_arguments -----------------------------------------------------------------------


def test_two_json_values_name_the_merge() -> None:
    """`{}{}` is the signature of merged parallel calls: FACTS §5 lobehub/lobehub#11649, §8
    NousResearch/hermes-agent#62937."""
    with pytest.raises(ArgumentsError) as info:
        parse_arguments(make_call('{"location":"北京"}{"location":"上海"}'))
    assert "two JSON values in one arguments buffer at character 17" in str(info.value)
    assert type(info.value) is ArgumentsError


def test_empty_objects_back_to_back_are_two_json_values() -> None:
    """The minimal merge signature `{}{}` (FACTS §8: calls collapsed to index 0)."""
    with pytest.raises(ArgumentsError, match=r"two JSON values in one arguments buffer at char"):
        parse_arguments(make_call("{}{}"))


def test_calls_merged_on_one_index_by_a_relay_are_flagged_not_silently_accepted() -> None:
    """Two calls sent on index 0 without ids concatenate; the result is an error naming the
    merge, never a silently wrong call (DESIGN.md "Rules"; FACTS §5 lobehub/lobehub#11649)."""
    data = body(
        chunk([{"index": 0, "type": "function", "function": {"name": "f", "arguments": "{}"}}]),
        chunk([{"index": 0, "type": "function", "function": {"name": "f", "arguments": "{}"}}]),
        chunk(finish="tool_calls"),
    )
    with pytest.raises(ArgumentsError, match="were parallel calls merged"):
        toolcall.assemble(data)


def test_invalid_json_names_index_id_and_name() -> None:
    """Errors carry the call's index, id and name so a CI log points at it (DESIGN.md "Blame")."""
    with pytest.raises(ArgumentsError) as info:
        parse_arguments(make_call('{"a": tru}'))
    err = info.value
    assert (err.index, err.call_id, err.name) == (3, "call_x", "get_weather")
    assert str(err).startswith(
        "tool call index 3, id 'call_x', name 'get_weather': arguments are not valid JSON"
    )


def test_arguments_that_stop_mid_value_are_reported_as_incomplete() -> None:
    """A prefix that stops mid-value is never repaired into valid JSON (_turn/validation.py)."""
    with pytest.raises(ArgumentsError, match="arguments end before the JSON is complete"):
        parse_arguments(make_call('{"a": [1, 2'))


@pytest.mark.parametrize(
    ("text", "kind"),
    [("[1]", "list"), ('"x"', "str"), ("1", "int"), ("null", "NoneType"), ("true", "bool")],
)
def test_non_object_json_is_an_arguments_error(text: str, kind: str) -> None:
    """Arguments must be one JSON object (OpenAI function-calling contract, DESIGN.md "Flow")."""
    with pytest.raises(ArgumentsError, match=f"must be a JSON object, got {kind}$"):
        parse_arguments(make_call(text))


@pytest.mark.parametrize("text", ["", "  ", "\n"])
def test_empty_arguments_are_an_empty_object(text: str) -> None:
    """A tool without parameters may get "" as arguments (FACTS §1: head chunk `arguments: ""`)."""
    assert parse_arguments(make_call(text)) == {}


def test_arguments_nested_too_deeply_are_an_arguments_error() -> None:
    """Pathological nesting must not escape as RecursionError (DESIGN.md "Rules": no crash)."""
    with pytest.raises(ArgumentsError, match="nests deeper than"):
        parse_arguments(make_call('{"a":' + "[" * 100_000 + "]" * 100_000 + "}"))


def test_parse_arguments_returns_the_object() -> None:
    """The parsed value is exactly what json.loads gives."""
    assert parse_arguments(make_call('{"a": [1, {"b": null}], "é": 1.5}')) == {
        "a": [1, {"b": None}],
        "é": 1.5,
    }


# -- truncation ----------------------------------------------------------------------------


def test_finish_reason_length_is_a_truncated_error() -> None:
    """`length` means the call was cut off; TruncatedError is kept apart (_errors.py)."""
    data = body(chunk([head(arguments='{"city": "Par')]), chunk(finish="length"))
    with pytest.raises(TruncatedError) as info:
        toolcall.assemble(data)
    assert (info.value.index, info.value.call_id, info.value.name) == (0, "call_a", "f")
    assert "finish_reason is 'length'" in str(info.value)
    assert isinstance(info.value, ArgumentsError)


def test_finish_reason_length_with_valid_arguments_is_still_truncated() -> None:
    """Even a parseable call under `length` may be cut short (a shorter object is still JSON)."""
    data = body(chunk([head(arguments='{"city": "Par"}')]), chunk(finish="length"))
    with pytest.raises(TruncatedError, match="the call may be cut off"):
        toolcall.assemble(data)


def test_stream_ending_without_finish_reason_with_a_call_is_truncated() -> None:
    """A stream that ends mid-call is a typed error (DESIGN.md "Rules"); GLM/xAI/Doubao/Gemini omit
    `finish_reason: null` on intermediate chunks (FACTS §0), so only the end decides."""
    data = body(chunk([head(arguments='{"a":')]), chunk([frag(0, "1}")]), done=False)
    with pytest.raises(TruncatedError) as info:
        toolcall.assemble(data)
    assert str(info.value) == (
        "tool call index 0, id 'call_a', name 'f': the stream ended without a finish_reason: "
        "the call may be cut off"
    )


def test_truncation_points_at_a_named_call_when_the_last_opened_call_has_no_name() -> None:
    """A trailing nameless entry (Qwen-style empty delta, FACTS §5) must not crash the report
    (it raised a bare StopIteration before the fix)."""
    data = body(
        chunk([head(arguments="{}")]),
        chunk([{"index": 1, "id": "", "type": "function"}]),
        done=False,
    )
    with pytest.raises(TruncatedError) as info:
        toolcall.assemble(data)
    assert (info.value.index, info.value.name) == (0, "f")


def test_stream_ending_without_finish_reason_and_without_calls_is_a_stream_error() -> None:
    """No finish_reason and no call: the stream was cut off, but no call is to blame."""
    data = body({"choices": [{"index": 0, "delta": {"content": "Hel"}}]}, done=False)
    with pytest.raises(StreamError) as info:
        toolcall.assemble(data)
    assert type(info.value) is StreamError
    assert str(info.value) == "the stream ended without a finish_reason (cut off?)"


def test_arguments_for_a_call_that_never_got_a_name_are_reported() -> None:
    """No fragment disappears without a word (DESIGN.md "Rules": never a silent drop)."""
    data = body(chunk([frag(0, '{"a":1}')]), chunk(finish="tool_calls"))
    with pytest.raises(StreamError, match="arrived for a call that never got a name"):
        toolcall.assemble(data)


# -- the delta's fields --------------------------------------------------------------------


@pytest.mark.parametrize("index", [-1, "-1", -(2**40)])
def test_negative_index_is_a_stream_error(index: Any) -> None:
    """Negative indices are bad input from the provider (DESIGN.md "Rules")."""
    a = Assembler()
    with pytest.raises(StreamError, match="index must not be negative"):
        a.feed({"index": index, "id": "c", "function": {"name": "f"}})
    assert a.pending() == 0


@pytest.mark.parametrize("index", [1.0, True, [0], {"i": 0}, "one", "²", "1" * 5000, "+1"])
def test_non_integer_index_is_a_stream_error(index: Any) -> None:
    """Only integers and ASCII numeric strings are indices; "²" and a 5000-digit string once
    escaped as ValueError (DESIGN.md "Rules": typed error, never a crash)."""
    with pytest.raises(StreamError, match="index must be an integer"):
        Assembler().feed({"index": index, "function": {"name": "f"}})


def test_huge_index_is_accepted_without_allocating_per_index() -> None:
    """Memory stays proportional to the data, whatever the indices claim (DESIGN.md "Rules")."""
    a = Assembler()
    a.feed({"index": 2**31, "id": "c", "function": {"name": "f", "arguments": "{}"}})
    a.feed({"index": 2**62, "id": "d", "function": {"name": "g", "arguments": "{}"}})
    assert a.pending() == 2
    assert [(c.index, c.id) for c in a.complete()] == [(2**31, "c"), (2**62, "d")]


def test_max_calls_is_enforced() -> None:
    """LimitExceeded when a stream opens more calls than allowed (DESIGN.md "Rules": memory)."""
    a = Assembler(max_calls=2)
    a.feed({"index": 0, "function": {"name": "a"}})
    a.feed({"index": 1, "function": {"name": "b"}})
    with pytest.raises(LimitExceeded, match="more than 2 tool calls in one turn"):
        a.feed({"index": 2, "function": {"name": "c"}})
    assert a.pending() == 2


def test_max_calls_through_assemble() -> None:
    """The limit is an option of assemble() too."""
    data = body(chunk([head(0, "a"), head(1, "b")]), chunk(finish="tool_calls"))
    with pytest.raises(LimitExceeded):
        toolcall.assemble(data, max_calls=1)


def test_max_argument_chars_is_enforced_across_calls() -> None:
    """Total argument text is bounded (DESIGN.md "Rules": memory proportional, bounded)."""
    a = Assembler(max_argument_chars=10)
    a.feed({"index": 0, "id": "a", "function": {"name": "a", "arguments": '{"x":1}'}})
    with pytest.raises(LimitExceeded, match="exceed 10 characters") as info:
        a.feed({"index": 1, "id": "b", "function": {"name": "b", "arguments": '{"y":2}'}})
    assert (info.value.index, info.value.call_id, info.value.name) == (1, "b", "b")


@pytest.mark.parametrize(("max_calls", "max_chars"), [(0, 10), (1, 0), (-1, 5)])
def test_non_positive_limits_are_a_usage_error(max_calls: int, max_chars: int) -> None:
    """A bad limit is the caller's mistake (DESIGN.md "Blame": UsageError)."""
    with pytest.raises(UsageError):
        Assembler(max_calls=max_calls, max_argument_chars=max_chars)


@pytest.mark.parametrize("name", [123, ["f"], {"n": "f"}, True])
def test_non_string_name_is_a_stream_error(name: Any) -> None:
    """A non-string name is bad provider input (DESIGN.md "Rules")."""
    with pytest.raises(StreamError, match=r"function\.name must be a string"):
        Assembler().feed({"index": 0, "id": "c", "function": {"name": name}})


@pytest.mark.parametrize("value", [0, False, [], {}])
def test_falsy_non_string_name_or_id_on_a_later_fragment_is_a_stream_error(value: Any) -> None:
    """The fast path for arguments fragments once let `name: 0` or `id: false` through silently,
    while the same delta on a new call raised: the check must not depend on the path."""
    for key, pattern in (("name", r"function\.name must be a string"), ("id", "id must be")):
        a = Assembler()
        a.feed({"index": 0, "id": "c", "function": {"name": "f"}})
        later: dict[str, Any] = {"index": 0, "function": {"arguments": "{}"}}
        if key == "name":
            later["function"]["name"] = value
        else:
            later["id"] = value
        with pytest.raises(StreamError, match=pattern):
            a.feed(later)


@pytest.mark.parametrize("arguments", [1, 1.5, True])
def test_non_string_non_object_arguments_are_a_stream_error(arguments: Any) -> None:
    """Arguments are text (or, tolerated, a JSON object); a number is bad input.

    DESIGN.md "Rules"."""
    with pytest.raises(StreamError, match=r"function\.arguments must be a string"):
        Assembler().feed({"index": 0, "function": {"name": "f", "arguments": arguments}})


def test_unserialisable_object_arguments_are_a_stream_error() -> None:
    """Object arguments that json.dumps cannot write once escaped as TypeError (_errors.py:
    never a bare TypeError)."""
    with pytest.raises(StreamError, match="cannot be serialised as JSON"):
        Assembler().feed({"index": 0, "function": {"name": "f", "arguments": {"s": {1, 2}}}})


@pytest.mark.parametrize("function", ["f", 1, ["f"]])
def test_function_that_is_not_an_object_is_a_stream_error(function: Any) -> None:
    """`function` must be an object (DESIGN.md "Rules" bad input)."""
    with pytest.raises(StreamError, match="function must be an object"):
        Assembler().feed({"index": 0, "function": function})


def test_every_error_is_a_toolcall_error() -> None:
    """One base class for everything the library raises (_errors.py)."""
    for cls in (ArgumentsError, LimitExceeded, StreamError, TruncatedError, UsageError):
        assert issubclass(cls, ToolCallError)
    assert issubclass(TruncatedError, ArgumentsError)
    assert issubclass(ArgumentsError, StreamError)
    assert not issubclass(UsageError, StreamError)


def test_an_error_names_the_call_and_carries_nothing_of_the_harness() -> None:
    """The library knows the call, not the cassette: the harness says where a stream came from
    in its own findings, so a library error has no provider or source field to leave empty."""
    err = ArgumentsError("bad", index=1, call_id="c", name="f")
    assert str(err) == "tool call index 1, id 'c', name 'f': bad"
    assert not hasattr(err, "provider") and not hasattr(err, "source")
