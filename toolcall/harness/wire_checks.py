"""The conformance check of one wire recording (`cassettes/wires/`), as a matrix outcome.

The same checks as a published chat recording, where they mean the same: the body is still the
source's bytes, every re-split (whole, byte by byte, 7-byte, random, inside UTF-8) gives the same
turn with events on and the events tell that turn, the wire is detected from the body, and the
turn is the hand-written expectation. A wire recording has no quirk fingerprint (the vocabulary
describes chat chunks), so its provider's profile is judged by the one thing it declares about
it: providers.yaml must name the recording under that provider's wire. Where it pairs the
recording with a chat recording of the same request, the two turns must agree (`cross_wire`).
The outcome's row is
`provider@wire`, so a wire's evidence is never read as the provider's chat evidence.
"""

from __future__ import annotations

from typing import Any

from toolcall import ToolCallError, Turn, TurnBuilder

from . import cross_wire, recordings
from .checks import Finding, Outcome, error_kind, expectation_differences, splits
from .event_check import assemble_with_events
from .profiles import Suite
from .recordings import Recording, offer_of


def check_wire_recording(suite: Suite, recording: Recording) -> Outcome:
    """Run every check on one wire recording."""
    offer = offer_of(suite, recording)
    outcome = Outcome(
        offer.provider if offer is not None else recording.provider,
        recording.id,
        "pass",
        note=f"published ({recording.origin}, {recording.model})",
        origin=recording.origin or "unknown",
        wire=recording.wire,
    )
    findings = outcome.findings
    if recordings.sha256(recording.source()) != recording.source_sha256:
        findings.append(
            Finding("verbatim", "$.body", recording.source_sha256, "a different SHA-256")
        )
    body = recording.body()
    detected = _detected_wire(body)
    if detected != recording.wire:
        findings.append(Finding("wire", "$", recording.wire, detected))
    answers: dict[str, Any] = {}
    turns: dict[str, Turn] = {}
    for label, pieces in splits(body, seed=recording.id):
        try:
            turn, problems = assemble_with_events(pieces)
        except ToolCallError as exc:
            answers[label] = {"error": error_kind(exc), "why": str(exc)}
            continue
        turns[label] = turn
        answers[label] = expectation_differences(turn, recording.expected)
        findings += [
            Finding("events", f"split[{label}]", "events that tell the turn", problem)
            for problem in problems
        ]
    whole = answers["whole"]
    if isinstance(whole, dict):
        findings.append(Finding("library", "$", "the expected turn", whole["why"]))
    else:
        findings += [Finding("expected", path, want, got) for path, want, got in whole]
    findings += [
        Finding("resplit", f"split[{label}]", "the same turn as whole", "different")
        for label, answer in answers.items()
        if answer != whole
    ]
    if offer is not None and "whole" in turns:
        findings += cross_wire.findings(suite, offer, recording.name, turns["whole"])
    if offer is None:
        findings.append(
            Finding(
                "profile",
                "$",
                f"a `wires.{recording.wire}.recordings` entry in providers.yaml naming it",
                recording.provider,
            )
        )
    if findings:
        outcome.status = "fail"
        outcome.fix = _fix(recording, findings[0])
    return outcome


def _detected_wire(body: bytes) -> str:
    """The wire `wire="auto"` settles on for the whole body (`auto` if it never settles)."""
    builder = TurnBuilder()
    try:
        builder.feed(body)
        builder.finish()
    except ToolCallError:
        pass
    return builder.wire


def _fix(recording: Recording, finding: Finding) -> str:
    """What to edit when the first finding is the data's fault rather than the library's."""
    folder = f"cassettes/wires/{recording.wire}/{recording.name}"
    if finding.check == "expected":
        return f"if the expectation is the one that is wrong, correct {folder}.expected.json"
    if finding.check == "verbatim":
        return f"restore the source's bytes (the SHA-256 in {folder}.source.json)"
    if finding.check == "cross-wire":
        return "compare the two recordings; if the model answered differently, drop the pair"
    if finding.check == "profile":
        return (
            f"name {recording.name} under its provider's wires.{recording.wire} in providers.yaml"
        )
    return ""
