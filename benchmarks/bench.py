"""End-to-end cost of toolcall against the cost of merely decoding the chunks.

The floor is stdlib `json.loads` of every chunk payload and nothing else, measured in the same run
on the same machine, so the ratios hold across machines while seconds do not. The streams are
OpenAI-shaped (the most common envelope) with arguments cut into 4-character fragments, the
finest granularity seen on the wire (DeepSeek), which maximises per-chunk overhead.

The peers (the `peers` extra: the openai SDK's stream state, langchain-core's chunk merging,
litellm's `stream_chunk_builder`) run in the same process on the same streams, each as a ratio to
the same floor. They start from the chunk payloads, as their SDKs would after reading the SSE
lines, and pay for decoding the JSON and building their own chunk objects, as their users do. A
peer gets a time budget per stream; one that exceeds it is stopped, shown as `>budget`, and not
run on the larger streams (the grid grows in chunks, and no peer gets cheaper with more chunks).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import toolcall
from toolcall.harness.peers import Assembled, Implementation

ENVELOPE = (
    '{"id":"chatcmpl-B9yQ3bench","object":"chat.completion.chunk","created":1760000000,'
    '"model":"gpt-4o-mini","system_fingerprint":"fp_bench","usage":null,"choices":[{"index":0,'
    '"delta":%s,"logprobs":null,"finish_reason":%s}]}'
)


def argument_text(size: int, seed: int) -> str:
    """A JSON object of about `size` characters with escapes and non-ASCII text in it."""
    words = ["alpha", 'b\\"eta\\"', "gamma", "δέλτα", "上海", "line\\nbreak", "🧪"]
    body = []
    total = 0
    n = seed
    while total < size:
        word = words[n % len(words)]
        body.append(word)
        total += len(word) + 1
        n += 1
    return '{"text":"' + " ".join(body) + '"}'


def stream(calls: int, size_per_call: int, fragment: int = 4) -> tuple[bytes, list[str]]:
    """An SSE body with `calls` parallel calls, fragments interleaved round-robin."""
    payloads = []
    pieces = []
    for i in range(calls):
        text = argument_text(size_per_call, i)
        head = {
            "tool_calls": [
                {
                    "index": i,
                    "id": f"call_{i:024d}",
                    "type": "function",
                    "function": {"name": "write", "arguments": ""},
                }
            ]
        }
        payloads.append(ENVELOPE % (json.dumps(head), "null"))
        pieces.append([text[j : j + fragment] for j in range(0, len(text), fragment)])
    longest = max(len(p) for p in pieces)
    for j in range(longest):
        for i, frags in enumerate(pieces):
            if j < len(frags):
                delta = {"tool_calls": [{"index": i, "function": {"arguments": frags[j]}}]}
                payloads.append(ENVELOPE % (json.dumps(delta, ensure_ascii=False), "null"))
    payloads.append(ENVELOPE % ("{}", '"tool_calls"'))
    body = "".join(f"data: {p}\n\n" for p in payloads) + "data: [DONE]\n\n"
    return body.encode(), payloads


def live(events: list[bytes], backend: str) -> None:
    """The way a socket delivers a stream: one SSE event per `feed`."""
    builder = toolcall.TurnBuilder(json_backend=backend, events=False)
    for event in events:
        builder.feed(event)
    builder.finish()


def split_events(body: bytes) -> list[bytes]:
    return [event + b"\n\n" for event in body.split(b"\n\n") if event]


def decode_all(payloads: list[str]) -> None:
    """The floor: decode every chunk with the stdlib and keep nothing."""
    loads = json.loads
    for payload in payloads:
        loads(payload)


def interleaved_best(runs: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    """Best time of each run, taking turns so that machine noise hits them all alike."""
    best = {name: float("inf") for name in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


GRID = [
    ("2 KB", 1, 2 * 1024),
    ("16 KB", 1, 16 * 1024),
    ("64 KB", 1, 64 * 1024),
    ("8 x 32 KB (256 KB)", 8, 32 * 1024),
    ("1 MB", 1, 1024 * 1024),
]

#: What a peer is told about the request: the one tool the streams call, and a user message
#: (litellm counts the prompt's tokens from it).
#: Pairs of single-call streams whose times are compared, with the ratio a linear cost gives.
GROWTH = [("2 KB", "16 KB", 8), ("16 KB", "64 KB", 4), ("64 KB", "1 MB", 16)]

REQUEST = {
    "messages": [{"role": "user", "content": "Write the file."}],
    "tools": [
        {
            "type": "function",
            "function": {
                "name": "write",
                "parameters": {"type": "object", "properties": {"text": {"type": "string"}}},
            },
        }
    ],
}


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
    answer: Assembled | None = None


def budgeted_best(
    run: Callable[[], Assembled], floor: Callable[[], object], repeat: int, budget: float
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


def peer_run(peer: Implementation, payloads: list[str]) -> Assembled:
    """What a peer's user pays from the same payloads: decoding the JSON, then the peer."""
    loads = json.loads
    return peer.assemble([loads(payload) for payload in payloads], REQUEST)


def same_calls(turn: toolcall.Turn, answer: Assembled) -> bool:
    """Whether a peer's answer is the library's: same names, same parsed arguments."""
    if answer.error is not None or len(answer.calls) != len(turn.tool_calls):
        return False
    try:
        theirs = [(c.name, json.loads(c.arguments)) for c in answer.calls]
    except ValueError:
        return False
    ours = [(c.function.name, a) for c, a in zip(turn.tool_calls, turn.arguments, strict=True)]
    return theirs == ours


def load_peers(wanted: bool) -> list[Implementation]:
    """The installed peers (the `peers` extra); the missing ones are named and skipped."""
    if not wanted:
        return []
    from toolcall.harness.peers import Unavailable, builtin

    peers = []
    for name, factory in builtin().items():
        if name == "toolcall":
            continue
        try:
            peers.append(factory())
        except Unavailable as exc:
            print(f"{name} not available, skipped: {exc}")
    return peers


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--budget",
        type=float,
        default=10.0,
        help="seconds a peer gets per stream, all its runs together (default 10)",
    )
    parser.add_argument("--no-peers", action="store_true", help="measure the library only")
    parser.add_argument("--markdown", type=Path, help="also write the table as Markdown here")
    args = parser.parse_args()
    backends = ["stdlib"]
    try:
        import orjson  # noqa: F401

        backends.append("orjson")
    except ImportError:
        print("orjson not installed: the fast backend is skipped")
    peers = load_peers(not args.no_peers)
    feeds = [f"{name} live" for name in backends]
    columns = backends + feeds + [peer.name for peer in peers]
    width = max([10, *(len(c) + 2 for c in columns)])
    print(
        f"{'stream':<22}{'chunks':>9}{'floor ms':>10}" + "".join(f"{c:>{width}}" for c in columns)
    )
    cells: dict[tuple[str, str], str] = {}
    seconds: dict[tuple[str, str], float] = {}
    over: set[str] = set()
    chunks: dict[str, int] = {}
    for label, calls, size in GRID:
        body, payloads = stream(calls, size)
        chunks[label] = len(payloads)
        repeat = args.repeat if len(payloads) < 100_000 else max(2, args.repeat // 2)
        runs: dict[str, Callable[[], object]] = {"floor": partial(decode_all, payloads)}
        events = split_events(body)
        for name in backends:
            runs[name] = partial(toolcall.assemble, body, json_backend=name)
            runs[f"{name} live"] = partial(live, events, name)
        best = interleaved_best(runs, repeat)
        for name in backends + feeds:
            seconds[(label, name)] = best[name]
            cells[(label, name)] = f"{best[name] / best['floor']:.2f}x"
        turn = toolcall.assemble(body)
        for peer in peers:
            if peer.name in over:
                cells[(label, peer.name)] = ">budget"
                continue
            timing = budgeted_best(
                partial(peer_run, peer, payloads), runs["floor"], min(repeat, 3), args.budget
            )
            if timing.best is None or timing.answer is None:
                over.add(peer.name)
                cells[(label, peer.name)] = ">budget"
                continue
            seconds[(label, peer.name)] = timing.best
            wrong = "" if same_calls(turn, timing.answer) else " (wrong)"
            cells[(label, peer.name)] = f"{timing.best / timing.floor:.1f}x{wrong}"
        row = f"{label:<22}{len(payloads):>9}{best['floor'] * 1000:>10.1f}"
        print(row + "".join(f"{cells[(label, c)]:>{width}}" for c in columns), flush=True)
    growth = {
        (small, large): {c: _growth(seconds, c, (small, large, n), args.budget) for c in columns}
        for small, large, n in GROWTH
    }
    for small, large, linear in GROWTH:
        shown = ", ".join(f"{c} {growth[(small, large)][c]}" for c in columns)
        print(f"time growth {small} -> {large} ({linear}x is linear): {shown}")
    if over:
        print(f"'>budget': stopped after {args.budget:g} s, and not run on larger streams")
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(
            _markdown(columns, cells, chunks, growth, args.budget), encoding="utf-8"
        )
    return 0


def _growth(
    seconds: dict[tuple[str, str], float], column: str, sizes: tuple[str, str, int], budget: float
) -> str:
    """How the time grew between two sizes. When the larger one went over the budget, the bound
    that gives is shown only if it already proves worse than linear growth."""
    small, large, linear = sizes
    if (small, column) not in seconds:
        return "over budget"
    if (large, column) in seconds:
        return f"{seconds[(large, column)] / seconds[(small, column)]:.1f}x"
    bound = budget / seconds[(small, column)]
    return f">{bound:.0f}x" if bound >= linear else "over budget"


def _markdown(
    columns: list[str],
    cells: dict[tuple[str, str], str],
    chunks: dict[str, int],
    growth: dict[tuple[str, str], dict[str, str]],
    budget: float,
) -> str:
    lines = [
        "| arguments | chunks | " + " | ".join(columns) + " |",
        "|---|---|" + "---|" * len(columns),
    ]
    for label, _calls, _size in GRID:
        row = [cells.get((label, c), "-") for c in columns]
        lines.append(f"| {label} | {chunks[label]:,} | " + " | ".join(row) + " |")
    for small, large, linear in GROWTH:
        shown = " | ".join(growth[(small, large)][c] for c in columns)
        lines.append(f"| time growth {small} -> {large} | {linear}x is linear | {shown} |")
    lines += ["", f"`>budget`: stopped after {budget:g} s and not run on larger streams.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
