"""The README's every-wire examples, run as printed against recordings served on 127.0.0.1.

The blocks are executed as they stand, with only the environment the providers' SDKs read
(`OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`, ...) pointing at a local server. The server answers
each wire's own path with a published recording of that wire and keeps what it was sent, so the
request bodies the README shows are checked to be each wire's own shape, not only the answers.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from toolcall.harness import background
from toolcall.harness.reading.wires import WIRE_PATHS
from toolcall.harness.suite.cassettes import CHAT
from toolcall.harness.suite.recordings import discover

ROOT = Path(__file__).resolve().parents[2]
#: The path ending each wire is asked at, and the recording that answers it.
BODIES = {
    "/v1/responses": "fantasy_responses_gpt-4o_multi_tool",
    "/v1/messages": "fantasy_claude-sonnet-4_multi_tool",
    ":streamGenerateContent": "fantasy_gemini-2.5-flash_multi_tool",
    "/api/chat": "fantasy_ollama-cloud_gpt-oss-20b_api-chat_tool",
}
SECTION = (ROOT / "README.md").read_text(encoding="utf-8").split("## Every wire", 1)[1]
SECTION = SECTION.split("\n## ", 1)[0]


def readme_blocks() -> list[str]:
    blocks = re.findall(r"```python\n(.+?)```", SECTION, re.DOTALL)
    assert len(blocks) == 2, "the README's every-wire examples moved"
    return blocks


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class Server:
    base: str
    received: list[Received] = field(default_factory=list)


@contextlib.contextmanager
def serving() -> Iterator[Server]:
    """A local server answering each wire's path with its recording, in small writes, and
    a 404 for any other path."""
    by_name = {r.name: r for r in discover(ROOT / "cassettes") if r.wire != CHAT}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            path = self.path.split("?")[0]
            headers = {k.lower(): v for k, v in self.headers.items()}
            server.received.append(Received(self.path, headers, json.loads(raw)))
            found = [name for ending, name in BODIES.items() if path.endswith(ending)]
            if not found:
                self.send_error(404)
                return
            recording = by_name[found[0]]
            body = recording.body()
            self.send_response(200)
            self.send_header("Content-Type", WIRE_PATHS[recording.wire].content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            for at in range(0, len(body), 61):
                self.wfile.write(body[at : at + 61])
                self.wfile.flush()

        def log_message(self, *args: Any) -> None:
            pass

    http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    http.timeout = 10
    server = Server(f"http://127.0.0.1:{http.server_address[1]}")
    with background.running(http):
        yield server


def _environment(monkeypatch: pytest.MonkeyPatch, base: str) -> None:
    for name, value in {
        "OPENAI_BASE_URL": base + "/v1",
        "OPENAI_API_KEY": "not-an-openai-key",
        "ANTHROPIC_BASE_URL": base,
        "ANTHROPIC_API_KEY": "not-an-anthropic-key",
        "GEMINI_BASE_URL": base,
        "GEMINI_API_KEY": "not-a-gemini-key",
        "OLLAMA_HOST": base,
    }.items():
        monkeypatch.setenv(name, value)


def _run(block: str) -> list[str]:
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(block, "README.md", "exec"), {"__name__": "readme"})
    return printed.getvalue().splitlines()


def test_the_readme_assembles_every_wire_in_the_same_lines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with serving() as server:
        _environment(monkeypatch, server.base)
        printed = _run(readme_blocks()[0])
    assert printed == [
        "call_NnEvpiwdL8XrZ6F3T9VJyVw7 add {'a': 2, 'b': 3}",
        "call_TQ8336oa6YnuT2leYzRDBBLz multiply {'a': 2, 'b': 3}",
        "completed tool_calls",
        "toolu_01UYxUYC2zRPY8wiutnF48eP add {'a': 2, 'b': 3}",
        "toolu_01VaRx1jpWCvPhi7L4kywAcd multiply {'a': 2, 'b': 3}",
        "tool_use tool_calls",
        " add {'b': 3, 'a': 2}",  # Gemini 2.5 sends no call id
        " multiply {'a': 2, 'b': 3}",
        "STOP tool_calls",
        # The recording answered another question; served as it was, whatever was asked.
        "call_ytevilpe weather {'location': 'Florence, Italy'}",
        "stop tool_calls",
    ]


def test_each_request_of_the_readme_is_its_wires_own(monkeypatch: pytest.MonkeyPatch) -> None:
    with serving() as server:
        _environment(monkeypatch, server.base)
        _run(readme_blocks()[0])
    responses, anthropic, gemini, ollama = server.received
    assert responses.path == "/v1/responses"
    assert responses.headers["authorization"] == "Bearer not-an-openai-key"
    assert responses.body["stream"] is True and isinstance(responses.body["input"], str)
    assert [(t["type"], t["name"]) for t in responses.body["tools"]] == [
        ("function", "add"),
        ("function", "multiply"),
    ]
    assert all("parameters" in t for t in responses.body["tools"])
    assert anthropic.path == "/v1/messages" and anthropic.headers["x-api-key"]
    assert anthropic.headers["anthropic-version"] == "2023-06-01"
    assert anthropic.body["max_tokens"] > 0 and anthropic.body["messages"][0]["role"] == "user"
    assert all(set(t) == {"name", "description", "input_schema"} for t in anthropic.body["tools"])
    assert gemini.path.endswith(":streamGenerateContent?alt=sse")
    assert gemini.path.startswith("/v1beta/models/") and gemini.headers["x-goog-api-key"]
    (declarations,) = [t["functionDeclarations"] for t in gemini.body["tools"]]
    assert [d["name"] for d in declarations] == ["add", "multiply"]
    assert gemini.body["contents"][0]["parts"][0]["text"]
    assert ollama.path == "/api/chat" and ollama.body["stream"] is True
    assert [t["function"]["name"] for t in ollama.body["tools"]] == ["add", "multiply"]


@pytest.mark.slow
def test_the_readme_gets_the_raw_bytes_from_the_openai_and_anthropic_sdks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("openai")
    pytest.importorskip("anthropic")
    with serving() as server:
        _environment(monkeypatch, server.base)
        printed = _run(readme_blocks()[1])
    assert printed == ["completed ['add', 'multiply']", "tool_use ['add', 'multiply']"]
    responses, anthropic = server.received
    assert responses.path == "/v1/responses" and responses.body["stream"] is True
    assert responses.headers["authorization"] == "Bearer not-an-openai-key"
    assert anthropic.path == "/v1/messages" and anthropic.body["stream"] is True
    # The key goes as `x-api-key`, or as a bearer token in the SDK's later releases.
    sent = anthropic.headers.get("x-api-key", "") + anthropic.headers.get("authorization", "")
    assert "not-an-anthropic-key" in sent, anthropic.headers
