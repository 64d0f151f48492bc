"""google-genai's streaming: `client.models.generate_content_stream(...)`, calls per chunk.

Fed as its users feed it: a client pointed at the simulator serving the recording's body at the
wire's path (`serving`, as every HTTP client of the matrix is), then
`generate_content_stream(model=..., contents=..., config=...)` with the tools declared, and every
`chunk.function_calls` collected in order, the SDK's own view of the calls in a chunk. Gemini sends
each call whole, so that is the whole of the assembly; Vertex's streamed arguments (`partialArgs`)
are left by the SDK to its user, and come back as the parts they arrive in. A call without an `id`
(before gemini 3) has the empty id. An API error the SDK raises from the stream is an answer; a
failed connection is a crash.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from . import Assembled, Call, Stream
from .installed import require
from .serving import origin, serving

GEMINI = "gemini"


class GenAIStream:
    name = "google-genai"
    wires = (GEMINI,)

    def __init__(self) -> None:
        self._genai, self.version = require("google.genai", "google-genai")
        self._types, _ = require("google.genai.types", "google-genai")
        self._errors, _ = require("google.genai.errors", "google-genai")

    def assemble(self, stream: Stream) -> Assembled:
        with serving(stream) as served:
            options = self._types.HttpOptions(
                base_url=origin(served, GEMINI), headers=dict(served.headers)
            )
            client = self._genai.Client(api_key="not-a-key", http_options=options)
            try:
                return self._assemble(client, stream.request)
            finally:
                client.close()

    def _assemble(self, client: Any, request: Mapping[str, Any]) -> Assembled:
        types = self._types
        declarations = [
            types.FunctionDeclaration(
                name=tool["function"]["name"],
                parameters_json_schema=tool["function"].get("parameters") or {"type": "object"},
            )
            for tool in request.get("tools") or []
        ]
        config = types.GenerateContentConfig(
            tools=[types.Tool(function_declarations=declarations)] if declarations else None
        )
        calls: list[Call] = []
        try:
            for chunk in client.models.generate_content_stream(
                model=request.get("model") or "model",
                contents=request["messages"][0]["content"],
                config=config,
            ):
                for call in chunk.function_calls or []:
                    arguments = "" if call.args is None else json.dumps(call.args)
                    calls.append(Call(call.id or "", call.name or "", arguments))
        except self._errors.APIError as exc:
            return Assembled(error=f"{type(exc).__name__}: {exc}")
        return Assembled(calls=tuple(calls))
