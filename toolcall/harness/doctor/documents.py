"""Captures that are documents of many exchanges: a HAR file, a vcrpy or a go-vcr cassette.

Each holds requests and answers side by side; the doctor wants the one streamed answer. An
exchange is streamed when its answer says so (an event-stream or NDJSON content type), its
request asked for a stream (`"stream": true`, `alt=sse`, `:streamGenerateContent`), or its body
reads like one; one without a body is no use (a browser that did not keep it). One such exchange
is taken; several are listed, and `--entry N` picks one by its place in the file.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..recording import scrub
from .capture import Capture, CaptureError, body_of, json_request, load_yaml

_STREAM_TYPES = ("event-stream", "ndjson", "x-json-stream", "jsonl")


@dataclass
class Exchange:
    """One request and its answer, as a document keeps them."""

    number: int
    method: str
    url: str
    status: int | None
    headers: list[tuple[str, str]]
    body: bytes
    request_body: object = None
    request_headers: list[tuple[str, str]] = field(default_factory=list)

    @property
    def streamed(self) -> bool:
        kind = next((v for k, v in self.headers if k.lower() == "content-type"), "")
        request = json_request(self.request_body)
        asked = bool(request and request.get("stream") is True) or any(
            mark in self.url for mark in ("alt=sse", ":streamGenerateContent", "/api/chat")
        )
        start = self.body.lstrip()[:6]
        looks = start.startswith((b"data:", b"event:", b": "))
        return bool(self.body.strip()) and (
            any(t in kind.lower() for t in _STREAM_TYPES) or asked or looks
        )

    def line(self) -> str:
        status = "" if self.status is None else f" -> {self.status}"
        return f"{self.number}: {self.method} {self.url}{status}"


def har_capture(name: str, data: bytes, entry: int | None) -> Capture:
    """The streamed entry of a HAR file (`log.entries`)."""
    try:
        document = json.loads(data)
        entries = document["log"]["entries"]
        if not isinstance(entries, list):
            raise TypeError("log.entries is not a list")
        exchanges = [_har_exchange(number, e) for number, e in enumerate(entries)]
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise CaptureError(f"{name}: not a readable HAR file ({exc})") from None
    return _chosen(name, "HAR", exchanges, entry)


def _har_exchange(number: int, entry: Mapping[str, Any]) -> Exchange:
    request, response = entry["request"], entry["response"]
    content = response.get("content") or {}
    post = request.get("postData") or {}
    return Exchange(
        number,
        str(request.get("method", "")),
        str(request.get("url", "")),
        _int(response.get("status")),
        _pairs(response.get("headers") or []),
        body_of(content.get("text"), content.get("encoding")),
        post.get("text"),
        _pairs(request.get("headers") or []),
    )


def _pairs(headers: object) -> list[tuple[str, str]]:
    """Headers as a HAR lists them ([{name, value}]) or a cassette maps them (name: [values])."""
    if isinstance(headers, list):
        return [(str(h.get("name", "")), str(h.get("value", ""))) for h in headers]
    if isinstance(headers, Mapping):
        found = []
        for key, values in headers.items():
            for value in values if isinstance(values, list) else [values]:
                found.append((str(key), str(value)))
        return found
    return []


def _int(value: object) -> int | None:
    """An HTTP status, or None for anything else a document may hold there."""
    if isinstance(value, int) and not isinstance(value, bool) and 100 <= value <= 599:
        return value
    return None


def cassette_capture(name: str, data: bytes, entry: int | None) -> Capture:
    """The streamed interaction of a vcrpy cassette or a go-vcr one (version 1 or 2): told
    apart by the request's `uri` (vcrpy) or `url` (go-vcr)."""
    document = load_yaml(name, data)
    interactions = document.get("interactions") if isinstance(document, Mapping) else None
    if not isinstance(interactions, list):
        raise CaptureError(f"{name}: a cassette without a list of interactions")
    try:
        exchanges = [_interaction(number, i) for number, i in enumerate(interactions)]
    except (KeyError, TypeError, AttributeError) as exc:
        raise CaptureError(f"{name}: not a readable cassette ({exc})") from None
    kind = "go-vcr cassette" if _go_shaped(interactions) else "vcrpy cassette"
    return _chosen(name, kind, exchanges, entry)


def _go_shaped(interactions: list[Any]) -> bool:
    first = interactions[0] if interactions else {}
    return isinstance(first, Mapping) and "url" in (first.get("request") or {})


def _interaction(number: int, interaction: Mapping[str, Any]) -> Exchange:
    request, response = interaction["request"], interaction["response"]
    body = response.get("body")
    if isinstance(body, Mapping):  # vcrpy: {string: ...}
        body = body.get("string")
    status = response.get("status")
    code = status.get("code") if isinstance(status, Mapping) else response.get("code")
    return Exchange(
        number,
        str(request.get("method", "")),
        str(request.get("uri") or request.get("url") or ""),
        _int(code),
        _pairs(response.get("headers") or {}),
        body_of(body),
        request.get("body"),
        _pairs(request.get("headers") or {}),
    )


def _chosen(name: str, kind: str, exchanges: list[Exchange], entry: int | None) -> Capture:
    streamed = [e for e in exchanges if e.streamed]
    if entry is not None:
        if not 0 <= entry < len(exchanges):
            raise CaptureError(f"{name}: --entry {entry}: the {kind} has {len(exchanges)} entries")
        chosen = exchanges[entry]
        if not chosen.body.strip():
            raise CaptureError(f"{name}: entry {entry} of the {kind} has no body")
    elif len(streamed) == 1:
        chosen = streamed[0]
    elif not streamed:
        raise CaptureError(
            f"{name}: none of the {kind}'s {len(exchanges)} entries is a streamed answer with "
            "its body (was the body kept when it was exported?)"
        )
    else:
        listed = "; ".join(e.line() for e in streamed)
        raise CaptureError(
            f"{name}: {len(streamed)} streamed entries ({listed}): pick one with --entry N"
        )
    body = chosen.body
    where = f"{kind} entry {chosen.number}"
    capture = Capture(name, where, lambda: iter([body]), chosen.status, chosen.headers)
    capture.url = scrub.url(chosen.url) if chosen.url else None
    capture.method = chosen.method or None
    capture.request = json_request(chosen.request_body)
    return capture
