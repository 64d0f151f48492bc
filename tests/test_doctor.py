"""`toolcall doctor` on what users capture: every form of capture, every wire, the findings with
their places, the request checks, the report's three forms, the comparison and the bad input.

The captures are written here from one turn on each wire (`wire_bodies`); the whole suite's
published recordings are examined in test_doctor_suite.py (slow), a sample of them here.
"""

from __future__ import annotations

import functools
import gzip
import io
import json
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import toolcall
from tests import wire_bodies
from toolcall.harness import cli
from toolcall.harness.cli import main
from toolcall.harness.doctor import windows
from toolcall.harness.doctor.capture import Capture
from toolcall.harness.doctor.codes import CODES
from toolcall.harness.doctor.reading import HEAD_KEPT, read
from toolcall.harness.reading import wires
from toolcall.harness.suite.profiles import Suite, format_schema, load_suite

ROOT = Path(__file__).resolve().parent.parent
CALLS: list[wire_bodies.Call] = [("get_weather", {"city": "Paris"}), ("get_time", {"tz": "UTC"})]
SECRET = "sk-proj-" + "A1b2C3d4" * 5
SCHEMA = Draft202012Validator(format_schema("doctor.schema.json"))


@pytest.fixture(autouse=True)
def one_suite(monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite's files are loaded once for the module, not once per command run."""
    monkeypatch.setattr(cli, "load_suite", _loaded)


@functools.lru_cache(maxsize=1)
def _loaded(root: Path) -> Suite:
    return load_suite(root)


def doctor(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The command's exit status, standard output and standard error, clients left out unless
    the test names them."""
    argv = ["doctor", *args]
    if not any(a.startswith("--implementation") for a in args):
        argv.append("--no-clients")
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def report(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code, out, _ = doctor(capsys, *args, "--json")
    document = json.loads(out)
    SCHEMA.validate(document)
    return code, document


def written(tmp_path: Path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


@pytest.mark.parametrize("wire", wire_bodies.WIRES)
def test_every_wire_is_named_and_its_calls_assembled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], wire: str
) -> None:
    body = wire_bodies.body(wire, CALLS, text="Looking.")
    code, document = report(capsys, written(tmp_path, "body", body))
    assert code == 0 and document["sound"]
    assert document["wire"]["value"] == wire
    assert [(c["name"], c["arguments"]) for c in document["calls"]] == CALLS
    assert document["turn"]["content"] == "Looking."


def test_gemini_json_array_is_its_own_framing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sse = wire_bodies.body("gemini", CALLS)
    body = wire_bodies.as_json_array(sse, pretty=True)
    _, document = report(capsys, written(tmp_path, "body.json", body))
    assert (document["wire"]["value"], document["framing"]["value"]) == ("gemini", "json-array")
    assert [c["name"] for c in document["calls"]] == ["get_weather", "get_time"]


def _curl_i(body: bytes) -> bytes:
    head = (
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
        f"set-cookie: session={SECRET}\r\nx-request-id: req_1\r\n\r\n"
    )
    return head.encode() + body


def _curl_v(body: bytes) -> bytes:
    meter = "\r100  3291    0  3275  100    16   241k   1209 --:--:-- --:--:-- --:--:--  247k"
    lines = [
        "  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current",
        "                                 Dload  Upload   Total   Spent    Left  Speed",
        meter + "*   Trying 127.0.0.1:8765...",
        "* Connected to api.deepseek.com (127.0.0.1) port 8765",
        "> POST /v1/chat/completions HTTP/1.1",
        "> Host: api.deepseek.com",
        f"> Authorization: Bearer {SECRET}",
        ">",
        "} [52 bytes data]",
        "< HTTP/1.1 200 OK",
        "< Content-Type: text/event-stream",
        "<",
        "{ [1024 bytes data]",
    ]
    half = len(body) // 2
    middle = body[:half] + meter.encode() + body[half:]  # the meter between two writes
    return ("\n".join(lines) + "\n").encode() + middle + b"* Connection #0 left intact\n"


def _har(body: bytes, *, streamed: int = 1) -> bytes:
    request = {"model": "deepseek-chat", "stream": True, "tools": []}
    entry = {
        "request": {
            "method": "POST",
            "url": f"https://api.deepseek.com/v1/chat/completions?key={SECRET}",
            "headers": [{"name": "Authorization", "value": f"Bearer {SECRET}"}],
            "postData": {"mimeType": "application/json", "text": json.dumps(request)},
        },
        "response": {
            "status": 200,
            "headers": [{"name": "Content-Type", "value": "text/event-stream"}],
            "content": {"mimeType": "text/event-stream", "text": body.decode()},
        },
    }
    other = {
        "request": {"method": "GET", "url": "https://api.deepseek.com/v1/models", "headers": []},
        "response": {"status": 200, "headers": [], "content": {"text": '{"data": []}'}},
    }
    return json.dumps({"log": {"entries": [other, *[entry] * streamed]}}).encode()


def _vcrpy(body: bytes) -> bytes:
    import yaml

    interaction = {
        "request": {
            "method": "POST",
            "uri": "https://api.deepseek.com/v1/chat/completions",
            "body": '{"model": "deepseek-chat", "stream": true}',
            "headers": {"Authorization": [f"Bearer {SECRET}"]},
        },
        "response": {
            "status": {"code": 200, "message": "OK"},
            "headers": {"Content-Type": ["text/event-stream"]},
            "body": {"string": body.decode()},
        },
    }
    return yaml.safe_dump({"interactions": [interaction], "version": 1}).encode()


def _go_vcr(body: bytes) -> bytes:
    import yaml

    interaction = {
        "id": 0,
        "request": {
            "url": "https://api.deepseek.com/v1/chat/completions",
            "method": "POST",
            "body": '{"model": "deepseek-chat", "stream": true}',
            "headers": {"Authorization": [f"Bearer {SECRET}"]},
        },
        "response": {
            "code": 200,
            "status": "200 OK",
            "headers": {"Content-Type": ["text/event-stream"]},
            "body": body.decode(),
        },
    }
    return b"---\n" + yaml.safe_dump({"version": 2, "interactions": [interaction]}).encode()


FORMS: dict[str, tuple[Callable[[bytes], bytes], str]] = {
    "body": (lambda b: b, "body"),
    "curl -i": (_curl_i, "curl -i"),
    "curl -v": (_curl_v, "curl -v"),
    "gzip": (gzip.compress, "body"),
    "curl -i, gzip": (lambda b: gzip.compress(_curl_i(b)), "curl -i"),
    "curl -i of a gzip body": (lambda b: _curl_i(gzip.compress(b)), "curl -i"),
    "HAR": (_har, "HAR entry 1"),
    "vcrpy": (_vcrpy, "vcrpy cassette entry 0"),
    "go-vcr": (_go_vcr, "go-vcr cassette entry 0"),
}


@pytest.mark.parametrize("form", FORMS)
def test_every_form_of_capture_gives_the_same_turn_and_no_secret(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], form: str
) -> None:
    body = wire_bodies.body("chat", CALLS)
    make, said = FORMS[form]
    path = written(tmp_path, "capture", make(body))
    code, out, _ = doctor(capsys, path, "--json")
    document = json.loads(out)
    assert code == 0
    assert document["capture"]["form"] == said
    assert [(c["name"], c["arguments"]) for c in document["calls"]] == CALLS
    assert SECRET not in out
    for markdown in (False, True):
        _, shown, _ = doctor(capsys, path, *(["--markdown"] if markdown else []))
        assert SECRET not in shown


def test_a_har_names_the_host_it_was_sent_to(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = wire_bodies.body("chat", CALLS)
    _, document = report(capsys, written(tmp_path, "capture.har", _har(body)))
    assert document["provider"]["value"] == "deepseek"
    assert "api.deepseek.com" in document["provider"]["evidence"][0]
    assert document["route"]["value"] == "direct"


def test_another_wires_endpoint_names_its_provider(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = wire_bodies.body("anthropic", CALLS)
    har = _har(body).replace(
        b"api.deepseek.com/v1/chat/completions", b"api.anthropic.com/v1/messages"
    )
    _, document = report(capsys, written(tmp_path, "c.har", har))
    assert (document["provider"]["value"], document["route"]["value"]) == ("anthropic", "direct")


def test_standard_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    body = gzip.compress(_curl_i(wire_bodies.body("anthropic", CALLS)))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(body)))
    code, document = report(capsys, "-")
    assert code == 0 and document["wire"]["value"] == "anthropic"
    assert document["capture"]["compressed"] and document["capture"]["status"] == 200


def test_several_streamed_entries_are_listed_and_one_is_picked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = written(tmp_path, "two.har", _har(wire_bodies.body("chat", CALLS), streamed=2))
    code, out, err = doctor(capsys, path)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "1: POST" in err and "2: POST" in err and "--entry" in err
    code, document = report(capsys, path, "--entry", "2")
    assert code == 0 and document["capture"]["form"] == "HAR entry 2"


BAD = {
    "empty": (b"", "empty"),
    "whitespace": (b"\n  \n", "empty"),
    "binary": (bytes(range(256)) * 4, "binary"),
    "truncated gzip": (gzip.compress(b"data: {}\n\n" * 400)[:-30], "truncated"),
    "HAR without a stream": (
        json.dumps(
            {
                "log": {
                    "entries": [
                        {
                            "request": {"method": "GET", "url": "/"},
                            "response": {"status": 200, "content": {"text": "{}"}},
                        }
                    ]
                }
            }
        ).encode(),
        "none of the HAR's 1 entries",
    ),
    "not a stream": (b"hello there\n", "no event"),
}


@pytest.mark.parametrize("case", BAD)
def test_bad_input_is_one_clear_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    data, said = BAD[case]
    code, out, err = doctor(capsys, written(tmp_path, "bad", data))
    assert (code, out) == (2, "")
    assert err.startswith("toolcall doctor: ") and err.count("\n") == 1 and said in err
    assert "Traceback" not in err


def test_a_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = doctor(capsys, str(tmp_path / "nothing"))
    assert code == 2 and "no such file" in err


def _chat_events(*deltas: dict[str, Any], finish: str | None = "tool_calls") -> bytes:
    chunks = [
        {"id": "c", "choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas
    ]
    if finish is not None:
        chunks.append({"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    return wire_bodies.frame("chat", [*chunks, "[DONE]"])


def _call(index: int | None, ident: str | None, name: str | None, arguments: str) -> dict[str, Any]:
    call: dict[str, Any] = {"function": {"arguments": arguments}}
    if index is not None:
        call["index"] = index
    if ident is not None:
        call["id"], call["type"] = ident, "function"
    if name is not None:
        call["function"]["name"] = name
    return {"tool_calls": [call]}


def codes(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["code"]: f for f in document["findings"]}


def test_calls_sharing_an_index_are_found_where_the_second_begins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = _chat_events(
        _call(0, "call_a", "get_weather", '{"city": "Paris"}'),
        _call(0, "call_b", "get_time", '{"tz": "UTC"}'),
    )
    code, document = report(capsys, written(tmp_path, "b", body))
    found = codes(document)["index_reused"]
    assert code == 0 and found["severity"] == "warning"
    assert found["where"]["event"] == 1
    assert found["where"]["offset"] == body.index(b"data:", body.index(b"call_a"))
    assert "call_b" in found["excerpt"]


def test_markup_in_the_text_names_the_parser_setting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    body = _chat_events({"content": "Let me look. "}, {"content": text}, finish="stop")
    code, document = report(capsys, written(tmp_path, "b", body))
    found = codes(document)["tool_call_in_text"]
    assert code == 1 and not document["sound"]
    assert found["where"]["event"] == 1 and "--tool-call-parser hermes" in found["cause"]
    _, text_out, _ = doctor(capsys, written(tmp_path, "b", body))
    assert "usual cause" in text_out and "NOT SOUND" in text_out


MARKUP = {
    "kimi_k2": "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
    '<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>',
    "deepseek_v3": "<\uff5ctool\u2581calls\u2581begin\uff5c><\uff5ctool\u2581call\u2581begin"
    '\uff5c>function<\uff5ctool\u2581sep\uff5c>get_weather\n```json\n{"city": "Paris"}\n```',
    "glm45": "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n"
    "</tool_call>",
    "openai": '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city"'
    ': "Paris"}<|call|>',
    "mistral": '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}',
}


@pytest.mark.parametrize("parser", MARKUP)
def test_each_familys_markup_names_its_parser(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], parser: str
) -> None:
    body = _chat_events({"reasoning_content": "I will call it."}, {"content": MARKUP[parser]})
    code, document = report(capsys, written(tmp_path, "b", body))
    found = codes(document)
    assert code == 1 and f"--tool-call-parser {parser}" in found["tool_call_in_text"]["cause"]
    assert found["tool_call_in_text"]["where"]["event"] == 1


def test_a_cut_call_is_found_at_the_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = _chat_events(_call(0, "call_a", "get_weather", '{"city": "Pa'), finish=None)
    body = body.replace(b"data: [DONE]\n\n", b"")
    code, document = report(capsys, written(tmp_path, "b", body))
    found = codes(document)["truncated"]
    assert code == 1 and found["where"] == {"event": None, "offset": len(body)}
    (call,) = document["calls"]
    assert (call["name"], call["complete"], call["event"]) == ("get_weather", False, 0)
    assert (call["arguments"], call["arguments_text"]) == (None, '{"city": "Pa')


def test_finish_for_calls_without_a_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = _chat_events({"content": "Done."}, finish="tool_calls")
    code, document = report(capsys, written(tmp_path, "b", body))
    found = codes(document)["calls_lost"]
    assert code == 1 and found["where"] == {"event": 1, "offset": body.index(b"data:", 10)}
    assert '"finish_reason": "tool_calls"' in found["excerpt"]


@pytest.mark.parametrize("name", ["get_weather<|channel|>commentary", ""])
def test_special_tokens_in_a_name_or_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    body = _chat_events(_call(0, "call_a", name, "{}"))
    code, document = report(capsys, written(tmp_path, "b", body))
    assert code == 1 and "bad_name" in codes(document)


def test_the_request_checks_arguments_and_tool_choice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "parameters": {
                    "type": "object",
                    "properties": {"city": {"type": "integer"}},
                    "required": ["city"],
                },
            },
        }
    ]
    request = written(tmp_path, "request.json", json.dumps({"tools": tools}).encode())
    body = written(tmp_path, "b", wire_bodies.body("chat", CALLS))
    code, document = report(capsys, body, "--request", request)
    found = codes(document)
    assert code == 1
    assert "schema_mismatch" in found and "$.city" in found["schema_mismatch"]["message"]
    assert "unknown_tool" in found and "get_time" in found["unknown_tool"]["message"]
    required = json.dumps({"tools": tools, "tool_choice": "required"}).encode()
    text_only = written(tmp_path, "t", _chat_events({"content": "No."}, finish="stop"))
    code, document = report(capsys, text_only, "--request", written(tmp_path, "r2", required))
    assert code == 1 and "tool_choice_ignored" in codes(document)


def test_the_request_is_read_on_every_wire(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Anthropic's `input_schema` and Gemini's `functionDeclarations` are checked as chat's."""
    schema = {"type": "object", "properties": {"city": {"type": "integer"}}}
    requests = {
        "anthropic": {"tools": [{"name": "get_weather", "input_schema": schema}]},
        "gemini": {
            "tools": [{"functionDeclarations": [{"name": "get_weather", "parameters": schema}]}]
        },
        "responses": {"tools": [{"type": "function", "name": "get_weather", "parameters": schema}]},
    }
    for wire, asked in requests.items():
        body = written(tmp_path, wire, wire_bodies.body(wire, CALLS[:1]))
        request = written(tmp_path, f"{wire}.json", json.dumps(asked).encode())
        code, document = report(capsys, body, "--request", request)
        assert code == 1 and "schema_mismatch" in codes(document), wire


def test_every_library_diagnostic_has_a_code() -> None:
    assert set(toolcall.DIAGNOSTIC_CODES) <= set(CODES)
    assert {severity for severity, _ in CODES.values()} == {"error", "warning", "info"}


def test_markdown_is_a_bug_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = _chat_events(_call(0, "call_a", "get_weather<|channel|>commentary", "{}"))
    code, out, _ = doctor(capsys, written(tmp_path, "b", body), "--markdown")
    assert code == 1
    assert out.startswith("### Streamed tool call: bad_name")
    assert "```" in out and f"toolcall {toolcall.__version__}" in out


def test_two_captures_name_the_layer_that_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    upstream = written(tmp_path, "up", wire_bodies.body("anthropic", CALLS))
    merged = _chat_events(
        _call(0, "call_0", "get_weather", '{"city": "Paris"}'),
        _call(0, None, None, '{"tz": "UTC"}'),
    )
    downstream = written(tmp_path, "down", merged)
    code, out, _ = doctor(capsys, upstream, downstream, "--json")
    document = json.loads(out)
    SCHEMA.validate(document)
    layers = {c["layer"]: c for c in document["changes"]}
    assert code == 1
    assert layers["wire"]["a"] == "anthropic" and layers["wire"]["b"] == "chat"
    assert layers["calls"]["a"] == 2 and layers["calls"]["b"] == 1
    assert "invalid_arguments" in layers["findings"]["b"]  # {"city": "Paris"}{"tz": "UTC"}
    _, markdown, _ = doctor(capsys, upstream, downstream, "--markdown")
    assert "| calls | the number of calls | `2` | `1` |" in markdown
    same = written(tmp_path, "same", wire_bodies.body("anthropic", CALLS))
    code, out, _ = doctor(capsys, upstream, same)
    assert code == 0 and "no layer changed anything" in out


@pytest.mark.slow
def test_the_clients_are_judged_with_a_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two calls on one index: the openai SDK's accumulator merges them; the fix says so."""
    pytest.importorskip("openai")
    body = _chat_events(
        _call(0, "call_a", "get_weather", '{"city": "Paris"}'),
        _call(0, "call_b", "get_time", '{"tz": "UTC"}'),
    )
    path = written(tmp_path, "b", body)
    code, out, _ = doctor(
        capsys, path, "--json", "--implementation", "toolcall", "--implementation", "openai-sdk"
    )
    verdicts = {v["name"]: v for v in json.loads(out)["clients"]}
    assert code == 0 and verdicts["toolcall"]["verdict"] == "pass"
    assert verdicts["openai-sdk"]["verdict"] == "merged calls"
    assert "index" in verdicts["openai-sdk"]["fix"]


def test_the_body_alone_is_written_for_publish(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = wire_bodies.body("chat", CALLS)
    out = tmp_path / "body.sse"
    _, document = report(capsys, written(tmp_path, "c.har", _har(body)), "--body-out", str(out))
    assert out.read_bytes() == body
    assert document["publish"].startswith(f"toolcall scan {out} && toolcall publish {out} ")
    assert "--provider deepseek --model deepseek-chat" in document["publish"]


def test_the_publish_command_is_printed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = written(tmp_path, "b.sse", wire_bodies.body("chat", CALLS))
    _, document = report(capsys, path)
    assert document["publish"].startswith(f"toolcall scan {path} && toolcall publish {path} ")
    assert "--origin" in document["publish"]


PUBLISHED_AS = {
    "responses": ("sse", ".sse"),
    "anthropic": ("sse", ".sse"),
    "gemini": ("json-array", ".json"),
    "ollama": ("ndjson", ".ndjson"),
}


@pytest.mark.parametrize("wire", PUBLISHED_AS)
def test_the_printed_publish_command_keeps_another_wires_capture(
    wire: str, suite_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """On every wire the printed command runs as printed, once its placeholders are filled in:
    the capture is kept verbatim under cassettes/wires/<wire>/."""
    framing, suffix = PUBLISHED_AS[wire]
    body = wire_bodies.frame(wire, wire_bodies.events(wire, CALLS), framing=framing)
    path = written(tmp_path, f"turn{suffix}", body)
    _, document = report(capsys, path)
    scan, publish = document["publish"].split("  #")[0].split(" && ")
    assert scan == f"toolcall scan {path}"
    words = shlex.split(publish)
    assert words[:5] == ["toolcall", "publish", path, "--wire", wire]
    recorded_as = next(o.recorded_as[0] for o in _loaded(ROOT).wire_offers if o.wire == wire)
    fill = {"PROVIDER": recorded_as, "MODEL": "m", "OWNER/NAME": "o/n", "COMMIT": "0" * 40}
    filled = [fill.get(word, word) for word in words]
    assert main(["--root", str(suite_copy), *filled[1:]]) == 0
    kept = suite_copy / "cassettes" / "wires" / wire / f"turn{suffix}"
    assert kept.read_bytes() == body
    source = json.loads(kept.with_name("turn.source.json").read_text(encoding="utf-8"))
    assert (source["wire"], source["framing"]) == (wire, framing)


def test_the_body_is_read_a_window_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """A body handed over in chunks is read by windows: the first event comes out once one
    window is read, and reading on reads on by windows, never the whole body (here endless)."""
    monkeypatch.setattr(windows, "WINDOW", 1 << 18)
    taken = 0
    event = b'data: {"choices":[{"index":0,"delta":{"content":"x"}}]}\n\n'
    chunk = event * 1000

    def endless() -> Any:
        nonlocal taken
        while True:
            taken += 1
            yield chunk

    read = windows.pieces("sse", endless())
    first = next(read)
    assert (first.number, first.start, first.raw) == (0, 0, event)
    per_window = windows.WINDOW // len(chunk) + 1
    assert taken == per_window
    for number in range(1, 3 * per_window * 1000):
        piece = next(read)
        assert (piece.number, piece.start) == (number, number * len(event))
    assert taken <= 4 * per_window + 1


@pytest.mark.slow
def test_a_large_body_holds_a_bounded_amount(monkeypatch: pytest.MonkeyPatch) -> None:
    """20 000 events read through a generator: what the reading keeps is bounded by its
    windows, not by the body."""
    event = b'data: {"choices":[{"index":0,"delta":{"content":"' + b"x" * 200 + b'"}}]}\n\n'
    count = 20_000

    def chunks() -> Any:
        for _ in range(count // 100):
            yield event * 100

    reading = read(Capture("big", "body", chunks))
    assert reading.size == count * len(event) and reading.events == count
    assert len(reading.head) <= HEAD_KEPT + len(event)
    assert len(reading.excerpts) <= 3 and len(reading.first_events) == 64
    assert isinstance(reading.error, toolcall.StreamError)  # no finish: cut off


@pytest.mark.parametrize(
    ("path", "wire", "provider", "route"),
    [
        (
            "cassettes/openai/published/fantasy_azure_gpt-5-mini_tool.yaml",
            "chat",
            "openai",
            "azure",
        ),
        (
            "cassettes/kimi/published/fantasy_openrouter-baseten_kimi-k2_multi_tool.yaml",
            "chat",
            "kimi",
            "openrouter-baseten",
        ),
        (
            "cassettes/wires/anthropic/vercel-ai_claude-sonnet-4-5_3parallel_padded.jsonl",
            "anthropic",
            "anthropic",
            "unknown",
        ),
        (
            "cassettes/wires/gemini/llm-gemini_gemini-2.5-flash_tools_json-array.json",
            "gemini",
            "gemini",
            "unknown",
        ),
    ],
)
def test_a_sample_of_the_published_recordings_is_named(
    capsys: pytest.CaptureFixture[str], path: str, wire: str, provider: str, route: str
) -> None:
    _, document = report(capsys, str(ROOT / path))
    named = (document["wire"]["value"], document["provider"]["value"], document["route"]["value"])
    assert named == (wire, provider, route)


def test_an_error_answer_is_the_providers_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answer = (
        b"> POST /v1/messages HTTP/1.1\n> Host: api.anthropic.com\n>\n"
        b"< HTTP/1.1 429 Too Many Requests\n< content-type: application/json\n<\n"
        b'{"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}\n'
    )
    code, document = report(capsys, written(tmp_path, "answer", answer))
    found = codes(document)["http_error"]
    assert code == 1 and "slow down" in found["message"]
    assert document["wire"]["value"] == "anthropic"
    assert document["capture"]["status"] == 429


@pytest.mark.parametrize("size", [64, 200, 1000])
@pytest.mark.parametrize("form", [*wire_bodies.WIRES, "json-array"])
def test_windows_read_what_the_body_reader_reads_whole(
    monkeypatch: pytest.MonkeyPatch, form: str, size: int
) -> None:
    """Read a window at a time, any window size, a body gives the events the harness's body
    reader gives for it whole: the same numbers, offsets and bytes."""
    monkeypatch.setattr(windows, "WINDOW", size)
    body = wire_bodies.body(
        "gemini" if form == "json-array" else form, CALLS, text="Looking it up."
    )
    framing = {"json-array": "json-array", "ollama": "ndjson"}.get(form, "sse")
    if form == "json-array":
        body = wire_bodies.as_json_array(body, pretty=True)
    wire = {"sse": "chat", "ndjson": "ollama", "json-array": "gemini"}[framing]
    whole = [(e.number, e.start, e.raw) for e in wires.events(wire, body, framing)]
    chunks = (body[at : at + 7] for at in range(0, len(body), 7))
    read = [(p.number, p.start, p.raw) for p in windows.pieces(framing, chunks)]
    assert read == whole and b"".join(raw for _, _, raw in read) == body


def test_a_body_the_reader_refuses_is_found_at_its_event(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bytes that are not UTF-8 in the middle of a body: the events before them are read, the
    finding names the event and offset where they are, and nothing after them is needed."""
    monkeypatch.setattr(windows, "WINDOW", 128)
    events = wire_bodies.body("chat", CALLS).split(b"\n\n")
    broken = b'data: {"x": "\xff\xfe"}'
    body = b"\n\n".join([*events[:2], broken, *events[2:]])
    code, document = report(capsys, written(tmp_path, "b", body))
    found = codes(document)["broken_stream"]
    assert code == 1 and found["where"] == {"event": 2, "offset": body.index(broken)}


def test_a_quirk_names_who_else_sends_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`id: ""` on a call's later deltas, as DashScope sends it: the finding names Qwen's
    profile, which declares it, and the recording that shows it."""
    body = _chat_events(
        _call(0, "call_a", "get_weather", ""),
        _call(0, "", None, '{"city": '),
        _call(0, "", None, '"Paris"}'),
    )
    code, document = report(capsys, written(tmp_path, "b", body))
    (found,) = [f for f in document["findings"] if f["message"].startswith("later_id = 'empty'")]
    assert code == 0 and found["code"] == "quirk" and found["severity"] == "info"
    assert any("providers.qwen.quirks.later_id" in place for place in found["declared_by"])
    assert "vercel-ai_qwen3-max-tool-call" in found["shown_in"]


@pytest.mark.parametrize(
    "asked",
    [
        {"tool_choice": "none"},
        {"parallel_tool_calls": False},
        {"tool_choice": {"type": "auto", "disable_parallel_tool_use": True}},
        {"toolConfig": {"functionCallingConfig": {"mode": "NONE"}}},
    ],
)
def test_calls_the_request_forbade(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], asked: dict[str, Any]
) -> None:
    request = written(tmp_path, "request.json", json.dumps(asked).encode())
    body = written(tmp_path, "b", wire_bodies.body("chat", CALLS))
    code, document = report(capsys, body, "--request", request)
    assert code == 1 and "tool_choice_ignored" in codes(document)


def test_the_ids_shape_is_evidence(capsys: pytest.CaptureFixture[str]) -> None:
    """Together rewrites Kimi's `functions.add:0` ids as `call_...`: the evidence says the ids
    do not fit Kimi's profile, and the route that changes them is named."""
    path = ROOT / "cassettes/kimi/published/fantasy_openrouter-together_kimi-k2_multi_tool.yaml"
    _, document = report(capsys, str(path))
    assert (
        "the call ids do not fit providers.kimi.quirks.id_pattern"
        in document["provider"]["evidence"]
    )
    assert document["route"]["value"] == "openrouter-together"
    _, direct = report(
        capsys, str(ROOT / "cassettes/glm/published/fantasy_zai-glm-4.6_multi_tool.yaml")
    )
    assert "the call ids fit providers.glm.quirks.id_pattern" in direct["provider"]["evidence"]


def _har_of(entry: object) -> str:
    return json.dumps({"log": {"entries": [entry]}})


HOSTILE = {
    "entries not a list": json.dumps({"log": {"entries": {}}}),
    "an entry not an object": _har_of(1),
    "an entry without a response": _har_of({"request": {}}),
    "a body that is a number": _har_of(
        {"request": {"method": "POST", "url": "u"}, "response": {"content": {"text": 5}}}
    ),
    "headers not a list": _har_of(
        {
            "request": {"method": "POST", "url": "u", "headers": [1]},
            "response": {"status": 200, "headers": "x", "content": {"text": "data: {}\n\n"}},
        }
    ),
    "a HAR cut short": '{"log": {"entries": [',
    "interactions not a list": "interactions: {a: 1}\n",
    "a cassette cut short": "interactions:\n  - request: [\n",
    "an interaction without a response": "interactions:\n- request: {uri: u}\n",
    "headers and no body": "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n",
    "curl's lines alone": "* Trying\n> GET / HTTP/1.1\n>\n",
    "a status that is none": "HTTP/1.1 999 Weird\r\n\r\ndata: {}\n\n",
    "JSON nested past any limit": "data: " + "[" * 100_000 + "\n\n",
    "a byte-order mark alone": "\ufeff",
    "lines that are not JSON": '{"a": 1}\n{bad\n',
    "an array cut short": '[{"a": 1}, {bad',
}


@pytest.mark.parametrize("case", HOSTILE)
def test_hostile_input_never_breaks_the_doctor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    path = tmp_path / "hostile"
    path.write_text(HOSTILE[case], encoding="utf-8")
    code, out, err = doctor(capsys, str(path))
    assert code in (1, 2)
    if code == 2:
        assert out == "" and err.count("\n") == 1 and err.startswith(f"toolcall doctor: {path}")


REPAIRED = {
    # the name sent whole again on a later delta (hermes-agent#8259's `read_fileread_file`)
    "name_repeated": [
        _call(0, "call_a", "get_weather", '{"city": '),
        _call(0, None, "get_weather", '"Paris"}'),
    ],
    # every fragment resends the arguments so far (hermes-agent#35718's cumulative mode)
    "arguments_resent": [
        _call(0, "call_a", "get_weather", '{"city": '),
        _call(0, None, None, '{"city": "Paris"}'),
    ],
    # no index on the deltas (AstrBot#6692, Gemini's compatible endpoint)
    "index_absent": [
        _call(None, "call_a", "get_weather", '{"city": "Paris"}'),
    ],
}


@pytest.mark.parametrize("code", REPAIRED)
def test_a_repaired_quirk_is_a_warning_at_its_event(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], code: str
) -> None:
    deltas = REPAIRED[code]
    body = _chat_events(*deltas)
    status, document = report(capsys, written(tmp_path, "b", body))
    found = codes(document)[code]
    assert status == 0 and found["severity"] == "warning"
    # a resend is told only once the call's arguments are whole: at the end of the body
    where = None if code == "arguments_resent" else len(deltas) - 1
    assert found["where"]["event"] == where
    assert document["calls"][0]["arguments"] == {"city": "Paris"}
