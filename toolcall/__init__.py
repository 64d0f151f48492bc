"""toolcall: streamed tool-call fragments from OpenAI-compatible chat APIs in, complete calls out.

The public surface is small and re-exported here; the modules behind it are private. The library
needs only the standard library; `toolcall.schema` (tool parameter validation) needs jsonschema,
and the optional `fast` extra (orjson) halves the cost of decoding chunks.
"""

from ._assembler import Assembler
from ._diagnostics import CODES as DIAGNOSTIC_CODES
from ._diagnostics import Diagnostic
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
from ._sse import SSEDecoder
from ._stream import Turn, TurnBuilder, assemble, assemble_async
from ._types import Delta, ToolCall, ToolCallFunction
from ._validation import parse_arguments

__all__ = [
    "DIAGNOSTIC_CODES",
    "ArgumentsError",
    "Assembler",
    "Delta",
    "Diagnostic",
    "LimitExceeded",
    "ProviderError",
    "SSEDecoder",
    "SchemaError",
    "StreamError",
    "ToolCall",
    "ToolCallError",
    "ToolCallFunction",
    "TruncatedError",
    "Turn",
    "TurnBuilder",
    "UsageError",
    "assemble",
    "assemble_async",
    "parse_arguments",
]

__version__ = "0.1.0"
