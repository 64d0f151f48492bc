"""`toolcall serve` on Gemini's unstreamed method, `models/{model}:generateContent`: a fault
mode answers its plain turn whole, and a wire recording is answered as the one JSON answer its
events make (`render.gemini_whole`), the way Gemini answers the same turn unstreamed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.harness.serving.test_serve_wires import SUITE, named
from toolcall.harness import serving
from toolcall.harness.reading.wires import objects
from toolcall.harness.serving.plain import TEXT
from toolcall.harness.serving.render import gemini_whole
from toolcall.harness.serving.routes import unstreamed_gemini, wire_of

TOOLS = [
    {
        "functionDeclarations": [
            {
                "name": "get_weather",
                "parameters": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                },
            }
        ]
    }
]


@pytest.fixture(scope="module")
def server() -> Iterator[serving.Running]:
    with serving.serving(SUITE) as running:
        yield running


def test_the_unstreamed_path_is_geminis_and_the_streamed_one_is_not() -> None:
    assert unstreamed_gemini("/v1beta/models/gemini-2.5-flash:generateContent")
    assert wire_of("/v1beta/models/gemini-2.5-flash:generateContent") == "gemini"
    assert not unstreamed_gemini("/v1beta/models/gemini-2.5-flash:streamGenerateContent")
    assert not unstreamed_gemini("/v1beta/models/:generateContent")  # no model


def test_a_fault_mode_answers_the_plain_turn_whole(server: serving.Running) -> None:
    path = "/v1beta/models/fault:plain:generateContent"
    request = {"contents": [{"role": "user", "parts": [{"text": "weather?"}]}], "tools": TOOLS}
    response = httpx.post(server.base_url + path, json=request, timeout=10)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    (candidate,) = response.json()["candidates"]
    parts = candidate["content"]["parts"]
    assert parts[0] == {"text": TEXT}
    assert parts[1] == {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}
    assert candidate["finishReason"] == "STOP"
    assert response.json()["usageMetadata"]["totalTokenCount"] > 0


def test_a_fault_that_makes_the_answers_disagree_changes_the_whole_one(
    server: serving.Running,
) -> None:
    request = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "tools": TOOLS}
    answers = [
        httpx.post(
            server.base_url + f"/v1beta/models/fault:{mode}:generateContent",
            json=request,
            timeout=10,
        ).json()
        for mode in ("plain", "stream-disagrees-with-unstreamed")
    ]
    assert answers[0] != answers[1]


def test_a_recording_is_answered_as_the_one_answer_its_events_make(
    server: serving.Running,
) -> None:
    recording = named("fantasy_gemini-2.5-flash_multi_tool")
    path = "/gemini/v1beta/models/gemini-2.5-flash:generateContent"
    response = httpx.post(server.base_url + path, json={}, timeout=10)
    assert response.status_code == 200, response.text
    whole = response.json()
    events = objects("gemini", recording.body(), recording.framing)
    calls = [
        p["functionCall"]
        for e in events
        for p in e["candidates"][0]["content"]["parts"]
        if "functionCall" in p
    ]
    (candidate,) = whole["candidates"]
    assert [p["functionCall"] for p in candidate["content"]["parts"] if "functionCall" in p] == (
        calls
    )
    assert len(calls) > 1 and candidate["finishReason"] == events[-1]["candidates"][0].get(
        "finishReason"
    )
    assert json.loads(json.dumps(whole)) == gemini_whole(events)


def test_texts_are_joined_and_the_last_finish_and_usage_kept() -> None:
    streamed: list[dict[str, Any]] = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hel"}]}, "index": 0}]},
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "lo"}]}, "index": 0}]},
        {
            "candidates": [
                {
                    "content": {"role": "model", "parts": [{"functionCall": {"name": "f"}}]},
                    "finishReason": "STOP",
                    "index": 0,
                }
            ],
            "usageMetadata": {"totalTokenCount": 3},
        },
    ]
    whole = gemini_whole(streamed)
    assert whole["candidates"][0]["content"]["parts"] == [
        {"text": "Hello"},
        {"functionCall": {"name": "f"}},
    ]
    assert whole["candidates"][0]["finishReason"] == "STOP"
    assert whole["usageMetadata"] == {"totalTokenCount": 3}
