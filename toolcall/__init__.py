"""toolcall: streamed tool-call fragments from OpenAI-compatible chat APIs in, complete calls out.

The same `Turn` comes from the other wires the providers stream calls on: OpenAI's Responses API,
Anthropic's Messages API, Gemini's `streamGenerateContent` and Ollama's `/api/chat` (`wire=`).

The public surface is small and re-exported here; the modules behind it are private. The library
needs only the standard library; `toolcall.schema` (tool parameter validation) needs jsonschema,
and the optional `fast` extra (orjson) halves the cost of decoding chunks.
"""

from ._assembler import Assembler
from ._calls.call_types import Delta, ServerToolCall, ToolCall, ToolCallFunction
from ._errors import (
    ArgumentsError,
    LimitExceeded,
    ProviderError,
    SchemaError,
    StreamError,
    ToolCallError,
    TruncatedError,
    UsageError,
)
from ._framing.sse import SSEDecoder
from ._stream import TurnBuilder, aiter_events, assemble, assemble_async, iter_events
from ._turn.diagnostics import CODES as DIAGNOSTIC_CODES
from ._turn.diagnostics import Diagnostic
from ._turn.events import (
    ArgumentsDelta,
    Event,
    ReasoningDelta,
    TextDelta,
    ToolCallDone,
    ToolCallStarted,
    TurnDone,
)
from ._turn.finish_reasons import finish_kind
from ._turn.partial_arguments import ArgumentsChange, PartialArguments
from ._turn.turn import Turn, UnsoundTurnError
from ._turn.validation import parse_arguments

__all__ = [
    "DIAGNOSTIC_CODES",
    "ArgumentsChange",
    "ArgumentsDelta",
    "ArgumentsError",
    "Assembler",
    "Delta",
    "Diagnostic",
    "Event",
    "LimitExceeded",
    "PartialArguments",
    "ProviderError",
    "ReasoningDelta",
    "SSEDecoder",
    "SchemaError",
    "ServerToolCall",
    "StreamError",
    "TextDelta",
    "ToolCall",
    "ToolCallDone",
    "ToolCallError",
    "ToolCallFunction",
    "ToolCallStarted",
    "TruncatedError",
    "Turn",
    "TurnBuilder",
    "TurnDone",
    "UnsoundTurnError",
    "UsageError",
    "aiter_events",
    "assemble",
    "assemble_async",
    "finish_kind",
    "iter_events",
    "parse_arguments",
]

# What the caller sees is `toolcall.Turn`, not the private module it happens to live in: in
# tracebacks, reprs, documentation and pickles. The modules behind it may move freely.
for _name in __all__:
    _public = globals()[_name]
    if getattr(_public, "__module__", "").startswith("toolcall._"):
        _public.__module__ = __name__
del _name, _public

__version__ = "0.1.0"
