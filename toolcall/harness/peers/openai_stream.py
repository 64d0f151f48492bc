"""The openai SDK's own accumulator: `ChatCompletionStreamState`, behind `chat.completions.stream`.

Fed the way the SDK feeds it: each chunk becomes a `ChatCompletionChunk` built without validation
(`construct`, which is what the SDK's `Stream` does with every server-sent event), handed to
`handle_chunk`, and the final completion is read with `get_final_completion`. The request's tools
go in as `input_tools`, as `stream(tools=...)` passes them. The SDK's own refusal of a cut turn,
`LengthFinishReasonError` (raised only for strict tools), counts as an answer, not a crash.
"""

from __future__ import annotations

from . import CHAT, Assembled, Call, Stream
from .installed import require


class OpenAIStreamState:
    name = "openai-sdk"
    wires = (CHAT,)

    def __init__(self) -> None:
        openai, self.version = require("openai", "openai")
        self._errors: tuple[type[Exception], ...] = (openai.LengthFinishReasonError,)
        streaming, _ = require("openai.lib.streaming.chat", "openai")
        types, _ = require("openai.types.chat", "openai")
        self._state = streaming.ChatCompletionStreamState
        self._chunk = types.ChatCompletionChunk

    def assemble(self, stream: Stream) -> Assembled:
        state = self._state(input_tools=list(stream.request.get("tools") or []))
        try:
            for chunk in stream.chunks:
                state.handle_chunk(self._chunk.construct(**chunk))
            completion = state.get_final_completion()
        except self._errors as exc:
            return Assembled(error=f"{type(exc).__name__}: {exc}")
        if not completion.choices:
            return Assembled()
        calls = completion.choices[0].message.tool_calls or []
        return Assembled(
            calls=tuple(
                Call(c.id or "", c.function.name or "", c.function.arguments or "") for c in calls
            )
        )
