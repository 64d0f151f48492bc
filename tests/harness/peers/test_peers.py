"""Other assemblers against the suite: the subprocess protocol, the adapters, and the verdicts.

The example external assembler (`examples/external_assembler.py`) is run through the protocol
exactly as `toolcall matrix --external` runs it, and its known bugs must show in the matrix: if
the protocol or the judging broke, these tests fail.
"""

from __future__ import annotations

import base64
import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

import toolcall
from toolcall.harness.cli import main
from toolcall.harness.matrix import run as matrix
from toolcall.harness.matrix.verdict import PASS, Expected, judge
from toolcall.harness.peers import CHAT, Assembled, Call, Implementation, Stream, reads
from toolcall.harness.peers.external import (
    Crashed,
    External,
    SpecError,
    environment_specs,
    parse_spec,
    read_document,
)
from toolcall.harness.peers.installed import require
from toolcall.harness.peers.reference import Reference, sse_body
from toolcall.harness.reading import streams, walk
from toolcall.harness.reports import matrix as matrix_report
from toolcall.harness.suite.case import CUT, WIRE_RECORDING, Filters, cases
from toolcall.harness.suite.cassettes import cassette_path, load, response_body
from toolcall.harness.suite.profiles import load_suite
from toolcall.harness.suite.recordings import JSON_ARRAY

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "external_assembler.py"
NAIVE = f"naive={shlex.quote(sys.executable)} {shlex.quote(str(EXAMPLE))}"


def _body(provider: str, scenario: str) -> bytes:
    return response_body(load(cassette_path(ROOT / "cassettes", provider, scenario)))


def _chunks(provider: str, scenario: str) -> list[walk.Chunk]:
    return walk.chunks(_body(provider, scenario))


def _stream(provider: str, scenario: str, request: dict[str, Any] | None = None) -> Stream:
    return Stream(CHAT, _body(provider, scenario), request or {})


def _python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def _failures(result: matrix.Matrix, name: str) -> dict[str, str]:
    return {
        f"{r.provider}/{r.scenario}": r.verdict.label
        for r in result.results
        if r.implementation == name and not r.verdict.passed
    }


def _run(
    names: list[str], externals: list[str], provider: str, wire: str | None = None
) -> matrix.Matrix:
    suite = load_suite(ROOT)
    implementations, unavailable = matrix.roster(names, externals, timeout=20, cwd=ROOT)
    result = matrix.run(suite, implementations, filters=Filters(provider=provider, wire=wire))
    result.unavailable.update(unavailable)
    return result


# The subprocess protocol, through the example in docs/PROTOCOL.md.


@pytest.mark.slow
@pytest.mark.parametrize(
    ("provider", "wire", "failures"),
    [
        (
            "gemini",
            "chat",  # its recordings on the Gemini wire: the next test
            {
                "gemini/parallel_calls": "merged calls",
                # Vertex repeats the whole name on every chunk (a published recording).
                "gemini/published/vertex-docs_gemini-3.1-pro_stream_function_call_arguments": (
                    "doubled name"
                ),
            },
        ),
        (
            "openai",
            None,
            {
                "openai/long_arguments_truncated": "truncated arguments passed as valid",
                # The cut of its long_arguments cassette synthesized on Responses.
                "openai@responses/long_arguments_truncated": "truncated arguments passed as valid",
                # The cut-off variants of OpenAI's Responses recordings: `incomplete` unread.
                **{
                    f"openai/responses/{name}_truncated": "truncated arguments passed as valid"
                    for name in (
                        "fantasy_responses_gpt-4o_multi_tool",
                        "fantasy_responses_gpt-5_multi_tool",
                        "pydantic-ai_responses_gpt-4o_stream",
                    )
                },
            },
        ),
    ],
)
def test_example_external_assembler_shows_its_real_bugs(
    provider: str, wire: str | None, failures: dict[str, str]
) -> None:
    result = _run(["toolcall", "naive"], [NAIVE], provider, wire)
    assert _failures(result, "naive") == failures
    assert _failures(result, "toolcall") == {}
    assert not result.reference_failed
    merged = [r for r in result.results if r.verdict.label == "merged calls"]
    for r in merged:
        assert '{"city":"Tokyo","unit":"celsius"}{"city":"Paris"' in r.verdict.reason


@pytest.mark.slow
def test_example_external_assembler_shows_its_real_bugs_on_the_other_wires() -> None:
    """Every wire recording and its cut-off variant go to the example through the protocol; its
    naive readers fail where the recordings show why, and on every cut, since it never reads how
    a turn ended (Responses' `incomplete`, Anthropic's `max_tokens`, Gemini's `MAX_TOKENS`,
    Ollama's `length`)."""
    suite = load_suite(ROOT)
    recorded = list(cases(suite, Filters(kind=WIRE_RECORDING)))
    cut = [c for c in cases(suite, Filters(kind=CUT)) if c.wire != CHAT]
    assert {case.wire for case in recorded} == {"responses", "anthropic", "gemini", "ollama"}
    assert {case.wire for case in cut} == {"responses", "anthropic", "gemini", "ollama"}
    (naive,), _ = matrix.roster(["naive"], [NAIVE], timeout=20, cwd=ROOT)
    column = matrix._column(naive, recorded + cut, float("inf"))
    # Gemini's JSON-array bodies go only to an implementation that names that framing.
    arrays = [case for case in recorded if case.framing]
    assert arrays and len(column) == len(recorded) + len(cut) - len(arrays)
    failed = [r for r in column if not r.verdict.passed]
    failures = {r.scenario: r.verdict.label for r in failed}
    vertex = "gemini/vercel-ai_vertex_gemini-3"
    lmstudio = "responses/vercel-ai_lmstudio_glm-4.7-flash_responses_tool-call"
    assert failures == {
        # Vertex streams a call's arguments as `partialArgs` parts, each taken for a call.
        f"{vertex}-flash-preview_partialArgs_array": "wrong number of calls",
        f"{vertex}-flash-preview_partialArgs_noargs+3parallel": "wrong number of calls",
        f"{vertex}.1-pro-preview_partialArgs_parallel": "wrong number of calls",
        # LM Studio sends a call's arguments in `response.function_call_arguments.done` only.
        lmstudio: "invalid JSON arguments",
        f"{lmstudio}-2": "invalid JSON arguments",
        # A web search Anthropic runs streams its query as `input_json_delta` too, in a block
        # that opened no call (synthesized from the documentation, FACTS.md §12).
        "anthropic/synthesized_anthropic_web_search": "crash",
        # Each cut is handed over as if the turn had ended: the wire's cut is never reported.
        **{case.scenario: "truncated arguments passed as valid" for case in cut},
    }
    unreported = {  # each wire's own way of saying the turn hit its limit, named in the reason
        "responses": "status 'incomplete' (max_output_tokens) not reported",
        "anthropic": "stop_reason 'max_tokens' not reported",
        "gemini": "finishReason 'MAX_TOKENS' not reported",
        "ollama": "done_reason 'length' not reported",
    }
    cuts = {case.scenario for case in cut}
    assert all(unreported[r.wire] in r.verdict.reason for r in failed if r.scenario in cuts)


#: A protocol-3 program whose answer to each stream is `ANSWER` (a Python expression over `m`,
#: the assemble message); `HELLO` is its handshake.
_PROGRAM = """
import json, sys
HELLO = {hello}
for line in sys.stdin:
    m = json.loads(line)
    if m["cmd"] == "start":
        print(json.dumps(HELLO), flush=True)
    elif m["cmd"] == "assemble":
        print(json.dumps({answer}), flush=True)
"""
_WHO = '"implementation": {"name": "t", "version": "1", "language": "python"}'
_HELLO = '{"protocol": 3, ' + _WHO + ', "wires": ["chat", "ollama"]}'
_HELLO_V2 = '{"protocol": 2, ' + _WHO + "}"
#: An answer that echoes the assemble message as a call's arguments, which reach the harness
#: whole (an error text is cut).
_ECHO = (
    '{"seq": m["seq"], "tool_calls": [{"id": "e", "type": "function", "function": '
    '{"name": "echo", "arguments": json.dumps(m)}}]}'
)


def _program(answer: str, hello: str = _HELLO) -> list[str]:
    return _python(_PROGRAM.format(hello=hello, answer=answer))


def test_external_gets_wire_body_events_and_request_and_names_itself() -> None:
    stream = _stream("qwen", "parallel_calls", {"tools": []})
    external = External("echo", _program(_ECHO))
    assert external.version == "t 1 (python)"
    assert external.wires == ("chat", "ollama")
    (answer,) = external.assemble(stream).calls
    sent = json.loads(answer.arguments)
    assert sent["wire"] == "chat" and sent["request"] == {"tools": []}
    assert base64.b64decode(sent["body_base64"]) == stream.body
    assert sent["events"] == sent["chunks"] == _chunks("qwen", "parallel_calls")
    ollama = Stream("ollama", b'{"message": {"content": "hi"}, "done": true}\n', {})
    (again,) = external.assemble(ollama).calls  # the same process, the next seq
    sent = json.loads(again.arguments)
    assert sent["seq"] == 2 and sent["wire"] == "ollama" and "chunks" not in sent
    assert sent["events"] == [{"message": {"content": "hi"}, "done": True}]
    with pytest.raises(Crashed, match="was handed a gemini stream"):
        external.assemble(Stream("gemini", b"", {}))
    process = external._process
    external.close()
    assert process is not None and process.poll() == 0


def test_an_undecodable_body_goes_as_bytes_with_no_events() -> None:
    external = External("echo", _program(_ECHO))
    try:
        (answer,) = external.assemble(Stream(CHAT, b"data: {not json\n\n", {})).calls
    finally:
        external.close()
    sent = json.loads(answer.arguments)
    assert sent["events"] is None and "chunks" not in sent
    assert base64.b64decode(sent["body_base64"]) == b"data: {not json\n\n"


@pytest.mark.slow
def test_a_program_that_names_the_json_array_framing_gets_those_bodies_with_their_events() -> None:
    """Gemini's answer without `?alt=sse` is one JSON array: its rows go to a program that says
    it reads that framing, with each element as an event; an HTTP client never gets them."""
    suite = load_suite(ROOT)
    arrays = [c for c in cases(suite, Filters(kind=WIRE_RECORDING)) if c.framing == JSON_ARRAY]
    assert arrays
    hello = '{"protocol": 3, ' + _WHO + ', "wires": ["gemini"], "framings": ["json-array"]}'
    external = External("arrays", _program(_ECHO, hello=hello))
    try:
        assert external.framings == (JSON_ARRAY,) and reads(external, "gemini", JSON_ARRAY)
        column = matrix._column(external, arrays, float("inf"))
        assert {r.scenario for r in column} == {c.scenario for c in arrays}
        (answer,) = external.assemble(arrays[0].stream).calls
    finally:
        external.close()
    sent = json.loads(answer.arguments)
    assert sent["events"] == json.loads(arrays[0].body) and len(sent["events"]) > 1
    client = hello.replace('"framings"', '"http_client": true, "framings"')
    fetcher = External("client", _program(_ECHO, hello=client))
    try:
        assert fetcher.framings == () and not reads(fetcher, "gemini", JSON_ARRAY)
    finally:
        fetcher.close()


#: An HTTP client in a few lines: it fetches each stream from where the harness serves it and
#: answers with what it got (base64) as a call's arguments.
_FETCHER = """
import base64, json, sys, urllib.request
ENDINGS = {"chat": "/chat/completions", "anthropic": "/messages"}
for line in sys.stdin:
    m = json.loads(line)
    if m["cmd"] == "start":
        me = {"name": "fetcher", "version": "1", "language": "python"}
        hello = {"protocol": 3, "implementation": me, "wires": ["chat", "anthropic"],
                 "http_client": True}
        print(json.dumps(hello), flush=True)
    elif m["cmd"] == "assemble":
        served = m["served"]
        url = served["base_url"] + ENDINGS[m["wire"]]
        headers = {**served["headers"], "Content-Type": "application/json"}
        asked = urllib.request.Request(url, b'{"stream": true}', headers)
        got = base64.b64encode(urllib.request.urlopen(asked).read()).decode()
        call = {"id": "f", "type": "function", "function": {"name": "got", "arguments": got}}
        print(json.dumps({"seq": m["seq"], "tool_calls": [call]}), flush=True)
"""


@pytest.mark.slow
def test_an_http_client_program_fetches_each_stream_where_it_is_served() -> None:
    """The JavaScript clients' way in, without Node: a chat body from `toolcall serve` under its
    token, another wire's from its own path; both the very bytes every other column gets."""
    anthropic = next(cases(load_suite(ROOT), Filters(kind=WIRE_RECORDING, wire="anthropic"))).stream
    external = External("fetcher", _python(_FETCHER), timeout=30)
    try:
        for stream in (_stream("qwen", "parallel_calls"), anthropic):
            (answer,) = external.assemble(stream).calls
            assert base64.b64decode(answer.arguments) == stream.body, stream.wire
    finally:
        external.close()


def test_a_protocol_2_program_gets_chat_chunks_only_and_says_so() -> None:
    external = External("old", _program(_ECHO, hello=_HELLO_V2))
    try:
        assert external.version == "t 1 (python), protocol 2: chat streams only"
        assert external.wires == (CHAT,)
        (answer,) = external.assemble(_stream("qwen", "parallel_calls")).calls
    finally:
        external.close()
    sent = json.loads(answer.arguments)
    assert set(sent) == {"cmd", "seq", "request", "chunks"}
    assert sent["chunks"] == _chunks("qwen", "parallel_calls")


def test_external_document_becomes_calls() -> None:
    document = {
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        ]
    }
    assert read_document(document) == Assembled(calls=(Call("c1", "f", "{}"),))
    assert read_document({"error": "cut off"}) == Assembled(error="cut off")
    both = read_document({**document, "error": "invalid input"})
    assert both == Assembled(calls=(Call("c1", "f", "{}"),), error="invalid input")


@pytest.mark.parametrize(
    ("program", "reason"),
    [
        (
            _python(
                "import sys; print('working', file=sys.stderr); "
                "print('ValueError: boom', file=sys.stderr); sys.exit(3)"
            ),
            "crash: exit status 3: ValueError: boom",
        ),
        (_python("print('not json', flush=True); input()"), "crash: sent a line that is not JSON"),
        (
            _program(
                "{}",
                hello='{"protocol": 1, "implementation": '
                '{"name": "old", "version": "1", "language": "go"}}',
            ),
            "crash: speaks protocol 1, the harness speaks 3 (and 2, chat only",
        ),
        (
            _program('{"protocol": 3}', hello='{"protocol": 3}'),
            "crash: program sent a bad 'started'",
        ),
        (
            _program("{}", hello='{"protocol": 3, ' + _WHO + ', "wires": ["grpc"]}'),
            "crash: program sent a bad 'started' message: ['wires'][0]",
        ),
        (  # version 3 names the wires it reads
            _program("{}", hello='{"protocol": 3, ' + _WHO + "}"),
            "crash: program sent a bad 'started' message: the message: 'wires' is a required",
        ),
        (_program('{"tool_calls": []}'), "crash: program sent a bad 'answer' message"),
        (_program('{"seq": 7, "tool_calls": []}'), "crash: answered seq 7 to seq 1"),
        (
            _program('{"seq": m["seq"], "tool_calls": [{"id": 1, "function": {"name": "f"}}]}'),
            "crash: program sent a bad 'answer' message: ['tool_calls'][0]",
        ),
        (_program('__import__("time").sleep(5)'), "crash: timed out after 0.5 s"),
    ],
)
def test_external_protocol_breaks_are_crashes(program: list[str], reason: str) -> None:
    external = External("broken", program, timeout=0.5)
    try:
        with pytest.raises(Crashed) as raised:
            external.assemble(_stream("openai", "text_only"))
    finally:
        external.close()
    verdict = judge(Expected(), raised.value)
    assert verdict.label == "crash"
    assert verdict.reason.startswith(reason), verdict.reason


def test_external_missing_program_is_a_crash() -> None:
    external = External("gone", ["/nonexistent/assembler"])
    with pytest.raises(Crashed, match="cannot start"):
        external.assemble(Stream(CHAT, b"", {}))
    assert "no handshake: cannot start" in external.version


def test_external_specs_from_flag_and_environment() -> None:
    assert parse_spec("go=go run ./cmd/assemble -v") == (
        "go",
        ["go", "run", "./cmd/assemble", "-v"],
    )
    for bad in ("no-equals", "=cmd", "name=", "name='unclosed"):
        with pytest.raises(SpecError):
            parse_spec(bad)
    environ = {"TOOLCALL_EXTERNAL": "a=run a\n\n  b=run b  \n"}
    assert environment_specs(environ) == ["a=run a", "b=run b"]
    assert environment_specs({}) == []


# The matrix command.


def test_matrix_command_writes_markdown_and_exits_zero_when_peers_fail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "matrix.md"
    args = ["--root", str(ROOT), "matrix", "--provider", "gemini", "--wire", "chat"]
    args += ["--external", NAIVE]
    code = main(
        [
            *args,
            "--implementation",
            "toolcall",
            "--implementation",
            "naive",
            "--markdown",
            str(report),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "FAIL naive gemini-parallel_calls: merged calls" in out
    assert "passed: toolcall 7/7, naive 5/7" in out
    assert "naive 0.3 (python)" in out  # who it said it is, at the handshake
    text = report.read_text(encoding="utf-8")
    assert "| gemini | parallel_calls | pass | **merged calls** |" in text
    assert "## Not applicable" in text


def test_matrix_command_rejects_unknown_implementation_and_bad_spec(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--root", str(ROOT), "matrix", "--implementation", "nope"]) == 2
    assert "unknown implementation(s) ['nope']" in capsys.readouterr().err
    assert main(["--root", str(ROOT), "matrix", "--external", "broken"]) == 2


def test_truncated_scenario_filter_selects_only_the_cut_off_streams_of_every_wire() -> None:
    suite = load_suite(ROOT)
    result = matrix.run(suite, [Reference()], filters=Filters(scenario=streams.TRUNCATED))
    cut = {r.provider for r in result.results if r.wire == "chat"}
    long_cells = [p.cells["long_arguments"] for p in suite.providers.values()]
    fragmented = {c.provider for c in long_cells if c.quirks.get("arguments") == "incremental"}
    assert fragmented >= {"openai", "deepseek", "kimi", "qwen", "doubao"}
    # Whole calls are cut after the call (GLM, Grok), unless the call is in the finishing chunk
    # (Gemini's): then there is nothing to cut, and no variant.
    applicable = {c.provider for c in long_cells if not c.not_applicable}
    whole = {c.provider for c in long_cells if c.quirks.get("arguments") == "whole"}
    assert cut <= applicable and cut >= fragmented | {"glm", "grok"}
    assert applicable - cut == {"gemini"} and "gemini" in whole
    assert result.not_applicable == []
    chat = {r.scenario for r in result.results if r.wire == "chat"}
    wires = {r.wire for r in result.results if r.scenario.endswith(streams.CUT_SUFFIX)}
    assert chat == {streams.TRUNCATED} and wires == {
        "chat",
        "responses",
        "anthropic",
        "gemini",
        "ollama",
    }
    assert all(r.verdict.passed for r in result.results)


def test_unavailable_implementation_is_listed_not_fatal(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing() -> Implementation:
        require("toolcall_no_such_peer", "toolcall-no-such-peer")
        raise AssertionError("unreachable")

    monkeypatch.setattr(matrix, "builtin", lambda: {"toolcall": Reference, "ghost": missing})
    implementations, unavailable = matrix.roster(None, [], timeout=1)
    assert [i.name for i in implementations] == ["toolcall"]
    assert unavailable["ghost"].startswith("ModuleNotFoundError: No module named")
    only = Filters(provider="glm", scenario="single_call")
    result = matrix.run(load_suite(ROOT), implementations, filters=only)
    result.unavailable.update(unavailable)
    assert "not available: ghost: ModuleNotFoundError" in matrix_report.text(result)
    with pytest.raises(matrix.UnknownImplementation):
        matrix.roster(["ghost", "other"], [], timeout=1)
    with pytest.raises(matrix.UnknownImplementation, match="already taken"):
        matrix.roster(None, ["toolcall=true"], timeout=1)


# The truncated variant.


def test_truncated_variant_keeps_the_envelope_and_the_reference_refuses_it() -> None:
    chunks = _chunks("openai", "long_arguments")
    cut_body = streams.cut("chat", sse_body(chunks))
    assert cut_body is not None
    cut = walk.chunks(cut_body)
    finish = cut[-2]
    assert list(finish) == list(chunks[-2])
    assert finish["choices"][0] == {
        "index": 0,
        "delta": {},
        "logprobs": None,
        "finish_reason": "length",
    }
    assert cut[-1] == chunks[-1]  # the usage-only chunk follows, as the provider sends it
    assert len(chunks) // 3 < len(cut) < len(chunks) * 2 // 3
    with pytest.raises(toolcall.TruncatedError):
        toolcall.assemble(cut_body)
    # Whole calls are cut after the call, unless the call is in the finishing chunk (Gemini).
    glm = streams.cut("chat", sse_body(_chunks("glm", "long_arguments")))
    assert glm is not None and b'"finish_reason":"length"' in glm
    assert streams.cut("chat", sse_body(_chunks("gemini", "long_arguments"))) is None


# Verdicts, on answers made by hand.


CALL = Call("call_1", "get_weather", '{"city": "Paris"}')
EXPECTED = Expected(calls=(CALL,), arguments=({"city": "Paris"},))


@pytest.mark.parametrize(
    ("answer", "label"),
    [
        (Assembled(calls=(CALL,)), PASS),
        (Assembled(calls=(Call("call_1", "get_weather", '{ "city":"Paris" }'),)), PASS),
        (
            Assembled(calls=(Call("call_1", "get_weatherget_weather", CALL.arguments),)),
            "doubled name",
        ),
        (Assembled(calls=(Call("call_1", "weather", CALL.arguments),)), "wrong name"),
        (Assembled(calls=(Call("call_1call_1", "get_weather", CALL.arguments),)), "wrong id"),
        (
            Assembled(calls=(Call("call_1", "get_weather", '{"city": "Pa'),)),
            "invalid JSON arguments",
        ),
        (Assembled(calls=(Call("call_1", "get_weather", '{"city": "Rome"}'),)), "arguments differ"),
        (Assembled(calls=(CALL, CALL)), "wrong number of calls"),
        (Assembled(), "wrong number of calls"),
        (Assembled(calls=(Call("call_1", "get_weather", '{"a": 1}{"b": 2}'),)), "merged calls"),
        (Assembled(error="TruncatedError: cut"), "rejected a valid stream"),
        (Assembled(calls=(CALL,), error="invalid_tool_calls: ?"), "rejected a valid stream"),
    ],
)
def test_verdict_names_the_bug(answer: Assembled, label: str) -> None:
    assert judge(EXPECTED, answer).label == label


def test_arguments_differ_names_the_path() -> None:
    got = Call("call_1", "get_weather", '{"city": "Paris", "days": 1.0}')
    want = Expected(calls=(got,), arguments=({"city": "Paris", "days": 1},))
    assert judge(want, Assembled(calls=(got,))).reason.endswith("at $.days")


def test_truncated_stream_must_be_reported() -> None:
    cut = Expected(truncated=True)
    assert judge(cut, Assembled(error="LengthFinishReasonError")).passed
    assert judge(cut, Assembled(calls=(CALL,), error="invalid_tool_calls: x")).passed
    passed_on = judge(cut, Assembled(calls=(Call("c", "f", '{"a": "b'),)))
    assert passed_on.label == "truncated arguments passed as valid"
    assert passed_on.reason.endswith("are cut JSON text")
    shorter = judge(cut, Assembled(calls=(Call("c", "f", '{"a": "b"}'),)))
    assert shorter.reason.endswith("parse as a shorter object")
    assert judge(cut, Assembled()).label == "truncated call dropped"


def test_crash_names_the_exception_and_its_cause() -> None:
    try:
        try:
            {}["index"]
        except KeyError:
            raise RuntimeError("Error building chunks") from None
    except RuntimeError as exc:
        assert judge(EXPECTED, exc).reason == "crash: RuntimeError: Error building chunks"
    try:
        try:
            {}["index"]
        except KeyError:
            raise RuntimeError("Error building chunks")  # noqa: B904 (a wrapper, as peers do)
    except RuntimeError as exc:
        assert judge(EXPECTED, exc).reason == (
            "crash: RuntimeError: Error building chunks (from KeyError: 'index')"
        )


def test_expect_schema_is_applied_to_the_peer_calls() -> None:
    schema = {
        "type": "object",
        "properties": {
            "tool_calls": {"items": {"properties": {"id": {"pattern": "^call_"}}}},
        },
    }
    odd = Call("fc_1", "get_weather", CALL.arguments)
    expected = Expected(calls=(odd,), arguments=({"city": "Paris"},), schema=schema)
    verdict = judge(expected, Assembled(calls=(odd,)))
    assert verdict.label == "expect schema"
    assert "$.tool_calls[0].id" in verdict.reason


# In-process adapters; each runs where its package is installed (the `peers` extra).


@pytest.mark.slow
def test_openai_sdk_adapter_matches_on_openai_and_reports_the_cut() -> None:
    pytest.importorskip("openai")
    result = _run(["openai-sdk"], [], "openai")
    assert _failures(result, "openai-sdk") == {}
    cut = [r for r in result.results if r.scenario == streams.TRUNCATED]
    assert len(cut) == 1 and cut[0].verdict.passed


def test_openai_sdk_adapter_is_fed_sdk_chunk_objects() -> None:
    pytest.importorskip("openai")
    from toolcall.harness.peers.openai_stream import OpenAIStreamState

    stream = _stream("deepseek", "parallel_calls", {"tools": []})
    answer = OpenAIStreamState().assemble(stream)
    turn = toolcall.assemble(stream.body)
    assert [c.arguments for c in answer.calls] == [c.function.arguments for c in turn.tool_calls]


@pytest.mark.slow
def test_langchain_adapter_shows_partial_parsing_of_a_cut_call() -> None:
    pytest.importorskip("langchain_core")
    result = _run(["langchain-core"], [], "qwen")
    assert _failures(result, "langchain-core") == {
        "qwen/long_arguments_truncated": "truncated arguments passed as valid"
    }


@pytest.mark.slow
def test_litellm_adapter_merges_calls_without_index() -> None:
    pytest.importorskip("litellm")
    result = _run(["litellm"], [], "gemini")
    assert _failures(result, "litellm") == {
        "gemini/parallel_calls": "merged calls",
        # Vertex's first call opens at index 1: litellm files the calls by index.
        "gemini/published/vertex-docs_gemini-3.1-pro_stream_function_call_arguments": "wrong id",
    }


def test_the_docs_show_the_example_that_the_tests_run() -> None:
    protocol_doc = (ROOT / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")
    assert EXAMPLE.read_text(encoding="utf-8").rstrip("\n") in protocol_doc


def test_each_implementation_gets_its_own_copy_of_the_stream() -> None:
    """litellm fills in a missing `index` in the chunks it is handed; whoever runs after it must
    still see Gemini's index-less calls."""

    class Mutating:
        name, version, wires = "mutating", "test", (CHAT,)

        def assemble(self, stream: Stream) -> Assembled:
            for chunk in stream.chunks:
                for choice in chunk.get("choices") or []:
                    for delta in (choice.get("delta") or {}).get("tool_calls") or []:
                        delta["index"] = 0
            return Assembled()

    seen: list[bool] = []

    class Watching:
        name, version, wires = "watching", "test", (CHAT,)

        def assemble(self, stream: Stream) -> Assembled:
            deltas = [
                d
                for c in stream.chunks
                for ch in c.get("choices") or []
                for d in (ch.get("delta") or {}).get("tool_calls") or []
            ]
            seen.append(all("index" not in d for d in deltas))
            return Assembled()

    matrix.run(
        load_suite(ROOT),
        [Mutating(), Watching()],
        filters=Filters(provider="gemini", scenario="parallel_calls"),
    )
    assert seen == [True]
