"""Every recording replayed at every byte split point: the answer never depends on where the
body was cut into feeds.

A reader that loses a call at one split point passes a few random re-splits: Dynamo's frontend
found a Gemma 4 call lost, and its markup leaked as text, only by replaying 263 stream cases at
every split point, about 48,000 chunkings (ai-dynamo/frontend-crates#131), and sglang checked
its GLM argument buffering at all 148 split points of a stream (sglang#39493). Here every published
recording on every wire is fed in two feeds at each byte split point, and the short ones in three
feeds at each pair of split points. The answer is the `Turn.to_dict()` (with events on, every
event as well), or the error's type and message (offsets included); it must be the one of the
body fed whole, on the JSON backend the replay used.

Each split point is replayed on both backends, with events on for one of them: even points on
`auto`, odd ones on `stdlib` (`events_on`), so every point is read with and without events.
Each pair of points is replayed once, on the backend its parity names, events off: the pairs
are the costly part (cubic in the body's size), and a backend only ever decodes whole payloads,
so where the body was cut cannot reach it.

The work is counted, not timed: every byte handed to the library is counted as it goes in, a
case must feed exactly what its plan says (the body once per replay), and the plan of the whole
slow run must stay within `BUDGET` (DESIGN.md, Suite: "Every split point").
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import combinations, pairwise
from math import comb
from pathlib import Path
from typing import Any

import pytest

import toolcall
from toolcall.harness.suite.recordings import Recording, discover

ROOT = Path(__file__).resolve().parents[1]
BACKENDS = ("auto", "stdlib")
#: Bodies this short are also replayed at every pair of split points (three feeds).
PAIRS_UP_TO = 1_200
#: `make test` replays each wire's `SHORTEST` shortest recordings of at most `SHORT_UP_TO` bytes
#: at every split point (a few seconds); the slow run replays them all.
SHORTEST = 1
SHORT_UP_TO = 6_000


@dataclass(frozen=True)
class Work:
    """What a run hands the library: replays (one builder each) and bytes fed."""

    replays: int = 0
    fed: int = 0

    def __add__(self, other: Work) -> Work:
        return Work(self.replays + other.replays, self.fed + other.fed)


#: The slow run's whole plan must stay within this (the figures of the suite as it is are in
#: DESIGN.md): a recording that would take it over is a decision to make, not a slower CI.
BUDGET = Work(replays=4_000_000, fed=48_000_000_000)


@dataclass(frozen=True)
class Case:
    """One recording on one backend, at every split point (`feeds` 2) or every pair (3)."""

    name: str
    body: bytes
    backend: str
    feeds: int

    @property
    def id(self) -> str:
        return f"{self.name}-{self.backend}-{self.feeds}feeds"

    def points(self) -> Iterator[tuple[int, ...]]:
        """The split points this case replays at: on pairs, those of its backend's parity."""
        every = combinations(range(1, len(self.body)), self.feeds - 1)
        if self.feeds == 2:
            return every
        parity = BACKENDS.index(self.backend)
        return (p for p in every if sum(p) % 2 == parity)

    def planned(self) -> Work:
        """Its work from the body's size alone: the body whole (twice with events on and off
        for single points, once for pairs), then once per split point or pair of them."""
        n = len(self.body)
        if self.feeds == 2:
            replays = 2 + (n - 1)
        else:
            odd, even = n // 2, (n - 1) // 2  # the points 1 .. n-1
            replays = 1 + (
                comb(odd, 2) + comb(even, 2) if self.backend == BACKENDS[0] else odd * even
            )
        return Work(replays, replays * n)


def events_on(points: tuple[int, ...], backend: str) -> bool:
    """Single points: even ones read with events on `auto`, odd ones on `stdlib`."""
    return len(points) == 1 and points[0] % 2 == BACKENDS.index(backend)


@dataclass
class Counter:
    """The work done, counted as the bytes go in."""

    replays: int = 0
    fed: int = 0
    mismatches: list[str] = field(default_factory=list)

    def pieces(self, body: bytes, points: tuple[int, ...]) -> Iterator[bytes]:
        self.replays += 1
        bounds = (0, *points, len(body))
        for start, end in pairwise(bounds):
            piece = body[start:end]
            self.fed += len(piece)
            yield piece

    @property
    def work(self) -> Work:
        return Work(self.replays, self.fed)


def answer(pieces: Iterable[bytes], backend: str, events: bool) -> tuple[Any, ...]:
    """What the library makes of the body: the turn, with events the events too, or the error."""
    try:
        if events:
            got = list(toolcall.iter_events(pieces, json_backend=backend))
            done = got.pop()
            assert isinstance(done, toolcall.TurnDone)
            return ("turn", done.turn.to_dict(), got)
        return ("turn", toolcall.assemble(pieces, json_backend=backend).to_dict())
    except toolcall.ToolCallError as exc:
        return ("error", type(exc).__name__, str(exc))


def replay(case: Case, counter: Counter) -> None:
    """Every split point (or pair) of the case, each answer compared with the whole body's."""
    body, backend = case.body, case.backend
    whole = {
        events: answer(counter.pieces(body, ()), backend, events)
        for events in ((False, True) if case.feeds == 2 else (False,))
    }
    for points in case.points():
        events = events_on(points, backend)
        if answer(counter.pieces(body, points), backend, events) != whole[events]:
            counter.mismatches.append(f"{case.id} split at {points}, events {events}")


def cases(recordings: list[Recording]) -> list[Case]:
    """Single points of every recording on both backends; pairs of the short ones. Largest
    first, so the longest cases start first on the workers."""
    made = []
    for recording in recordings:
        body = recording.body()
        for backend in BACKENDS:
            made.append(Case(recording.id, body, backend, 2))
            if len(body) <= PAIRS_UP_TO:
                made.append(Case(recording.id, body, backend, 3))
    return sorted(made, key=lambda c: (-c.planned().fed, c.id))


def shortest(recordings: list[Recording], count: int, up_to: int) -> list[Recording]:
    """The `count` shortest recordings of each wire of at most `up_to` bytes."""
    by_wire: dict[str, list[Recording]] = {}
    for recording in sorted(recordings, key=lambda r: (len(r.body()), r.id)):
        if len(recording.body()) <= up_to:
            by_wire.setdefault(recording.wire, []).append(recording)
    return [r for found in by_wire.values() for r in found[:count]]


RECORDINGS = discover(ROOT / "cassettes")
ALL = cases(RECORDINGS)
SHORT = [c for c in cases(shortest(RECORDINGS, SHORTEST, SHORT_UP_TO)) if c.feeds == 2]


def check(case: Case) -> None:
    counter = Counter()
    replay(case, counter)
    assert counter.mismatches == []
    assert counter.work == case.planned(), "a case fed more or less than its body per replay"


@pytest.mark.parametrize("case", SHORT, ids=[c.id for c in SHORT])
def test_the_shortest_recordings_of_each_wire_give_one_answer_at_every_split_point(
    case: Case,
) -> None:
    check(case)


@pytest.mark.slow
@pytest.mark.parametrize("case", ALL, ids=[c.id for c in ALL])
def test_every_recording_gives_one_answer_at_every_split_point(case: Case) -> None:
    check(case)


#: A chat body short enough to replay at every pair of split points in a blink.
TINY = (
    b'data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f",'
    b'"arguments":"{}"}}]}}]}\n\ndata: {"choices":[{"delta":{},"finish_reason":"tool_calls"}]}\n\n'
)


@pytest.mark.parametrize("feeds", [2, 3])
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_case_feeds_the_body_once_per_replay_as_planned(backend: str, feeds: int) -> None:
    check(Case("tiny", TINY, backend, feeds))


@pytest.mark.parametrize("feeds", [2, 3])
def test_a_reader_that_loses_a_byte_where_the_body_was_cut_is_caught(
    monkeypatch: pytest.MonkeyPatch, feeds: int
) -> None:
    """The check can fail: a builder that drops the first byte of every feed but the first."""
    feed = toolcall.TurnBuilder.feed
    started: set[int] = set()

    def lossy(builder: toolcall.TurnBuilder, data: bytes) -> list[toolcall.Event]:
        if id(builder) in started:
            data = data[1:]
        started.add(id(builder))
        return feed(builder, data)

    monkeypatch.setattr(toolcall.TurnBuilder, "feed", lossy)
    counter = Counter()
    case = Case("tiny", TINY, "auto", feeds)
    replay(case, counter)
    assert len(counter.mismatches) > len(list(case.points())) // 2


def test_the_slow_run_covers_every_recording_on_every_wire_within_its_budget() -> None:
    """The budget is counted from the bodies' sizes: a longer recording that would take the
    slow run past it fails here, in `make test`, before anyone waits for it."""
    assert {c.name for c in ALL} == {r.id for r in RECORDINGS}
    assert {r.wire for r in RECORDINGS} == {"chat", "responses", "anthropic", "gemini", "ollama"}
    assert {r.wire for r in shortest(RECORDINGS, SHORTEST, SHORT_UP_TO)} == {
        r.wire for r in RECORDINGS
    }
    assert any(c.feeds == 3 for c in ALL)
    total = sum((c.planned() for c in ALL), Work())
    assert total.replays <= BUDGET.replays and total.fed <= BUDGET.fed, total


def test_wire_detection_gives_each_recording_its_own_wires_answer() -> None:
    """The replays leave the wire to detection (`wire="auto"`, the default): fed whole, it must
    read every recording as its own wire does."""
    for recording in RECORDINGS:
        body = recording.body()
        named = toolcall.assemble(body, wire=recording.wire)
        assert toolcall.assemble(body) == named, recording.id
