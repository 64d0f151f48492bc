"""The quirks a chat stream shows that break some client, each with who else sends the same.

The fingerprint (`fingerprint.observe`) reads every quirk of a raw chat stream; most values are
harmless, and those the library diagnoses itself (an absent index, a name sent again) are
findings already. The values below are the ones clients are known to trip on, each said in
plain words; a finding for one names the profiles and routes that declare the same value (with
their line) and the published recordings that show it, so a user sees that their provider is
not alone, and which.
"""

from __future__ import annotations

from typing import Any

from ..checks.where_to_fix import place
from ..suite import fingerprint
from ..suite.profiles import Suite
from .codes import Finding

#: (quirk, value) -> what it does to a client that does not expect it.
NOTABLE: dict[tuple[str, Any], str] = {
    ("arguments", "whole"): "each call's arguments come whole, with its name: a client that "
    "keeps the first delta's arguments and appends the same again doubles them",
    ("later_id", "empty"): 'a call\'s later deltas carry `id: ""`: a client that opens a call '
    "for every id it sees opens one per fragment",
    ("later_id", "repeated"): "a call's later deltas repeat its id: a client that opens a call "
    "for every id it sees opens one per fragment",
    ("later_name", "empty"): 'a call\'s later deltas carry `name: ""`: a client that takes the '
    "last name it saw loses the name",
    ("calls_per_chunk", "many"): "one chunk carries deltas of several calls: a client that reads "
    "only `tool_calls[0]` drops the others",
    ("finish_reason_repeated", True): "a finish_reason comes on more than one chunk: a client "
    "that stops at the first drops what follows",
    ("finish_with_last_delta", True): "the finish shares a chunk with the last call data: a "
    "client that stops at finish_reason before reading that delta loses it",
    ("usage", "after_finish"): "usage comes on a chunk after the finish: a client that stops "
    "reading at the finish loses it",
    ("trailing_empty_delta", True): "a call ends with a delta carrying neither name nor arguments",
}


def findings(suite: Suite, observed: fingerprint.Observed | None) -> list[Finding]:
    """A finding for each notable quirk value the stream shows."""
    if observed is None:
        return []
    found = []
    for quirk in fingerprint.ORDER:
        value = observed.quirks.get(quirk)
        said = NOTABLE.get((quirk, value)) if value is not None else None
        if said is None:
            continue
        finding = Finding("quirk", f"{quirk} = {value!r}: {said}")
        finding.declared_by, finding.shown_in = declared(suite, quirk, value)
        found.append(finding)
    return found


def declared(suite: Suite, quirk: str, value: Any) -> tuple[list[str], list[str]]:
    """The profiles and routes declaring `quirk` with `value` (their place in the YAML), and
    the recordings their evidence names."""
    places, shown = [], []
    for key, provider in suite.providers.items():
        if provider.quirks.get(quirk) == value:
            places.append(place(suite, "providers.yaml", ("providers", key, "quirks", quirk)))
            shown += provider.quirk_evidence.get(quirk, {}).get("recordings", [])
    for key, route in suite.routes.items():
        for provider_key, entries in route.change_evidence.items():
            entry = entries.get(quirk)
            if entry is not None and entry.get("value") == value:
                keys = ("routes", key, "changes", provider_key, quirk)
                places.append(place(suite, "routes.yaml", keys))
                shown += entry.get("recordings", [])
    return places, list(dict.fromkeys(shown))
