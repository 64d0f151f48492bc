"""What the HTTP clients of `make matrix` assemble through a gateway, beside what they assemble
from `toolcall serve` directly.

The turn judge says whether the stream still carries the same turn; an application, though,
reads it through its SDK, whose accumulator may take a gateway's rewrite differently (LiteLLM's
`index: 0` on Gemini's index-less calls is harmless to this library and fatal to a client that
keys calls by index), and whose error handling decides whether a broken stream is noticed at all
(a cut that serve ends by dropping the connection makes the openai SDK raise; the same cut closed
cleanly by a gateway hands the application truncated arguments and no error). Each client is
therefore run twice per stream, faults included, straight from serve and through the gateway.

A stream is judged against this library's turn for the same bytes; a fault against the only
right answer there is, an error the application sees. The gateway fails when it makes a client
wrong that was right, or silently wrong where it failed loudly: the worst a route can do. Any
other difference (a gateway repairing what the client gets wrong on its own, another exception
for the same fault) is a note. What the client does wrong by itself is `make matrix`'s business,
not the gateway's. The direct answers are the same for every gateway, so they are kept and
asked once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..peers import CHAT, Implementation, Served, Stream, Unavailable, first_line
from ..peers.external import Crashed
from ..peers.http_clients import OpenAIPythonHttp, openai_node, vercel_ai
from .judge import Outcome

FACTORIES: dict[str, Callable[[], Implementation]] = {
    "openai-sdk-http": OpenAIPythonHttp,
    "openai-node": openai_node,
    "vercel-ai": vercel_ai,
}

#: How an id the stream never carried is shown: the Vercel AI SDK makes one up per run.
GENERATED = "<generated>"


def available() -> tuple[list[Implementation], dict[str, str]]:
    """The clients that can run here, and why each other one cannot."""
    found: list[Implementation] = []
    missing: dict[str, str] = {}
    for name, factory in FACTORIES.items():
        try:
            found.append(factory())
        except Unavailable as exc:
            missing[name] = str(exc)
    return found, missing


@dataclass(frozen=True)
class Answer:
    """What one client handed the application: its calls (id, name, arguments parsed where they
    are JSON), the error it reported about the stream, or the exception it raised."""

    calls: tuple[tuple[str, str, Any], ...] = ()
    error: str | None = None
    raised: str | None = None

    @property
    def loud(self) -> bool:
        """Whether the application learns that something went wrong."""
        return self.error is not None or self.raised is not None

    def describe(self) -> str:
        """One readable phrase: `raised APIConnectionError (Connection error.)`, or `returned
        1 call without an error: get_weather {"city": "Lisbon", (not JSON)`."""
        if self.raised is not None:
            kind, _, message = self.raised.partition(": ")
            return f"raised {kind}" + (f" ({message})" if message else "")
        calls = "; ".join(_call(name, arguments) for _id, name, arguments in self.calls)
        count = f"{len(self.calls)} call{'' if len(self.calls) == 1 else 's'}"
        said = f"reported {self.error!r}" if self.error else "without an error"
        return f"returned {count} {said}" + (f": {calls}" if calls else "")

    def to_json(self) -> dict[str, Any]:
        return {
            "calls": [list(call) for call in self.calls],
            "error": self.error,
            "raised": self.raised,
        }


def _call(name: str, arguments: Any) -> str:
    if arguments == "":
        return f"{name} with empty arguments"
    if isinstance(arguments, str):
        return f"{name} {arguments} (not JSON)"
    return f"{name} {json.dumps(arguments, ensure_ascii=False, separators=(',', ':'))}"


def answer(
    client: Implementation,
    base_url: str,
    headers: Mapping[str, str],
    request: Mapping[str, Any],
    body: bytes,
) -> Answer:
    """Run the client on one request, fetched from `base_url`. An id that is not in the stream's
    `body` was made up by the client (the Vercel AI SDK does, for a call without one) and
    differs on every run, so it reads `<generated>`."""
    stream = Stream(CHAT, body, dict(request), Served(base_url, dict(headers)))
    try:
        assembled = client.assemble(stream)
    except Crashed as exc:  # a program client's exception: its last words, after its exit status
        status, _, words = str(exc).partition(": ")
        said = words if status.startswith("exit status") and words else str(exc)
        return Answer(raised=first_line(said) or type(exc).__name__)
    except Exception as exc:  # a client's own exception (a connection error in its SDK)
        first = first_line(str(exc))
        return Answer(raised=f"{type(exc).__name__}: {first}" if first else type(exc).__name__)
    calls = [(c.id, c.name, c.arguments) for c in assembled.calls]
    return Answer(shown(calls, body), error=assembled.error)


def shown(calls: Sequence[tuple[str, str, str]], body: bytes) -> tuple[tuple[str, str, Any], ...]:
    """Calls as compared: ids the stream never carried are `<generated>`, arguments parsed."""
    return tuple(
        (ident if ident and ident.encode() in body else GENERATED, name, _parsed(arguments))
        for ident, name, arguments in calls
    )


def reference(direct: Outcome, body: bytes) -> Answer | None:
    """What a correct client hands over for the stream (this library's turn); None when the
    stream itself is bad, where no single answer is right."""
    if direct.turn is None:
        return None
    calls = [
        (c["id"], c["name"], json.dumps(c["arguments"], ensure_ascii=False))
        for c in direct.turn["tool_calls"]
    ]
    return Answer(shown(calls, body))


def _parsed(arguments: str) -> Any:
    try:
        return json.loads(arguments)
    except ValueError:
        return arguments


@dataclass(frozen=True)
class Verdict:
    """One client on one stream: `failure` (the gateway made it wrong) or a `note` (another
    difference), each with the evidence: what it did straight from serve, through the gateway,
    and what was right."""

    client: str
    kind: str  # "made wrong", "made silently wrong", "repaired", "changed"
    direct: Answer
    through: Answer
    right: Answer | None
    failed: bool

    def lines(self, gateway: str) -> list[str]:
        """The evidence, one line each: the verdict, then what happened on each route."""
        out = [f"{self.client} {self.kind}", f"straight from serve: {self.direct.describe()}"]
        out.append(f"through {gateway}: {self.through.describe()}")
        if self.right is not None and self.right not in (self.direct, self.through):
            out.append(f"right: {self.right.describe()}")
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "client": self.client,
            "verdict": self.kind,
            "failed": self.failed,
            "direct": self.direct.to_json(),
            "through": self.through.to_json(),
            "right": self.right.to_json() if self.right is not None else None,
        }


def judge(name: str, right: Answer | None, direct: Answer, through: Answer) -> Verdict | None:
    """One client on one normal stream; None when the gateway changed nothing it hands over."""
    if direct == through:
        return None
    if right is not None and through == right:
        return Verdict(name, "repaired", direct, through, right, failed=False)
    if right is not None and direct == right:
        return Verdict(name, "made wrong", direct, through, right, failed=True)
    if direct.loud and not through.loud:
        return Verdict(name, "made silently wrong", direct, through, right, failed=True)
    return Verdict(name, "changed", direct, through, right, failed=False)


def judge_fault(name: str, direct: Answer, through: Answer) -> Verdict | None:
    """One client on a fault upstream, where the right answer is an error the application sees.
    Silence through the gateway where serve's fault made the client raise or report is the
    failure; the same fault reaching the client as another exception is a note (an application
    that retries on a rate limit may key on it); messages (bodies rewrapped) are not compared."""
    if direct.loud and not through.loud:
        return Verdict(name, "made silently wrong", direct, through, None, failed=True)
    if not direct.loud and through.loud:
        return Verdict(name, "repaired", direct, through, None, failed=False)
    if _kind(direct) != _kind(through):
        return Verdict(name, "changed", direct, through, None, failed=False)
    return None


def _kind(answer: Answer) -> str:
    if answer.raised is not None:
        return "raised " + answer.raised.partition(":")[0]
    return "reported" if answer.error is not None else "silent"
