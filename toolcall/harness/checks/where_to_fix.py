"""What to edit or run in the suite for a failing cell or recording: the one line after the
finding. (A gateway's `fix:` line is another matter, what an application can do around the
gateway: `gateways.workarounds`.)

A finding says what differs; the person reading a red CI line also needs to know where to fix
it, and that depends on what the cassette is. A synthesized cassette is rendered from
providers.yaml, so a difference there is the profile's (edit it, then `make synthesize`); a
recorded one is the provider's own stream (`make record ... ACCEPT=1` accepts a change); a
published recording is judged by the hand-written `.expected.json` beside it, and judges the
profile in turn. Places in providers.yaml and scenarios.yaml are named with their line, found by
composing the YAML (its nodes keep their position), so an editor can jump there.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import yaml

from ..suite.cassettes import CHAT, cassette_path
from ..suite.profiles import Cell, Provider, Suite
from ..suite.recordings import Recording
from .outcome import Finding

#: Checks whose failure is the library's (or a cassette it cannot read), whatever the cassette.
_LIBRARY = frozenset({"library", "resplit", "events", "output-schema", "distinct-ids"})


def for_cell(suite: Suite, provider: Provider, cell: Cell, finding: Finding) -> str:
    """What to edit or run for `finding` on a provider x scenario cell."""
    p, s = provider.key, cell.scenario
    kind = cell.provenance.get("kind")
    cassette = _relative(suite, cassette_path(suite.cassettes, p, s))
    synthesize = f"make synthesize PROVIDER={p} SCENARIO={s}"
    record = f"make record PROVIDER={p} SCENARIO={s} ACCEPT=1"
    synthesis = place(suite, "providers.yaml", ("providers", p, "synthesis"))
    if finding.check == "provenance":
        return ""  # the finding itself names the command
    if finding.check == "replay":
        if kind == "synthesized":
            return f"run {synthesize} (the request changed since {cassette} was rendered)"
        return f"run {record} (the request changed since {cassette} was recorded)"
    if finding.check == "quirks" and finding.path.startswith("quirks."):
        quirk = finding.path.removeprefix("quirks.")
        declared = _quirk_place(suite, provider, cell, quirk)
        if kind == "synthesized":
            return (
                f"the profile and its synthesis disagree: edit {declared} or {synthesis}, "
                f"then run {synthesize}"
            )
        return f"the provider changed how it streams: {record} accepts it into {declared}"
    if finding.check in ("expect", "tool-schema"):
        expect = place(suite, "scenarios.yaml", ("scenarios", s, "expect"))
        if kind == "synthesized":
            reply = place(suite, "scenarios.yaml", ("scenarios", s, "reply"))
            return f"edit {reply} or {synthesis}, then run {synthesize}; or {expect}"
        return f"the model answered otherwise: run {record} again, or edit {expect}"
    if finding.check == "text-markup":
        if kind == "synthesized":
            reply = place(suite, "scenarios.yaml", ("scenarios", s, "reply"))
            return f"the text was written with a call's markup: edit {reply}, then {synthesize}"
        return f"the server left a call in the text (its tool-call parser): fix it, then {record}"
    if finding.check in _LIBRARY:
        made = f"rendered from {synthesis}" if kind == "synthesized" else str(kind)
        return f"a library bug, or a broken cassette: {cassette} ({made})"
    return f"see {cassette}"


def for_recording(suite: Suite, recording: Recording, finding: Finding) -> str:
    """What to edit or run for `finding` on a published recording, of any wire."""
    p, stem = recording.provider, recording.name
    cassette = _relative(suite, recording.path)
    expected = _relative(suite, recording.expected_path)
    if finding.check == "expected":
        return f"if the expectation is wrong, edit {expected}; else the library is"
    if finding.check == "verbatim":
        return f"{cassette} no longer holds its source's bytes: restore it (git checkout)"
    if finding.check in ("quirks", "quirk-evidence") and finding.path.startswith("routes."):
        # routes.<route>.changes.<provider>.<quirk>: that provider's change, no one else's
        declared = place(suite, "routes.yaml", tuple(finding.path.split(".")))
        if finding.check == "quirk-evidence":
            return f"edit {declared}: it names {stem}, which does not show the value"
        return f"edit {declared}: {stem} came through the route and shows otherwise"
    if finding.check == "cross-wire":
        return "compare the two recordings; if the model answered differently, drop the pair"
    if finding.check == "profile" and recording.wire != CHAT:
        return f"name {stem} under its provider's wires.{recording.wire} in providers.yaml"
    if finding.check in ("quirks", "quirk-evidence") and finding.path.startswith("providers."):
        keys = tuple(finding.path.split("."))
        declared = place(suite, "providers.yaml", keys)
        if finding.check == "quirk-evidence":
            return f"edit {declared}: it names {stem}, which does not show the value"
        waivers = place(suite, "providers.yaml", ("providers", p, "waivers"))
        return f"edit {declared}, or waive it for {stem} with the reason ({waivers})"
    if finding.check == "structure":
        waivers = place(suite, "providers.yaml", ("providers", p, "waivers"))
        if finding.path.endswith(".waivers"):
            return f"drop the structure waiver of {stem} ({waivers}): nothing differs any more"
        synthesis = place(suite, "providers.yaml", ("providers", p, "synthesis"))
        return (
            f"edit {synthesis} until it renders {stem}'s reply with its structure, then run "
            f"make synthesize PROVIDER={p}; or waive it for {stem} with the reason ({waivers})"
        )
    if finding.check == "profile":
        return f"add a profile for {p} to providers.yaml (make add-provider)"
    if finding.check in _LIBRARY or finding.check == "events":
        return f"a library bug, seen on {cassette}"
    return f"see {cassette}"


def _quirk_place(suite: Suite, provider: Provider, cell: Cell, quirk: str) -> str:
    """Where a cell's quirk is declared: the scenario's override, or the provider's list."""
    override = ("providers", provider.key, "scenarios", cell.scenario, "quirks", quirk)
    if _line(suite.root / "providers.yaml", override) is not None:
        return place(suite, "providers.yaml", override)
    return place(suite, "providers.yaml", ("providers", provider.key, "quirks", quirk))


def place(suite: Suite, name: str, keys: Sequence[str]) -> str:
    """`providers.yaml:921 (providers.gemini.quirks.index)`, down to the deepest key found: a
    place an editor jumps to, for this module's lines and for `toolcall doctor`'s, which names
    where a quirk it found is declared."""
    path = suite.root / name
    for depth in range(len(keys), 0, -1):
        line = _line(path, tuple(keys[:depth]))
        if line is not None:
            return f"{name}:{line} ({'.'.join(keys[:depth])})"
    return f"{name} ({'.'.join(keys)})"


def _line(path: Path, keys: tuple[str, ...]) -> int | None:
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        return None
    return _lines(path, stamp).get(keys)


@lru_cache(maxsize=4)
def _lines(path: Path, stamp: int) -> dict[tuple[str, ...], int]:
    """Every mapping key's line (1-based), by its path of keys; `stamp` renews the cache."""
    try:
        root = yaml.compose(path.read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
    except (OSError, yaml.YAMLError):
        return {}
    found: dict[tuple[str, ...], int] = {}
    pending: list[tuple[tuple[str, ...], yaml.Node | None]] = [((), root)]
    while pending:
        prefix, node = pending.pop()
        if not isinstance(node, yaml.MappingNode):
            continue
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                keys = (*prefix, str(key.value))
                found[keys] = key.start_mark.line + 1
                pending.append((keys, value))
    return found


def _relative(suite: Suite, path: Path) -> str:
    try:
        return path.relative_to(suite.root).as_posix()
    except ValueError:
        return str(path)
