"""The suite's published recordings that show the same as a capture: the user's evidence that
their stream is not alone, and a maintainer's test case.

Each recording is read once per process the way a capture is (`reading.read`), and its findings'
codes indexed; a finding then names the recordings that share its code.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from .. import recordings
from ..profiles import Suite
from .codes import error_code
from .opening import open_capture
from .reading import read

#: Recordings named per finding, at most.
SHOWN = 3


def recordings_showing(suite: Suite, code: str) -> list[str]:
    """Published recordings (`provider/published/name`, `wires/wire/name`) with `code`."""
    return list(_index(suite.cassettes).get(code, ()))[:SHOWN]


@lru_cache(maxsize=2)
def _index(cassettes: Path) -> dict[str, tuple[str, ...]]:
    found: dict[str, list[str]] = {}
    try:
        published = recordings.discover(cassettes)
    except recordings.RecordingError:
        return {}
    for recording in published:
        if recording.synthesized:
            continue
        reading = read(open_capture(str(recording.path)))
        codes = [d.code for d in reading.turn.diagnostics] if reading.turn else []
        if reading.error is not None:
            codes.append(error_code(reading.error))
        for code in dict.fromkeys(codes):
            found.setdefault(code, []).append(recording.id)
    return {code: tuple(ids) for code, ids in found.items()}
