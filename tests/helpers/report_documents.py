"""Small report documents for the report site's tests: one conformance run, one matrix run with
a case on each of the five wires, one gateway run, one probe and one doctor report, each valid
against its schema, and a matrix of any size for the page-size measure."""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

#: One short stream per wire, each with a call to get_weather({"city": "Paris"}).
BODIES = {
    "chat": (
        'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1",'
        '"function":{"name":"get_weather","arguments":"{\\"city\\":"}}]}}]}\n\n'
        'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":'
        '{"arguments":"\\"Paris\\"}"}}]},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n',
        "",
    ),
    "responses": (
        "event: response.output_item.added\n"
        'data: {"type":"response.output_item.added","output_index":0,"item":{"type":'
        '"function_call","call_id":"call_1","name":"get_weather","arguments":""}}\n\n'
        "event: response.function_call_arguments.delta\n"
        'data: {"type":"response.function_call_arguments.delta","output_index":0,'
        '"delta":"{\\"city\\":\\"Paris\\"}"}\n\n',
        "",
    ),
    "anthropic": (
        "event: content_block_start\n"
        'data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use",'
        '"id":"call_1","name":"get_weather","input":{}}}\n\n'
        "event: content_block_delta\n"
        'data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta",'
        '"partial_json":"{\\"city\\":\\"Paris\\"}"}}\n\n',
        "",
    ),
    "gemini": (
        '[{"candidates":[{"content":{"parts":[{"functionCall":{"name":"get_weather",'
        '"args":{"city":"Paris"}}}]},"finishReason":"STOP"}]}\n]',
        "json-array",
    ),
    "ollama": (
        '{"message":{"role":"assistant","tool_calls":[{"function":{"name":"get_weather",'
        '"arguments":{"city":"Paris"}}}]},"done":false}\n{"done":true,"done_reason":"stop"}\n',
        "",
    ),
}
RIGHT = {"calls": [{"id": "call_1", "name": "get_weather", "arguments": '{"city":"Paris"}'}]}
#: What the `sloppy` column says it adds around the library it checks.
GLUE = "checks finish_reason length itself"
#: The wrong answer `sloppy` gives on the gemini and ollama cases: the city lost.
WRONG = {"calls": [{"id": "call_1", "name": "get_weather", "arguments": '{"city":"Pari"}'}]}


def case(wire: str) -> dict[str, Any]:
    body, framing = BODIES[wire]
    return {
        "id": f"vendor-{wire}/{wire}/weather",
        "provider": f"vendor-{wire}",
        "scenario": f"{wire}/weather",
        "wire": wire,
        "framing": framing,
        "route": "direct" if wire != "chat" else "relay-one",
        "kind": "wire-recording" if wire != "chat" else "published",
        "provenance": {
            "source": f"cassettes/wires/{wire}/weather",
            "repository": "example/recordings",
            "commit": "abc",
        },
        "expected": {**RIGHT, "error": None},
        "body": body,
        "body_bytes": len(body.encode()),
    }


def result(implementation: str, wire: str) -> dict[str, Any]:
    wrong = implementation == "sloppy" and wire in ("gemini", "ollama")
    return {
        "implementation": implementation,
        "provider": f"vendor-{wire}",
        "scenario": f"{wire}/weather",
        "verdict": "wrong arguments" if wrong else "pass",
        "reason": "wrong arguments: call 0 parses to another value" if wrong else "",
        "wire": wire,
        "id": f"vendor-{wire}/{wire}/weather",
        "answer": {**(WRONG if wrong else RIGHT), "error": None},
    }


def matrix() -> dict[str, Any]:
    """Two implementations over a case per wire; `sloppy` fails two of the five."""
    results = [result(name, wire) for name in ("toolcall", "sloppy") for wire in BODIES]
    return {
        "report": "matrix",
        "version": 1,
        "judged_by": "judged by hand-written expectations",
        "implementations": [
            {"name": "toolcall", "version": "toolcall 0.1", "passed": 5, "total": 5},
            {"name": "sloppy", "version": "sloppy 9", "passed": 3, "total": 5, "glue": GLUE},
        ],
        "unavailable": {"absent-sdk": "not installed"},
        "results": results,
        "cases": [case(wire) for wire in BODIES],
        "not_applicable": [],
    }


def conformance() -> dict[str, Any]:
    outcomes: list[dict[str, Any]] = [
        {
            "provider": f"vendor-{wire}",
            "route": "direct",
            "wire": wire,
            "scenario": "single_call",
            "status": status,
            "evidence": "synthesized",
            "note": "synthesized",
            "findings": [],
        }
        for wire in BODIES
        for status in ("pass", "pass", "n/a")
    ]
    outcomes[0]["status"] = "fail"
    return {
        "report": "conformance",
        "version": 1,
        "summary": {"passed": 9, "failed": 1, "not_applicable": 5, "recordings": 0},
        "outcomes": outcomes,
    }


def gateways() -> dict[str, Any]:
    stream = {
        "provider": "vendor-chat",
        "target": "single_call",
        "fault": None,
        "kind": "cell",
        "column": "single_call",
        "name": "vendor-chat/single_call",
        "mark": "REQ",
        "passed": False,
        "problems": [
            {
                "kind": "REQ",
                "what": "request: stripped tool_stream",
                "evidence": [],
                "fix": "send it direct",
            }
        ],
    }
    ok = {**stream, "target": "parallel_calls", "column": "parallel_calls", "mark": "same"}
    ok.update(name="vendor-chat/parallel_calls", passed=True, problems=[])
    gateway: dict[str, Any] = {
        "name": "relay",
        "version": "1.0",
        "how": "in front of serve",
        "unavailable": None,
        "skipped": {},
        "streams": [stream, ok],
        "changes": [],
    }
    return {"about": {"date": "2026-01-01 00:00 UTC"}, "gateways": [gateway]}


def probe() -> dict[str, Any]:
    """A probe report as `toolcall probe --json` writes it (probe.schema.json): one finding."""
    seen = {"status": "read", "calls": ["get_weather"], "finish": "tool_calls", "bytes": 900}
    return {
        "endpoint": "http://127.0.0.1:9/v1",
        "model": "small",
        "wire": "chat",
        "family": "other",
        "budget": {"requests": 20, "seconds": 60},
        "sound": True,
        "stopped": None,
        "findings": [
            {
                "code": "index_absent",
                "severity": "quirk",
                "scenario": "single_call",
                "streamed": True,
                "message": "every chunk repeats the call id and gives no index",
                "excerpt": '{"tool_calls":[{"id":"call_1"}]}',
                "repeat": 1,
            }
        ],
        "scenarios": [
            {
                "name": "single_call",
                "description": "one call",
                "not_run": None,
                "findings": ["index_absent"],
                "streamed": {**seen, "arguments": "streamed"},
                "unstreamed": {**seen, "arguments": None},
            }
        ],
        "clients": [
            {
                "name": "openai-sdk",
                "version": "openai 1",
                "available": True,
                "unavailable": None,
                "passed": 1,
                "failed": [],
            }
        ],
    }


@cache
def doctor() -> dict[str, Any]:
    """What `toolcall doctor --json` says of a recording cut after its twelfth event (made once
    a process, in a folder of its own)."""
    from toolcall.harness.cli import main

    recording = ROOT / "cassettes" / "wires" / "anthropic"
    body = (recording / "fantasy_claude-sonnet-4_multi_tool.sse").read_bytes()
    with tempfile.TemporaryDirectory() as folder:
        cut = Path(folder) / "cut.sse"
        cut.write_bytes(b"\n\n".join(body.split(b"\n\n")[:12]) + b"\n\n")
        said = io.StringIO()
        args = ["--root", str(ROOT), "doctor", "--json", "--implementation", "toolcall"]
        with contextlib.redirect_stdout(said):
            main([*args, str(cut)])
    document: dict[str, Any] = json.loads(said.getvalue())
    return document


def write_all(folder: Path) -> Path:
    """Every kind of input, in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    documents = {
        "conformance.json": conformance(),
        "matrix.json": matrix(),
        "gateways.json": gateways(),
        "probe-local.json": probe(),
        "doctor.json": doctor(),
    }
    for name, document in documents.items():
        (folder / name).write_text(json.dumps(document), encoding="utf-8")
    return folder


def large_matrix(cases: int, implementations: int) -> dict[str, Any]:
    """`cases` x `implementations` cells, one in ten failing with a reason of its own."""
    names = [f"implementation-{n}" for n in range(implementations)]
    wires = list(BODIES)
    results = []
    for number in range(cases):
        wire = wires[number % len(wires)]
        for column, name in enumerate(names):
            failing = (number + column) % 10 == 0
            results.append(
                {
                    "implementation": name,
                    "provider": f"provider-{number % 8}",
                    "scenario": f"scenario_{number}",
                    "verdict": "merged calls" if failing else "pass",
                    "reason": f"merged calls: 2 calls came back as 1 (case {number})"
                    if failing
                    else "",
                    "wire": wire,
                    "id": f"provider-{number % 8}/scenario_{number}",
                    "answer": None,
                }
            )
    implementations_ = [
        {"name": name, "version": "1", "passed": 0, "total": cases} for name in names
    ]
    return {
        "report": "matrix",
        "version": 1,
        "judged_by": "",
        "implementations": implementations_,
        "unavailable": {},
        "results": results,
        "not_applicable": [],
    }
