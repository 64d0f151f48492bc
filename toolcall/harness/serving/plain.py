"""The plain answer a fault mode starts from: a sound turn built from the request, on each wire.

A probe sends its own requests (a tool with no arguments, a `max_tokens` too small, several
tools), which match no cassette; so a fault mode answers from a `Plan` made of the request
itself: a short text, then one call to each tool the request offers (or only the one its
`tool_choice` names), with arguments made from the tool's schema. The plan is streamed the way
a sound server of each wire streams it (`events`), or answered whole (`answer`) to a request
with `stream: false`. A faulty stream is a transform of these events (`faults`).

The plain answer keeps `max_tokens` as a sound server does: when the request's limit is below
what the answer takes (`tokens`, four characters a token), the call that passes it is cut there
and the finish says so (`length`, `max_tokens`, `incomplete`, `MAX_TOKENS`); on Gemini and
Ollama, whose arguments arrive as one object, the cut call is left out instead.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..suite.cassettes import CHAT

#: The prefix of a model name that asks for a fault mode (`fault:markup-in-content`).
MODEL_PREFIX = "fault:"
TEXT = "Let me call the tools for that."
#: The most calls a plain answer makes, one a tool.
MOST_CALLS = 3
#: Each argument fragment's length: small enough that every call streams in several.
FRAGMENT = 6
#: The tool a request with none is answered as if it offered.
DEFAULT_TOOL = {
    "name": "get_weather",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}
_SAMPLES: dict[str, Any] = {
    "string": "Paris",
    "integer": 1,
    "number": 1.5,
    "boolean": True,
    "array": [],
    "object": {},
    "null": None,
}
_MAX_TOKENS = {
    CHAT: ("max_completion_tokens", "max_tokens"),
    "responses": ("max_output_tokens",),
    "anthropic": ("max_tokens",),
}


@dataclass(frozen=True)
class Call:
    """One call of the plan: its id, its tool's name and its arguments as JSON text."""

    id: str
    name: str
    arguments: str

    def fragments(self) -> list[str]:
        """The arguments as a sound server streams them: `{"` alone, then short pieces."""
        text = self.arguments
        head = 2 if text.startswith('{"') else len(text)
        rest = text[head:]
        return [text[:head], *(rest[at : at + FRAGMENT] for at in range(0, len(rest), FRAGMENT))]


@dataclass(frozen=True)
class Plan:
    """A whole turn to answer: text, calls, whether it was cut by the request's limit, and
    the numbers its usage reports."""

    model: str
    text: str
    calls: tuple[Call, ...]
    cut: bool = False
    prompt_tokens: int = 10
    completion_tokens: int = 0
    include_usage: bool = False


def plan(wire: str, request: Mapping[str, Any]) -> Plan:
    """The plain answer to `request` on `wire`."""
    tools = _tools(wire, request)
    chosen = _chosen(request)
    if chosen is not None:
        tools = [t for t in tools if t["name"] == chosen] or tools[:1]
    calls = tuple(
        Call(f"call_{n}", str(tool["name"]), json.dumps(_sample(tool.get("parameters"))))
        for n, tool in enumerate(tools[:MOST_CALLS])
    )
    model = str(request.get("model") or "toolcall-serve")
    options = request.get("stream_options")
    include = isinstance(options, Mapping) and options.get("include_usage") is True
    drawn = Plan(model, TEXT, calls, include_usage=include or wire != CHAT)
    drawn = replace(drawn, completion_tokens=tokens(drawn))
    limit = _limit(wire, request)
    if limit is not None and limit < drawn.completion_tokens and calls:
        return cut(drawn, limit)
    return drawn


def tokens(drawn: Plan) -> int:
    """What the plan's answer takes, counted as four characters a token."""
    characters = len(drawn.text) + sum(len(c.name) + len(c.arguments) for c in drawn.calls)
    return max(1, math.ceil(characters / 4))


def cut(drawn: Plan, limit: int) -> Plan:
    """`drawn` stopped where a limit of `limit` tokens stops it: the call that passes it cut
    there (one character at least), the calls after it never begun."""
    budget = limit * 4 - len(drawn.text)
    kept: list[Call] = []
    for call in drawn.calls:
        size = len(call.name) + len(call.arguments)
        if size < budget:
            kept.append(call)
            budget -= size
            continue
        room = min(len(call.arguments) - 1, max(1, budget - len(call.name)))
        kept.append(replace(call, arguments=call.arguments[: max(1, room)]))
        break
    return replace(drawn, calls=tuple(kept), cut=True, completion_tokens=limit)


def halfway(drawn: Plan) -> int:
    """A limit that stops `drawn` halfway through its calls' characters."""
    calls = sum(len(c.name) + len(c.arguments) for c in drawn.calls)
    return max(1, math.ceil((len(drawn.text) + calls / 2) / 4))


def _tools(wire: str, request: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The request's tools as `{"name", "parameters"}`, whatever the wire calls them."""
    found: list[dict[str, Any]] = []
    offered = request.get("tools")
    for tool in offered if isinstance(offered, list) else []:
        if not isinstance(tool, Mapping):
            continue
        declared = tool.get("functionDeclarations") or tool.get("function_declarations")
        for entry in declared if isinstance(declared, list) else [tool.get("function", tool)]:
            if isinstance(entry, Mapping) and isinstance(entry.get("name"), str):
                schema = entry.get("parameters", entry.get("input_schema"))
                found.append({"name": entry["name"], "parameters": schema})
    return found or [DEFAULT_TOOL]


def _chosen(request: Mapping[str, Any]) -> str | None:
    """The tool `tool_choice` names (chat, Responses and Anthropic shapes), if any."""
    choice = request.get("tool_choice")
    if not isinstance(choice, Mapping):
        return None
    function = choice.get("function")
    name = function.get("name") if isinstance(function, Mapping) else choice.get("name")
    return name if isinstance(name, str) else None


def _sample(schema: Any) -> Any:
    """A value `schema` accepts: its required properties filled with a value of their type."""
    if not isinstance(schema, Mapping):
        return {}
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    kind = schema.get("type", "object")
    kind = kind[0] if isinstance(kind, list) and kind else kind
    if kind == "array":
        return _array(schema)
    if kind in ("integer", "number"):
        return _number(schema, _SAMPLES[kind])
    if kind != "object":
        return _SAMPLES.get(str(kind), "Paris")
    properties = schema.get("properties")
    required = schema.get("required")
    if not isinstance(properties, Mapping) or not isinstance(required, list):
        return {}
    return {name: _sample(properties.get(name)) for name in required if isinstance(name, str)}


def _array(schema: Mapping[str, Any]) -> list[Any]:
    """As few items as `minItems` asks (distinct where the items are an enum)."""
    count = schema.get("minItems", 0)
    count = count if isinstance(count, int) and count > 0 else 0
    items = schema.get("items")
    if isinstance(items, Mapping) and isinstance(items.get("enum"), list):
        return list(items["enum"][:count])
    return [_sample(items) for _ in range(count)]


def _number(schema: Mapping[str, Any], sample: Any) -> Any:
    """The sample, raised to the schema's minimum (past an exclusive one) when below it."""
    low = schema.get("minimum")
    above = schema.get("exclusiveMinimum")
    if isinstance(above, (int, float)) and not isinstance(above, bool) and sample <= above:
        sample = above + 1
    if isinstance(low, (int, float)) and not isinstance(low, bool) and sample < low:
        sample = low
    return sample


def _limit(wire: str, request: Mapping[str, Any]) -> int | None:
    """The request's limit on the answer's tokens, where its wire puts it."""
    if wire == "gemini":
        config = request.get("generationConfig") or request.get("generation_config")
        value = config.get("maxOutputTokens") if isinstance(config, Mapping) else None
    elif wire == "ollama":
        options = request.get("options")
        value = options.get("num_predict") if isinstance(options, Mapping) else None
    else:
        value = next((request[k] for k in _MAX_TOKENS.get(wire, ()) if k in request), None)
    return value if type(value) is int and value > 0 else None


def fault_of_model(model: Any) -> str | None:
    """The fault a model name `fault:NAME` asks for, or None."""
    if isinstance(model, str) and model.startswith(MODEL_PREFIX):
        return model.removeprefix(MODEL_PREFIX)
    return None
