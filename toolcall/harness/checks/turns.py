"""What a stream is held to once read: the same turn however its bytes are split, events that
tell it, and the turn against its scenario's schemas or its hand-written expectation.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from toolcall import ProviderError, ToolCallError, TruncatedError, Turn
from toolcall.schema import ToolSchemas

from ..suite.profiles import Cell, Suite, format_schema
from .outcome import Finding, differences

#: Bodies up to this size are also fed one byte at a time; larger ones byte by byte at both ends
#: (where the call's head and the finish live) and in 7-byte and random slices throughout, which
#: keeps the whole suite within seconds.
BYTEWISE_LIMIT = 64 * 1024

#: The wire of every cassette under `cassettes/<provider>/`.
BYTEWISE_EDGE = 16 * 1024


def splits(body: bytes, *, seed: str) -> Iterator[tuple[str, list[bytes]]]:
    """The same body cut in several ways; every cut must give the same turn."""
    yield "whole", [body]
    if len(body) <= BYTEWISE_LIMIT:
        yield "1-byte", [body[i : i + 1] for i in range(len(body))]
    else:
        head, tail = body[:BYTEWISE_EDGE], body[-BYTEWISE_EDGE:]
        middle = body[BYTEWISE_EDGE:-BYTEWISE_EDGE]
        yield "1-byte-edges", [*_every(head, 1), middle, *_every(tail, 1)]
    yield "7-byte", _every(body, 7)
    rng = random.Random(seed)
    cuts, position = [], 0
    while position < len(body):
        size = rng.randint(1, 97)
        cuts.append(body[position : position + size])
        position += size
    yield "random", cuts
    inside = [i + 1 for i, byte in enumerate(body) if byte >= 0xC0]
    if inside:
        yield "mid-utf8", _cut_at(body, inside)


def conformance_document(turn: Turn) -> dict[str, Any]:
    """What a scenario's `expect` schema validates: the turn with arguments parsed."""
    calls = []
    for call, arguments in zip(turn.tool_calls, turn.arguments, strict=False):
        # Provider metadata (extra_content) is not part of what a scenario expects.
        function = {"name": call.function.name, "arguments": arguments}
        calls.append({"index": call.index, "id": call.id, "type": call.type, "function": function})
    return {
        "tool_calls": calls,
        "finish_reason": turn.finish_reason,
        "content": turn.content,
        "reasoning": turn.reasoning,
        "usage": turn.usage,
    }


def check_turn(suite: Suite, cell: Cell, turn: Turn) -> list[Finding]:
    """What a turn gets wrong against its scenario: the output schema, the scenario's `expect`
    (as `expect <path>: declared <the schema's rule>, observed <the value>`), the tools' own
    parameter schemas, distinct ids, tool-call markup left in the text (`tool_call_in_text`).
    The recorder runs it before writing, the suite after."""
    found = [
        Finding("output-schema", error.json_path, "turn.schema.json", error.message)
        for error in _TURN_VALIDATOR.iter_errors(turn.to_dict())
    ]
    scenario = suite.scenarios[cell.scenario]
    document = conformance_document(turn)
    errors = Draft202012Validator(scenario.expect).iter_errors(document)
    found += [
        Finding("expect", error.json_path, _rule(error), _observed(error))
        for error in sorted(errors, key=lambda e: list(map(str, e.absolute_path)))
    ]
    tools = ToolSchemas(scenario.request["tools"])
    for call, arguments in zip(turn.tool_calls, turn.arguments, strict=False):
        try:
            tools.check(call, arguments)
        except ToolCallError as exc:
            path = f"$.tool_calls[{call.index}].function.arguments"
            found.append(Finding("tool-schema", path, call.function.name, exc.reason))
    ids = [call.id for call in turn.tool_calls if call.id]
    if len(ids) != len(set(ids)):
        found.append(Finding("distinct-ids", "$.tool_calls[*].id", "distinct ids", ids))
    # A call the server left as markup in the text is one its scenario never ran, whatever
    # the scenario expects of the text (a published recording is judged by its expectation).
    found += [
        Finding("text-markup", "$.diagnostics", "no tool-call markup in the text", d.message)
        for d in turn.diagnostics
        if d.code == "tool_call_in_text"
    ]
    return found


_SIZES = ("minItems", "maxItems", "minProperties", "maxProperties")


def _rule(error: ValidationError) -> dict[str, Any]:
    """The part of the scenario's schema that failed, as the schema says it (`{'const': ...}`)."""
    return {str(error.validator): error.validator_value}


def _observed(error: ValidationError) -> Any:
    """What the turn had there: a count for size rules, else the value (long ones shortened)."""
    instance: Any = error.instance
    if str(error.validator) in _SIZES:
        return f"{len(instance)} item(s)"
    if str(error.validator) == "contains":
        return f"no item matches, among {len(instance)}"
    text = repr(error.instance)
    return instance if len(text) <= 120 else text[:117] + "..."


def expectation_of(turn: Turn) -> dict[str, Any]:
    """A turn written the way a hand-written expectation is (`expected.schema.json`)."""
    calls = []
    for call, arguments in zip(turn.tool_calls, turn.arguments, strict=False):
        entry: dict[str, Any] = {"id": call.id, "name": call.function.name, "arguments": arguments}
        if call.extra_content is not None:
            entry["extra_content"] = call.extra_content
        calls.append(entry)
    return {
        "tool_calls": calls,
        "content": turn.content,
        "reasoning": turn.reasoning,
        "finish_reason": turn.finish_reason,
    }


def error_kind(exc: ToolCallError) -> str:
    """The language-neutral name of an error, as expectations spell it."""
    if isinstance(exc, TruncatedError):
        return "truncated"
    if isinstance(exc, ProviderError):
        return "provider"
    return "malformed"


def expectation_differences(turn: Turn, expected: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """(JSON path, expected, observed) wherever `turn` differs from a hand-written expectation.

    A wire expectation gives each call's id, name and parsed arguments in the order the wire
    opened them, and a thought signature by its start and length (they run to kilobytes); each
    custom tool's call by id, name and input text (`custom_calls`), and each tool the provider
    ran as `ServerToolCall.to_dict()` gives it (`server_tool_calls`), none when absent.
    """
    calls = []
    wanted_calls = expected["tool_calls"]
    for n, (call, arguments) in enumerate(zip(turn.tool_calls, turn.arguments, strict=False)):
        wanted = wanted_calls[n] if n < len(wanted_calls) else {}
        entry: dict[str, Any] = {"id": call.id, "name": call.function.name, "arguments": arguments}
        held = (call.extra_content or {}).get("google", {}).get("thought_signature")
        if held is not None:
            starts = wanted.get("thought_signature", {}).get("starts", "")
            entry["thought_signature"] = {"starts": held[: len(starts)], "length": len(held)}
        calls.append(entry)
    keys = ("id", "name", "arguments", "thought_signature")
    custom = expected.get("custom_calls", [])
    want = {
        "tool_calls": [{k: c[k] for k in keys if k in c} for c in expected["tool_calls"]],
        "custom_calls": custom,
        "server_tool_calls": expected.get("server_tool_calls", []),
        "indices": list(range(len(expected["tool_calls"]) + len(custom))),
        **{k: expected[k] for k in ("content", "reasoning", "finish_reason")},
    }
    got = {
        "tool_calls": calls,
        "custom_calls": [
            {"id": c.id, "name": c.function.name, "input": c.function.arguments}
            for c in turn.custom_calls
        ],
        "server_tool_calls": [c.to_dict() for c in turn.server_tool_calls],
        "indices": sorted(call.index for call in (*turn.tool_calls, *turn.custom_calls)),
        "content": turn.content,
        "reasoning": turn.reasoning,
        "finish_reason": turn.finish_reason,
    }
    return differences(want, got)


def judged_expectation(document: dict[str, Any]) -> dict[str, Any]:
    """The parts of an expectation that are judged (an error's wording is not).

    Calls that all carry distinct ids are compared by id, not by position: the id is what a
    tool result answers, and a provider's indices may disagree with the order it opened the
    calls in (Vertex numbers its first call 1), so either order is a faithful answer.
    """
    if "error" in document:
        return {"error": document["error"]["kind"]}
    judged = {k: document[k] for k in ("tool_calls", "content", "reasoning", "finish_reason")}
    ids = [call["id"] for call in judged["tool_calls"]]
    if all(ids) and len(set(ids)) == len(ids):
        judged["tool_calls"] = sorted(judged["tool_calls"], key=lambda call: call["id"])
    return judged


def _every(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def _cut_at(data: bytes, points: list[int]) -> list[bytes]:
    edges = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(edges) if b > a]


_TURN_VALIDATOR = Draft202012Validator(format_schema("turn.schema.json"))
