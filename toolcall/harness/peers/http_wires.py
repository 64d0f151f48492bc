"""A server on 127.0.0.1 answering one wire's path with one body, for an HTTP client under test.

It lives for one assembly, in this process, and answers anything but the wire's own path
(`/v1/responses`, `/v1/messages`, `:streamGenerateContent`, `/api/chat`) with a 404 naming the
path, so a client that calls the wrong endpoint is seen to. `serving` decides which path a wire
is answered at.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .. import background


@contextmanager
def answering(
    body: bytes, path_ending: str, content_type: str = "text/event-stream"
) -> Iterator[str]:
    """A server on 127.0.0.1 answering POSTs to a path ending in `path_ending` with `body`;
    yields its URL and stops when the block ends."""

    class Answer(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            path = self.path.split("?")[0]
            if path.endswith(path_ending):
                status, kind, content = 200, content_type, body
            else:
                message = {"error": {"message": f"{path} is not {path_ending}"}}
                status, kind = 404, "application/json"
                content = json.dumps(message).encode()
            self.send_response(status)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(content)))
            self.end_headers()
            self.wfile.write(content)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the matrix reports what the client made of the answer."""

    with background.running(ThreadingHTTPServer(("127.0.0.1", 0), Answer)) as server:
        yield f"http://127.0.0.1:{server.server_address[1]}"
