"""The README's every-wire example, run as written against two published recordings over HTTP."""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from toolcall.harness import background
from toolcall.harness.recordings import discover

ROOT = Path(__file__).resolve().parents[1]
BODIES = {
    "/v1/responses": "fantasy_responses_gpt-4o_multi_tool",
    "/v1/messages": "fantasy_claude-sonnet-4_multi_tool",
}


def readme_example() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Every wire, the same ten lines", 1)[1]
    block = re.search(r"```python\n(.+?)```", section, re.DOTALL)
    assert block is not None, "the README's every-wire example moved"
    return block.group(1)


@contextlib.contextmanager
def serving() -> Iterator[str]:
    """A local server answering each path with its recording's body, in small writes."""
    by_name = {r.name: r for r in [r for r in discover(ROOT / "cassettes") if r.wire != "chat"]}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            body = by_name[BODIES[self.path]].body()
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            for at in range(0, len(body), 61):
                self.wfile.write(body[at : at + 61])
                self.wfile.flush()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.timeout = 10
    with background.running(server):
        yield f"http://127.0.0.1:{server.server_address[1]}"


def test_the_readme_assembles_a_responses_and_an_anthropic_stream_in_the_same_lines() -> None:
    with serving() as base:
        namespace: dict[str, Any] = {
            "openai_responses": (
                base + "/v1/responses",
                {"model": "gpt-4o", "stream": True},
                {"Authorization": "Bearer not-a-key"},
            ),
            "anthropic_messages": (
                base + "/v1/messages",
                {"model": "claude-sonnet-4", "stream": True},
                {"x-api-key": "not-a-key"},
            ),
        }
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(readme_example(), "README.md", "exec"), namespace)
    assert printed.getvalue().splitlines() == [
        "call_NnEvpiwdL8XrZ6F3T9VJyVw7 add {'a': 2, 'b': 3}",
        "call_TQ8336oa6YnuT2leYzRDBBLz multiply {'a': 2, 'b': 3}",
        "completed  None",
        "toolu_01UYxUYC2zRPY8wiutnF48eP add {'a': 2, 'b': 3}",
        "toolu_01VaRx1jpWCvPhi7L4kywAcd multiply {'a': 2, 'b': 3}",
        "tool_use I'll add and multiply the numbers 2 and 3 for you. None",
    ]
