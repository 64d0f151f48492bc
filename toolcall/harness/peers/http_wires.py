"""The Vercel AI SDK on the other wires, over real HTTP: one provider package per wire.

`@ai-sdk/openai` (its Responses model), `@ai-sdk/anthropic` and `@ai-sdk/google` are run with
Node per recording (`clients/js/vercel_ai_wires.mjs`, pinned by `clients/js/package-lock.json`)
and pointed at the simulator (`http_clients.served`), which answers the wire's own path
(`serve.WIRE_PATHS`) with the recorded body and anything else with a 404 naming the path, so a
client that calls the wrong endpoint is seen to.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..serve import WIRE_PATHS
from . import Assembled
from .http_clients import NodeClient, served

#: Each wire the AI SDK has a provider for, and its package.
PACKAGES = {
    "responses": "@ai-sdk/openai",
    "anthropic": "@ai-sdk/anthropic",
    "gemini": "@ai-sdk/google",
}


class VercelAIWire:
    """One wire's AI SDK provider, run with Node per recording."""

    def __init__(self, wire: str) -> None:
        client = NodeClient(f"vercel-ai-{wire}", "vercel_ai_wires.mjs", ["ai", PACKAGES[wire]])
        self.name, self.version, self._client = client.name, client.version, client
        self.wires = (wire,)

    def assemble_wire(self, wire: str, body: bytes, request: Mapping[str, Any]) -> Assembled:
        with served(body, wire) as (url, headers):
            job = {
                "base_url": url + WIRE_PATHS[wire].root,
                "headers": headers,
                "wire": wire,
                "request": dict(request),
            }
            return self._client.fetch(job)


def vercel_ai_responses() -> VercelAIWire:
    return VercelAIWire("responses")


def vercel_ai_anthropic() -> VercelAIWire:
    return VercelAIWire("anthropic")


def vercel_ai_gemini() -> VercelAIWire:
    return VercelAIWire("gemini")
