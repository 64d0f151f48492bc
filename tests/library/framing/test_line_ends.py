"""A long event framed with CRLF or CR line ends takes the path it takes with LF, on every wire
and framing: read from its bytes, never made text or copied where the LF one is not, for the
same answer, and errors, byte offsets and limits those of the plain path. Counted and measured by
tracemalloc, never timed. Google's SSE ends every line with CRLF, and its JSON array puts one
after each comma."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

import toolcall
import toolcall._json
import toolcall._stream
from tests.helpers.memory import fed_peak
from tests.helpers.outcomes import outcome
from tests.helpers.wire_bodies import events, frame
from toolcall._framing.long_events import LongEvent
from toolcall._framing.ndjson import NDJSONDecoder
from toolcall._json import utf8_reader

#: Every wire, with its framings: the SSE ones, Gemini's JSON array, Ollama's NDJSON.
FRAMED = [
    ("chat", "sse"),
    ("responses", "sse"),
    ("anthropic", "sse"),
    ("gemini", "sse"),
    ("gemini", "json-array"),
    ("ollama", "ndjson"),
]
LINE_ENDS = {"CRLF": b"\r\n", "CR": b"\r"}
#: 124 K characters, of one to four bytes in UTF-8: an event is held as text until it has 64 K
#: of them (`SSEDecoder.long_from`), so this one is held as bytes in 64 KiB windows too.
TEXT = 'plain words, caf\u00e9 "\u03b4\u03ad\u03bb\u03c4\u03b1" \u4e0a\u6d77 \U0001f9ea\n' * 4000


def body(wire: str, framing: str, eol: bytes, text: str = TEXT) -> bytes:
    """One call whose arguments come in one long event (Responses repeats them in three more),
    after a short text, its lines ended by `eol` (no JSON text here holds a line end)."""
    items = events(wire, [("write", {"text": text})], "Hi", 10**7)
    return frame(wire, items, framing=framing, ensure_ascii=False).replace(b"\n", eol)


def slicings(framing: str, data: bytes, eol: bytes) -> Iterator[list[bytes]]:
    """The body whole, one event a slice, every `\\r\\n` split between its two bytes, windows
    of an odd size, and cut in two at each byte around the long event's line ends."""
    yield [data]
    end = {"sse": eol * 2, "ndjson": eol, "json-array": b"," + eol}[framing]
    yield [piece for piece in re.split(b"(?<=" + re.escape(end) + b")", data) if piece]
    yield [piece for piece in re.split(b"(?<=\r)(?=\n)", data) if piece]
    yield [data[at : at + 4093] for at in range(0, len(data), 4093)]
    last = data.rfind(b"}" * 3) + 3  # where the long event's payload ends, near enough
    for cut in range(last - 2, last + 2 * len(end) + 1):
        yield [data[:cut], data[cut:]]


@contextmanager
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[list[int], list[int]]]:
    """Long events made text (`LongEvent.text`), and texts of more than 16 K characters read
    as text (a long event's, as no short one here is that long): what reading a long event
    from its bytes leaves out."""
    made_text: list[int] = []
    read_as_text: list[int] = []
    text = LongEvent.text

    def counted_text(self: LongEvent) -> str:
        made_text.append(self.end - self.start)
        return text(self)

    def counting(name: str) -> Callable[[str], Any]:
        loads = toolcall._json.backend(name)

        def counted_loads(payload: str) -> Any:
            if len(payload) > 16 * 1024:
                read_as_text.append(len(payload))
            return loads(payload)

        return counted_loads

    monkeypatch.setattr(LongEvent, "text", counted_text)
    monkeypatch.setattr(toolcall._stream, "backend", counting)
    yield made_text, read_as_text


@pytest.fixture(scope="module")
def reads_bytes() -> None:
    if utf8_reader("auto") is None:
        pytest.skip("no reading of bytes (jiter missing, or reading a probe otherwise)")


@pytest.mark.parametrize("name", LINE_ENDS)
@pytest.mark.parametrize(("wire", "framing"), FRAMED)
def test_a_long_event_is_read_from_its_bytes_whatever_ends_its_lines(
    reads_bytes: None, monkeypatch: pytest.MonkeyPatch, wire: str, framing: str, name: str
) -> None:
    """Counted: however the body is split, no long event is made text or read as text, as
    with LF, and the turn is the LF body's, which the stdlib backend (every event text) gives
    too."""
    eol = LINE_ENDS[name]
    want = outcome(body(wire, framing, b"\n"), wire=wire, events=False)
    assert want[0] == "turn"
    data = body(wire, framing, eol)
    assert outcome(data, wire=wire, backend="stdlib", events=False) == want
    with counted(monkeypatch) as (made_text, read_as_text):
        for slices in slicings(framing, data, eol):
            assert outcome(slices, wire=wire, events=False) == want, [len(s) for s in slices]
            assert (made_text, read_as_text) == ([], []), [len(s) for s in slices]


def spoiled(wire: str, framing: str, eol: bytes) -> Iterator[tuple[bytes, dict[str, int]]]:
    """Bodies the long event refuses: a byte that is not UTF-8 inside it, a character cut off
    before its line end (SSE; a JSON document's would be inside it), and limits around its
    size in characters and in bytes."""
    data = body(wire, framing, eol)
    at = data.index(b"caf", len(data) // 2)
    yield data[:at] + b"\xff" + data[at + 1 :], {}
    yield data[:at] + b"\xe4\xb8" + data[at + 3 :], {}
    if framing == "sse":
        last = data.rindex(b"data: ")
        cut = data.rindex(b"}", 0, last) + 1
        yield data[:cut] + "\u4e0a".encode()[:2] + data[cut:], {}
    longest = max(re.split(re.escape(eol) + b"|,", data), key=len)
    chars = len(longest.decode())
    for limit in {chars - 1, chars, chars + 1, len(longest) - 1, len(longest) + 2}:
        yield data, {"max_event_chars": limit}


@pytest.mark.parametrize("name", LINE_ENDS)
@pytest.mark.parametrize(("wire", "framing"), FRAMED)
def test_a_long_event_refused_is_refused_as_on_the_plain_path(
    wire: str, framing: str, name: str
) -> None:
    """The error, its message and byte offset or line, and the limit's verdict: those the
    plain path gives the same body, however it is split."""
    eol = LINE_ENDS[name]
    for data, limits in spoiled(wire, framing, eol):
        small = [data[at : at + 1000] for at in range(0, len(data), 1000)]
        want = outcome(small, wire=wire, events=False, fast=False, **limits)
        assert want[0] != "turn" or limits, want
        for slices in slicings(framing, data, eol):
            assert outcome(slices, wire=wire, events=False, **limits) == want, limits


def test_ndjson_counts_a_crlf_as_one_line_end() -> None:
    """Line numbers in errors are the body's lines, whichever line end it uses: a `\\r\\n`
    split anywhere, or a `\\r` then a `\\n` in the next slice, is one line end."""
    answers = set()
    for eol in (b"\n", b"\r\n", b"\r"):
        data = b'{"a":1}' + eol + b'{"b":2}' + eol + eol + b"\xff" + eol
        for cut in range(len(data) + 1):
            decoder = NDJSONDecoder()
            decoder.take(data[:cut])
            decoder.take(data[cut:])
            answers.add(str(decoder.error))
    assert answers == {"line 4 is not UTF-8: invalid start byte"}


@pytest.mark.parametrize(("wire", "framing"), FRAMED)
def test_a_long_call_framed_with_crlf_costs_the_memory_of_one_framed_with_lf(
    wire: str, framing: str
) -> None:
    """Memory, by tracemalloc: a call of 330 KB fed one event a slice costs what it costs with
    LF line ends (at most 4.5 times its UTF-8), where CRLF made its long events text (twice
    the memory on Responses' repetitions) or copied an NDJSON line."""
    text = "plain words, \u03b4\u03ad\u03bb\u03c4\u03b1 \u4e0a\u6d77 " * 10_000
    peaks = {}
    for eol in (b"\n", b"\r\n", b"\r"):
        data = body(wire, framing, eol, text)
        end = {"sse": eol * 2, "ndjson": eol, "json-array": b"," + eol}[framing]
        slices = [piece for piece in re.split(b"(?<=" + re.escape(end) + b")", data) if piece]
        peaks[eol] = fed_peak(slices, events=False, wire=wire)
    assert peaks[b"\n"] < 4.5 * len(text.encode())
    assert peaks[b"\r\n"] <= 1.02 * peaks[b"\n"]
    assert peaks[b"\r"] <= 1.02 * peaks[b"\n"]
