"""A finished turn, and the checks that end one: the same on every wire.

When the body ends, what the reader gathered (stop reasons, text, usage) and the calls the
assembler holds are checked here once: a call that never got a name, stop reasons that conflict,
a cut, arguments that are not one JSON object. Nothing here knows a wire, a framing or the
builder: it reads them through the small interfaces below, so the events (`_turn.events`), which
carry a `Turn`, import nothing above this module.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from .._calls.call_types import CUSTOM, ServerToolCall, ToolCall
from .._errors import StreamError, TruncatedError
from .._fast.text_runs import TextRuns
from .diagnostics import Diagnostic
from .finish_reasons import CALLS_CLAIMED
from .markup import markup_in, name_flaw
from .validation import parse_arguments


@dataclass(frozen=True, slots=True)
class Turn:
    """One finished assistant turn.

    `arguments[i]` is `tool_calls[i].function.arguments` already parsed (validation parsed it
    anyway; parsing twice would waste the caller's time). `diagnostics` names every quirk the
    stream showed and every repair made, so nothing was changed silently.

    `tool_calls` holds function calls only, so every one has JSON arguments in `arguments`.
    `custom_calls` holds the calls of custom (freeform) tools, `type` `"custom"`, each with its
    input verbatim in `function.arguments`, never parsed; they share the index numbering of
    `tool_calls` (the order the wire opened them). `server_tool_calls` records the tools the
    provider ran itself (`ServerToolCall`): nothing for the caller to run.
    """

    tool_calls: tuple[ToolCall, ...]
    arguments: tuple[dict[str, Any], ...]
    finish_reason: str | None
    usage: dict[str, Any] | None
    content: str
    reasoning: str
    diagnostics: tuple[Diagnostic, ...]
    #: Provider metadata of the turn rather than of one call, which the next request must carry
    #: back: Anthropic's thinking signatures, a Gemini thought signature beside text. None when
    #: the wire sent none; absent from `to_dict()` then.
    extra_content: dict[str, Any] | None = None
    #: Calls of custom (freeform) tools, their input never parsed; absent from `to_dict()` when
    #: there are none.
    custom_calls: tuple[ToolCall, ...] = ()
    #: Tools the provider ran itself; absent from `to_dict()` when there are none.
    server_tool_calls: tuple[ServerToolCall, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The turn as JSON-ready data; arguments stay text, exactly as the wire assembled them.
        What a turn without custom or server tool calls gives is unchanged by their keys."""
        out = {
            "tool_calls": [call.to_dict() for call in self.tool_calls],
            "finish_reason": self.finish_reason,
            "usage": self.usage,
            "content": self.content,
            "reasoning": self.reasoning,
            "diagnostics": [d.to_dict() for d in self.diagnostics],
            **({} if self.extra_content is None else {"extra_content": self.extra_content}),
        }
        if self.custom_calls:
            out["custom_calls"] = [call.to_dict() for call in self.custom_calls]
        if self.server_tool_calls:
            out["server_tool_calls"] = [call.to_dict() for call in self.server_tool_calls]
        return out


class UnsoundTurnError(StreamError):
    """The body ended well, but what the turn says and what it holds disagree: its finish reason
    says the model ended it to have tools run, and it holds no call (vllm-project/vllm#44326),
    or a call's name holds a template's markup, whitespace or a control character, and so names
    no tool (vllm-project/vllm#32587). A caller would run nothing, or not what the model meant.

    `turn` is the turn as received, its diagnostics included (markup left in the text says where
    a lost call went), for a caller who logs it, shows its text or retries. It is defined here,
    beside `Turn`, because it carries one.
    """

    def __init__(
        self,
        message: str,
        *,
        turn: Turn,
        index: int | None = None,
        call_id: str | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(message, index=index, call_id=call_id, name=name)
        self.turn = turn


class Calls(Protocol):
    """What the end of a turn reads from the assembler."""

    @property
    def diagnostics(self) -> list[Diagnostic]: ...

    def nameless(self) -> list[tuple[int, str]]: ...

    def complete(self) -> list[ToolCall]: ...

    def last_call_index(self) -> int | None: ...

    def read_arguments(self) -> dict[int, dict[str, Any]]: ...


class Gathered(Protocol):
    """What the end of a turn reads from the wire's reader: the rest of the turn."""

    @property
    def cut(self) -> Mapping[str, str]: ...

    @property
    def end_mark(self) -> str | None: ...

    @property
    def finish_reasons(self) -> list[str]: ...

    @property
    def second_generation(self) -> str | None: ...

    @property
    def relay_done(self) -> str | None: ...

    @property
    def done(self) -> bool: ...

    @property
    def usage(self) -> dict[str, Any] | None: ...

    @property
    def content(self) -> TextRuns: ...

    @property
    def reasoning(self) -> TextRuns: ...

    @property
    def extra_content(self) -> dict[str, Any] | None: ...

    def server_tool_calls(self) -> tuple[ServerToolCall, ...]: ...


class Framed(Protocol):
    """What the end of a turn reads from the framing's decoder."""

    @property
    def comment_count(self) -> int: ...

    @property
    def unterminated_final_event(self) -> bool: ...

    @property
    def end_absent(self) -> str | None: ...


class Reported(Protocol):
    """What the end of a turn asks of the watcher that reports events, when there is one."""

    def parsed(self, call: ToolCall) -> dict[str, Any] | None: ...

    def finish(
        self,
        calls: list[ToolCall],
        arguments: tuple[dict[str, Any], ...],
        custom: tuple[ToolCall, ...],
    ) -> None: ...


def end_turn(assembler: Calls, reader: Gathered, framing: Framed, watcher: Reported | None) -> Turn:
    """Check the turn the body gave and return it, or raise the library's error saying why not."""
    orphans = assembler.nameless()
    if orphans:
        index, fragment = orphans[0]
        raise StreamError(
            f"arguments {fragment[:40]!r} arrived for a call that never got a name",
            index=index,
        )
    every = assembler.complete()
    calls = [call for call in every if call.type != CUSTOM]
    custom = tuple(call for call in every if call.type == CUSTOM)
    diagnostics = assembler.diagnostics  # read after complete(): it may record a repair
    reasons = reader.finish_reasons
    finish_reason = reasons[0] if reasons else None
    # The call opened last is the one a cut most likely hit (it may be a nameless one
    # complete() left out).
    last_index = assembler.last_call_index()
    last = next((c for c in every if c.index == last_index), every[-1]) if every else None
    truncated = None
    if len(reasons) > 1:
        went = " then ".join(repr(r) for r in reasons)
        cut = [r for r in reasons if r in reader.cut]
        if not (every and cut):
            raise StreamError(
                f"conflicting finish reasons: finish_reason went {went}", **_context(last)
            )
        truncated = f"finish_reason went {went}"
    elif finish_reason is None:
        truncated = "the stream ended without a finish_reason"
    elif finish_reason in reader.cut:
        truncated = f"finish_reason is {finish_reason!r} ({reader.cut[finish_reason]})"
    read = assembler.read_arguments()
    arguments = tuple(
        (watcher is not None and not truncated and watcher.parsed(call))
        or _read_value(read, call)
        or parse_arguments(call, truncated=truncated)
        for call in calls
    )
    if truncated:
        if last is not None:
            raise TruncatedError(f"{truncated}: the call may be cut off", **_context(last))
        if finish_reason is None:
            raise StreamError("the stream ended without a finish_reason (cut off?)")
    if watcher is not None:
        watcher.finish(calls, arguments, custom)
    if finish_reason == "stop" and every:
        diagnostics.append(
            Diagnostic("stop_with_tool_calls", "finish_reason 'stop' with tool calls")
        )
    _note_stream(diagnostics, reader, framing)
    content, reasoning = reader.content.joined(), reader.reasoning.joined()
    diagnostics += _markup_found("content", content) + _markup_found("reasoning", reasoning)
    turn = Turn(
        tool_calls=tuple(calls),
        arguments=arguments,
        finish_reason=finish_reason,
        usage=reader.usage,
        content=content,
        reasoning=reasoning,
        diagnostics=tuple(diagnostics),
        extra_content=reader.extra_content,
        custom_calls=custom,
        server_tool_calls=reader.server_tool_calls(),
    )
    _check_sound(turn)
    return turn


def _note_stream(diagnostics: list[Diagnostic], reader: Gathered, framing: Framed) -> None:
    """What the body did around the turn: a relay's end, a second generation, comments, a
    missing end."""
    if reader.relay_done is not None:
        diagnostics.append(Diagnostic("done_after_end", reader.relay_done))
    if reader.second_generation is not None:
        diagnostics.append(Diagnostic("second_generation", reader.second_generation))
    if framing.comment_count:
        diagnostics.append(
            Diagnostic("sse_comment", f"{framing.comment_count} SSE comment line(s)")
        )
    if framing.end_absent is not None:
        diagnostics.append(Diagnostic("done_absent", f"no {framing.end_absent} before the end"))
    elif not reader.done:
        diagnostics.append(Diagnostic("done_absent", f"no {reader.end_mark} before the end"))
    if framing.unterminated_final_event:
        diagnostics.append(
            Diagnostic("unterminated_final_event", "no blank line after the last event")
        )


def _markup_found(where: str, text: str) -> list[Diagnostic]:
    """A diagnostic for each format of tool-call markup `text` holds (`_turn.markup`)."""
    return [
        Diagnostic(
            "tool_call_in_text",
            f"the {where} holds {markup.format} tool-call markup ({markup.marker!r} at "
            f"character {at}): a call the server did not read as one, left as text",
        )
        for markup, at in markup_in(text)
    ]


def _check_sound(turn: Turn) -> None:
    """Raise `UnsoundTurnError` where what the turn says and what it holds disagree: a turn
    that ended to have tools run and holds none, or a call whose name is no tool's name."""
    if turn.finish_reason in CALLS_CLAIMED and not (turn.tool_calls or turn.custom_calls):
        found = [d.message for d in turn.diagnostics if d.code == "tool_call_in_text"]
        raise UnsoundTurnError(
            f"the turn ended with {turn.finish_reason!r}, the word for calls to run, yet holds "
            "no tool call: the calls it ended for were lost"
            + (f"; {found[0]}" if found else " (a server's tool-call parser dropped them?)"),
            turn=turn,
        )
    for call in (*turn.tool_calls, *turn.custom_calls):
        flaw = name_flaw(call.function.name)
        if flaw is not None:
            raise UnsoundTurnError(f"the call's name {flaw}", turn=turn, **_context(call))


def _read_value(read: dict[int, dict[str, Any]], call: ToolCall) -> dict[str, Any] | None:
    """The object call's arguments arrived as, if that is all they are: validation would parse
    their text back to an equal object (a decoded object holds nothing the library's reading
    refuses), so it is not parsed again, nor written if it was not."""
    return read.get(call.index)


def _context(call: ToolCall | None) -> dict[str, Any]:
    if call is None:
        return {}
    return {"index": call.index, "call_id": call.id or None, "name": call.function.name}
