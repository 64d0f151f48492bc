"""Real HTTP clients, in Python and JavaScript, judged end to end over a socket on 127.0.0.1.

The in-process peers read a stream's events; these fetch it, from where the harness serves it
(`serving`: the bytes every other implementation is judged on, or a gateway in front of them),
so a client's own HTTP stack, SSE reader and accumulator are all under test and the columns stay
comparable. The JavaScript clients are programs under `clients/js/` that speak the implementation
protocol (`external`) like anyone's program, as HTTP clients (`"http_client": true`): each runs
once per column with Node and is handed every stream of its wires in turn. Their packages are
pinned by `clients/js/package-lock.json` and installed by `make matrix` on first use. They come
with a checkout of the repository only: an installed package has no `clients/js/`, and says so
instead of advising a `make` target that is not there.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import CHAT, Assembled, Stream, Unavailable
from .external import External, read_document
from .installed import require
from .serving import serving

#: Where the JavaScript clients live in a checkout.
JS_CLIENTS = Path(__file__).resolve().parents[3] / "clients" / "js"
#: Seconds a JavaScript client gets for its handshake (Node loading the SDK) and for each stream.
TIMEOUT = 60.0
#: The AI SDK's provider package for each wire it reads.
AI_SDK_PROVIDERS = {
    CHAT: "@ai-sdk/openai-compatible",
    "responses": "@ai-sdk/openai",
    "anthropic": "@ai-sdk/anthropic",
    "gemini": "@ai-sdk/google",
}


def node_program(
    name: str, script: str, packages: Sequence[str], arguments: Sequence[str] = ()
) -> External:
    """One of the programs under `clients/js/`, run with Node; unavailable, with the reason,
    when Node, the checkout's `clients/js/` or one of its packages is missing."""
    node = shutil.which("node")
    if node is None:
        raise Unavailable("node is not installed")
    if not (JS_CLIENTS / "package.json").is_file():
        raise Unavailable(
            "the JavaScript clients come with a checkout of the toolcall repository "
            "(clients/js/), not with the installed package"
        )
    for package in packages:
        if not (JS_CLIENTS / "node_modules" / package / "package.json").is_file():
            raise Unavailable(
                f"{package} is not installed in {JS_CLIENTS} (run `make matrix`, which runs "
                "`npm ci` there)"
            )
    return External(name, [node, str(JS_CLIENTS / script), *arguments], timeout=TIMEOUT)


def openai_node() -> External:
    return node_program("openai-node", "openai_node.mjs", ["openai"])


def vercel_ai() -> External:
    return _vercel_ai("vercel-ai", CHAT)


def vercel_ai_responses() -> External:
    return _vercel_ai("vercel-ai-responses", "responses")


def vercel_ai_anthropic() -> External:
    return _vercel_ai("vercel-ai-anthropic", "anthropic")


def vercel_ai_gemini() -> External:
    return _vercel_ai("vercel-ai-gemini", "gemini")


def _vercel_ai(name: str, wire: str) -> External:
    """The AI SDK's `streamText` through its provider package for `wire`: one column per wire."""
    return node_program(name, "vercel_ai.mjs", ["ai", AI_SDK_PROVIDERS[wire]], [wire])


class OpenAIPythonHttp:
    """The Python openai SDK over real HTTP: `chat.completions.stream(...)` and its final
    completion, the way an application uses it (beside the in-process `openai-sdk` adapter)."""

    name = "openai-sdk-http"
    wires = (CHAT,)

    def __init__(self) -> None:
        openai, self.version = require("openai", "openai")
        self._openai = openai

    def assemble(self, stream: Stream) -> Assembled:
        with serving(stream) as served:
            return self._fetch(served.base_url, dict(served.headers), stream.request)

    def _fetch(self, base_url: str, headers: dict[str, str], asked: Any) -> Assembled:
        openai = self._openai
        client = openai.OpenAI(
            base_url=base_url,
            api_key="anything",
            default_headers=headers,
            max_retries=0,
            timeout=TIMEOUT,
        )
        body = {**asked, "stream": True, "model": asked.get("model") or "model"}
        request = {k: v for k, v in body.items() if k in _SDK_ARGUMENTS}
        extra = {k: v for k, v in body.items() if k not in _SDK_ARGUMENTS | {"stream"}}
        try:
            with client.chat.completions.stream(**request, extra_body=extra or None) as stream:
                completion = stream.get_final_completion()
        except (openai.LengthFinishReasonError, openai.ContentFilterFinishReasonError) as exc:
            return Assembled(error=f"{type(exc).__name__}: {exc}")
        finally:
            client.close()
        choice = completion.choices[0] if completion.choices else None
        calls = (choice.message.tool_calls if choice else None) or []
        document: dict[str, Any] = {
            "tool_calls": [
                {
                    "id": c.id or "",
                    "function": {
                        "name": c.function.name or "",
                        "arguments": c.function.arguments or "",
                    },
                }
                for c in calls
            ]
        }
        if choice is not None and choice.finish_reason == "length":
            document["error"] = "finish_reason length"
        return read_document(document)


#: Request fields the SDK takes as arguments; any other (tool_stream, enable_thinking) goes in
#: `extra_body`, as an application sends a provider's own fields.
_SDK_ARGUMENTS = frozenset(
    {"model", "messages", "tools", "tool_choice", "stream_options", "temperature", "max_tokens"}
)
