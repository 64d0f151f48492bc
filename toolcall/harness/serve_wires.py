"""`toolcall serve` on the other wires: each answered at its real path from the wire recordings.

An SDK for the Responses API, Anthropic's Messages API, Gemini's own API or Ollama posts to the
path its provider serves, so that is where it is answered:

- `POST /v1/responses` (or `/responses`, as DeepSeek's base URL puts it): the Responses API;
- `POST /v1/messages`: Anthropic's Messages API;
- `POST /v1beta/models/{model}:streamGenerateContent?alt=sse`: Gemini's own API, as an event
  stream; without `alt=sse` (or with `alt=json`) Gemini answers one JSON array instead, so
  that request is answered by a recording of that framing, and each framing only by its own;
- `POST /api/chat`: Ollama's, newline-delimited JSON (`application/x-ndjson`).

The recording is the one `X-Toolcall-Scenario: wires/<wire>/<name>` names, else the first one
the provider of a path prefix (`/<provider>/v1/responses`, a provider or `wire_only` key of
providers.yaml) offers on that wire in the framing asked for. Its body is written one event per
write (one line for Ollama, one array element with the separator after it for Gemini's JSON
array), as the provider flushes them. Faults are served on chat completions only: a keep-alive
comment or a cut mid-event means something else on each wire, and no recording shows one yet.

Kept apart from `serve`, whose request handling it only joins at the door: `serve`'s handler
calls `answer` for a path `wire_of` recognises.
"""

from __future__ import annotations

import re
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import SplitResult, parse_qs

from .profiles import Suite
from .serve_input import Refused, invalid
from .wire_recordings import JSON_ARRAY, PREFIX, Recording, discover

_API_ROOTS = ("v1", "v1beta", "api", "responses")
#: Where an event ends (any of the three line ends, twice: Gemini's API sends CRLF), and a line.
_BLANK_LINE = re.compile(rb"(\r\n\r\n|\n\n|\r\r)")
_LINE_END = re.compile(rb"(\r?\n)")
#: Where an element of Gemini's JSON array ends: the comma and CRLF that follow it.
_ELEMENT_END = re.compile(rb"(\n,\r\n)")


def wire_of(path: str) -> str | None:
    """The wire a request path is for, or None for a path that is not one of theirs."""
    segments = [s for s in path.split("/") if s]
    if not segments:
        return None
    if segments[-1] == "responses":
        return "responses"
    if segments[-2:] == ["v1", "messages"]:
        return "anthropic"
    if segments[-1].endswith(":streamGenerateContent") and "models" in segments[:-1]:
        return "gemini"
    if segments[-2:] == ["api", "chat"]:
        return "ollama"
    return None


def provider_of(path: str) -> str | None:
    """The provider a path prefix names (`/<provider>/v1/messages`), if any."""
    segments = [s for s in path.split("/") if s]
    return segments[0] if len(segments) > 1 and segments[0] not in _API_ROOTS else None


class NoRecording(LookupError):
    """No wire recording answers this request; the message says what is known."""


def recording_for(
    suite: Suite, wire: str, provider: str | None, scenario: str | None, *, array: bool = False
) -> Recording:
    """The recording a request on `wire` asks for, by name or by its path's provider; `array`
    when it asks Gemini for its JSON array rather than an event stream."""
    offers = [o for o in suite.wire_offers if o.wire == wire]
    by_name = {r.name: r for r in discover(suite.cassettes) if r.wire == wire}
    known = sorted(f"{PREFIX}{wire}/{name}" for name in by_name)
    if provider is not None and provider not in {o.provider for o in suite.wire_offers}:
        providers = sorted({o.provider for o in suite.wire_offers})
        raise NoRecording(f"unknown provider {provider!r}; the wires are offered by {providers}")
    if scenario:
        name = scenario.removeprefix(f"{PREFIX}{wire}/")
        if not scenario.startswith(PREFIX) or name not in by_name:
            raise NoRecording(f"no {wire} recording {scenario!r} on this path; known: {known}")
        if provider is not None and not any(
            o.provider == provider and name in o.recordings for o in offers
        ):
            raise NoRecording(f"{scenario} is not a recording of {provider}'s {wire} wire")
        found = by_name[name]
        if found.array != array:
            asked = "without ?alt=sse" if found.array else "with ?alt=sse"
            raise NoRecording(f"{scenario} is answered to a request {asked}")
        return found
    if provider is None:
        raise NoRecording(
            f"name the recording in X-Toolcall-Scenario ({known}) or the provider as the "
            "path's first segment (/<provider>/...)"
        )
    names = [n for o in offers if o.provider == provider for n in o.recordings]
    fitting = [n for n in names if by_name[n].array == array]
    if not fitting:
        framing = " as a JSON array" if array else ""
        raise NoRecording(f"{provider} has no {wire} recording{framing}; known: {known}")
    return by_name[fitting[0]]


def pieces(recording: Recording) -> list[bytes]:
    """The body cut where the provider flushes: after each blank line, each NDJSON line, or
    each element of Gemini's JSON array."""
    framing = recording.source["framing"]
    ends = {"ndjson": _LINE_END, JSON_ARRAY: _ELEMENT_END}.get(framing, _BLANK_LINE)
    parts = ends.split(recording.body())
    out = [text + end for text, end in zip(parts[::2], parts[1::2], strict=False)]
    if parts[-1]:
        out.append(parts[-1])
    return out


def _alt(url: SplitResult) -> str:
    """The `alt` a Gemini request gives (its framing), "" when none."""
    return parse_qs(url.query).get("alt", [""])[-1]


def request_problem(wire: str, url: SplitResult, request: Any) -> str | None:
    """Why a request on `wire` is not a streamed one this server answers, or None."""
    if not isinstance(request, dict):
        return "the body is not a JSON object"
    if wire == "gemini":
        alt = _alt(url)
        if alt not in ("sse", "json", ""):
            return (
                f"?alt={alt} is neither framing of :streamGenerateContent: ?alt=sse (an event "
                "stream) or no alt (a JSON array)"
            )
        return None
    if wire == "ollama":
        return None if request.get("stream", True) is True else "only streamed requests are served"
    return None if request.get("stream") is True else "only streamed requests are served"


def answer(
    handler: BaseHTTPRequestHandler,
    url: SplitResult,
    suite: Suite | None,
    wire: str,
    request: Any,
) -> None:
    """Answer one POST on `wire` (its body already read and checked by serve): the recording
    streamed, or a `Refused` naming the problem, which serve answers as every refusal."""
    headers = {k.lower(): v for k, v in handler.headers.items()}
    if headers.get("x-toolcall-fault"):
        raise invalid("faults are served on chat completions only")
    problem = request_problem(wire, url, request)
    if problem is not None:
        raise invalid(problem)
    if suite is None:
        raise Refused(
            404, "not_found", "this server only serves registered bodies (X-Toolcall-Body)"
        )
    try:
        recording = recording_for(
            suite,
            wire,
            provider_of(url.path),
            headers.get("x-toolcall-scenario"),
            array=wire == "gemini" and _alt(url) != "sse",
        )
    except NoRecording as exc:
        raise Refused(404, "not_found", str(exc)) from None
    _stream(handler, recording)


def _stream(handler: BaseHTTPRequestHandler, recording: Recording) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", f"{recording.content_type}; charset=utf-8")
    handler.send_header("Cache-Control", "no-cache")
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    try:
        for piece in pieces(recording):
            handler.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
            handler.wfile.flush()
        handler.wfile.write(b"0\r\n\r\n")
        handler.wfile.flush()
    except (BrokenPipeError, ConnectionResetError):
        handler.close_connection = True
