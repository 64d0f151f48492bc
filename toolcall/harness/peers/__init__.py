"""Implementations of streamed tool-call assembly, checked against the suite side by side.

An implementation is anything that takes the decoded chunks of one stream, in order, and returns
the calls it assembled (or says the stream was bad): our own library (the reference), the
accumulators that the openai SDK, langchain-core and litellm users rely on today, and any program
in any language that speaks the subprocess protocol (`external`). They share one small interface
so that the matrix and the benchmark treat them all alike, and a peer that is not installed is
reported as unavailable with its reason rather than breaking the run.

The other wires (Responses, Anthropic Messages, Gemini, Ollama) have their own SDKs, which read
a body, not chat chunks: a `WireImplementation` names the wires it reads and is handed each
recording's body as the API sends it. The reference is both kinds; a peer is the one it is, and
the matrix gives each only the rows of the wires it reads.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
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


#: The wire of chat completions, the one `Implementation.assemble` reads.
CHAT = "chat"


class WireImplementation(Protocol):
    """A reader of other wires: a name, a version, the wires it reads, and the assembly."""

    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...

    @property
    def wires(self) -> tuple[str, ...]: ...

    def assemble_wire(self, wire: str, body: bytes, request: Mapping[str, Any]) -> Assembled:
        """Assemble one body of `wire`, as the API sent it; `request` as for `assemble`."""
        ...


#: Anything the matrix can run.
Peer = Implementation | WireImplementation


def reads(peer: Peer, wire: str, framing: str = "") -> bool:
    """Whether `peer` has a column on `wire`'s rows. Asked of the class, not the instance: an
    external program's `version` is its handshake, which must not start it again.

    A row in another framing than its wire's usual one (`framing`: Gemini's JSON array, which
    an SDK never receives, since it asks for `alt=sse`) goes only to a peer naming that framing
    in its `framings`: a verdict on a body the peer is never sent would say nothing about it.
    """
    if wire == CHAT:
        return callable(getattr(type(peer), "assemble", None))
    wires = getattr(peer, "wires", ()) if hasattr(type(peer), "assemble_wire") else ()
    return wire in wires and (not framing or framing in getattr(peer, "framings", ()))


class Unavailable(Exception):
    """The implementation cannot run here (its package is not installed, or fails to import)."""


Factory = Callable[[], Peer]


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

    def make() -> Peer:
        try:
            factory = entry.load()
        except Exception as exc:  # any import failure of someone else's package
            raise Unavailable(f"cannot load {entry.value}: {type(exc).__name__}: {exc}") from None
        implementation: Peer = factory()
        return implementation

    return make


def first_line(text: str, limit: int = 160) -> str:
    """The first line of a message, cut to fit one cell of a report."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."
