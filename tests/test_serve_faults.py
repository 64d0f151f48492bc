"""`toolcall serve`'s stream faults over real HTTP: each mode on each wire its row names is seen
by the library (an error, a diagnostic, a call lost or changed, the arguments no longer
streamed, calls sharing an index), where the plain mode on the same request is sound.

Every check compares a mode with `plain` on the same request, so a transform that did nothing
fails here; the plain answer is checked against the calls the request's tools ask for.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import httpx
import pytest

import toolcall
from toolcall.harness import cli, serving
from toolcall.harness.serving import faults, plain
from toolcall.harness.suite.profiles import load_suite

ROOT = Path(__file__).resolve().parent.parent
WEATHER = {
    "name": "get_weather",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"enum": ["celsius", "fahrenheit"]}},
        "required": ["city", "unit"],
    },
}
CLOCK = {"name": "get_current_time", "parameters": {"type": "object", "properties": {}}}
TOOLS = [WEATHER, CLOCK]
#: The calls the plain answer makes to TOOLS: one a tool, arguments from its schema.
PLAIN_CALLS = [("get_weather", {"city": "Paris", "unit": "celsius"}), ("get_current_time", {})]
MESSAGES = [{"role": "user", "content": "What is the weather in Paris, and the time?"}]
#: The indexes the plain answer's events carry: a text block or item first on Anthropic and
#: Responses, none on Gemini.
INDEXES = {
    "chat": [0, 1],
    "responses": [0, 1, 2],
    "anthropic": [0, 1, 2],
    "gemini": [],
    "ollama": [0, 1],
}
STREAMS_ARGUMENTS = ("chat", "responses", "anthropic")
#: One client for the module: a new one a request costs about 50 ms (its TLS context).
HTTP = httpx.Client(timeout=10, trust_env=False)
CASES = [(f.name, wire) for f in faults.FAULTS if f.name != "plain" for wire in f.transforms]


def request(wire: str, fault: str, **extra: Any) -> tuple[str, dict[str, Any]]:
    """The path and body a client of `wire` sends, asking for `fault` by its model's name."""
    model = plain.MODEL_PREFIX + fault
    chat_tools = [{"type": "function", "function": t} for t in TOOLS]
    if wire == "gemini":
        contents = [{"role": "user", "parts": [{"text": MESSAGES[0]["content"]}]}]
        body = {"contents": contents, "tools": [{"functionDeclarations": TOOLS}], **extra}
        return f"/v1beta/models/{model}:streamGenerateContent?alt=sse", body
    if wire == "responses":
        tools = [{"type": "function", **t} for t in TOOLS]
        body = {"model": model, "stream": True, "input": MESSAGES[0]["content"], "tools": tools}
        return "/v1/responses", {**body, **extra}
    if wire == "anthropic":
        tools = [{"name": t["name"], "input_schema": t["parameters"]} for t in TOOLS]
        body = {"model": model, "max_tokens": 1024, "stream": True, "tools": tools}
        return "/v1/messages", {**body, "messages": MESSAGES, **extra}
    if wire == "ollama":
        return "/api/chat", {"model": model, "messages": MESSAGES, "tools": chat_tools, **extra}
    body = {"model": model, "stream": True, "messages": MESSAGES, "tools": chat_tools}
    return "/v1/chat/completions", {**body, **extra}


@pytest.fixture(scope="module")
def server() -> Iterator[serving.Running]:
    with serving.serving(load_suite(ROOT)) as running:
        yield running


def fetch(server: serving.Running, wire: str, fault: str, **extra: Any) -> httpx.Response:
    path, body = request(wire, fault, **extra)
    return HTTP.post(server.base_url + path, json=body)


def observed(wire: str, body: bytes) -> dict[str, Any]:
    """What the library makes of a body: the turn's calls, finish, text and diagnostics, how
    many fragments each call's arguments came in, and the indexes the calls were sent on; or
    the error it raised."""
    try:
        turn = toolcall.assemble(body, wire=wire)
        fragments: dict[int, int] = {}
        for event in toolcall.iter_events([body], wire=wire):
            if isinstance(event, toolcall.ArgumentsDelta):
                fragments[event.index] = fragments.get(event.index, 0) + 1
    except toolcall.ToolCallError as exc:
        return {"error": type(exc).__name__, "message": str(exc)}
    return {
        "calls": [(c.function.name, json.loads(c.function.arguments)) for c in turn.tool_calls],
        "finish": turn.finish_reason,
        "text": turn.content,
        "diagnostics": sorted({d.code for d in turn.diagnostics}),
        "fragments": fragments,
        "indexes": sorted(_indexes(wire, body)),
    }


def _indexes(wire: str, body: bytes) -> set[int]:
    """The indexes a body sends its calls on (chat's `index`, Anthropic's block `index`,
    Responses' `output_index`, Ollama's `function.index`), as a reader keyed on them sees."""
    found: set[int] = set()
    for line in body.decode().splitlines():
        text = line.removeprefix("data: ")
        if not text.startswith("{"):
            continue
        event = json.loads(text)
        for choice in event.get("choices") or []:
            found |= {c["index"] for c in choice.get("delta", {}).get("tool_calls") or []}
        if wire in ("anthropic", "responses"):
            found |= {event[k] for k in ("index", "output_index") if k in event}
        calls = event.get("message", {}).get("tool_calls") or []
        found |= {c["function"]["index"] for c in calls}
    return found


def test_every_row_says_for_every_wire_how_or_why_not() -> None:
    for fault in faults.FAULTS:
        assert set(fault.transforms) | set(fault.cannot) == set(faults.WIRE_NAMES), fault.name
        assert not set(fault.transforms) & set(fault.cannot), fault.name
        assert all(why.strip() for why in fault.cannot.values()), fault.name
        assert fault.name == "plain" or fault.reports, fault.name
        assert all(re.fullmatch(r"[\w.-]+/[\w.-]+#\d+", r) for r in fault.reports), fault.reports
    assert len(faults.BY_NAME) == len(faults.FAULTS) == 13


@pytest.mark.parametrize("wire", faults.WIRE_NAMES)
def test_the_plain_mode_is_sound_on_every_wire(server: serving.Running, wire: str) -> None:
    response = fetch(server, wire, "plain")
    assert response.status_code == 200, response.text
    seen = observed(wire, response.content)
    assert seen["calls"] == PLAIN_CALLS and seen["text"] == plain.TEXT, seen
    wires_own = {"ollama": ["stop_with_tool_calls"]}  # Ollama says stop with calls, as recorded
    assert seen["diagnostics"] == wires_own.get(wire, []), seen
    assert seen["indexes"] == INDEXES[wire], seen
    if wire in STREAMS_ARGUMENTS:  # the call with arguments streams them in pieces
        assert max(seen["fragments"].values()) > 1, seen


@pytest.mark.parametrize(("fault", "wire"), CASES)
def test_each_fault_is_seen_on_each_of_its_wires(
    server: serving.Running, fault: str, wire: str
) -> None:
    response = fetch(server, wire, fault)
    assert response.status_code == 200, response.text
    sound = observed(wire, fetch(server, wire, "plain").content)
    seen = observed(wire, response.content)
    if fault == "stream-disagrees-with-unstreamed":
        assert seen == sound  # the stream is the plain one: the unstreamed answer differs
        unstreamed = fetch(server, wire, fault, stream=False).json()
        assert whole_turn(wire, unstreamed) != whole_turn(wire, plain_answer(server, wire))
        return
    assert seen != sound, f"{fault} on {wire} changed nothing the library sees: {seen}"
    assert SYMPTOMS[fault](seen), (fault, wire, seen)


def _error(kind: str, words: str) -> Any:
    return lambda seen: seen.get("error") == kind and words in seen["message"]


#: What the library shows of each fault (the comparison with `plain` comes first).
SYMPTOMS: dict[str, Any] = {
    "markup-in-content": lambda s: s["calls"] == [] and "tool_call_in_text" in s["diagnostics"],
    "special-token-in-name": _error("UnsoundTurnError", "<|channel|>commentary"),
    "zero-arg-call-dropped": lambda s: (
        s["calls"] == PLAIN_CALLS[:1] and s["finish"] in ("tool_calls", "tool_use")
    ),
    "arguments-buffered": lambda s: (
        s["calls"] == PLAIN_CALLS and set(s["fragments"].values()) == {1}
    ),
    "all-calls-index-0": lambda s: s.get("error") == "StreamError" or s["indexes"] == [0],
    "arguments-resent-whole": lambda s: s.get("error") in ("ArgumentsError", "StreamError"),
    "arguments-cumulative": lambda s: (
        s.get("error") == "StreamError" or "arguments_resent" in s["diagnostics"]
    ),
    "name-repeated-every-chunk": lambda s: "name_repeated" in s["diagnostics"],
    "length-says-tool_calls": _error("ArgumentsError", "Unterminated string"),
    "stop-with-calls": lambda s: s["calls"] == PLAIN_CALLS and s["finish"] in ("stop", "end_turn"),
    "anthropic-input-missing-opening": _error("ArgumentsError", "not valid JSON"),
}


def test_every_fault_has_its_symptom() -> None:
    assert set(SYMPTOMS) | {"plain", "stream-disagrees-with-unstreamed"} == set(faults.BY_NAME)


def whole_turn(wire: str, answer: dict[str, Any]) -> tuple[str, list[tuple[str, Any]]]:
    """The text and calls of an unstreamed answer, whatever its wire's shape."""
    if wire == "chat":
        message = answer["choices"][0]["message"]
        calls = [
            (c["function"]["name"], json.loads(c["function"]["arguments"]))
            for c in message.get("tool_calls", [])
        ]
        return message["content"], calls
    if wire == "responses":
        items = answer["output"]
        text = "".join(p["text"] for i in items if i["type"] == "message" for p in i["content"])
        calls = [
            (i["name"], json.loads(i["arguments"])) for i in items if i["type"] == "function_call"
        ]
        return text, calls
    if wire == "anthropic":
        blocks = answer["content"]
        text = "".join(b["text"] for b in blocks if b["type"] == "text")
        return text, [(b["name"], b["input"]) for b in blocks if b["type"] == "tool_use"]
    message = answer["message"]
    calls = [
        (c["function"]["name"], c["function"]["arguments"]) for c in message.get("tool_calls", [])
    ]
    return message["content"], calls


def plain_answer(server: serving.Running, wire: str) -> dict[str, Any]:
    response = fetch(server, wire, "plain", stream=False)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


UNSTREAMED = [w for w in faults.WIRE_NAMES if w != "gemini"]


@pytest.mark.parametrize("wire", UNSTREAMED)
def test_unstreamed_a_mode_answers_the_plain_turn(server: serving.Running, wire: str) -> None:
    """Asked with `stream: false`, the plain answer agrees with the plain stream, and every
    mode but the disagreement answers it."""
    assert whole_turn(wire, plain_answer(server, wire)) == (plain.TEXT, PLAIN_CALLS)
    for fault in faults.FAULTS:
        if wire in fault.transforms and fault.name != "stream-disagrees-with-unstreamed":
            answer = fetch(server, wire, fault.name, stream=False).json()
            assert whole_turn(wire, answer) == (plain.TEXT, PLAIN_CALLS), fault.name


@pytest.mark.parametrize("wire", faults.WIRE_NAMES)
def test_an_unknown_fault_is_a_400_naming_the_known_ones(
    server: serving.Running, wire: str
) -> None:
    response = fetch(server, wire, "no-such-fault")
    assert response.status_code == 400
    message = response.json()["error"]["message"]
    assert "unknown fault 'no-such-fault'" in message
    assert all(name in message for name in faults.BY_NAME), message


def test_a_fault_asked_on_a_wire_it_cannot_exist_on_is_a_400_saying_why(
    server: serving.Running,
) -> None:
    response = fetch(server, "gemini", "name-repeated-every-chunk")
    assert response.status_code == 400
    message = response.json()["error"]["message"]
    assert "not served on the gemini wire" in message and "is another call" in message


def test_a_fault_is_chosen_by_header_query_path_or_model(server: serving.Running) -> None:
    _path, body = request("chat", "plain")
    asked = [
        ("/v1/chat/completions", {"X-Toolcall-Fault": "stop-with-calls"}),
        ("/v1/chat/completions?fault=stop-with-calls", {}),
        ("/any/fault/stop-with-calls/v1/chat/completions", {}),
    ]
    for path, headers in asked:
        response = HTTP.post(server.base_url + path, json=body, headers=headers)
        assert observed("chat", response.content)["finish"] == "stop", path
    by_model = fetch(server, "chat", "stop-with-calls")
    assert observed("chat", by_model.content)["finish"] == "stop"


def test_gemini_without_alt_sse_gets_its_json_array(server: serving.Running) -> None:
    path, body = request("gemini", "markup-in-content")
    response = HTTP.post(server.base_url + path.removesuffix("?alt=sse"), json=body)
    assert response.headers["content-type"].startswith("application/json")
    assert len(json.loads(response.content)) > 1
    assert "tool_call_in_text" in observed("gemini", response.content)["diagnostics"]


#: A limit of 12 tokens, where each wire's request puts it: the plain answer takes about 25.
LIMITS: dict[str, dict[str, Any]] = {
    "chat": {"max_tokens": 12, "stream_options": {"include_usage": True}},
    "responses": {"max_output_tokens": 12},
    "anthropic": {"max_tokens": 12},
    "gemini": {"generationConfig": {"maxOutputTokens": 12}},
    "ollama": {"options": {"num_predict": 12}},
}


@pytest.mark.parametrize("wire", faults.WIRE_NAMES)
def test_the_plain_mode_keeps_max_tokens_and_says_so(server: serving.Running, wire: str) -> None:
    """A limit below the answer cuts it, and the finish says so: the library reports the cut
    as a truncation (where arguments stream) or the call is not sent (where they come whole)."""
    seen = observed(wire, fetch(server, wire, "plain", **LIMITS[wire]).content)
    if wire in STREAMS_ARGUMENTS:
        assert seen["error"] == "TruncatedError", seen
    else:
        assert seen["calls"] == [] and seen["finish"] in ("MAX_TOKENS", "length"), seen


@pytest.mark.parametrize("wire", faults.BY_NAME["length-says-tool_calls"].transforms)
def test_a_cut_turn_saying_tool_calls_is_no_truncation_to_the_library(
    server: serving.Running, wire: str
) -> None:
    """The same cut under a finish that says tool calls (vllm-project/vllm#58228): the library
    cannot tell a truncation, and sees arguments that are not JSON; chat's usage shows the
    limit reached, the one sign the report found."""
    response = fetch(server, wire, "length-says-tool_calls", **LIMITS[wire])
    assert observed(wire, response.content)["error"] == "ArgumentsError"
    if wire == "chat":
        assert b'"finish_reason": "tool_calls"' in response.content
        assert b'"completion_tokens": 12' in response.content


def test_serve_faults_prints_the_table() -> None:
    out = io.StringIO()
    with redirect_stdout(out):
        code = cli.main(["--root", str(ROOT), "serve", "--faults"])
    assert code == 0
    text = out.getvalue()
    for fault in faults.FAULTS:
        assert f"{fault.name}: {fault.what}" in text
        assert all(report in text for report in fault.reports)
    assert "not gemini: it carries no index" in text


def test_the_manuals_fault_example_runs_as_printed(server: serving.Running) -> None:
    """docs/HARNESS.md's stream-fault commands: the table, then a request naming its fault in
    the model, which a client pointed at the server sends with no extra header."""
    import shlex
    import shutil
    import subprocess

    manual = (ROOT / "docs" / "HARNESS.md").read_text(encoding="utf-8")
    block = re.search(
        r"```sh\n(\.venv/bin/toolcall serve --faults)\n(curl .+?)\n```", manual, re.DOTALL
    )
    assert block is not None, "docs/HARNESS.md's stream-fault example moved"
    listing, curl = block.group(1), block.group(2)
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli.main(["--root", str(ROOT), *shlex.split(listing)[1:]]) == 0
    assert "stop-with-calls: " in out.getvalue()
    if shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    command = curl.replace("\\\n", " ").replace("127.0.0.1:8765", server.base_url[7:])
    done = subprocess.run(shlex.split(command), capture_output=True, timeout=30, check=False)
    assert done.returncode == 0, done.stderr
    turn = toolcall.assemble(done.stdout, wire="chat")
    assert [c.function.name for c in turn.tool_calls] == ["get_weather"]
    assert [d.code for d in turn.diagnostics] == ["stop_with_tool_calls"]


def test_the_manuals_table_of_modes_is_the_servers() -> None:
    """docs/HARNESS.md lists each mode with its wires as the table in `faults` has them."""
    manual = (ROOT / "docs" / "HARNESS.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([a-z0-9_-]+)` \|.*\| ([a-z, ]+|all five) \|$", manual, re.MULTILINE)
    listed = {name: wires for name, wires in rows if name in faults.BY_NAME}
    assert set(listed) == set(faults.BY_NAME)
    for name, wires in listed.items():
        served = tuple(faults.BY_NAME[name].transforms)
        assert (wires == "all five") == (served == faults.WIRE_NAMES), name
        if wires != "all five":
            assert tuple(w.strip() for w in wires.split(",")) == served, name


@pytest.mark.parametrize("wire", ["responses", "anthropic", "gemini", "ollama"])
def test_a_header_asks_for_a_fault_on_every_wire(server: serving.Running, wire: str) -> None:
    path, body = request(wire, "plain")
    response = HTTP.post(
        server.base_url + path, json=body, headers={"X-Toolcall-Fault": "markup-in-content"}
    )
    assert "tool_call_in_text" in observed(wire, response.content)["diagnostics"]


def test_gemini_reads_the_fault_from_its_model_in_the_path_even_encoded(
    server: serving.Running,
) -> None:
    """Gemini's SDK puts the model in the path and may encode its colon."""
    _path, body = request("gemini", "plain")
    path = "/v1beta/models/fault%3Amarkup-in-content:streamGenerateContent?alt=sse"
    response = HTTP.post(server.base_url + path, json=body)
    assert "tool_call_in_text" in observed("gemini", response.content)["diagnostics"]
