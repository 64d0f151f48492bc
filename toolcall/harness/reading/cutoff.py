"""How a stream of each wire is cut short, for the cut-off variant (`streams.cut`): which
events carry call arguments, which one ends the turn, the events that close a stream cut after
the kept ones, and how the wire says a turn hit its token limit. Each wire's rules are a field
of its row in `wires.WIRES`; `streams` explains the variant and makes it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..suite.cassettes import CHAT

Event = dict[str, Any]


@dataclass(frozen=True)
class CutRules:
    """How one wire's events carry arguments, end the turn, and are closed when cut."""

    carries: Callable[[Event], bool]
    ends: Callable[[Event], bool]
    #: the events that close the cut stream, from the kept events and the final event's copy
    close: Callable[[list[Event], Event], list[Event]]
    #: how the wire says the turn hit its token limit, in its own words, for a verdict's reason
    said: str


def _chat_choice(chunk: Event) -> Mapping[str, Any]:
    """`choices[0]`, or {} (a `choices: []` chunk, a usage-only one)."""
    choices = chunk.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    return first if isinstance(first, Mapping) else {}


def _chat_carries(chunk: Event) -> bool:
    delta = _chat_choice(chunk).get("delta")
    calls = delta.get("tool_calls") if isinstance(delta, Mapping) else None
    return isinstance(calls, list) and any(
        isinstance(call, Mapping)
        and isinstance(call.get("function"), Mapping)
        and bool(call["function"].get("arguments"))
        for call in calls
    )


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


RULES: dict[str, CutRules] = {
    CHAT: CutRules(
        carries=_chat_carries,
        ends=lambda chunk: bool(_chat_choice(chunk).get("finish_reason")),
        close=_chat_close,
        said="finish_reason 'length'",
    ),
    "responses": CutRules(
        carries=lambda e: (
            e.get("type") == "response.function_call_arguments.delta" and bool(e.get("delta"))
        ),
        ends=lambda e: e.get("type") == "response.completed",
        close=_responses_close,
        said="status 'incomplete' (max_output_tokens)",
    ),
    "anthropic": CutRules(
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
    "gemini": CutRules(
        carries=_gemini_carries,
        ends=lambda chunk: bool(_gemini_candidate(chunk).get("finishReason")),
        close=_gemini_close,
        said="finishReason 'MAX_TOKENS'",
    ),
    "ollama": CutRules(
        carries=lambda e: bool((e.get("message") or {}).get("tool_calls")),
        ends=lambda e: e.get("done") is True,
        close=_ollama_close,
        said="done_reason 'length'",
    ),
}
