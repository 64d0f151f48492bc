"""What the HTTP clients of `make matrix` assemble through a gateway, beside what they assemble
from `toolcall serve` directly.

The turn judge says whether the stream still carries the same turn; an application, though,
reads it through its SDK, whose accumulator may take a gateway's rewrite differently (LiteLLM's
`index: 0` on Gemini's index-less calls is harmless to this library and fatal to a client that
keys calls by index). Each client is run twice per stream, straight from serve and through the
gateway, and only a difference between the two is reported: what the client does wrong on its
own is `make matrix`'s business, not the gateway's. The direct answers are the same for every
gateway, so they are kept and asked once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from ..peers import Assembled, Unavailable
from ..peers.external import Crashed
from ..peers.http_clients import OpenAIPythonHttp, openai_node, vercel_ai


class Client(Protocol):
    name: str

    def fetch(self, job: Mapping[str, Any]) -> Assembled: ...


FACTORIES: dict[str, Callable[[], Client]] = {
    "openai-sdk-http": OpenAIPythonHttp,
    "openai-node": openai_node,
    "vercel-ai": vercel_ai,
}


def available() -> tuple[list[Client], dict[str, str]]:
    """The clients that can run here, and why each other one cannot."""
    found: list[Client] = []
    missing: dict[str, str] = {}
    for name, factory in FACTORIES.items():
        try:
            found.append(factory())
        except Unavailable as exc:
            missing[name] = str(exc)
    return found, missing


def answer(
    client: Client, base_url: str, headers: Mapping[str, str], request: Mapping[str, Any]
) -> str:
    """The client's result as one comparable line: its calls (id, name, parsed arguments) and
    its error, or how it crashed."""
    job = {"base_url": base_url, "headers": dict(headers), "request": dict(request)}
    try:
        assembled = client.fetch(job)
    except Crashed as exc:
        return f"crashed: {exc}"
    except Exception as exc:  # a client's own exception (a connection error in its SDK)
        return f"raised {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    calls = [[c.id, c.name, _parsed(c.arguments)] for c in assembled.calls]
    shown = json.dumps(calls, ensure_ascii=False, sort_keys=True)
    return shown + (f" error: {assembled.error}" if assembled.error else "")


def _parsed(arguments: str) -> Any:
    try:
        return json.loads(arguments)
    except ValueError:
        return arguments


def differences(direct: Mapping[str, str], through: Mapping[str, str]) -> list[str]:
    """`client: direct X, through Y` for each client whose result the gateway changed."""
    return [
        f"{name}: direct {_cut(direct[name])}, through {_cut(through[name])}"
        for name in sorted(through)
        if name in direct and direct[name] != through[name]
    ]


def _cut(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
