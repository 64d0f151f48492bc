"""An SDK's own HTTP client answering every request with one recorded body, in this process.

The wire SDKs are fed as their users feed them: the user's call goes through the SDK's request
building, HTTP client, SSE reader and accumulator, and only the socket is replaced, by the HTTP
library's `MockTransport` returning the recording's bytes. Each SDK is built on its own HTTP
library (httpx, or a fork of it with the same API in later releases, which refuses a client of
the other), so the transport is taken from the library the SDK's default client derives from.
"""

from __future__ import annotations

import importlib
from typing import Any

from . import Unavailable

SSE = "text/event-stream"


def http_library(default_client: type) -> Any:
    """The httpx-like module `default_client` (an SDK's `DefaultHttpxClient`) is built on."""
    for base in default_client.__mro__:
        module = base.__module__.split(".")[0]
        if base.__name__ == "Client" and module.startswith("httpx"):
            return importlib.import_module(module)
    raise Unavailable(f"{default_client.__qualname__} is not built on an httpx client")


def answering(library: Any, body: bytes, content_type: str = SSE) -> Any:
    """A `library.Client` whose every request gets `200` and `body`, and nothing else."""

    def answer(request: Any) -> Any:
        return library.Response(200, headers={"content-type": content_type}, content=body)

    return library.Client(transport=library.MockTransport(answer))
