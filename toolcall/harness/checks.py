"""Every check the suite makes on one cassette, gathered into one readable outcome.

Order matters for the reader: replay first (is the cassette still the evidence for today's
request?), then the library under many byte splits (does transport chunking change anything?),
then the output schemas (is the result right?), then the fingerprint (does the provider still
stream the way its profile says?). Each finding names the check, a JSON path, and what was
declared against what was observed, so a red CI line reads like a diff.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from toolcall import ProviderError, ToolCallError, TruncatedError, Turn
from toolcall.schema import ToolSchemas

from . import fingerprint, recordings, remedy, walk
from .cassettes import CHAT, ROUTES, cassette_path
from .event_check import assemble_with_events
from .profiles import DIRECT, Cell, Provider, Route, Suite, format_schema
from .replay import ReplayError, replay, replay_own_request

#: Bodies up to this size are also fed one byte at a time; larger ones byte by byte at both ends
#: (where the call's head and the finish live) and in 7-byte and random slices throughout, which
#: keeps the whole suite within seconds.
BYTEWISE_LIMIT = 64 * 1024
#: The wire of every cassette under `cassettes/<provider>/`.
BYTEWISE_EDGE = 16 * 1024


@dataclass(frozen=True)
class Finding:
    check: str
    path: str
    declared: Any
    observed: Any

    def line(self) -> str:
        declared, observed = _shown(self.declared), _shown(self.observed)
        return f"{self.check} {self.path}: declared {declared}, observed {observed}"


def _shown(value: Any) -> str:
    """A value as Python writes it, except text that holds a quote (a library message naming
    `id 'call_1'`), which `repr` would escape to `\\'`: that is shown in double quotes as it is."""
    if isinstance(value, str) and "'" in value:
        return f'"{value}"'
    return repr(value)


@dataclass
class Outcome:
    """The verdict on one cassette: a provider x scenario cell, or a published recording.

    For a recording, `scenario` is `published/<stem>` and `origin` says what kind of evidence it
    is (first-party, relay, documentation); cells leave `origin` empty. `route` is the route the
    cassette's stream came through (routes.yaml). `wire` is the API the stream was read from:
    chat completions, or another wire for a recording under `cassettes/wires/`.
    """

    provider: str
    scenario: str
    status: str  # "pass", "fail" or "n/a"
    note: str = ""
    origin: str = ""
    route: str = DIRECT
    wire: str = CHAT
    findings: list[Finding] = field(default_factory=list)
    diagnostics: list[str] = field(default_factory=list)
    #: What to edit or run for the first finding (`harness.remedy`); empty when it says itself.
    fix: str = ""

    @property
    def row(self) -> str:
        """The matrix row: the provider, `provider@route` for a stream through a route, or
        `provider@wire` for a stream of another wire than chat completions."""
        if self.wire != CHAT:
            return f"{self.provider}@{self.wire}"
        return self.provider if self.route == DIRECT else f"{self.provider}@{self.route}"

    @property
    def reason(self) -> str:
        """One line for the matrix."""
        if self.status == "n/a":
            return self.note
        if not self.findings:
            return ""
        first = self.findings[0].line()
        more = len(self.findings) - 1
        return first + (f" (+{more} more)" if more else "")

    def report(self) -> str:
        lines = [f"{self.row} / {self.scenario}: {self.status}"]
        lines += [f"  {finding.line()}" for finding in self.findings]
        if self.fix:
            lines.append(f"  fix: {self.fix}")
        return "\n".join(lines)

    def failure(self) -> str:
        """The failure in one line: the cell, its first finding, and what to edit or run."""
        line = f"FAIL {self.row}/{self.scenario}: {self.reason}"
        return f"{line}; fix: {self.fix}" if self.fix else line


def check_cell(suite: Suite, provider: Provider, cell: Cell) -> Outcome:
    """Run every check on one provider x scenario cell."""
    if cell.not_applicable:
        return Outcome(provider.key, cell.scenario, "n/a", note=cell.not_applicable)
    path = cassette_path(suite.cassettes, provider.key, cell.scenario)
    outcome = Outcome(provider.key, cell.scenario, "pass", note=_provenance(cell.provenance))
    findings = outcome.findings
    if cell.provenance.get("kind") == "pending" and not path.is_file():
        findings += _check_provenance(provider, cell, {})
        outcome.status = "fail"
        return outcome
    try:
        replayed = replay(path, provider.base_url, suite.request_body(provider, cell))
    except ReplayError as exc:
        findings.append(Finding("replay", "$", "a cassette matching the request", str(exc)))
        outcome.status = "fail"
        outcome.fix = remedy.for_cell(suite, provider, cell, findings[0])
        return outcome
    if replayed.provenance:
        outcome.note = _provenance(replayed.provenance)
    findings += _check_provenance(provider, cell, replayed.provenance)
    if replayed.status != 200:
        findings.append(Finding("replay", "$.status", 200, replayed.status))
    body = replayed.body
    _check_library(suite, cell, path, body, outcome)
    findings += _check_fingerprint(cell, body)
    if findings:
        outcome.status = "fail"
        outcome.fix = remedy.for_cell(suite, provider, cell, findings[0])
    return outcome


def _check_library(suite: Suite, cell: Cell, path: Path, body: bytes, outcome: Outcome) -> None:
    """The library under every byte split, then the turn against the scenario, into `outcome`."""
    turns: dict[str, Turn] = {}
    source = path.relative_to(suite.root) if path.is_relative_to(suite.root) else path
    findings = outcome.findings
    for label, pieces in splits(body, seed=f"{outcome.row}/{cell.scenario}"):
        try:
            turns[label], problems = assemble_with_events(pieces)
        except ToolCallError as exc:
            got = f"{type(exc).__name__} on {source}: {exc}"
            findings.append(Finding("library", f"split[{label}]", "a valid turn", got))
            break
        findings += [
            Finding("events", f"split[{label}]", "events that tell the turn", p) for p in problems
        ]
    if turns:
        whole = turns["whole"] if "whole" in turns else next(iter(turns.values()))
        reference = whole.to_dict()
        for label, turn in turns.items():
            if turn.to_dict() != reference:
                findings.append(
                    Finding("resplit", f"split[{label}]", "the same turn as whole", "different")
                )
        outcome.diagnostics = sorted({d.code for d in whole.diagnostics})
        findings += check_turn(suite, cell, whole)


def route_cassettes(
    suite: Suite, provider: str | None = None, scenario: str | None = None
) -> list[tuple[str, str, str, Path]]:
    """(provider, route, scenario, path) of every cassette recorded through a route
    (`cassettes/<provider>/routes/<route>/<scenario>.yaml`), optionally filtered."""
    found = []
    for path in sorted(suite.cassettes.glob(f"*/{ROUTES}/*/*.yaml")):
        key, route, name = path.parts[-4], path.parts[-2], path.name.removesuffix(".yaml")
        if (provider and key != provider) or (scenario and name != scenario):
            continue
        found.append((key, route, name, path))
    return found


def check_route_cell(suite: Suite, provider_key: str, route_key: str, path: Path) -> Outcome:
    """Every check on a cassette recorded through a route: the cell's own checks, with its
    fingerprint judged against the provider's quirks under the route's declared changes."""
    scenario = path.name.removesuffix(".yaml")
    outcome = Outcome(provider_key, scenario, "pass", note="recorded", route=route_key)
    findings = outcome.findings
    provider = suite.providers.get(provider_key)
    route = suite.routes.get(route_key)
    cell = provider.cells.get(scenario) if provider is not None else None
    if provider is None or cell is None or route is None:
        known = "a provider, scenario and route of the profiles"
        findings.append(Finding("profile", "$", known, f"{provider_key}/{route_key}/{scenario}"))
        outcome.status = "fail"
        return outcome
    try:
        replayed = replay_own_request(path)
    except ReplayError as exc:
        findings.append(Finding("replay", "$", "a cassette that replays", str(exc)))
        outcome.status = "fail"
        return outcome
    recorded = (replayed.provenance.get("kind"), replayed.provenance.get("route"))
    if recorded != ("recorded", route_key):
        findings.append(Finding("provenance", "$", ("recorded", route_key), recorded))
    outcome.note = _provenance(replayed.provenance)
    _check_library(suite, cell, path, replayed.body, outcome)
    try:
        observed = fingerprint.observe(replayed.body)
    except walk.UnreadableStream as exc:
        findings.append(Finding("quirks", "$", "a readable stream", str(exc)))
    else:
        accept = f"make record PROVIDER={provider_key} ROUTE={route_key} ACCEPT=1"
        for quirk, want, got in fingerprint.compare(route.quirks_over(cell.quirks), observed):
            where = (
                f"routes.{route_key}.changes.{quirk}"
                if quirk in route.changes
                else f"providers.{provider_key}.quirks.{quirk}"
            )
            findings.append(Finding("quirks", where, want, f"{got!r} (accept with {accept})"))
    if findings:
        outcome.status = "fail"
    return outcome


def _check_provenance(provider: Provider, cell: Cell, recorded: dict[str, Any]) -> list[Finding]:
    """The profile and the cassette must say the same thing about where the cassette came from:
    a recording the profile does not know of is evidence nobody accepted yet."""
    declared = cell.provenance.get("kind")
    observed = recorded.get("kind")
    if declared == observed:
        return []
    accept = f"make record PROVIDER={provider.key} SCENARIO={cell.scenario} ACCEPT=1"
    if declared == "pending":
        advice = f"not recorded yet: {accept}"
    elif observed == "recorded":
        advice = f"recorded, not accepted: record it again with {accept}"
    else:
        advice = f"a {observed} cassette: {accept}"
    path = f"providers.{provider.key}.scenarios.{cell.scenario}.provenance.kind"
    return [Finding("provenance", path, declared, advice)]


def splits(body: bytes, *, seed: str) -> Iterator[tuple[str, list[bytes]]]:
    """The same body cut in several ways; every cut must give the same turn."""
    yield "whole", [body]
    if len(body) <= BYTEWISE_LIMIT:
        yield "1-byte", [body[i : i + 1] for i in range(len(body))]
    else:
        head, tail = body[:BYTEWISE_EDGE], body[-BYTEWISE_EDGE:]
        middle = body[BYTEWISE_EDGE:-BYTEWISE_EDGE]
        yield "1-byte-edges", [*_every(head, 1), middle, *_every(tail, 1)]
    yield "7-byte", _every(body, 7)
    rng = random.Random(seed)
    cuts, position = [], 0
    while position < len(body):
        size = rng.randint(1, 97)
        cuts.append(body[position : position + size])
        position += size
    yield "random", cuts
    inside = [i + 1 for i, byte in enumerate(body) if byte >= 0xC0]
    if inside:
        yield "mid-utf8", _cut_at(body, inside)


def conformance_document(turn: Turn) -> dict[str, Any]:
    """What a scenario's `expect` schema validates: the turn with arguments parsed."""
    calls = []
    for call, arguments in zip(turn.tool_calls, turn.arguments, strict=False):
        # Provider metadata (extra_content) is not part of what a scenario expects.
        function = {"name": call.function.name, "arguments": arguments}
        calls.append({"index": call.index, "id": call.id, "type": call.type, "function": function})
    return {
        "tool_calls": calls,
        "finish_reason": turn.finish_reason,
        "content": turn.content,
        "reasoning": turn.reasoning,
        "usage": turn.usage,
    }


def check_turn(suite: Suite, cell: Cell, turn: Turn) -> list[Finding]:
    """What a turn gets wrong against its scenario: the output schema, the scenario's `expect`
    (as `expect <path>: declared <the schema's rule>, observed <the value>`), the tools' own
    parameter schemas, distinct ids. The recorder runs it before writing, the suite after."""
    found = [
        Finding("output-schema", error.json_path, "turn.schema.json", error.message)
        for error in _TURN_VALIDATOR.iter_errors(turn.to_dict())
    ]
    scenario = suite.scenarios[cell.scenario]
    document = conformance_document(turn)
    errors = Draft202012Validator(scenario.expect).iter_errors(document)
    found += [
        Finding("expect", error.json_path, _rule(error), _observed(error))
        for error in sorted(errors, key=lambda e: list(map(str, e.absolute_path)))
    ]
    tools = ToolSchemas(scenario.request["tools"])
    for call, arguments in zip(turn.tool_calls, turn.arguments, strict=False):
        try:
            tools.check(call, arguments)
        except ToolCallError as exc:
            path = f"$.tool_calls[{call.index}].function.arguments"
            found.append(Finding("tool-schema", path, call.function.name, exc.reason))
    ids = [call.id for call in turn.tool_calls if call.id]
    if len(ids) != len(set(ids)):
        found.append(Finding("distinct-ids", "$.tool_calls[*].id", "distinct ids", ids))
    return found


_SIZES = ("minItems", "maxItems", "minProperties", "maxProperties")


def _rule(error: ValidationError) -> dict[str, Any]:
    """The part of the scenario's schema that failed, as the schema says it (`{'const': ...}`)."""
    return {str(error.validator): error.validator_value}


def _observed(error: ValidationError) -> Any:
    """What the turn had there: a count for size rules, else the value (long ones shortened)."""
    instance: Any = error.instance
    if str(error.validator) in _SIZES:
        return f"{len(instance)} item(s)"
    if str(error.validator) == "contains":
        return f"no item matches, among {len(instance)}"
    text = repr(error.instance)
    return instance if len(text) <= 120 else text[:117] + "..."


def _check_fingerprint(cell: Cell, body: bytes) -> list[Finding]:
    try:
        observed = fingerprint.observe(body)
    except walk.UnreadableStream as exc:
        return [Finding("quirks", "$", "a readable stream", str(exc))]
    return [
        Finding("quirks", f"quirks.{quirk}", want, got)
        for quirk, want, got in fingerprint.compare(cell.quirks, observed)
    ]


def check_recording(suite: Suite, recording: recordings.Recording) -> Outcome:
    """Run every check on one published recording.

    Replay and the byte splits are the cells' own; the judge is the hand-written expectation
    beside the recording, not a schema; and the recording judges its provider's profile: every
    declared quirk it contradicts is a finding naming the recording, unless the profile waives
    that quirk for it with a reason. A recording through a route is judged against the
    provider's quirks with the route's declared changes over them.
    """
    outcome = Outcome(
        recording.provider,
        f"{recordings.PUBLISHED}/{recording.name}",
        "pass",
        note=f"published ({recording.origin}, {recording.provenance.get('model')})",
        origin=recording.origin or "unknown",  # unreadable: the origin cannot be read either
        route=recording.route,
    )
    findings = outcome.findings
    if recording.problem is not None:
        findings.append(Finding("replay", "$", "a readable recording", recording.problem))
        outcome.status = "fail"
        outcome.fix = remedy.for_recording(suite, recording, findings[0])
        return outcome
    try:
        replayed = replay_own_request(recording.path)
    except ReplayError as exc:
        findings.append(Finding("replay", "$", "a cassette that replays", str(exc)))
        outcome.status = "fail"
        outcome.fix = remedy.for_recording(suite, recording, findings[0])
        return outcome
    body = replayed.body
    source = recordings.source_bytes(body, recording.provenance)
    if recordings.sha256(source) != recording.provenance["sha256"]:
        findings.append(
            Finding("verbatim", "$.body", recording.provenance["sha256"], "a different SHA-256")
        )
    answers: dict[str, dict[str, Any]] = {}
    for label, pieces in splits(body, seed=recording.id):
        try:
            turn, problems = assemble_with_events(pieces)
        except ToolCallError as exc:
            answers[label] = {"error": {"kind": error_kind(exc), "why": str(exc)}}
            continue
        answers[label] = expectation_of(turn)
        findings += [
            Finding("events", f"split[{label}]", "events that tell the turn", problem)
            for problem in problems
        ]
    whole = answers["whole"]
    for label, answer in answers.items():
        if answer != whole:
            findings.append(
                Finding("resplit", f"split[{label}]", "the same turn as whole", "different")
            )
    findings += [
        Finding("expected", path, want, got)
        for path, want, got in differences(_comparable(recording.expected), _comparable(whole))
    ]
    provider = suite.providers.get(recording.provider)
    route = suite.routes.get(recording.route)
    if provider is None:
        findings.append(Finding("profile", "$", "a profile in providers.yaml", recording.provider))
    elif route is None:
        findings.append(Finding("route", "$", "a route in routes.yaml", recording.route))
    else:
        framing = recordings.shows_framing(recording.provenance)
        findings += profile_findings(provider, recording.name, body, framing=framing, route=route)
    if findings:
        outcome.status = "fail"
        outcome.fix = remedy.for_recording(suite, recording, findings[0])
    return outcome


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
    except walk.UnreadableStream as exc:
        return [Finding("quirks", "$", "a readable stream", str(exc))]
    if not framing:
        observed.quirks.update(dict.fromkeys(fingerprint.FRAMING))
    changes = route.changes if route is not None else {}
    found = []
    for quirk, want, got in fingerprint.compare({**provider.quirks, **changes}, observed):
        if (stem, quirk) in provider.waivers:
            continue
        where = (
            f"routes.{route.key}.changes.{quirk}"
            if route is not None and quirk in changes
            else f"providers.{provider.key}.quirks.{quirk}"
        )
        found.append(Finding("quirks", where, want, f"{got!r} in {stem}"))
    declarations = [(f"providers.{provider.key}.quirks", provider.quirk_evidence)]
    if route is not None:
        declarations.append((f"routes.{route.key}.changes", route.change_evidence))
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


def expectation_of(turn: Turn) -> dict[str, Any]:
    """A turn written the way a hand-written expectation is (`expected.schema.json`)."""
    calls = []
    for call, arguments in zip(turn.tool_calls, turn.arguments, strict=False):
        entry: dict[str, Any] = {"id": call.id, "name": call.function.name, "arguments": arguments}
        if call.extra_content is not None:
            entry["extra_content"] = call.extra_content
        calls.append(entry)
    return {
        "tool_calls": calls,
        "content": turn.content,
        "reasoning": turn.reasoning,
        "finish_reason": turn.finish_reason,
    }


def error_kind(exc: ToolCallError) -> str:
    """The language-neutral name of an error, as expectations spell it."""
    if isinstance(exc, TruncatedError):
        return "truncated"
    if isinstance(exc, ProviderError):
        return "provider"
    return "malformed"


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


def differences(want: Any, got: Any, path: str = "$") -> list[tuple[str, Any, Any]]:
    """(JSON path, expected, observed) for every place two JSON values differ."""
    if isinstance(want, dict) and isinstance(got, dict):
        out = []
        for key in list(want) + [k for k in got if k not in want]:
            out += differences(want.get(key, _MISSING), got.get(key, _MISSING), f"{path}.{key}")
        return out
    if isinstance(want, list) and isinstance(got, list):
        if len(want) != len(got):
            return [(f"{path}.length", len(want), len(got))]
        out = []
        for number, (a, b) in enumerate(zip(want, got, strict=True)):
            out += differences(a, b, f"{path}[{number}]")
        return out
    if want != got or type(want) is not type(got):
        return [(path, want, got)]
    return []


class _Missing:
    def __repr__(self) -> str:
        return "(absent)"


_MISSING = _Missing()


def _comparable(document: dict[str, Any]) -> dict[str, Any]:
    """The parts of an expectation that are judged (an error's wording is not).

    Calls that all carry distinct ids are compared by id, not by position: the id is what a
    tool result answers, and a provider's indices may disagree with the order it opened the
    calls in (Vertex numbers its first call 1), so either order is a faithful answer.
    """
    if "error" in document:
        return {"error": document["error"]["kind"]}
    judged = {k: document[k] for k in ("tool_calls", "content", "reasoning", "finish_reason")}
    ids = [call["id"] for call in judged["tool_calls"]]
    if all(ids) and len(set(ids)) == len(ids):
        judged["tool_calls"] = sorted(judged["tool_calls"], key=lambda call: call["id"])
    return judged


def _provenance(provenance: dict[str, Any]) -> str:
    kind = provenance.get("kind", "")
    if kind == "recorded":
        return f"recorded {provenance.get('date')} ({provenance.get('model')})"
    return str(kind)


def _every(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def _cut_at(data: bytes, points: list[int]) -> list[bytes]:
    edges = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(edges) if b > a]


_TURN_VALIDATOR = Draft202012Validator(format_schema("turn.schema.json"))
