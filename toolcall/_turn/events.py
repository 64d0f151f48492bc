"""What a `TurnBuilder` reports as the stream goes: one small frozen class per event.

Like h11's events, these are plain values the caller matches on (`match event: case TextDelta():`)
and the builder never calls back into the caller: the caller owns the loop, the socket and the
threads. They come in stream order, and `TurnDone` is always the last one of a turn.

A chat UI wants text as it arrives, "calling get_weather..." as soon as a call opens, the
arguments as they fill in, and an agent wants to start a tool as soon as its call is complete
rather than at the end of the turn: `ToolCallDone` comes as soon as that call's arguments close
as one JSON object. A turn can still fail after it (a later `finish_reason: "length"`, a broken
chunk): `finish()` then raises, `TurnDone` never comes, and a tool started early should be
cancelled or its result dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .._calls.call_types import ToolCall, written_when_read_type
from .partial_arguments import ArgumentsChange
from .turn import Turn


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of the assistant's text (`delta.content`)."""

    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    """A piece of the model's reasoning (`delta.reasoning_content` or `delta.reasoning`)."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCallStarted:
    """A call's index, id and name, once its name is settled.

    A name can arrive in fragments, so it is settled when the call's first arguments fragment
    arrives, when its arguments close, or at the end of the turn, whichever comes first; on
    every provider seen that is the first or second chunk of the call. `id` is `""` when the
    provider sent none by then. `type` is the call's type: `"function"`, or `"custom"` for a
    custom (freeform) tool, whose `ArgumentsDelta` fragments are its input text, never JSON.
    """

    index: int
    id: str
    name: str
    type: str = "function"


@dataclass(frozen=True, slots=True)
class ArgumentsDelta:
    """The next fragment of call `index`'s arguments, exactly as the wire carried it.

    With `TurnBuilder(partial_arguments=True)`, `changes` says what the fragment did to the
    arguments read as far as they go: members set, text appended to the string in progress.
    Applied in order they rebuild the arguments (a form filling in) at a cost linear in their
    size, without a `str` of the whole of a long string; reading
    `TurnBuilder.partial_arguments(index)` after every fragment is linear too, as long as the
    caller lets go of the string it read. Empty otherwise.
    """

    index: int
    fragment: str
    changes: tuple[ArgumentsChange, ...] = ()


@dataclass(frozen=True, slots=True)
class ToolCallDone:
    """Call `call.index` is complete: its arguments closed as one JSON object.

    `arguments` is that object parsed. A custom tool's call (`call.type == "custom"`) is done
    when the wire says its input is complete; its input is free text, in
    `call.function.arguments`, never parsed, and `arguments` is empty: a caller that runs only
    function tools checks `call.type` before it runs anything (a provider calls a custom tool
    only where the request declared one). Nothing may change the call after this: arguments, id,
    name or type arriving for it later make the turn fail with a `StreamError`, never a silent
    change. Only `extra_content` may still grow (Gemini sends a thought signature in a delta of
    its own after the call); the next request should take it from the finished `Turn`.
    """

    call: ToolCall
    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True)
class TurnDone:
    """The turn is finished and valid: the last event of every turn."""

    turn: Turn


Event = TextDelta | ReasoningDelta | ToolCallStarted | ArgumentsDelta | ToolCallDone | TurnDone


# The events made once per chunk, built without the frozen dataclass's `__init__`: it sets each
# field through `object.__setattr__`, which cost more than reading the chunk's fragment (about
# 600 ns of a 1.3 us event, measured). These set the same slots through their descriptors and
# give an equal object; the public constructors stay the classes themselves.
_new = object.__new__
_set_text = TextDelta.__dict__["text"].__set__
_set_reasoning = ReasoningDelta.__dict__["text"].__set__
_set_index = ArgumentsDelta.__dict__["index"].__set__
_set_fragment = ArgumentsDelta.__dict__["fragment"].__set__
_set_changes = ArgumentsDelta.__dict__["changes"].__set__


def text_delta(text: str) -> TextDelta:
    """`TextDelta(text)`, as the chunk reader makes one per piece of text."""
    event = _new(TextDelta)
    _set_text(event, text)
    return event


def reasoning_delta(text: str) -> ReasoningDelta:
    """`ReasoningDelta(text)`, as the chunk reader makes one per piece of reasoning."""
    event = _new(ReasoningDelta)
    _set_reasoning(event, text)
    return event


# An `ArgumentsDelta` of a call whose whole arguments arrived as an object: its fragment, the
# call's whole text, is written the first time it is read, by the cell the call's
# `ToolCallFunction` reads too, so a caller that reads neither never pays for the text, and
# one that reads both pays once.
_FragmentWrittenWhenRead = written_when_read_type(ArgumentsDelta, "fragment")
_set_written = _FragmentWrittenWhenRead.__dict__["_text"].__set__


def fragment_written_when_read(
    index: int, text: Callable[[], str], changes: tuple[ArgumentsChange, ...] = ()
) -> ArgumentsDelta:
    """`ArgumentsDelta(index, text(), changes)`, with `text` called only when the fragment is
    first read; `text` gives the same `str` every time
    (`_calls.held_arguments.HeldArguments.text`)."""
    event = _new(_FragmentWrittenWhenRead)
    _set_index(event, index)
    _set_written(event, text)
    _set_changes(event, changes)
    return event


def arguments_delta(
    index: int, fragment: str, changes: tuple[ArgumentsChange, ...] = ()
) -> ArgumentsDelta:
    """`ArgumentsDelta(index, fragment, changes)`, as the watcher makes one per fragment."""
    event = _new(ArgumentsDelta)
    _set_index(event, index)
    _set_fragment(event, fragment)
    _set_changes(event, changes)
    return event
