"""The anthropic SDK's `messages.stream()` and the final message it accumulates.

Fed as its users feed it: a client pointed at the simulator serving the recording's body at the
wire's path (`serving`, as every HTTP client of the matrix is), then
`messages.stream(model=..., max_tokens=..., messages=..., tools=...)`, and the `tool_use` blocks of
`get_final_message()`, whose `input` the SDK parsed from the `input_json_delta` fragments; each is
one call, its input written back as JSON text. An `error` event, which the SDK raises as an API
error, is an answer (the stream reported bad); a failed connection is a crash.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from . import Assembled, Call, Stream
from .installed import require
from .serving import origin, serving

ANTHROPIC = "anthropic"


class AnthropicMessagesStream:
    name = "anthropic-sdk"
    wires = (ANTHROPIC,)

    def __init__(self) -> None:
        self._anthropic, self.version = require("anthropic", "anthropic")

    def assemble(self, stream: Stream) -> Assembled:
        with serving(stream) as served:
            client = self._anthropic.Anthropic(
                api_key="not-a-key",
                base_url=origin(served, ANTHROPIC),
                default_headers=dict(served.headers),
                max_retries=0,
            )
            return self._assemble(client, stream.request)

    def _assemble(self, client: Any, request: Mapping[str, Any]) -> Assembled:
        anthropic = self._anthropic
        tools = [
            {
                "name": tool["function"]["name"],
                "input_schema": tool["function"].get("parameters") or {"type": "object"},
            }
            for tool in request.get("tools") or []
        ]
        try:
            with client.messages.stream(
                model=request.get("model") or "model",
                max_tokens=4096,
                messages=list(request["messages"]),
                tools=tools,
            ) as answer:
                message = answer.get_final_message()
        except anthropic.APIConnectionError:
            raise
        except anthropic.APIError as exc:
            return Assembled(error=f"{type(exc).__name__}: {exc}")
        finally:
            client.close()
        return Assembled(
            calls=tuple(
                Call(block.id, block.name, json.dumps(block.input, ensure_ascii=False))
                for block in message.content
                if block.type == "tool_use"
            )
        )
