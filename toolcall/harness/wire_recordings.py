"""The published recordings of the wires other than chat completions (`cassettes/wires/`).

Each `<name>.<sse|jsonl|ndjson|json>` is a third party's body, verbatim; `<name>.source.json` says
where it came from (and its SHA-256), `<name>.expected.json` what it holds, typed by hand. A `.json`
body is Gemini's JSON array (`streamGenerateContent` without `?alt=sse`: `[{...}\n,\r\n{...}]`),
which is the wire itself, as Ollama's `.ndjson` is. A `.jsonl` source kept one event's JSON per line
and dropped the SSE framing; `Recording.body()` puts each line back in a `data:` event, and on the
two wires whose APIs name every event (`event: <type>` on Responses and Anthropic Messages, the same
word as the JSON's own `type`) the name line too, because an SDK may read only named events (the
anthropic SDK skips an event without a name). That is the one change made to replay them (recorded
in the cassettes' README). The suite, the matrix, `toolcall serve` and the unit tests all read them
through this module, so there is one reading of what a wire recording is and of what its expectation
says.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolcall import Turn

from .checks import differences
from .profiles import Suite, WireOffer

#: Where the wire recordings live, under the suite's `cassettes/`.
WIRES = "wires"
#: A recording's name in a scenario column, a serve header and a report: `wires/<wire>/<name>`.
PREFIX = "wires/"
BODY_SUFFIXES = (".sse", ".jsonl", ".ndjson", ".json")
#: Gemini's answer to `streamGenerateContent` without `?alt=sse`: one JSON array.
JSON_ARRAY = "json-array"
#: What each framing is served as; every other framing is an event stream.
CONTENT_TYPES = {"ndjson": "application/x-ndjson", JSON_ARRAY: "application/json"}
#: The wires whose API names each event with its JSON's `type`.
NAMED_EVENTS = ("responses", "anthropic")


class WireRecordingError(Exception):
    """A wire recording's files are missing or unreadable; the message names the file."""


@dataclass(frozen=True)
class Recording:
    name: str
    wire: str
    raw: bytes
    source: dict[str, Any]
    expected: dict[str, Any]

    @property
    def id(self) -> str:
        """`wires/<wire>/<name>`: how reports, serve and the tests name the recording."""
        return f"{PREFIX}{self.wire}/{self.name}"

    @property
    def provider(self) -> str:
        """The provider its provenance names (the source's own spelling)."""
        return str(self.source["provider"])

    @property
    def origin(self) -> str:
        """first-party, host or self-hosted: who served the stream."""
        return str(self.source.get("party", ""))

    @property
    def model(self) -> str:
        """The model its provenance names."""
        return str(self.source["model"])

    @property
    def array(self) -> bool:
        """Whether the body is Gemini's JSON array rather than an event stream or lines."""
        return bool(self.source["framing"] == JSON_ARRAY)

    @property
    def content_type(self) -> str:
        """What the endpoint answers with: Ollama's lines, Gemini's JSON array, else an event
        stream."""
        return CONTENT_TYPES.get(self.source["framing"], "text/event-stream")

    def body(self) -> bytes:
        """The HTTP body the provider sent, as the library reads it."""
        if self.source["framing"] != "jsonl":
            return self.raw
        events = []
        for line in self.raw.splitlines():
            if not line.strip():
                continue
            name = json.loads(line).get("type") if self.wire in NAMED_EVENTS else None
            head = b"event: " + name.encode() + b"\n" if isinstance(name, str) else b""
            events.append(head + b"data: " + line + b"\n\n")
        return b"".join(events)


def discover(cassettes: Path) -> tuple[Recording, ...]:
    """Every wire recording under `cassettes/wires/`, in name order."""
    return tuple(load(path) for path in sorted((cassettes / WIRES).glob("*/*.source.json")))


def selected(suite: Suite, provider: str | None = None) -> tuple[Recording, ...]:
    """The wire recordings of the suite, or those a provider's wire offers name (PROVIDER=)."""
    found = discover(suite.cassettes)
    if provider is None:
        return found
    named = {
        n for offer in suite.wire_offers if offer.provider == provider for n in offer.recordings
    }
    return tuple(r for r in found if r.name in named)


def load(source_path: Path) -> Recording:
    """One recording from its `.source.json`, its body beside it and its expectation."""
    stem = source_path.name.removesuffix(".source.json")
    folder = source_path.parent
    try:
        source = json.loads(source_path.read_text(encoding="utf-8"))
        bodies = body_paths(folder, stem)
        if len(bodies) != 1:
            raise WireRecordingError(
                f"{folder / stem}: expected one body ({', '.join(BODY_SUFFIXES)}), found "
                f"{sorted(p.name for p in bodies)}"
            )
        expected = json.loads((folder / f"{stem}.expected.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise WireRecordingError(f"{folder / stem}: {exc}") from None
    return Recording(stem, source["wire"], bodies[0].read_bytes(), source, expected)


def body_paths(folder: Path, stem: str) -> list[Path]:
    """The body files named `stem` in `folder`: `<stem>.json` is a body, `<stem>.source.json` and
    `<stem>.expected.json` are its sidecars, so the whole name after the stem decides."""
    return sorted(p for p in folder.glob(f"{stem}.*") if p.name[len(stem) :] in BODY_SUFFIXES)


def expectation_differences(turn: Turn, expected: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """(JSON path, expected, observed) wherever `turn` differs from a hand-written expectation.

    A wire expectation gives each call's id, name and parsed arguments in the order the wire
    opened them, and a thought signature by its start and length (they run to kilobytes).
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
    want = {
        "tool_calls": [{k: c[k] for k in keys if k in c} for c in expected["tool_calls"]],
        "indices": list(range(len(expected["tool_calls"]))),
        **{k: expected[k] for k in ("content", "reasoning", "finish_reason")},
    }
    got = {
        "tool_calls": calls,
        "indices": [call.index for call in turn.tool_calls],
        "content": turn.content,
        "reasoning": turn.reasoning,
        "finish_reason": turn.finish_reason,
    }
    return differences(want, got)


def offer_of(suite: Suite, recording: Recording) -> WireOffer | None:
    """The provider's wire offer in providers.yaml that names `recording`, if one does."""
    for offer in suite.wire_offers:
        if recording.name in offer.recordings and offer.wire == recording.wire:
            return offer
    return None


def offer_problems(suite: Suite, recordings: tuple[Recording, ...]) -> list[str]:
    """Where providers.yaml's `wires:` and the recordings disagree, one line each.

    Every named recording must exist on that wire with a provenance naming that provider, and
    every recording must be named by exactly one offer: evidence nobody cites is evidence for
    nothing.
    """
    by_name = {r.name: r for r in recordings}
    problems = []
    for offer in suite.wire_offers:
        where = f"providers.yaml: {offer.provider}.wires.{offer.wire}.recordings"
        for name in offer.recordings:
            found = by_name.get(name)
            if found is None:
                problems.append(f"{where}: {name!r} is not under cassettes/wires/")
            elif found.wire != offer.wire:
                problems.append(f"{where}: {name!r} is a {found.wire} recording")
            elif found.provider not in offer.recorded_as:
                problems.append(
                    f"{where}: {name!r} was recorded from {found.provider!r}, "
                    f"not {list(offer.recorded_as)}"
                )
    for recording in recordings:
        naming = [o for o in suite.wire_offers if recording.name in o.recordings]
        if len(naming) != 1:
            rows = [o.row for o in naming]
            problems.append(
                f"{recording.id}: named by {len(naming)} wire offers in providers.yaml {rows}, "
                "not exactly one"
            )
    return problems


def request(recording: Recording) -> dict[str, Any]:
    """A request for the recording: its sources publish the response only, so it names the
    model, asks a placeholder question and offers every tool the recording calls with an open
    schema, as `matrix.recording_request` does for chat; each adapter words it for its SDK."""
    names = dict.fromkeys(call["name"] for call in recording.expected.get("tool_calls", []))
    return {
        "model": recording.model,
        "messages": [{"role": "user", "content": "(the request was not published)"}],
        "tools": [
            {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
            for name in names
        ],
    }
