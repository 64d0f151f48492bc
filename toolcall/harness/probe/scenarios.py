"""What the probe asks: the scenarios of scenarios.yaml and those that catch the public reports
of broken servers, each as the request of every wire, streamed and unstreamed.

A scenario is written once, as a chat completions body (scenarios.yaml's form); every other wire
gets it through `synthesize.wire_request`, the harness's one translation, so the probe sends on
Anthropic Messages or Gemini what the suite's own cassettes were rendered from. A family's
request extras (providers.yaml: `stream_options`, GLM's `tool_stream`, Qwen's `enable_thinking`
for the reasoning scenario) are added on chat, where they mean something.

`reasoning_then_call` of scenarios.yaml is the "reasoning before a call" scenario; where the
family gives no way of asking for reasoning, `reasoning_effort` asks (each wire's own words on
the others).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from ..reading.wires import NAMES
from ..suite.cassettes import CHAT
from ..suite.profiles import Suite
from ..synthesize import wire_request

#: The wires a probe speaks: every wire of the table, chat completions first.
WIRES = NAMES
REASONING = "reasoning_then_call"
#: The token limit of the cut scenario: far too few for the arguments asked for.
CUT_LIMIT = 16


@dataclass(frozen=True)
class Scenario:
    """One probe scenario: its chat body (without model and stream) and what it tests."""

    name: str
    description: str
    request: dict[str, Any]
    #: the turn must end cut at the token limit (finish `length` on chat)
    cut: bool = False
    #: from scenarios.yaml (then its cassettes can be kept and accepted as a route's)
    suite: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


_WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather for one city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city"],
            "additionalProperties": False,
        },
    },
}
_TIME = {
    "type": "function",
    "function": {
        "name": "get_server_time",
        "description": "The server's current time. Takes no arguments.",
        "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
    },
}
_NOTE = {
    "type": "function",
    "function": {
        "name": "save_note",
        "description": "Save a long note.",
        "parameters": {
            "type": "object",
            "properties": {"title": {"type": "string"}, "text": {"type": "string"}},
            "required": ["title", "text"],
            "additionalProperties": False,
        },
    },
}
_SYSTEM = {"role": "system", "content": "You are a terse assistant. Use the tools you are given."}
_FIRST_CALL = {
    "id": "call_probe_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city": "Lisbon"}'},
}


def _user(text: str) -> dict[str, str]:
    return {"role": "user", "content": text}


#: The scenarios that catch the public reports (docs/HARNESS.md, "Probe an endpoint").
EXTRA: tuple[Scenario, ...] = (
    Scenario(
        "no_arguments",
        "a tool without parameters: a zero-argument call must not be dropped (vllm #44326)",
        {"messages": [_SYSTEM, _user("What time is it on the server?")], "tools": [_TIME]},
    ),
    Scenario(
        "named_tool_choice",
        "tool_choice naming one tool: the call is that tool's, with its arguments",
        {
            "messages": [_SYSTEM, _user("Weather in Lisbon, please.")],
            "tools": [_WEATHER, _TIME],
            "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
        },
    ),
    Scenario(
        "several_calls",
        "several calls in one turn, of one tool and of two: each on its own index with its own "
        "id (ollama #15457, dynamo #4723)",
        {
            "messages": [
                _SYSTEM,
                _user(
                    "Weather in Lisbon, Paris and Tokyo, and the server's time: call the tools "
                    "once per city and once for the time, all at once."
                ),
            ],
            "tools": [_WEATHER, _TIME],
        },
    ),
    Scenario(
        "cut_arguments",
        f"max_tokens {CUT_LIMIT}, too few to finish the arguments: the turn says it was cut "
        "(vllm #58228)",
        {
            "messages": [_SYSTEM, _user("Save a 300-word note about the history of Lisbon.")],
            "tools": [_NOTE],
            "tool_choice": {"type": "function", "function": {"name": "save_note"}},
            "max_tokens": CUT_LIMIT,
        },
        cut=True,
    ),
    Scenario(
        "second_turn",
        "a second turn carrying the first turn's call and its result: leaks and id formats show",
        {
            "messages": [
                _SYSTEM,
                _user("Weather in Lisbon, then in Porto."),
                {"role": "assistant", "content": "", "tool_calls": [_FIRST_CALL]},
                {
                    "role": "tool",
                    "tool_call_id": "call_probe_1",
                    "name": "get_weather",
                    "content": '{"temperature_c": 21, "sky": "clear"}',
                },
            ],
            "tools": [_WEATHER],
        },
    ),
    Scenario(
        "text_before_call",
        "text before a call: the text stays text and the call a call (vllm #50512)",
        {
            "messages": [
                {
                    "role": "system",
                    "content": "Before any tool call, say in one short sentence what you will do.",
                },
                _user("Weather in Lisbon, please."),
            ],
            "tools": [_WEATHER],
        },
    ),
)


def scenarios(suite: Suite, family: str) -> list[Scenario]:
    """Every probe scenario: scenarios.yaml's, with the family's chat extras, then `EXTRA`."""
    provider = suite.providers.get(family)
    found = []
    for name, declared in suite.scenarios.items():
        extra: dict[str, Any] = {}
        own: dict[str, Any] = {}
        if provider is not None:
            own = provider.cells[name].request_extra
            extra = {**provider.request_extra, **own}
        if name == REASONING and not own:
            extra["reasoning_effort"] = "low"
        found.append(
            Scenario(name, declared.description, declared.request, suite=True, extra=extra)
        )
    base = dict(provider.request_extra) if provider is not None else {}
    found += [Scenario(s.name, s.description, s.request, s.cut, extra=base) for s in EXTRA]
    return found


def select(found: list[Scenario], names: list[str]) -> list[Scenario]:
    """The scenarios named (all when none); an unknown name is a `ValueError` naming the known."""
    known = [s.name for s in found]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown scenario(s) {unknown}; known: {known}")
    return [s for s in found if not names or s.name in names]


def chat_body(scenario: Scenario, model: str, *, streamed: bool) -> dict[str, Any]:
    """The chat completions body: model, stream, the scenario and its extras; usage asked for
    when streamed (`stream_options`, which an unstreamed request may not carry)."""
    body: dict[str, Any] = {"model": model, "stream": streamed}
    body.update(copy.deepcopy(scenario.request))
    body.update(copy.deepcopy(scenario.extra))
    if streamed:
        body["stream_options"] = {**body.get("stream_options", {}), "include_usage": True}
    else:
        body.pop("stream_options", None)
    return body


def body(scenario: Scenario, wire: str, model: str, *, streamed: bool) -> dict[str, Any]:
    """The request body of `scenario` on `wire`."""
    chat = chat_body(scenario, model, streamed=streamed)
    if wire == CHAT:
        return chat
    if scenario.name == REASONING:
        chat.setdefault("reasoning_effort", "low")  # the family's chat extras do not cross wires
    return wire_request(wire, chat)


def tools(scenario: Scenario) -> dict[str, dict[str, Any]]:
    """The scenario's tools by name: their parameters schema."""
    return {
        t["function"]["name"]: t["function"].get("parameters") or {}
        for t in scenario.request.get("tools") or []
    }
