"""An Anthropic arguments event that repeats the envelope of the one before is read by its string
literal alone (`WireReader.learn`), and that reading gives what decoding it in full gives: the
same turn, events and errors, on any split and both backends.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers.outcomes import BACKENDS, outcome
from toolcall import Turn, TurnBuilder, TurnDone
from toolcall._wires.anthropic import AnthropicReader


def start(index: int, kind: str = "tool_use") -> str:
    block = {"type": kind, "id": f"toolu_{index}", "name": "f", "input": {}}
    return json.dumps({"type": "content_block_start", "index": index, "content_block": block})


def delta(index: int, literal: str, pad: str = "") -> str:
    """An `input_json_delta` event whose `partial_json` is `literal`, a JSON string literal as
    written (escapes and all), with `pad` before its closing brace as Anthropic pads."""
    return (
        f'{{"type":"content_block_delta","index":{index},'
        f'"delta":{{"type":"input_json_delta","partial_json":{literal}}}{pad}}}'
    )


def body(payloads: list[str]) -> bytes:
    head = json.dumps({"type": "message_start", "message": {"usage": {"input_tokens": 1}}})
    started = re.findall(r'"type": "content_block_start", "index": (\d+)', "".join(payloads))
    tail = [
        *(
            json.dumps({"type": "content_block_stop", "index": int(i)})
            for i in dict.fromkeys(started)
        ),
        json.dumps({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}),
        json.dumps({"type": "message_stop"}),
    ]
    # The reader does not read event names; invalid payloads need one all the same.
    return "".join(f"event: e\ndata: {p}\n\n" for p in [head, *payloads, *tail]).encode()


def pieces(text: str) -> list[str]:
    return [json.dumps(text[i : i + 3]) for i in range(0, len(text), 3)]


def decoding_counted(wire: str, whole: bytes) -> tuple[Turn, list[str]]:
    """The turn of `whole` on `wire`, and the event texts decoded in full to get it."""
    builder = TurnBuilder(wire=wire, events=False)
    decoded: list[str] = []
    loads = builder._loads

    def counting(text: str) -> Any:
        decoded.append(text)
        return loads(text)

    builder._loads = counting  # type: ignore[method-assign]
    builder.feed(whole)
    done = builder.finish()[-1]
    assert isinstance(done, TurnDone)
    return done.turn, decoded


def test_repeated_envelopes_are_decoded_once() -> None:
    arguments = '{"city": "Zürich", "note": "a \\"quoted\\" word"}'
    payloads = [start(1), *(delta(1, p) for p in pieces(arguments))]
    turn, decoded = decoding_counted("anthropic", body(payloads))
    assert turn.arguments == (json.loads(arguments),)
    # message_start, content_block_start, the first delta, content_block_stop, message_delta,
    # message_stop.
    assert len(decoded) == 6


def test_envelopes_padded_with_varying_whitespace_are_decoded_once() -> None:
    """Anthropic pads its events with 0 to 15 spaces before the closing brace, a different
    number each time (cassettes/wires/anthropic/*padded*): the padding is no reason to decode."""
    arguments = '{"city": "Zürich", "note": "a \\"quoted\\" word"}'
    pads = [" " * (n * 7 % 16) for n in range(len(pieces(arguments)))]
    split = zip(pieces(arguments), pads, strict=True)
    payloads = [start(1), *(delta(1, p, pad) for p, pad in split)]
    turn, decoded = decoding_counted("anthropic", body(payloads))
    assert turn.arguments == (json.loads(arguments),)
    assert len(set(pads)) > 5
    # message_start, content_block_start, the first delta, content_block_stop, message_delta,
    # message_stop: as many as without the padding.
    assert len(decoded) == 6


LITERALS = st.one_of(
    st.text(max_size=5).map(json.dumps),
    st.text(max_size=5).map(lambda t: json.dumps(t, ensure_ascii=False)),
    st.sampled_from(['"\\ud800"', '"\\udc00x"', '"\\ud83d\\ude00"', '"a\tb"', '"\\u0041"', '""']),
    st.sampled_from(['"x" ', '"x\\"', "1", "null", '"\\q"', '"\x00"']),
)
#: Whitespace before an event's closing brace, and the text that is not whitespace there.
PADDING = st.one_of(
    st.just(""),
    st.text(alphabet=" \t", max_size=16),
    st.sampled_from([" x", "\u00a0", " ,", "} ", "\x0b"]),
)
EVENTS = st.lists(
    st.one_of(
        st.tuples(st.sampled_from([1, 2, 3]), LITERALS, PADDING).map(lambda t: delta(*t)),
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


@pytest.mark.slow
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


# -- Responses: `obfuscation` and `sequence_number` vary from event to event ------------------


def responses_body(payloads: list[str]) -> bytes:
    item = {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "f"}
    head = [
        json.dumps({"type": "response.created", "response": {}}),
        json.dumps({"type": "response.output_item.added", "output_index": 0, "item": item}),
    ]
    tail = json.dumps({"type": "response.completed", "response": {"usage": {"total_tokens": 3}}})
    return "".join(f"event: e\ndata: {p}\n\n" for p in [*head, *payloads, tail]).encode()


def responses_delta(
    literal: str, obfuscation: str, number: str, item: str = "fc_1", pad: str = ""
) -> str:
    return (
        f'{{"type":"response.function_call_arguments.delta","delta":{literal},'
        f'"item_id":"{item}","obfuscation":{obfuscation},"output_index":0,'
        f'"sequence_number":{number}{pad}}}'
    )


def test_responses_deltas_differing_in_unread_members_are_decoded_once() -> None:
    arguments = '{"city": "Zürich"}'
    payloads = [
        responses_delta(p, json.dumps("x" * (n % 5)), str(n + 2))
        for n, p in enumerate(pieces(arguments))
    ]
    turn, decoded = decoding_counted("responses", responses_body(payloads))
    assert turn.arguments == (json.loads(arguments),)
    # response.created, output_item.added, the first delta, response.completed.
    assert len(decoded) == 4


NUMBERS = st.one_of(
    st.integers(-(2**70), 2**70).map(str),
    st.sampled_from(["1.5", "01", "-0", "1e3", "9" * 400, '"7"', "null"]),
)
RESPONSES_EVENTS = st.lists(
    st.one_of(
        st.tuples(LITERALS, LITERALS, NUMBERS, st.just("fc_1"), PADDING).map(
            lambda t: responses_delta(*t)
        ),
        st.tuples(LITERALS, LITERALS, NUMBERS).map(lambda t: responses_delta(*t, item="fc_2")),
        st.sampled_from(
            [
                '{"type":"response.function_call_arguments.delta","delta":"z","item_id":"fc_1",'
                '"obfuscation":"a","obfuscation":"b","output_index":0,"sequence_number":1}',
                '{"type":"response.function_call_arguments.delta","delta":"z","item_id":"fc_1",'
                '"output_index":0,"sequence_number":1,"obfuscation":"\\"sequence_number\\":2"}',
                '{"sequence_number":1,"type":"response.function_call_arguments.delta",'
                '"delta":"z","output_index":0}',
                json.dumps({"type": "response.output_text.delta", "delta": "t", "item_id": "m"}),
            ]
        ),
    ),
    max_size=25,
)


def unread(self: object, text: str, event: dict[str, Any]) -> None:
    return None


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(RESPONSES_EVENTS, st.sampled_from(BACKENDS), st.booleans(), st.data())
def test_responses_reading_the_literal_alone_gives_what_full_decoding_gives(
    events: list[str], backend: str, with_events: bool, data: st.DataObject
) -> None:
    from toolcall._wires.responses import ResponsesReader

    raw = responses_body(events)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(raw)), max_size=4)))
    split = [raw[a:b] for a, b in zip([0, *cuts], [*cuts, len(raw)], strict=True)]
    fast = outcome(split, backend=backend, events=with_events, wire="responses")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ResponsesReader, "learn", unread)
        reference = outcome(raw, backend=backend, events=with_events, wire="responses")
    assert fast == reference
