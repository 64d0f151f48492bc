"""The reading of a long event's bytes without making them text (`_json.utf8_reader`, jiter):
the text path's value, or left unread and read as text, never anything else; and the events
it is for are read through it, counted, not timed."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import toolcall
import toolcall._json
from tests.helpers.outcomes import outcome
from tests.helpers.wire_bodies import events, frame
from tests.library.test_properties import FAST, decoded, json_texts, numbers
from toolcall._framing.long_events import LongEvent
from toolcall._json import UNREAD, ReadsUtf8, utf8_reader


@pytest.fixture(scope="module")
def reads() -> ReadsUtf8:
    found = utf8_reader("auto")
    if found is None:
        pytest.skip("no reading of bytes (jiter missing, or reading a probe otherwise)")
    return found


def read_from(reads: ReadsUtf8, data: bytes) -> tuple[str, str] | None:
    value = reads(data)
    return None if value is UNREAD else ("value", json.dumps(value))


@FAST
@given(text=json_texts())
@example(text='{"":1e400,"":[]}')  # a key given twice hid a number the text path refuses
def test_any_json_text_reads_from_its_bytes_as_from_its_text(reads: ReadsUtf8, text: str) -> None:
    got = read_from(reads, text.encode("utf-8", "surrogatepass"))
    assert got is None or got == decoded("stdlib", text)


@FAST
@given(number=numbers)
def test_any_number_reads_from_its_bytes_as_from_its_text(reads: ReadsUtf8, number: str) -> None:
    """Integers past 64 bits are doubles in a chunk, and floats past a double's range are
    refused: jiter reads both otherwise, so both are left to the text path."""
    got = read_from(reads, f"[{number}]".encode())
    assert got is None or got == decoded("stdlib", f"[{number}]")


@st.composite
def spoiled_texts(draw: st.DrawFn) -> bytes:
    """A JSON text's bytes with any bytes put in anywhere: broken UTF-8 among them."""
    data = bytearray(draw(json_texts()).encode("utf-8", "surrogatepass"))
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(data)))
        data[at:at] = draw(st.binary(min_size=1, max_size=3))
    return bytes(data)


@FAST
@given(data=spoiled_texts() | st.binary(max_size=40))
def test_bytes_the_text_path_refuses_are_never_read(reads: ReadsUtf8, data: bytes) -> None:
    got = read_from(reads, data)
    if got is not None:
        assert got == decoded("stdlib", data.decode("utf-8"))


def test_the_readings_most_bodies_carry_are_read(reads: ReadsUtf8) -> None:
    """Not a reader that leaves everything unread: a whole call, with escapes, Greek, Chinese
    and an emoji, and the numbers a chunk carries, are read."""
    event = {
        "candidates": [{"content": {"parts": [{"functionCall": {"name": "write", "args": {}}}]}}],
        "usageMetadata": {"promptTokenCount": 12, "totalTokenCount": 2**40},
    }
    event["candidates"][0]["content"]["parts"][0]["functionCall"]["args"] = {
        "text": 'caf\u00e9 "\u03b4\u03ad\u03bb\u03c4\u03b1" \u4e0a\u6d77 \U0001f9ea\n' * 50,
        "ratio": 0.25,
        "flags": [True, False, None],
    }
    data = json.dumps(event, ensure_ascii=False).encode()
    assert reads(data) == event


def test_a_reader_that_reads_a_probe_otherwise_is_not_used() -> None:
    """The stdlib reads lone surrogates, jiter with its defaults `NaN`, and jiter unwalked
    integers past 64 bits: none gives the library's reading, and the probes find each."""
    jiter = pytest.importorskip("jiter")

    def unwalked(data: bytes) -> Any:
        try:
            return jiter.from_json(data, allow_inf_nan=False)
        except ValueError:
            return UNREAD

    for otherwise in (json.loads, jiter.from_json):
        assert not toolcall._json._reads_like_the_library(toolcall._json._jiter_reads(otherwise))
    assert not toolcall._json._reads_like_the_library(unwalked)
    # A key given twice hides its first value from the walk (`{"":1e400,"":[]}`).
    assert not toolcall._json._reads_like_the_library(
        toolcall._json._jiter_reads(
            lambda data: jiter.from_json(data, allow_inf_nan=False, cache_mode="keys")
        )
    )
    assert toolcall._json._reads_like_the_library(
        toolcall._json._jiter_reads(
            lambda data: jiter.from_json(
                data, allow_inf_nan=False, cache_mode="keys", catch_duplicate_keys=True
            )
        )
    )


def test_only_the_auto_backend_reads_bytes() -> None:
    """`stdlib` and `orjson` name the one library they use."""
    assert utf8_reader("stdlib") is None
    assert utf8_reader("orjson") is None


LONG_TEXT = 'caf\u00e9 "\u03b4\u03ad\u03bb\u03c4\u03b1" \u4e0a\u6d77 \U0001f9ea\n' * 4000


@pytest.mark.parametrize("wire", ["gemini", "ollama"])
@pytest.mark.parametrize("backend", ["auto", "stdlib"])
def test_a_whole_call_of_a_long_event_is_read_from_its_bytes(
    reads: ReadsUtf8, monkeypatch: pytest.MonkeyPatch, wire: str, backend: str
) -> None:
    """Counted: a whole call of 100 KB, fed one event a slice, is read from its bytes on
    `auto` (never made text, never given to the text reading) and made text on `stdlib`,
    for the same turn."""
    body = frame(wire, events(wire, [("write", {"text": LONG_TEXT})], "Hi"))
    end = b"\n" if wire == "ollama" else b"\n\n"
    slices = [event + end for event in body.split(end) if event]
    want = outcome(body, wire=wire, backend="stdlib", events=False)
    assert want[0] == "turn"
    made_text: list[int] = []
    read_as_text: list[int] = []
    text = LongEvent.text

    def counted_text(self: LongEvent) -> str:
        made_text.append(self.end - self.start)
        return text(self)

    loads = toolcall._json.backend(backend)

    def counted_loads(payload: str) -> Any:
        if len(payload) > 64 * 1024:
            read_as_text.append(len(payload))
        return loads(payload)

    monkeypatch.setattr(LongEvent, "text", counted_text)
    monkeypatch.setattr(toolcall._stream, "backend", lambda name: counted_loads)
    assert outcome(slices, wire=wire, backend=backend, events=False) == want
    if backend == "auto":
        assert (made_text, read_as_text) == ([], [])
    else:
        assert len(made_text) == len(read_as_text) == 1
