"""Our own library as one implementation among the others, fed exactly as the peers are.

It receives the same decoded chunks, written back as an SSE body, so a difference between it and a
peer is never a difference of input. The expectation each cell is judged by is computed from the
cassette's own bytes (see `matrix`); this column shows that the chunk interface loses nothing.
On the other wires it reads the body every wire peer is handed, with the wire named.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import toolcall

from ..recordings import JSON_ARRAY
from . import CHAT, Assembled, Call, Chunk


def sse_body(chunks: Sequence[Chunk]) -> bytes:
    """The chunks as an SSE body: one `data:` event each, then `[DONE]`."""
    events = [f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n" for chunk in chunks]
    return ("".join(events) + "data: [DONE]\n\n").encode("utf-8")


class Reference:
    name = "toolcall"
    version = f"toolcall {toolcall.__version__}"
    wires = (CHAT, "responses", "anthropic", "gemini", "ollama")
    framings = (JSON_ARRAY,)

    def assemble(self, chunks: Sequence[Chunk], request: Mapping[str, Any]) -> Assembled:
        return self.assemble_wire(CHAT, sse_body(chunks), request)

    def assemble_wire(self, wire: str, body: bytes, request: Mapping[str, Any]) -> Assembled:
        try:
            turn = toolcall.assemble(body, wire=wire)
        except toolcall.ToolCallError as exc:
            return Assembled(error=f"{type(exc).__name__}: {exc}")
        return Assembled(
            calls=tuple(
                Call(call.id, call.function.name, call.function.arguments)
                for call in turn.tool_calls
            )
        )
