"""The wires in one table, and the one place that tells a body's framing and wire.

Each wire is a name, the framings it is sent in, and the reader of its events (`_base.
WireReader`), as h11 keeps its readers in one table: the builder looks a wire up here and names
none itself. Detection is here too, and only here: the framing from the body's first byte that
is not whitespace, then, where the framing leaves more than one wire, the wire from the first
event alone, and only where one wire can have sent it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from .._errors import UsageError, shown
from .._framing import json_array, ndjson, sse
from .._framing.json_array import JSONArrayDecoder
from .._framing.ndjson import NDJSONDecoder
from .._framing.sse import Span, SSEDecoder
from ._base import WireReader
from .anthropic import AnthropicReader
from .chat import ChatReader
from .gemini import GeminiReader
from .ollama import OllamaReader
from .responses import ResponsesReader

Decoder = SSEDecoder | NDJSONDecoder | JSONArrayDecoder


@dataclass(frozen=True, slots=True)
class Framing:
    """How a body is cut into events: the decoder, whether an event is a whole JSON document
    of the body itself (a line, an element), so that an error answer can look like one, and
    whether a relay may end the body with chat's `[DONE]` after any wire's end (SSE only: in
    a framing of documents, `[DONE]` is no document, and no server is known to send it).
    `spans` reads a whole body as its events with the bytes each came from, for a tool that
    keeps them (the harness); the builder never calls it."""

    decoder: Callable[..., Decoder]
    documents: bool
    spans: Callable[[bytes], Iterator[Span]]
    done_after_end: bool = False


@dataclass(frozen=True, slots=True)
class Wire:
    """A wire: the framings it is sent in (the first when the body does not say), its reader."""

    framings: tuple[str, ...]
    reader: type[WireReader]


FRAMINGS: dict[str, Framing] = {
    "sse": Framing(SSEDecoder, documents=False, spans=sse.spans, done_after_end=True),
    "ndjson": Framing(NDJSONDecoder, documents=True, spans=ndjson.spans),
    "json-array": Framing(JSONArrayDecoder, documents=True, spans=json_array.spans),
}
WIRES: dict[str, Wire] = {
    "chat": Wire(("sse",), ChatReader),
    "responses": Wire(("sse",), ResponsesReader),
    "anthropic": Wire(("sse",), AnthropicReader),
    "gemini": Wire(("sse", "json-array"), GeminiReader),
    "ollama": Wire(("ndjson",), OllamaReader),
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
_BOM = b"\xef\xbb\xbf"
_NOT_WHITESPACE = re.compile(rb"[^ \t\r\n]")
#: The first byte of a body (after a byte-order mark and whitespace) that names its framing.
_FIRST_BYTES = {b"{": "ndjson", b"[": "json-array"}


def check_wire(wire: object) -> str:
    """`wire` as passed to the builder: a name in `WIRES`, or "auto"."""
    if wire == "auto" or wire in WIRES:
        return str(wire)
    raise UsageError(f"wire must be 'auto' or one of {', '.join(WIRES)}; got {shown(wire)}")


def framing_of(wire: str, head: bytes | bytearray, since: int = 0) -> str | None:
    """The framing of a body that begins with `head`, read as `wire` ("auto" for any); None
    while `head` holds nothing but whitespace (after a byte-order mark). `head[:since]` is known
    to hold nothing else, and is not scanned again, unless it was the start of a mark: the
    body's framing is then told from its first byte, as when it came whole.

    `{` begins a line of newline-delimited JSON, `[` a JSON array; anything else is an SSE
    field. A wire not sent in the framing the body shows is read in its own first framing, and
    its decoder says what is wrong.
    """
    if len(head) < len(_BOM) and _BOM.startswith(head):
        return None  # perhaps a byte-order mark still arriving
    if since < len(_BOM) and _BOM.startswith(head[:since]):
        since = 0  # what was held was the start of a byte-order mark, and may not be one
    found = _NOT_WHITESPACE.search(head, max(since, len(_BOM) if head.startswith(_BOM) else 0))
    if found is None:
        return None
    framing = _FIRST_BYTES.get(found.group(), "sse")
    if wire == "auto" or framing in WIRES[wire].framings:
        return framing
    return WIRES[wire].framings[0]


def default_framing(wire: str) -> str:
    """The framing of a body that showed none (empty, or whitespace only)."""
    return "sse" if wire == "auto" else WIRES[wire].framings[0]


def wire_of(framing: str, first: Any) -> str:
    """The wire of an "auto" body in `framing` whose first event decoded to `first`.

    A framing only one wire is sent in names it. In SSE, chat completions is the answer for its
    own chunks and for anything no other wire sends (its reader then says what is wrong with it).
    An `error` event is refused: the Responses and the Anthropic wire both begin a failed stream
    with one, in shapes that overlap.
    """
    senders = [name for name, wire in WIRES.items() if framing in wire.framings]
    if len(senders) == 1:
        return senders[0]
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


__all__ = [
    "FRAMINGS",
    "WIRES",
    "Decoder",
    "Framing",
    "Span",
    "Wire",
    "WireReader",
    "check_wire",
    "default_framing",
    "framing_of",
    "wire_of",
]
