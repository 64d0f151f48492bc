"""The openai SDK's Responses stream: `client.responses.stream(...)` and its final response.

Fed as its users feed it: a client whose HTTP answers with the recording's body (`served_body`),
`responses.stream(model=..., input=..., tools=...)` iterated to the end, and the calls read from
`get_final_response()`, which is what the SDK's stream state accumulates from the events (it
takes the items `response.completed` hands over). Each `function_call` item is one call: its
`call_id`, `name` and `arguments`. An error the SDK reports from the stream (an `error` event,
`response.failed`) is an answer, not a crash; a failed connection is not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import Assembled, Call, Stream
from .installed import require
from .served_body import answering, http_library

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
        self._library = http_library(self._openai.DefaultHttpxClient)

    def assemble(self, stream: Stream) -> Assembled:
        body, request = stream.body, stream.request
        openai = self._openai
        client = openai.OpenAI(
            api_key="not-a-key",
            base_url="http://127.0.0.1/v1",
            http_client=answering(self._library, body),
            max_retries=0,
        )
        try:
            with client.responses.stream(
                model=request.get("model") or "model",
                input=request["messages"][0]["content"],
                tools=function_tools(request),
            ) as answer:
                for _event in answer:
                    pass
                final = answer.get_final_response()
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
