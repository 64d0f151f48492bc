"""Responses repeats a call's arguments whole in three long events; they are checked against
the deltas in the bytes they came in (`toolcall._fast.repeated_text`), and every answer is the
answer of the events decoded in full: the same turn, events and errors, whatever the repetition's
spelling or place. Counted and measured by tracemalloc, never timed."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest

import toolcall._wires.responses
from tests.helpers.memory import fed_peak
from tests.helpers.outcomes import outcome
from toolcall import SSEDecoder
from toolcall._fast.repeated_text import decode_around
from toolcall._framing.long_events import LongEvent

ITEM = {"type": "function_call", "id": "fc_0", "call_id": "call_0", "name": "write"}
#: Made a byte that is not UTF-8 in the body.
BAD = "~not-utf8~"


def dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def body(
    text: str,
    repeats: list[str],
    *,
    calls: int = 1,
    piece: int = 5,
    texts: tuple[str, ...] = (),
) -> bytes:
    """A Responses body streaming `text` as the arguments of `calls` calls (or each of
    `texts`), in deltas of `piece` characters, then the events `repeats` (payloads as
    written)."""
    events = [dumps({"type": "response.created", "response": {}})]
    for n, streamed in enumerate(texts or (text,) * calls):
        item = ITEM | {"id": f"fc_{n}", "call_id": f"call_{n}", "arguments": ""}
        events.append(
            dumps({"type": "response.output_item.added", "output_index": n, "item": item})
        )
        for at in range(0, len(streamed), piece):
            delta = {"type": "response.function_call_arguments.delta", "item_id": f"fc_{n}"}
            events.append(dumps(delta | {"delta": streamed[at : at + piece]}))
    events += repeats
    data = "".join(f"data: {payload}\n\n" for payload in events).encode()
    return data.replace(BAD.encode(), b"\xff")


def sliced(data: bytes, size: int = 7) -> list[bytes]:
    """Slices that leave each event held across feeds: held, not whole in one slice."""
    return [data[at : at + size] for at in range(0, len(data), size)]


def done(text: str, n: int = 0) -> str:
    event = {"type": "response.function_call_arguments.done", "item_id": f"fc_{n}"}
    return dumps(event | {"arguments": text})


def item_done(text: str) -> str:
    item = ITEM | {"arguments": text, "status": "completed"}
    return dumps({"type": "response.output_item.done", "output_index": 0, "item": item})


def completed(*texts: str) -> str:
    output = [ITEM | {"id": f"fc_{n}", "arguments": text} for n, text in enumerate(texts)]
    response = {"status": "completed", "output": output}
    return dumps({"type": "response.completed", "response": response})


TEXT = dumps({"path": "notes.md", "text": 'caf\u00e9 "quoted" \\ \u6f22\u5b57 \U0001f9ea\n' * 20})
PLAIN = [done(TEXT), item_done(TEXT), completed(TEXT)]
DONE_ASCII = json.dumps(
    {"type": "response.function_call_arguments.done", "item_id": "fc_0", "arguments": TEXT}
)
DONE_EMPTY_FIRST = (
    '{"type":"response.function_call_arguments.done","item_id":"fc_0","arguments":"{}",'
    + done(TEXT)[1:]
)
ITEM_NAMED_AS_TEXT = dumps(
    {
        "type": "response.output_item.done",
        "output_index": 0,
        "item": ITEM | {"name": TEXT, "arguments": TEXT},
    }
)
# Each: the events after the deltas, and whether every repetition is read in place.
CASES: dict[str, tuple[list[str], bool]] = {
    "as streamed": (PLAIN, True),
    "escaped otherwise": ([DONE_ASCII, *PLAIN[1:]], False),
    "one character changed": ([done(TEXT.replace("caf", "cab", 1)), *PLAIN[1:]], False),
    "cut short": ([done(TEXT[:-1]), *PLAIN[1:]], False),
    "a key twice, the repetition first": ([done(TEXT)[:-1] + ',"arguments":"{}"}'], False),
    "a key twice, the repetition last": ([DONE_EMPTY_FIRST, *PLAIN[1:]], True),
    "inside another string": ([done(TEXT)[:-1] + ',"note":"x\\' + dumps(TEXT) + "}"], False),
    "where the wire repeats nothing": ([dumps({"type": "response.x", "arguments": TEXT})], False),
    "as the item's name too": ([ITEM_NAMED_AS_TEXT], False),
    "beside a byte that is not UTF-8": ([done(TEXT).replace('"fc_0"', f'"fc_{BAD}"')], False),
    "without its finished response": (PLAIN[:2], True),
}


def every_event_long(monkeypatch: pytest.MonkeyPatch, longer_than: int = len(TEXT)) -> list[int]:
    """From now on, every event held across feeds is held as bytes and every call searched
    for (the path a megabyte takes); returns the sizes of the repetitions read."""
    monkeypatch.setattr(SSEDecoder, "long_from", 1)
    monkeypatch.setattr(toolcall._wires.responses, "_REPEATED_FROM", 1)
    return reads_counted(monkeypatch, longer_than)


def reads_counted(monkeypatch: pytest.MonkeyPatch, longer_than: int = 0) -> list[int]:
    """The sizes of the long events longer than `longer_than` (a repetition, not a delta)
    read from now on: made text, or handed to the bytes reader (`LongEvent.payload`)."""
    read: list[int] = []
    for name in ("text", "payload"):
        original = getattr(LongEvent, name)

        def counted(self: LongEvent, original: Any = original) -> Any:
            if self.end - self.start > longer_than:
                read.append(self.end - self.start)
            return original(self)

        monkeypatch.setattr(LongEvent, name, counted)
    return read


@pytest.mark.parametrize("case", list(CASES))
def test_a_repetition_read_in_place_gives_the_answer_of_one_decoded(
    case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    payloads, in_place = CASES[case]
    data = body(TEXT, payloads)
    want = [outcome(data, wire="responses", events=events) for events in (True, False)]
    read = every_event_long(monkeypatch)
    for pieces in ([data], sliced(data)):
        got = [outcome(pieces, wire="responses", events=events) for events in (True, False)]
        assert got == want
    assert (not read) == in_place


def test_two_calls_with_one_text_are_each_checked_in_place(monkeypatch: pytest.MonkeyPatch) -> None:
    data = body(TEXT, [done(TEXT, 0), done(TEXT, 1), completed(TEXT, TEXT)], calls=2)
    want = outcome(data, wire="responses")
    assert want[0] == "turn"
    read = every_event_long(monkeypatch)
    assert outcome(sliced(data), wire="responses") == want
    assert read == []
    changed = body(TEXT, [done(TEXT, 0), done(TEXT.replace("caf", "cab"), 1)], calls=2)
    assert outcome(sliced(changed), wire="responses")[0] == "StreamError"


def test_a_call_repeating_another_calls_text_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    other = TEXT.replace("caf", "cab")
    data = body("", [done(TEXT, 0), done(TEXT, 1)], texts=(TEXT, other))
    want = outcome(data, wire="responses")
    assert want[0] == "StreamError"
    every_event_long(monkeypatch)
    assert outcome(sliced(data), wire="responses") == want


def test_places_that_overlap_are_not_read_around() -> None:
    data = bytearray(b'{"a":"xyz","b":"q"}')
    end = len(data)
    assert decode_around(data, 0, end, [(5, 10, 0)], json.loads) == (
        {"a": "0a", "b": "q"},
        {("a",): 0},
    )
    assert decode_around(data, 0, end, [(5, 10, 0), (8, 12, 1)], json.loads) is None


def test_a_megabyte_repeated_three_times_costs_its_text_and_one_repetition_at_most(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Arguments of 300,000 characters streamed, then repeated by `.done`, the finished item
    and the finished response, one event a slice: none of the three is made text, and the
    peak is the arguments' text, the joined copy the turn makes, and about one repetition's
    bytes (decoded, each repetition was its text and the string read from it again)."""
    text = dumps({"text": "plain words, \u00e9t\u00e9 " * 16_000})
    data = body(text, [done(text), item_done(text), completed(text)], piece=4096)
    slices = [event + b"\n\n" for event in data.split(b"\n\n") if event]
    read = reads_counted(monkeypatch)
    peak = fed_peak(slices, events=False)
    assert read == []
    assert peak < 2 * sys.getsizeof(text) + 1.5 * len(text.encode())


def test_a_text_that_begins_another_calls_text_is_found_where_it_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The finished response lists first a call whose text is this call's and one more
    character: only the string that ends where the text ends is this call's repetition."""
    longer = TEXT + " "
    output = [
        ITEM | {"id": "fc_1", "call_id": "call_1", "arguments": longer},
        ITEM | {"id": "fc_0", "arguments": TEXT},
    ]
    finished = dumps({"type": "response.completed", "response": {"output": output}})
    data = body("", [done(TEXT, 0), done(longer, 1), finished], texts=(TEXT, longer))
    want = outcome(data, wire="responses")
    assert want[0] == "turn"
    read = every_event_long(monkeypatch)
    assert outcome(sliced(data), wire="responses") == want
    assert read == []


MESSAGE = {"type": "message", "id": "msg_0", "role": "assistant"}


def text_body(text: str, repeats: list[str], *, also: str = "") -> bytes:
    """A Responses body streaming `text` as one message's text (and `also` as a second
    message's), then `repeats`."""
    events = [dumps({"type": "response.created", "response": {}})]
    for n, streamed in enumerate([text, also] if also else [text]):
        message = MESSAGE | {"id": f"msg_{n}"}
        events.append(
            dumps({"type": "response.output_item.added", "output_index": n, "item": message})
        )
        part = {"type": "response.output_text.delta", "item_id": f"msg_{n}", "content_index": 0}
        events += [
            dumps(part | {"delta": streamed[at : at + 5]}) for at in range(0, len(streamed), 5)
        ]
    events += repeats
    return "".join(f"data: {payload}\n\n" for payload in events).encode()


def text_repeated(text: str) -> list[str]:
    """Every place Responses repeats a message's text: `.done`, the finished part, item and
    response."""
    part = {"item_id": "msg_0", "content_index": 0}
    content = {"type": "output_text", "text": text}
    message = MESSAGE | {"content": [content]}
    return [
        dumps({"type": "response.output_text.done", **part, "text": text}),
        dumps({"type": "response.content_part.done", **part, "part": content}),
        dumps({"type": "response.output_item.done", "output_index": 0, "item": message}),
        dumps({"type": "response.completed", "response": {"output": [message]}}),
    ]


PROSE = 'Caf\u00e9 "quoted" \\ \u6f22\u5b57 \U0001f9ea\n' * 40
TEXT_CASES: dict[str, tuple[list[str], bool]] = {
    "as streamed": (text_repeated(PROSE), True),
    "one character changed": (text_repeated(PROSE.replace("Caf", "Cab", 1))[:1], False),
    "as a call's arguments": (
        [dumps({"type": "response.output_item.done", "item": ITEM | {"arguments": PROSE}})],
        False,
    ),
    "with a type that is not text": (
        [dumps({"type": ["response.output_text.done"], "text": PROSE})],
        False,
    ),
    "as a call's name": (
        [dumps({"type": "response.output_item.added", "item": ITEM | {"name": PROSE}})],
        False,
    ),
    "as another message's text": (
        [
            dumps(
                {
                    "type": "response.output_text.done",
                    "item_id": "msg_1",
                    "content_index": 0,
                    "text": PROSE,
                }
            )
        ],
        True,
    ),
}


@pytest.mark.parametrize("case", list(TEXT_CASES))
def test_a_text_repeated_is_read_in_place_as_decoded(
    case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    payloads, in_place = TEXT_CASES[case]
    data = text_body(PROSE, payloads, also=PROSE.replace("Caf", "Cab"))
    want = [outcome(data, wire="responses", events=events) for events in (True, False)]
    read = every_event_long(monkeypatch, longer_than=len(PROSE))
    for pieces in ([data], sliced(data)):
        got = [outcome(pieces, wire="responses", events=events) for events in (True, False)]
        assert got == want
    assert (not read) == in_place


def with_odd_done(data: bytes, odd: Any, where: str) -> bytes:
    """`data` with a `.done` for msg_0's text whose text is `odd`, before the part's first
    delta or before its own `.done`."""
    part = {"item_id": "msg_0", "content_index": 0}
    event = "data: " + dumps({"type": "response.output_text.done", **part, "text": odd})
    follows = "delta" if where == "before its deltas" else "done"
    at = data.index(b'data: {"type":"response.output_text.%s"' % follows.encode())
    return data[:at] + event.encode() + b"\n\n" + data[at:]


@pytest.mark.parametrize("backend", ["auto", "stdlib"])
@pytest.mark.parametrize("odd", [None, 0, False, [], {}, 5, ["x"]])
@pytest.mark.parametrize("where", ["before its deltas", "after its deltas"])
def test_a_whole_text_that_is_not_text_is_read_in_place_as_decoded(
    where: str, odd: Any, backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A text part's `.done` whose text is not a string (the fuzzer's: `null` before the part
    streamed, then a long event): null repeats nothing, as null arguments do, anything else
    is refused; a long event after it, held as bytes and searched for a repetition, gives the
    answer of every event decoded."""
    plain = text_body(PROSE, text_repeated(PROSE))
    malformed = '{"type":"response.output_text.delta","content_index"' + "A" * 70_000 + ":0}"
    for data in (plain, text_body(PROSE, [*text_repeated(PROSE), malformed])):
        data = with_odd_done(data, odd, where)
        want = [outcome(data, backend=backend, events=events) for events in (True, False)]
        if odd is not None:
            assert want[0][0] == "StreamError" and "repeated is not text" in want[0][1]
        elif data.endswith(b"A:0}\n\n"):
            assert want[0][0] == "StreamError" and "is not valid JSON" in want[0][1]
        else:
            assert want[0] == outcome(plain, backend=backend)
        with monkeypatch.context() as patched:
            every_event_long(patched, longer_than=len(PROSE))
            for pieces in ([data], sliced(data, 4096)):
                got = [outcome(pieces, backend=backend, events=events) for events in (True, False)]
                assert got == want
