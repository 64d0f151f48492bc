"""`toolcall.schema.ToolSchemas`: complete calls checked against the tools the request offered.

DESIGN.md "Flow" ("validation ... optionally against each tool's JSON Schema"): a model may call a
tool that was never offered or break the declared parameters; the tool's own JSON Schema is the
contract, and a broken schema in the request is the caller's mistake (UsageError).
"""

from __future__ import annotations

from typing import Any

import pytest

import toolcall
from toolcall import SchemaError, ToolCall, ToolCallError, ToolCallFunction, UsageError
from toolcall.schema import ToolSchemas

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather in a city",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {"type": "string"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                "days": {"type": "array", "items": {"type": "integer", "minimum": 1}},
            },
            "required": ["location"],
            "additionalProperties": False,
        },
    },
}
NO_PARAMETERS = {"type": "function", "function": {"name": "now"}}


def make_call(name: str, arguments: str = "{}") -> ToolCall:
    return ToolCall(2, "call_w", "function", ToolCallFunction(name, arguments))


@pytest.fixture
def schemas() -> ToolSchemas:
    return ToolSchemas([WEATHER, NO_PARAMETERS])


def test_names_lists_the_offered_tools(schemas: ToolSchemas) -> None:
    """The tool set is compiled once, in request order."""
    assert tuple(schemas.names) == ("get_weather", "now")


def test_valid_arguments_pass(schemas: ToolSchemas) -> None:
    """A call that fits returns None and raises nothing."""
    args = {"location": "Paris", "unit": "celsius", "days": [1, 2]}
    assert schemas.check(make_call("get_weather"), args) is None


def test_unknown_tool_is_a_schema_error_naming_the_call(schemas: ToolSchemas) -> None:
    """Models call tools that were never offered (schema.py module doc)."""
    with pytest.raises(SchemaError) as info:
        schemas.check(make_call("get_time"), {})
    err = info.value
    assert (err.index, err.call_id, err.name, err.json_path) == (2, "call_w", "get_time", "$")
    assert str(err) == (
        "tool call index 2, id 'call_w', name 'get_time': unknown tool 'get_time'; "
        "the request offered ['get_weather', 'now']"
    )


@pytest.mark.parametrize(
    ("arguments", "json_path", "words"),
    [
        ({"location": "Paris", "unit": "kelvin"}, "$.unit", "'kelvin' is not one of"),
        ({"location": 7}, "$.location", "7 is not of type 'string'"),
        ({"location": "Paris", "days": [1, 0]}, "$.days[1]", "0 is less than the minimum of 1"),
        ({"unit": "celsius"}, "$", "'location' is a required property"),
        ({"location": "Paris", "extra": 1}, "$", "Additional properties are not allowed"),
    ],
)
def test_violation_is_a_schema_error_with_json_path(
    schemas: ToolSchemas, arguments: dict[str, Any], json_path: str, words: str
) -> None:
    """A violation names where in the arguments it is (`SchemaError.json_path`)."""
    with pytest.raises(SchemaError) as info:
        schemas.check(make_call("get_weather"), arguments)
    assert info.value.json_path == json_path
    assert info.value.reason.startswith(f"arguments at {json_path}: {words}")
    assert info.value.name == "get_weather"


def test_tool_without_parameters_accepts_any_object(schemas: ToolSchemas) -> None:
    """A tool with no `parameters` takes an object (the {"type": "object"} default)."""
    assert schemas.check(make_call("now"), {}) is None
    assert schemas.check(make_call("now"), {"anything": [1]}) is None


@pytest.mark.parametrize(
    "parameters",
    [{"type": "objekt"}, {"type": "object", "properties": {"a": {"minimum": "one"}}}],
)
def test_invalid_parameters_schema_is_a_usage_error(parameters: dict[str, Any]) -> None:
    """A broken schema in the caller's own request is a UsageError (DESIGN.md "Blame")."""
    tool = {"type": "function", "function": {"name": "bad", "parameters": parameters}}
    with pytest.raises(UsageError, match=r"^tools\[1\] \(bad\): parameters is not a valid JSON"):
        ToolSchemas([NO_PARAMETERS, tool])


@pytest.mark.parametrize(
    "tool",
    [{}, {"function": {}}, {"function": {"name": ""}}, {"function": {"name": 5}}, "get_weather"],
)
def test_tool_without_a_name_is_a_usage_error(tool: Any) -> None:
    """Every offered tool needs function.name (OpenAI `tools[]` format)."""
    with pytest.raises(UsageError, match=r"^tools\[0\] has no function\.name$"):
        ToolSchemas([tool])


def test_schema_error_is_a_toolcall_error_but_not_a_stream_error() -> None:
    """A schema violation is the model's choice, not a broken stream (_errors.py)."""
    assert issubclass(SchemaError, ToolCallError)
    assert not issubclass(SchemaError, toolcall.StreamError)


def test_check_after_assemble_uses_the_parsed_arguments(schemas: ToolSchemas) -> None:
    """Turn.arguments are already parsed, so checking needs no second parse (_stream.py)."""
    body = (
        b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1",'
        b'"type":"function","function":{"name":"get_weather","arguments":'
        b'"{\\"location\\":\\"Paris\\",\\"unit\\":\\"kelvin\\"}"}}]},"finish_reason":"tool_calls"}]}'
        b"\n\n"
    )
    turn = toolcall.assemble(body)
    with pytest.raises(SchemaError) as info:
        for call, arguments in zip(turn.tool_calls, turn.arguments, strict=True):
            schemas.check(call, arguments)
    assert (info.value.index, info.value.call_id, info.value.json_path) == (0, "call_1", "$.unit")
