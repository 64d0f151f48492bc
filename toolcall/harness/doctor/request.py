"""The turn against the request that asked for it: the tools offered and `tool_choice`.

Each wire words its tools differently (chat's `tools[].function.parameters`, the Responses API's
flat `tools[].parameters`, Anthropic's `input_schema`, Gemini's `functionDeclarations`, Ollama's
chat shape); they are made chat's shape here and checked by the library's own `ToolSchemas`, so a
call is judged by the same rules whatever wire carried it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import toolcall
from toolcall.schema import ToolSchemas

from .codes import Finding


def tools_of(request: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The function tools a request offers, in chat's shape, whatever its wire."""
    found: list[dict[str, Any]] = []
    for tool in request.get("tools") or []:
        if not isinstance(tool, Mapping):
            continue
        declarations = tool.get("functionDeclarations") or tool.get("function_declarations")
        if isinstance(declarations, list):
            for d in declarations:
                if isinstance(d, Mapping):
                    schema = d.get("parametersJsonSchema") or d.get("parameters")
                    found.append(_tool(d.get("name"), schema))
            continue
        function = tool.get("function")
        if isinstance(function, Mapping):
            found.append(_tool(function.get("name"), function.get("parameters")))
        elif tool.get("type", "function") in ("function", "custom") or "input_schema" in tool:
            schema = tool.get("input_schema") or tool.get("parameters")
            if tool.get("type") != "custom":
                found.append(_tool(tool.get("name"), schema))
    return [t for t in found if t["function"]["name"]]


def _tool(name: object, parameters: object) -> dict[str, Any]:
    schema = parameters if isinstance(parameters, Mapping) else {"type": "object"}
    return {"type": "function", "function": {"name": name or "", "parameters": dict(schema)}}


def required_tool(request: Mapping[str, Any]) -> tuple[bool, str | None]:
    """(whether a call is required, the one tool it must be, if named), from `tool_choice`
    (chat, Responses, Anthropic) or Gemini's `toolConfig`."""
    choice = request.get("tool_choice")
    if choice in ("required", "any"):
        return True, None
    if isinstance(choice, Mapping):
        kind = choice.get("type")
        if kind in ("any", "required"):
            return True, None
        function = choice.get("function")
        name = function.get("name") if isinstance(function, Mapping) else choice.get("name")
        if kind in ("function", "tool") and isinstance(name, str):
            return True, name
    config = request.get("toolConfig") or request.get("tool_config") or {}
    calling = config.get("functionCallingConfig") if isinstance(config, Mapping) else None
    if isinstance(calling, Mapping) and calling.get("mode") == "ANY":
        allowed = calling.get("allowedFunctionNames") or []
        return True, allowed[0] if len(allowed) == 1 else None
    return False, None


def forbids(request: Mapping[str, Any]) -> tuple[bool, bool]:
    """(whether the request forbids calls, whether it forbids more than one): `tool_choice`
    "none" (Anthropic's `{"type": "none"}`, Gemini's mode NONE), and `parallel_tool_calls:
    false` (Anthropic's `disable_parallel_tool_use`)."""
    choice = request.get("tool_choice")
    config = request.get("toolConfig") or request.get("tool_config") or {}
    calling = config.get("functionCallingConfig") if isinstance(config, Mapping) else None
    none = choice == "none" or (isinstance(choice, Mapping) and choice.get("type") == "none")
    none = none or (isinstance(calling, Mapping) and calling.get("mode") == "NONE")
    single = request.get("parallel_tool_calls") is False or (
        isinstance(choice, Mapping) and choice.get("disable_parallel_tool_use") is True
    )
    return none, single


def check(request: Mapping[str, Any], turn: toolcall.Turn) -> list[Finding]:
    """Findings for calls the request did not allow, and a `tool_choice` not followed."""
    found: list[Finding] = []
    tools = tools_of(request)
    if tools:
        try:
            schemas = ToolSchemas(tools)
        except toolcall.ToolCallError as exc:
            return [Finding("request_unreadable", f"the request's tools cannot be read: {exc}")]
        for call, arguments in zip(turn.tool_calls, turn.arguments, strict=True):
            try:
                schemas.check(call, arguments)
            except toolcall.SchemaError as exc:
                code = (
                    "unknown_tool" if call.function.name not in schemas.names else "schema_mismatch"
                )
                found.append(Finding(code, str(exc)))
    return found + _choice(request, [c.function.name for c in turn.tool_calls])


def _choice(request: Mapping[str, Any], names: list[str]) -> list[Finding]:
    """A `tool_choice` (or `parallel_tool_calls`) the turn did not follow."""
    found: list[Finding] = []
    required, name = required_tool(request)
    none, single = forbids(request)
    if none and names:
        found.append(Finding("tool_choice_ignored", f"the request forbade calls; {names} came"))
    if single and len(names) > 1:
        said = f"the request asked for one call at most; {len(names)} came ({names})"
        found.append(Finding("tool_choice_ignored", said))
    if required and not names:
        found.append(Finding("tool_choice_ignored", "the request required a tool call; none came"))
    elif name is not None and any(n != name for n in names):
        found.append(
            Finding(
                "tool_choice_ignored",
                f"the request's tool_choice names {name!r}; the turn called {sorted(set(names))}",
            )
        )
    return found
