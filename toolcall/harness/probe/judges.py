"""The checks of a probe: what one scenario's streamed and unstreamed answers show, each finding
with a stable code.

A stream is read by the library itself (`toolcall.iter_events` on the wire), so what it
repairs and names (`toolcall.DIAGNOSTIC_CODES`) is named here under the same code, and what it
refuses (a call lost, a name holding template tokens, arguments that do not parse, a turn cut
short) becomes the finding of that refusal. An unstreamed answer is put through the same
reader as a one-chunk chat stream (`as_stream`), so both are held to one set of rules.

Severities: `failure` is data lost or a lie (exit 1); `quirk` is a difference the library
repairs, or one from the family's profile, named as the route's; `note` says what was seen
(arguments streamed or buffered, a request the server refused). Every code is listed once, in
`CODES` and in `toolcall/schemas/probe.schema.json` (a test holds them equal).
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from typing import Any

from jsonschema import Draft202012Validator

import toolcall

from ..reading import wires
from ..suite import fingerprint
from ..suite.cassettes import CHAT
from ..suite.profiles import Provider
from .answers import Answer, Unreadable, read
from .runner import Exchange
from .scenarios import Scenario, tools

FAILURE, QUIRK, NOTE = "failure", "quirk", "note"

#: The probe's own codes: severity and what each means.
OWN: dict[str, tuple[str, str]] = {
    "request_refused": (NOTE, "the server refused the request (its status and message given)"),
    "answer_unreadable": (FAILURE, "the unstreamed answer is not the wire's JSON document"),
    "stream_unreadable": (FAILURE, "the stream cannot be read as the wire's events"),
    "provider_error": (FAILURE, "the stream carried an error event instead of a turn"),
    "stream_cut": (FAILURE, "the stream ended inside the turn, or at the token limit unasked"),
    "calls_missing": (
        FAILURE,
        "no call where the turn said it ended for calls, or where the "
        "unstreamed answer to the same request has them",
    ),
    "name_special_tokens": (FAILURE, "a call's name holds template tokens or whitespace"),
    "name_unknown": (FAILURE, "a call names no tool of the request"),
    "arguments_not_json": (FAILURE, "a call's arguments are not one JSON value"),
    "arguments_schema": (FAILURE, "a call's arguments do not match its tool's parameters"),
    "arguments_disagree": (
        FAILURE,
        "the arguments a stream sends whole at the end differ from its fragments (resent, or "
        "sent cumulatively)",
    ),
    "finish_not_length": (FAILURE, "a turn cut at the token limit does not say `length`"),
    "usage_missing": (FAILURE, "no usage, though it was asked for"),
    "answers_disagree": (FAILURE, "the streamed and unstreamed answers call different tools"),
    "text_disagrees": (
        NOTE,
        "the same calls streamed and unstreamed, but only one answer has text (a model may vary; "
        "a server whose two paths differ does it every time: --repeat tells)",
    ),
    "profile_differs": (QUIRK, "the stream differs from the family's profile: the route's quirk"),
    "arguments_streamed": (NOTE, "the arguments arrived in several fragments"),
    "arguments_buffered": (NOTE, "each call's arguments arrived whole, in one fragment"),
}
#: The library's diagnostics that are failures here; the others are quirks it repaired.
_FAILING_DIAGNOSTICS = frozenset(
    {
        "tool_call_in_text",
        "done_absent",
        "unterminated_final_event",
        "second_generation",
        "orphan_fragment",
        "stop_with_tool_calls",
    }
)
#: Diagnostics that judge a word only chat completions gives that meaning to.
_CHAT_ONLY = frozenset({"stop_with_tool_calls"})
CODES: dict[str, tuple[str, str]] = {
    **OWN,
    **{
        code: (FAILURE if code in _FAILING_DIAGNOSTICS else QUIRK, meaning)
        for code, meaning in toolcall.DIAGNOSTIC_CODES.items()
    },
}


@dataclass(frozen=True)
class Finding:
    code: str
    scenario: str
    streamed: bool
    message: str
    #: the smallest bytes of the answer that show it ("" when no single place does)
    excerpt: str = ""
    repeat: int = 1

    @property
    def severity(self) -> str:
        return CODES[self.code][0]

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "severity": self.severity}


@dataclass
class Seen:
    """What one answer held, for the report's scenario table."""

    status: str = "not run"
    calls: tuple[str, ...] = ()
    finish: str | None = None
    bytes: int = 0
    arguments: str | None = None  # streamed or buffered, on a stream with calls


@dataclass
class _Read:
    turn: Any = None  # a toolcall.Turn, or an Answer
    fragments: dict[int, int] | None = None
    #: the answer said it was cut at the token limit (what the cut scenario asks for)
    cut: bool = False


def judge(
    scenario: Scenario,
    wire: str,
    pair: tuple[Exchange | None, Exchange | None],
    profile: Provider | None,
    repeat: int = 1,
) -> tuple[dict[str, Seen], list[Finding]]:
    """Judge one scenario's streamed and unstreamed answers (either may be missing)."""
    found: list[Finding] = []
    seen = {"streamed": Seen(), "unstreamed": Seen()}
    reads: dict[bool, _Read] = {}
    for exchange in pair:
        if exchange is None:
            continue
        key = "streamed" if exchange.streamed else "unstreamed"
        said = _Say(scenario, exchange, found, repeat)
        reads[exchange.streamed] = _judge_one(scenario, wire, exchange, said, seen[key])
    if profile is not None and wire == CHAT and pair[0] is not None and reads.get(True):
        _profile(scenario, pair[0], profile, _Say(scenario, pair[0], found, repeat))
    _agree(scenario, reads, found, repeat)
    return seen, found


class _Say:
    """Adds findings of one answer to the list."""

    def __init__(self, scenario: Scenario, exchange: Exchange, into: list[Finding], repeat: int):
        self.scenario, self.exchange, self.into, self.repeat = scenario, exchange, into, repeat

    def __call__(self, code: str, message: str, needle: str | None = None) -> None:
        excerpt = excerpt_of(self.exchange.body, needle) if needle is not None else ""
        self.into.append(
            Finding(code, self.scenario.name, self.exchange.streamed, message, excerpt, self.repeat)
        )


def _judge_one(scenario: Scenario, wire: str, exchange: Exchange, say: _Say, seen: Seen) -> _Read:
    seen.bytes = len(exchange.body)
    if exchange.refused is not None:
        seen.status = "refused"
        say("request_refused", exchange.refused)
        return _Read()
    read_ = (
        _read_stream(wire, exchange, say)
        if exchange.streamed
        else _read_answer(wire, exchange, say)
    )
    shared = _shared_index(wire, exchange.body) if exchange.streamed else None
    if shared is not None:
        say("index_reused", shared, None)
    turn = read_.turn
    said_cut = read_.cut or (turn is not None and toolcall.finish_kind(turn) == "length")
    seen.status = "cut" if said_cut else "read" if turn is not None else "unreadable"
    if turn is None:
        return read_
    seen.calls = tuple(c.function.name for c in turn.tool_calls)
    seen.finish = turn.finish_reason
    for diagnostic in turn.diagnostics:
        if diagnostic.code in _CHAT_ONLY and wire != CHAT:
            continue  # Ollama says `stop` with calls or without: its own word, no lie
        say(diagnostic.code, diagnostic.message, _needle(diagnostic.code, turn))
    _calls(scenario, turn, say)
    _finish_and_usage(scenario, wire, turn, say)
    if read_.fragments is not None and turn.tool_calls:
        buffered = all(n <= 1 for n in read_.fragments.values())
        seen.arguments = "buffered" if buffered else "streamed"
        count = ", ".join(f"call {i}: {n}" for i, n in sorted(read_.fragments.items()))
        say(f"arguments_{seen.arguments}", f"argument fragments per call ({count})")
    return read_


def _read_stream(wire: str, exchange: Exchange, say: _Say) -> _Read:
    """The stream through the library: its turn (also from a refusal that kept one) and the
    number of argument fragments per call."""
    fragments: dict[int, int] = {}
    try:
        for event in toolcall.iter_events([exchange.body], wire=wire):
            if isinstance(event, toolcall.ArgumentsDelta) and event.fragment:
                fragments[event.index] = fragments.get(event.index, 0) + 1
            elif isinstance(event, toolcall.ToolCallStarted):
                fragments.setdefault(event.index, 0)
            elif isinstance(event, toolcall.TurnDone):
                return _Read(event.turn, fragments)
    except toolcall.TruncatedError as exc:
        if say.scenario.cut:
            return _Read(None, fragments, cut=True)  # the cut was reported, as asked
        return _Read(_refusal(exc, exchange, say), fragments)
    except toolcall.ToolCallError as exc:
        return _Read(_refusal(exc, exchange, say), fragments)
    say("stream_unreadable", "the stream ended without a turn", None)
    return _Read()


def _refusal(exc: toolcall.ToolCallError, exchange: Exchange, say: _Say) -> Any:
    """The finding of what the library refused; the turn when the refusal carries one."""
    text = str(exc)
    if isinstance(exc, toolcall.UnsoundTurnError):
        code = "name_special_tokens" if getattr(exc, "name", None) else "calls_missing"
        say(code, text, getattr(exc, "name", None) or "finish")
        return exc.turn
    if isinstance(exc, toolcall.TruncatedError) and not say.scenario.cut:
        say("stream_cut", text, "")
    elif isinstance(exc, toolcall.TruncatedError):
        pass  # an unstreamed answer cut as asked, read as a stream
    elif isinstance(exc, toolcall.ArgumentsError) and say.scenario.cut:
        say(
            "finish_not_length",
            f"the arguments stop unfinished at the token limit, yet the turn does not say it was "
            f"cut: {text}",
            "finish",
        )
    elif isinstance(exc, toolcall.ArgumentsError):
        say("arguments_not_json", text, "arguments")
    elif "differ from its deltas" in text:  # the library's words for Responses' `.done` copy
        say("arguments_disagree", text, "arguments")
    elif isinstance(exc, toolcall.ProviderError):
        say("provider_error", text, "error")
    else:
        say("stream_unreadable", text, None)
    return None


def _shared_index(wire: str, body: bytes) -> str | None:
    """Where two calls of a stream share one index on a wire whose reader keys them otherwise
    (Responses by item id; Anthropic's blocks, which the library then refuses; Ollama's
    `function.index`): the library's own `index_reused` covers chat completions."""
    try:
        payloads = [e.payload for e in wires.events(wire, body) if e.payload is not None]
    except wires.UnreadableBody:
        return None
    seen: dict[Any, set[str]] = {}
    for n, payload in enumerate(payloads):
        if wire == "responses" and payload.get("type") == "response.output_item.added":
            item = payload.get("item") or {}
            seen.setdefault(payload.get("output_index"), set()).add(str(item.get("id", n)))
        elif wire == "anthropic" and payload.get("type") == "content_block_start":
            seen.setdefault(payload.get("index"), set()).add(str(n))
        elif wire == "ollama":
            for call in (payload.get("message") or {}).get("tool_calls") or []:
                index = (call.get("function") or {}).get("index")
                if index is not None:
                    seen.setdefault(index, set()).add(f"{n}/{len(seen.get(index, ()))}")
    shared = {index: found for index, found in seen.items() if len(found) > 1}
    if not shared:
        return None
    index, found = next(iter(shared.items()))
    return f"{len(found)} calls or blocks of the stream share index {index!r}"


def _read_answer(wire: str, exchange: Exchange, say: _Say) -> _Read:
    """The unstreamed answer, read and then put through the library as a chat stream."""
    try:
        answer = read(wire, exchange.body)
    except Unreadable as exc:
        say("answer_unreadable", str(exc), None)
        return _Read()
    if say.scenario.cut and toolcall.finish_kind(answer) == "length":
        return _Read(None, cut=True)
    try:
        return _Read(toolcall.assemble(as_stream(answer, wire)))
    except toolcall.ToolCallError as exc:
        return _Read(_refusal(exc, exchange, say))


def as_stream(answer: Answer, wire: str) -> bytes:
    """An unstreamed answer as a one-chunk chat stream in chat's words, for the library (a
    chat answer's finish reason as it came, so a `stop` with calls is still seen)."""
    delta: dict[str, Any] = {"role": "assistant", "content": answer.content}
    if answer.reasoning:
        delta["reasoning_content"] = answer.reasoning
    if answer.tool_calls:
        delta["tool_calls"] = [
            {
                "index": n,
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": c.arguments},
            }
            for n, c in enumerate(answer.tool_calls)
        ]
    finish = answer.finish_reason if wire == CHAT else toolcall.finish_kind(answer)
    chunk: dict[str, Any] = {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    if answer.usage is not None:
        chunk["usage"] = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
    return f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()


def _needle(code: str, turn: Any) -> str | None:
    """Where in the bytes a diagnostic shows: the markup's marker, the end of the stream."""
    if code == "tool_call_in_text":
        return "<"
    if code in ("done_absent", "unterminated_final_event"):
        return ""
    names = [c.function.name for c in turn.tool_calls]
    return names[0] if names else None


def _calls(scenario: Scenario, turn: Any, say: _Say) -> None:
    """Each call names a tool of the request, and its arguments match the tool's schema."""
    schemas = tools(scenario)
    for call, arguments in zip(turn.tool_calls, turn.arguments, strict=False):
        name = call.function.name
        if name not in schemas:
            if name.isidentifier():  # else the library named its flaw already
                known = sorted(schemas)
                say("name_unknown", f"call {call.index} names {name!r}, not one of {known}", name)
            continue
        errors = sorted(Draft202012Validator(schemas[name]).iter_errors(arguments), key=str)
        if errors:
            where = "/".join(str(p) for p in errors[0].absolute_path) or "(top level)"
            say(
                "arguments_schema",
                f"call {call.index} ({name}): {where}: {errors[0].message}",
                name,
            )


#: The words of a wire that claim the model ended without calls, where it has one for calls.
_NO_CALLS_SAID = {"anthropic": ("end_turn", "stop_sequence")}


def _finish_and_usage(scenario: Scenario, wire: str, turn: Any, say: _Say) -> None:
    """A cut turn says `length`, a turn with calls does not say it ended without them; usage
    is there (the probe always asks for it)."""
    kind = toolcall.finish_kind(turn)
    if turn.tool_calls and turn.finish_reason in _NO_CALLS_SAID.get(wire, ()):
        message = f"stop_reason {turn.finish_reason!r} with {len(turn.tool_calls)} call(s)"
        say("stop_with_tool_calls", message, str(turn.finish_reason))
    if scenario.cut and kind != "length":
        say(
            "finish_not_length",
            f"max_tokens was {scenario.request.get('max_tokens')}, too few for the call, yet the "
            f"turn ended with {turn.finish_reason!r} and {len(turn.tool_calls)} call(s)",
            str(turn.finish_reason),
        )
    if turn.usage is None:
        asked = "stream_options.include_usage" if say.exchange.streamed else "the request"
        say("usage_missing", f"no usage in the answer ({asked} asks for it)", None)


def _profile(scenario: Scenario, exchange: Exchange, profile: Provider, say: _Say) -> None:
    """How the stream differs from the family's profile: each a quirk of the route."""
    if not exchange.body or exchange.refused:
        return
    try:
        observed = fingerprint.observe(exchange.body)
    except wires.UnreadableBody:
        return
    cell = profile.cells.get(scenario.name) if scenario.suite else None
    declared = dict(cell.quirks if cell is not None else profile.quirks)
    pattern = declared.pop("id_pattern", None)  # ids are compared by their format below
    for quirk, want, got in fingerprint.compare(declared, observed):
        say(
            "profile_differs",
            f"quirks.{quirk}: {profile.key}'s profile says {fingerprint.shown(want)}, this "
            f"endpoint {fingerprint.shown(got)}",
            None,
        )
    strangers = [i for i in observed.ids if pattern and not re.fullmatch(pattern, i)]
    if strangers:
        say(
            "profile_differs",
            f"quirks.id_pattern: {profile.key}'s profile says ids match {pattern!r}, this "
            f"endpoint sends {strangers[0]!r}",
            strangers[0],
        )


def _agree(scenario: Scenario, reads: dict[bool, _Read], into: list[Finding], repeat: int) -> None:
    """The streamed and unstreamed answers call the same tools, and the stream keeps the calls
    the unstreamed answer has."""
    streamed, unstreamed = reads.get(True), reads.get(False)
    if scenario.cut or streamed is None or unstreamed is None:
        return
    if streamed.turn is None or unstreamed.turn is None:
        return
    mine = sorted(c.function.name for c in streamed.turn.tool_calls)
    theirs = sorted(c.function.name for c in unstreamed.turn.tool_calls)
    said = {(f.code, f.streamed) for f in into if f.scenario == scenario.name}
    if theirs and not mine:
        if ("calls_missing", True) not in said:  # the library may have said it already
            message = f"the unstreamed answer calls {theirs}, the stream calls nothing"
            into.append(Finding("calls_missing", scenario.name, True, message, "", repeat))
    elif mine != theirs:
        message = f"streamed calls {mine}, unstreamed calls {theirs}"
        into.append(Finding("answers_disagree", scenario.name, True, message, "", repeat))
    elif bool(streamed.turn.content.strip()) != bool(unstreamed.turn.content.strip()):
        where = "streamed" if streamed.turn.content.strip() else "unstreamed"
        message = f"the same calls, but only the {where} answer has text"
        into.append(Finding("text_disagrees", scenario.name, True, message, "", repeat))


#: The most bytes an excerpt shows.
EXCERPT = 400


def excerpt_of(body: bytes, needle: str | None) -> str:
    """The smallest piece of the answer that shows a finding: the first line holding `needle`,
    the end of the body for "" (a missing end), or nothing."""
    text = body.decode("utf-8", "replace")
    if needle is None:
        return ""
    if needle == "":
        return text[-EXCERPT:]
    for line in text.splitlines():
        if needle in line:
            at = line.index(needle)
            start = max(0, at - EXCERPT // 2)
            return line[start : start + EXCERPT]
    return ""
