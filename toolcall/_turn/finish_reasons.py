"""One reading of a turn's finish reason, whatever the wire said it in.

`Turn.finish_reason` keeps each wire's own word, because that is what its documentation and its
users know: chat completions' `tool_calls`, Responses' `completed`, Anthropic's `tool_use`,
Gemini's `STOP`, Ollama's `stop`. Code that serves several wires needs one vocabulary to branch
on, and chat completions' is the one most clients already speak; three wires (Responses, Gemini,
Ollama) say the same word whether or not the turn called tools, so "the model wants its tools
run" is read from the calls the turn holds, not from the word.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class Ended(Protocol):
    """What the reading takes from a turn (`Turn`, which the end of a turn builds from it)."""

    @property
    def finish_reason(self) -> str | None: ...

    @property
    def tool_calls(self) -> Sequence[object]: ...


#: The words that end a turn the model finished itself, on each wire.
_ENDED = frozenset(
    {
        "stop",  # chat completions, Ollama
        "tool_calls",  # chat completions
        "completed",  # Responses
        "end_turn",  # Anthropic
        "tool_use",  # Anthropic
        "stop_sequence",  # Anthropic
        "STOP",  # Gemini
    }
)
#: The words that say the model ended its turn to have tools run: a turn that holds no call
#: under one of them lost the calls it ended for (`_turn.turn.end_turn`). The other wires say the
#: same word with calls or without, so they claim nothing.
CALLS_CLAIMED = frozenset(
    {
        "tool_calls",  # chat completions
        "tool_use",  # Anthropic
    }
)
#: The words of a turn stopped at the output token limit.
_LENGTH = frozenset(
    {
        "length",  # chat completions, Ollama
        "max_output_tokens",  # Responses (`incomplete_details.reason`)
        "max_tokens",  # Anthropic
        "MAX_TOKENS",  # Gemini
    }
)
#: The words of a turn a provider's filter stopped.
_FILTERED = frozenset(
    {
        "content_filter",  # chat completions, Responses (`incomplete_details.reason`)
        "SAFETY",  # Gemini
        "RECITATION",  # Gemini
    }
)


def finish_kind(turn: Ended) -> str | None:
    """The turn's finish reason in chat completions' words, on every wire.

    `"tool_calls"` when the model ended its turn with calls to run, `"stop"` when it ended
    without, `"length"` when the output hit its token limit, `"content_filter"` when a filter
    stopped it; any other word as the wire sent it (`pause_turn`, `MALFORMED_FUNCTION_CALL`), and
    None when the stream gave none.
    """
    reason = turn.finish_reason
    if reason in _ENDED:
        return "tool_calls" if turn.tool_calls else "stop"
    if reason in _LENGTH:
        return "length"
    if reason in _FILTERED:
        return "content_filter"
    return reason
