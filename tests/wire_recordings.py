"""The published recordings of the wires other than chat completions (`cassettes/wires/`).

Each `<name>.<sse|jsonl|ndjson>` is a third party's body, verbatim; `<name>.source.json` says where
it came from (and its SHA-256), `<name>.expected.json` what it holds, typed by hand. A `.jsonl`
source kept one event's JSON per line and dropped the SSE framing; `body()` puts each line back
in a `data:` event, the one change made to replay it (recorded in the cassettes' README).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1] / "cassettes" / "wires"


@dataclass(frozen=True)
class Recording:
    name: str
    wire: str
    raw: bytes
    source: dict[str, Any]
    expected: dict[str, Any]

    def body(self) -> bytes:
        """The HTTP body the provider sent, as the library reads it."""
        if self.source["framing"] != "jsonl":
            return self.raw
        lines = [line for line in self.raw.splitlines() if line.strip()]
        return b"".join(b"data: " + line + b"\n\n" for line in lines)


@cache
def recordings() -> tuple[Recording, ...]:
    found = []
    for source_path in sorted(ROOT.glob("*/*.source.json")):
        stem = source_path.name.removesuffix(".source.json")
        source = json.loads(source_path.read_text())
        (raw_path,) = [
            p
            for p in source_path.parent.glob(f"{stem}.*")
            if p.suffix in (".sse", ".jsonl", ".ndjson")
        ]
        expected = json.loads((source_path.parent / f"{stem}.expected.json").read_text())
        found.append(Recording(stem, source["wire"], raw_path.read_bytes(), source, expected))
    return tuple(found)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
