"""The checks of one published recording, on any wire: the evidence, and what it says of the
profiles.

A recording is judged by the expectation written by hand beside it, never by our output: its body
must still be the source's bytes, every re-split (whole, byte by byte, 7-byte, random, inside
UTF-8) must give the same turn with events that tell it, and that turn must be the expectation.
Then the recording judges what providers.yaml says of it. On chat completions every declared
quirk it contradicts is a finding naming the recording, unless the profile waives that quirk for
it with a reason (a recording through a route is judged against the provider's quirks with the
route's declared changes over them), and a first-party recording's own reply, rendered through
the provider's synthesis, must have the recording's structure (`structure`). The other wires
have no quirk vocabulary (it describes chat chunks), so there the profile is judged by what it
declares: a wire offer must name the recording, the wire must be the one detected from the body,
and where the offer pairs the recording with a chat recording of the same request the two turns
must agree (`cross_wire`).
The row of another wire's recording is `provider@wire`, so a wire's evidence is never read as
the provider's chat evidence.
"""

from __future__ import annotations

from typing import Any

from toolcall import ToolCallError, Turn, TurnBuilder

from .. import synthesize
from ..reading import wires
from ..recording.replay import ReplayError, replay_own_request
from ..suite import fingerprint, recordings
from ..suite.cassettes import CHAT
from ..suite.profiles import STRUCTURE, Provider, Route, Suite
from ..suite.recordings import Recording
from . import cross_wire, structure, where_to_fix
from .event_check import assemble_with_events
from .outcome import Finding, Outcome, differences
from .turns import error_kind, expectation_differences, expectation_of, judged_expectation, splits


def check_recording(suite: Suite, recording: Recording) -> Outcome:
    """Run every check on one published recording (or synthesized wire case, judged alike)."""
    chat = recording.wire == CHAT
    offer = None if chat else recordings.offer_of(suite, recording)
    outcome = Outcome(
        offer.provider if offer is not None else recording.provider,
        recording.column if chat else recording.id,
        "pass",
        note=(
            f"synthesized from documentation ({recording.provenance['provenance']['fact']})"
            if recording.synthesized
            else f"published ({recording.origin}, {recording.model})"
        ),
        origin=recording.origin or "unknown",  # unreadable: the origin cannot be read either
        route=recording.route,
        wire=recording.wire,
    )
    findings = outcome.findings
    if recording.problem is not None:
        findings.append(Finding("replay", "$", "a readable recording", recording.problem))
        return _failed(suite, recording, outcome)
    body = recording.body()
    if chat:
        try:
            body = replay_own_request(recording.path).body
        except ReplayError as exc:
            findings.append(Finding("replay", "$", "a cassette that replays", str(exc)))
            return _failed(suite, recording, outcome)
    source = recordings.source_bytes(body, recording.provenance) if chat else recording.raw
    if recordings.sha256(source) != recording.source_sha256:
        findings.append(
            Finding("verbatim", "$.body", recording.source_sha256, "a different SHA-256")
        )
    if not chat and _detected_wire(body) != recording.wire:
        findings.append(Finding("wire", "$", recording.wire, _detected_wire(body)))
    answers: dict[str, dict[str, Any]] = {}
    turns: dict[str, Turn] = {}
    for label, pieces in splits(body, seed=recording.id):
        try:
            turn, problems = assemble_with_events(pieces)
        except ToolCallError as exc:
            answers[label] = {"error": {"kind": error_kind(exc), "why": str(exc)}}
            continue
        turns[label] = turn
        answers[label] = expectation_of(turn)
        findings += [
            Finding("events", f"split[{label}]", "events that tell the turn", problem)
            for problem in problems
        ]
    whole = answers["whole"]
    findings += [
        Finding("resplit", f"split[{label}]", "the same turn as whole", "different")
        for label, answer in answers.items()
        if answer != whole
    ]
    findings += _expected(recording, whole, turns.get("whole"))
    if chat:
        findings += _profile(suite, recording, body)
    elif offer is None:
        key = "cases" if recording.synthesized else "recordings"
        wanted = f"a `wires.{recording.wire}.{key}` entry in providers.yaml naming it"
        findings.append(Finding("profile", "$", wanted, recording.provider))
    elif "whole" in turns:
        findings += cross_wire.findings(suite, offer, recording.name, turns["whole"])
    if findings:
        return _failed(suite, recording, outcome)
    return outcome


def _failed(suite: Suite, recording: Recording, outcome: Outcome) -> Outcome:
    outcome.status = "fail"
    outcome.fix = where_to_fix.for_recording(suite, recording, outcome.findings[0])
    return outcome


def _expected(recording: Recording, whole: dict[str, Any], turn: Turn | None) -> list[Finding]:
    """Where the whole body's turn differs from the hand-written expectation. A chat expectation
    (`expected.schema.json`) may expect an error; another wire's gives each call's id, name and
    arguments in the order the wire opened them, and a thought signature by its start and
    length."""
    if recording.wire == CHAT:
        found = differences(judged_expectation(recording.expected), judged_expectation(whole))
    elif turn is None:
        return [Finding("library", "$", "the expected turn", whole["error"]["why"])]
    else:
        found = expectation_differences(turn, recording.expected)
    return [Finding("expected", path, want, got) for path, want, got in found]


def _profile(suite: Suite, recording: Recording, body: bytes) -> list[Finding]:
    """What a chat recording says against its provider's profile, through its route."""
    provider = suite.providers.get(recording.provider)
    route = suite.routes.get(recording.route)
    if provider is None:
        return [Finding("profile", "$", "a profile in providers.yaml", recording.provider)]
    if route is None:
        return [Finding("route", "$", "a route in routes.yaml", recording.route)]
    framing = recordings.shows_framing(recording.provenance)
    found = profile_findings(provider, recording.name, body, framing=framing, route=route)
    return found + structure_findings(suite, provider, recording, body)


def structure_findings(
    suite: Suite, provider: Provider, recording: Recording, body: bytes
) -> list[Finding]:
    """Whether the provider's synthesis, given a first-party recording's own reply, has the
    recording's structure (`structure.compare_recording`): a synthesized cassette claims to look
    like its provider, and only the provider's own stream can say it does. A recording whose
    structure the profile waives must still differ, or the waiver hides the next difference."""
    if recording.origin != "first-party" or "error" in recording.expected:
        return []
    try:
        differences = structure.compare_recording(suite, recording, body)
    except (wires.UnreadableBody, synthesize.SynthesisError) as exc:
        return [Finding("structure", "$", "a stream to compare with the synthesis", str(exc))]
    if (recording.name, STRUCTURE) in provider.waivers:
        if differences:
            return []
        where = f"providers.{provider.key}.waivers"
        return [Finding("structure", where, f"{recording.name} differs", "no difference")]
    where = f"providers.{provider.key}.synthesis"
    return [Finding("structure", where, f"{recording.name}'s structure", d) for d in differences]


def profile_findings(
    provider: Provider,
    stem: str,
    body: bytes,
    *,
    framing: bool = True,
    route: Route | None = None,
) -> list[Finding]:
    """What one recording says against its provider's declared quirks, seen through its route's
    declared changes, waivers applied.

    Each finding names the recording (the evidence) and the declaration it contradicts (the
    provider's quirk, or the route's change), so a mistaken profile is reported as "this
    recording contradicts you", not as a cassette failing. A recording whose source held one
    JSON chunk per line (`framing` false) cannot tell `[DONE]` or comments.
    """
    try:
        observed = fingerprint.observe(body)
    except wires.UnreadableBody as exc:
        return [Finding("quirks", "$", "a readable stream", str(exc))]
    if not framing:
        observed.quirks.update(dict.fromkeys(fingerprint.FRAMING))
    changes = route.changes_for(provider.key) if route is not None else {}
    found = []
    for quirk, want, got in fingerprint.compare({**provider.quirks, **changes}, observed):
        if (stem, quirk) in provider.waivers:
            continue
        where = (
            f"routes.{route.key}.changes.{provider.key}.{quirk}"
            if route is not None and quirk in changes
            else f"providers.{provider.key}.quirks.{quirk}"
        )
        found.append(Finding("quirks", where, want, f"{got!r} in {stem}"))
    declarations = [(f"providers.{provider.key}.quirks", provider.quirk_evidence)]
    if route is not None:
        declarations.append(
            (
                f"routes.{route.key}.changes.{provider.key}",
                route.change_evidence.get(provider.key, {}),
            )
        )
    for where, declared in declarations:
        for quirk, entry in declared.items():
            if stem in entry.get("recordings", []):
                shows = fingerprint.shows(observed, quirk, entry["value"])
                if shows is not True:
                    found.append(
                        Finding(
                            "quirk-evidence",
                            f"{where}.{quirk}.recordings",
                            f"{stem} shows {entry['value']!r}",
                            fingerprint.shown(observed.quirks.get(quirk)),
                        )
                    )
    return found


def _detected_wire(body: bytes) -> str:
    """The wire `wire="auto"` settles on for the whole body (`auto` if it never settles)."""
    builder = TurnBuilder()
    try:
        builder.feed(body)
        builder.finish()
    except ToolCallError:
        pass
    return builder.wire
