"""What people capture, as one answer: its body as byte chunks, status, headers, request.

A user brings whatever their tool wrote: the body `curl -N` printed, the same with the status
line and headers of `curl -i` or the transcript of `curl -v`, a gzip file, a HAR file a browser
or a proxy exported, a vcrpy or go-vcr cassette, or standard input. Each is opened (`opening`,
`documents`) into one `Capture`, so that the rest of the doctor never asks where the bytes came
from.

A raw body is never read whole: `Capture.chunks()` reads it from the file as it is consumed
(decompressing on the way), so a capture of gigabytes costs a window of memory. A HAR file or a
cassette is one document and is parsed whole; one larger than `opening.MAX_DOCUMENT` is refused
rather than parsed.
"""

from __future__ import annotations

import base64
import gzip
import json
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml

from ..recording import scrub, secrets
from ..suite.cassettes import SAFE_LOADER

GZIP_MAGIC = b"\x1f\x8b"
#: Headers whose values are credentials, whatever they hold: never printed.
SECRET_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "x-api-key",
        "api-key",
        "x-goog-api-key",
        "cookie",
        "set-cookie",
        "openai-organization",
        "openai-project",
    }
)


class CaptureError(Exception):
    """The capture cannot be read: the message is the one line the user sees."""


@dataclass
class Capture:
    """One answer as captured: its body (`chunks()`, from the start each time it is called),
    and what the capture kept around it."""

    source: str
    #: How it was captured: "body", "curl -i", "curl -v", "HAR entry 3", "vcrpy cassette"...
    form: str
    chunks: Callable[[], Iterator[bytes]]
    status: int | None = None
    headers: list[tuple[str, str]] = field(default_factory=list)
    url: str | None = None
    method: str | None = None
    request: dict[str, Any] | None = None
    compressed: bool = False

    def __post_init__(self) -> None:
        # A URL may carry a key (Gemini's `?key=`, userinfo): it is kept without them.
        if self.url:
            self.url = scrub.url(self.url)

    def shown_headers(self) -> list[tuple[str, str]]:
        """The headers as they may be printed: credentials replaced, whatever their name."""
        return [(k, shown_header(k, v)) for k, v in self.headers]


def shown_header(name: str, value: str) -> str:
    """A header's value fit to print: a credential header's never, any other's masked."""
    if name.lower() in SECRET_HEADERS:
        return "<REDACTED>"
    return secrets.mask(value)


def body_of(text: object, encoding: object = None) -> bytes:
    """A body as a HAR or a cassette keeps it: text, base64 text, or bytes."""
    if isinstance(text, bytes):
        data = text
    elif isinstance(text, str):
        data = base64.b64decode(text) if encoding == "base64" else text.encode("utf-8")
    else:
        data = b""
    if data.startswith(GZIP_MAGIC):
        try:
            data = gzip.decompress(data)
        except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
            raise CaptureError(f"the gzip body is truncated or corrupt ({exc})") from None
    return data


def json_request(text: object) -> dict[str, Any] | None:
    """A request body as JSON, when it is one object; else None."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if not isinstance(text, str) or not text.strip():
        return None
    try:
        found = json.loads(text)
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def load_yaml(name: str, data: bytes) -> Any:
    try:
        return yaml.load(data, Loader=SAFE_LOADER)  # the safe loader
    except yaml.YAMLError as exc:
        raise CaptureError(
            f"{name}: not a readable cassette ({str(exc).splitlines()[0]})"
        ) from None
