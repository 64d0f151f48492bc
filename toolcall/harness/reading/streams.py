"""The cut-off variant of a stream, on every wire.

The body is read as the events a provider flushed by the harness's one reader (`wires.events`,
on the library's own decoders), and each wire's rules for a cut are in its row of the wire
table (`wires.Wire.cut`, written in `cutoff.py`).

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
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .. import synthesize
from ..suite import cassettes, recordings
from ..suite.cassettes import CHAT
from ..suite.profiles import Suite
from . import wires

Event = dict[str, Any]

#: The scenario the chat variant is cut from, and its column; another wire's variant is the
#: recording's column with `CUT_SUFFIX`.
TRUNCATED_FROM = "long_arguments"
CUT_SUFFIX = "_truncated"
TRUNCATED = TRUNCATED_FROM + CUT_SUFFIX


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
    when it cannot be cut mid-turn (see the module's docstring). A body in another framing than
    its wire's usual one (Gemini's JSON array) is not cut: no SDK receives it, and its closing
    would need the array's own punctuation."""
    row = wires.wire(wire)
    framing = wires.framing_of(wire, body)
    if framing != row.framings[0]:
        return None
    read = wires.events(wire, body, framing)
    pieces = [event.raw for event in read]
    payloads = [event.payload for event in read]
    rules = row.cut
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
    framed = b"".join(_framed(event, pieces[end], framing) for event in closing)
    return b"".join(pieces[:keep]) + framed + b"".join(pieces[end + 1 :])


def cut_said(wire: str) -> str:
    """How `wire` says a turn was cut at its token limit (`stop_reason 'max_tokens'`): what an
    implementation that passes a cut-off variant as whole did not report."""
    return wires.wire(wire).cut.said


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


def _framed(event: Event, like: bytes, framing: str) -> bytes:
    """`event` written as the stream writes its final event: its line end, and an `event:`
    name line where the stream names its events."""
    data = json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    eol = b"\r\n" if b"\r\n" in like else b"\n"
    if framing == wires.NDJSON:
        return data + eol
    head = b""
    if like.startswith(b"event:") and isinstance(event.get("type"), str):
        head = b"event: " + event["type"].encode("utf-8") + eol
    return head + b"data: " + data + eol + eol
