"""The one switch between the fast paths and the plain path (`toolcall._fast.enabled`).

Every test that holds a fast path to the plain path's answer reads the plain path through this
switch (`tests.helpers.outcomes.outcome(fast=False)`), so it must really turn every fast path
off, for the builders made inside it only, and give the same turn: checked here on every wire,
with a body that takes each fast path when the switch is on (a repeated envelope fed one event
per slice, and an event past 64 KiB fed in small slices).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable

import pytest

from tests.helpers.wire_bodies import WIRES, Call, events, frame
from tests.library.fast.test_shortcut import slices
from toolcall import Turn, TurnBuilder, TurnDone
from toolcall._call_table import CallTable
from toolcall._fast import enabled, is_enabled
from toolcall._framing.long_events import LongEvent
from toolcall._wires.chat import ChatReader

CALLS: list[Call] = [("write", {"path": "notes.md", "text": "words " * 12_000})]
SHORT: list[Call] = [("read", {"path": "a"})]
#: The wires whose short body below repeats an envelope the shortcut takes.
SHORTCUT_WIRES = ("chat", "responses", "anthropic")


def test_the_switch_is_on_by_default_and_each_block_restores_what_was() -> None:
    assert is_enabled()
    with enabled(False):
        assert not is_enabled()
        with enabled(True):
            assert is_enabled()
        assert not is_enabled()
    assert is_enabled()
    with pytest.raises(RuntimeError), enabled(False):
        raise RuntimeError("inside")
    assert is_enabled()


def test_the_switch_holds_for_its_own_thread_only() -> None:
    seen: list[bool] = []
    with enabled(False):
        thread = threading.Thread(target=lambda: seen.append(is_enabled()))
        thread.start()
        thread.join()
        assert not is_enabled()
    assert seen == [True]


def test_a_reader_made_with_the_switch_off_learns_no_template() -> None:
    with enabled(False):
        plain = ChatReader(CallTable(), json.loads, json.dumps)
    assert not plain.learning
    assert ChatReader(CallTable(), json.loads, json.dumps).learning


def fed(builder: TurnBuilder, pieces: Iterable[bytes]) -> Turn:
    for piece in pieces:
        builder.feed(piece)
    *_, done = builder.finish()
    assert isinstance(done, TurnDone)
    return done.turn


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("on", [True, False], ids=["fast", "plain"])
def test_a_builder_made_with_the_switch_off_takes_no_fast_path(
    monkeypatch: pytest.MonkeyPatch, wire: str, on: bool
) -> None:
    """Off: no template, no shortcut, no event held as bytes, and the same turns as on. On:
    the same bodies take the shortcut (where the wire repeats an envelope) and a long event."""
    long_events: list[LongEvent] = []
    read_long = TurnBuilder._read_long

    def counted(builder: TurnBuilder, event: LongEvent) -> None:
        long_events.append(event)
        read_long(builder, event)

    monkeypatch.setattr(TurnBuilder, "_read_long", counted)
    short = frame(wire, events(wire, SHORT, "Hello there, how are you today", size=3))
    long = frame(wire, events(wire, CALLS, "Hi", size=100_000))
    with enabled(on):
        short_builder, long_builder = TurnBuilder(), TurnBuilder()
    short_turn = fed(short_builder, slices(short))
    long_turn = fed(long_builder, [long[at : at + 1000] for at in range(0, len(long), 1000)])
    assert bool(short_builder._shortcuts) == (on and wire in SHORTCUT_WIRES)
    assert bool(long_events) == on
    with enabled(not on):
        others = fed(TurnBuilder(), slices(short)), fed(TurnBuilder(), [long])
    assert (short_turn.to_dict(), long_turn.to_dict()) == tuple(t.to_dict() for t in others)
