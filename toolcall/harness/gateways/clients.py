"""What the HTTP clients of `make matrix` assemble through a gateway, beside what they assemble
from `toolcall serve` directly.

The turn judge says whether the stream still carries the same turn; an application, though,
reads it through its SDK, whose accumulator may take a gateway's rewrite differently (LiteLLM's
`index: 0` on Gemini's index-less calls is harmless to this library and fatal to a client that
keys calls by index). Each client is run twice per stream, straight from serve and through the
gateway, and both are held against this library's turn for the same bytes: the gateway fails
when it makes a client wrong that was right, or silently wrong where it failed loudly; any other
difference (a gateway repairing what the client gets wrong on its own) is a note. What the client
does wrong by itself is `make matrix`'s business, not the gateway's. The direct answers are the
same for every gateway, so they are kept and asked once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..peers import CHAT, Implementation, Served, Stream, Unavailable
from ..peers.external import Crashed
from ..peers.http_clients import OpenAIPythonHttp, openai_node, vercel_ai
from .judge import Outcome

FACTORIES: dict[str, Callable[[], Implementation]] = {
    "openai-sdk-http": OpenAIPythonHttp,
    "openai-node": openai_node,
    "vercel-ai": vercel_ai,
}


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


def answer(
    client: Implementation,
    base_url: str,
    headers: Mapping[str, str],
    request: Mapping[str, Any],
    body: bytes,
) -> str:
    """The client's result as one comparable line: its calls (id, name, parsed arguments) and
    its error, or how it crashed. An id that is not in the stream's `body` was made up by the
    client (the Vercel AI SDK does, for a call without one) and differs on every run, so it
    reads `<generated>`."""
    stream = Stream(CHAT, body, dict(request), Served(base_url, dict(headers)))
    try:
        assembled = client.assemble(stream)
    except Crashed as exc:
        return f"{CRASHED}{exc}"
    except Exception as exc:  # a client's own exception (a connection error in its SDK)
        first = str(exc).splitlines()[0] if str(exc) else ""
        return f"{CRASHED}raised {type(exc).__name__}: {first}"
    calls = [(c.id, c.name, c.arguments) for c in assembled.calls]
    return shown(calls, body) + (f"{ERROR}{assembled.error}" if assembled.error else "")


CRASHED = "crashed: "
ERROR = " error: "


def shown(calls: Sequence[tuple[str, str, str]], body: bytes) -> str:
    """Calls as canonical JSON: ids the stream never carried become `<generated>`."""
    listed = [
        [ident if ident and ident.encode() in body else "<generated>", name, _parsed(arguments)]
        for ident, name, arguments in calls
    ]
    return json.dumps(listed, ensure_ascii=False, sort_keys=True)


def reference(direct: Outcome, body: bytes) -> str | None:
    """What a correct client assembles from the stream, as `answer` shows it (this library's
    turn); None when the stream itself is bad, where no single answer is right."""
    if direct.turn is None:
        return None
    calls = [
        (c["id"], c["name"], json.dumps(c["arguments"], ensure_ascii=False))
        for c in direct.turn["tool_calls"]
    ]
    return shown(calls, body)


def _parsed(arguments: str) -> Any:
    try:
        return json.loads(arguments)
    except ValueError:
        return arguments


def judge(name: str, right: str | None, direct: str, through: str) -> tuple[str | None, str | None]:
    """(failure, note) for one client on one stream. A failure is the gateway making the client
    wrong where it was right, or silently wrong where it failed loudly (a crash or an error it
    raised, which an application notices); a note is any other change, such as a gateway
    repairing what the client got wrong on its own."""
    if direct == through:
        return None, None
    seen = f"direct {_cut(direct)}, through {_cut(through)}"
    if right is None:
        return None, f"{name} changed: {seen}"
    if through == right:
        return None, f"{name} repaired: {seen}"
    if direct == right:
        return f"{name} made wrong: {seen}", None
    loud = direct.startswith(CRASHED) or ERROR in direct
    quiet = not through.startswith(CRASHED) and ERROR not in through
    if loud and quiet:
        return f"{name} made silently wrong: {seen}", None
    return None, f"{name} changed: {seen}"


def _cut(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
