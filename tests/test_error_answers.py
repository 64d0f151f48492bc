"""An HTTP error answer comes out as the provider's own message, not as a broken stream.

Each answer is served by a real server on 127.0.0.1 and read through httpx exactly as the
README's examples read a stream, with and without the status passed to the library.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

import toolcall
from toolcall import ProviderError, StreamError, UsageError
from toolcall.harness import background

ROOT = Path(__file__).resolve().parent.parent
RATE_LIMIT = b'{"error": {"message": "simulated rate limit", "type": "rate_limit_exceeded"}}'
BAD_KEY = (
    b'{"error": {"message": "Incorrect API key provided: sk-no****.", '
    b'"type": "invalid_request_error", "param": null, "code": "invalid_api_key"}}\n'
)
SERVER_ERROR = b'{"error": {"message": "The server had an error while processing your request."}}\n'
GATEWAY_PAGE = (
    b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
    b"<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n"
    b"</body>\r\n</html>\r\n"
)
STREAM = (
    b'data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}\n\n'
    b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
    b"data: [DONE]\n\n"
)

# path -> (status, content type, body)
ANSWERS: dict[str, tuple[int, str, bytes]] = {
    "/401": (401, "application/json", BAD_KEY),
    "/429": (429, "application/json", RATE_LIMIT),
    "/500": (500, "application/json", SERVER_ERROR),
    "/502": (502, "text/html", GATEWAY_PAGE),
    "/503-empty": (503, "text/plain", b""),
    "/gemini-400": (
        400,
        "application/json",
        b'[{"error": {"code": 400, "message": "API key not valid.", '
        b'"status": "INVALID_ARGUMENT"}}]',
    ),
    "/200": (200, "text/event-stream", STREAM),
}
#: Two wire cases whose turns fill the README's lines for custom calls and server tools.
WIRE_CASES = {
    "/responses-custom": "responses/synthesized_responses_custom_tool_call.sse",
    "/anthropic-web-search": "anthropic/synthesized_anthropic_web_search.sse",
}
for _path, _case in WIRE_CASES.items():
    _body = (ROOT / "cassettes" / "wires" / _case).read_bytes()
    ANSWERS[_path] = (200, "text/event-stream", _body)


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        status, content_type, body = ANSWERS[self.path]
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    """A server on 127.0.0.1 for this module's tests, stopped when they end."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.timeout = 5
    with background.running(server):
        yield f"http://127.0.0.1:{server.server_address[1]}"


def post(url: str, *, status: bool) -> toolcall.Turn:
    """The README's ten lines: the body as httpx streams it, the status passed or not."""
    with httpx.Client(timeout=10) as client, client.stream("POST", url, json={}) as response:
        code = response.status_code if status else None
        return toolcall.assemble(response.iter_bytes(), status=code)


@pytest.mark.parametrize(
    ("path", "message", "code"),
    [
        ("/401", "Incorrect API key provided: sk-no****.", "invalid_api_key"),
        ("/429", "simulated rate limit", "rate_limit_exceeded"),
        ("/500", "The server had an error while processing your request.", None),
        ("/502", "502 Bad Gateway", None),
        ("/gemini-400", "API key not valid.", "400"),
    ],
)
def test_an_error_answer_is_a_provider_error_with_the_status_and_the_message(
    base_url: str, path: str, message: str, code: str | None
) -> None:
    status = ANSWERS[path][0]
    with pytest.raises(ProviderError) as info:
        post(base_url + path, status=True)
    assert info.value.status == status
    assert str(info.value) == f"the provider answered HTTP {status}: {message}"
    assert info.value.code == code


def test_an_empty_error_answer_says_so_with_its_status(base_url: str) -> None:
    with pytest.raises(ProviderError) as info:
        post(base_url + "/503-empty", status=True)
    assert info.value.status == 503
    assert str(info.value) == "the provider answered HTTP 503 and an empty body"


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/401", "Incorrect API key provided: sk-no****."),
        ("/429", "simulated rate limit"),  # no final newline: was "ended in the middle of a line"
        ("/500", "The server had an error while processing your request."),
        ("/502", "502 Bad Gateway"),  # was "the stream ended without a finish_reason"
    ],
)
def test_without_the_status_an_error_answer_still_carries_the_providers_message(
    base_url: str, path: str, message: str
) -> None:
    """A JSON document or an HTML page never becomes a stream; its words are the message."""
    with pytest.raises(ProviderError) as info:
        post(base_url + path, status=False)
    assert info.value.status is None
    assert str(info.value).endswith(f": {message}")


def test_without_the_status_an_empty_body_says_how_to_see_more(base_url: str) -> None:
    with pytest.raises(StreamError, match=r"^the body is empty .*pass its status"):
        post(base_url + "/503-empty", status=False)


def test_a_stream_with_a_success_status_assembles_as_before(base_url: str) -> None:
    turn = post(base_url + "/200", status=True)
    assert (turn.content, turn.finish_reason) == ("Hi", "stop")


def test_the_event_forms_raise_the_same_provider_error(base_url: str) -> None:
    """iter_events and TurnBuilder: nothing is made of the body; finish() raises."""
    with httpx.Client(timeout=10) as client:
        limited = client.stream("POST", base_url + "/429", json={})
        expected = pytest.raises(ProviderError, match="HTTP 429: simulated rate limit")
        with limited as response, expected:
            list(toolcall.iter_events(response.iter_bytes(), status=response.status_code))
        with client.stream("POST", base_url + "/502", json={}) as response:
            builder = toolcall.TurnBuilder(status=response.status_code)
            assert [e for data in response.iter_bytes() for e in builder.feed(data)] == []
            with pytest.raises(ProviderError, match="HTTP 502: 502 Bad Gateway"):
                builder.finish()


def test_the_async_forms_take_the_status_too(base_url: str) -> None:
    async def read() -> None:
        async with (
            httpx.AsyncClient(timeout=10) as client,
            client.stream("POST", base_url + "/401", json={}) as response,
        ):
            await toolcall.assemble_async(response.aiter_bytes(), status=response.status_code)

    with pytest.raises(ProviderError, match="HTTP 401: Incorrect API key"):
        asyncio.run(read())


def test_toolcall_serve_faults_reach_the_caller_as_their_message() -> None:
    """`toolcall serve`'s simulated 429 and its 404 listing the scenarios, read as a user would."""
    from toolcall.harness import serving
    from toolcall.harness.suite.profiles import load_suite

    with serving.serving(load_suite(ROOT)) as running, httpx.Client(timeout=10) as client:
        url = running.url("openai") + "/chat/completions"
        faulted = client.stream(
            "POST", url, json={"stream": True}, headers={"X-Toolcall-Fault": "429"}
        )
        with faulted as response, pytest.raises(ProviderError, match="HTTP 429: ") as info:
            toolcall.assemble(response.iter_bytes(), status=response.status_code)
        assert info.value.status == 429
        unknown = {"X-Toolcall-Scenario": "no_such_scenario"}
        asked = client.stream("POST", url, json={"stream": True}, headers=unknown)
        refused = pytest.raises(ProviderError, match="HTTP 404: unknown scenario")
        with asked as response, refused as info:
            toolcall.assemble(response.iter_bytes(), status=response.status_code)
        assert "parallel_calls" in str(info.value)


@pytest.mark.parametrize("status", [True, 99, 600, "429", 429.0])
def test_a_status_that_is_not_one_is_the_callers_mistake(status: object) -> None:
    with pytest.raises(UsageError, match="status must be an HTTP status"):
        toolcall.TurnBuilder(status=status)  # type: ignore[arg-type]


def test_a_stream_whose_text_begins_like_json_is_still_a_stream() -> None:
    """Only a body that never became a stream is read as an answer: a stream is unaffected
    however its first bytes are split, and a long error page is cut, not kept whole."""
    body = STREAM
    for cut in range(len(body)):
        turn = toolcall.assemble([body[:cut], body[cut:]], status=200)
        assert turn.content == "Hi"
    page = b"<html><body>" + b"x" * 200_000 + b"</body></html>"
    with pytest.raises(ProviderError) as info:
        toolcall.assemble([page[:7], page[7:]], status=502)
    assert len(str(info.value)) < 400


def test_the_readme_examples_check_the_status(base_url: str) -> None:
    """The ten lines, run as printed: an error answer stops them with its status and message."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ten_lines = readme.split("## The library in ten lines", 1)[1].split("```python\n", 1)[1]
    code = ten_lines.split("```", 1)[0]
    streaming = readme.split("## Streaming:", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    assert "status=response.status_code" in code and "status=response.status_code" in streaming
    namespace = {"url": base_url + "/429", "request": {}, "auth": {}}
    with pytest.raises(ProviderError) as info:
        exec(compile(code, "README.md", "exec"), namespace)
    assert (info.value.status, info.value.code) == (429, "rate_limit_exceeded")


def ten_lines() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return (
        readme.split("## The library in ten lines", 1)[1]
        .split("```python\n", 1)[1]
        .split("```", 1)[0]
    )


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        ("/200", ["Hi", "[]"]),
        ("/responses-custom", ["call_synth_1 code_exec import math"]),
        ("/anthropic-web-search", ["[('server_tool_use', 'web_search')]", "example.com"]),
    ],
)
def test_the_readme_ten_lines_print_the_turn(
    base_url: str, path: str, shown: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The ten lines, run as printed on a sound answer, show what the turn holds: its text, a
    custom tool's raw input and the tools the provider ran itself."""
    namespace = {"url": base_url + path, "request": {}, "auth": {}}
    exec(compile(ten_lines(), "README.md", "exec"), namespace)
    printed = capsys.readouterr().out
    for words in shown:
        assert words in printed
