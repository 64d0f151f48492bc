"""Hostile and odd input (issue 10): one answer per input, only the library's errors, bounded cost.

Each test is a probe that failed before the fix; the fuzzer (test_fuzz.py) covers the space
around them. Bodies are small and hand-made so that a failure names exactly one gap.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tracemalloc
from typing import Any

import pytest

import toolcall
from tests.helpers.outcomes import BACKENDS, chunk, fragment, head, outcome, sse
from toolcall import (
    ArgumentsError,
    Assembler,
    LimitExceeded,
    ProviderError,
    SSEDecoder,
    StreamError,
    ToolCallError,
    TruncatedError,
    TurnBuilder,
    UsageError,
)
from toolcall._json import MAX_DEPTH, backend

FINISH = chunk(finish="tool_calls")


def one_call(arguments: str) -> bytes:
    """A turn with one call whose arguments are exactly `arguments`."""
    return sse(chunk(head(arguments=arguments)), FINISH)


# -- only the library's errors ----------------------------------------------------------------


@pytest.mark.parametrize("json_backend", BACKENDS)
def test_an_integer_past_pythons_digit_limit_in_arguments_is_an_arguments_error(
    json_backend: str,
) -> None:
    """A model asked for 2000! writes 5,736 digits; int() refuses past 4,300 with a ValueError."""
    body = one_call('{"n": ' + "9" * 4301 + "}")
    with pytest.raises(ArgumentsError, match="4300") as info:
        toolcall.assemble(body, json_backend=json_backend)
    assert (info.value.index, info.value.call_id, info.value.name) == (0, "call_a", "f")


@pytest.mark.parametrize("json_backend", BACKENDS)
@pytest.mark.parametrize(
    "where",
    [
        lambda deep: chunk({"index": deep, "id": "c", "function": {"name": "f"}}),
        lambda deep: chunk({**head(), "extra_content": {"a": deep}}),
        lambda deep: {"error": {"message": deep}},
        lambda deep: chunk(finish=deep),
        lambda deep: {**chunk(), "ignored": deep},
    ],
    ids=["index", "extra_content", "error-message", "finish_reason", "ignored-key"],
)
def test_a_value_nested_a_thousand_deep_is_a_stream_error_on_both_backends(
    json_backend: str, where: Any
) -> None:
    """orjson decodes 1,000 levels; `repr` in a message or the extra_content merge recursed."""
    payload = json.dumps(where("[]")).replace('"[]"', "[" * 1000 + "]" * 1000)
    answers = {outcome(sse(payload, FINISH), backend=b) for b in BACKENDS}
    assert len(answers) == 1
    ((kind, message),) = answers
    assert kind == "StreamError"
    assert f"nests deeper than {MAX_DEPTH} levels" in message


def test_formatting_and_merging_a_deep_value_fed_directly_are_depth_safe() -> None:
    """The caller's own dicts never went through a decoder's depth limit."""
    deep: Any = {}
    for _ in range(50_000):
        deep = {"a": deep}
    assembler = Assembler()
    assembler.feed({**head(), "extra_content": deep})
    assembler.feed({"index": 0, "extra_content": deep})
    assert assembler.complete()[0].extra_content is not None
    with pytest.raises(StreamError, match="index must be an integer"):
        assembler.feed({"index": [deep], "function": {"name": "g"}})
    with pytest.raises(StreamError, match="extra_content must be an object"):
        assembler.feed({"index": 0, "extra_content": [deep]})


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: toolcall.assemble(None), "assemble\\(\\) takes bytes"),  # type: ignore[arg-type]
        (lambda: toolcall.assemble(b"", max_calls="5"), "max_calls must be"),
        (lambda: toolcall.assemble(b"", max_calls=float("nan")), "max_calls must be"),
        (lambda: toolcall.assemble(b"", max_argument_chars=2.5), "max_argument_chars must be"),
        (lambda: toolcall.assemble(b"", max_calls=True), "max_calls must be"),
        (lambda: Assembler(max_calls="5"), "max_calls must be"),  # type: ignore[arg-type]
        (lambda: SSEDecoder(max_event_chars=0), "max_event_chars must be"),
        (lambda: TurnBuilder().feed(None), "feed\\(\\) takes bytes"),  # type: ignore[arg-type]
        (
            lambda: asyncio.run(toolcall.assemble_async([b"data: {}\n\n"])),  # type: ignore[arg-type]
            "assemble_async\\(\\) takes an async iterable",
        ),
    ],
    ids=[
        "assemble-None",
        "max_calls-str",
        "max_calls-nan",
        "max_argument_chars-float",
        "max_calls-bool",
        "assembler-max_calls-str",
        "max_event_chars-zero",
        "feed-None",
        "assemble_async-list",
    ],
)
def test_caller_mistakes_are_usage_errors(call: Any, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        call()


def test_a_non_contiguous_memoryview_is_read_as_the_bytes_it_shows() -> None:
    """Any bytes-like object is a body; a strided view is the bytes in its logical order."""
    body = sse(chunk(head(arguments='{"a": 1}')), FINISH)
    spaced = bytearray(len(body) * 2)
    spaced[::2] = body
    view = memoryview(spaced)[::2]
    assert not view.contiguous
    expected = toolcall.assemble(body).to_dict()
    assert toolcall.assemble(view).to_dict() == expected
    builder = TurnBuilder()
    builder.feed(view)
    assert builder.finish()[-1].turn.to_dict() == expected  # type: ignore[union-attr]
    assert toolcall.assemble([view[:10], bytearray(view[10:])]).to_dict() == expected


# -- one answer per input, whatever is installed and however it is split -------------------


def learned_then(payload_fragment: str) -> bytes:
    """A call whose fragments the fast path has learned, then one fragment written raw."""
    fragments = [chunk(fragment(piece)) for piece in ('{"a', '": "', "x")]
    raw = json.dumps(chunk(fragment("PLACEHOLDER"))).replace("PLACEHOLDER", payload_fragment)
    return sse(chunk(head()), *fragments, raw, chunk(fragment('"}')), FINISH)


@pytest.mark.parametrize("escape", ["\\ud800", "\\uDFFF", "\\ude00x", "x\\ud83d"])
def test_a_lone_surrogate_is_refused_on_both_backends_and_both_paths(escape: str) -> None:
    """The stdlib string scanner accepts `\\ud800` and orjson refuses it: now both refuse."""
    body = learned_then(escape)
    answers = {outcome(body, backend=b, fast=t) for b in BACKENDS for t in (True, False)}
    assert len(answers) == 1
    ((kind, message),) = answers
    assert kind == "StreamError"
    assert "lone surrogate" in message


def test_a_surrogate_pair_is_one_character_on_both_backends() -> None:
    body = learned_then("\\ud83d\\ude00")
    answers = {outcome(body, backend=b, fast=t) for b in BACKENDS for t in (True, False)}
    assert len(answers) == 1
    ((kind, turn),) = answers
    assert kind == "turn"
    assert json.loads(turn)["arguments"] == [{"a": "x\U0001f600"}]


ODD_NUMBERS = [
    "NaN",
    "-Infinity",
    "Infinity",
    "1e400",
    "-1e400",
    "1" + "0" * 400,
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775808",
    "-9223372036854775809",
    "123456789012345678901234567890",
    "1e-400",
    "-0",
    "-0.0",
    "9" * 4301,
]


@pytest.mark.parametrize("number", ODD_NUMBERS)
@pytest.mark.parametrize(
    "place",
    ['{"id":"c","choices":[],"usage":{"total_tokens":%s}}', '{"id":"c","created":%s,"choices":[]}'],
    ids=["usage", "ignored"],
)
def test_odd_numbers_in_the_envelope_give_one_answer(number: str, place: str) -> None:
    """NaN, Infinity, 1e400 and integers past 64 bits: orjson and the stdlib disagreed on each."""
    body = sse(chunk(head(arguments="{}")), place % number, FINISH)
    answers = {outcome(body, backend=b) for b in BACKENDS}
    assert len(answers) == 1, answers


@pytest.mark.parametrize("number", ["18446744073709551616", "-9223372036854775809"])
def test_an_index_past_64_bits_gives_one_answer(number: str) -> None:
    payload = json.dumps(chunk(head(index=7))).replace('"index": 7', f'"index": {number}')
    answers = {outcome(sse(payload, FINISH), backend=b) for b in BACKENDS}
    assert len(answers) == 1, answers
    ((kind, _),) = answers
    assert kind == "StreamError"


@pytest.mark.parametrize("depth", [MAX_DEPTH - 8, MAX_DEPTH - 7, 500, 1023, 1024, 1025, 5000])
def test_deep_nesting_gives_one_answer(depth: int) -> None:
    """The envelope has 7 levels above `extra_content`'s value; orjson stops at 1,024."""
    payload = json.dumps(chunk({**head(), "extra_content": {"a": "X"}}))
    payload = payload.replace('"X"', "[" * depth + "]" * depth)
    answers = {outcome(sse(payload, FINISH), backend=b) for b in BACKENDS}
    assert len(answers) == 1, answers
    ((kind, _),) = answers
    assert kind == ("turn" if depth + 7 <= MAX_DEPTH else "StreamError")


def decoded(json_backend: str, text: str) -> tuple[str, str]:
    """What a backend makes of one payload: its value as JSON text, or the error and message."""
    try:
        return "value", json.dumps(backend(json_backend)(text))
    except ValueError as exc:
        return type(exc).__name__, str(exc)


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        ("NaN", True),
        ("[NaN]", True),
        ("1e400", True),
        ("[-1e999]", True),
        ("1" + "0" * 400, True),
        ('"\\ud800"', True),
        ("[" * 2000 + "]" * 2000, True),
        ("[" * 129 + "]" * 129, True),
        ("[" * 128 + "]" * 128, False),
        ("01", True),
        ("1.", True),
        ('"\x00"', True),
        ("\u00a0{}", True),
        (" 1", False),
        ("1 ", False),
        ('{"a":1,"a":2}', False),
        ("18446744073709551616", False),
        ('"\\ud83d\\ude00"', False),
    ],
)
def test_both_backends_decode_to_the_same_value_or_the_same_error(text: str, refused: bool) -> None:
    answer = decoded("stdlib", text)
    assert decoded("orjson", text) == answer
    assert (answer[0] != "value") == refused, answer


def test_errors_come_in_stream_order_whatever_the_split() -> None:
    """Invalid UTF-8 after the provider's error event: the error event is read first."""
    error = {"error": {"message": "overloaded", "type": "server_error"}}
    body = sse(chunk(head()), error, done=False) + b"data: \xff\n\n"
    for pieces in ([body], [body[: body.index(b"\xff")], body[body.index(b"\xff") :]]):
        with pytest.raises(ProviderError, match="overloaded"):
            toolcall.assemble(pieces)
    decoder = SSEDecoder()
    payloads = decoder.feed(body)
    assert len(payloads) == 2
    with pytest.raises(StreamError, match="not valid UTF-8 at byte offset"):
        decoder.feed(b"")


def test_an_oversized_event_is_reported_after_the_events_before_it() -> None:
    error = {"error": {"message": "overloaded"}}
    body = sse(error, chunk(content="x" * 500), done=False)
    for size in (1, 7, len(body)):
        pieces = [body[i : i + size] for i in range(0, len(body), size)]
        with pytest.raises(ProviderError):
            outcome_raising(pieces, max_event_chars=200)


def outcome_raising(pieces: list[bytes], **limits: int) -> None:
    builder = TurnBuilder(**limits)
    for piece in pieces:
        builder.feed(piece)
    builder.finish()


# -- never a finished call that is not one ---------------------------------------------------


@pytest.mark.parametrize("space", ["\u00a0", "\x1c", "\u3000", "\u2028", " \u00a0 "])
def test_arguments_of_non_json_whitespace_are_not_an_empty_object(space: str) -> None:
    """JSON has four whitespace characters; `str.strip` knows twenty-five."""
    with pytest.raises(ArgumentsError, match="not valid JSON") as info:
        toolcall.assemble(one_call(space))
    assert info.value.name == "f"


@pytest.mark.parametrize("space", ["", " ", "\t\r\n "])
def test_arguments_of_json_whitespace_are_a_call_without_parameters(space: str) -> None:
    assert toolcall.assemble(one_call(space)).arguments == ({},)


@pytest.mark.parametrize(
    "arguments", ['{"x": NaN}', '{"x": Infinity}', '{"x": [-Infinity]}', '{"x": 1e400}']
)
def test_nan_and_infinity_in_arguments_are_not_json(arguments: str) -> None:
    """RFC 8259 has no NaN or Infinity; a tool written in another language would choke."""
    with pytest.raises(ArgumentsError) as info:
        toolcall.assemble(one_call(arguments))
    assert (info.value.index, info.value.call_id, info.value.name) == (0, "call_a", "f")


def test_a_lone_surrogate_written_inside_the_arguments_is_refused() -> None:
    with pytest.raises(ArgumentsError, match="lone surrogate"):
        toolcall.assemble(one_call('{"x": "\\ud800"}'))


@pytest.mark.parametrize(
    ("reasons", "error"),
    [
        (["length", "stop"], TruncatedError),
        (["length", "tool_calls"], TruncatedError),
        (["content_filter"], TruncatedError),
        (["tool_calls", "content_filter"], TruncatedError),
        (["tool_calls", "stop"], StreamError),
    ],
)
def test_conflicting_or_filtered_finish_reasons_with_calls_are_not_a_clean_finish(
    reasons: list[str], error: type[ToolCallError]
) -> None:
    """finish_reason was last-wins: "length" then "stop" passed the cut call."""
    finishes = [chunk(finish=reason) for reason in reasons]
    with pytest.raises(error, match="|".join(reasons)) as info:
        toolcall.assemble(sse(chunk(head(arguments='{"a": 1}')), *finishes))
    assert (info.value.index, info.value.call_id, info.value.name) == (0, "call_a", "f")


def test_conflicting_finish_reasons_without_calls_are_a_stream_error() -> None:
    with pytest.raises(StreamError, match="conflicting finish reasons"):
        toolcall.assemble(sse(chunk(content="hi"), chunk(finish="length"), chunk(finish="stop")))


def test_the_same_finish_reason_repeated_is_one_finish() -> None:
    """GLM-4.5 puts finish_reason "tool_calls" on every whole-call chunk (published recording)."""
    body = sse(
        chunk(head(arguments='{"a": 1}'), finish="tool_calls"),
        chunk(head(1, "call_b", "g", "{}"), finish="tool_calls"),
        chunk(content="", finish="tool_calls"),
    )
    turn = toolcall.assemble(body)
    assert [c.function.name for c in turn.tool_calls] == ["f", "g"]
    assert turn.finish_reason == "tool_calls"


def test_a_second_generation_after_the_finish_does_not_become_extra_calls() -> None:
    """A relay (a model served by Cerebras) sent the whole generation twice in one body."""
    usage = {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}

    def generation(chunk_id: str, call_id: str) -> list[dict[str, Any]]:
        return [
            chunk(head(call_id=call_id), chunk_id=chunk_id),
            chunk(fragment('{"city": "Paris"}'), chunk_id=chunk_id),
            chunk(finish="tool_calls", chunk_id=chunk_id),
            {"id": chunk_id, "choices": [], "usage": usage},
        ]

    body = sse(*generation("gen-1", "call_1"), *generation("gen-2", "call_2"))
    for json_backend in BACKENDS:
        turn = toolcall.assemble(body, json_backend=json_backend)
        assert [c.id for c in turn.tool_calls] == ["call_1"]
        assert turn.arguments == ({"city": "Paris"},)
        assert turn.usage == usage
        (second,) = [d for d in turn.diagnostics if d.code == "second_generation"]
        assert "gen-2" in second.message


# -- bounded cost ----------------------------------------------------------------------------


# Time is measured in `make bench` (its "growth" rows feed these two shapes at two sizes), never
# asserted here; these tests hold the answers the linear paths must still give at scale.


@pytest.mark.slow
def test_many_one_key_extra_content_deltas_merge_into_one_object() -> None:
    """40,000 one-key deltas took 4.7 s when every delta copied the whole object."""
    deltas = [chunk({"index": 0, "extra_content": {f"k{i}": i}}) for i in range(40_000)]
    (call,) = toolcall.assemble(sse(chunk(head(arguments="{}")), *deltas, FINISH)).tool_calls
    assert call.extra_content == {f"k{i}": i for i in range(40_000)}


def test_a_name_in_many_fragments_is_joined_whole() -> None:
    """800,000 name fragments took 30 s with `+=`; the name is now a list of fragments."""
    assembler = Assembler()
    assembler.feed(head(arguments=""))
    for _ in range(400_000):
        assembler.feed({"index": 0, "function": {"name": "a"}})
    assembler.feed(fragment("{}"))
    (call,) = assembler.complete()
    assert call.function.name == "f" + "a" * 400_000


@pytest.mark.parametrize(
    ("delta", "what"),
    [
        ({"content": "x" * 300}, "content"),
        ({"reasoning_content": "x" * 300}, "reasoning"),
        ({"tool_calls": [{"index": 0, "function": {"name": "n" * 300}}]}, "names"),
        ({"tool_calls": [{"index": 0, "extra_content": {"k": "v" * 300}}]}, "extra_content"),
        ({"tool_calls": [{"index": 1, "id": "i" * 1100}]}, "ids"),
    ],
)
def test_every_accumulated_field_has_a_limit(delta: dict[str, Any], what: str) -> None:
    """Name, extra_content, content and reasoning had no limit at all."""
    body = sse(chunk(head(arguments="")), *[chunk(**delta)] * 4, chunk(fragment("{}")), FINISH)
    with pytest.raises(LimitExceeded, match=f"exceeds 1000 characters .* at {what}:"):
        toolcall.assemble(body, max_text_chars=1000)
    toolcall.assemble(body, max_text_chars=10_000)


def test_one_event_is_bounded_before_it_is_buffered_whole() -> None:
    """One 200 MB event with max_argument_chars=1000 grew memory by 586 MB before LimitExceeded."""
    event = json.dumps(chunk(head(arguments="x" * 20_000_000)))
    body = f"data: {event}\n\n".encode()
    tracemalloc.start()
    try:
        builder = TurnBuilder(max_event_chars=100_000)
        with pytest.raises(LimitExceeded, match="longer than 100000 characters"):
            for start in range(0, len(body), 65_536):
                builder.feed(body[start : start + 65_536])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000


def test_keep_alive_comments_are_counted_not_all_kept() -> None:
    body = b": keep-alive\n\n" * 100_000 + sse(chunk(content="hi"), chunk(finish="stop"))
    decoder = SSEDecoder()
    decoder.feed(body)
    assert decoder.comment_count == 100_000
    assert len(decoder.comments) <= 1000
    (diagnostic,) = [d for d in toolcall.assemble(body).diagnostics if d.code == "sse_comment"]
    assert "100000" in diagnostic.message


# -- a state machine -------------------------------------------------------------------------


def test_feeding_or_finishing_after_finish_is_a_usage_error() -> None:
    builder = TurnBuilder()
    builder.feed(one_call("{}"))
    builder.finish()
    with pytest.raises(UsageError, match="feed\\(\\) after finish\\(\\) returned the turn"):
        builder.feed(one_call("{}"))
    with pytest.raises(UsageError, match="finish\\(\\) after finish\\(\\) returned the turn"):
        builder.finish()


def test_after_an_error_the_builder_refuses_more_input() -> None:
    """It used to accept more bytes and return a turn with the bad chunk missing."""
    builder = TurnBuilder()
    builder.feed(sse(chunk(head()), done=False))
    with pytest.raises(StreamError):
        builder.feed(b"data: {oops\n\n")
    with pytest.raises(UsageError, match="StreamError"):
        builder.feed(sse(chunk(fragment("{}")), FINISH))
    with pytest.raises(UsageError, match="StreamError"):
        builder.finish()


def test_an_error_from_finish_closes_the_builder_too() -> None:
    builder = TurnBuilder()
    builder.feed(sse(chunk(head(arguments="{")), done=False))
    with pytest.raises(TruncatedError):
        builder.finish()
    with pytest.raises(UsageError, match="TruncatedError"):
        builder.finish()


def test_a_wrong_argument_to_feed_leaves_the_builder_usable() -> None:
    builder = TurnBuilder()
    with pytest.raises(UsageError):
        builder.feed("data: {}")  # type: ignore[arg-type]
    builder.feed(one_call("{}"))
    assert builder.finish()[-1].turn.arguments == ({},)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "options",
    [{"events": False}, {"events": True}, {"partial_arguments": True}],
    ids=["plain", "events", "partial-views"],
)
@pytest.mark.slow
def test_memory_while_arguments_stream_stays_near_their_size(options: dict[str, bool]) -> None:
    """One `str` per 4-character fragment, held to the end (by the assembler, and by the partial
    view's string in progress), peaked at twenty times the arguments' size; fragments are now
    joined in runs as they come. Measured in allocated bytes, not time, against the `str` the
    arguments become."""
    text = json.dumps({"text": "δέλτα alpha 🧪 " * 12_000}, ensure_ascii=False)
    pieces = [text[i : i + 4] for i in range(0, len(text), 4)]
    events = [sse(chunk(head(arguments="")), done=False)]
    events += [sse(chunk(fragment(piece)), done=False) for piece in pieces]
    events.append(sse(FINISH))
    tracemalloc.start()
    try:
        builder = TurnBuilder(**options)
        for event in events:
            builder.feed(event)
        done = builder.finish()[-1]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert isinstance(done, toolcall.TurnDone)
    arguments = done.turn.tool_calls[0].function.arguments
    assert arguments == text
    assert peak < 4 * sys.getsizeof(arguments)
