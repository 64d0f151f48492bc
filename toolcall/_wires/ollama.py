"""Ollama's own chat stream (`POST /api/chat`): newline-delimited JSON, not SSE.

Each line is a whole chat response: `message.content`, `message.thinking` (reasoning), and
`message.tool_calls`, each call whole on one line (its `id`, `function.name`, `function.index`
and `function.arguments` as an object). The last line has `done: true`, the stop reason in
`done_reason` (`"stop"` even with calls; `"length"` is a cut) and the token counts, which are
the turn's usage. An `error` line is the provider's error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ._base import WireReader, provider_error

_USAGE = (
    "prompt_eval_count",
    "eval_count",
    "total_duration",
    "prompt_eval_duration",
    "eval_duration",
)


class OllamaReader(WireReader):
    wire = "ollama"
    cut: ClassVar[Mapping[str, str]] = {"length": "the output hit num_predict"}
    end_mark = "a line with 'done': true"

    def event(self, event: dict[str, Any]) -> None:
        if event.get("error"):
            raise provider_error(event["error"])
        message = event.get("message")
        if message:
            self.text(message.get("thinking"), reasoning=True)
            self.text(message.get("content"))
            for call in message.get("tool_calls") or ():
                function = call.get("function") or {}
                number = self.open_call(None, call.get("id"), function.get("name"))
                self.whole_arguments(number, function.get("arguments"))
        if event.get("done") is True:
            self.done = True
            self.finish(event.get("done_reason") or "stop")
            self.keep_usage({key: event[key] for key in _USAGE if key in event})
            self.end_turn("the line with 'done': true")
