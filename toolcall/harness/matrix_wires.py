"""The published recordings of the other wires (`cassettes/wires/`), as the matrix's cases.

Each `<wire>/<name>.<sse|jsonl|ndjson>` is a third party's body, verbatim, with its provenance in
`<name>.source.json` and its contents typed by hand in `<name>.expected.json`; the matrix judges
every implementation that reads the wire by that expectation, never by the library's output.

The body handed over is the one the API sends. A `.jsonl` source kept one event's JSON per line
and dropped the SSE framing; each line goes back in a `data:` event, and on the two wires whose
APIs name every event (`event: <type>` on Responses and Anthropic Messages, the same word as the
JSON's own `type`) the name line goes back too, because an SDK may read only named events (the
anthropic SDK skips an event without a name). Nothing else changes; a `.sse` or `.ndjson` body
is handed over as it is.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The folder under the suite's cassettes that holds the wire recordings.
FOLDER = "wires"
#: The wires whose API names each event with its JSON's `type`.
NAMED_EVENTS = ("responses", "anthropic")
RAW_SUFFIXES = (".sse", ".jsonl", ".ndjson")


class WireRecordingError(Exception):
    """A wire recording's files are missing or malformed: the run cannot judge it."""


@dataclass(frozen=True)
class WireRecording:
    wire: str
    stem: str
    provider: str
    model: str
    body: bytes
    expected: dict[str, Any]


def discover(cassettes_root: Path, provider: str | None = None) -> Iterator[WireRecording]:
    """Every wire recording under `cassettes_root/wires`, by wire then name; `provider` keeps
    the ones its source names (`provider` in `.source.json`)."""
    for source_path in sorted((cassettes_root / FOLDER).glob("*/*.source.json")):
        recording = load(source_path)
        if provider is None or recording.provider == provider:
            yield recording


def load(source_path: Path) -> WireRecording:
    stem = source_path.name.removesuffix(".source.json")
    where = f"{source_path.parent.name}/{stem}"
    raws = [p for p in source_path.parent.glob(f"{stem}.*") if p.suffix in RAW_SUFFIXES]
    expected_path = source_path.with_name(f"{stem}.expected.json")
    if len(raws) != 1 or not expected_path.is_file():
        raise WireRecordingError(f"{where}: wants one body ({RAW_SUFFIXES}) and .expected.json")
    try:
        source = json.loads(source_path.read_text(encoding="utf-8"))
        expected = json.loads(expected_path.read_text(encoding="utf-8"))
        wire, framing = source["wire"], source["framing"]
        provider, model = source["provider"], source["model"]
    except (ValueError, KeyError) as exc:
        raise WireRecordingError(f"{where}: unreadable sidecar: {exc!r}") from None
    body = api_body(wire, framing, raws[0].read_bytes())
    return WireRecording(wire, stem, provider, model, body, expected)


def api_body(wire: str, framing: str, raw: bytes) -> bytes:
    """The body as the API sends it (see the module's docstring for the one change)."""
    if framing != "jsonl":
        return raw
    events = []
    for line in raw.splitlines():
        if not line.strip():
            continue
        name = json.loads(line).get("type") if wire in NAMED_EVENTS else None
        head = b"" if not isinstance(name, str) else b"event: " + name.encode() + b"\n"
        events.append(head + b"data: " + line + b"\n\n")
    return b"".join(events)


def request(recording: WireRecording) -> dict[str, Any]:
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
