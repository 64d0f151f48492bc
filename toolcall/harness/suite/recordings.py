"""Recordings: real streams that third parties recorded and published, kept as evidence, on
every wire.

A synthesized cassette shows our model of a provider; only a recording shows the provider. So the
suite carries public recordings verbatim, beside a hand-written `<name>.expected.json` saying what
a correct assembler makes of each. The expectation is written from the bytes, never computed by
the library it judges, the way JSON-Schema-Test-Suite keeps each input and its verdict together.
One `Recording` and one `discover` serve every wire, chat completions being one of them; where a
recording is kept follows from where it came from:

- chat completions: a vcrpy cassette `cassettes/<provider>/published/<name>.yaml` whose metadata
  says where it came from (repository, path, commit, license, model, first-party or relay, and any
  conversion); expectation format `toolcall/schemas/expected.schema.json`. The provenance names
  the recording's route (`route`, `direct` when absent): the provider is the model's vendor (the
  folder), the route how the stream reached the recorder (routes.yaml). Two files can be one
  stream published twice under two labels; `duplicates` finds them by their chunk ids and call
  ids, and each must then name the other in `same_stream_as`.
- the other wires (`cassettes/wires/<wire>/`): the body verbatim as
  `<name>.<sse|jsonl|ndjson|json>`, and `<name>.source.json` saying where it came from. A `.json`
  body is Gemini's JSON array (`streamGenerateContent` without `?alt=sse`: `[{...}\n,\r\n{...}]`),
  which is the wire itself, as Ollama's `.ndjson` is. A `.jsonl` source kept one event's JSON per
  line and dropped the SSE framing; `Recording.body()` puts each line back in a `data:` event, and
  on the two wires whose APIs name every event (`event: <type>` on Responses and Anthropic
  Messages, the same word as the JSON's own `type`) the name line too, because an SDK may read
  only named events (the anthropic SDK skips an event without a name).

A wire case no public recording shows (a custom tool's call, a tool the provider runs) may be
kept beside them, `kind: synthesized` in its `.source.json` in place of `published`: its body was
written by hand from the provider's documentation, which its `provenance.documentation` cites
(with the `fact` of docs/FACTS.md it rests on); it is replayed and judged as a recording is, by
its hand-written expectation, and providers.yaml names it under the wire's `cases`, never
`recordings`, so it is never counted as evidence of what a provider sent.

Verbatim is checked, not promised: the provenance keeps the SHA-256 of the source file, and the
body must give it back (after undoing the documented conversion, if any).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from ..reading import walk, wires
from . import cassettes, fingerprint
from .cassettes import CHAT, WIRES
from .profiles import DIRECT, Suite, WireOffer, format_schema

#: The folder of a provider's published chat recordings, and their scenario column's prefix.
PUBLISHED = "published"
EXPECTED_SUFFIX = ".expected.json"
SOURCE_SUFFIX = ".source.json"
BODY_SUFFIXES = (".sse", ".jsonl", ".ndjson", ".json")
#: Gemini's answer to `streamGenerateContent` without `?alt=sse`: one JSON array (a framing of
#: the wire table).
JSON_ARRAY = wires.JSON_ARRAY
#: How a source in one-JSON-chunk-per-line form was made into an event stream.
JSONL_CONVERSION = "one JSON chunk per line, each made a `data: <line>` event; no [DONE] added"
#: The endpoint a published cassette's placeholder request goes to (sources rarely publish the
#: request, and replay only needs a request to match).
PLACEHOLDER_URL = "https://published.invalid/v1/chat/completions"

ORIGINS = ("first-party", "relay", "host", "documentation")
#: The kind of a wire case written from documentation rather than recorded (see above).
SYNTHESIZED = "synthesized"


class RecordingError(Exception):
    """A recording or its expectation is missing or malformed; the message names the file."""


@dataclass(frozen=True)
class Recording:
    """One published recording, on any wire, and its hand-written expectation."""

    #: chat: the folder's provider; other wires: the provider its provenance names
    provider: str
    wire: str
    name: str
    #: the file holding the body: the cassette on chat, the verbatim source on the other wires
    path: Path
    expected_path: Path
    #: chat: the cassette's `metadata.provenance`; other wires: the `.source.json`
    provenance: dict[str, Any]
    expected: dict[str, Any]
    #: the body as kept: the cassette's response body on chat, the source's bytes elsewhere
    raw: bytes = b""
    #: why the recording or its expectation cannot be read (then the fields above are empty)
    problem: str | None = None

    @property
    def id(self) -> str:
        """How reports, serve and the tests name it: `<provider>/published/<name>` on chat,
        `wires/<wire>/<name>` elsewhere."""
        if self.wire == CHAT:
            return f"{self.provider}/{PUBLISHED}/{self.name}"
        return f"{WIRES}/{self.wire}/{self.name}"

    @property
    def column(self) -> str:
        """Its column beside the scenarios: `published/<name>` on chat, `<wire>/<name>` else."""
        return f"{PUBLISHED if self.wire == CHAT else self.wire}/{self.name}"

    @property
    def origin(self) -> str:
        """first-party, relay, host or documentation: who served the stream."""
        key = "origin" if self.wire == CHAT else "party"
        return str(self.provenance.get(key, ""))

    @property
    def synthesized(self) -> bool:
        """Whether it was written from documentation, not recorded (a wire case only)."""
        return self.wire != CHAT and self.provenance.get("kind") == SYNTHESIZED

    @property
    def route(self) -> str:
        return str(self.provenance.get("route", DIRECT))

    @property
    def model(self) -> str:
        """The model its provenance names."""
        return str(self.provenance.get("model", ""))

    @property
    def source_sha256(self) -> str | None:
        """The SHA-256 of the source file, as its provenance keeps it."""
        kept = self.provenance if self.wire == CHAT else self.provenance.get("provenance", {})
        found = kept.get("sha256")
        return str(found) if found is not None else None

    @property
    def framing(self) -> str:
        """How the body is framed when it is not its wire's usual framing, else "": Gemini's
        JSON array is the one such framing (an SDK asks for `alt=sse` and never receives it)."""
        return JSON_ARRAY if self.provenance.get("framing") == JSON_ARRAY else ""

    def body(self) -> bytes:
        """The HTTP body the provider sent, as the library reads it."""
        if self.wire == CHAT or self.provenance.get("framing") != "jsonl":
            return self.raw
        events = []
        for line in self.raw.splitlines():
            if not line.strip():
                continue
            named = wires.wire(self.wire).named_events
            name = json.loads(line).get("type") if named else None
            head = b"event: " + name.encode() + b"\n" if isinstance(name, str) else b""
            events.append(head + b"data: " + line + b"\n\n")
        return b"".join(events)

    def source(self) -> bytes:
        """The source file the body was made from, as its SHA-256 was taken."""
        if self.wire == CHAT:
            return source_bytes(self.raw, self.provenance)
        return self.raw


def discover(
    cassettes_root: Path,
    provider: str | None = None,
    *,
    wire: str | None = None,
    keep_unreadable: bool = False,
) -> list[Recording]:
    """Every recording under `cassettes_root`: chat's by provider then name, then the other
    wires' by wire then name; narrowed to one provider (as `Recording.provider` says) or wire.

    A malformed one raises `RecordingError`, or with `keep_unreadable` comes back with its
    `problem` set: conformance reports it as one failing recording and checks the rest.
    """
    found = []
    places: list[tuple[str, Path]] = []
    if wire in (None, CHAT):
        places += [(CHAT, p) for p in sorted(cassettes_root.glob(f"*/{PUBLISHED}/*.yaml"))]
    if wire != CHAT:
        places += [
            (p.parent.name, p)
            for p in sorted((cassettes_root / WIRES).glob(f"*/*{SOURCE_SUFFIX}"))
            if wire is None or p.parent.name == wire
        ]
    for on, path in places:
        if on == CHAT and provider is not None and path.parent.parent.name != provider:
            continue
        try:
            recording = load(path)
        except RecordingError as exc:
            if not keep_unreadable:
                raise
            recording = _unreadable(on, path, str(exc))
        if provider is None or recording.provider == provider:
            found.append(recording)
    return found


def load(path: Path) -> Recording:
    """One recording from its cassette (chat) or its `.source.json` (the other wires), with its
    expectation; both must be well-formed."""
    if path.name.endswith(SOURCE_SUFFIX):
        return _load_wire(path)
    return _load_chat(path)


def _unreadable(wire: str, path: Path, problem: str) -> Recording:
    if wire == CHAT:
        name = path.name.removesuffix(".yaml")
        provider = path.parent.parent.name
    else:
        name = path.name.removesuffix(SOURCE_SUFFIX)
        provider = ""
    expected = path.with_name(name + EXPECTED_SUFFIX)
    return Recording(provider, wire, name, path, expected, {}, {}, problem=problem)


def _load_chat(path: Path) -> Recording:
    try:
        cassette = cassettes.load(path)
    except cassettes.CassetteError as exc:  # this file's problem, never a traceback
        raise RecordingError(str(exc)) from None
    metadata = cassette.get("metadata") or {}
    provenance = metadata.get("provenance") if isinstance(metadata, dict) else None
    if not isinstance(provenance, dict) or provenance.get("kind") != PUBLISHED:
        raise RecordingError(f"{path}: metadata.provenance.kind must be {PUBLISHED!r}")
    error = best_match(_PROVENANCE.iter_errors(provenance))
    if error is not None:
        where = ".".join(str(p) for p in error.absolute_path) or "(top level)"
        raise RecordingError(f"{path}: metadata.provenance.{where}: {error.message}")
    stem = path.name.removesuffix(".yaml")
    expected_path = path.with_name(stem + EXPECTED_SUFFIX)
    try:
        expected = json.loads(expected_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RecordingError(
            f"{path}: no expectation beside it ({expected_path.name}); write one by hand"
        ) from None
    except ValueError as exc:
        raise RecordingError(f"{expected_path}: not JSON: {exc}") from None
    error = best_match(_EXPECTED.iter_errors(expected))
    if error is not None:
        where = ".".join(str(p) for p in error.absolute_path) or "(top level)"
        raise RecordingError(f"{expected_path}: {where}: {error.message}")
    if expected["recording"] != path.name:
        raise RecordingError(
            f"{expected_path}: names recording {expected['recording']!r}, not {path.name!r}"
        )
    try:
        raw = cassettes.response_body(cassette)
    except (KeyError, IndexError, TypeError):
        raise RecordingError(f"{path}: no response body in its first interaction") from None
    return Recording(
        path.parent.parent.name, CHAT, stem, path, expected_path, provenance, expected, raw
    )


def body_paths(folder: Path, stem: str) -> list[Path]:
    """The body files named `stem` in `folder`: `<stem>.json` is a body, `<stem>.source.json` and
    `<stem>.expected.json` are its sidecars, so the whole name after the stem decides."""
    return sorted(p for p in folder.glob(f"{stem}.*") if p.name[len(stem) :] in BODY_SUFFIXES)


def _load_wire(source_path: Path) -> Recording:
    stem = source_path.name.removesuffix(SOURCE_SUFFIX)
    folder = source_path.parent
    expected_path = folder / f"{stem}{EXPECTED_SUFFIX}"
    try:
        source = json.loads(source_path.read_text(encoding="utf-8"))
        bodies = body_paths(folder, stem)
        if len(bodies) != 1:
            raise RecordingError(
                f"{folder / stem}: expected one body ({', '.join(BODY_SUFFIXES)}), found "
                f"{sorted(p.name for p in bodies)}"
            )
        expected = json.loads(expected_path.read_text(encoding="utf-8"))
        raw = bodies[0].read_bytes()
    except (OSError, json.JSONDecodeError) as exc:
        raise RecordingError(f"{folder / stem}: {exc}") from None
    if not isinstance(source, dict) or source.get("wire") != folder.name:
        raise RecordingError(f"{source_path}: its `wire` must be {folder.name!r}, its folder")
    return Recording(
        str(source.get("provider", "")),
        folder.name,
        stem,
        bodies[0],
        expected_path,
        source,
        expected,
        raw,
    )


def selected(suite: Suite, provider: str | None = None, wire: str | None = None) -> list[Recording]:
    """The recordings of the suite, narrowed to a provider as PROVIDER= means it: on chat the
    provider's folder, on another wire the recordings its wire offers name."""
    found = discover(suite.cassettes, wire=wire, keep_unreadable=True)
    if provider is None:
        return found
    named = {
        n for offer in suite.wire_offers if offer.provider == provider for n in offer.recordings
    }
    return [r for r in found if (r.provider == provider if r.wire == CHAT else r.name in named)]


def request(recording: Recording) -> dict[str, Any]:
    """A request a client can send for a recording: its sources publish the response only, so
    the request names the model, asks a placeholder question and offers every tool the recording
    calls (with an open parameters schema), as the recorded request must have done. An HTTP
    client that validates tool names against its request needs the tools to be there; each wire
    adapter words it for its SDK."""
    names = dict.fromkeys(call["name"] for call in recording.expected.get("tool_calls", []))
    request: dict[str, Any] = {
        "model": recording.model,
        "stream": True,
        "messages": [{"role": "user", "content": "(the request was not published)"}],
    }
    if names:
        request["tools"] = [
            {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
            for name in names
        ]
    return request


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
            raise RecordingError(f"line {number} is not a non-data line of the source")
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
            raise RecordingError("blank lines apply to an SSE source, not to JSON lines")
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
            raise RecordingError(
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
    one generation from another. Raises `wires.UnreadableBody` on a body it cannot read.
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
        raise RecordingError(f"{path} exists; published evidence is never overwritten")
    cassettes.write_atomically(path, cassettes.dump(cassette))
    return path


def write_wire(
    cassettes_root: Path, wire: str, stem: str, body: bytes, source: dict[str, Any]
) -> tuple[Path, Path]:
    """Write a new recording of another wire than chat: the body verbatim, named by its framing
    (`<stem>.sse`, `.jsonl`, `.ndjson`, `.json` for a JSON array), and its `.source.json`; as on
    chat, existing evidence is never replaced."""
    suffix = {JSON_ARRAY: ".json"}.get(str(source["framing"]), f".{source['framing']}")
    folder = cassettes_root / WIRES / wire
    if suffix not in BODY_SUFFIXES:
        raise RecordingError(f"a {wire} recording cannot be kept as {suffix}")
    taken = [*body_paths(folder, stem), folder / f"{stem}{SOURCE_SUFFIX}"]
    for path in taken:
        if path.exists():
            raise RecordingError(f"{path} exists; published evidence is never overwritten")
    body_path = folder / f"{stem}{suffix}"
    folder.mkdir(parents=True, exist_ok=True)
    body_path.write_bytes(body)  # bytes as they came: its SHA-256 is the evidence
    # The sidecar last: the recording exists for `discover` only once it is written whole.
    text = json.dumps(source, indent=2, ensure_ascii=False) + "\n"
    cassettes.write_atomically(taken[-1], text)
    return body_path, taken[-1]


def offer_of(suite: Suite, recording: Recording) -> WireOffer | None:
    """The provider's wire offer in providers.yaml that names `recording`, if one does."""
    for offer in suite.wire_offers:
        named = offer.cases if recording.synthesized else offer.recordings
        if recording.name in named and offer.wire == recording.wire:
            return offer
    return None


def offer_problems(suite: Suite, recordings: list[Recording]) -> list[str]:
    """Where providers.yaml's `wires:` and the recordings disagree, one line each.

    Every named recording must exist on that wire with a provenance naming that provider, and
    every recording must be named by exactly one offer: evidence nobody cites is evidence for
    nothing.
    """
    by_name = {r.name: r for r in recordings}
    problems = []
    for offer in suite.wire_offers:
        for key, names in (("recordings", offer.recordings), ("cases", offer.cases)):
            where = f"providers.yaml: {offer.provider}.wires.{offer.wire}.{key}"
            for name in names:
                found = by_name.get(name)
                if found is None:
                    problems.append(f"{where}: {name!r} is not under cassettes/wires/")
                elif found.wire != offer.wire:
                    problems.append(f"{where}: {name!r} is a {found.wire} recording")
                elif found.synthesized != (key == "cases"):
                    kind = found.provenance.get("kind")
                    problems.append(f"{where}: {name!r} is {kind}, named under `{key}`")
                elif found.provider not in offer.recorded_as:
                    problems.append(
                        f"{where}: {name!r} was recorded from {found.provider!r}, "
                        f"not {list(offer.recorded_as)}"
                    )
    for recording in recordings:
        naming = [o for o in suite.wire_offers if recording.name in (*o.recordings, *o.cases)]
        if len(naming) != 1:
            rows = [o.row for o in naming]
            problems.append(
                f"{recording.id}: named by {len(naming)} wire offers in providers.yaml {rows}, "
                "not exactly one"
            )
    return problems


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
