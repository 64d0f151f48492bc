"""The Vercel AI SDK on the other wires, over real HTTP: one provider package per wire.

`@ai-sdk/openai` (its Responses model), `@ai-sdk/anthropic` and `@ai-sdk/google` are run with
Node per recording (`clients/js/vercel_ai_wires.mjs`, pinned by `clients/js/package-lock.json`)
and pointed at a server on 127.0.0.1 that answers the wire's own path (`/v1/responses`,
`/v1/messages`, `:streamGenerateContent`) with the recorded body, and anything else with a 404
naming the path, so a client that calls the wrong endpoint is seen to. The server lives for one
recording, in this process, and stops when the client has answered.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .. import background
from . import Assembled
from .http_clients import NodeClient

#: Each wire the AI SDK has a provider for: its package, the base URL's path, the request path.
WIRES = {
    "responses": ("@ai-sdk/openai", "/v1", "/v1/responses"),
    "anthropic": ("@ai-sdk/anthropic", "/v1", "/v1/messages"),
    "gemini": ("@ai-sdk/google", "/v1beta", ":streamGenerateContent"),
}


@contextmanager
def answering(body: bytes, path_ending: str) -> Iterator[str]:
    """A server on 127.0.0.1 answering POSTs to a path ending in `path_ending` with `body`;
    yields its URL and stops when the block ends."""

    class Answer(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            path = self.path.split("?")[0]
            if path.endswith(path_ending):
                status, content_type, content = 200, "text/event-stream", body
            else:
                message = {"error": {"message": f"{path} is not {path_ending}"}}
                status, content_type = 404, "application/json"
                content = json.dumps(message).encode()
            self.send_response(status)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(content)))
            self.end_headers()
            self.wfile.write(content)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the matrix reports what the client made of the answer."""

    with background.running(ThreadingHTTPServer(("127.0.0.1", 0), Answer)) as server:
        yield f"http://127.0.0.1:{server.server_address[1]}"


class VercelAIWire:
    """One wire's AI SDK provider, run with Node per recording."""

    def __init__(self, wire: str) -> None:
        package, self._base, self._path = WIRES[wire]
        client = NodeClient(f"vercel-ai-{wire}", "vercel_ai_wires.mjs", ["ai", package])
        self.name, self.version, self._client = client.name, client.version, client
        self.wires = (wire,)

    def assemble_wire(self, wire: str, body: bytes, request: Mapping[str, Any]) -> Assembled:
        with answering(body, self._path) as url:
            job = {"base_url": url + self._base, "wire": wire, "request": dict(request)}
            return self._client.fetch(job)


def vercel_ai_responses() -> VercelAIWire:
    return VercelAIWire("responses")


def vercel_ai_anthropic() -> VercelAIWire:
    return VercelAIWire("anthropic")


def vercel_ai_gemini() -> VercelAIWire:
    return VercelAIWire("gemini")
