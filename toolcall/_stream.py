"""The whole flow in one object: body bytes in, a finished and validated turn out.

`TurnBuilder` is sans-IO like the pieces it joins (SSE decoder, chunk reader, assembler): the
caller owns the socket and hands over bytes as they arrive, split anywhere. `assemble` and
`assemble_async` are the one-call forms for a whole body or an (async) iterator of byte chunks.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Iterable
from dataclasses import dataclass
from typing import Any

from ._assembler import DEFAULT_MAX_ARGUMENT_CHARS, DEFAULT_MAX_CALLS, Assembler
from ._chunks import ChunkReader
from ._diagnostics import Diagnostic
from ._errors import StreamError, TruncatedError, UsageError
from ._json import backend
from ._sse import SSEDecoder
from ._types import ToolCall
from ._validation import parse_arguments

_WINDOW = 64 * 1024


@dataclass(frozen=True, slots=True)
class Turn:
    """One finished assistant turn.

    `arguments[i]` is `tool_calls[i].function.arguments` already parsed (validation parsed it
    anyway; parsing twice would waste the caller's time). `diagnostics` names every quirk the
    stream showed and every repair made, so nothing was changed silently.
    """

    tool_calls: tuple[ToolCall, ...]
    arguments: tuple[dict[str, Any], ...]
    finish_reason: str | None
    usage: dict[str, Any] | None
    content: str
    reasoning: str
    diagnostics: tuple[Diagnostic, ...]

    def to_dict(self) -> dict[str, Any]:
        """The turn as JSON-ready data; arguments stay text, exactly as the wire assembled them."""
        return {
            "tool_calls": [call.to_dict() for call in self.tool_calls],
            "finish_reason": self.finish_reason,
            "usage": self.usage,
            "content": self.content,
            "reasoning": self.reasoning,
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }


class TurnBuilder:
    """Feed body bytes as they arrive; `finish()` at end of body returns the validated `Turn`."""

    def __init__(
        self,
        *,
        json_backend: str = "auto",
        max_calls: int = DEFAULT_MAX_CALLS,
        max_argument_chars: int = DEFAULT_MAX_ARGUMENT_CHARS,
    ) -> None:
        self._sse = SSEDecoder()
        self._assembler = Assembler(max_calls=max_calls, max_argument_chars=max_argument_chars)
        self._reader = ChunkReader(self._assembler, backend(json_backend))

    def feed(self, data: bytes) -> None:
        """Take the next slice of the HTTP body (any size, including empty).

        A large slice (a whole replayed body) is worked through in windows: decoding megabytes
        of events into one list first is slower than the JSON itself, while a window stays in
        the processor's cache.
        """
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise UsageError(f"feed() takes bytes, not {type(data).__name__}")
        if len(data) <= _WINDOW:
            self._reader.read(self._sse.feed(data))
            return
        view = memoryview(data)
        for start in range(0, len(data), _WINDOW):
            self._reader.read(self._sse.feed(bytes(view[start : start + _WINDOW])))

    def finish(self) -> Turn:
        """End of body: flush, then check every call. Raises the library's errors only."""
        self._reader.read(self._sse.close())
        reader = self._reader
        assembler = self._assembler
        orphans = assembler.nameless()
        if orphans:
            index, fragment = orphans[0]
            raise StreamError(
                f"arguments {fragment[:40]!r} arrived for a call that never got a name",
                index=index,
            )
        calls = assembler.complete()
        diagnostics = assembler.diagnostics  # read after complete(): it may record a repair
        finish_reason = reader.finish_reason
        if finish_reason is not None and not isinstance(finish_reason, str):
            raise StreamError(f"finish_reason must be a string, got {finish_reason!r}")
        truncated = None
        if finish_reason == "length":
            truncated = "finish_reason is 'length'"
        elif finish_reason is None:
            truncated = "the stream ended without a finish_reason"
        arguments = tuple(parse_arguments(call, truncated=truncated) for call in calls)
        if truncated:
            if calls:
                # The call opened last may be a nameless one complete() left out.
                last_index = assembler.last_call_index()
                last = next((c for c in calls if c.index == last_index), calls[-1])
                raise TruncatedError(
                    f"{truncated}: the call may be cut off",
                    index=last.index,
                    call_id=last.id or None,
                    name=last.function.name,
                )
            if finish_reason is None:
                raise StreamError("the stream ended without a finish_reason (cut off?)")
        if finish_reason == "stop" and calls:
            diagnostics.append(
                Diagnostic("stop_with_tool_calls", "finish_reason 'stop' with tool calls")
            )
        if self._sse.comments:
            diagnostics.append(
                Diagnostic("sse_comment", f"{len(self._sse.comments)} SSE comment line(s)")
            )
        if not reader.done:
            diagnostics.append(Diagnostic("done_absent", "no 'data: [DONE]' before the end"))
        if self._sse.unterminated_final_event:
            diagnostics.append(
                Diagnostic("unterminated_final_event", "no blank line after the last event")
            )
        return Turn(
            tool_calls=tuple(calls),
            arguments=arguments,
            finish_reason=finish_reason,
            usage=reader.usage,
            content="".join(reader.content),
            reasoning="".join(reader.reasoning),
            diagnostics=tuple(diagnostics),
        )


def assemble(body: bytes | Iterable[bytes], **options: Any) -> Turn:
    """Assemble a whole body, or an iterator of byte chunks (`httpx.Response.iter_bytes()`)."""
    builder = TurnBuilder(**options)
    if isinstance(body, (bytes, bytearray, memoryview)):
        builder.feed(bytes(body))
    else:
        for piece in body:
            _check_bytes(piece)
            builder.feed(piece)
    return builder.finish()


async def assemble_async(body: AsyncIterable[bytes], **options: Any) -> Turn:
    """Assemble from an async iterator of byte chunks (`httpx.Response.aiter_bytes()`)."""
    builder = TurnBuilder(**options)
    async for piece in body:
        _check_bytes(piece)
        builder.feed(piece)
    return builder.finish()


def _check_bytes(piece: object) -> None:
    if not isinstance(piece, bytes):
        raise UsageError(f"the body must be bytes, got a chunk of {type(piece).__name__}")
