"""Implementations of streamed tool-call assembly, checked against the suite side by side.

An implementation is anything that takes one stream and returns the calls it assembled (or says
the stream was bad): our own library (the reference), the accumulators and SDKs users rely on
today (the openai SDK, langchain-core, litellm, the anthropic and google-genai SDKs), the
JavaScript clients, and any program in any language that speaks the implementation protocol
(`external`). They share one interface, `Implementation`: a name, a version, the wires it reads,
and `assemble(stream)`. A `Stream` carries everything a reader of any kind may want, on every
wire alike: the wire, the body as the client received it, its decoded events (on chat, the
chunks), the request, and where it is served over HTTP when a client must fetch it from a given
place (a gateway). The matrix, the gateways, the benchmark and the pytest plugin hand streams to
implementations this one way, and a peer that is not installed is reported as unavailable with
its reason rather than breaking the run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Protocol

from ..reading.wires import objects
from ..suite.cassettes import CHAT as CHAT

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


@dataclass(frozen=True)
class Served:
    """Where a stream is served over HTTP: the base URL a client is pointed at and the headers
    it sends (a gateway's URL, or `toolcall serve` with the token of a registered body)."""

    base_url: str
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Stream:
    """One stream as an implementation is handed it, whatever its wire.

    `body` is the bytes as the client received them; `events` their decoded JSON objects in order
    (the `data:` payloads of an SSE body without `[DONE]`, the lines of Ollama's NDJSON, the
    elements of Gemini's JSON array), for a reader that does not parse, decoded on first use by
    the harness's one reader (`wires.objects`; `wires.UnreadableBody` for a body that does not
    decode); `chunks` is the chat wire's name for the same list. `served`, when set, is where
    an HTTP client must fetch the body (through a gateway, say); when it is None a client is
    served the body by the harness (`serving`).
    `case` is the id of the suite's case it is (`case.Case`), "" for a stream that is none, so a
    program can be told which stream it is on.
    """

    wire: str
    body: bytes
    request: Mapping[str, Any]
    served: Served | None = None
    case: str = ""

    @cached_property
    def events(self) -> list[dict[str, Any]]:
        return objects(self.wire, self.body)

    @classmethod
    def decoded(
        cls, wire: str, body: bytes, request: Mapping[str, Any], events: list[dict[str, Any]]
    ) -> Stream:
        """A stream whose events the caller decoded already (the benchmark times a peer from
        the payloads, as its SDK holds them after its own SSE reader)."""
        stream = cls(wire, body, request)
        stream.__dict__["events"] = events  # where `cached_property` keeps its value
        return stream

    @property
    def chunks(self) -> list[dict[str, Any]]:
        """The chat chunks; asking them of another wire's stream is a mistake said loudly."""
        if self.wire != CHAT:
            raise ValueError(
                f"a stream of the {self.wire} wire has no chat chunks: read .events or .body"
            )
        return self.events


class Implementation(Protocol):
    """The one interface of every implementation: in process, a program, or an HTTP client."""

    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...

    @property
    def wires(self) -> tuple[str, ...]:
        """The wires it reads: the matrix gives it only the rows of these."""
        ...

    def assemble(self, stream: Stream) -> Assembled:
        """Assemble one stream; `stream.request` is the request body (its `tools` among others)."""
        ...


def reads(implementation: Implementation, wire: str, framing: str = "") -> bool:
    """Whether `implementation` has a column on a row of `wire`. A row in another framing than
    its wire's usual one (`framing`: Gemini's JSON array, which an SDK never receives, since it
    asks for `alt=sse`) goes only to an implementation naming that framing in its `framings`: a
    verdict on a body it is never sent would say nothing about it."""
    if wire not in implementation.wires:
        return False
    return not framing or framing in getattr(implementation, "framings", ())


class Unavailable(Exception):
    """The implementation cannot run here (its package is not installed, or fails to import)."""


Factory = Callable[[], Implementation]


#: The entry-point group through which implementations are found, ours and anyone's.
GROUP = "toolcall.implementations"
REFERENCE = "toolcall"


def builtin() -> dict[str, Factory]:
    """Every implementation registered in the `toolcall.implementations` entry-point group, by the
    name the matrix shows: the reference first, the others by name. Another package adds its
    assembler to the matrix by declaring an entry point there, without touching this one."""
    found = {entry.name: entry for entry in entry_points(group=GROUP)}
    if REFERENCE not in found:
        raise RuntimeError(
            f"no {GROUP!r} entry points: toolcall is not installed (pip install -e '.[harness]')"
        )
    names = [REFERENCE, *sorted(name for name in found if name != REFERENCE)]
    return {name: _loader(found[name]) for name in names}


def _loader(entry: EntryPoint) -> Factory:
    """A factory that imports the entry point only when the implementation is wanted, so a
    broken third-party package is one unavailable column, not a broken run."""

    def make() -> Implementation:
        try:
            factory = entry.load()
        except Exception as exc:  # any import failure of someone else's package
            raise Unavailable(f"cannot load {entry.value}: {type(exc).__name__}: {exc}") from None
        implementation: Implementation = factory()
        return implementation

    return make


def first_line(text: str, limit: int = 160) -> str:
    """The first line of a message, cut to fit one cell of a report."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."
