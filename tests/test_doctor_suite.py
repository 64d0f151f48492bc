"""`toolcall doctor` on the suite's own streams: every published recording, named as its
provenance says (or "unknown", never another name), and `toolcall serve`'s answers captured the
way users capture them, with a real HTTP client into a HAR file and with `curl -i`."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator

from toolcall.harness import serving
from toolcall.harness.doctor import compare
from toolcall.harness.doctor.identify import UNKNOWN
from toolcall.harness.doctor.opening import open_capture
from toolcall.harness.doctor.report import Options, examine
from toolcall.harness.suite.case import PUBLISHED, WIRE_RECORDING, Filters, cases
from toolcall.harness.suite.profiles import format_schema, load_suite
from toolcall.harness.suite.recordings import Recording

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
SUITE = load_suite(ROOT)
#: The suite's cases of the recorded kinds: every published chat recording and wire recording.
RECORDED = [c for kind in (PUBLISHED, WIRE_RECORDING) for c in cases(SUITE, Filters(kind=kind))]
QUIET = Options(clients=False)
SCHEMA = Draft202012Validator(format_schema("doctor.schema.json"))


def examined(path: Path) -> dict[str, Any]:
    """The doctor's report of a capture, held to its schema."""
    document = examine(SUITE, open_capture(str(path)), QUIET)
    SCHEMA.validate(document)
    return document


def test_every_published_recording_is_named_as_its_provenance_says() -> None:
    """Each recorded case of the suite: its wire and framing, and its provider (the one its
    provenance names, or the one whose wire offer names it) and route, or "unknown"."""
    named = {"provider": 0, "route": 0}
    assert len(RECORDED) > 70
    for case in RECORDED:
        document = examined(SUITE.root / case.source)
        recording: Recording = case.origin
        where = case.id
        assert document["wire"]["value"] == case.wire, where
        framing = case.framing or ("ndjson" if case.wire == "ollama" else None)
        if framing is not None:
            assert document["framing"]["value"] == framing, where
        provider = document["provider"]["value"]
        route = document["route"]["value"]
        assert provider in {case.provider, case.offered_by, UNKNOWN}, (where, provider)
        assert route in (case.route, UNKNOWN), (where, route)
        named["provider"] += provider != UNKNOWN
        named["route"] += route != UNKNOWN
        wanted = [c["name"] for c in recording.expected.get("tool_calls", [])]
        if "error" not in recording.expected:
            assert [c["name"] for c in document["calls"]] == wanted, where
            custom = [c["name"] for c in recording.expected.get("custom_calls", [])]
            assert [c["name"] for c in document["turn"]["custom_calls"]] == custom, where
            ran = [c["id"] for c in recording.expected.get("server_tool_calls", [])]
            assert [c["id"] for c in document["turn"]["server_tool_calls"]] == ran, where
    # Identification never names a wrong provider or route; most are named at all.
    assert named["provider"] >= len(RECORDED) * 3 // 4
    assert named["route"] >= len(RECORDED) // 3


@pytest.fixture(scope="module")
def server() -> Iterator[serving.Running]:
    with serving.serving(SUITE) as running:
        yield running


#: One stream per wire as `toolcall serve` answers it: (path, the recording it answers with).
SERVED = [
    (
        "/kimi/published/fantasy_openrouter-groq_kimi-k2_multi_tool/v1/chat/completions",
        "kimi/published/fantasy_openrouter-groq_kimi-k2_multi_tool",
    ),
    ("/v1/responses", "wires/responses/fantasy_responses_gpt-4o_multi_tool"),
    ("/v1/messages", "wires/anthropic/fantasy_claude-sonnet-4_multi_tool"),
    (
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
        "wires/gemini/fantasy_gemini-2.5-flash_multi_tool",
    ),
    (
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent",
        "wires/gemini/llm-gemini_gemini-2.5-flash_tools_json-array",
    ),
    ("/api/chat", "wires/ollama/fantasy_ollama-cloud_gpt-oss-20b_api-chat_tool"),
]


def recording(name: str) -> Recording:
    (found,) = [c.origin for c in RECORDED if c.id == name]
    assert isinstance(found, Recording)
    return found


def har_of(request: httpx.Request, response: httpx.Response, body: bytes) -> dict[str, Any]:
    """A HAR file of one exchange, as a proxy or a browser exports it."""
    return {
        "log": {
            "version": "1.2",
            "creator": {"name": "tests", "version": "1"},
            "entries": [
                {
                    "request": {
                        "method": request.method,
                        "url": str(request.url),
                        "headers": [{"name": k, "value": v} for k, v in request.headers.items()],
                        "postData": {
                            "mimeType": "application/json",
                            "text": request.content.decode(),
                        },
                    },
                    "response": {
                        "status": response.status_code,
                        "headers": [{"name": k, "value": v} for k, v in response.headers.items()],
                        "content": {
                            "mimeType": response.headers.get("content-type", ""),
                            "text": body.decode(),
                        },
                    },
                }
            ],
        }
    }


@pytest.mark.parametrize(("path", "name"), SERVED, ids=[n for _, n in SERVED])
def test_a_har_of_serve_written_by_an_http_client(
    server: serving.Running, tmp_path: Path, path: str, name: str
) -> None:
    served = recording(name)
    headers = {"X-Toolcall-Scenario": served.id, "Authorization": "Bearer sk-" + "x" * 40}
    request = {
        "model": served.model,
        "stream": True,
        "messages": [{"role": "user", "content": "?"}],
    }
    with (
        httpx.Client(timeout=10) as client,
        client.stream("POST", server.base_url + path, json=request, headers=headers) as response,
    ):
        body = b"".join(response.iter_raw())
        har = har_of(response.request, response, body)
    capture = tmp_path / "capture.har"
    capture.write_text(json.dumps(har), encoding="utf-8")
    document = examined(capture)
    assert document["wire"]["value"] == served.wire
    assert document["capture"]["form"] == "HAR entry 0"
    assert document["model"]["value"] != UNKNOWN
    assert [c["name"] for c in document["calls"]] == [
        c["name"] for c in served.expected["tool_calls"]
    ]
    assert "x" * 40 not in json.dumps(document)


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
@pytest.mark.parametrize("flags", ["-siN", "-vN"])
@pytest.mark.parametrize(("path", "name"), SERVED, ids=[n for _, n in SERVED])
def test_a_curl_capture_of_serve(
    server: serving.Running, tmp_path: Path, path: str, name: str, flags: str
) -> None:
    """`curl -siN > file`, and `curl -vN > file 2>&1`: curl's own lines and its progress meter
    among the body's."""
    served = recording(name)
    capture = tmp_path / "capture.txt"
    with capture.open("wb") as out:
        subprocess.run(
            [
                "curl",
                flags,
                server.base_url + path,
                "-H",
                f"X-Toolcall-Scenario: {served.id}",
                "-d",
                '{"stream": true}',
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            check=True,
            timeout=30,
        )
    document = examined(capture)
    form = "curl -i" if flags == "-siN" else "curl -v"
    assert document["capture"]["form"] == form and document["capture"]["status"] == 200
    # curl ends its meter with a line end: after a body that has none, it reads as the body's
    extra = (
        {len(served.body())} if flags == "-siN" else {len(served.body()), len(served.body()) + 1}
    )
    assert document["capture"]["bytes"] in extra
    assert document["wire"]["value"] == served.wire
    assert [c["name"] for c in document["calls"]] == [
        c["name"] for c in served.expected["tool_calls"]
    ]


def test_two_captures_around_a_gateway_name_its_change(
    server: serving.Running, tmp_path: Path
) -> None:
    """Upstream and downstream of a gateway that numbers index-less calls 0 and rewrites usage
    (what LiteLLM was measured doing): the comparison names both changes."""
    from tests.gateway_relay import Rewrites, relaying

    path = "/gemini/parallel_calls/v1/chat/completions"
    rewrites = Rewrites(insert_index=True, usage_total=999)
    with relaying(server.base_url, rewrites) as gateway:
        captures = []
        for base in (server.base_url, gateway):
            response = httpx.post(base + path, json={"stream": True}, timeout=10)
            captures.append(tmp_path / f"{len(captures)}.sse")
            captures[-1].write_bytes(response.content)
    upstream, downstream = (examined(capture) for capture in captures)
    found = {c["layer"]: c for c in compare.changes(upstream, downstream)}
    assert found["usage"]["b"]["total_tokens"] == 999
    assert (found["findings"]["a"], found["findings"]["b"]) == (["index_absent"], ["index_reused"])
    assert "calls" not in found  # the library still tells the calls apart, by their ids


def test_a_program_of_yours_is_judged_beside_the_others(tmp_path: Path) -> None:
    """`--external`: the project's naive example program merges two calls sharing an index."""
    from tests.test_doctor import _call, _chat_events

    body = _chat_events(
        _call(0, "call_a", "get_weather", '{"city": "Paris"}'),
        _call(0, "call_b", "get_time", '{"tz": "UTC"}'),
    )
    capture = tmp_path / "same_index.sse"
    capture.write_bytes(body)
    program = f"naive={sys.executable} {ROOT / 'examples' / 'external_assembler.py'}"
    options = Options(implementations=["toolcall"], externals=[program])
    document = examine(SUITE, open_capture(str(capture)), options)
    verdicts = {v["name"]: v for v in document["clients"]}
    assert verdicts["toolcall"]["verdict"] == "pass"
    assert verdicts["naive"]["verdict"] == "merged calls"
    assert "keys calls by index alone" in verdicts["naive"]["fix"]
