"""Every cassette is replayed with events on, and the events must tell the same turn.

The events are the streaming face of the same assembly: joined, they must give the turn that
`TurnDone` carries. Checking that on every cassette and every re-split proves the event path on
every provider's real shapes (whole calls, repeated names, late ids, reasoning first), not only
on the hand-made streams of the unit tests.
"""

from __future__ import annotations

from collections import defaultdict

from toolcall import (
    ArgumentsDelta,
    Event,
    ReasoningDelta,
    TextDelta,
    ToolCallDone,
    ToolCallStarted,
    Turn,
    TurnBuilder,
    TurnDone,
)


def assemble_with_events(pieces: list[bytes]) -> tuple[Turn, list[str]]:
    """The turn of a body fed in `pieces`, and what its events got wrong (nothing, if right)."""
    builder = TurnBuilder()
    events: list[Event] = []
    for piece in pieces:
        events += builder.feed(piece)
    events += builder.finish()
    last = events[-1]
    assert isinstance(last, TurnDone)  # finish() ends with it, or raises
    return last.turn, event_problems(events, last.turn)


def event_problems(events: list[Event], turn: Turn) -> list[str]:
    """How `events` disagree with `turn`, in words; empty when they tell the same turn."""
    problems = []
    if sum(isinstance(e, TurnDone) for e in events) != 1 or not isinstance(events[-1], TurnDone):
        problems.append("TurnDone is not exactly once and last")
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    if text != turn.content:
        problems.append("TextDelta pieces do not join to the turn's content")
    reasoning = "".join(e.text for e in events if isinstance(e, ReasoningDelta))
    if reasoning != turn.reasoning:
        problems.append("ReasoningDelta pieces do not join to the turn's reasoning")
    started: dict[int, ToolCallStarted] = {}
    done: dict[int, ToolCallDone] = {}
    fragments: dict[int, list[str]] = defaultdict(list)
    for event in events:
        if isinstance(event, ToolCallStarted):
            if event.index in started:
                problems.append(f"call {event.index} started twice")
            started[event.index] = event
        elif isinstance(event, ArgumentsDelta):
            if event.index not in started:
                problems.append(f"call {event.index} got an ArgumentsDelta before ToolCallStarted")
            if event.index in done:
                problems.append(f"call {event.index} got an ArgumentsDelta after ToolCallDone")
            fragments[event.index].append(event.fragment)
        elif isinstance(event, ToolCallDone):
            index = event.call.index
            if index in done:
                problems.append(f"call {index} done twice")
            if index not in started:
                problems.append(f"call {index} done before it started")
            done[index] = event
    resent = {d.index for d in turn.diagnostics if d.code == "arguments_resent"}
    # A custom tool's call is reported as a function's is, with empty arguments: its input is
    # the text its fragments join to, never parsed.
    pairs = [
        *zip(turn.tool_calls, turn.arguments, strict=True),
        *((call, {}) for call in turn.custom_calls),
    ]
    for call, arguments in pairs:
        start = started.get(call.index)
        if start is None:
            problems.append(f"call {call.index} never started")
        elif start.name != call.function.name:
            problems.append(
                f"call {call.index} started as {start.name!r}, but the turn names it "
                f"{call.function.name!r}"
            )
        elif start.type != call.type:
            problems.append(
                f"call {call.index} started as a {start.type!r} call, not {call.type!r}"
            )
        elif start.id and start.id != call.id:
            problems.append(f"call {call.index} started with another id than the turn's")
        report = done.get(call.index)
        if report is None:
            problems.append(f"call {call.index} never done")
        elif report.arguments != arguments or report.call.function != call.function:
            problems.append(f"call {call.index} was done with other arguments or name")
        elif (report.call.id, report.call.type) != (call.id, call.type):
            problems.append(f"call {call.index} was done with another id or type")
        if call.index not in resent and "".join(fragments[call.index]) != call.function.arguments:
            problems.append(f"call {call.index}'s ArgumentsDelta do not join to its arguments")
    extra = set(started) - {call.index for call, _ in pairs}
    if extra:
        problems.append(f"events for calls the turn does not hold: {sorted(extra)}")
    return problems
