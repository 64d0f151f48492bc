"""Each wire's own SDK, doing what it does for its users with the events of a stream.

A peer starts from the event payloads, as its SDK does once the SSE lines (or NDJSON lines) are
read: it decodes each with `json.loads`, turns it into the SDK's event type the way the SDK's
stream does (`construct_type` for openai and anthropic, `_from_response` for google-genai, the
model's constructor for ollama), and gives it to the SDK's accumulator. So its cost is what the
SDK's user pays from the same bytes, decoding included, and the floor is the same decoding
alone. What each returns is the calls it assembled, `(name, arguments)`, to check it against
the library's turn.

A peer whose package is missing, or too old to have what is measured, is unavailable with the
reason, never a failed run.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Calls = list[tuple[str, Any]]


@dataclass(frozen=True)
class WirePeer:
    name: str
    wire: str
    run: Callable[[list[str]], Calls]


def load(wanted: bool) -> tuple[list[WirePeer], dict[str, str]]:
    """The wire peers that can run here, and why each of the others cannot."""
    peers: list[WirePeer] = []
    unavailable: dict[str, str] = {}
    if not wanted:
        return peers, unavailable
    for name, wire, factory in (
        ("openai ResponseStreamState", "responses", _openai_responses),
        ("anthropic accumulate_event", "anthropic", _anthropic),
        ("google-genai response", "gemini", _genai),
        ("google-genai response", "vertex", _genai),
        ("ollama ChatResponse", "ollama", _ollama),
    ):
        try:
            peers.append(WirePeer(name, wire, factory()))
        except Exception as exc:  # an import failure of someone else's package is a reason
            unavailable[name] = f"{type(exc).__name__}: {exc}"
    return peers, unavailable


def _openai_responses() -> Callable[[list[str]], Calls]:
    from openai import omit
    from openai._models import construct_type
    from openai.lib.streaming.responses._responses import ResponseStreamState
    from openai.types.responses import ResponseStreamEvent

    def run(payloads: list[str]) -> Calls:
        state: Any = ResponseStreamState(input_tools=omit, text_format=omit)
        for payload in payloads:
            state.handle_event(construct_type(type_=ResponseStreamEvent, value=json.loads(payload)))
        final = state._completed_response
        return [
            (item.name, json.loads(item.arguments))
            for item in final.output
            if item.type == "function_call"
        ]

    return run


def _anthropic() -> Callable[[list[str]], Calls]:
    from anthropic._models import construct_type
    from anthropic.lib.streaming._messages import accumulate_event
    from anthropic.types import RawMessageStreamEvent

    def run(payloads: list[str]) -> Calls:
        snapshot: Any = None
        buffers: dict[int, bytes] = {}
        for payload in payloads:
            event = construct_type(type_=RawMessageStreamEvent, value=json.loads(payload))
            snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=buffers)
        return [(block.name, block.input) for block in snapshot.content if block.type == "tool_use"]

    return run


def _genai() -> Callable[[list[str]], Calls]:
    from google.genai import types
    from google.genai.models import _GenerateContentResponse_from_mldev

    config = {"config": {"response_schema": None, "response_json_schema": None}}

    def run(payloads: list[str]) -> Calls:
        calls: Calls = []
        for payload in payloads:
            fields = _GenerateContentResponse_from_mldev(json.loads(payload))
            response = types.GenerateContentResponse._from_response(response=fields, kwargs=config)
            calls += [(call.name, call.args) for call in response.function_calls or []]
        return calls

    return run


def _ollama() -> Callable[[list[str]], Calls]:
    from ollama import ChatResponse

    def run(payloads: list[str]) -> Calls:
        calls: Calls = []
        for payload in payloads:
            response = ChatResponse(**json.loads(payload))
            for call in response.message.tool_calls or []:
                calls.append((call.function.name, dict(call.function.arguments)))
        return calls

    return run
