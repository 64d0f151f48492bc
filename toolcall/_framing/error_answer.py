"""An HTTP error answer read for the provider's own words.

A chat API that refuses a request (401, 429, a 5xx) answers with a JSON error object, a gateway's
HTML page, plain text or nothing, never an event stream. Read as SSE such a body only says that it
"ended in the middle of a line" or "without a finish_reason", and the provider's message (the
rate limit, the bad key) is lost; so the builder keeps the start of a body until it has shown
itself to be a stream, and reads it here when it has not, or when the caller said the status was
an error.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

from .._errors import ProviderError, shown

#: How much of an error answer is kept: error bodies are small, and a long page is cut.
ERROR_BODY_BYTES = 64 * 1024
_MESSAGE_CHARS = 300
_TITLE = re.compile(rb"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")


#: Where an error answer's JSON puts its message, besides `error` (FastAPI's `detail`, the
#: `msg` of Chinese providers' gateways, a bare `message`).
_MESSAGE_KEYS = ("message", "detail", "msg")


def looks_like_an_answer(head: bytes | bytearray) -> bool:
    """A body that begins as a JSON document or a markup page cannot be an SSE stream: no SSE
    field name starts with `{`, `[` or `<` on any provider."""
    return head.removeprefix(b"\xef\xbb\xbf").lstrip()[:1] in (b"{", b"[", b"<")


def is_error_document(first: Any) -> bool:
    """Whether `first`, a body's first JSON document where the framing makes each line or
    element one (NDJSON, a JSON array), is an error answer rather than an event: an object
    whose message sits at the top as text (`detail`, `msg`, `message`) and which no wire's
    event has (an `error` object is read by each wire's reader, which names it), or a list
    that begins with one."""
    if type(first) is list and first and type(first[0]) is dict:
        return "error" in first[0] or is_error_document(first[0])  # Google's list of one
    if type(first) is not dict or "error" in first:
        return False
    return any(type(first.get(key)) is str for key in _MESSAGE_KEYS)


def error_answer(body: bytes, status: int | None) -> ProviderError:
    """The `ProviderError` for an error answer's body (`status` None: not known to the caller)."""
    said = f"HTTP {status}" if status is not None else "with an error instead of an event stream"
    text = body.decode("utf-8", errors="replace").lstrip("\ufeff").strip()
    if not text:
        return ProviderError(f"the provider answered {said} and an empty body", status=status)
    payload, message, code = _read(body, text)
    return ProviderError(
        f"the provider answered {said}: {message}", code=code, payload=payload, status=status
    )


def _read(body: bytes, text: str) -> tuple[Any, str, str | None]:
    """(the parsed document or None, the message, the error code or type)."""
    if text[0] in "{[":
        try:
            document = json.loads(text)
        except (ValueError, RecursionError):
            document = None
        if document is not None:
            message, code = _from_document(document)
            return document, message, code
    if text[0] == "<":
        title = _TITLE.search(body)
        words = title.group(1).decode("utf-8", errors="replace") if title else _TAG.sub(" ", text)
        return None, _cut(html.unescape(" ".join(words.split()))) or _cut(text), None
    return None, _cut(" ".join(text.split())), None


def _from_document(document: Any) -> tuple[str, str | None]:
    """OpenAI's `{"error": {"message", "type", "code"}}`, Gemini's list of one, `{"error": "..."}`,
    and the `message` / `detail` of other servers; anything else is quoted."""
    first = document[0] if type(document) is list and document else document
    error = first.get("error", first) if type(first) is dict else first
    if type(error) is str:
        return _cut(error), None
    if type(error) is not dict:
        return shown(document), None
    message = next(
        (error[key] for key in (*_MESSAGE_KEYS, "status") if type(error.get(key)) is str),
        None,
    )
    code = next(
        (error[key] for key in ("code", "type", "status") if error.get(key) not in (None, "")),
        None,
    )
    return (
        _cut(message) if message is not None else shown(error),
        None if code is None else code if type(code) is str else shown(code),
    )


def _cut(text: str) -> str:
    return text if len(text) <= _MESSAGE_CHARS else text[: _MESSAGE_CHARS - 1] + "…"
