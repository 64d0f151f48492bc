"""Tests for the sans-IO SSE decoder: every WHATWG rule it implements, and how it is sliced."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolcall._errors import StreamError
from toolcall._framing.long_events import LongEvent
from toolcall._framing.sse import SSEDecoder


def decode(*chunks: bytes) -> list[str]:
    """Feed the chunks, close, and return every payload in order."""
    decoder = SSEDecoder()
    payloads: list[str] = []
    for chunk in chunks:
        payloads += decoder.feed(chunk)
    payloads += decoder.close()
    return payloads


def bytewise(body: bytes) -> list[bytes]:
    return [body[i : i + 1] for i in range(len(body))]


def split_at(body: bytes, cuts: list[int]) -> list[bytes]:
    bounds = [0, *sorted(cuts), len(body)]
    return [body[a:b] for a, b in itertools.pairwise(bounds)]


def reference(body: bytes) -> tuple[list[str], list[str], bool]:
    """A slow, line-at-a-time reading of the WHATWG rules, written independently of the decoder.

    Returns (payloads, comments, unterminated_final_event); raises StreamError where the decoder
    must.
    """
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StreamError(str(exc)) from None
    text = text.removeprefix("\ufeff")
    lines = re.split("\r\n|\r|\n", text)
    if lines.pop():
        raise StreamError("mid-line EOF")
    payloads: list[str] = []
    comments: list[str] = []
    data: list[str] | None = None
    for line in lines:
        if not line:
            if data is not None:
                payloads.append("\n".join(data))
            data = None
        elif line.startswith(":"):
            comments.append(line[1:].removeprefix(" "))
        else:
            field, colon, value = line.partition(":")
            if field == "data":
                data = [*(data or []), value.removeprefix(" ") if colon else ""]
    if data is not None:
        payloads.append("\n".join(data))
    return payloads, comments, data is not None


Outcome = tuple[list[str], list[str], bool] | str


def outcome(chunks: list[bytes]) -> Outcome:
    decoder = SSEDecoder()
    payloads: list[str] = []
    try:
        for chunk in chunks:
            payloads += decoder.feed(chunk)
        payloads += decoder.close()
    except StreamError:
        return "StreamError"
    return payloads, decoder.comments, decoder.unterminated_final_event


def reference_outcome(body: bytes) -> Outcome:
    try:
        return reference(body)
    except StreamError:
        return "StreamError"


# --- framing and fields -------------------------------------------------------------------------


def test_common_body_in_one_feed() -> None:
    body = b'data: {"a": 1}\n\ndata: {"b": 2}\n\ndata: [DONE]\n\n'
    assert decode(body) == ['{"a": 1}', '{"b": 2}', "[DONE]"]


def test_events_are_returned_by_the_feed_that_completes_them() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\n\ndata: b") == ["a"]
    assert decoder.feed(b"\n") == []
    assert decoder.feed(b"\n") == ["b"]
    assert decoder.close() == []
    assert decoder.unterminated_final_event is False


def test_data_without_space() -> None:
    assert decode(b"data:x\n\ndata:\n\n") == ["x", ""]


def test_only_one_leading_space_is_removed() -> None:
    assert decode(b"data:  x \n\ndata:\tx\n\n") == [" x ", "\tx"]


def test_colons_after_the_first_belong_to_the_value() -> None:
    assert decode(b"data: a:b\n\ndata: data: c\n\n") == ["a:b", "data: c"]


def test_multi_line_data_is_joined_with_lf() -> None:
    assert decode(b"data: a\ndata:b\ndata:  c\n\n") == ["a\nb\n c"]


def test_line_without_colon_is_a_field_with_empty_value() -> None:
    assert decode(b"data\n\n") == [""]
    assert decode(b"data\ndata\n\n") == ["\n"]
    assert decode(b"data: a\ndata\ndata: b\n\n") == ["a\n\nb"]


def test_other_fields_are_ignored() -> None:
    body = b"event: delta\nid: 7\nretry: 100\nfoo: bar\nbare\nDATA: no\ndata: x\n\n"
    assert decode(body) == ["x"]


def test_event_with_empty_data_buffer_is_not_dispatched() -> None:
    assert decode(b"event: ping\n\nid: 1\n\n\n\n\ndata: x\n\n") == ["x"]


def test_runs_of_blank_lines() -> None:
    assert decode(b"\n\ndata: a\n\n\n\n\ndata: b\n\n\n") == ["a", "b"]


def test_comments_are_kept_and_not_dispatched() -> None:
    decoder = SSEDecoder()
    body = b": keep-alive\n\ndata: a\n:x\n:\n:  two\ndata: b\n\n: OPENROUTER PROCESSING\n\n"
    assert decoder.feed(body) == ["a\nb"]
    assert decoder.close() == []
    assert decoder.comments == ["keep-alive", "x", "", " two", "OPENROUTER PROCESSING"]


def test_comment_between_plain_events_in_one_feed() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\n\n: keep-alive\n\ndata: b\n\n") == ["a", "b"]
    assert decoder.comments == ["keep-alive"]


def test_crlf_framing() -> None:
    assert decode(b"data: a\r\n\r\n: c\r\n\r\ndata: b\r\ndata: c\r\n\r\n") == ["a", "b\nc"]


def test_cr_framing() -> None:
    assert decode(b"data: a\r\rdata: b\rdata: c\r\r") == ["a", "b\nc"]


def test_mixed_terminators() -> None:
    assert decode(b"data: a\r\n\ndata: b\n\r\ndata: c\r\r\n") == ["a", "b", "c"]


def test_split_between_cr_and_lf_is_one_terminator() -> None:
    # Counted twice, the `\n` would be a blank line and yield ["a", "b"].
    assert decode(b"data: a\r", b"\ndata: b\r\n\r\n") == ["a\nb"]
    assert decode(b"data: a\r", b"", b"\n", b"\r", b"\n") == ["a"]


def test_event_ended_by_cr_is_not_held_for_the_next_feed() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\r\r") == ["a"]
    assert decoder.feed(b"\ndata: b\n\n") == ["b"]


def test_bom_at_start_is_dropped() -> None:
    assert decode(b"\xef\xbb\xbfdata: a\n\n") == ["a"]


def test_bom_split_across_feeds_is_dropped() -> None:
    assert decode(b"\xef", b"\xbb", b"", b"\xbfdata: a\n\n") == ["a"]


def test_only_one_bom_is_dropped() -> None:
    # The second BOM makes the field name "\ufeffdata", which is not "data".
    assert decode(b"\xef\xbb\xbf\xef\xbb\xbfdata: a\n\ndata: b\n\n") == ["b"]


def test_bom_later_in_the_stream_is_kept() -> None:
    assert decode(b"data: a\n\ndata: \xef\xbb\xbfb\n\n") == ["a", "\ufeffb"]


def test_split_inside_multibyte_characters() -> None:
    body = "data: 上\n\ndata: 😀 x\n\n".encode()
    assert decode(*bytewise(body)) == ["上", "😀 x"]
    assert decode(body[:7], body[7:]) == ["上", "😀 x"]


def test_empty_feeds_change_nothing() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"") == []
    assert decoder.feed(b"data: a\n") == []
    assert decoder.feed(b"") == []
    assert decoder.feed(b"\n") == ["a"]
    assert decoder.feed(b"") == []
    assert decoder.close() == []


def test_long_line_in_tiny_feeds() -> None:
    payload = "x" * 100_000
    body = f"data: {payload}\n\n".encode()
    chunks = [body[i : i + 4] for i in range(0, len(body), 4)]
    assert decode(*chunks) == [payload]


# --- end of body --------------------------------------------------------------------------------


def test_final_event_without_blank_line_is_dispatched_by_close() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\n\ndata: b\n") == ["a"]
    assert decoder.close() == ["b"]
    assert decoder.unterminated_final_event is True


def test_final_event_ended_by_cr_is_dispatched_by_close() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\r") == []
    assert decoder.close() == ["a"]
    assert decoder.unterminated_final_event is True


def test_final_comment_line_sets_no_flag() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\n\n: bye\n") == ["a"]
    assert decoder.close() == []
    assert decoder.unterminated_final_event is False
    assert decoder.comments == ["bye"]


def test_properly_terminated_body_sets_no_flag() -> None:
    decoder = SSEDecoder()
    decoder.feed(b"data: a\n\n")
    assert decoder.close() == []
    assert decoder.unterminated_final_event is False


@pytest.mark.parametrize(
    "body", [b"data: a\n\ndata: b", b"data: a", b": keep-alive", b"data: a\n\nd"]
)
def test_eof_in_the_middle_of_a_line_raises(body: bytes) -> None:
    decoder = SSEDecoder()
    decoder.feed(body)
    with pytest.raises(StreamError, match="middle of a line"):
        decoder.close()


def test_mid_line_error_names_the_byte_offset() -> None:
    decoder = SSEDecoder()
    decoder.feed("data: a\n\ndata: 上".encode())
    with pytest.raises(StreamError, match="last 9 bytes, from byte offset 9,"):
        decoder.close()


def test_invalid_utf8_raises_with_offset() -> None:
    with pytest.raises(StreamError, match="byte offset 15"):
        decode(b"data: a\n\ndata: \xff\n\n")


def test_invalid_utf8_offset_counts_bytes_held_from_earlier_feeds() -> None:
    decoder = SSEDecoder()
    decoder.feed(b"data: a\n\ndata: \xe4")
    with pytest.raises(StreamError, match="byte offset 15"):
        decoder.feed(b"A\n\n")


def test_incomplete_utf8_at_eof_raises_with_offset() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\n\n\xe4\xb8") == ["a"]
    with pytest.raises(StreamError, match="UTF-8 sequence that starts at byte offset 9"):
        decoder.close()


# --- properties ---------------------------------------------------------------------------------

FRAGMENTS = [
    b"data",
    b"data:",
    b"data: ",
    b":",
    b" ",
    b"x",
    b'{"a": 1}',
    b"event: e",
    b"id: 7",
    b"\n",
    b"\r",
    b"\r\n",
    b"\n\n",
    "上".encode(),
    "😀".encode(),
    b"\xef\xbb\xbf",
]
sse_like = st.lists(st.sampled_from(FRAGMENTS), max_size=40).map(b"".join)
# Rarely, a byte that breaks UTF-8 (a stray continuation byte or a cut-off character).
sse_like_or_broken = st.one_of(
    sse_like, st.tuples(sse_like, st.sampled_from([b"\xff", b"\xe4\xb8"]), sse_like).map(b"".join)
)


@st.composite
def body_and_chunks(draw: st.DrawFn, bodies: st.SearchStrategy[bytes]) -> tuple[bytes, list[bytes]]:
    body = draw(bodies)
    cuts = draw(st.lists(st.integers(0, len(body)), max_size=12))
    return body, split_at(body, cuts)


@settings(max_examples=200, deadline=None)
@given(body_and_chunks(sse_like_or_broken))
def test_any_resplitting_gives_the_same_result(case: tuple[bytes, list[bytes]]) -> None:
    body, chunks = case
    whole = outcome([body])
    assert outcome(chunks) == whole
    assert whole == reference_outcome(body)


@settings(max_examples=200, deadline=None)
@given(body_and_chunks(st.binary(max_size=200)))
def test_arbitrary_bytes_give_lists_of_str_or_stream_error(case: tuple[bytes, list[bytes]]) -> None:
    _, chunks = case
    decoder = SSEDecoder()
    try:
        results = [decoder.feed(chunk) for chunk in chunks]
        results.append(decoder.close())
    except StreamError:
        return
    for result in results:
        assert type(result) is list
        assert all(type(payload) is str for payload in result)


no_newlines = st.text(st.characters(blacklist_characters="\r\n", blacklist_categories=["Cs"]))
# A line terminator then the blank line's; never `\r` then `\n`, which would be one terminator.
event_ends = st.sampled_from(
    [a + b for a in ("\n", "\r\n", "\r") for b in ("\n", "\r\n", "\r") if (a, b) != ("\r", "\n")]
)


@settings(max_examples=200, deadline=None)
@given(st.data(), st.lists(no_newlines, max_size=10))
def test_payloads_round_trip_with_any_terminators(data: st.DataObject, payloads: list[str]) -> None:
    text = ""
    for payload in payloads:
        space = "" if payload[:1] != " " and data.draw(st.booleans()) else " "
        text += f"data:{space}{payload}" + data.draw(event_ends)
    body = text.encode()
    cuts = data.draw(st.lists(st.integers(0, len(body)), max_size=8))
    assert decode(*split_at(body, cuts)) == payloads


# A socket hands over one event at a time, and then a slice that is exactly one `data: ` line
# and its blank line, or an `event:` line and then one, skips the general path: whatever
# precedes or fills it, the answer is the same.
whole_events = st.lists(
    st.one_of(
        st.tuples(st.text(max_size=12), st.sampled_from([b"\n", b"\r\n", b"\r"])).map(
            lambda pair: b"data: " + pair[0].encode() + pair[1] * 2
        ),
        st.tuples(
            st.text(max_size=6), st.text(max_size=12), st.sampled_from([b"\n", b"\r\n", b"\r"])
        ).map(lambda t: b"event: " + t[0].encode() + t[2] + b"data: " + t[1].encode() + t[2] * 2),
        st.sampled_from(FRAGMENTS),
        st.sampled_from(
            [
                b"data: \xff\n\n",
                b"data: a\rb\n\n",
                b"\xef\xbb\xbfdata: x\n\n",
                b"event:x\ndata: y\n\n",
                b"event: a\rdata: b\n\n",
                b"event: \xff\ndata: x\n\n",
                b"event: \xe4\xb8\x8a\ndata: z\n\n",
                b"event: e\ndata:x\n\n",
                b"event: e\nid: 1\n\n",
                b"event: e\n\n",
                b"event: e\ndata: a\ndata: b\n\n",
                b"\xef\xbb\xbfevent: e\ndata: x\n\n",
                b"data: x\r\n\n",
                b"data: x\n\r\n",
                b"data: x\r\r\n",
                b"data: x\r\n\r",
                b"event: e\r\ndata: x\n\n",
                b"event: e\ndata: x\r\n\r\n",
                b"event: e\rdata: x\r\n\r\n",
                b"data: a\rb\r\n\r\n",
                b"data: a\nb\r\r",
                b"data: \xff\r\n\r\n",
                b"\ndata: x\r\n\r\n",
            ]
        ),
    ),
    max_size=30,
)


@settings(max_examples=300, deadline=None)
@given(whole_events)
def test_one_event_per_feed_gives_the_same_result(pieces: list[bytes]) -> None:
    body = b"".join(pieces)
    by_event = [piece for piece in re.split(b"(?<=\n\n)|(?<=\r\n\r\n)|(?<=\r\r)", body) if piece]
    assert outcome(pieces) == reference_outcome(body)
    assert outcome(by_event) == reference_outcome(body)


@pytest.mark.parametrize("eol", [b"\n", b"\r\n", b"\r"])
@pytest.mark.parametrize("head", [b"", b"event: response.created"])
def test_an_event_in_a_slice_of_its_own_skips_the_general_path(
    head: bytes, eol: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whichever line ends it has (Google's are `\\r\\n`)."""
    event = (head + eol if head else b"") + b'data: {"a": 1}' + eol * 2
    decoder = SSEDecoder()

    def general(self: SSEDecoder, data: bytes) -> list[str]:
        raise AssertionError("the general path read a slice of one event")

    monkeypatch.setattr(SSEDecoder, "_feed", general)
    assert decoder.feed(event) == ['{"a": 1}']
    assert decoder.feed(event) == ['{"a": 1}']


# --- long events, held as bytes -----------------------------------------------------------------


@contextmanager
def held_as_bytes_from(size: int) -> Iterator[None]:
    """Events held past `size` bytes are held as bytes (`SSEDecoder.long_from`), so that short
    bodies take the path a megabyte event takes."""
    default = SSEDecoder.long_from
    SSEDecoder.long_from = size
    try:
        yield
    finally:
        SSEDecoder.long_from = default


def told(chunks: list[bytes], *, limit: int = 1 << 20) -> tuple[object, ...]:
    """Everything the decoder says of a body: each payload in order and the feed it came from,
    comments, the flag, and the error with its message (offsets included)."""
    decoder = SSEDecoder(max_event_chars=limit)
    said: list[object] = []
    try:
        for number, chunk in enumerate(chunks):
            said += [(number, payload) for payload in decoder.feed(chunk)]
        said += [("close", payload) for payload in decoder.close()]
    except StreamError as exc:
        said.append((type(exc).__name__, str(exc)))
    return tuple(said), tuple(decoder.comments), decoder.unterminated_final_event


@settings(max_examples=400, deadline=None)
@given(
    body_and_chunks(sse_like_or_broken), st.sampled_from([1, 3, 8]), st.sampled_from([6, 1 << 20])
)
def test_an_event_held_as_bytes_tells_what_one_held_as_text_tells(
    case: tuple[bytes, list[bytes]], long_from: int, limit: int
) -> None:
    """Payloads, the feed that completes each, comments, errors and their byte offsets, the
    limit: the same whether a long event is held as text or as bytes, however it is split."""
    body, chunks = case
    want = told(chunks, limit=limit)
    with held_as_bytes_from(long_from):
        assert told(chunks, limit=limit) == want
    whole = told(bytewise(body), limit=limit)
    with held_as_bytes_from(long_from):
        assert told(bytewise(body), limit=limit) == whole


@pytest.mark.parametrize("eol", [b"\n", b"\r\n", b"\r"])
@pytest.mark.parametrize("head", [b"", b"event: response.function_call_arguments.done\n"])
@pytest.mark.parametrize("size", [1, 7, 4096])
def test_a_long_event_is_taken_as_the_bytes_it_came_in(head: bytes, size: int, eol: bytes) -> None:
    payload = '{"arguments":"caf\u00e9 \u6f22\u5b57 \U0001f9ea' + "words " * 3000 + '"}'
    body = b": keep-alive\n\n" + head + b"data: " + payload.encode() + b"\n\ndata: [DONE]\n\n"
    body = body.replace(b"\n", eol)
    decoder = SSEDecoder()
    taken: list[str | LongEvent] = []
    with held_as_bytes_from(1024):
        for at in range(0, len(body), size):
            taken += decoder.take(body[at : at + size])
    long, done = taken
    assert done == "[DONE]"
    assert isinstance(long, LongEvent)
    assert bytes(long.data) == payload.encode()
    assert long.offset == body.index(b"data: {") + 6
    assert long.text() == payload
    assert not long.data  # let go of as it was decoded


# Events of one `data: ` line, some long, each line ended by `\n`, `\r\n` or `\r`, and the
# corners around them: what a long event held as bytes meets at its end.
line_ended_events = st.lists(
    st.one_of(
        st.tuples(
            st.sampled_from([b"", b"x" * 12, "\u4e0a".encode() * 5, b"\xff", b"\xe4\xb8"]),
            st.sampled_from([b"\n", b"\r\n", b"\r"]),
            st.sampled_from([b"\n", b"\r\n", b"\r", b"", b"data: y\n"]),
        ).map(lambda t: b"data: " + t[0] + t[1] + t[2]),
        st.sampled_from([b"\n", b"\r", b"\r\n", b": c\r\n", b"event: e\r\n", b"id: 1\r"]),
    ),
    max_size=8,
).map(b"".join)


@settings(max_examples=300, deadline=None)
@given(body_and_chunks(line_ended_events), st.sampled_from([1, 3, 8]), st.sampled_from([9, 99]))
def test_a_long_event_held_as_bytes_ends_at_any_line_end_as_text_does(
    case: tuple[bytes, list[bytes]], long_from: int, limit: int
) -> None:
    """`\\n`, `\\r\\n` or `\\r` after its payload and after its blank line, split anywhere
    (a `\\r\\n` between its two bytes too): what the event held as text tells, error offsets
    and the limit included."""
    body, chunks = case
    want, whole = told(chunks, limit=limit), told(bytewise(body), limit=limit)
    with held_as_bytes_from(long_from):
        assert told(chunks, limit=limit) == want
        assert told(bytewise(body), limit=limit) == whole


def test_a_long_event_that_is_not_utf8_names_its_byte_offset() -> None:
    body = b"data: " + b"x" * 5000 + b"\xff" + b"y" * 100 + b"\n\n"
    decoder = SSEDecoder()
    with held_as_bytes_from(1024):
        (long,) = [
            payload
            for at in range(0, len(body), 512)
            for payload in decoder.take(body[at : at + 512])
        ]
    assert isinstance(long, LongEvent)
    with pytest.raises(StreamError, match="at byte offset 5006: invalid start byte"):
        long.text()


def test_an_event_that_cannot_be_held_as_bytes_is_looked_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Counted, not timed: a long event of more than one line, arriving a byte at a time, is
    looked at once for holding as bytes (each look joins what it holds so far), not at every
    slice, which would grow as the square of the event; the next event is looked at again."""
    looks: list[int] = []
    original = SSEDecoder._hold_as_bytes

    def counted(self: SSEDecoder) -> None:
        looks.append(1)
        original(self)

    monkeypatch.setattr(SSEDecoder, "_hold_as_bytes", counted)
    body = b"id: 7\ndata: " + b"x" * 2000 + b"\n\ndata: " + b"y" * 2000 + b"\n\n"
    decoder = SSEDecoder()
    with held_as_bytes_from(16):
        payloads = [p for at in range(len(body)) for p in decoder.feed(body[at : at + 1])]
    assert payloads == ["x" * 2000, "y" * 2000]
    assert len(looks) == 2
