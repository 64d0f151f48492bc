"""Timing that holds up on a busy machine: best of runs taken in turns, and a budget per peer.

A ratio to a floor measured in the same run, at the same moment, is what holds across machines;
taking the runs in turns makes machine noise hit all of them alike.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


def interleaved_best(runs: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    """Best time of each run, taking turns so that machine noise hits them all alike."""
    best = {name: float("inf") for name in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


class OverBudget(BaseException):
    """Raised by the timer inside a peer's run. A BaseException, so that a peer's own
    `except Exception` (litellm wraps everything it catches) cannot swallow it."""


def _stop(signum: int, frame: object) -> None:
    raise OverBudget


@dataclass
class PeerTiming:
    """A peer's best time on one stream, the floor's best time taken in turns with it, and the
    answer of its first run (to check it); `best` is None when the first run did not fit."""

    best: float | None = None
    floor: float = float("inf")
    answer: Any = None


def budgeted_best(
    run: Callable[[], Any], floor: Callable[[], object], repeat: int, budget: float
) -> PeerTiming:
    """Best time of up to `repeat` runs that together fit in `budget` seconds, each run after
    one run of the floor (so that machine noise hits both alike, as in `interleaved_best`).
    A run is stopped by a timer, not waited for, so a quadratic peer costs the budget and no
    more."""
    previous = signal.signal(signal.SIGALRM, _stop)
    timing = PeerTiming()
    spent = 0.0
    try:
        for _ in range(repeat):
            if timing.best is not None and spent + timing.best > budget:
                break
            start = time.perf_counter()
            floor()
            timing.floor = min(timing.floor, time.perf_counter() - start)
            signal.setitimer(signal.ITIMER_REAL, budget - spent)
            start = time.perf_counter()
            try:
                answer = run()
            except OverBudget:
                break
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            elapsed = time.perf_counter() - start
            spent += elapsed
            timing.best = elapsed if timing.best is None else min(timing.best, elapsed)
            timing.answer = timing.answer or answer
    finally:
        signal.signal(signal.SIGALRM, previous)
    return timing
