"""Our own library as one implementation among the others, fed exactly as the peers are.

It reads the body every other implementation is handed, with the wire named, so a difference
between it and a peer is never a difference of input. The expectation each cell is judged by is
computed from the cassette's own bytes (see `matrix`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import toolcall

from ..reading.wires import JSON_ARRAY, NAMES
from . import Assembled, Call, Chunk, Stream


def sse_body(chunks: Sequence[Chunk]) -> bytes:
    """The chunks as an SSE body: one `data:` event each, then `[DONE]`."""
    events = [f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n" for chunk in chunks]
    return ("".join(events) + "data: [DONE]\n\n").encode("utf-8")


class Reference:
    name = "toolcall"
    version = f"toolcall {toolcall.__version__}"
    wires = NAMES
    framings = (JSON_ARRAY,)

    def assemble(self, stream: Stream) -> Assembled:
        try:
            turn = toolcall.assemble(stream.body, wire=stream.wire)
        except toolcall.ToolCallError as exc:
            return Assembled(error=f"{type(exc).__name__}: {exc}")
        return Assembled(
            calls=tuple(
                Call(call.id, call.function.name, call.function.arguments)
                for call in turn.tool_calls
            )
        )
