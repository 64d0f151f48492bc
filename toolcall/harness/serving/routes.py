"""Which path asks for what: the wires' request paths (`WIRE_PATHS`, the one table of them)
and what a chat completions path chooses (provider, scenario or published recording, fault).

Gateways drop headers they do not know, so everything a header chooses can also be chosen in
the path (the package's docstring shows the forms); what the path names wins over the headers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import SplitResult, parse_qs, unquote

from ..reading.wires import WIRE_PATHS  # the one table of wires (paths among their facts)
from ..suite import recordings
from ..suite.cassettes import CHAT

#: The transport faults a chat completions request may ask for (the package docstring says each).
FAULTS = ("cut", "429", "500", "drip", "keepalive")
FAULT_SEGMENT = "fault"


#: First segments that are an API root, not a provider's name.
_API_ROOTS = ("v1", "v1beta", "api", "responses")


#: Gemini's unstreamed method: the same path as its streamed one, `:generateContent` at the end.
GEMINI_UNSTREAMED = ":generateContent"


def wire_of(path: str) -> str | None:
    """The wire a request path is for, or None for a path that is no wire's."""
    segments = [unquote(s) for s in path.split("/") if s]
    if unstreamed_gemini(path):
        return "gemini"
    return next((wire for wire, at in WIRE_PATHS.items() if at.matches(segments)), None)


def unstreamed_gemini(path: str) -> bool:
    """Whether `path` asks Gemini for a whole answer (`models/<model>:generateContent`)."""
    segments = [unquote(s) for s in path.split("/") if s]
    return (
        len(segments) >= 2
        and segments[-2] == "models"
        and segments[-1].endswith(GEMINI_UNSTREAMED)
        and len(segments[-1]) > len(GEMINI_UNSTREAMED)
    )


def provider_of(path: str) -> str | None:
    """The provider a path prefix names on another wire (`/<provider>/v1/messages`), if any."""
    segments = [s for s in path.split("/") if s]
    return segments[0] if len(segments) > 1 and segments[0] not in _API_ROOTS else None


class BadRoute(ValueError):
    """A chat completions path whose segments name nothing this server knows how to choose."""


@dataclass(frozen=True)
class Route:
    """What a chat completions path chooses; `None` leaves the choice to headers and body."""

    provider: str | None
    scenario: str | None  # a scenario, or `published/<recording>`
    fault: str | None


def route(path: str) -> Route | None:
    """The choices `path` makes, or `None` for a path that is not `…/chat/completions`."""
    segments = [unquote(s) for s in path.split("/") if s]
    if not WIRE_PATHS[CHAT].matches(segments):
        return None
    prefix = segments[:-2]
    if prefix[-1:] == ["v1"]:
        prefix = prefix[:-1]
    fault = None
    if len(prefix) >= 2 and prefix[-2] == FAULT_SEGMENT:
        fault, prefix = prefix[-1], prefix[:-2]
    if not prefix:
        return Route(None, None, fault)
    provider, rest = prefix[0], prefix[1:]
    if not rest:
        return Route(provider, None, fault)
    if len(rest) == 1 and rest[0] not in (recordings.PUBLISHED, FAULT_SEGMENT):
        return Route(provider, rest[0], fault)
    if len(rest) == 2 and rest[0] == recordings.PUBLISHED:
        return Route(provider, f"{recordings.PUBLISHED}/{rest[1]}", fault)
    raise BadRoute(
        f"cannot read the path {path!r}: use /<provider>[/<scenario> | /published/<recording>]"
        f"[/fault/<fault>]/v1/chat/completions"
    )


def _alt(url: SplitResult) -> str:
    """The `alt` a Gemini request gives (its framing), "" when none."""
    return parse_qs(url.query).get("alt", [""])[-1]


def framing_asked(wire: str, url: SplitResult) -> str:
    """The framing a request asks for when not its wire's usual one: Gemini's JSON array
    without `?alt=sse` (on its streamed path), else ""."""
    if wire != "gemini" or unstreamed_gemini(url.path):
        return ""  # a whole answer is JSON whatever the recording's framing
    return recordings.JSON_ARRAY if _alt(url) != "sse" else ""


def wire_request_problem(wire: str, url: SplitResult, request: Any) -> str | None:
    """Why a request on another wire than chat is not a streamed one this server answers."""
    if not isinstance(request, dict):
        return "the body is not a JSON object"
    if wire == "gemini" and unstreamed_gemini(url.path):
        return None  # answered whole, as JSON: no framing to choose
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
