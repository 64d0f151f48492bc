"""The gateway judge on real cassette bodies, rewritten the ways the measured gateways rewrite."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolcall.harness.gateways import judge
from toolcall.harness.reading import walk
from toolcall.harness.suite import cassettes

ROOT = Path(__file__).resolve().parents[1]


def body(provider: str, scenario: str) -> bytes:
    return cassettes.response_body(
        cassettes.load(ROOT / "cassettes" / provider / f"{scenario}.yaml")
    )


def sse(chunks: list[dict[str, Any]], *, done: bool = True) -> bytes:
    events = "".join(f"data: {json.dumps(c, separators=(',', ':'))}\n\n" for c in chunks)
    return (events + ("data: [DONE]\n\n" if done else "")).encode()


def test_a_request_field_the_gateway_dropped_is_stripped_and_the_model_alias_is_not() -> None:
    sent = {"model": "glm-4.6", "stream": True, "tool_stream": True, "messages": []}
    received = {"model": "alias", "stream": True, "messages": [], "stream_options": {}}
    verdict = judge.judge_request(sent, received)
    assert verdict.stripped == ("tool_stream",)
    assert verdict.added == ("stream_options",)
    assert not verdict.intact
    assert "stripped tool_stream" in verdict.notes()


def test_a_changed_request_field_is_not_intact_but_reordered_keys_are() -> None:
    sent = {"messages": [{"role": "user", "content": "hi"}], "tools": [{"a": 1, "b": 2}]}
    assert judge.judge_request(sent, {**sent, "tools": [{"b": 2, "a": 1}]}).intact
    changed = judge.judge_request(sent, {**sent, "messages": [{"role": "user", "content": "x"}]})
    assert changed.changed == ("messages",)


def test_the_same_body_is_byte_for_byte_and_its_turn_intact() -> None:
    raw = body("gemini", "parallel_calls")
    assert judge.wire_changes(raw, raw) == ["byte for byte"]
    assert judge.judge_turn(judge.outcome(raw), judge.outcome(raw)) == []


def test_litellm_style_reserialising_is_a_wire_change_not_a_turn_change() -> None:
    """Index inserted into Gemini's index-less calls, `[DONE]` kept, every chunk re-serialised,
    usage counted anew: the assembled turn is the same, so only the wire notes say so, and the
    usage verdict gives both counts."""
    raw = body("gemini", "parallel_calls")
    chunks = walk.chunks(raw)
    rewritten = []
    for chunk in chunks:
        chunk = json.loads(json.dumps(chunk))
        for choice in chunk.get("choices") or []:
            for call in (choice.get("delta") or {}).get("tool_calls") or []:
                call.setdefault("index", 0)
        if chunk.get("usage"):
            chunk["usage"] = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        chunk["model"] = "alias"
        rewritten.append(chunk)
    through = sse(rewritten)
    changes = judge.wire_changes(raw, through)
    assert "index absent->present" in changes
    assert "chunks re-serialised" in changes
    assert judge.judge_turn(judge.outcome(raw), judge.outcome(through)) == []
    usage = judge.judge_usage(raw, through, asked=True)
    assert usage.verdict == "changed" and usage.failed
    assert usage.line().startswith("usage changed: provider sent prompt ")
    assert usage.line().endswith("; client got prompt 1, completion 1, total 2")


def with_usage(raw: bytes, usage: dict[str, Any] | None) -> bytes:
    """The body with every usage replaced by `usage` (None: removed)."""
    out = []
    for chunk in walk.chunks(raw):
        chunk = json.loads(json.dumps(chunk))
        if "usage" in chunk:
            if usage is None:
                del chunk["usage"]
            elif chunk["usage"]:
                chunk["usage"] = usage
        out.append(chunk)
    return sse(out)


def test_usage_is_judged_by_its_counts_and_whether_the_client_asked() -> None:
    """Gemini 3's usage as the Vertex documentation shows it, with LiteLLM's recount (576 to
    72) and with `cost` added; the same counts moved or extended pass, counts that differ or
    never arrive fail, usage the provider never sent is only reported."""
    raw = body("gemini", "single_call")
    sent = {"prompt_tokens": 27, "completion_tokens": 45, "total_tokens": 576}
    direct = with_usage(raw, sent)
    recount = with_usage(raw, {**sent, "total_tokens": 72, "cost": 0.001})
    verdict = judge.judge_usage(direct, recount, asked=True)
    assert verdict.failed and verdict.added == ["cost"]
    assert "provider sent prompt 27, completion 45, total 576" in verdict.line()
    assert "client got prompt 27, completion 45, total 72 (fields added: cost)" in verdict.line()
    extended = judge.judge_usage(direct, with_usage(raw, {**sent, "cost": 0.1}), asked=True)
    assert extended.verdict is None and not extended.failed and extended.added == ["cost"]
    dropped = judge.judge_usage(direct, with_usage(raw, None), asked=True)
    assert dropped.verdict == "dropped" and dropped.failed
    hidden = judge.judge_usage(direct, with_usage(raw, None), asked=False)
    assert hidden.verdict == "hidden" and not hidden.failed
    invented = judge.judge_usage(with_usage(raw, None), direct, asked=True)
    assert invented.verdict == "invented" and not invented.failed
    assert judge.judge_usage(raw, raw, asked=True).line().startswith("usage intact: provider")


def test_a_renamed_call_or_a_lost_finish_breaks_the_turn() -> None:
    raw = body("glm", "single_call")
    chunks = walk.chunks(raw)
    renamed = json.loads(json.dumps(chunks))
    for chunk in renamed:
        for choice in chunk.get("choices") or []:
            for call in (choice.get("delta") or {}).get("tool_calls") or []:
                if (call.get("function") or {}).get("name"):
                    call["function"]["name"] = "get_weatherget_weather"
    problems = judge.judge_turn(judge.outcome(raw), judge.outcome(sse(renamed)))
    assert any(p.startswith("call 0 name:") for p in problems), problems
    unfinished = [c for c in chunks if not any(ch.get("finish_reason") for ch in c["choices"])]
    problems = judge.judge_turn(judge.outcome(raw), judge.outcome(sse(unfinished)))
    assert problems == [f"error: direct none, through {judge.outcome(sse(unfinished)).error}"]
    assert "TruncatedError" in problems[0]


def test_dropped_comments_and_an_added_done_are_reported() -> None:
    raw = b": keep-alive\n\n" + sse(walk.chunks(body("deepseek", "single_call")), done=False)
    through = sse(walk.chunks(raw))
    changes = judge.wire_changes(raw, through)
    assert "comments dropped" in changes and "[DONE] added" in changes
    assert "chunks re-serialised" not in changes


@pytest.mark.parametrize(
    ("fault", "exchange", "problem"),
    [
        ("429", judge.Exchange(429, b'{"error": {}}', 0.1), None),
        ("500", judge.Exchange(502, b"", 0.1), None),
        ("500", judge.Exchange(200, b"", 0.1), "empty 200"),
        ("cut", judge.Exchange(200, b"", 0.1), "empty 200"),
        ("cut", judge.Exchange(200, b"data: {", 20.0, timed_out=True), "hang"),
        ("cut", judge.Exchange(200, b"", 0.1, transport_error="RemoteProtocolError"), None),
    ],
)
def test_fault_verdicts(fault: str, exchange: judge.Exchange, problem: str | None) -> None:
    got = judge.judge_fault(fault, exchange, bound=5.0)
    assert (got is None) if problem is None else (got is not None and got.startswith(problem))


def test_a_cut_turn_without_finish_passes_and_a_finished_one_hides_the_fault() -> None:
    raw = body("glm", "parallel_calls")
    chunks = walk.chunks(raw)
    half = sse(chunks[: len(chunks) // 2], done=False)
    assert judge.judge_fault("cut", judge.Exchange(200, half, 0.2)) is None
    hidden = judge.judge_fault("cut", judge.Exchange(200, raw, 0.2))
    assert hidden is not None and hidden.startswith("hidden")


def test_a_cut_after_the_finish_hides_nothing() -> None:
    """Gemini sends the whole call and its finish in the first event: a cut halfway comes after
    the finish, so a finished turn through the gateway is the truth, not a hidden fault."""
    raw = body("gemini", "single_call")
    first = raw.split(b"\n\n", 1)[0] + b"\n\n"
    assert judge.judge_fault("cut", judge.Exchange(200, raw, 0.2), before_cut=first) is None
    half = body("glm", "parallel_calls")[:200]
    hidden = judge.judge_fault("cut", judge.Exchange(200, raw, 0.2), before_cut=half)
    assert hidden is not None and hidden.startswith("hidden")


def test_a_client_is_held_against_the_reference_not_against_itself() -> None:
    from toolcall.harness.gateways import clients

    raw = body("glm", "single_call")
    right = clients.reference(judge.outcome(raw), raw)
    assert right is not None and right.calls[0][0] == "call_b6d6a2e173fd8b2d2cba32ab"
    crashed = clients.Answer(raised="TypeError: x")
    merged = clients.Answer(
        clients.shown([("call_b6d6a2e173fd8b2d2cba32ab", "get_weatherget_weather", "{}")], raw)
    )
    assert clients.judge("sdk", right, right, right) is None
    verdict = clients.judge("sdk", right, right, merged)
    assert verdict is not None and verdict.failed and verdict.kind == "made wrong"
    verdict = clients.judge("sdk", right, crashed, merged)
    assert verdict is not None and verdict.failed and verdict.kind == "made silently wrong"
    assert verdict.lines("relay") == [
        "sdk made silently wrong",
        "straight from serve: raised TypeError (x)",
        "through relay: returned 1 call without an error: get_weatherget_weather {}",
        'right: returned 1 call without an error: get_weather {"city":"Lisbon","unit":"celsius"}',
    ]
    verdict = clients.judge("sdk", right, crashed, right)
    assert verdict is not None and not verdict.failed and verdict.kind == "repaired"
    made_up = clients.shown([("e1obA2HdJ9SnGxX3", "get_weather", "{}")], raw)
    assert made_up == clients.shown([("jDCwWUs2hR5lZ2rb", "get_weather", "{}")], raw)


def test_a_fault_made_silent_fails_and_another_exception_is_a_note() -> None:
    from toolcall.harness.gateways import clients

    raised = clients.Answer(raised="APIConnectionError: Connection error.")
    truncated = clients.Answer((("call_1", "get_weather", '{"city": "Lisbon",'),))
    verdict = clients.judge_fault("sdk", raised, truncated)
    assert verdict is not None and verdict.failed and verdict.kind == "made silently wrong"
    assert verdict.lines("relay")[2] == (
        'through relay: returned 1 call without an error: get_weather {"city": "Lisbon", (not JSON)'
    )
    empty = clients.Answer((("call_1", "get_weather", ""),))
    assert empty.describe() == "returned 1 call without an error: get_weather with empty arguments"
    other = clients.Answer(raised="InternalServerError: Error code: 500")
    note = clients.judge_fault("sdk", raised, other)
    assert note is not None and not note.failed and note.kind == "changed"
    same_kind = clients.Answer(raised="APIConnectionError: another message")
    assert clients.judge_fault("sdk", raised, same_kind) is None
    reported = clients.Answer(error="finish_reason length")
    assert clients.judge_fault("sdk", reported, truncated) is not None
