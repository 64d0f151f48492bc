"""`toolcall serve` on the Responses, Anthropic, Gemini and Ollama paths, over real HTTP.

Each wire recording is fetched at its wire's real path and read back by the library with the
wire detected, so a client pointed at serve sees exactly the recorded stream. Gemini's path
answers in the framing the request asks for: `?alt=sse` an event stream, no `alt` its JSON array.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import toolcall
from toolcall.harness import serving
from toolcall.harness.checks import expectation_differences
from toolcall.harness.suite.profiles import load_suite
from toolcall.harness.suite.recordings import Recording, discover

ROOT = Path(__file__).resolve().parent.parent
SUITE = load_suite(ROOT)
RECORDINGS = [r for r in discover(SUITE.cassettes) if r.wire != "chat"]
PATHS = {
    "responses": "/v1/responses",
    "anthropic": "/v1/messages",
    "gemini": "/v1beta/models/any-model:streamGenerateContent?alt=sse",
    "ollama": "/api/chat",
}
TYPES = {
    "responses": "text/event-stream",
    "anthropic": "text/event-stream",
    "gemini": "text/event-stream",
    "ollama": "application/x-ndjson",
}
#: Gemini's JSON array: asked for without `alt=sse`, answered as JSON.
ARRAY_PATH = "/v1beta/models/any-model:streamGenerateContent"
ARRAY_TYPE = "application/json"


def flushes(rec: Recording) -> int:
    """How many writes the provider made: one per event, Ollama line or array element."""
    body = rec.body()
    if rec.framing:
        return len(json.loads(body))
    return body.count(b"\n" if rec.wire == "ollama" else b"data:")


@pytest.fixture(scope="module")
def server() -> Iterator[serving.Running]:
    with serving.serving(SUITE) as running:
        yield running


def named(name: str) -> Recording:
    (found,) = [r for r in RECORDINGS if r.name == name]
    return found


@pytest.mark.parametrize("rec", RECORDINGS, ids=[r.name for r in RECORDINGS])
def test_each_recording_at_its_wire_path_assembles_to_its_expectation(
    server: serving.Running, rec: Recording
) -> None:
    url = server.base_url + (ARRAY_PATH if rec.framing else PATHS[rec.wire])
    headers = {"X-Toolcall-Scenario": rec.id}
    with (
        httpx.Client(timeout=10) as client,
        client.stream("POST", url, json={"stream": True}, headers=headers) as response,
    ):
        assert response.headers["content-type"].startswith(
            ARRAY_TYPE if rec.framing else TYPES[rec.wire]
        )
        pieces = list(response.iter_raw())
        turn = toolcall.assemble(iter(pieces), status=response.status_code)
    assert b"".join(pieces) == rec.body()
    # one event (one line for Ollama) per write, as the provider flushes them, not one blob
    assert len(pieces) == flushes(rec)
    assert expectation_differences(turn, rec.expected) == []


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/openai/v1/responses", "fantasy_responses_gpt-4o_multi_tool"),
        ("/deepseek/responses", "pydantic-ai_deepseek-v4-flash_responses_function_tool_stream"),
        ("/anthropic/v1/messages", "fantasy_claude-sonnet-4_multi_tool"),
        (
            "/gemini/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
            "fantasy_gemini-2.5-flash_multi_tool",
        ),
        (
            "/gemini/v1beta/models/gemini-2.5-flash:streamGenerateContent",
            "llm-gemini_gemini-2.5-flash_tools_json-array",
        ),
        ("/ollama-cloud/api/chat", "fantasy_ollama-cloud_gpt-oss-120b_api-chat_tool"),
    ],
)
def test_a_provider_prefix_picks_its_first_recording_on_the_wire(
    server: serving.Running, path: str, name: str
) -> None:
    response = httpx.post(server.base_url + path, json={"stream": True}, timeout=10)
    assert response.status_code == 200
    assert response.content == named(name).body()


@pytest.mark.parametrize(
    ("path", "body", "headers", "status", "words"),
    [
        ("/v1/responses", {"stream": True}, {}, 404, "name the recording in X-Toolcall-Scenario"),
        ("/grok/v1/responses", {"stream": True}, {}, 404, "unknown provider 'grok'"),
        ("/kimi/v1/messages", {"stream": True}, {}, 404, "kimi has no anthropic recording"),
        (
            "/v1/messages",
            {"stream": True},
            {"X-Toolcall-Scenario": "wires/responses/fantasy_responses_gpt-4o_multi_tool"},
            404,
            "no anthropic recording",
        ),
        (
            "/deepseek/v1/responses",
            {"stream": True},
            {"X-Toolcall-Scenario": "wires/responses/fantasy_responses_gpt-4o_multi_tool"},
            404,
            "is not a recording of deepseek's responses wire",
        ),
        ("/openai/v1/responses", {"stream": False}, {}, 400, "only streamed requests"),
        ("/ollama-cloud/api/chat", {"stream": False}, {}, 400, "only streamed requests"),
        (
            "/gemini/v1beta/models/m:streamGenerateContent?alt=proto",
            {},
            {},
            400,
            "?alt=proto is neither framing",
        ),
        (
            "/v1beta/models/m:streamGenerateContent",
            {},
            {"X-Toolcall-Scenario": "wires/gemini/fantasy_gemini-2.5-flash_multi_tool"},
            404,
            "is answered to a request with ?alt=sse",
        ),
        (
            "/v1beta/models/m:streamGenerateContent?alt=sse",
            {},
            {"X-Toolcall-Scenario": "wires/gemini/llm-gemini_gemini-2.5-flash_tools_json-array"},
            404,
            "is answered to a request without ?alt=sse",
        ),
        ("/openai/v1/responses", {"stream": True}, {"X-Toolcall-Fault": "cut"}, 400, "faults"),
        ("/openai/v1/responses", [1], {}, 400, "must be a JSON object"),
    ],
)
def test_a_request_it_cannot_answer_is_a_json_error_saying_why(
    server: serving.Running,
    path: str,
    body: object,
    headers: dict[str, str],
    status: int,
    words: str,
) -> None:
    response = httpx.post(server.base_url + path, json=body, headers=headers, timeout=10)
    assert response.status_code == status
    error = response.json()["error"]
    assert words in error["message"]
    # The shape of every refusal of serve, on every path: message, type and code.
    assert error["code"] == error["type"] and error["type"] in {
        "invalid_request_error",
        "not_found",
    }


def test_chat_completions_are_served_as_before(server: serving.Running) -> None:
    url = server.url("qwen") + "/chat/completions"
    headers = {"X-Toolcall-Scenario": "parallel_calls"}
    response = httpx.post(url, json={"stream": True}, headers=headers, timeout=10)
    assert response.status_code == 200
    assert len(toolcall.assemble(response.content).tool_calls) == 2


def test_the_openai_sdk_streams_a_responses_recording(server: serving.Running) -> None:
    openai = pytest.importorskip("openai")
    rec = named("fantasy_responses_gpt-4o_multi_tool")
    client = openai.OpenAI(base_url=server.base_url + "/openai/v1", api_key="anything")
    stream = client.responses.create(
        model="gpt-4o",
        input="Add 2 and 3 and multiply 2 and 3",
        stream=True,
        extra_headers={"X-Toolcall-Scenario": rec.id},
    )
    final = None
    for event in stream:
        if event.type == "response.completed":
            final = event.response
    assert final is not None
    calls = [
        (item.call_id, item.name, item.arguments)
        for item in final.output
        if item.type == "function_call"
    ]
    assert [(c[0], c[1]) for c in calls] == [
        (c["id"], c["name"]) for c in rec.expected["tool_calls"]
    ]
    assert [json.loads(c[2]) for c in calls] == [c["arguments"] for c in rec.expected["tool_calls"]]


def test_the_serve_command_says_where_the_other_wires_are() -> None:
    import subprocess
    import sys

    command = [sys.executable, "-m", "toolcall.harness.cli", "--root", str(ROOT), "serve"]
    process = subprocess.Popen(
        [*command, "--port", "0"], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    try:
        assert process.stdout is not None
        base = process.stdout.readline().split()[2]
        lines = [process.stdout.readline() for _ in range(len(SUITE.providers) + 2)]
        assert "/v1/responses" in lines[-1] and "wires/<wire>/<name>" in lines[-1]
        rec = named("fantasy_claude-sonnet-4_multi_tool")
        response = httpx.post(f"{base}/anthropic/v1/messages", json={"stream": True}, timeout=10)
        assert response.content == rec.body()
    finally:
        process.terminate()
        process.wait(timeout=10)
