"""Implementations of streamed tool-call assembly, checked against the suite side by side.

An implementation is anything that takes the decoded chunks of one stream, in order, and returns
the calls it assembled (or says the stream was bad): our own library (the reference), the
accumulators that the openai SDK, langchain-core and litellm users rely on today, and any program
in any language that speaks the subprocess protocol (`external`). They share one small interface
so that the matrix and the benchmark treat them all alike, and a peer that is not installed is
reported as unavailable with its reason rather than breaking the run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

Chunk = Mapping[str, Any]


@dataclass(frozen=True)
class Call:
    """One assembled call as its user would read it: arguments are the JSON text it holds."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class Assembled:
    """What an implementation made of a stream.

    `error` is set when the implementation itself reported the stream as bad (our
    `TruncatedError`, the SDK's `LengthFinishReasonError`, langchain's `invalid_tool_calls`):
    that is an answer, unlike an exception escaping `assemble`, which the matrix calls a crash.
    An implementation may report an error and still hand over calls, as langchain does.
    """

    calls: tuple[Call, ...] = ()
    error: str | None = None


class Implementation(Protocol):
    """The plug-in interface: a name, a version to print, and the assembly itself."""

    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...

    def assemble(self, chunks: Sequence[Chunk], request: Mapping[str, Any]) -> Assembled:
        """Assemble one stream; `request` is the request body (its `tools` among others)."""
        ...


class Unavailable(Exception):
    """The implementation cannot run here (its package is not installed, or fails to import)."""


Factory = Callable[[], Implementation]


def builtin() -> dict[str, Factory]:
    """The in-process implementations, reference first, by the name the matrix shows."""
    from . import http_clients, langchain_chunks, litellm_builder, openai_stream, reference

    return {
        "toolcall": reference.Reference,
        "openai-sdk": openai_stream.OpenAIStreamState,
        "openai-sdk-http": http_clients.OpenAIPythonHttp,
        "langchain-core": langchain_chunks.LangChainChunks,
        "litellm": litellm_builder.LiteLLMBuilder,
        "openai-node": http_clients.openai_node,
        "vercel-ai": http_clients.vercel_ai,
    }


def first_line(text: str, limit: int = 160) -> str:
    """The first line of a message, cut to fit one cell of a report."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."
