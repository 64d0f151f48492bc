"""The gateway judge on real cassette bodies, rewritten the ways the measured gateways rewrite."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolcall.harness import cassettes, walk
from toolcall.harness.gateways import judge

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
    usage replaced: the assembled turn is the same, so only the wire notes say so."""
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
    assert "usage replaced" in changes or "usage invented" in changes
    assert judge.judge_turn(judge.outcome(raw), judge.outcome(through)) == []


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
    assert right is not None and "call_b6d6a2e173fd8b2d2cba32ab" in right
    crashed = "crashed: raised TypeError: x"
    merged = clients.shown([("call_b6d6a2e173fd8b2d2cba32ab", "get_weatherget_weather", "{}")], raw)
    assert clients.judge("sdk", right, right, right) == (None, None)
    failure, note = clients.judge("sdk", right, right, merged)
    assert failure is not None and failure.startswith("sdk made wrong") and note is None
    failure, note = clients.judge("sdk", right, crashed, merged)
    assert failure is not None and failure.startswith("sdk made silently wrong")
    failure, note = clients.judge("sdk", right, crashed, right)
    assert failure is None and note is not None and note.startswith("sdk repaired")
    made_up = clients.shown([("e1obA2HdJ9SnGxX3", "get_weather", "{}")], raw)
    assert made_up == clients.shown([("jDCwWUs2hR5lZ2rb", "get_weather", "{}")], raw)
