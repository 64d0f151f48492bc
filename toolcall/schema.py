"""Check complete calls against the tools the request offered (needs jsonschema).

Models call tools that were never offered and pass arguments that break the declared schema; the
tool's own JSON Schema (`tools[].function.parameters`) is the contract, so it is the check. The
validators are built once per tool set: rebuilding one per call costs about fifty times more.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from jsonschema import exceptions, validators

from ._calls.call_types import ToolCall
from ._errors import SchemaError, UsageError


class ToolSchemas:
    """The request's `tools` list, compiled: `check(call, arguments)` raises `SchemaError`."""

    def __init__(self, tools: Iterable[Mapping[str, Any]]) -> None:
        self._validators: dict[str, Any] = {}
        for position, tool in enumerate(tools):
            function = tool.get("function") if isinstance(tool, Mapping) else None
            name = function.get("name") if isinstance(function, Mapping) else None
            if not isinstance(name, str) or not name:
                raise UsageError(f"tools[{position}] has no function.name")
            assert isinstance(function, Mapping)
            parameters = function.get("parameters") or {"type": "object"}
            cls = validators.validator_for(parameters, default=validators.Draft202012Validator)
            try:
                cls.check_schema(parameters)
            except exceptions.SchemaError as exc:
                raise UsageError(
                    f"tools[{position}] ({name}): parameters is not a valid JSON Schema: "
                    f"{exc.message}"
                ) from None
            self._validators[name] = cls(parameters)

    @property
    def names(self) -> Sequence[str]:
        return tuple(self._validators)

    def check(self, call: ToolCall, arguments: Mapping[str, Any]) -> None:
        """Raise `SchemaError` if the call names an unknown tool or its arguments break the schema.

        `SchemaError.json_path` points at the offending value (`$` for the arguments object).
        """
        name = call.function.name
        validator = self._validators.get(name)
        context: dict[str, Any] = {"index": call.index, "call_id": call.id or None, "name": name}
        if validator is None:
            raise SchemaError(
                f"unknown tool {name!r}; the request offered {sorted(self._validators)}", **context
            )
        error = exceptions.best_match(validator.iter_errors(arguments))
        if error is not None:
            raise SchemaError(
                f"arguments at {error.json_path}: {error.message}",
                json_path=error.json_path,
                **context,
            )
