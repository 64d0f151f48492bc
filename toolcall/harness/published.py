"""Published recordings: real streams that third parties recorded and published, kept as evidence.

A synthesized cassette shows our model of a provider; only a recording shows the provider. So the
suite carries public recordings verbatim, each as a vcrpy cassette under
`cassettes/<provider>/published/<stem>.yaml` whose metadata says where it came from (repository,
path, commit, license, model, first-party or relay, and any conversion), beside a hand-written
`<stem>.expected.json` (format: `toolcall/schemas/expected.schema.json`) saying what a correct
assembler makes of it. The expectation is written from the bytes, never computed by the library
it judges, the way JSON-Schema-Test-Suite keeps each input and its verdict together.

Verbatim is checked, not promised: the provenance keeps the SHA-256 of the source file, and the
body must give it back (for a source of one JSON chunk per line, after undoing the documented
conversion to `data: <line>` events).

The provenance names the recording's route (`route`, `direct` when absent): the provider is the
model's vendor (the folder), the route how the stream reached the recorder (routes.yaml). Two
files can be one stream published twice under two labels; `duplicates` finds them by their chunk
ids and call ids, and each must then name the other in `same_stream_as`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from . import cassettes, fingerprint, walk
from .profiles import DIRECT, format_schema

PUBLISHED = "published"
EXPECTED_SUFFIX = ".expected.json"
#: How a source in one-JSON-chunk-per-line form was made into an event stream.
JSONL_CONVERSION = "one JSON chunk per line, each made a `data: <line>` event; no [DONE] added"
#: The endpoint a published cassette's placeholder request goes to (sources rarely publish the
#: request, and replay only needs a request to match).
PLACEHOLDER_URL = "https://published.invalid/v1/chat/completions"

ORIGINS = ("first-party", "relay", "host", "documentation")


class PublishedError(Exception):
    """A published recording or its expectation is malformed; the message names the file."""


@dataclass(frozen=True)
class Recording:
    """One published recording and its hand-written expectation."""

    provider: str
    stem: str
    path: Path
    expected_path: Path
    provenance: dict[str, Any]
    expected: dict[str, Any]
    #: why the recording or its expectation cannot be read (then the two above are empty)
    problem: str | None = None

    @property
    def id(self) -> str:
        return f"{self.provider}/{PUBLISHED}/{self.stem}"

    @property
    def origin(self) -> str:
        return str(self.provenance.get("origin", ""))

    @property
    def route(self) -> str:
        return str(self.provenance.get("route", DIRECT))


def discover(
    cassettes_root: Path, provider: str | None = None, *, keep_unreadable: bool = False
) -> list[Recording]:
    """Every published recording under `cassettes_root`, sorted by provider then name.

    A malformed one raises `PublishedError`, or with `keep_unreadable` comes back with its
    `problem` set: conformance reports it as one failing recording and checks the rest.
    """
    found = []
    for path in sorted(cassettes_root.glob(f"*/{PUBLISHED}/*.yaml")):
        key = path.parent.parent.name
        if provider is not None and key != provider:
            continue
        try:
            found.append(load(key, path))
        except PublishedError as exc:
            if not keep_unreadable:
                raise
            stem = path.name.removesuffix(".yaml")
            expected = path.with_name(stem + EXPECTED_SUFFIX)
            found.append(Recording(key, stem, path, expected, {}, {}, problem=str(exc)))
    return found


def load(provider: str, path: Path) -> Recording:
    """Read one published cassette and its expectation; both must be well-formed."""
    try:
        cassette = cassettes.load(path)
    except cassettes.CassetteError as exc:  # this file's problem, never a traceback
        raise PublishedError(str(exc)) from None
    metadata = cassette.get("metadata") or {}
    provenance = metadata.get("provenance") if isinstance(metadata, dict) else None
    if not isinstance(provenance, dict) or provenance.get("kind") != PUBLISHED:
        raise PublishedError(f"{path}: metadata.provenance.kind must be {PUBLISHED!r}")
    error = best_match(_PROVENANCE.iter_errors(provenance))
    if error is not None:
        where = ".".join(str(p) for p in error.absolute_path) or "(top level)"
        raise PublishedError(f"{path}: metadata.provenance.{where}: {error.message}")
    stem = path.name.removesuffix(".yaml")
    expected_path = path.with_name(stem + EXPECTED_SUFFIX)
    try:
        expected = json.loads(expected_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PublishedError(
            f"{path}: no expectation beside it ({expected_path.name}); write one by hand"
        ) from None
    except ValueError as exc:
        raise PublishedError(f"{expected_path}: not JSON: {exc}") from None
    error = best_match(_EXPECTED.iter_errors(expected))
    if error is not None:
        where = ".".join(str(p) for p in error.absolute_path) or "(top level)"
        raise PublishedError(f"{expected_path}: {where}: {error.message}")
    if expected["recording"] != path.name:
        raise PublishedError(
            f"{expected_path}: names recording {expected['recording']!r}, not {path.name!r}"
        )
    return Recording(provider, stem, path, expected_path, provenance, expected)


def source_bytes(body: bytes, provenance: dict[str, Any]) -> bytes:
    """The source file the body was made from, undoing the documented conversion, if any."""
    text = body.decode("utf-8")
    if provenance.get("conversion") == JSONL_CONVERSION:
        events = [event.removeprefix("data: ") for event in text.split("\n\n") if event]
        end = "\n" if provenance.get("final_newline", True) else ""
        return ("\n".join(events) + end).encode("utf-8")
    blanked = provenance.get("blanked_lines") or []
    if blanked:
        lines = text.split("\n")
        for edit in blanked:
            lines[edit["line"] - 1] = edit["was"]
        return "\n".join(lines).encode("utf-8")
    return body


def blank_lines(source: bytes, numbers: list[int]) -> tuple[bytes, list[dict[str, Any]]]:
    """`source` with the given (1-based) lines emptied, and the record that restores them.

    For an author's elision marks (`......`) that sit between two `data:` lines: left in, they
    would join the events around them into one invalid payload, which is the author's edit, not
    what the provider sent. Emptying the line keeps every other byte and every line number.
    """
    lines = source.decode("utf-8").split("\n")
    edits = []
    for number in sorted(set(numbers)):
        if not 1 <= number <= len(lines) or lines[number - 1].startswith("data:"):
            raise PublishedError(f"line {number} is not a non-data line of the source")
        edits.append({"line": number, "was": lines[number - 1]})
        lines[number - 1] = ""
    return "\n".join(lines).encode("utf-8"), edits


def shows_framing(provenance: dict[str, Any]) -> bool:
    """Whether the recording can show SSE framing (`[DONE]`, comments): not when its source
    was one JSON chunk per line."""
    return bool(provenance.get("source_format", "sse") != "jsonl")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def build_cassette(
    source: bytes, provenance: dict[str, Any], *, jsonl: bool, blank: list[int] | None = None
) -> dict[str, Any]:
    """A vcrpy cassette carrying `source` verbatim (or converted from JSON lines) as its body.

    The request is a placeholder: the sources publish the response, rarely the request, and
    replay needs only something to match. The provenance gains the source's SHA-256, so the
    body can be checked against it later.
    """
    text = source.decode("utf-8")
    if blank:
        if jsonl:
            raise PublishedError("blank lines apply to an SSE source, not to JSON lines")
        edited, edits = blank_lines(source, blank)
        text = edited.decode("utf-8")
        provenance = {**provenance, "blanked_lines": edits}
    if jsonl:
        lines = [line for line in text.splitlines() if line.strip()]
        text = "".join(f"data: {line}\n\n" for line in lines)
        provenance = {**provenance, "conversion": JSONL_CONVERSION, "source_format": "jsonl"}
        if not source.endswith(b"\n"):
            provenance["final_newline"] = False
        if source_bytes(text.encode("utf-8"), provenance) != source:
            raise PublishedError(
                "the JSON-lines source does not survive the conversion unchanged (blank lines or "
                "a missing final newline); fix the conversion rather than the evidence"
            )
    provenance = {"kind": PUBLISHED, **provenance, "sha256": sha256(source)}
    cassette = cassettes.build(
        uri=PLACEHOLDER_URL,
        request_body=json.dumps({"model": provenance["model"], "stream": True}),
        request_headers=cassettes.request_headers(),
        status=200,
        reason="OK",
        response_headers={"Content-Type": ["text/event-stream"]},
        response_body=text,
    )
    cassette["metadata"] = {"provenance": provenance}
    return cassette


def stream_identity(body: bytes) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What makes a stream this stream and no other: its chunk ids and its call ids, in order.

    Call ids alone repeat across streams (Kimi's `functions.add:0` is in every stream that calls
    `add` first), and chunk ids alone are absent from some providers' chunks; together they tell
    one generation from another. Raises `walk.UnreadableStream` on a body it cannot read.
    """
    stream = walk.read(body)
    chunk_ids = tuple(dict.fromkeys(str(v.chunk["id"]) for v in stream.chunks if v.chunk.get("id")))
    return chunk_ids, tuple(fingerprint.observe_stream(stream).ids)


def duplicates(bodies: dict[str, bytes]) -> list[tuple[str, ...]]:
    """Groups of labels (two or more) whose bodies are the same stream by `stream_identity`.

    A body without chunk ids and call ids has no identity and is never grouped.
    """
    groups: dict[tuple[tuple[str, ...], tuple[str, ...]], list[str]] = {}
    for label, body in bodies.items():
        identity = stream_identity(body)
        if any(identity):
            groups.setdefault(identity, []).append(label)
    return [tuple(labels) for labels in groups.values() if len(labels) > 1]


def write(cassettes_root: Path, provider: str, stem: str, cassette: dict[str, Any]) -> Path:
    """Write a new published cassette; an existing one is evidence and is never replaced."""
    path = cassettes_root / provider / PUBLISHED / f"{stem}.yaml"
    if path.exists():
        raise PublishedError(f"{path} exists; published evidence is never overwritten")
    cassettes.write_atomically(path, cassettes.dump(cassette))
    return path


_PROVENANCE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["kind", "source", "license", "model", "origin", "sha256"],
    "additionalProperties": False,
    "properties": {
        "kind": {"const": PUBLISHED},
        "source": {
            "type": "object",
            "required": ["repository", "path", "commit"],
            "additionalProperties": False,
            "properties": {
                "repository": {"type": "string", "minLength": 3},
                "path": {"type": "string", "minLength": 1},
                "commit": {"type": ["string", "null"], "pattern": "^[0-9a-f]{40}$"},
                "url": {"type": "string"},
            },
        },
        "license": {"type": "string", "minLength": 2},
        "model": {"type": "string", "minLength": 1},
        "endpoint": {"type": "string"},
        "origin": {"enum": list(ORIGINS)},
        "relay": {"type": "string"},
        "route": {
            "type": "string",
            "pattern": "^[a-z][a-z0-9-]*$",
            "description": "the route of routes.yaml the stream came through; direct when absent",
        },
        "same_stream_as": {
            "type": "array",
            "minItems": 1,
            "items": {"type": "string", "pattern": "^[a-z][a-z0-9_]*/[A-Za-z0-9._-]+$"},
            "description": "provider/stem of other published recordings of the very same stream",
        },
        "captured": {"type": "string"},
        "extraction": {"type": "string", "minLength": 10},
        "conversion": {"const": JSONL_CONVERSION},
        "final_newline": {"const": False},
        "source_format": {
            "enum": ["sse", "jsonl"],
            "description": "jsonl: the upstream file held one JSON chunk per line, so it cannot "
            "show `[DONE]` or SSE comments, whoever made it an event stream",
        },
        "blanked_lines": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["line", "was"],
                "additionalProperties": False,
                "properties": {
                    "line": {"type": "integer", "minimum": 1},
                    "was": {"type": "string"},
                },
            },
        },
        "notes": {"type": "string"},
        "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
    },
}
_PROVENANCE = Draft202012Validator(_PROVENANCE_SCHEMA)
_EXPECTED = Draft202012Validator(format_schema("expected.schema.json"))
