"""What holds on one wire holds on all five: each rule stated once, checked on every wire.

The bodies come from `wire_bodies` (one turn written on each wire) and are edited the way a
faulty relay, server or attacker would: an open repeated, a body sent twice, arguments of any
JSON type past a limit, a repetition that disagrees, events out of order, an error answer
without a status, another framing.
"""

from __future__ import annotations

import copy
import json
import re
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

import toolcall
import toolcall._stream
from tests import wire_bodies
from tests.memory import fed_peak
from tests.outcomes import outcome
from tests.wire_bodies import WIRES, as_json_array, events, frame
from toolcall import (
    ArgumentsDelta,
    Event,
    LimitExceeded,
    ProviderError,
    StreamError,
    ToolCallError,
    ToolCallStarted,
    TruncatedError,
    TurnBuilder,
    TurnDone,
)
from toolcall._framing.json_documents import DocumentDecoder
from toolcall._framing.ndjson import NDJSONDecoder
from toolcall._json import backend
from toolcall.harness.checks.event_check import event_problems
from toolcall.harness.suite import recordings

CALLS: list[wire_bodies.Call] = [("add", {"a": 1}), ("multiply", {"b": 2})]


def read(body: bytes | list[bytes], **options: Any) -> tuple[toolcall.Turn, list[Event]]:
    builder = TurnBuilder(**options)
    seen: list[Event] = []
    for piece in [body] if isinstance(body, bytes) else body:
        seen += builder.feed(piece)
    seen += builder.finish()
    done = seen[-1]
    assert isinstance(done, TurnDone)
    return done.turn, seen


def names(turn: toolcall.Turn) -> list[tuple[int, str, dict[str, Any]]]:
    return [
        (c.index, c.function.name, a) for c, a in zip(turn.tool_calls, turn.arguments, strict=True)
    ]


def every_split(body: bytes) -> list[list[bytes]]:
    return [[body[:at], body[at:]] for at in range(1, len(body))]


EXPECTED = [(0, "add", {"a": 1}), (1, "multiply", {"b": 2})]


# -- two calls never share a number -----------------------------------------------------------


def opening(wire: str, items: list[Any]) -> int:
    """Where the first call opens in `items`: the event a faulty server may send twice."""

    def opens(item: Any) -> bool:
        if not isinstance(item, dict):
            return False
        if wire == "chat":
            calls = item["choices"][0]["delta"].get("tool_calls") or [{}]
            return "id" in calls[0]
        if wire == "responses":
            added = item["type"] == "response.output_item.added"
            return added and item["item"]["type"] == "function_call"
        if wire == "anthropic":
            started = item["type"] == "content_block_start"
            return started and item["content_block"]["type"] == "tool_use"
        if wire == "gemini":
            return "functionCall" in json.dumps(item)
        return bool(item["message"].get("tool_calls"))

    return next(at for at, item in enumerate(items) if opens(item))


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("where", ["at once", "after its arguments"])
def test_two_calls_never_share_a_number(wire: str, where: str) -> None:
    """An open the wire repeats for a call it opened is that call again, never a new call on a
    number another call holds; events name each call as the turn does."""
    items = events(wire, CALLS)
    at = opening(wire, items)
    again = copy.deepcopy(items[at])
    if wire in ("gemini", "ollama"):
        # A call is its part or its line: the repetition is another call with the same id.
        if where != "at once":
            pytest.skip("a call is whole in one part or line: nothing comes after its opening")
        expected = [(0, "add", {"a": 1}), (1, "add", {"a": 1}), (2, "multiply", {"b": 2})]
    else:
        expected = EXPECTED
    items.insert(at + 1 if where == "at once" else at + 3, again)
    if wire == "ollama":
        items[at]["message"]["tool_calls"].insert(1, items[at]["message"]["tool_calls"][0])
        del items[at + 1 if where == "at once" else at + 3]
    for body in (frame(wire, items), *every_split(frame(wire, items))[::97]):
        turn, seen = read(body)
        assert names(turn) == expected
        assert event_problems(seen, turn) == []
        assert len({c.index for c in turn.tool_calls}) == len(turn.tool_calls)


@pytest.mark.parametrize("wire", ["responses", "anthropic"])
def test_an_open_repeated_as_another_call_is_a_stream_error(wire: str) -> None:
    items = events(wire, CALLS)
    at = opening(wire, items)
    again = copy.deepcopy(items[at])
    key = "item" if wire == "responses" else "content_block"
    again[key]["name"] = "delete_file"
    items.insert(at + 2, again)
    with pytest.raises(StreamError, match="again as 'delete_file'"):
        toolcall.assemble(frame(wire, items))


# -- what ends a turn ends it on every wire ---------------------------------------------------


@pytest.mark.parametrize("framing", [None, "json-array"])
@pytest.mark.parametrize("wire", WIRES)
def test_a_body_sent_twice_is_one_turn_and_a_second_generation(
    wire: str, framing: str | None
) -> None:
    if framing == "json-array" and wire != "gemini":
        pytest.skip("only Gemini is sent as a JSON array")
    once = frame(wire, events(wire, CALLS, "Hi there"), framing=framing)
    turn, _ = read(once)
    for body in (once + once, [once, once], [once, once[:9], once[9:]]):
        twice, seen = read(body)
        assert names(twice) == EXPECTED
        assert twice.content == turn.content == "Hi there"
        assert [d.code for d in twice.diagnostics] == [
            *(d.code for d in turn.diagnostics),
            "second_generation",
        ]
        assert event_problems(seen, twice) == []
        assert toolcall.assemble(b"".join(body) if isinstance(body, list) else body) == twice


#: The wires a relay serves beside chat completions in SSE, where it may end them with `[DONE]`.
SSE_WIRES = ("responses", "anthropic", "gemini")
DONE_EVENTS = [
    b"data: [DONE]\n\n",
    b"event: data\ndata: [DONE]\n\n",
    b"event: done\ndata:[DONE]\n\n",
]


def without_codes(answer: tuple[str, Any], *codes: str) -> tuple[str, Any]:
    """An outcome's turn with the diagnostics `codes` taken out, to compare with another's."""
    kind, text = answer
    assert kind == "turn", answer
    data = json.loads(text)
    data["diagnostics"] = [d for d in data["diagnostics"] if d["code"] not in codes]
    return kind, data


def splits_near_the_end(body: bytes, tail: int) -> list[list[bytes]]:
    """The body cut once at every byte of its last `tail` bytes and a few before, and cut into
    single bytes."""
    cuts = [[body[:at], body[at:]] for at in range(max(1, len(body) - tail), len(body))]
    return [
        *cuts,
        *every_split(body)[:: max(1, len(body) // 5)],
        [body[i : i + 1] for i in range(len(body))],
    ]


@pytest.mark.parametrize("events_on", [True, False])
@pytest.mark.parametrize("json_backend", ["auto", "stdlib"])
@pytest.mark.parametrize("done", DONE_EVENTS)
@pytest.mark.parametrize("wire", SSE_WIRES)
def test_a_relays_done_after_the_end_ends_the_body_with_a_diagnostic(
    wire: str, done: bytes, json_backend: str, events_on: bool
) -> None:
    """A relay that serves Anthropic Messages, Responses or Gemini beside chat completions
    sends chat's `[DONE]` after the wire's own end, under any event name or none: the turn is
    the one without it, and `done_after_end` names it, however the body is split."""
    plain = frame(wire, events(wire, CALLS, "Hi there"))
    expected = outcome(plain, backend=json_backend, events=events_on)
    body = plain + done
    for pieces in splits_near_the_end(body, len(done) + 4):
        answer = outcome(pieces, backend=json_backend, events=events_on)
        assert without_codes(answer, "done_after_end") == without_codes(expected), pieces
        codes = [d["code"] for d in json.loads(answer[1])["diagnostics"]]
        assert codes.count("done_after_end") == 1
    turn = toolcall.assemble(body, json_backend=json_backend, wire=wire)
    (note,) = [d for d in turn.diagnostics if d.code == "done_after_end"]
    assert "[DONE]" in note.message and f"{wire} event" in note.message
    assert names(turn) == EXPECTED


def test_a_gemini_done_may_follow_a_usage_report_after_the_finish() -> None:
    items = events("gemini", CALLS)
    items.append({"usageMetadata": {"promptTokenCount": 10, "totalTokenCount": 20}})
    turn = toolcall.assemble(frame("gemini", items) + DONE_EVENTS[1])
    assert turn.usage == {"promptTokenCount": 10, "totalTokenCount": 20}
    assert [d.code for d in turn.diagnostics] == ["done_after_end"]


@pytest.mark.parametrize("wire", SSE_WIRES)
def test_a_done_before_the_end_is_refused_as_it_was(wire: str) -> None:
    """Before the wire's end, `[DONE]` is what it always was on these wires: not JSON."""
    items = events(wire, CALLS)
    for at in (1, len(items) - 1):
        body = frame(wire, items[:at]) + DONE_EVENTS[0] + frame(wire, items[at:])
        for pieces in ([body], [body[:-30], body[-30:]]):
            with pytest.raises(StreamError, match=rf"{wire} event {at + 1} is not valid JSON"):
                read(pieces)


def error_event(wire: str) -> dict[str, Any]:
    error = {"type": "overloaded_error", "message": "Overloaded"}
    if wire == "gemini":
        return {"error": {"code": 503, "message": "Overloaded", "status": "UNAVAILABLE"}}
    return {"type": "error", "error": error}


@pytest.mark.parametrize("wire", SSE_WIRES)
def test_what_follows_a_relays_done_is_read_as_after_the_end(wire: str) -> None:
    """After the `[DONE]`: a second `[DONE]` is refused as before, a provider's error is
    raised, and the body again is a second generation, left out and reported."""
    once = frame(wire, events(wire, CALLS, "Hi there"))
    ended = once + DONE_EVENTS[0]
    with pytest.raises(StreamError, match="is not valid JSON"):
        read(ended + DONE_EVENTS[0])
    with pytest.raises(toolcall.ProviderError, match="Overloaded"):
        read(ended + frame(wire, [error_event(wire)]))
    turn, seen = read(ended + ended)
    assert names(turn) == EXPECTED and turn.content == "Hi there"
    assert [d.code for d in turn.diagnostics] == ["done_after_end", "second_generation"]
    assert event_problems(seen, turn) == []


def test_chats_own_done_is_unchanged() -> None:
    body = frame("chat", events("chat", CALLS))
    assert body.endswith(DONE_EVENTS[0])
    turn, _ = read(body)
    assert names(turn) == EXPECTED and turn.diagnostics == ()
    turn, _ = read(body + DONE_EVENTS[0])  # chat reads any number of its own
    assert turn.diagnostics == ()


@pytest.mark.parametrize("framing", ["ndjson", "json-array"])
def test_a_done_in_a_framing_of_json_documents_is_refused(framing: str) -> None:
    """A line or array element `[DONE]` is no JSON document, and no server is known to send
    one: after Ollama's `done: true` line or Gemini's last element it is refused as before."""
    wire = "ollama" if framing == "ndjson" else "gemini"
    items = events(wire, CALLS)
    if framing == "ndjson":
        body = frame(wire, items) + b"[DONE]\n"
    else:
        body = frame(wire, items, framing="json-array")[:-1] + b",\n[DONE]]"
    for pieces in ([body], [body[:-5], body[-5:]]):
        with pytest.raises(StreamError, match=rf"{wire} event {len(items) + 1} is not valid JSON"):
            read(pieces)


# -- limits count what arrives, whatever its JSON type ----------------------------------------


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize(
    "value", ["x" * 3000, ["x" * 10] * 300, {"k": {"k": "x" * 3000}}], ids=["str", "list", "obj"]
)
def test_argument_limits_count_values_of_every_json_type(wire: str, value: Any) -> None:
    body = frame(wire, events(wire, [("f", {"v": value})], size=500))
    assert toolcall.assemble(body, max_argument_chars=10_000).arguments == ({"v": value},)
    with pytest.raises(LimitExceeded, match="max_argument_chars"):
        toolcall.assemble(body, max_argument_chars=2_000)


def vertex(*entries: dict[str, Any], name: str = "f") -> bytes:
    """A Vertex call streamed as `partialArgs`, one entry per event."""

    def event(call: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"parts": [{"functionCall": call}]}}
        if finish:
            candidate = {"content": {"parts": []}, "finishReason": finish}
        return {"candidates": [candidate]}

    items = [event({"name": name, "willContinue": True})]
    items += [event({"partialArgs": [entry], "willContinue": True}) for entry in entries]
    items += [event({}), event({}, "STOP")]
    return frame("gemini", items)


def test_vertex_partial_arguments_count_object_and_list_values_as_they_arrive() -> None:
    """Forty objects of 1,000 characters in one event are refused under a 10,000 limit."""
    entries = [{"jsonPath": f"$.v{n}", "structValue": {"t": "x" * 1000}} for n in range(40)]
    one_event = frame(
        "gemini",
        [
            {
                "candidates": [
                    {"content": {"parts": [{"functionCall": {"name": "f", "willContinue": True}}]}}
                ]
            },
            {
                "candidates": [
                    {
                        "content": {
                            "parts": [
                                {"functionCall": {"partialArgs": entries, "willContinue": True}}
                            ]
                        }
                    }
                ]
            },
            {"candidates": [{"content": {"parts": []}, "finishReason": "STOP"}]},
        ],
    )
    # Refused by the event that brings them, not when the call closes: held until then, forty
    # values of a megabyte each were 147 MB under a 10,000-character limit.
    builder = TurnBuilder(max_argument_chars=10_000)
    with pytest.raises(LimitExceeded, match="max_argument_chars"):
        builder.feed(one_event[: one_event.rindex(b"data:")])
    assert len(toolcall.assemble(one_event, max_argument_chars=50_000).arguments[0]) == 40
    lists = vertex(*({"jsonPath": f"$.l{n}", "listValue": ["y" * 500] * 2} for n in range(12)))
    with pytest.raises(LimitExceeded, match="max_argument_chars"):
        toolcall.assemble(lists, max_argument_chars=10_000)


def nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth - 1):
        value = {"a": value}
    return value


@pytest.mark.parametrize("wire", WIRES)
def test_arguments_nest_no_deeper_than_128_levels_on_any_wire(wire: str) -> None:
    """The depth JSON is read to anywhere in the library; the wire's own envelope around the
    arguments counts for wires that send them inside the event as an object."""
    assert toolcall.assemble(frame(wire, events(wire, [("f", nested(100))], size=50)))
    with pytest.raises(ToolCallError, match="deeper than 128 levels"):
        toolcall.assemble(frame(wire, events(wire, [("f", nested(129))], size=50)))


@pytest.mark.parametrize("depth", [129, 700])
def test_a_vertex_json_path_nests_no_deeper_than_128_levels(depth: int) -> None:
    assert toolcall.assemble(vertex({"jsonPath": "$" + ".a" * 128, "numberValue": 1}))
    with pytest.raises(StreamError, match="deeper than 128 levels"):
        toolcall.assemble(vertex({"jsonPath": "$" + ".a" * depth, "numberValue": 1}))
    # The path and the value it sets count together.
    with pytest.raises(StreamError, match="deeper than 128 levels"):
        toolcall.assemble(vertex({"jsonPath": "$" + ".a" * 120, "structValue": nested(9)}))


@pytest.mark.parametrize(
    "entry",
    [
        {"numberValue": "abc"},
        {"numberValue": True},
        {"boolValue": 5},
        {"stringValue": 5},
        {"structValue": [1]},
        {"listValue": {"a": 1}},
    ],
    ids=lambda entry: f"{next(iter(entry))}={json.dumps(next(iter(entry.values())))}",
)
def test_a_vertex_value_of_the_wrong_json_type_is_a_stream_error(entry: dict[str, Any]) -> None:
    with pytest.raises(StreamError, match="is not"):
        toolcall.assemble(vertex({"jsonPath": "$.v", **entry}))


@pytest.mark.parametrize("signature", [5, {"s": "x"}, ["x"], True])
def test_a_thought_signature_that_is_not_text_is_a_stream_error(signature: Any) -> None:
    items = events("gemini", CALLS)
    items[0]["candidates"][0]["content"]["parts"][0]["thoughtSignature"] = signature
    with pytest.raises(StreamError, match="thoughtSignature must be text"):
        toolcall.assemble(frame("gemini", items))


# -- what the wire repeats is checked against what was streamed -------------------------------


@pytest.mark.parametrize("repeated", ["", 0, False, "{}", '{"a": 2}', None])
def test_responses_repeated_arguments_are_checked_against_the_deltas(repeated: Any) -> None:
    items = events("responses", CALLS)
    done = next(i for i in items if i["type"] == "response.function_call_arguments.done")
    done["arguments"] = repeated
    if repeated is None:  # no repetition at all: nothing to check
        assert names(toolcall.assemble(frame("responses", items))) == EXPECTED
        return
    with pytest.raises(StreamError, match=r"differ from its deltas|not text"):
        toolcall.assemble(frame("responses", items))


@pytest.mark.parametrize("kind", ["output_text", "reasoning_text", "reasoning_summary_text"])
def test_responses_repeated_text_is_checked_against_the_deltas(kind: str) -> None:
    items = events("responses", CALLS, "Hello")
    for item in items:
        if item["type"] == "response.output_text.delta":
            item["type"] = f"response.{kind}.delta"
        elif item["type"] == "response.output_text.done":
            item["type"] = f"response.{kind}.done"
            same = frame("responses", items)
            item["text"] = "Goodbye"
    assert toolcall.assemble(same)
    with pytest.raises(StreamError, match="differs from its deltas"):
        toolcall.assemble(frame("responses", items))


def test_anthropic_input_is_checked_against_the_deltas() -> None:
    items = events("anthropic", CALLS)
    start = next(i for i in items if i["type"] == "content_block_start")
    start["content_block"]["input"] = {"a": 1}
    assert names(toolcall.assemble(frame("anthropic", items))) == EXPECTED
    start["content_block"]["input"] = {"a": 2}
    with pytest.raises(StreamError, match="input differs"):
        toolcall.assemble(frame("anthropic", items))


@pytest.mark.parametrize("deltas", [True, False])
def test_an_anthropic_tool_use_block_without_its_stop_is_not_finished(deltas: bool) -> None:
    items = events("anthropic", [("delete_file", {"path": "/tmp/x"})])
    if not deltas:
        items = [i for i in items if i["type"] != "content_block_delta"]
        items[1]["content_block"]["input"] = {"path": "/tmp/x"}
    assert names(toolcall.assemble(frame("anthropic", items))) == [
        (0, "delete_file", {"path": "/tmp/x"})
    ]
    items = [i for i in items if i["type"] != "content_block_stop"]
    with pytest.raises(TruncatedError, match="never got its content_block_stop"):
        toolcall.assemble(frame("anthropic", items))


# -- events say exactly what the turn says, in order ------------------------------------------


def chat_chunk(call: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    delta = {"tool_calls": [call]} if call else {}
    return {"id": "c", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def test_a_name_fragment_after_the_arguments_began_is_a_stream_error() -> None:
    items = [
        chat_chunk({"index": 0, "id": "call_1", "function": {"name": "get"}}),
        chat_chunk({"index": 0, "function": {"arguments": '{"city": '}}),
        chat_chunk({"index": 0, "function": {"name": "_weather"}}),
        chat_chunk({"index": 0, "function": {"arguments": '"Paris"}'}}),
        chat_chunk({}, "tool_calls"),
    ]
    body = frame("chat", items)
    for events_on in (True, False):
        with pytest.raises(StreamError, match="name fragment '_weather' arrived after"):
            read(body, events=events_on)


def test_arguments_before_the_naming_chunk_are_reported_after_the_start() -> None:
    items = [
        chat_chunk({"index": 0, "function": {"arguments": '{"city": '}}),
        chat_chunk({"index": 0, "id": "call_1", "function": {"name": "get_weather"}}),
        chat_chunk({"index": 0, "function": {"arguments": '"Paris"}'}}),
        chat_chunk({}, "tool_calls"),
    ]
    turn, seen = read(frame("chat", items))
    assert names(turn) == [(0, "get_weather", {"city": "Paris"})]
    assert event_problems(seen, turn) == []
    calls = [e for e in seen if isinstance(e, (ToolCallStarted, ArgumentsDelta))]
    assert isinstance(calls[0], ToolCallStarted) and calls[0].name == "get_weather"


def test_the_event_check_sees_a_start_under_another_name_and_a_delta_before_the_start() -> None:
    turn, seen = read(frame("chat", events("chat", CALLS)))
    assert event_problems(seen, turn) == []
    renamed = [
        ToolCallStarted(e.index, e.id, "add_more")
        if isinstance(e, ToolCallStarted) and e.index == 0
        else e
        for e in seen
    ]
    assert any("started as 'add_more'" in p for p in event_problems(renamed, turn))
    start = next(e for e in seen if isinstance(e, ToolCallStarted))
    early = [e for e in seen if e is not start]
    early.insert(early.index(next(e for e in early if isinstance(e, ArgumentsDelta))) + 1, start)
    assert any("before ToolCallStarted" in p for p in event_problems(early, turn))


# -- an error answer is a ProviderError with its message on every path ------------------------

ANSWERS = [
    ({"detail": "Invalid API key"}, "Invalid API key"),
    ({"code": 401, "msg": "Invalid API key"}, "Invalid API key"),
    ({"message": "Invalid API key"}, "Invalid API key"),
    ({"error": {"message": "Invalid API key", "type": "auth"}}, "Invalid API key"),
    ({"error": "Invalid API key"}, "Invalid API key"),
    ({"error": {"code": 403, "status": "PERMISSION_DENIED"}}, "PERMISSION_DENIED"),
    (
        [{"error": {"code": 401, "message": "Invalid API key", "status": "UNAUTHENTICATED"}}],
        "Invalid API key",
    ),
]


@pytest.mark.parametrize("wire", ["auto", *WIRES])
@pytest.mark.parametrize(
    "answer", ANSWERS, ids=lambda a: json.dumps(a[0])[:30] if isinstance(a, tuple) else ""
)
def test_a_json_error_answer_without_status_is_a_provider_error_with_its_message(
    wire: str, answer: tuple[Any, str]
) -> None:
    document, message = answer
    for text in (json.dumps(document), json.dumps(document) + "\n", json.dumps(document, indent=2)):
        for status in (None, 200):
            body = ("\ufeff" if status else "").encode() + text.encode()
            with pytest.raises(ProviderError, match=message) as raised:
                toolcall.assemble(body, wire=wire, status=status)
            assert "cut off" not in str(raised.value)
            with pytest.raises(ProviderError, match=message):
                read([body[:5], body[5:]], wire=wire, status=status)


# -- framings ---------------------------------------------------------------------------------


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("bom", [False, True])
def test_ndjson_reads_alike_with_any_line_end_and_a_byte_order_mark(ending: str, bom: bool) -> None:
    plain = frame("ollama", events("ollama", CALLS, "Hi"))
    body = (b"\xef\xbb\xbf" if bom else b"") + plain.replace(b"\n", ending.encode())
    want = toolcall.assemble(plain)
    for wire in ("auto", "ollama"):
        assert toolcall.assemble(body, wire=wire) == want
        for pieces in every_split(body)[::5]:
            assert outcome(pieces, wire=wire) == outcome(plain)


@pytest.mark.parametrize(
    "start", [b"\xef", b"\xef\xbb", b"\xef ", b"\xef\xbb\n", b"\xff", b"\xe5\x8c"]
)
@pytest.mark.parametrize(("wire", "framing"), [("gemini", "json-array"), ("ollama", "ndjson")])
def test_a_body_that_begins_with_bytes_that_are_not_utf8_is_refused_alike_however_split(
    wire: str, framing: str, start: bytes
) -> None:
    """The start of a byte-order mark that is not one, or any byte that is not UTF-8, before a
    JSON array or a line: the framing is told from the body's first byte however the body is
    split, so the error is the same (a mark's start held alone once made the rest a JSON
    array, "not a JSON array" against "not valid UTF-8" whole)."""
    body = start + frame(wire, events(wire, CALLS), framing=framing)
    for as_wire in ("auto", wire):
        whole = outcome(body, wire=as_wire)
        assert whole[0] == "StreamError" and "UTF-8" in whole[1]
        for at in range(1, len(start) + 3):
            assert outcome([body[:at], body[at:]], wire=as_wire) == whole, at
        assert outcome([body[i : i + 1] for i in range(len(body))], wire=as_wire) == whole


LONG_CALLS: list[wire_bodies.Call] = [("write", {"text": "caf\u00e9 \u6f22\u5b57 \U0001f9ea " * 3})]


def documents_body(framing: str, text: str) -> tuple[str, list[bytes]]:
    """The wire and the documents of a body in `framing` (NDJSON lines, JSON-array elements)
    whose call holds characters of two, three and four bytes."""
    if framing == "ndjson":
        return "ollama", frame("ollama", events("ollama", LONG_CALLS, text)).split(b"\n")[:-1]
    payloads = toolcall.SSEDecoder().feed(frame("gemini", events("gemini", LONG_CALLS, text)))
    return "gemini", [payload.encode() for payload in payloads]


def joined(framing: str, documents: list[bytes], ending: str = "\n") -> bytes:
    if framing == "ndjson":
        return b"\xef\xbb\xbf" + b"".join(line + ending.encode() for line in documents)
    return b"\xef\xbb\xbf[" + ("," + ending).encode().join(documents) + b"]"


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["auto", "stdlib"])
@pytest.mark.parametrize("long_from", [1, 5, 64])
@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("framing", ["ndjson", "json-array"])
def test_a_long_document_held_as_bytes_reads_as_one_held_as_text(
    monkeypatch: pytest.MonkeyPatch, framing: str, long_from: int, ending: str, backend: str
) -> None:
    """A line or element of at least `long_from` bytes is handed over as its bytes, read from
    them (`auto`) or made text in windows (`stdlib`); split anywhere, even inside a character
    of two, three or four bytes, it reads as the document decoded whole, its body ended or
    cut before its last line end or closing bracket."""
    wire, documents = documents_body(framing, "H\u00e9")
    body = joined(framing, documents, ending)
    bodies = (body, body[:-1])
    wanted = [outcome(whole, wire=wire) for whole in bodies]
    assert [want[0] for want in wanted] == ["turn", "turn"]
    monkeypatch.setattr(DocumentDecoder, "long_from", long_from)
    for whole, want in zip(bodies, wanted, strict=True):
        by_byte = [whole[at : at + 1] for at in range(len(whole))]
        assert outcome(by_byte, wire=wire, backend=backend) == want
        for pieces in every_split(whole)[::7]:
            assert outcome(pieces, wire=wire, backend=backend) == want


@pytest.mark.parametrize("backend", ["auto", "stdlib"])
@pytest.mark.parametrize("long_from", [1, 5])
@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("framing", ["ndjson", "json-array"])
def test_a_long_document_held_as_bytes_keeps_the_errors_of_one_held_as_text(
    monkeypatch: pytest.MonkeyPatch, framing: str, ending: str, long_from: int, backend: str
) -> None:
    """A byte that is not UTF-8, a document over `max_event_chars` and a body cut inside a
    document give the same error at the same document, and the same byte offset, whether the
    document was handed over as its text or as its bytes, whichever line ends the body has."""
    wire, documents = documents_body(framing, "Hi")
    broken = [*documents[:2], documents[2][:9] + b"\xff" + documents[2][9:], *documents[3:]]
    longest = max(len(document) for document in documents)
    cases: list[tuple[bytes, dict[str, int]]] = [
        (joined(framing, broken, ending), {}),
        (joined(framing, documents, ending), {"max_event_chars": longest - 1}),
        (joined(framing, documents, ending), {"max_event_chars": longest}),
    ]
    # Cut inside the long string, where the document crossed the limit with no bracket since.
    body = joined(framing, documents, ending)
    start = body.index(max(documents, key=len))
    second = body.index(b"caf", body.index(b"caf", start) + 1)
    cases.append((body[: second + 2], {"max_event_chars": second - start}))
    if framing == "json-array":
        cases.append((body[:-9], {}))
    wanted = [outcome(body, wire=wire, **limits) for body, limits in cases]
    assert [answer[0] for answer in wanted[:3]] == ["StreamError", "LimitExceeded", "turn"]
    assert [answer[0] for answer in wanted[3:]] == ["LimitExceeded", "StreamError"][
        : len(cases) - 3
    ]
    monkeypatch.setattr(DocumentDecoder, "long_from", long_from)
    for (body, limits), want in zip(cases, wanted, strict=True):
        for size in (1, 3, 17):
            pieces = [body[at : at + size] for at in range(0, len(body), size)]
            assert outcome(pieces, wire=wire, backend=backend, **limits) == want


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["auto", "stdlib"])
@pytest.mark.parametrize("long_from", [1, 9, 40])
@pytest.mark.parametrize("eol", [b"\n", b"\r\n", b"\r"])
@pytest.mark.parametrize("wire", ["chat", "responses", "anthropic", "gemini"])
def test_events_held_as_bytes_read_as_events_held_as_text(
    monkeypatch: pytest.MonkeyPatch, wire: str, eol: bytes, long_from: int, backend: str
) -> None:
    """Every SSE event held past `long_from` bytes is held as bytes and read by the builder as
    a `LongEvent`, from its bytes (`auto`) or made text (`stdlib`): any split of any wire's
    body, whichever line ends it has, gives the turn, events and errors it gives when held as
    text, the repetitions a wire checks included."""
    body = frame(wire, events(wire, LONG_CALLS, "H\u00e9 \U0001f9ea")).replace(b"\n", eol)
    cut = body[: len(body) * 2 // 3]
    broken = body.replace(b"caf", b"ca\xff", 1)
    bodies = [body, cut, broken]
    wanted = [outcome(whole, wire=wire) for whole in bodies]
    assert wanted[0][0] == "turn" and wanted[1][0] != "turn" and wanted[2][0] == "StreamError"
    monkeypatch.setattr(toolcall.SSEDecoder, "long_from", long_from)
    for whole, want in zip(bodies, wanted, strict=True):
        assert outcome(whole, wire=wire, backend=backend) == want
        for size in (1, 5, 64):
            pieces = [whole[at : at + size] for at in range(0, len(whole), size)]
            assert outcome(pieces, wire=wire, backend=backend) == want
    # A slice longer than the builder's window that is one whole event is read from the slice
    # itself (`SSEDecoder.take_whole`): one event a slice, as a socket hands a megabyte over.
    monkeypatch.setattr(toolcall._stream, "_WINDOW", long_from)
    for whole, want in zip(bodies, wanted, strict=True):
        by_event = [event + eol * 2 for event in whole.split(eol * 2)]
        by_event[-1] = by_event[-1][: -2 * len(eol)]
        assert outcome([event for event in by_event if event], wire=wire, backend=backend) == want


@pytest.mark.parametrize("backend", ["auto", "stdlib"])
def test_a_slice_that_is_one_long_line_is_read_where_it_is(
    monkeypatch: pytest.MonkeyPatch, backend: str
) -> None:
    """A slice that is exactly one long NDJSON line, nothing held before it, is read from the
    slice itself (`NDJSONDecoder.take_whole`), and reads as the body fed whole: a byte-order
    mark, `\r\n` ends, a byte that is not UTF-8, the limit on either side, a last line
    without its line end, and lines cut in two."""
    wire, documents = documents_body("ndjson", "H\u00e9")
    body = joined("ndjson", documents)
    broken = joined("ndjson", [*documents[:2], documents[2][:9] + b"\xff" + documents[2][9:]])
    longest = max(len(document) for document in documents)
    cases: list[tuple[bytes, dict[str, int]]] = [
        (body, {}),
        (joined("ndjson", documents, "\r\n"), {}),
        (broken, {}),
        (broken.replace(b"\n", b"\r\n"), {}),
        (body, {"max_event_chars": longest - 1}),
        (body, {"max_event_chars": longest}),
        (body[:-1], {}),
    ]
    wanted = [outcome(whole, wire=wire, **limits) for whole, limits in cases]
    assert [want[0] for want in wanted] == [
        "turn",
        "turn",
        "StreamError",
        "StreamError",
        "LimitExceeded",
        "turn",
        "turn",
    ]
    monkeypatch.setattr(DocumentDecoder, "long_from", 1)
    monkeypatch.setattr(toolcall._stream, "_WINDOW", 1)
    whole_lines: list[int] = []
    take_whole = NDJSONDecoder.take_whole

    def counted(self: NDJSONDecoder, data: bytes) -> Any:
        event = take_whole(self, data)
        if event is not None:
            assert event.data is data
            whole_lines.append(len(data))
        return event

    monkeypatch.setattr(NDJSONDecoder, "take_whole", counted)
    for (whole, limits), want in zip(cases, wanted, strict=True):
        by_line = [line for line in re.split(b"(?<=\n)", whole) if line]
        assert outcome(by_line, wire=wire, backend=backend, **limits) == want
        halves = [part for line in by_line for part in (line[:7], line[7:]) if part]
        assert outcome(halves, wire=wire, backend=backend, **limits) == want
    assert len(whole_lines) >= len(documents)


def test_a_slice_that_is_one_long_event_is_read_where_it_is() -> None:
    payload = b'{"text":"' + b"caf\xc3\xa9 " * 20_000 + b'"}'
    for eol in (b"\n", b"\r\n", b"\r"):
        for head in (b"", b"event: response.output_item.done" + eol):
            data = head + b"data: " + payload + eol * 2
            decoder = toolcall.SSEDecoder()
            event = decoder.take_whole(data)
            assert event is not None and event.data is data
            assert data[event.start : event.end] == payload
            assert event.offset == len(head) + 6
            assert event.text() == payload.decode()
            assert decoder.take(b"\n" * (eol == b"\r") + b"data: [DONE]\n\n") == ["[DONE]"]
    others = [
        b": keep-alive\n" + data,
        data + b"data: x\n\n",
        data.replace(b"\r\r", b"\r\n\r\n"),
        data.replace(b"\r\r", b"\n\r\n"),
        data.replace(b"\r\r", b"\r\n\n"),
        data.replace(b"\r\r", b"\n\n"),
        b"id: 1\r" + data,
        data[:-1],
        data[:99] + b"\n" + data[99:],
    ]
    for other in others:
        assert toolcall.SSEDecoder().take_whole(other) is None
    held = toolcall.SSEDecoder()
    assert held.take(b"data: {") == []
    assert held.take_whole(data) is None


@pytest.mark.slow
@pytest.mark.parametrize("wire", WIRES)
def test_a_long_answer_in_small_pieces_is_held_in_runs(wire: str) -> None:
    """Memory, by tracemalloc: an answer of 240,000 characters in 60,000 events of four held a
    `str` a piece, sixteen to twenty times the text; held in runs it is the text, its joined
    copy, and on Responses the bytes of the `.done` that repeats it, checked in place."""
    text = "plain words " * 20_000
    body = frame(wire, events(wire, [], text, 4))
    end = rb"(?<=\n)" if wire == "ollama" else rb"(?<=\n\n)"
    slices = [event for event in re.split(end, body) if event]
    assert fed_peak(slices, events=False, wire=wire) < 4.5 * len(text)


def test_a_line_partly_held_is_held_for_the_shortcut_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """While the start of a line is held (every line long, handed over as its bytes), a slice
    that looks like a whole line of the template the stream repeats is still the rest of the
    held line."""
    monkeypatch.setattr(DocumentDecoder, "long_from", 1)
    line = '{"model":"qwen3","message":{"role":"assistant","content":"%s"},"done":false}\n'
    slices = [(line % piece).encode() for piece in "abc"]
    slices += [(line % "d")[:-20].encode(), (line % "e").encode()]
    slices.append(b'{"model":"qwen3","message":{"role":"assistant","content":""},"done":true}\n')
    want = outcome(b"".join(slices), wire="ollama")
    assert want[0] == "StreamError"
    assert outcome(slices, wire="ollama") == want


ROOT = Path(__file__).resolve().parents[1]


def gemini_recordings() -> list[Any]:
    """Gemini's event-stream recordings, each of which the test writes as a JSON array."""
    found = recordings.discover(ROOT / "cassettes")
    return [r for r in found if r.wire == "gemini" and not r.framing]


@pytest.mark.parametrize("pretty", [False, True], ids=["compact", "pretty"])
def test_gemini_json_array_bodies_read_as_their_sse_recordings(pretty: bool) -> None:
    recordings = gemini_recordings()
    assert len(recordings) >= 5
    for recording in recordings:
        sse_body = recording.body()
        want = outcome(sse_body)
        assert want[0] == "turn", recording.id
        body = as_json_array(sse_body, pretty=pretty)
        for wire in ("auto", "gemini"):
            for status in (None, 200):
                assert outcome(body, wire=wire) == want
                assert toolcall.assemble(body, wire=wire, status=status) == toolcall.assemble(
                    sse_body
                )
        cuts = range(1, len(body), max(1, len(body) // 60))
        for at in cuts:
            assert outcome([body[:at], body[at:]]) == want, (recording.id, at)
        assert outcome([bytes([b]) for b in body]) == want


@pytest.mark.parametrize(
    ("body", "error"),
    [
        (b'[{"candidates": [{"finishReason": "STOP"}]}', "done_absent"),
        (b'[{"candidates": []},{"candidates": [', "ended inside its element 2"),
        (b'[{"candidates": []},]', "where an element belongs"),
        (b'[{"candidates": []}] x', "goes on after its closing"),
        (b'[{"candidates": []} {"candidates": []}]', "a comma or the closing"),
    ],
)
def test_a_broken_json_array_says_what_is_wrong(body: bytes, error: str) -> None:
    answer = outcome(body, wire="gemini")
    assert error in answer[1], answer


# -- memory stays a small multiple of the input -----------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("json_backend", ["stdlib", "orjson", "auto"])
def test_one_event_of_many_small_parts_costs_little_beyond_decoding_it(json_backend: str) -> None:
    """What a JSON decoder makes of one event is its own cost (a dict per part); the library
    holds no more than a small multiple of the body beyond it: no second decoded copy, no stack
    of every value to check its depth. 60,000 one-character parts; tracemalloc's peak, not a
    clock."""
    parts = [{"text": "a"}] * 60_000
    event = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}]}
    payload = json.dumps(event)
    body = f"data: {payload}\n\n".encode()
    loads = backend(json_backend)
    tracemalloc.start()
    try:
        decoded = loads(payload)
        decoding = tracemalloc.get_traced_memory()[1]
        del decoded
        tracemalloc.reset_peak()
        baseline = tracemalloc.get_traced_memory()[0]
        for events_on in (False, True):
            tracemalloc.reset_peak()
            turn, _ = read(body, json_backend=json_backend, events=events_on)
            peak = tracemalloc.get_traced_memory()[1] - baseline
            assert turn.content == "a" * 60_000
            del turn, _
            # Events on: one TextDelta per part is what was asked for.
            allowance = (4 if not events_on else 10) * len(body)
            assert peak <= decoding + allowance, (peak, decoding, len(body))
    finally:
        tracemalloc.stop()
