"""`toolcall serve` over real HTTP on 127.0.0.1, and the HTTP clients the matrix runs against it.

Every test talks to a real server through a real client: what a user in another language does.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

import toolcall
from toolcall.harness import serving
from toolcall.harness.peers import CHAT, Assembled, Stream, Unavailable, http_clients
from toolcall.harness.peers.external import Crashed
from toolcall.harness.suite import cassettes, recordings
from toolcall.harness.suite.profiles import load_suite

ROOT = Path(__file__).resolve().parent.parent
SUITE = load_suite(ROOT)


@pytest.fixture(scope="module")
def server() -> Iterator[serving.Running]:
    with serving.serving(SUITE) as running:
        yield running


def request_for(scenario: str, **extra: object) -> dict[str, object]:
    return {"model": "any", "stream": True, **SUITE.scenarios[scenario].request, **extra}


def cassette_body(provider: str, scenario: str) -> bytes:
    path = cassettes.cassette_path(SUITE.cassettes, provider, scenario)
    return cassettes.response_body(cassettes.load(path))


def post(server: serving.Running, provider: str, body: object, **headers: str) -> httpx.Response:
    url = server.url(provider) + "/chat/completions"
    with httpx.Client(timeout=10) as client:
        return client.post(url, json=body, headers=headers)


@pytest.mark.parametrize(
    ("provider", "scenario"),
    [("openai", "parallel_calls"), ("gemini", "parallel_calls"), ("qwen", "text_only")],
)
def test_serves_the_cassette_the_request_describes(
    server: serving.Running, provider: str, scenario: str
) -> None:
    response = post(server, provider, request_for(scenario))
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.content == cassette_body(provider, scenario)


def test_streams_one_event_per_write(server: serving.Running) -> None:
    pieces = []
    url = server.url("deepseek") + "/chat/completions"
    with httpx.stream("POST", url, json=request_for("single_call")) as response:
        pieces = list(response.iter_raw())
    body = cassette_body("deepseek", "single_call")
    assert b"".join(pieces) == body
    assert len(pieces) > 10  # not one blob: the client sees the stream arrive event by event


def test_scenario_and_published_recording_by_header(server: serving.Running) -> None:
    recording = recordings.discover(SUITE.cassettes, "qwen", wire="chat")[0]
    response = post(
        server,
        "qwen",
        {"stream": True, "messages": []},
        **{"X-Toolcall-Scenario": f"published/{recording.name}"},
    )
    assert response.status_code == 200
    assert response.content == cassettes.response_body(cassettes.load(recording.path))


def test_provider_by_header(server: serving.Running) -> None:
    url = server.base_url + "/v1/chat/completions"
    response = httpx.post(
        url, json=request_for("single_call"), headers={"X-Toolcall-Provider": "kimi"}
    )
    assert response.content == cassette_body("kimi", "single_call")


def test_rate_limit_and_server_error(server: serving.Running) -> None:
    limited = post(server, "openai", request_for("single_call"), **{"X-Toolcall-Fault": "429"})
    assert limited.status_code == 429
    assert limited.headers["retry-after"] == "1"
    assert limited.json()["error"]["type"] == "rate_limit_exceeded"
    failed = post(server, "openai", request_for("single_call"), **{"X-Toolcall-Fault": "500"})
    assert failed.status_code == 500


def test_cut_stream_drops_the_connection_mid_call(server: serving.Running) -> None:
    url = server.url("openai") + "/chat/completions?fault=cut"
    received = bytearray()
    with (
        pytest.raises(httpx.RemoteProtocolError),
        httpx.stream("POST", url, json=request_for("long_arguments")) as response,
    ):
        for piece in response.iter_raw():
            received += piece
    assert 0 < len(received) < len(cassette_body("openai", "long_arguments"))
    with pytest.raises(toolcall.StreamError):
        toolcall.assemble(bytes(received))


def test_keepalive_comments_change_nothing_for_a_correct_client(server: serving.Running) -> None:
    response = post(
        server, "grok", request_for("parallel_calls"), **{"X-Toolcall-Fault": "keepalive"}
    )
    assert response.content.count(b": keep-alive\n\n") >= 3
    plain = toolcall.assemble(cassette_body("grok", "parallel_calls"))
    commented = toolcall.assemble(response.content)
    assert commented.tool_calls == plain.tool_calls
    assert [d.code for d in commented.diagnostics] == ["sse_comment"]


def test_drip_still_delivers_everything(server: serving.Running) -> None:
    response = post(
        server,
        "glm",
        request_for("single_call"),
        **{"X-Toolcall-Fault": "drip", "X-Toolcall-Delay-Ms": "1"},
    )
    assert response.content == cassette_body("glm", "single_call")


@pytest.mark.parametrize(
    ("provider", "body", "headers", "status", "says"),
    [
        ("nobody", {"stream": True}, {}, 404, "unknown provider 'nobody'"),
        ("openai", {"stream": True, "messages": []}, {}, 404, "matches no scenario"),
        ("openai", {"stream": False}, {}, 400, "only streamed requests"),
        ("openai", {"stream": True}, {"X-Toolcall-Fault": "boom"}, 400, "unknown fault 'boom'"),
        (
            "openai",
            {"stream": True},
            {"X-Toolcall-Scenario": "tool_stream_call"},
            404,
            "does not apply",
        ),
        ("openai", {"stream": True}, {"X-Toolcall-Body": "feed"}, 404, "no registered body"),
    ],
)
def test_bad_requests_say_what_is_known(
    server: serving.Running,
    provider: str,
    body: dict[str, object],
    headers: dict[str, str],
    status: int,
    says: str,
) -> None:
    response = post(server, provider, body, **headers)
    assert response.status_code == status
    assert says in response.json()["error"]["message"]


def test_registered_body_is_served_by_token(server: serving.Running) -> None:
    token = server.catalogue.register(b"data: [DONE]\n\n")
    response = post(server, "any", {"stream": True}, **{"X-Toolcall-Body": token})
    assert response.content == b"data: [DONE]\n\n"
    server.catalogue.forget(token)
    assert post(server, "any", {"stream": True}, **{"X-Toolcall-Body": token}).status_code == 404


def test_the_python_openai_sdk_over_http() -> None:
    pytest.importorskip("openai")
    client = http_clients.OpenAIPythonHttp()
    request = request_for("parallel_calls")
    answer = client.assemble(Stream(CHAT, cassette_body("qwen", "parallel_calls"), request))
    assert [c.name for c in answer.calls] == ["get_weather", "get_weather"]
    assert [json.loads(c.arguments)["city"] for c in answer.calls] == ["Tokyo", "Paris"]
    missing_index = Stream(CHAT, cassette_body("gemini", "parallel_calls"), request)
    with pytest.raises(TypeError):  # the SDK's own bug on Gemini's index-less calls
        client.assemble(missing_index)


@pytest.mark.parametrize("factory", [http_clients.openai_node, http_clients.vercel_ai])
def test_javascript_clients_over_http(factory: object) -> None:
    try:
        client = factory()  # type: ignore[operator]
    except Unavailable as exc:
        pytest.skip(str(exc))
    request = request_for("parallel_calls")
    body = cassette_body("openai", "parallel_calls")
    try:
        answer: Assembled = client.assemble(Stream(CHAT, body, request))
        assert [json.loads(c.arguments)["city"] for c in answer.calls] == ["Tokyo", "Paris"]
        assert answer.error is None
        truncated = "".join(f"data: {x}\n\n" for x in _payloads(body)[:5]).encode()
        try:
            cut = client.assemble(Stream(CHAT, truncated, request))
        except Crashed as exc:
            assert "Error" in str(exc)
        else:
            assert cut.error is not None or len(cut.calls) < 2
    finally:
        client.close()  # type: ignore[attr-defined]


def _payloads(body: bytes) -> list[str]:
    return [
        line[len("data: ") :]
        for line in body.decode("utf-8").split("\n")
        if line.startswith("data: ") and line != "data: [DONE]"
    ]


def test_the_serve_command_answers_until_stopped() -> None:
    import subprocess
    import sys

    command = [sys.executable, "-m", "toolcall.harness.cli", "--root", str(ROOT), "serve"]
    process = subprocess.Popen(
        [*command, "--port", "0"], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.startswith("toolcall serve: http://127.0.0.1:"), first
        base = first.split()[2]
        response = httpx.post(
            f"{base}/openai/v1/chat/completions", json=request_for("single_call"), timeout=10
        )
        assert response.content == cassette_body("openai", "single_call")
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_the_readme_curl_example_works(server: serving.Running) -> None:
    import re
    import shlex
    import shutil
    import subprocess

    if shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    manual = (ROOT / "docs" / "HARNESS.md").read_text(encoding="utf-8")
    # The serve section's example: the one whose only command after serve is a curl.
    block = re.search(r"toolcall serve --port 8765 &\n(curl [^\n]+\n[^\n.]+?)\n```", manual)
    assert block is not None, "docs/HARNESS.md's serve example moved"
    command = block.group(1).replace("\\\n", " ").replace("127.0.0.1:8765", server.base_url[7:])
    done = subprocess.run(shlex.split(command), capture_output=True, timeout=30, check=False)
    assert done.returncode == 0
    assert done.stdout == cassette_body("gemini", "parallel_calls")


def post_path(server: serving.Running, path: str, body: object, **headers: str) -> httpx.Response:
    with httpx.Client(timeout=10) as client:
        return client.post(server.base_url + path, json=body, headers=headers)


@pytest.mark.parametrize(
    "path",
    [
        "/deepseek/parallel_calls/v1/chat/completions",
        "/deepseek/parallel_calls/chat/completions",
    ],
)
def test_scenario_in_the_path_needs_no_header(server: serving.Running, path: str) -> None:
    response = post_path(server, path, {"stream": True, "messages": []})
    assert response.status_code == 200
    assert response.content == cassette_body("deepseek", "parallel_calls")


def test_path_wins_over_header_and_body(server: serving.Running) -> None:
    response = post_path(
        server,
        "/openai/parallel_calls/v1/chat/completions",
        request_for("single_call"),
        **{"X-Toolcall-Scenario": "text_only"},
    )
    assert response.content == cassette_body("openai", "parallel_calls")


def test_published_recording_in_the_path(server: serving.Running) -> None:
    recording = recordings.discover(SUITE.cassettes, "qwen", wire="chat")[0]
    path = f"/qwen/published/{recording.name}/v1/chat/completions"
    response = post_path(server, path, {"stream": True})
    assert response.status_code == 200
    assert response.content == cassettes.response_body(cassettes.load(recording.path))


def test_fault_in_the_path(server: serving.Running) -> None:
    limited = post_path(server, "/openai/single_call/fault/429/v1/chat/completions", {})
    assert limited.status_code == 429
    body = post_path(
        server, "/grok/fault/keepalive/v1/chat/completions", request_for("parallel_calls")
    )
    assert body.content.count(b": keep-alive\n\n") >= 3
    unknown = post_path(server, "/grok/single_call/fault/boom/v1/chat/completions", {})
    assert unknown.status_code == 400
    assert "unknown fault 'boom'" in unknown.json()["error"]["message"]


@pytest.mark.parametrize(
    "path",
    ["/openai/a/b/v1/chat/completions", "/openai/published/v1/chat/completions"],
)
def test_unreadable_path_says_the_scheme(server: serving.Running, path: str) -> None:
    response = post_path(server, path, request_for("single_call"))
    assert response.status_code == 404
    assert "/fault/<fault>" in response.json()["error"]["message"]


def test_route_reads_every_form() -> None:
    assert serving.route("/v1/chat/completions") == serving.Route(None, None, None)
    assert serving.route("/glm/v1/chat/completions") == serving.Route("glm", None, None)
    assert serving.route("/glm/x/fault/cut/v1/chat/completions") == serving.Route("glm", "x", "cut")
    assert serving.route("/glm/published/r/chat/completions") == serving.Route(
        "glm", "published/r", None
    )
    assert serving.route("/glm/v1/models") is None


def test_requests_are_captured_with_credentials_masked() -> None:
    with serving.serving(SUITE) as running:
        sent = request_for("single_call", tool_stream=True, stream_options={"include_usage": True})
        url = running.url("glm") + "/chat/completions"
        httpx.post(url, json=sent, headers={"Authorization": "Bearer sk-secret"}, timeout=10)
        [received] = running.requests()
        assert received.method == "POST"
        assert received.path == "/glm/v1/chat/completions"
        assert received.body == sent
        assert received.headers["authorization"] == "<masked>"
        over_http = httpx.get(running.base_url + serving.CAPTURE_PATH, timeout=10).json()
        assert over_http["requests"] == [received.to_json()]
        assert "sk-secret" not in json.dumps(over_http)
        cleared = httpx.delete(running.base_url + serving.CAPTURE_PATH, timeout=10).json()
        assert cleared == {"cleared": 1}
        assert running.requests() == []


def test_capture_is_bounded() -> None:
    with serving.serving(SUITE) as running:
        url = running.url("openai") + "/chat/completions"
        big = {"stream": False, "pad": "x" * (serving.CAPTURED_BODY_BYTES + 1)}
        with httpx.Client(timeout=10) as client:
            client.post(url, json=big)
            for number in range(serving.CAPTURED + 5):
                client.post(url, json={"stream": False, "n": number})
        received = running.requests()
        assert len(received) == serving.CAPTURED
        assert received[-1].body == {"stream": False, "n": serving.CAPTURED + 4}
    with serving.serving(SUITE) as running:
        httpx.post(running.url("openai") + "/chat/completions", json=big, timeout=10)
        [oversized] = running.requests()
        assert oversized.body is None
        assert oversized.body_bytes > serving.CAPTURED_BODY_BYTES


def test_a_body_nested_deep_is_captured_as_its_size_and_the_capture_still_answers() -> None:
    """A body the parser takes (about 980 levels) but encoding the capture would not: kept as
    its size, so `GET /_toolcall/requests` keeps answering for every later request."""
    deep = '{"stream": false, "x": ' + "[" * 980 + "]" * 980 + "}"
    arrays = serving.CAPTURED_DEPTH - 1  # inside the object: as deep as a capture goes
    shallow = '{"stream": false, "x": ' + "[" * arrays + "]" * arrays + "}"
    with serving.serving(SUITE) as running, httpx.Client(timeout=10) as client:
        url = running.url("openai") + "/chat/completions"
        for body in (deep, shallow):
            client.post(url, content=body, headers={"content-type": "application/json"})
        answer = client.get(running.base_url + serving.CAPTURE_PATH)
        assert answer.status_code == 200, answer.text[:500]
        first, second = answer.json()["requests"]
        assert first["body"] is None and first["body_bytes"] == len(deep)
        assert second["body"] is not None


def test_url_chooses_in_the_path(server: serving.Running) -> None:
    recording = recordings.discover(SUITE.cassettes, "glm", wire="chat")[0]
    by_recording = server.url("glm", f"published/{recording.name}")
    assert serving.route(urlsplit(by_recording).path + "/chat/completions") == serving.Route(
        "glm", f"published/{recording.name}", None
    )
    response = httpx.post(by_recording + "/chat/completions", json={"stream": True}, timeout=10)
    assert response.content == cassettes.response_body(cassettes.load(recording.path))
    cut = server.url("glm", "single_call", fault="cut")
    assert cut == f"{server.base_url}/glm/single_call/fault/cut/v1"
