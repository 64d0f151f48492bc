"""What a gateway did to one stream, judged from bytes and requests alone (no I/O here).

Four questions per stream, each answered against what the client would have had without the
gateway (the cassette's body, served directly, and the request the client sent):

- the request: did every field the client sent reach upstream unchanged? A provider's own fields
  (`tool_stream`, `enable_thinking`) decide the shape of the real stream, so a gateway that drops
  one silently changes what comes back. Fields the gateway adds are reported, not failed.
- the turn, strictly: the same calls (ids, names, parsed arguments, count and order,
  `extra_content`), the same reasoning, content and finish_reason, as this library assembles them.
  This is a failure when it differs: the application would act on a different turn.
- the wire: what changed on the way that a correct client may ignore (comments, `[DONE]`,
  indices, ids, how the text is cut into chunks). Reported, never failed, because a route is
  allowed to re-serialise; the point is to know it did.
- usage, where the client asked for it: the token counts that reached the client beside the ones
  the provider sent. Counts an application bills with that differ, or never arrive, fail; usage
  the provider never sent (a gateway's own estimate) is reported with its numbers.
- a fault upstream (`cut`, `429`, `500`): the client must learn of it, as an error status, a
  broken connection or a turn that does not finish, within a bound. A hang, or a 200 with nothing
  in it, leaves an application waiting or believing the model said nothing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import toolcall

from ..reading import walk, wires
from ..suite import fingerprint

#: Request fields a gateway is expected to rewrite: it routes on `model` (an alias here) itself.
ROUTING_FIELDS = frozenset({"model"})


@dataclass(frozen=True)
class RequestVerdict:
    """Fields of the client's request that upstream did not receive as sent."""

    stripped: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    added: tuple[str, ...] = ()

    @property
    def intact(self) -> bool:
        return not self.stripped and not self.changed

    def notes(self) -> list[str]:
        out = [f"stripped {name}" for name in self.stripped]
        out += [f"changed {name}" for name in self.changed]
        out += [f"added {name}" for name in self.added]
        return out


def judge_request(sent: Mapping[str, Any], received: Mapping[str, Any]) -> RequestVerdict:
    """Compare, field by top-level field, what the client sent with what upstream received."""
    stripped = sorted(k for k in sent if k not in received and k not in ROUTING_FIELDS)
    changed = sorted(
        k
        for k in sent
        if k in received and k not in ROUTING_FIELDS and not _same(sent[k], received[k])
    )
    added = sorted(k for k in received if k not in sent)
    return RequestVerdict(tuple(stripped), tuple(changed), tuple(added))


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values (1 == 1.0 is fine, key order never matters)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@dataclass(frozen=True)
class Outcome:
    """What this library assembles from a body: a turn, or the error it raised, by kind."""

    turn: dict[str, Any] | None
    error: str | None

    @property
    def finished(self) -> bool:
        return self.turn is not None and self.turn.get("finish_reason") is not None


def outcome(body: bytes) -> Outcome:
    """The body assembled; `turn` keeps only what an application acts on (no usage, no
    diagnostics, which describe the wire rather than the answer)."""
    try:
        turn = toolcall.assemble(body)
    except toolcall.ToolCallError as exc:
        return Outcome(None, f"{type(exc).__name__}: {_first_line(str(exc))}")
    calls = [
        {
            "id": call.id,
            "name": call.function.name,
            "arguments": arguments,
            "extra_content": call.extra_content,
        }
        for call, arguments in zip(turn.tool_calls, turn.arguments, strict=True)
    ]
    kept = {
        "tool_calls": calls,
        "reasoning": turn.reasoning,
        "content": turn.content,
        "finish_reason": turn.finish_reason,
    }
    return Outcome(kept, None)


def judge_turn(direct: Outcome, through: Outcome) -> list[str]:
    """Every difference between the turn without and with the gateway; empty when intact."""
    if direct.error or through.error:
        if direct.error == through.error:
            return []
        return [f"error: direct {direct.error or 'none'}, through {through.error or 'none'}"]
    assert direct.turn is not None and through.turn is not None
    problems: list[str] = []
    want, got = direct.turn["tool_calls"], through.turn["tool_calls"]
    if len(want) != len(got):
        names = [c["name"] for c in got]
        problems.append(f"call count: direct {len(want)}, through {len(got)} {names}")
    for number, (a, b) in enumerate(zip(want, got, strict=False)):
        for key in ("id", "name", "arguments", "extra_content"):
            if a[key] != b[key]:
                problems.append(f"call {number} {key}: direct {a[key]!r}, through {b[key]!r}")
    for key in ("reasoning", "content", "finish_reason"):
        if direct.turn[key] != through.turn[key]:
            problems.append(
                f"{key}: direct {_short(direct.turn[key])}, through {_short(through.turn[key])}"
            )
    return problems


def wire_changes(direct: bytes, through: bytes) -> list[str]:
    """What the gateway changed on the wire, as short labels (`usage replaced`, `[DONE] added`,
    `chunks added`); `byte for byte` when nothing did. Never a failure by itself."""
    if direct == through:
        return ["byte for byte"]
    try:
        before, after = walk.read(direct), walk.read(through)
    except wires.UnreadableBody as exc:
        return [f"unreadable: {exc}"]
    changes: list[str] = []
    if len(before.chunks) < len(after.chunks):
        changes.append("chunks added")
    elif len(before.chunks) > len(after.chunks):
        changes.append("chunks dropped")
    if before.comments and not after.comments:
        changes.append("comments dropped")
    elif after.comments and not before.comments:
        changes.append("comments added")
    if before.done != after.done:
        changes.append("[DONE] added" if after.done else "[DONE] dropped")
    ours, theirs = fingerprint.observe_stream(before), fingerprint.observe_stream(after)
    for quirk in ("index", "later_id", "later_name", "later_type", "calls_per_chunk"):
        a, b = ours.quirks.get(quirk), theirs.quirks.get(quirk)
        if a != b and b is not None:
            changes.append(f"{quirk} {_plain(a)}->{_plain(b)}")
    if _chunk_ids(before) != _chunk_ids(after):
        changes.append("chunk ids rewritten")
    if _other_fields(before) != _other_fields(after):
        changes.append("chunks re-serialised")
    return changes or ["same chunks, different bytes"]


#: The token counts compared; other usage fields (details, `cost`) are listed when added.
TOKENS = ("prompt_tokens", "completion_tokens", "total_tokens")


@dataclass(frozen=True)
class Usage:
    """The usage the provider sent and the usage that reached the client (the last one each
    stream carries, on the chunk or in its choice), for a client that asked or not."""

    sent: Mapping[str, Any] | None
    got: Mapping[str, Any] | None
    asked: bool

    @property
    def verdict(self) -> str | None:
        """None when the client got the provider's counts, else `changed`, `dropped` (asked
        for and sent, never arrived), `hidden` (the same, for a client that did not ask) or
        `invented` (the provider sent none)."""
        if self.sent is None and self.got is None:
            return None
        if self.got is None:
            return "dropped" if self.asked else "hidden"
        if self.sent is None:
            return "invented"
        return None if _counts(self.sent) == _counts(self.got) else "changed"

    @property
    def failed(self) -> bool:
        """Counts an application bills with are wrong, or missing although it asked."""
        return self.verdict in ("changed", "dropped")

    @property
    def added(self) -> list[str]:
        """Fields the client got that the provider never sent (LiteLLM's `cost`)."""
        if self.sent is None or self.got is None:
            return []
        return sorted(k for k in self.got if k not in self.sent)

    def line(self) -> str:
        """`usage changed: provider sent prompt 27, completion 45, total 576; client got ...`"""
        label = f"usage {self.verdict}" if self.verdict else "usage intact"
        extra = f" (fields added: {', '.join(self.added)})" if self.added else ""
        return f"{label}: provider sent {_shown(self.sent)}; client got {_shown(self.got)}{extra}"

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "asked": self.asked,
            "sent": _counts(self.sent) if self.sent is not None else None,
            "got": _counts(self.got) if self.got is not None else None,
            "added": self.added,
        }


def judge_usage(direct: bytes, through: bytes, *, asked: bool) -> Usage:
    """The last usage of each body; an unreadable body counts as none."""
    return Usage(_last_usage(direct), _last_usage(through), asked)


def asks_usage(request: Mapping[str, Any]) -> bool:
    options = request.get("stream_options")
    return isinstance(options, Mapping) and options.get("include_usage") is True


def _last_usage(body: bytes) -> Mapping[str, Any] | None:
    try:
        stream = walk.read(body)
    except wires.UnreadableBody:
        return None
    found: Mapping[str, Any] | None = None
    for view in stream.chunks:
        for usage in (view.chunk.get("usage"), (view.choice or {}).get("usage")):
            if isinstance(usage, Mapping) and usage:
                found = usage
    return found


def _counts(usage: Mapping[str, Any] | None) -> dict[str, Any]:
    return {k: usage[k] for k in TOKENS if usage is not None and k in usage}


def _shown(usage: Mapping[str, Any] | None) -> str:
    if usage is None:
        return "none"
    counts = _counts(usage)
    if not counts:
        return "usage without token counts"
    return ", ".join(f"{k.removesuffix('_tokens')} {v}" for k, v in counts.items())


def _chunk_ids(stream: walk.Stream) -> list[Any]:
    return sorted({str(v.chunk.get("id")) for v in stream.chunks})


def _other_fields(stream: walk.Stream) -> list[str]:
    """The chunks as canonical JSON without usage: equal when only framing or usage moved."""
    return [
        json.dumps({k: v for k, v in view.chunk.items() if k != "usage"}, sort_keys=True)
        for view in stream.chunks
    ]


#: How long a client may wait for a fault to show before the gateway is said to hang (seconds).
FAULT_BOUND = 15.0


@dataclass(frozen=True)
class Exchange:
    """What the client saw: status, body bytes, seconds taken, and whether it gave up waiting
    (`timed_out`) or the connection broke (`transport_error`)."""

    status: int | None
    body: bytes
    seconds: float
    timed_out: bool = False
    transport_error: str | None = None
    notes: Sequence[str] = field(default_factory=tuple)


def judge_fault(
    fault: str, exchange: Exchange, *, before_cut: bytes = b"", bound: float = FAULT_BOUND
) -> str | None:
    """None when the fault reached the client in time; else what went wrong (`hang`, `empty
    200`, `hidden`: a complete turn as if nothing had happened). `before_cut` is what upstream
    sent before a `cut`: when that already finished the turn (a whole call and its finish in
    the first event), a finished turn hides nothing."""
    if exchange.timed_out or exchange.seconds > bound:
        return f"hang: nothing ended the exchange within {bound:g} s"
    if exchange.status is not None and exchange.status >= 400:
        return None
    if exchange.transport_error:
        return None
    if fault in ("429", "500") and exchange.status == 200:
        if not exchange.body.strip():
            return f"empty 200 for an upstream {fault}"
        return f"200 for an upstream {fault}"
    if not exchange.body.strip():
        return "empty 200: the cut reached the client as a clean, empty answer"
    got = outcome(exchange.body)
    if got.error is not None:
        return None  # an error the client can see (a provider error payload, a cut call)
    if got.finished and not outcome(before_cut).finished:
        return "hidden: a finished turn although upstream was cut before its finish"
    return None  # a turn without finish_reason: the client can tell it was cut


def _plain(value: Any) -> str:
    return fingerprint.CANNOT_TELL if value is None else str(value)


def _first_line(text: str, limit: int = 160) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
