"""An Anthropic arguments event that repeats the envelope of the one before is read by its string
literal alone (`WireReader.learn`), and that reading gives what decoding it in full gives: the
same turn, events and errors, on any split and both backends.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.outcomes import BACKENDS, outcome
from toolcall import TurnBuilder, TurnDone
from toolcall._wires.anthropic import AnthropicReader


def start(index: int, kind: str = "tool_use") -> str:
    block = {"type": kind, "id": f"toolu_{index}", "name": "f", "input": {}}
    return json.dumps({"type": "content_block_start", "index": index, "content_block": block})


def delta(index: int, literal: str) -> str:
    """An `input_json_delta` event whose `partial_json` is `literal`, a JSON string literal as
    written (escapes and all)."""
    return (
        f'{{"type":"content_block_delta","index":{index},'
        f'"delta":{{"type":"input_json_delta","partial_json":{literal}}}}}'
    )


def body(payloads: list[str]) -> bytes:
    head = json.dumps({"type": "message_start", "message": {"usage": {"input_tokens": 1}}})
    tail = [
        json.dumps({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}),
        json.dumps({"type": "message_stop"}),
    ]
    # The reader does not read event names; invalid payloads need one all the same.
    return "".join(f"event: e\ndata: {p}\n\n" for p in [head, *payloads, *tail]).encode()


def pieces(text: str) -> list[str]:
    return [json.dumps(text[i : i + 3]) for i in range(0, len(text), 3)]


def test_repeated_envelopes_are_decoded_once(monkeypatch: pytest.MonkeyPatch) -> None:
    arguments = '{"city": "Zürich", "note": "a \\"quoted\\" word"}'
    payloads = [start(1), *(delta(1, p) for p in pieces(arguments))]
    builder = TurnBuilder(wire="anthropic", events=False)
    reader = builder._reader
    assert isinstance(reader, AnthropicReader)
    decoded: list[str] = []
    loads = reader.loads

    def counting(text: str) -> Any:
        decoded.append(text)
        return loads(text)

    reader.loads = counting
    builder.feed(body(payloads))
    done = builder.finish()[-1]
    assert isinstance(done, TurnDone)
    turn = done.turn
    assert turn.arguments == (json.loads(arguments),)
    # message_start, content_block_start, the first delta, message_delta, message_stop.
    assert len(decoded) == 5


LITERALS = st.one_of(
    st.text(max_size=5).map(json.dumps),
    st.text(max_size=5).map(lambda t: json.dumps(t, ensure_ascii=False)),
    st.sampled_from(['"\\ud800"', '"\\udc00x"', '"\\ud83d\\ude00"', '"a\tb"', '"\\u0041"', '""']),
    st.sampled_from(['"x" ', '"x\\"', "1", "null", '"\\q"', '"\x00"']),
)
EVENTS = st.lists(
    st.one_of(
        st.tuples(st.sampled_from([1, 2, 3]), LITERALS).map(lambda pair: delta(*pair)),
        st.sampled_from(
            [
                start(2),
                start(3, "server_tool_use"),
                json.dumps({"type": "content_block_stop", "index": 1}),
                json.dumps({"type": "ping"}),
                '{"type":"content_block_delta", "index":1,'
                '"delta":{"type":"input_json_delta","partial_json":"y"}}',
            ]
        ),
    ),
    max_size=25,
)


def full(self: AnthropicReader, text: str, event: dict[str, Any]) -> None:
    return None


@settings(max_examples=300, deadline=None)
@given(EVENTS, st.sampled_from(BACKENDS), st.booleans(), st.data())
def test_reading_the_literal_alone_gives_what_full_decoding_gives(
    events: list[str], backend: str, with_events: bool, data: st.DataObject
) -> None:
    raw = body([start(1), *events])
    cuts = sorted(data.draw(st.lists(st.integers(0, len(raw)), max_size=4)))
    split = [raw[a:b] for a, b in zip([0, *cuts], [*cuts, len(raw)], strict=True)]
    fast = outcome(split, backend=backend, events=with_events, wire="anthropic")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(AnthropicReader, "learn", full)
        reference = outcome(raw, backend=backend, events=with_events, wire="anthropic")
    assert fast == reference
