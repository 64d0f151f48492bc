"""The report site's inputs: the JSON the last runs left in the reports folder, each checked
against its schema before a page is drawn from it.

A page drawn from a malformed file would show wrong counts without saying so, so a file that
breaks its schema stops the build with one line naming the file and the JSON path of the first
fault. Every input may be absent (a run not made yet); the page for it then says which command
makes it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, relevance

from ..suite.profiles import format_schema

#: The fixed inputs: file name, the schema that describes it, and the `$defs` entry if any.
FIXED = {
    "conformance": ("conformance.json", "reports.schema.json", "conformance"),
    "matrix": ("matrix.json", "reports.schema.json", "matrix"),
    "gateways": ("gateways.json", "gateways.schema.json", ""),
}
#: The inputs there may be several of (one per endpoint or stream examined): glob, and the
#: command's own schema, checked when the package ships it, before the site's definition of the
#: top-level keys it reads (`SITE_SCHEMA`).
MANY = {
    "probe": ("probe*.json", "probe.schema.json"),
    "doctor": ("doctor*.json", "doctor.schema.json"),
}
SITE_SCHEMA = "report-site.schema.json"
#: The command that makes each input, said where it is absent.
MADE_BY = {
    "conformance": "make conformance",
    "matrix": "make matrix",
    "gateways": "make gateways",
    "probe": "toolcall probe --json reports/probe.json",
    "doctor": "toolcall doctor --json reports/doctor.json",
}


class InputError(ValueError):
    """An input that cannot be read or breaks its schema; the message is one line."""


@dataclass(frozen=True)
class Inputs:
    """What the site is built from; None (or an empty list) where a run left no file."""

    conformance: dict[str, Any] | None = None
    matrix: dict[str, Any] | None = None
    gateways: dict[str, Any] | None = None
    #: (file name, document) per probe and per doctor report, in file-name order.
    probes: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    doctors: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        found = (self.conformance, self.matrix, self.gateways)
        return all(d is None for d in found) and not self.probes and not self.doctors


@cache
def validator(schema_file: str, definition: str) -> Draft202012Validator:
    """The validator of one input: a whole schema file, or one of its `$defs`."""
    schema = dict(format_schema(schema_file))
    if definition:
        schema.pop("oneOf", None)
        schema["$ref"] = f"#/$defs/{definition}"
    return Draft202012Validator(schema)


def _nearest_branch(errors: list[ValidationError]) -> ValidationError | None:
    """Of a `oneOf` no branch of which matched, the first fault of the branch that came
    nearest (fewest faults): a doctor report missing a key is told that, not that it is not a
    comparison."""
    branches: dict[object, list[ValidationError]] = {}
    for error in errors:
        branches.setdefault(error.schema_path[0] if error.schema_path else 0, []).append(error)
    return _first(min(branches.values(), key=lambda faults: len(faults)))


def _first(errors: list[ValidationError]) -> ValidationError | None:
    """The most telling fault of a list, as `jsonschema` ranks them, without going into a
    `oneOf`'s branches (`_nearest_branch` does that)."""
    return max(errors, key=relevance) if errors else None


def read(path: Path, schema_file: str, definition: str = "") -> dict[str, Any]:
    """One input, parsed and validated, or `InputError` naming the file and where it is wrong."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{path}: not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None
    error = _first(list(validator(schema_file, definition).iter_errors(document)))
    while error is not None and error.context:
        error = _nearest_branch(error.context)
    if error is not None:
        message = " ".join(error.message.split())
        if len(message) > 160:
            message = message[:157] + "..."
        raise InputError(f"{path}: {error.json_path}: {message} (schema: {schema_file})")
    assert isinstance(document, dict)
    return document


def shipped(schema_file: str) -> bool:
    """Whether the package ships this schema (a command's own, once that command exists)."""
    return resources.files("toolcall").joinpath("schemas").joinpath(schema_file).is_file()


def _read_either(path: Path, schema_file: str, definition: str) -> dict[str, Any]:
    if shipped(schema_file):
        read(path, schema_file)
    return read(path, SITE_SCHEMA, definition)


def load(folder: Path) -> Inputs:
    """Every input found in `folder`; `InputError` for the first one that is wrong."""
    fixed: dict[str, dict[str, Any] | None] = {}
    for key, (name, schema_file, definition) in FIXED.items():
        path = folder / name
        fixed[key] = read(path, schema_file, definition) if path.is_file() else None
    many: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for key, (pattern, schema_file) in MANY.items():
        paths = sorted(p for p in folder.glob(pattern) if p.is_file())
        many[key] = [(p.name, _read_either(p, schema_file, key)) for p in paths]
    return Inputs(
        conformance=fixed["conformance"],
        matrix=fixed["matrix"],
        gateways=fixed["gateways"],
        probes=many["probe"],
        doctors=many["doctor"],
    )
