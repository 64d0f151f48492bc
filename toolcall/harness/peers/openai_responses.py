"""The openai SDK's Responses stream: `client.responses.stream(...)` and its final response.

Fed as its users feed it: a client pointed at the simulator serving the recording's body at the
wire's path (`serving`, as every HTTP client of the matrix is), then
`responses.stream(model=..., input=..., tools=...)` iterated to the end, and the calls read from
`get_final_response()`, which is what the SDK's stream state accumulates from the events (it takes
the items `response.completed` hands over). Each `function_call` item is one call: its `call_id`,
`name` and `arguments`. An error the SDK reports from the stream (an `error` event,
`response.failed`) is an answer, not a crash, and so is `get_final_response()` refusing a stream
that never completed (`response.incomplete`: the user gets no calls to run, which is the cut
reported); a failed connection is not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import Assembled, Call, Stream
from .installed import require
from .serving import serving

RESPONSES = "responses"


def function_tools(request: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The request's chat-style tools as the Responses API takes them (flat, not strict)."""
    return [
        {
            "type": "function",
            "name": tool["function"]["name"],
            "parameters": tool["function"].get("parameters") or {"type": "object"},
            "strict": False,
        }
        for tool in request.get("tools") or []
    ]


class OpenAIResponsesStream:
    name = "openai-responses"
    wires = (RESPONSES,)

    def __init__(self) -> None:
        self._openai, self.version = require("openai", "openai")
        require("openai.lib.streaming.responses", "openai")  # absent before the Responses API

    def assemble(self, stream: Stream) -> Assembled:
        with serving(stream) as served:
            client = self._openai.OpenAI(
                api_key="not-a-key",
                base_url=served.base_url,
                default_headers=dict(served.headers),
                max_retries=0,
            )
            return self._assemble(client, stream.request)

    def _assemble(self, client: Any, request: Mapping[str, Any]) -> Assembled:
        openai = self._openai
        try:
            with client.responses.stream(
                model=request.get("model") or "model",
                input=request["messages"][0]["content"],
                tools=function_tools(request),
            ) as answer:
                for _event in answer:
                    pass
                try:
                    final = answer.get_final_response()
                except RuntimeError as exc:  # the SDK's word for a response that never completed
                    return Assembled(error=f"{type(exc).__name__}: {exc}")
        except openai.APIConnectionError:
            raise
        except openai.APIError as exc:
            return Assembled(error=f"{type(exc).__name__}: {exc}")
        finally:
            client.close()
        return Assembled(
            calls=tuple(
                Call(item.call_id or "", item.name or "", item.arguments or "")
                for item in final.output
                if item.type == "function_call"
            )
        )
