"""A body as the events a provider flushed, its chat chunks, and the cut-off variant of it on
every wire.

Implementations are compared on what their users feed them: on chat completions the decoded
chunks (what every client works from once its SSE reader has run, read with the library's own
SSE decoder, which the conformance suite has already checked byte by byte), on the other wires
the body as it came.

The cut-off variant answers the question a cut-off turn asks of a client: does it notice? It is
made from a stream of the suite (a provider's `long_arguments` cassette, on chat and on each
wire it is synthesized on, and each published recording of the other wires) the same way on
every wire: the events that carry call arguments
are counted, the stream is cut after half of them (after the only one, when the calls arrive
whole in one event: the turn still ended at its limit, after the call), and it is closed with
that wire's own ending for a cut, made from the stream's own final event (same envelope, key
order and usage placement):

- chat completions: `finish_reason: "length"`, the final chunk's delta kept without its calls
  (GLM's carries the `role`, which a client may need);
- Responses: `response.incomplete`, status `incomplete`, `incomplete_details.reason:
  "max_output_tokens"`;
- Anthropic Messages: the open block stopped, then `stop_reason: "max_tokens"`;
- Gemini: `finishReason: "MAX_TOKENS"`, with no parts;
- Ollama: `done_reason: "length"`.

Whatever the stream sent after its final event (a usage-only chunk, `[DONE]`, `message_stop`)
follows as it was. A stream whose final event is the one carrying its last arguments cannot be
cut that way (there is nothing after the call to replace), and one with no arguments has nothing
to cut: neither gets a variant. The only right answer to a variant is to report the cut.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from . import cassettes, recordings, synthesize, walk
from .cassettes import CHAT
from .profiles import Suite

Chunk = walk.Chunk
Event = dict[str, Any]

#: The scenario the chat variant is cut from, and its column; another wire's variant is the
#: recording's column with `CUT_SUFFIX`.
TRUNCATED_FROM = "long_arguments"
CUT_SUFFIX = "_truncated"
TRUNCATED = TRUNCATED_FROM + CUT_SUFFIX
#: The wires whose body is newline-delimited JSON rather than an event stream.
NDJSON_WIRES = ("ollama",)

#: Where an event ends (any of the three line ends, twice: Gemini's API sends CRLF), and a line.
_BLANK_LINE = re.compile(rb"(\r\n\r\n|\n\n|\r\r)")
_LINE_END = re.compile(rb"(\r?\n)")
#: Where an element of Gemini's JSON array ends: the comma between two elements and the line
#: ends around it, as Gemini writes them (`\n,\r\n`).
_ELEMENT_END = re.compile(rb"(\r?\n,\r?\n)")


def decode(body: bytes) -> list[Chunk]:
    """The JSON payloads of an SSE body, in order, without `[DONE]`."""
    return walk.chunks(body)


def events(body: bytes, wire: str = CHAT, framing: str = "") -> list[bytes]:
    """The body cut where a provider flushes, so each piece is one whole event: after each
    blank line, after each line on a wire of newline-delimited JSON, or after each element of
    a JSON array (`framing`, see `recordings.Recording.framing`)."""
    if framing == recordings.JSON_ARRAY:
        ends = _ELEMENT_END
    else:
        ends = _LINE_END if wire in NDJSON_WIRES else _BLANK_LINE
    parts = ends.split(body)
    out = [text + end for text, end in zip(parts[::2], parts[1::2], strict=False)]
    if parts[-1]:
        out.append(parts[-1])
    return out


@dataclass(frozen=True)
class Cut:
    """A cut-off variant: the provider and wire of its row, its column, what it was cut from."""

    provider: str
    wire: str
    scenario: str
    #: the cassette or recording it was cut from, relative to the suite
    source: str
    body: bytes
    #: a request a client can send for it: the scenario's, or the recording's (`recordings`)
    request: dict[str, Any]
    #: the recording it was cut from, on another wire than chat
    recording: recordings.Recording | None = None


def cut(wire: str, body: bytes) -> bytes | None:
    """`body` cut after half its argument events and closed with the wire's own ending, or None
    when it cannot be cut mid-turn (see the module's docstring)."""
    rules = _RULES[wire]
    pieces = events(body, wire)
    payloads = [_payload(piece, wire) for piece in pieces]
    arguments = [i for i, event in enumerate(payloads) if event and rules.carries(event)]
    ends = [i for i, event in enumerate(payloads) if event and rules.ends(event)]
    if not arguments or not ends:
        return None
    keep = arguments[max(1, len(arguments) // 2) - 1] + 1
    end = ends[-1]
    if end < keep:
        return None
    kept = [event for event in payloads[:keep] if event]
    final = payloads[end]
    assert final is not None  # an end is an event
    closing = rules.close(kept, copy.deepcopy(final))
    framed = b"".join(_framed(event, pieces[end], wire) for event in closing)
    return b"".join(pieces[:keep]) + framed + b"".join(pieces[end + 1 :])


def cut_said(wire: str) -> str:
    """How `wire` says a turn was cut at its token limit (`stop_reason 'max_tokens'`): what an
    implementation that passes a cut-off variant as whole did not report."""
    return _RULES[wire].said


def cuts(suite: Suite, provider: str | None = None, *, chat: bool = True) -> Iterator[Cut]:
    """Every cut-off variant of the suite, narrowed to a provider as PROVIDER= means it: each
    provider's `long_arguments` cassette cut on chat (unless `chat` is false) and on each other
    wire it is synthesized on, then each recording of the other wires."""
    chats = suite.cells(provider, TRUNCATED_FROM) if chat else []
    cells = [(prov, cell, CHAT) for prov, _scenario, cell in chats]
    synthesized = synthesize.cells(suite, provider, TRUNCATED_FROM)
    cells += [(prov, cell, wire) for prov, cell, wire in synthesized if wire != CHAT]
    for prov, cell, wire in cells:
        if cell.not_applicable:
            continue
        path = cassettes.cassette_path(suite.cassettes, prov.key, cell.scenario, wire=wire)
        try:
            body = cassettes.response_body(cassettes.load(path))
        except cassettes.CassetteError:
            continue  # the cell's own check reports the cassette
        found = cut(wire, body)
        if found is not None:
            source = str(path.relative_to(suite.root))
            request = suite.request_body(prov, cell)
            yield Cut(prov.key, wire, TRUNCATED, source, found, request)
    for recording in recordings.selected(suite, provider):
        if recording.wire == CHAT or recording.problem is not None:
            continue
        expected = recording.expected
        if not expected.get("tool_calls") and not expected.get("custom_calls"):
            continue  # no call of the turn for a cut to hit (a tool the provider ran is none)
        found = cut(recording.wire, recording.body())
        if found is not None:
            source = str(recording.path.relative_to(suite.root))
            label = recording.column + CUT_SUFFIX
            request = recordings.request(recording)
            yield Cut(recording.provider, recording.wire, label, source, found, request, recording)


# -- each wire's events -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Rules:
    """How one wire's events carry arguments, end the turn, and are closed when cut."""

    carries: Callable[[Event], bool]
    ends: Callable[[Event], bool]
    #: the events that close the cut stream, from the kept events and the final event's copy
    close: Callable[[list[Event], Event], list[Event]]
    #: how the wire says the turn hit its token limit, in its own words, for a verdict's reason
    said: str


def _payload(piece: bytes, wire: str) -> Event | None:
    """The JSON object an event carries (`data:` lines joined, or the NDJSON line), or None for
    a comment, `[DONE]` or anything else that is not one."""
    text = piece.decode("utf-8", "replace")
    if wire not in NDJSON_WIRES:
        lines = [
            line[5:].removeprefix(" ") for line in text.splitlines() if line.startswith("data:")
        ]
        text = "\n".join(lines)
    try:
        found = json.loads(text)
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def _framed(event: Event, like: bytes, wire: str) -> bytes:
    """`event` written as the stream writes its final event: its line end, and an `event:`
    name line where the stream names its events."""
    data = json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    eol = b"\r\n" if b"\r\n" in like else b"\n"
    if wire in NDJSON_WIRES:
        return data + eol
    head = b""
    if like.startswith(b"event:") and isinstance(event.get("type"), str):
        head = b"event: " + event["type"].encode("utf-8") + eol
    return head + b"data: " + data + eol + eol


def _chat_carries(chunk: Event) -> bool:
    return any(walk.function_of(call).get("arguments") for call in walk.view(0, chunk).tool_calls)


def _chat_close(_kept: list[Event], final: Event) -> list[Event]:
    choice = final["choices"][0]
    delta = choice.get("delta") or {}
    choice["delta"] = {key: value for key, value in delta.items() if key != "tool_calls"}
    choice["finish_reason"] = "length"
    return [final]


def _responses_close(kept: list[Event], final: Event) -> list[Event]:
    final["type"] = "response.incomplete"
    response = final["response"]
    response["status"] = "incomplete"
    response["incomplete_details"] = {"reason": "max_output_tokens"}
    if "output" in response:
        response["output"] = [
            e["item"] for e in kept if e.get("type") == "response.output_item.done"
        ]
    numbers = [e["sequence_number"] for e in kept if isinstance(e.get("sequence_number"), int)]
    if "sequence_number" in final and numbers:
        final["sequence_number"] = numbers[-1] + 1
    return [final]


def _anthropic_close(kept: list[Event], final: Event) -> list[Event]:
    closing = []
    opened = [e["index"] for e in kept if e.get("type") == "content_block_start"]
    stopped = {e["index"] for e in kept if e.get("type") == "content_block_stop"}
    if opened and opened[-1] not in stopped:
        closing.append({"type": "content_block_stop", "index": opened[-1]})
    final["delta"]["stop_reason"] = "max_tokens"
    if "stop_sequence" in final["delta"]:
        final["delta"]["stop_sequence"] = None
    return [*closing, final]


def _gemini_candidate(chunk: Event) -> Mapping[str, Any]:
    candidates = chunk.get("candidates") or [{}]
    first = candidates[0]
    return first if isinstance(first, Mapping) else {}


def _gemini_carries(chunk: Event) -> bool:
    parts = (_gemini_candidate(chunk).get("content") or {}).get("parts") or []
    return any(
        isinstance(part, Mapping) and isinstance(part.get("functionCall"), Mapping)
        for part in parts
    )


def _gemini_close(_kept: list[Event], final: Event) -> list[Event]:
    candidate = final["candidates"][0]
    candidate["finishReason"] = "MAX_TOKENS"
    candidate.pop("finishMessage", None)
    if isinstance(candidate.get("content"), dict):
        candidate["content"]["parts"] = []
    return [final]


def _ollama_close(_kept: list[Event], final: Event) -> list[Event]:
    final["done_reason"] = "length"
    return [final]


_RULES: dict[str, _Rules] = {
    CHAT: _Rules(
        carries=_chat_carries,
        ends=lambda chunk: bool(walk.view(0, chunk).finish_reason),
        close=_chat_close,
        said="finish_reason 'length'",
    ),
    "responses": _Rules(
        carries=lambda e: (
            e.get("type") == "response.function_call_arguments.delta" and bool(e.get("delta"))
        ),
        ends=lambda e: e.get("type") == "response.completed",
        close=_responses_close,
        said="status 'incomplete' (max_output_tokens)",
    ),
    "anthropic": _Rules(
        carries=lambda e: (
            e.get("type") == "content_block_delta"
            and (e.get("delta") or {}).get("type") == "input_json_delta"
            and bool((e.get("delta") or {}).get("partial_json"))
        ),
        ends=lambda e: (
            e.get("type") == "message_delta" and bool((e.get("delta") or {}).get("stop_reason"))
        ),
        close=_anthropic_close,
        said="stop_reason 'max_tokens'",
    ),
    "gemini": _Rules(
        carries=_gemini_carries,
        ends=lambda chunk: bool(_gemini_candidate(chunk).get("finishReason")),
        close=_gemini_close,
        said="finishReason 'MAX_TOKENS'",
    ),
    "ollama": _Rules(
        carries=lambda e: bool((e.get("message") or {}).get("tool_calls")),
        ends=lambda e: e.get("done") is True,
        close=_ollama_close,
        said="done_reason 'length'",
    ),
}
