"""One reader per wire, and the rule that tells a wire from its first event.

Every reader turns its wire's events into the same few operations on the wire-neutral core (see
`_base.WireReader`); the chat completions reader is `ChunkReader`, the library's first and
fastest. `detect` decides from the first event alone, and only where one wire can have sent it.
"""

from __future__ import annotations

from typing import Any

from .._errors import UsageError, shown
from ._base import WireReader
from .anthropic import AnthropicReader
from .gemini import GeminiReader
from .ollama import OllamaReader
from .responses import ResponsesReader

WIRES = ("chat", "responses", "anthropic", "gemini", "ollama")
READERS: dict[str, type[WireReader]] = {
    "responses": ResponsesReader,
    "anthropic": AnthropicReader,
    "gemini": GeminiReader,
    "ollama": OllamaReader,
}
_ANTHROPIC_EVENTS = {
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
    "ping",
}


def check_wire(wire: object) -> str:
    """`wire` as passed to the builder: one of `WIRES`, or "auto"."""
    if wire == "auto" or wire in WIRES:
        return str(wire)
    raise UsageError(f"wire must be 'auto' or one of {', '.join(WIRES)}; got {shown(wire)}")


def detect(first: Any) -> str:
    """The wire of an SSE stream whose first event decoded to `first`.

    Chat completions is the answer for its own chunks and for anything no other wire sends (its
    reader then says what is wrong with it). An `error` event is refused: the Responses and the
    Anthropic wire both begin a failed stream with one, in shapes that overlap.
    """
    if type(first) is not dict:
        return "chat"
    kind = first.get("type")
    if type(kind) is str:
        if kind.startswith("response."):
            return "responses"
        if kind in _ANTHROPIC_EVENTS:
            return "anthropic"
        if kind == "error":
            raise UsageError(
                "the stream begins with an error event, which the Responses and the Anthropic "
                f"wires both send ({shown(first)}): pass wire='responses' or wire='anthropic'"
            )
    if "candidates" in first or "usageMetadata" in first or "promptFeedback" in first:
        return "gemini"
    return "chat"


__all__ = ["READERS", "WIRES", "WireReader", "check_wire", "detect"]
