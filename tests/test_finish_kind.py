"""`toolcall.finish_kind`: each wire's finish reason read in one vocabulary.

The recordings of every wire end their tool-call turns with their own word (`tool_calls`,
`completed`, `tool_use`, `STOP`, `stop`); read through `finish_kind` they all say `tool_calls`.
The cut and filtered words come from each wire's documentation, one by one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import toolcall
from toolcall.harness.suite.recordings import discover

ROOT = Path(__file__).resolve().parents[1]


def _turn(reason: str | None, *, calls: bool) -> toolcall.Turn:
    call = toolcall.ToolCall(
        index=0, id="c1", type="function", function=toolcall.ToolCallFunction("f", "{}")
    )
    return toolcall.Turn(
        tool_calls=(call,) if calls else (),
        arguments=({},) if calls else (),
        finish_reason=reason,
        usage=None,
        content="",
        reasoning="",
        diagnostics=(),
    )


def test_every_wire_recording_of_calls_reads_tool_calls_whatever_its_word() -> None:
    words: dict[str, set[str]] = {}
    for recording in discover(ROOT / "cassettes"):
        if not recording.expected.get("tool_calls"):
            continue
        turn = toolcall.assemble(recording.body(), wire=recording.wire)
        assert turn.finish_reason is not None
        words.setdefault(recording.wire, set()).add(turn.finish_reason)
        assert toolcall.finish_kind(turn) == "tool_calls", recording.id
    assert words["responses"] == {"completed"} and words["gemini"] == {"STOP"}
    assert words["anthropic"] == {"tool_use"} and words["ollama"] == {"stop"}


@pytest.mark.parametrize(
    ("reason", "calls", "kind"),
    [
        ("tool_calls", True, "tool_calls"),
        ("stop", False, "stop"),
        ("completed", False, "stop"),
        ("end_turn", False, "stop"),
        ("stop_sequence", False, "stop"),
        ("STOP", False, "stop"),
        ("length", False, "length"),
        ("max_output_tokens", False, "length"),
        ("max_tokens", True, "length"),
        ("MAX_TOKENS", False, "length"),
        ("content_filter", False, "content_filter"),
        ("SAFETY", False, "content_filter"),
        ("RECITATION", False, "content_filter"),
        ("pause_turn", False, "pause_turn"),  # no counterpart: the wire's own word
        (None, False, None),
    ],
)
def test_each_word_reads_as_its_chat_completions_counterpart(
    reason: str | None, calls: bool, kind: str | None
) -> None:
    assert toolcall.finish_kind(_turn(reason, calls=calls)) == kind


def test_a_text_turn_cut_on_any_wire_reads_length() -> None:
    """A cut turn without calls is returned, not raised: its finish kind says it was cut."""
    bodies = {
        "responses": b'data: {"type": "response.output_text.delta", "delta": "Hel"}\n\n'
        b'data: {"type": "response.incomplete", "response": {"status": "incomplete", '
        b'"incomplete_details": {"reason": "max_output_tokens"}}}\n\n',
        "anthropic": b'data: {"type": "message_start", "message": {"id": "m", "content": []}}\n\n'
        b'data: {"type": "content_block_start", "index": 0, "content_block": {"type": "text", '
        b'"text": ""}}\n\n'
        b'data: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", '
        b'"text": "Hel"}}\n\n'
        b'data: {"type": "message_delta", "delta": {"stop_reason": "max_tokens"}}\n\n'
        b'data: {"type": "message_stop"}\n\n',
        "gemini": b'data: {"candidates": [{"content": {"parts": [{"text": "Hel"}]}, '
        b'"finishReason": "MAX_TOKENS"}]}\n\n',
        "ollama": b'{"message": {"role": "assistant", "content": "Hel"}, "done": false}\n'
        b'{"message": {"role": "assistant", "content": ""}, "done": true, '
        b'"done_reason": "length"}\n',
    }
    for wire, body in bodies.items():
        turn = toolcall.assemble(body, wire=wire)
        assert turn.content == "Hel" and toolcall.finish_kind(turn) == "length", wire
