"""The suite's published recordings that show the same as a capture: the user's evidence that
their stream is not alone, and a maintainer's test case.

The recordings are the suite's cases of the two recorded kinds (`case.cases`: published chat
recordings and the other wires' recordings; a case written from documentation is no evidence of
what a provider sent). Each is read once per process the way a capture is (`reading.read`) and
its findings' codes indexed by the case's id; a finding then names the cases that share its code.
"""

from __future__ import annotations

from pathlib import Path

from ..suite import recordings
from ..suite.case import PUBLISHED, WIRE_RECORDING, Filters, cases
from ..suite.profiles import Suite
from .codes import error_code
from .opening import open_capture
from .reading import read

#: Recordings named per finding, at most.
SHOWN = 3


def recorded(suite: Suite) -> list[tuple[str, Path]]:
    """(case id, file) of every recording of the suite that a provider sent."""
    found = []
    for kind in (PUBLISHED, WIRE_RECORDING):
        for case in cases(suite, Filters(kind=kind)):
            recording = case.origin
            if isinstance(recording, recordings.Recording) and not recording.synthesized:
                found.append((case.id, suite.root / case.source))
    return found


def recordings_showing(suite: Suite, code: str) -> list[str]:
    """The ids of recordings (`provider/published/name`, `wires/wire/name`) with `code`."""
    index = _INDEXES.get(suite.root)
    if index is None:
        index = _INDEXES[suite.root] = _index(suite)
    return list(index.get(code, ()))[:SHOWN]


#: Each suite's index, by its root, made on first use.
_INDEXES: dict[Path, dict[str, tuple[str, ...]]] = {}


def _index(suite: Suite) -> dict[str, tuple[str, ...]]:
    found: dict[str, list[str]] = {}
    try:
        listed = recorded(suite)
    except recordings.RecordingError:
        return {}
    for case_id, path in listed:
        reading = read(open_capture(str(path)))
        codes = [d.code for d in reading.turn.diagnostics] if reading.turn else []
        if reading.error is not None:
            codes.append(error_code(reading.error))
        for code in dict.fromkeys(codes):
            found.setdefault(code, []).append(case_id)
    return {code: tuple(ids) for code, ids in found.items()}
