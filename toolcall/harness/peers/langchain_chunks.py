"""langchain-core's merging of `AIMessageChunk`s, the way `ChatOpenAI.stream()` users get it.

Each chunk's delta becomes an `AIMessageChunk` with `tool_call_chunks` exactly as
langchain-openai's `_convert_delta_to_message_chunk` builds them (a delta whose tool call has no
`index` raises KeyError there, which it swallows, so that chunk carries no tool-call chunks), and
the chunks are summed with `+`, as users gather a stream. The result is read from `.tool_calls`
(arguments parsed, partially if need be, by langchain) and `.invalid_tool_calls`, which is
langchain's way of reporting a call it could not parse: an answer, not a crash.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from typing import Any

from . import CHAT, Assembled, Call, Stream
from .installed import require


class LangChainChunks:
    name = "langchain-core"
    wires = (CHAT,)

    def __init__(self) -> None:
        messages, self.version = require("langchain_core.messages", "langchain-core")
        tool, _ = require("langchain_core.messages.tool", "langchain-core")
        self._message = messages.AIMessageChunk
        self._tool_call_chunk = tool.tool_call_chunk

    def assemble(self, stream: Stream) -> Assembled:
        gathered: Any = None
        for chunk in stream.chunks:
            choices = chunk.get("choices") or []
            if not choices:
                continue
            message = self._message_chunk(choices[0].get("delta") or {})
            gathered = message if gathered is None else gathered + message
        if gathered is None:
            return Assembled()
        calls = [
            Call(c["id"] or "", c["name"] or "", json.dumps(c["args"], ensure_ascii=False))
            for c in gathered.tool_calls
        ]
        invalid = gathered.invalid_tool_calls
        calls += [Call(c["id"] or "", c["name"] or "", c["args"] or "") for c in invalid]
        error = None
        if invalid:
            error = "invalid_tool_calls: " + "; ".join(
                c["error"] or f"arguments of {c['name']!r} do not parse" for c in invalid
            )
        return Assembled(calls=tuple(calls), error=error)

    def _message_chunk(self, delta: Mapping[str, Any]) -> Any:
        tool_call_chunks = []
        if raw_tool_calls := delta.get("tool_calls"):
            with contextlib.suppress(KeyError):
                tool_call_chunks = [
                    self._tool_call_chunk(
                        name=raw["function"].get("name"),
                        args=raw["function"].get("arguments"),
                        id=raw.get("id"),
                        index=raw["index"],
                    )
                    for raw in raw_tool_calls
                ]
        return self._message(
            content=delta.get("content") or "",
            id=delta.get("id"),
            tool_call_chunks=tool_call_chunks,
        )
