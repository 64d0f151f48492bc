"""The harness's wire table (`toolcall.harness.reading.wires`) and its one body reader.

Every row is held to the library's own table and to the modules that use its fields; the
reader is held, on every recording of every wire, to giving the body back byte for byte and to
the payloads the library's decoders hand over, whatever line ends the body uses.
"""

from __future__ import annotations

import json
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest

import toolcall
from tests import wire_bodies
from toolcall import _wires as library
from toolcall.harness import peers
from toolcall.harness.reading import streams, wires
from toolcall.harness.serving import routes
from toolcall.harness.suite import recordings
from toolcall.harness.suite.cassettes import CHAT
from toolcall.harness.synthesize import copies

ROOT = Path(__file__).parents[1]
RECORDINGS = recordings.discover(ROOT / "cassettes")
IDS = [f"{r.wire}/{r.name}" for r in RECORDINGS]
LINE_ENDS = {"lf": b"\n", "crlf": b"\r\n", "cr": b"\r"}


# -- the table ----------------------------------------------------------------------------------


def test_the_table_has_a_row_for_each_wire_of_the_library_chat_first() -> None:
    assert tuple(library.WIRES) == wires.NAMES and wires.NAMES[0] == CHAT
    for name, row in wires.WIRES.items():
        assert row.name == name
        assert row.framings == library.WIRES[name].framings
        assert all(framing in library.FRAMINGS for framing in row.framings)


def test_each_row_gives_serve_its_path_and_content_type() -> None:
    for name, row in wires.WIRES.items():
        assert wires.WIRE_PATHS[name] is row.path
        assert row.path.content_type == row.content_type() == wires.CONTENT_TYPES[row.framings[0]]
        assert routes.wire_of(row.path.root + "/" + "/".join(row.path.ending)) == name
    assert wires.WIRES["ollama"].content_type() == "application/x-ndjson"
    assert wires.WIRES["gemini"].content_type(wires.JSON_ARRAY) == "application/json"


def test_each_row_says_how_its_stream_is_cut() -> None:
    said = {name: streams.cut_said(name) for name in wires.NAMES}
    assert said["anthropic"] == "stop_reason 'max_tokens'"
    assert len(set(said.values())) == len(wires.NAMES)


def test_the_rows_that_name_their_events_are_those_whose_recordings_do() -> None:
    shown: dict[str, bool] = {}
    for recording in RECORDINGS:
        if recording.wire != CHAT and not recording.framing:
            read = wires.events(recording.wire, recording.body())
            named = any(e.raw.startswith(b"event:") for e in read)
            shown[recording.wire] = shown.get(recording.wire, False) or named
    assert shown == {name: row.named_events for name, row in wires.WIRES.items() if name != CHAT}


def test_the_synthesized_wires_are_the_rows_with_a_synthesis() -> None:
    assert set(copies.RENDERED_WIRES) == set(copies._RENDERERS)
    event = {"type": "ping", "n": 1}
    assert wires.frame(wires.WIRES["anthropic"], event) == (
        'event: ping\ndata: {"type":"ping","n":1}\n\n'
    )
    assert wires.frame(wires.WIRES["gemini"], event) == 'data: {"type": "ping", "n": 1}\r\n\r\n'
    with pytest.raises(wires.UnknownWire, match="ollama wire has no synthesized cassettes"):
        wires.frame(wires.WIRES["ollama"], event)


def test_each_sdk_named_is_a_peer_that_reads_its_wire() -> None:
    found = {entry.name: entry for entry in entry_points(group=peers.GROUP)}
    named = {row.sdk: name for name, row in wires.WIRES.items() if row.sdk is not None}
    assert len(named) >= 4
    for sdk, name in named.items():
        assert sdk in found, sdk
        assert name in found[sdk].load().wires


def test_an_unknown_wire_is_named_with_the_known_ones() -> None:
    with pytest.raises(wires.UnknownWire, match="unknown wire 'bedrock'; the wires are chat, "):
        wires.events("bedrock", b"")
    with pytest.raises(wires.UnknownWire, match="chat wire is not sent in framing 'ndjson'"):
        wires.events(CHAT, b"{}\n", wires.NDJSON)


# -- the reader on every recording --------------------------------------------------------------


def _decoded(wire: str, body: bytes, framing: str) -> list[Any]:
    """The JSON objects the library's own decoder hands over, fed the body whole."""
    decoder = library.FRAMINGS[wires.framing_of(wire, body, framing)].decoder()
    texts = [t if isinstance(t, str) else t.text() for t in decoder.take(body)] + [
        t if isinstance(t, str) else t.text() for t in decoder.close()
    ]
    found = [json.loads(t) for t in texts if t.strip() != "[DONE]"]
    return [f for f in found if isinstance(f, dict)]


def test_every_wire_has_recordings_and_the_json_array_is_among_them() -> None:
    assert {r.wire for r in RECORDINGS} == set(wires.NAMES)
    assert any(r.framing == wires.JSON_ARRAY for r in RECORDINGS)


@pytest.mark.parametrize("recording", RECORDINGS, ids=IDS)
def test_events_give_the_body_back_and_the_decoders_payloads(
    recording: recordings.Recording,
) -> None:
    body = recording.body()
    read = wires.events(recording.wire, body, recording.framing)
    assert b"".join(e.raw for e in read) == body
    assert [e.number for e in read] == list(range(len(read)))
    assert all(e.raw == body[e.start : e.end] and e.start < e.end for e in read)
    assert [e.start for e in read[1:]] == [e.end for e in read[:-1]]
    objects = wires.objects(recording.wire, body, recording.framing)
    assert objects == [e.payload for e in read if e.payload is not None]
    assert objects == _decoded(recording.wire, body, recording.framing)


def _with_line_ends(body: bytes, eol: bytes) -> bytes:
    """`body` with every line end made `eol` (JSON never holds a raw CR or LF in a string)."""
    return b"\n".join(body.splitlines()).replace(b"\n", eol) + (
        eol if body[-1:] in b"\r\n" else b""
    )


@pytest.mark.parametrize("eol", LINE_ENDS.values(), ids=LINE_ENDS.keys())
@pytest.mark.parametrize("recording", RECORDINGS, ids=IDS)
def test_any_line_ends_give_the_same_events(recording: recordings.Recording, eol: bytes) -> None:
    body = recording.body()
    variant = _with_line_ends(body, eol)
    read = wires.events(recording.wire, variant, recording.framing)
    assert b"".join(e.raw for e in read) == variant
    expected = wires.events(recording.wire, body, recording.framing)
    assert [e.payload for e in read] == [e.payload for e in expected]
    if recording.framing != wires.JSON_ARRAY and recording.wire != "ollama":
        assert all(e.raw.endswith(eol + eol) for e in read[:-1])


# -- the corners, and bodies the reader refuses -------------------------------------------------


def test_a_bom_comments_event_lines_and_done_are_events_of_their_own() -> None:
    body = (
        b"\xef\xbb\xbf: keep-alive\r\n\r\n"
        b'event: message_start\r\ndata: {"type":"message_start"}\r\n\r\n'
        b"\r\n"
        b"data: 7\n\n"
        b"data: [DONE]\n\n\n"
    )
    read = wires.events("anthropic", body)
    assert [(e.data, e.payload, e.comments, e.done) for e in read] == [
        (None, None, ("keep-alive",), False),
        ('{"type":"message_start"}', {"type": "message_start"}, (), False),
        ("7", None, (), False),
        ("[DONE]", None, (), True),
    ]
    assert read[2].raw == b"\r\ndata: 7\n\n" and read[3].raw == b"data: [DONE]\n\n\n"
    with pytest.raises(wires.UnreadableBody, match="event 2 of the anthropic body, at byte off"):
        wires.objects("anthropic", body)


def test_geminis_json_array_is_split_between_its_elements() -> None:
    body = b'[{"a": 1}\n,\r\n{"b": [2, {"c": 3}]}\n]\n'
    read = wires.events("gemini", body)
    assert [e.raw for e in read] == [b'[{"a": 1}\n,\r\n', b'{"b": [2, {"c": 3}]}\n]\n']
    assert [e.payload for e in read] == [{"a": 1}, {"b": [2, {"c": 3}]}]
    assert wires.events("gemini", body, wires.JSON_ARRAY) == read


def test_ollamas_lines_keep_their_blank_lines() -> None:
    body = b'{"a":1}\r\n\r\n{"b":2}\r{"c":3}'
    read = wires.events("ollama", body)
    assert [e.raw for e in read] == [b'{"a":1}\r\n', b'\r\n{"b":2}\r', b'{"c":3}']
    assert wires.objects("ollama", body) == [{"a": 1}, {"b": 2}, {"c": 3}]


@pytest.mark.parametrize(
    ("wire", "body", "number", "offset", "says"),
    [
        (CHAT, b"data: {}\n\ndata: {\xff}\n\n", 1, 10, "not valid UTF-8 at byte offset 17"),
        (CHAT, b"data: {}\n\ndata: {", 1, 10, "ended in the middle of a line"),
        ("ollama", b'{"a":1}\n{"b":\xff}\n', 1, 8, "line 2 is not UTF-8"),
        ("gemini", b'[{"a":1}\n,\n{"b":2', 1, 8, "ended inside its element 2"),
        ("gemini", b'[{"a":1}] x', 1, 8, "goes on after its closing"),
    ],
)
def test_a_refused_body_names_the_event_and_its_offset(
    wire: str, body: bytes, number: int, offset: int, says: str
) -> None:
    with pytest.raises(wires.UnreadableBody) as caught:
        wires.events(wire, body)
    message = str(caught.value)
    assert f"at event {number}, from byte offset {offset}: " in message and says in message
    assert caught.value.offset == offset and len(caught.value.events) == number
    pieces = wires.flushes(wire, body)
    assert b"".join(pieces) == body and len(pieces) == number + 1


def test_an_event_that_is_no_json_object_is_refused_by_objects_only() -> None:
    body = b"data: {}\n\ndata: {nope\n\n"
    read = wires.events(CHAT, body)
    assert [e.payload for e in read] == [{}, None] and read[1].data == "{nope"
    with pytest.raises(wires.UnreadableBody, match=r"event 1 .* byte offset 10, .* not JSON"):
        wires.objects(CHAT, body)
    assert wires.flushes(CHAT, body) == [b"data: {}\n\n", b"data: {nope\n\n"]


DEEP = "[" * 100_000 + "]" * 100_000  # past the depth `json` recurses to


@pytest.mark.parametrize(
    ("wire", "framing"), [(w, f) for w in wires.WIRES for f in wires.WIRES[w].framings]
)
def test_an_event_nested_past_what_json_decodes_is_no_json_object(wire: str, framing: str) -> None:
    """The library refuses such an event as it refuses one that is not JSON, naming it (a
    StreamError), not as a body it cannot frame: the reader gives it no payload, and `objects`
    refuses it naming it, where `json` alone would have raised RecursionError."""
    first = wire_bodies.events(wire, [])[0]
    framed = wire_bodies.frame(wire, [first, "DEEP"], framing=framing).decode()
    body = framed.replace('"DEEP"', DEEP).replace("DEEP", DEEP).encode()
    read = wires.events(wire, body, framing)
    assert [e.payload is None for e in read if e.data is not None] == [False, True]
    with pytest.raises(wires.UnreadableBody, match="nested deeper than it can be decoded"):
        wires.objects(wire, body, framing)
    with pytest.raises(toolcall.StreamError, match="nests deeper than"):
        toolcall.assemble(body, wire=wire)
