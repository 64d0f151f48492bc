"""What a recording run observed, as a change to providers.yaml: printed as YAML, or applied.

One provider-level block plus the per-scenario overrides that really differ, never one suggestion
per scenario: a provider that changed its wire changed it everywhere. The provider-level value is
what most recorded scenarios showed, and it moves only when the run recorded every applicable
scenario of the provider; a partial run (one `SCENARIO=`) would otherwise change the declaration
under cassettes it never looked at, so its differences stay per-scenario overrides. An override
equal to the provider-level value is removed. A quirk the profile does not list yet is declared
only by a complete run, and only when none of the provider's published recordings contradicts it
(profiles leave a quirk out on purpose where the evidence varies); a partial run declares nothing
new, since one cassette is thin evidence. Each recorded scenario's `provenance` becomes
`{kind: recorded, date, model}`, so the profile, the cassette's own metadata and the report agree.

A run through a route other than `direct` changes routes.yaml instead (`plan_route`): what the
stream through the route shows in place of the provider's declared quirks becomes the route's
changes for that provider, and providers.yaml is not touched, so a gateway's rewrites never pass
for the provider's; another provider's changes through the same route are left as they are.

Applying goes through `roundtrip` (ruamel.yaml), which keeps providers.yaml's (and routes.yaml's)
comments, key order, quoting and flow style. The printed form is the same change as valid YAML,
merged by hand where `--accept` is not wanted; `null` there means "remove this override".
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..suite import fingerprint
from ..suite.profiles import Provider, Route, Suite
from . import roundtrip
from .record import Recorded

RECORDED = "recorded"


@dataclass
class Change:
    """The change to one provider's profile."""

    provider: str
    #: quirk -> new provider-level value
    quirks: dict[str, Any] = field(default_factory=dict)
    #: scenario -> quirk -> value, or None to remove that scenario's override
    overrides: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: scenario -> its new provenance
    provenance: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: quirk -> the scenarios whose recordings show the provider-level value
    shown_by: dict[str, list[str]] = field(default_factory=dict)


def plan(suite: Suite, provider: Provider, recorded: Iterable[Recorded]) -> Change:
    """The change that makes `provider`'s profile say what `recorded` observed."""
    runs = {r.scenario: r for r in recorded}
    applicable = [s for s, c in provider.cells.items() if c.not_applicable is None]
    complete = all(s in runs for s in applicable)
    change = Change(provider.key)
    date = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    for scenario in runs:
        cell = provider.cells[scenario]
        change.provenance[scenario] = {"kind": RECORDED, "date": date, "model": cell.model}
    declared_overrides = _declared_overrides(provider)
    published_views = _published_views(suite, provider) if complete else []
    for quirk in fingerprint.ORDER:
        seen = {s: _seen(provider, r, quirk) for s, r in runs.items() if quirk in r.observed}
        if not seen:
            continue
        level = provider.quirks.get(quirk)
        if complete and quirk not in provider.quirks:
            level = _majority(seen, None)
            if any(fingerprint.shows(o, quirk, level) is False for o in published_views):
                continue  # the published evidence disagrees: it stays undeclared, as it was
        if complete:
            level = _majority(seen, level)
            if quirk not in provider.quirks or provider.quirks[quirk] != level:
                change.quirks[quirk] = level
            change.shown_by[quirk] = [s for s, v in seen.items() if v == level]
        for scenario, value in seen.items():
            if not complete and quirk not in provider.cells[scenario].quirks:
                continue  # a partial run declares nothing new: one cassette is thin evidence
            override = declared_overrides.get(scenario, {})
            if (quirk in provider.quirks or quirk in change.quirks) and value == level:
                if quirk in override:
                    change.overrides.setdefault(scenario, {})[quirk] = None
                continue
            if override.get(quirk, _MISSING) != value:
                change.overrides.setdefault(scenario, {})[quirk] = value
    return change


_MISSING = object()


def _majority(seen: dict[str, Any], current: Any) -> Any:
    """The value most scenarios showed; the current declaration wins a tie."""
    counts = Counter(_hashable(v) for v in seen.values())
    best = max(counts.values())
    winners = [v for v in seen.values() if counts[_hashable(v)] == best]
    return current if any(v == current for v in winners) else winners[0]


def _published_views(suite: Suite, provider: Provider) -> list[fingerprint.Observed]:
    """The fingerprints of the provider's published recordings, framing blanked where the
    source could not show it (one JSON chunk per line)."""
    from ..suite import cassettes, recordings

    views = []
    for recording in recordings.discover(suite.cassettes, provider.key, wire=cassettes.CHAT):
        observed = fingerprint.observe(cassettes.response_body(cassettes.load(recording.path)))
        if not recordings.shows_framing(recording.provenance):
            observed.quirks.update(dict.fromkeys(fingerprint.FRAMING))
        views.append(observed)
    return views


def _seen(provider: Provider, run: Recorded, quirk: str) -> Any:
    """What a run shows for `quirk`; for `id_pattern`, the declared pattern when it matches every
    id (the suggestion is only one of the patterns that would)."""
    if quirk == "id_pattern":
        declared = provider.cells[run.scenario].quirks.get(quirk)
        if declared and all(re.fullmatch(declared, i) for i in run.ids):
            return declared
    return run.observed[quirk]


def _hashable(value: Any) -> Any:
    return repr(value)


def _declared_overrides(provider: Provider) -> dict[str, dict[str, Any]]:
    """scenario -> quirk -> value of the overrides providers.yaml declares today."""
    return {
        scenario: {q: v for q, v in cell.quirks.items() if provider.quirks.get(q, _MISSING) != v}
        for scenario, cell in provider.cells.items()
    }


def _entry(value: Any, scenarios: list[str]) -> dict[str, Any]:
    return {"value": value, "evidence": RECORDED, "cassettes": scenarios}


def document(changes: Iterable[Change]) -> dict[str, Any]:
    """The changes as the part of providers.yaml they touch (plain data)."""
    providers: dict[str, Any] = {}
    for change in changes:
        block: dict[str, Any] = {}
        if change.quirks:
            block["quirks"] = {
                q: _entry(v, change.shown_by.get(q, [])) for q, v in change.quirks.items()
            }
        scenarios: dict[str, Any] = {}
        for scenario, provenance in change.provenance.items():
            entry: dict[str, Any] = {}
            overrides = change.overrides.get(scenario, {})
            if overrides:
                entry["quirks"] = {
                    q: None if v is None else _entry(v, [scenario]) for q, v in overrides.items()
                }
            entry["provenance"] = provenance
            scenarios[scenario] = entry
        block["scenarios"] = scenarios
        providers[change.provider] = block
    return {"providers": providers}


def as_yaml(changes: Iterable[Change]) -> str:
    """The change as YAML to merge into providers.yaml (`null`: remove that override)."""
    return roundtrip.dump(_flow_leaves(document(changes)))


def apply(path: Path, changes: Iterable[Change]) -> None:
    """Write the changes into providers.yaml at `path`, keeping everything else as it was; a change
    that would leave a file no command can load is refused (`ProfileError`), the file untouched."""
    doc = roundtrip.load(path)
    for change in changes:
        profile = doc["providers"][change.provider]
        if change.quirks:
            quirks = profile["quirks"]
            quirks.fa.set_block_style()
            for quirk, value in change.quirks.items():
                quirks[quirk] = roundtrip.flow(_entry(value, change.shown_by.get(quirk, [])))
            _sort(quirks)
        for scenario, provenance in change.provenance.items():
            entry = profile["scenarios"][scenario]
            entry.fa.set_block_style()
            overrides = change.overrides.get(scenario, {})
            if overrides:
                if "quirks" not in entry:
                    entry.insert(_before(entry, "provenance"), "quirks", roundtrip.block())
                quirks = entry["quirks"]
                quirks.fa.set_block_style()
                for quirk, value in overrides.items():
                    if value is None:
                        quirks.pop(quirk, None)
                    else:
                        quirks[quirk] = roundtrip.flow(_entry(value, [scenario]))
                _sort(quirks)
                if not quirks:
                    del entry["quirks"]
            entry["provenance"] = roundtrip.flow(provenance)
    roundtrip.save(path, doc, "record --accept")


def _flow_leaves(data: dict[str, Any]) -> Any:
    """Quirk entries and provenances as one-line flow maps, the way providers.yaml writes them."""
    node = roundtrip.block()
    for key, value in data.items():
        if isinstance(value, dict) and ("value" in value or "kind" in value):
            node[key] = roundtrip.flow(value)
        elif isinstance(value, dict):
            node[key] = _flow_leaves(value)
        else:
            node[key] = value
    return node


def _sort(quirks: Any) -> None:
    """Quirks in the vocabulary's order, as every profile lists them."""
    order = {name: i for i, name in enumerate(fingerprint.ORDER)}
    items = sorted(quirks.items(), key=lambda kv: order.get(kv[0], len(order)))
    for key, _value in items:
        value = quirks.pop(key)
        quirks[key] = value


def _before(entry: Any, key: str) -> int:
    keys = list(entry)
    return keys.index(key) if key in keys else len(keys)


@dataclass
class RouteChange:
    """The change to one route's profile in routes.yaml: provider -> quirk -> its new entry, or
    None to remove a recorded change the run no longer shows. Only the providers the run
    recorded appear: another provider's changes through the route are never touched."""

    route: str
    changes: dict[str, dict[str, dict[str, Any] | None]] = field(default_factory=dict)


def plan_route(suite: Suite, route: Route, recorded: Iterable[Recorded]) -> RouteChange:
    """What `recorded` (cells of any provider through `route`) says the route changes in each
    recorded provider's stream.

    A change is a quirk the provider's profile declares whose value its stream through the
    route does not show: the value most of the provider's cells showed, with the cells as its
    evidence. The provider's cassettes recorded earlier and not in this run keep their vote (a
    `SCENARIO=` run does not erase what the others showed). A recorded change that every cell
    now shows the provider's value for, and no earlier cassette still shows, is removed.
    providers.yaml is never part of this change, and neither is any other provider's entry.
    """
    runs_of: dict[str, list[Recorded]] = {}
    for run in recorded:
        runs_of.setdefault(run.provider, []).append(run)
    change = RouteChange(route.key)
    for provider_key, runs in runs_of.items():
        planned = _plan_provider(suite.providers[provider_key], route, runs)
        if planned:
            change.changes[provider_key] = planned
    return change


def _plan_provider(
    provider: Provider, route: Route, runs: list[Recorded]
) -> dict[str, dict[str, Any] | None]:
    """quirk -> new entry (None: remove) for one provider's cells through `route`."""
    declared = route.change_evidence.get(provider.key, {})
    rerecorded = {run.scenario for run in runs}
    votes: dict[str, dict[str, Any]] = {}
    agree: set[str] = set()
    for run in runs:
        cell = provider.cells[run.scenario]
        for quirk, value_declared in cell.quirks.items():
            if quirk not in run.observed:
                continue
            value = _seen(provider, run, quirk)
            if value == value_declared:
                agree.add(quirk)
            else:
                votes.setdefault(quirk, {})[run.scenario] = value
    for quirk, entry in declared.items():
        if entry.get("evidence") != RECORDED:
            continue
        for scenario in entry["cassettes"]:
            if scenario not in rerecorded:
                votes.setdefault(quirk, {})[scenario] = entry["value"]
    planned: dict[str, dict[str, Any] | None] = {}
    for quirk in fingerprint.ORDER:
        before = declared.get(quirk)
        if quirk in votes:
            current = before["value"] if before is not None else None
            value = _majority(votes[quirk], current)
            shown_by = sorted(s for s, v in votes[quirk].items() if v == value)
            entry = {"value": value, "evidence": RECORDED, "cassettes": shown_by}
            if before != entry:
                planned[quirk] = entry
        elif quirk in agree and before is not None and before.get("evidence") == RECORDED:
            planned[quirk] = None
    return planned


def route_yaml(changes: Iterable[RouteChange]) -> str:
    """The route changes as YAML to merge into routes.yaml (`null`: remove that change)."""
    doc = {"routes": {c.route: {"changes": c.changes} for c in changes if c.changes}}
    return roundtrip.dump(_flow_leaves(doc))


def apply_routes(path: Path, changes: Iterable[RouteChange]) -> None:
    """Write route changes into routes.yaml at `path`, comments and everything else kept; only
    the recorded providers' entries under each route are touched."""
    doc = roundtrip.load(path)
    for change in changes:
        if not change.changes:
            continue
        profile = doc["routes"][change.route]
        if "changes" not in profile:
            _move_gap_to_next_route(doc["routes"], change.route)
            profile["changes"] = roundtrip.block()
        by_provider = profile["changes"]
        by_provider.fa.set_block_style()
        for provider, planned in change.changes.items():
            if provider not in by_provider:
                by_provider[provider] = roundtrip.block()
            entries = by_provider[provider]
            entries.fa.set_block_style()
            for quirk, entry in planned.items():
                if entry is None:
                    entries.pop(quirk, None)
                else:
                    entries[quirk] = roundtrip.flow(entry)
            _sort(entries)
            if not entries:
                del by_provider[provider]
        if not by_provider:
            del profile["changes"]
    roundtrip.save(path, doc, "record --accept")


def _move_gap_to_next_route(routes: Any, key: str) -> None:
    """The blank line that ends a route's last scalar, moved to before the next route, so a
    `changes` block appended to the route stays inside it and the routes stay apart."""
    profile = routes[key]
    last = list(profile)[-1]
    comment = profile.ca.items.get(last)
    if not comment or len(comment) < 3 or comment[2] is None:
        return
    names = list(routes)
    if names.index(key) + 1 == len(names):
        return
    gap = comment[2]
    comment[2] = None
    following = names[names.index(key) + 1]
    slot = routes.ca.items.setdefault(following, [None, [], None, None])
    slot[1] = [gap, *(slot[1] or [])]
