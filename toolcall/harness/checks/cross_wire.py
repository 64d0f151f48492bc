"""The cross-wire check: one request to one provider gives the same turn on every wire.

A provider that serves a request on chat completions and on another wire (OpenAI's Responses,
Gemini's own API) should produce the same calls, and a reader of either wire must make the same
`Turn` of them. providers.yaml pairs a wire recording with the published chat recording of the
same request (`same_request`); the two turns are compared on what the request decides: each
call's name and arguments, in order, and the text. Ids are the wire's own (`call_...` on both of
OpenAI's, none on Gemini's native API), the stop reason is each wire's own word, and reasoning
is summarised differently per wire, so none of those are compared. Two recordings are two
generations, so a pair is only declared where the model gave the same answer both times: the
check then proves the readers agree, which is what it is for.
"""

from __future__ import annotations

from typing import Any

import toolcall
from toolcall import ToolCallError, Turn

from ..suite import cassettes, recordings
from ..suite.profiles import Suite, WireOffer
from .outcome import Finding, differences


def comparable(turn: Turn) -> dict[str, Any]:
    """What the request decides of a turn, ids, stop reason and reasoning aside."""
    calls = [
        {"name": call.function.name, "arguments": arguments}
        for call, arguments in zip(turn.tool_calls, turn.arguments, strict=False)
    ]
    return {"tool_calls": calls, "content": turn.content}


def findings(suite: Suite, offer: WireOffer, name: str, turn: Turn) -> list[Finding]:
    """How `turn` (of wire recording `name`) differs from its chat twin, if it has one."""
    twin = offer.same_request.get(name)
    if twin is None:
        return []
    where = f"providers.{offer.provider}.wires.{offer.wire}.same_request.{name}"
    path = suite.cassettes / offer.provider / recordings.PUBLISHED / f"{twin}.yaml"
    try:
        chat = toolcall.assemble(cassettes.response_body(cassettes.load(path)))
    except (cassettes.CassetteError, ToolCallError) as exc:
        return [Finding("cross-wire", where, f"a chat recording {twin} that assembles", str(exc))]
    return [
        Finding("cross-wire", f"{where}{json_path[1:]}", want, got)
        for json_path, want, got in turn_differences(chat, turn)
    ]


def turn_differences(chat: Turn, other: Turn) -> list[tuple[str, Any, Any]]:
    """(JSON path, on chat, on the other wire) wherever two turns of one request disagree on
    what the request decides; the same comparison for recorded pairs and synthesized ones."""
    return differences(comparable(chat), comparable(other))
