"""Vertex streams a call's string arguments as `partialArgs` pieces, each in an event that is
the one before with another piece: taken by a template (`GeminiReader.learn`), such an event
must give exactly what decoding it in full gives, whatever the pieces hold, however the events
are spoiled or split, near any limit. The reference is the body with every event decoded in
full (no template, no shortcut)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolcall._stream
from tests.helpers.memory import fed_peak
from tests.helpers.outcomes import outcome
from tests.helpers.wire_bodies import frame, pieces
from tests.library.fast.test_shortcut import SPOILS, slices, spoiled
from toolcall import ToolCallError, TurnBuilder
from toolcall._fast import enabled as fast_paths

Members = dict[str, str | int]
members = st.dictionaries(
    st.from_regex(r"[a-z]{1,6}", fullmatch=True),
    st.text(max_size=40) | st.integers(),
    min_size=1,
    max_size=3,
)


def event(call: dict[str, Any], *, finish: bool = False) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": [{"functionCall": call}]}}
    if finish:
        candidate["finishReason"] = "STOP"
    return {"candidates": [candidate], "modelVersion": "gemini-3.1-pro-preview"}


def vertex_body(calls: list[tuple[str, Members]], size: int, entry_continues: bool) -> bytes:
    """Each call opened by its name, each member in `partialArgs` entries (a string in pieces of
    `size`), the call closed by an empty `functionCall`, then the stop."""
    items = []
    for name, arguments in calls:
        items.append(event({"name": name, "willContinue": True}))
        for key, value in arguments.items():
            kind = "stringValue" if isinstance(value, str) else "numberValue"
            for piece in pieces(value, size) if isinstance(value, str) else [value]:
                entry: dict[str, Any] = {"jsonPath": f"$.{key}", kind: piece}
                if entry_continues:
                    entry["willContinue"] = True
                items.append(event({"partialArgs": [entry], "willContinue": True}))
        items.append(event({}))
    items.append(event({}, finish=True))
    return frame("gemini", items)


@settings(max_examples=200, deadline=None)
@given(
    calls=st.lists(
        st.tuples(st.from_regex(r"[a-z]{1,8}", fullmatch=True), members), min_size=1, max_size=2
    ),
    size=st.integers(1, 6),
    entry_continues=st.booleans(),
    spoils=st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from(SPOILS)), max_size=3),
    slack=st.none() | st.integers(-8, 8),
)
def test_a_piece_taken_by_its_template_reads_as_one_decoded_in_full(
    calls: list[tuple[str, Members]],
    size: int,
    entry_continues: bool,
    spoils: list[tuple[int, str]],
    slack: int | None,
) -> None:
    body = vertex_body(calls, size, entry_continues)
    pieces_ = slices(body)
    for where, how in spoils:
        pieces_ = spoiled(pieces_, where % len(pieces_), how)
    spoilt = b"".join(pieces_)
    limits = {}
    if slack is not None:
        chars = sum(
            len(key) + (len(v) if isinstance(v, str) else 1) + 1
            for _, a in calls
            for key, v in a.items()
        )
        limits["max_argument_chars"] = max(1, chars + slack)
    for events in (False, True):
        want = outcome(spoilt, wire="gemini", fast=False, events=events, **limits)
        assert outcome(pieces_, wire="gemini", events=events, **limits) == want
        assert outcome(spoilt, wire="gemini", events=events, **limits) == want
    # The slice an error is raised at, too: a limit crossed by a piece is refused at its event.
    assert raised_at(pieces_, fast=True, **limits) == raised_at(pieces_, fast=False, **limits)


def raised_at(pieces: list[bytes], *, fast: bool, **limits: int) -> tuple[int, str] | None:
    with fast_paths(fast):
        builder = TurnBuilder(wire="gemini", **limits)
    for number, piece in enumerate(pieces):
        try:
            builder.feed(piece)
        except ToolCallError as exc:
            return number, str(exc)
    return None


def test_the_pieces_of_a_long_string_are_taken_by_the_template(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Counted, not timed: of 500 pieces of one string, fed one event a slice, none after the
    first two is decoded; the turn is the one decoding every event gives."""
    body = vertex_body([("write", {"text": "abcd" * 500})], 4, entry_continues=True)
    want = outcome(body, wire="gemini", fast=False)
    decoded: list[str] = []
    original = toolcall._stream.backend

    def counting(name: str = "auto") -> Callable[[str], Any]:
        loads = original(name)

        def counted(text: str) -> Any:
            decoded.append(text)
            return loads(text)

        return counted

    monkeypatch.setattr(toolcall._stream, "backend", counting)
    assert outcome(slices(body), wire="gemini") == want
    assert 2 <= len(decoded) <= 6


@pytest.mark.slow
def test_a_call_closed_lets_go_of_its_pieces_whatever_template_kept_them() -> None:
    """Memory, not time: the builder keeps templates (and their shortcuts) after the call they
    took pieces for has closed; the pieces of its string must not live on with them, beside
    the joined string and the text the partial view has written from it."""
    text = "plain words " * 20_000
    events = slices(vertex_body([("write", {"text": text})], 4, entry_continues=True))
    peak = fed_peak(events, partial_arguments=True, wire="gemini")
    # The pieces while they come, then the joined string, its written text and the view's.
    assert peak < 4 * len(text)
