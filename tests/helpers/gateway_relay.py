"""A small gateway for the tests: forwards every path to an upstream, optionally rewriting.

Events pass byte for byte unless a rewrite applies to them.

It stands in for the real gateways (which `make test` never installs) and does on purpose what
they were measured doing: drop request fields it does not know (Portkey), insert `index: 0` into
index-less calls, drop comments, add `[DONE]` and rewrite usage (LiteLLM), keep the client waiting
after an upstream cut (openai-forward) or end the answer cleanly there (Portkey). With no rewrite
it is the transparent forwarder the README's "check your gateway" recipe asks for. Standard
library only, on 127.0.0.1, stopped by the test.
"""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from toolcall.harness import background


@dataclass(frozen=True)
class Rewrites:
    drop_request_fields: tuple[str, ...] = ()
    insert_index: bool = False
    drop_comments: bool = False
    add_done: bool = False
    hang_on_cut: float = 0.0  # seconds to keep the client waiting after the upstream broke
    close_on_cut: bool = False  # end the answer cleanly after the upstream broke
    usage_total: int | None = None  # rewrite every usage's total_tokens to this
    empty_200: bool = False  # answer a stream with status 200 and no body (Portkey's deepseek)


class _Handler(BaseHTTPRequestHandler):
    server: _Relay
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        rewrites = self.server.rewrites
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        request = json.loads(raw or b"{}")
        for name in rewrites.drop_request_fields:
            request.pop(name, None)
        upstream = http.client.HTTPConnection(self.server.upstream_host, self.server.upstream_port)
        upstream.request(
            "POST",
            self.path,
            body=json.dumps(request).encode(),
            headers={"Content-Type": "application/json"},
        )
        answer = upstream.getresponse()
        if answer.status != 200:
            data = answer.read()
            self.send_response(answer.status)
            self.send_header("Content-Type", answer.getheader("Content-Type") or "text/plain")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if rewrites.empty_200:
            self.wfile.write(b"0\r\n\r\n")
            return
        saw_done = False
        try:
            for event in _events(answer):
                if event.startswith(b":") and rewrites.drop_comments:
                    continue
                saw_done = saw_done or event.strip() == b"data: [DONE]"
                self._chunk(_rewrite(event, rewrites))
        except (http.client.HTTPException, OSError):
            if rewrites.hang_on_cut:
                time.sleep(rewrites.hang_on_cut)
            if rewrites.close_on_cut:
                self.wfile.write(b"0\r\n\r\n")
                return
            self.close_connection = True
            return
        if rewrites.add_done and not saw_done:
            self._chunk(b"data: [DONE]\n\n")
        self.wfile.write(b"0\r\n\r\n")

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


def _events(answer: http.client.HTTPResponse) -> Iterator[bytes]:
    """The upstream body cut after each blank line; `read1` raises `IncompleteRead` when the
    upstream drops the connection mid-body, which is how a cut is noticed."""
    pending = b""
    while True:
        data = answer.read1(65536)
        if not data:
            if pending:
                yield pending
            return
        pending += data
        while b"\n\n" in pending:
            event, pending = pending.split(b"\n\n", 1)
            yield event + b"\n\n"


def _rewrite(event: bytes, rewrites: Rewrites) -> bytes:
    changes = rewrites.insert_index or rewrites.usage_total is not None
    if not changes or not event.startswith(b"data: {"):
        return event
    chunk = json.loads(event[len(b"data: ") :])
    for choice in chunk.get("choices") or []:
        for call in (choice.get("delta") or {}).get("tool_calls") or []:
            if rewrites.insert_index:
                call.setdefault("index", 0)
    if rewrites.usage_total is not None and chunk.get("usage"):
        chunk["usage"]["total_tokens"] = rewrites.usage_total
    return b"data: " + json.dumps(chunk).encode() + b"\n\n"


class _Relay(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, upstream: str, rewrites: Rewrites) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        parts = urlsplit(upstream)
        self.upstream_host = parts.hostname or "127.0.0.1"
        self.upstream_port = parts.port or 80
        self.rewrites = rewrites


@contextmanager
def relaying(upstream: str, rewrites: Rewrites = Rewrites()) -> Iterator[str]:
    """A relay to `upstream` (scheme, host and port; the path is the client's), as its URL."""
    with background.running(_Relay(upstream, rewrites)) as relay:
        yield f"http://127.0.0.1:{relay.server_address[1]}"
