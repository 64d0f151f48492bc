"""Events as the stream goes (_turn/events.py, _turn/call_watcher.py, _calls/object_closer.py): what
a chat UI and an agent see.

Each test feeds a stream one SSE event at a time, as a socket delivers it, and looks at what each
`feed` returned: the promise is not only which events come but when.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolcall
from toolcall import (
    ArgumentsDelta,
    Event,
    ReasoningDelta,
    StreamError,
    TextDelta,
    ToolCallDone,
    ToolCallStarted,
    TurnBuilder,
    TurnDone,
)
from toolcall._calls.object_closer import ObjectCloser
from toolcall.harness.checks.event_check import event_problems

from .outcomes import chunk, fragment, head, sse

FINISH = chunk(finish="tool_calls")


def per_event(body: bytes, **options: Any) -> list[list[Event]]:
    """What each `feed` of one SSE event returned, then what `finish` returned."""
    builder = TurnBuilder(**options)
    out = [builder.feed(event + b"\n\n") for event in body.split(b"\n\n") if event]
    return [*out, builder.finish()]


def kinds(events: list[Event]) -> list[str]:
    return [type(event).__name__ for event in events]


def test_a_call_is_done_in_the_feed_that_closed_it_not_at_the_end() -> None:
    """An agent starts the tool on ToolCallDone, before the other call has even begun."""
    body = sse(
        chunk(head(0, "call_a", "get_weather")),
        chunk(fragment('{"city":')),
        chunk(fragment('"Oslo"}')),
        chunk(head(1, "call_b", "get_time")),
        chunk(fragment('{"tz":"UTC"}', index=1)),
        FINISH,
    )
    steps = per_event(body)
    assert steps[0] == []  # the name is settled by the first arguments fragment
    assert steps[1] == [
        ToolCallStarted(0, "call_a", "get_weather"),
        ArgumentsDelta(0, '{"city":'),
    ]
    assert kinds(steps[2]) == ["ArgumentsDelta", "ToolCallDone"]
    done = steps[2][1]
    assert isinstance(done, ToolCallDone)
    assert done.arguments == {"city": "Oslo"}
    assert (done.call.index, done.call.id, done.call.function.name) == (0, "call_a", "get_weather")
    assert kinds(steps[4]) == ["ToolCallStarted", "ArgumentsDelta", "ToolCallDone"]
    assert kinds(steps[-1]) == ["TurnDone"]  # nothing was left for the end


def test_text_and_reasoning_come_as_they_arrive_reasoning_first_within_a_chunk() -> None:
    body = sse(
        chunk(reasoning_content="think"),
        chunk(reasoning_content="ing", content="Hel"),
        chunk(content="lo"),
        chunk(finish="stop"),
    )
    steps = per_event(body)
    assert steps[:3] == [
        [ReasoningDelta("think")],
        [ReasoningDelta("ing"), TextDelta("Hel")],
        [TextDelta("lo")],
    ]
    (last,) = steps[-1]
    assert isinstance(last, TurnDone)
    assert (last.turn.content, last.turn.reasoning) == ("Hello", "thinking")


def test_a_whole_call_in_one_chunk_starts_fills_and_ends_in_one_feed() -> None:
    """Grok, Gemini and GLM send each call whole (FACTS.md §3, §6, §8)."""
    body = sse(chunk(head(0, "c", "f", arguments='{"a":1}')), FINISH)
    steps = per_event(body)
    assert kinds(steps[0]) == ["ToolCallStarted", "ArgumentsDelta", "ToolCallDone"]


def test_a_name_in_fragments_is_started_whole() -> None:
    body = sse(
        chunk(head(0, "c", "get_")),
        chunk({"index": 0, "function": {"name": "weather"}}),
        chunk(fragment("{}")),
        FINISH,
    )
    started = [e for step in per_event(body) for e in step if isinstance(e, ToolCallStarted)]
    assert started == [ToolCallStarted(0, "c", "get_weather")]


def test_a_call_without_arguments_is_started_and_done_at_the_end() -> None:
    body = sse(chunk(head(0, "c", "ping")), FINISH)
    steps = per_event(body)
    assert kinds(steps[-1]) == ["ToolCallStarted", "ToolCallDone", "TurnDone"]
    done = steps[-1][1]
    assert isinstance(done, ToolCallDone) and done.arguments == {}


def test_escapes_and_braces_inside_strings_do_not_close_a_call_early() -> None:
    """A quote escaped across two fragments, and braces inside a string, are text."""
    text = json.dumps({"code": 'if (a) {return "}\\";}'})
    cuts = [0, *(i + 1 for i, char in enumerate(text) if char == "\\"), len(text)]
    pieces = [text[a:b] for a, b in itertools.pairwise(cuts)]
    assert len(pieces) == 5 and all(p.endswith("\\") for p in pieces[:-1])
    body = sse(chunk(head(0, "c", "f")), *[chunk(fragment(p)) for p in pieces], FINISH)
    steps = per_event(body)
    done_at = [i for i, step in enumerate(steps) if "ToolCallDone" in kinds(step)]
    assert done_at == [len(pieces)]  # the feed of the last fragment, not before
    done = steps[len(pieces)][-1]
    assert isinstance(done, ToolCallDone)
    assert done.arguments == json.loads("".join(pieces))


@settings(max_examples=150, deadline=None)
@given(
    value=st.dictionaries(
        st.text(max_size=5),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=8),
            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
            max_leaves=8,
        ),
        max_size=4,
    ),
    ascii_only=st.booleans(),
    cuts=st.lists(st.integers(0, 400), max_size=30),
)
def test_the_closer_closes_exactly_where_the_object_ends(
    value: dict[str, Any], ascii_only: bool, cuts: list[int]
) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only)
    bounds = sorted({0, len(text), *(c for c in cuts if c < len(text))})
    pieces = [text[a:b] for a, b in itertools.pairwise(bounds)]
    closer = ObjectCloser()
    closed = [closer.feed(piece) for piece in pieces]
    assert closed == [False] * (len(pieces) - 1) + [True]


@pytest.mark.parametrize(
    ("later", "what"),
    [
        (fragment('{"b":2}'), "two JSON values in one arguments buffer"),
        ({"index": 0, "id": "late_id", "function": {"arguments": ""}}, "id arrived after"),
        ({"index": 0, "function": {"name": "_more"}}, "name fragment '_more' arrived after"),
    ],
    ids=["arguments", "id", "name"],
)
def test_data_that_reopens_a_done_call_is_an_error_with_events_on_or_off(
    later: dict[str, Any], what: str
) -> None:
    """ToolCallDone is a promise: the caller may be running the tool. Both modes give one answer."""
    opening = {"index": 0, "type": "function", "function": {"name": "f", "arguments": ""}}
    body = sse(chunk(opening), chunk(fragment('{"a":1}')), chunk(later), FINISH)
    with pytest.raises(StreamError, match=what):
        toolcall.assemble(body)
    builder = TurnBuilder()
    with pytest.raises(StreamError, match=what):  # as it arrives (a name) or at the end
        builder.feed(body)
        builder.finish()


#: Fragments of one call whose close is followed by JSON whitespace: in a fragment of its own
#: (after a run of arguments-only chunks, so the template fast path reads it), after the brace in
#: the closing fragment, or both; and a whole call in one chunk with a newline after it.
TRAILING_WHITESPACE = {
    "own-fragments": ['{"t": "', "ab", "cd", "ef", '", "a": 1}', " \n", "\t"],
    "in-the-closing-fragment": ['{"a": ', "1} ", "\n"],
    "whole-call-then-newline": ['{"a": 1}\n'],
    "whole-call-then-fragment": ['{"a": 1}', " \n"],
}


@pytest.mark.parametrize("backend", ["stdlib", "orjson"])
@pytest.mark.parametrize("partial", [False, True], ids=["plain", "partial-views"])
@pytest.mark.parametrize("fragments", TRAILING_WHITESPACE.values(), ids=TRAILING_WHITESPACE)
def test_whitespace_after_the_close_is_not_part_of_the_call(
    backend: str, partial: bool, fragments: list[str]
) -> None:
    """The call reported done is the call in the turn: its arguments end at the closing brace."""
    body = sse(chunk(head(0, "call_a", "f")), *(chunk(fragment(f)) for f in fragments), FINISH)
    events = [
        e for step in per_event(body, json_backend=backend, partial_arguments=partial) for e in step
    ]
    done_at = next(i for i, e in enumerate(events) if isinstance(e, ToolCallDone))
    assert [kinds([e]) for e in events[done_at + 1 :]] == [["TurnDone"]]
    done, turn_done = events[done_at], events[-1]
    assert isinstance(done, ToolCallDone) and isinstance(turn_done, TurnDone)
    (call,) = turn_done.turn.tool_calls
    assert done.call == call
    assert call.function.arguments == "".join(fragments).rstrip(" \t\n\r")
    assert event_problems(events, turn_done.turn) == []
    assert toolcall.assemble(body, json_backend=backend).tool_calls == (call,)


def test_a_resend_before_the_call_closed_is_still_repaired() -> None:
    """The repair for cumulative re-sends (`arguments_resent`) is untouched by the rule above."""
    body = sse(
        chunk(head(0, "c", "f")),
        chunk(fragment('{"a":')),
        chunk(fragment('{"a":1}')),
        FINISH,
    )
    turn = toolcall.assemble(body)
    assert turn.arguments == ({"a": 1},)
    assert [d.code for d in turn.diagnostics] == ["arguments_resent"]


def test_a_thought_signature_after_a_done_call_still_reaches_the_turn() -> None:
    """Gemini sends a call's signature in a metadata-only delta after it (FACTS.md §8)."""
    signature = {"google": {"thought_signature": "sig-B"}}
    body = sse(
        chunk(head(0, "c", "f", arguments='{"a":1}')),
        chunk({"extra_content": signature}),
        chunk(finish="stop"),
    )
    events = [e for step in per_event(body) for e in step]
    done = next(e for e in events if isinstance(e, ToolCallDone))
    assert done.call.extra_content is None  # as it stood when the call closed
    last = events[-1]
    assert isinstance(last, TurnDone)
    assert last.turn.tool_calls[0].extra_content == signature


def test_events_off_gives_only_the_turn() -> None:
    body = sse(chunk(content="hi"), chunk(head(0, "c", "f", arguments="{}")), FINISH)
    steps = per_event(body, events=False)
    assert all(step == [] for step in steps[:-1])
    assert kinds(steps[-1]) == ["TurnDone"]


def test_iter_events_and_aiter_events_give_the_builders_events() -> None:
    body = sse(chunk(content="hi"), chunk(head(0, "c", "f", arguments='{"x":[1,2]}')), FINISH)
    pieces = [body[i : i + 7] for i in range(0, len(body), 7)]
    expected = [e for step in per_event(body) for e in step]

    async def chunks() -> AsyncIterator[bytes]:
        for piece in pieces:
            yield piece

    async def collect() -> list[Event]:
        return [event async for event in toolcall.aiter_events(chunks())]

    assert list(toolcall.iter_events(pieces)) == expected
    assert asyncio.run(collect()) == expected


def test_the_event_check_fails_events_that_do_not_tell_the_turn() -> None:
    """The conformance suite checks every cassette's events with it, so it must be able to fail."""
    body = sse(chunk(content="hi"), chunk(head(0, "c", "f", arguments='{"a":1}')), FINISH)
    events = [e for step in per_event(body) for e in step]
    last = events[-1]
    assert isinstance(last, TurnDone)
    assert event_problems(events, last.turn) == []
    without_text = [e for e in events if not isinstance(e, TextDelta)]
    assert event_problems(without_text, last.turn) == [
        "TextDelta pieces do not join to the turn's content"
    ]
    without_done = [e for e in events if not isinstance(e, ToolCallDone)]
    assert event_problems(without_done, last.turn) == ["call 0 never done"]
    done_at = next(i for i, e in enumerate(events) if isinstance(e, ToolCallDone))
    late = [*events[: done_at + 1], ArgumentsDelta(0, " "), *events[done_at + 1 :]]
    assert event_problems(late, last.turn) == [
        "call 0 got an ArgumentsDelta after ToolCallDone",
        "call 0's ArgumentsDelta do not join to its arguments",
    ]


def test_public_names_report_toolcall_as_their_module() -> None:
    """`toolcall.Turn`, not `toolcall._stream.Turn`, in reprs, tracebacks and docs."""
    for name in toolcall.__all__:
        public = getattr(toolcall, name)
        if isinstance(public, type) or callable(public):
            assert public.__module__ == "toolcall", name


def test_the_events_made_per_chunk_are_the_frozen_classes_themselves() -> None:
    """The reader builds text, reasoning and fragment events without the dataclass `__init__`;
    what it builds must be indistinguishable from the public constructor's: equal, hashed
    alike, frozen, with the same repr."""
    from dataclasses import FrozenInstanceError, fields

    from toolcall._turn.events import arguments_delta, reasoning_delta, text_delta

    change = toolcall.ArgumentsChange("append", ("text",), "ab")
    pairs: list[tuple[Event, Event]] = [
        (text_delta("héllo"), TextDelta("héllo")),
        (reasoning_delta("hmm"), ReasoningDelta("hmm")),
        (arguments_delta(3, '{"a'), ArgumentsDelta(3, '{"a')),
        (arguments_delta(1, "ab", (change,)), ArgumentsDelta(1, "ab", (change,))),
    ]
    for fast, public in pairs:
        assert type(fast) is type(public)
        assert fast == public and hash(fast) == hash(public) and repr(fast) == repr(public)
        with pytest.raises(FrozenInstanceError):
            setattr(fast, fields(fast)[0].name, "changed")
    reasoning: object = ReasoningDelta("a")
    assert text_delta("a") != reasoning
    # Through the reader: the first piece of text is read in full, the next ones by template.
    body = sse(*(chunk(content=piece) for piece in ("He", "ll", "o!")), chunk(finish="stop"))
    texts = [event for feed in per_event(body) for event in feed][:3]
    assert texts == [TextDelta("He"), TextDelta("ll"), TextDelta("o!")]


def apply(changes: tuple[toolcall.ArgumentsChange, ...], tree: dict[str, Any]) -> None:
    """What a UI does with `ArgumentsDelta.changes`: set members, append to strings."""
    for change in changes:
        *where, last = change.path
        node: Any = tree
        for step in where:
            node = node[step]
        if change.kind == "set":
            if isinstance(node, list) and last == len(node):
                node.append(change.value)
            else:
                node[last] = change.value
        else:
            node[last] += change.value


def test_partial_arguments_fill_in_as_fragments_arrive() -> None:
    """A form filling in: after every fragment the view and the changes applied so far agree,
    and at the end both are the parsed arguments."""
    arguments = {
        "path": "a.txt",
        "lines": ["one", "two \u00e9\U0001f9ea"],
        "mode": {"append": True},
    }
    text = json.dumps(arguments, ensure_ascii=False)
    pieces = [text[i : i + 3] for i in range(0, len(text), 3)]
    body = sse(chunk(head(0, "c", "write")), *[chunk(fragment(p)) for p in pieces], FINISH)
    builder = TurnBuilder(partial_arguments=True)
    rebuilt: dict[str, Any] = {}
    views = []
    for event in body.split(b"\n\n"):
        for item in builder.feed(event + b"\n\n"):
            if isinstance(item, ArgumentsDelta):
                apply(item.changes, rebuilt)
                view = builder.partial_arguments(item.index)
                assert rebuilt == {k: v for k, v in view.items()}
                views.append(json.dumps(view, ensure_ascii=False))
    assert rebuilt == arguments
    assert views[0] == "{}" and len(set(views)) >= 8  # it filled in as it went
    (done,) = [e for e in builder.finish() if isinstance(e, TurnDone)]
    assert done.turn.arguments == (arguments,)


def test_partial_views_need_asking_for() -> None:
    with pytest.raises(toolcall.UsageError, match="partial_arguments=True"):
        TurnBuilder().partial_arguments(0)
    with pytest.raises(toolcall.UsageError, match="needs events"):
        TurnBuilder(events=False, partial_arguments=True)


def test_a_view_that_meets_bad_json_stops_and_the_end_reports_as_always() -> None:
    """Partial views on or off, one answer: merged calls are still the validation's error."""
    body = sse(
        chunk(head(0, "c", "f")), chunk(fragment('{"a":1}')), chunk(fragment('{"b"')), FINISH
    )
    builder = TurnBuilder(partial_arguments=True)
    builder.feed(body)
    assert builder.partial_arguments(0) == {"a": 1}
    with pytest.raises(toolcall.ArgumentsError, match="two JSON values"):
        builder.finish()
