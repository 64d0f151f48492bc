"""`toolcall serve` as the gateways' upstream: streams chosen by path, requests kept.

Gateways drop headers they do not know, so the stream (scenario or published recording) and the
fault are named in the URL path: `/<provider>/<target>/v1` and `/<provider>/<target>/<fault>/v1`.
Every request serve receives is kept, so the judge can compare it with what the client sent.
"""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from .. import serve
from ..profiles import Suite

_FAULTS = frozenset(serve.FAULTS)


def route_path(provider: str, target: str, fault: str | None) -> str:
    """The base path (ending in `/v1`) on serve that answers with `target`, faulted or not."""
    return f"/{provider}/{target}" + (f"/{fault}" if fault else "") + "/v1"


@dataclass
class Upstream:
    running: serve.Running
    received: list[dict[str, Any]] = field(default_factory=list)

    @property
    def base_url(self) -> str:
        return self.running.base_url


class _Handler(serve._Handler):
    def do_POST(self) -> None:
        segments = [s for s in self.path.split("?")[0].split("/") if s]
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        try:
            keep: dict[str, Any] = json.loads(body or b"{}")
        except ValueError:
            keep = {}
        _kept(self.server).append(keep)
        if len(segments) >= 5 and segments[-3:] == ["v1", "chat", "completions"]:
            provider, middle = segments[0], segments[1:-3]
            fault = middle[-1] if middle and middle[-1] in _FAULTS else None
            target = "/".join(middle[:-1] if fault else middle)
            self.headers["X-Toolcall-Scenario"] = target
            if fault:
                self.headers["X-Toolcall-Fault"] = fault
            self.path = f"/{provider}/v1/chat/completions"
        self.rfile = io.BytesIO(body)
        super().do_POST()


_LISTS: dict[int, list[dict[str, Any]]] = {}
_LOCK = threading.Lock()


def _kept(server: Any) -> list[dict[str, Any]]:
    with _LOCK:
        return _LISTS.setdefault(id(server), [])


@contextmanager
def serving(suite: Suite, *, port: int = 0) -> Iterator[Upstream]:
    running = serve.start(suite, port=port)
    running.server.RequestHandlerClass = _Handler
    try:
        yield Upstream(running, _kept(running.server))
    finally:
        serve.stop(running)
