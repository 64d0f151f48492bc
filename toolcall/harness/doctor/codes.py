"""The findings' codes, as `toolcall/schemas/doctor.schema.json` lists them once, and the code of
each error the library raises."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import toolcall

from ..suite.profiles import format_schema
from .reading import Where

SEVERITIES = ("error", "warning", "info")


def _codes() -> dict[str, tuple[str, str]]:
    codes = format_schema("doctor.schema.json")["$defs"]["code"]["oneOf"]
    return {c["const"]: (c["x-severity"], c["description"]) for c in codes}


#: code -> (severity, what it means): the one list, kept in the JSON Schema.
CODES: dict[str, tuple[str, str]] = _codes()


def error_code(error: toolcall.ToolCallError) -> str:
    """The finding's code for the library's error."""
    if isinstance(error, toolcall.UnsoundTurnError):
        return "bad_name" if error.name is not None or error.index is not None else "calls_lost"
    if isinstance(error, toolcall.TruncatedError):
        return "truncated"
    if isinstance(error, toolcall.ArgumentsError):
        return "invalid_arguments"
    if isinstance(error, toolcall.ProviderError):
        return "http_error" if error.status is not None else "provider_error"
    if isinstance(error, toolcall.LimitExceeded):
        return "limit_exceeded"
    if "never got a name" in error.reason:
        return "bad_name"
    return "broken_stream"


@dataclass
class Finding:
    code: str
    message: str
    where: Where | None = None
    excerpt: str = ""
    #: The profiles and routes that declare the same quirk, with their place.
    declared_by: list[str] = field(default_factory=list)
    #: Published recordings of the suite that show the same.
    shown_in: list[str] = field(default_factory=list)
    #: The usual cause, where there is one to name.
    cause: str = ""

    @property
    def severity(self) -> str:
        return CODES[self.code][0]

    def to_dict(self) -> dict[str, Any]:
        where = None
        if self.where is not None:
            where = {"event": self.where.event, "offset": self.where.offset}
        return {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "where": where,
            "excerpt": self.excerpt,
            "declared_by": self.declared_by,
            "shown_in": self.shown_in,
            "cause": self.cause,
        }
