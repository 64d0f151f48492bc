"""Who breaks on a captured stream: the body given to every implementation the matrix can run.

The implementations are the matrix's own (`matrix.roster`: the reference, the SDK peers, the
JavaScript clients when Node and their packages are installed, `--external` programs), each
handed exactly the captured bytes with the wire named, and judged by the matrix's judge
(`verdict.judge`) against what the library made of the same bytes: its calls when the turn is
sound, the cut when it was cut, an error reported when it broke. Each failure gets a `fix:` line:
what the user can do about that client on this stream, today (the matrix's `fix:` lines say
what to edit in the suite, `checks.where_to_fix`, which a capture from outside it has no place
in; a cut stream's is the one the gateways report gives, `gateways.workarounds.CUT_CHECK`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import toolcall

from ..gateways.workarounds import CUT_CHECK
from ..matrix import run as matrix
from ..matrix.verdict import PASS, Expected
from ..peers import Call, Implementation
from ..reading import streams
from ..suite.case import Case
from .codes import error_code
from .reading import Reading

#: Bodies larger than this are not handed to the peers, which take the body whole.
MAX_BODY = 64 << 20


@dataclass(frozen=True)
class ClientVerdict:
    name: str
    version: str
    verdict: str
    reason: str
    fix: str

    def to_dict(self) -> dict[str, str]:
        return {
            "name": self.name,
            "version": self.version,
            "verdict": self.verdict,
            "reason": self.reason,
            "fix": self.fix,
        }


def implementations(
    names: Sequence[str], externals: Sequence[str], timeout: float
) -> tuple[list[Implementation], dict[str, str]]:
    """The implementations to run and the ones that cannot run here (`matrix.roster`)."""
    return matrix.roster(names or None, externals, timeout=timeout)


def expected(reading: Reading) -> Expected:
    """What a correct client makes of the stream: the library's reading of it."""
    if reading.error is not None and not isinstance(reading.error, toolcall.UnsoundTurnError):
        if isinstance(reading.error, toolcall.TruncatedError):
            said = streams.cut_said(reading.wire)
            if "ended" in reading.error.reason:
                said = "the end of the stream before the turn's end"
            return Expected(truncated=True, cut_said=said)
        return Expected(error=error_code(reading.error))
    turn = reading.turn
    if turn is None:
        return Expected(error="broken_stream")
    calls = tuple(Call(c.id, c.function.name, c.function.arguments) for c in turn.tool_calls)
    return Expected(calls=calls, arguments=turn.arguments)


def placeholder_request(model: str, reading: Reading) -> dict[str, Any]:
    """A request a client can be handed when the capture kept none: the model, and every tool
    the turn calls with an open schema (a client may check calls against its tools)."""
    names = dict.fromkeys(
        c.function.name for c in (reading.turn.tool_calls if reading.turn else ())
    )
    request: dict[str, Any] = {
        "model": model,
        "stream": True,
        "messages": [{"role": "user", "content": "(not captured)"}],
    }
    if names:
        request["tools"] = [
            {"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
            for n in names
        ]
    return request


def judge_all(
    implementations: Sequence[Implementation],
    reading: Reading,
    body: bytes,
    request: Mapping[str, Any],
    framing: str,
) -> list[ClientVerdict]:
    """Each implementation that reads the wire, its verdict on the body: the capture is one
    case of the matrix's own loop (`matrix.judge_all`), as the probe's captures are."""
    case = Case.captured(
        "doctor", reading.wire, "capture", request, body, expected(reading), "", framing
    )
    judged = matrix.judge_all(implementations, [case], matrix.Matrix())
    versions = dict(judged.implementations)
    verdicts = []
    for result in judged.results:
        verdict, name = result.verdict, result.implementation
        fix = "" if verdict.passed else fix_for(verdict.label, name, reading)
        verdicts.append(ClientVerdict(name, versions[name], verdict.label, verdict.reason, fix))
    return verdicts


def fix_for(label: str, name: str, reading: Reading) -> str:
    """What to do about `name` failing this stream as `label` says."""
    codes = sorted({d.code for d in (reading.turn.diagnostics if reading.turn else ())})
    shown = f" (this stream: {', '.join(codes)})" if codes else ""
    if label == "crash":
        return (
            f"{name} cannot read this stream{shown}: assemble it with toolcall, or report it "
            f"to {name} with the excerpt"
        )
    if label in ("merged calls", "wrong number of calls"):
        return (
            f"{name} keys calls by index alone{shown}: read them with toolcall (by id), or have "
            "the server or relay give each call its own index"
        )
    if label == "doubled name":
        return (
            f"{name} appends every name it is sent{shown}: keep the first whole name, or "
            "assemble with toolcall"
        )
    if label in ("truncated arguments passed as valid", "truncated call dropped"):
        return f"{CUT_CHECK}: {name} does not report the cut"
    if label == "error not reported":
        return f"{name} hands over calls from a broken stream: check the stream with toolcall first"
    if label == "rejected a valid stream":
        return f"{name} refuses a stream the library reads{shown}: report it with the excerpt"
    return f"{name} reads this stream otherwise than the library{shown}: compare its calls"


def passed(verdicts: Sequence[ClientVerdict]) -> int:
    return sum(v.verdict == PASS for v in verdicts)
