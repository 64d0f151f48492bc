"""How an implementation's answer for one stream is judged, in one line a reader acts on.

The expectation is what the reference library assembled from the cassette's own bytes (it passes
the conformance suite), and the scenario's `expect` schema on top. Differences are named by the
bug that causes them in real clients, most telling first: a crash, calls merged into one
(`{...}{...}`), a wrong number of calls, a name repeated (`get_weatherget_weather`), a wrong id,
arguments that do not parse or parse to something else. For a cut-off stream the only right answer
is to say so; returning the call as if it were whole is the failure.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator

from ..peers import Assembled, Call, first_line
from ..peers.external import Crashed

PASS = "pass"


@dataclass(frozen=True)
class Expected:
    """What a correct implementation returns for one stream.

    `truncated` streams expect an error and nothing else. `document` is the reference turn as the
    scenario's `expect` schema reads it (see `checks.conformance_document`); an implementation's
    calls are put in its place before the schema is applied.
    """

    calls: tuple[Call, ...] = ()
    arguments: tuple[Any, ...] = ()
    truncated: bool = False
    #: How the stream's wire said it was cut, for the reason given when that goes unreported.
    cut_said: str = "finish_reason 'length'"
    #: The kind of error a correct implementation reports instead of calls (a hand-written
    #: expectation of a malformed or provider-error stream); None when calls are expected.
    error: str | None = None
    document: dict[str, Any] = field(default_factory=dict)
    schema: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Verdict:
    """`label` names the kind of failure (the matrix cell); `reason` is the line below the grid."""

    label: str
    reason: str = ""

    @property
    def passed(self) -> bool:
        return self.label == PASS


def judge(expected: Expected, answer: Assembled | BaseException) -> Verdict:
    """The verdict on one implementation's answer (its result, or what it raised)."""
    if isinstance(answer, BaseException):
        return Verdict("crash", crash_reason(answer))
    if expected.truncated:
        return _judge_truncated(answer, expected.cut_said)
    if expected.error is not None:
        if answer.error is not None:
            return Verdict(PASS)
        return Verdict(
            "error not reported",
            f"error not reported: the stream is {expected.error}, yet "
            f"{len(answer.calls)} call(s) came back without an error",
        )
    return _judge_complete(expected, answer)


def crash_reason(exc: BaseException) -> str:
    """`crash: <Type>: <message>`, naming the exception a wrapper was raised from, if any."""
    if isinstance(exc, Crashed):
        return f"crash: {exc}"
    reason = f"crash: {type(exc).__name__}: {first_line(str(exc), 120)}"
    cause = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
    if cause is not None:
        reason += f" (from {type(cause).__name__}: {first_line(str(cause), 80)})"
    return reason


def _judge_truncated(answer: Assembled, said: str) -> Verdict:
    if answer.error is not None:
        return Verdict(PASS)
    if not answer.calls:
        return Verdict("truncated call dropped", "truncated call dropped without reporting the cut")
    parses = all(_parses(call.arguments) for call in answer.calls)
    how = "parse as a shorter object" if parses else "are cut JSON text"
    return Verdict(
        "truncated arguments passed as valid",
        f"truncated arguments passed as valid: {said} not reported; the arguments {how}",
    )


def _judge_complete(expected: Expected, answer: Assembled) -> Verdict:
    got, want = answer.calls, expected.calls
    if answer.error is not None and not got and want:
        return Verdict("rejected a valid stream", f"rejected a valid stream: {answer.error}")
    for call in got:
        if _json_values(call.arguments) > 1:
            return Verdict(
                "merged calls",
                f"merged calls: {len(want)} calls came back as {len(got)}, one holding "
                f"{first_line(call.arguments, 90)}",
            )
    if len(got) != len(want):
        return Verdict(
            "wrong number of calls",
            f"wrong number of calls: got {len(got)}, expected {len(want)}"
            + (" (calls dropped without an error)" if len(got) < len(want) else ""),
        )
    for (mine, theirs), arguments in zip(_pairs(want, got), expected.arguments, strict=True):
        verdict = _judge_call(mine, theirs, arguments)
        if not verdict.passed:
            return verdict
    if answer.error is not None:
        return Verdict("rejected a valid stream", f"rejected a valid stream: {answer.error}")
    return _judge_schema(expected, got)


def _judge_call(want: Call, got: Call, arguments: Any) -> Verdict:
    if got.name != want.name:
        repeats, rest = divmod(len(got.name), len(want.name)) if want.name else (0, 1)
        if repeats > 1 and not rest and got.name == want.name * repeats:
            return Verdict("doubled name", f"doubled name: {got.name!r} for {want.name!r}")
        return Verdict("wrong name", f"wrong name: {got.name!r}, expected {want.name!r}")
    if got.id != want.id:
        return Verdict("wrong id", f"wrong id: {got.id!r}, expected {want.id!r}")
    try:
        parsed = json.loads(got.arguments)
    except ValueError:
        return Verdict(
            "invalid JSON arguments",
            f"invalid JSON arguments for {got.name!r}: {first_line(got.arguments, 80)!r}",
        )
    difference = _first_difference(arguments, parsed, "$")
    if difference is not None:
        return Verdict("arguments differ", f"arguments differ for {got.name!r} at {difference}")
    return Verdict(PASS)


def _judge_schema(expected: Expected, got: Sequence[Call]) -> Verdict:
    if not expected.schema:
        return Verdict(PASS)
    document = dict(expected.document)
    document["tool_calls"] = [
        {
            "index": position,
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": json.loads(call.arguments)},
        }
        for position, call in enumerate(got)
    ]
    for error in Draft202012Validator(expected.schema).iter_errors(document):
        return Verdict("expect schema", f"expect schema: {error.json_path}: {error.message}")
    return Verdict(PASS)


def _pairs(want: Sequence[Call], got: Sequence[Call]) -> list[tuple[Call, Call]]:
    """Expected and returned calls side by side: by id where every id matches, else by order."""
    by_id = {call.id: call for call in got}
    if all(call.id and call.id in by_id for call in want) and len(by_id) == len(got):
        return [(call, by_id[call.id]) for call in want]
    return list(zip(want, got, strict=True))


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _json_values(text: str) -> int:
    """How many JSON values follow one another in `text` (0 when the first does not parse)."""
    decoder = json.JSONDecoder()
    count, position = 0, 0
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position == len(text):
            return count
        try:
            _, position = decoder.raw_decode(text, position)
        except ValueError:
            return count
        count += 1


def _first_difference(want: Any, got: Any, path: str) -> str | None:
    """The JSON path of the first place where `got` differs from `want`, or None."""
    if isinstance(want, dict) and isinstance(got, dict):
        for key in sorted(want.keys() | got.keys()):
            if key not in want or key not in got:
                return f"{path}.{key}"
            found = _first_difference(want[key], got[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(want, list) and isinstance(got, list):
        if len(want) != len(got):
            return path
        for position, (a, b) in enumerate(zip(want, got, strict=True)):
            found = _first_difference(a, b, f"{path}[{position}]")
            if found:
                return found
        return None
    return None if want == got and type(want) is type(got) else path
