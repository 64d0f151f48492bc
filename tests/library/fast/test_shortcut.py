"""An event fed alone is taken from its bytes in one step when it repeats the one before
(`toolcall._fast.shortcut`); it must give exactly what the decoder and the reader give, on every
wire.

The reference is the whole body read with every event decoded in full (no template, no
shortcut). The body is then fed one event per slice, as a socket hands it over, which is the
only way the shortcut is taken, with events on and off, and with each slice perhaps spoiled in
one of the ways a shortcut could be fooled: a line end before the closing brace, a carriage
return, padding, a byte that is not UTF-8, another event line, a slice cut in two or two slices
joined.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import wire_bodies
from tests.helpers.outcomes import chunk, outcome, sse
from tests.helpers.wire_bodies import WIRES
from toolcall import LimitExceeded, SSEDecoder, StreamError, TurnBuilder

argument_values = st.dictionaries(
    st.text(max_size=4), st.text(max_size=30) | st.integers() | st.booleans(), max_size=3
)
turns = st.lists(
    st.tuples(st.from_regex(r"[a-z]{1,8}", fullmatch=True), argument_values), max_size=3
)


def slices(body: bytes) -> list[bytes]:
    """The body as a socket delivers it: one SSE event, or one NDJSON line, per slice."""
    end = rb"(?<=\n)" if body.lstrip()[:1] == b"{" else rb"(?<=\n\n)"
    return [event for event in re.split(end, body) if event]


SPOILS = (
    "none",
    "newline before brace",
    "carriage return",
    "padding",
    "bad utf-8",
    "other event line",
    "cut in two",
    "joined with next",
)


def spoiled(pieces: list[bytes], where: int, how: str) -> list[bytes]:
    """`pieces` with the one at `where` spoiled `how`."""
    pieces = list(pieces)
    piece = pieces[where]
    brace = piece.rfind(b"}")
    if how == "newline before brace" and brace > 0:
        pieces[where] = piece[:brace] + b"\n" + piece[brace:]
    elif how == "carriage return" and brace > 0:
        pieces[where] = piece[:brace] + b"\r" + piece[brace:]
    elif how == "padding" and brace > 0:
        pieces[where] = piece[:brace] + b" \t " + piece[brace:]
    elif how == "bad utf-8" and brace > 0:
        pieces[where] = piece[:brace] + b"\xff" + piece[brace:]
    elif how == "other event line" and piece.startswith(b"event: "):
        pieces[where] = b"event: other" + piece[piece.index(b"\n") :]
    elif how == "cut in two":
        half = len(piece) // 2
        pieces[where : where + 1] = [piece[:half], piece[half:]]
    elif how == "joined with next" and where + 1 < len(pieces):
        pieces[where : where + 2] = [piece + pieces[where + 1]]
    return pieces


@settings(max_examples=60, deadline=None)
@given(
    calls=turns,
    text=st.text(max_size=20),
    size=st.integers(1, 6),
    spoils=st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from(SPOILS)), max_size=3),
    events=st.booleans(),
)
def test_events_fed_one_by_one_read_as_the_whole_body_decoded_in_full(
    calls: list[wire_bodies.Call],
    text: str,
    size: int,
    spoils: list[tuple[int, str]],
    events: bool,
) -> None:
    for wire in WIRES:
        pieces = slices(wire_bodies.body(wire, calls, text, size))
        for where, how in spoils:
            pieces = spoiled(pieces, where % len(pieces), how)
        body = b"".join(pieces)
        reference = outcome(body, fast=False, events=events, wire=wire)
        assert outcome(pieces, events=events, wire=wire) == reference, (wire, spoils)
        assert outcome(pieces, events=events) == outcome(body, fast=False, events=events)


def anthropic_call(fragments: int) -> list[bytes]:
    calls = [("write", {"text": "x" * (4 * fragments)})]
    return slices(wire_bodies.body("anthropic", calls, "", 4))


def test_repeated_events_skip_the_decoder_and_the_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted, not timed: of a call's thousand fragments fed one by one, the decoder sees only
    the events around them and the first fragment, the rest being taken by the shortcut."""
    fed: list[bytes] = []
    original = SSEDecoder.feed

    def counting(self: SSEDecoder, data: bytes) -> list[str]:
        fed.append(data)
        return original(self, data)

    monkeypatch.setattr(SSEDecoder, "feed", counting)
    pieces = anthropic_call(1000)
    builder = TurnBuilder(events=False)
    for piece in pieces:
        builder.feed(piece)
    (done,) = builder.finish()
    assert len(done.turn.arguments[0]["text"]) == 4000  # type: ignore[attr-defined]
    assert len(pieces) > 1000
    assert len(fed) < 12, f"{len(fed)} of {len(pieces)} events went through the decoder"


def test_an_error_after_shortcut_events_names_the_byte_offset_of_the_whole_body() -> None:
    pieces = anthropic_call(50)
    pieces[-2] = b"data: \xff\n\n"
    body = b"".join(pieces)
    with pytest.raises(StreamError) as whole:
        builder = TurnBuilder()
        builder.feed(body)
        builder.finish()
    with pytest.raises(StreamError) as alone:
        builder = TurnBuilder()
        for piece in pieces:
            builder.feed(piece)
        builder.finish()
    assert "byte offset" in str(whole.value)
    assert str(alone.value) == str(whole.value)


def test_an_event_over_the_size_limit_is_refused_even_when_it_repeats_the_one_before() -> None:
    pieces = anthropic_call(20)
    longest = max(len(piece) for piece in pieces[3:-4])
    big = pieces[10].replace(b'"partial_json": "xxxx"', b'"partial_json": "' + b"x" * 200 + b'"')
    assert big != pieces[10]
    pieces[10] = big
    builder = TurnBuilder(max_event_chars=longest + 50)
    with pytest.raises(LimitExceeded, match="max_event_chars"):
        for piece in pieces:
            builder.feed(piece)


def test_chat_text_and_arguments_take_the_shortcut_too() -> None:
    """Chat's pieces of text and its argument fragments, fed one by one, give the turn."""
    calls: list[Any] = [("lookup", {"q": "a longer query " * 20})]
    body = wire_bodies.body("chat", calls, "some words of text " * 10, 3)
    reference = outcome(body, fast=False)
    assert reference[0] == "turn"
    assert outcome(slices(body)) == reference
    assert outcome(slices(body), events=False) == outcome(body, fast=False, events=False)


def interleaved_chat(calls: int, fragments: int) -> list[bytes]:
    """`calls` parallel calls taking turns, one fragment each, as OpenAI streams them."""
    opens = [
        chunk({"index": n, "id": f"call_{n}", "type": "function", "function": {"name": f"t{n}"}})
        for n in range(calls)
    ]
    pieces = [
        chunk({"index": n, "function": {"arguments": '{"a": "' if i == 0 else "xy"}})
        for i in range(fragments)
        for n in range(calls)
    ]
    ends = [chunk({"index": n, "function": {"arguments": '"}'}}) for n in range(calls)]
    body = sse(*opens, *pieces, *ends, chunk(finish="tool_calls"))
    return slices(body)


def test_parallel_calls_taking_turns_take_the_shortcut_in_turn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Counted: eight calls taking turns, fed chunk by chunk, go through the decoder only
    until each call's template has come back once; then the one that followed last time is
    taken, and the turn is the one full decoding gives."""
    fed: list[bytes] = []
    original = SSEDecoder.feed

    def counting(self: SSEDecoder, data: bytes) -> list[str]:
        fed.append(data)
        return original(self, data)

    pieces = interleaved_chat(8, 200)
    assert outcome(pieces) == outcome(b"".join(pieces), fast=False)
    monkeypatch.setattr(SSEDecoder, "feed", counting)
    builder = TurnBuilder(events=False)
    for piece in pieces:
        builder.feed(piece)
    (done,) = builder.finish()
    assert [len(a["a"]) for a in done.turn.arguments] == [398] * 8  # type: ignore[index]
    assert len(pieces) > 1600
    assert len(fed) < 60, f"{len(fed)} of {len(pieces)} chunks went through the decoder"


def test_a_stream_whose_envelopes_never_repeat_keeps_few_shortcuts() -> None:
    """Each event with an envelope of its own (a member named anew every time) is a template
    named once: the builder keeps a bounded number of them, and reads the stream as full
    decoding does."""
    pieces = anthropic_call(2000)
    varied = [
        piece.replace(b'"index": 0,', b'"index": 0, "n%d": 0,' % n, 1)
        if b"input_json_delta" in piece
        else piece
        for n, piece in enumerate(pieces)
    ]
    deltas = [piece for piece in varied if b"input_json_delta" in piece]
    assert len(set(deltas)) == len(deltas) > 2000
    builder = TurnBuilder(events=False)
    for piece in varied:
        builder.feed(piece)
    builder.finish()
    assert 0 < len(builder._shortcuts) <= 256
    assert outcome(varied) == outcome(b"".join(varied), fast=False)
