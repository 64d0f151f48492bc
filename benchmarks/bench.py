"""End-to-end cost of toolcall against the cost of merely decoding the chunks.

The floor is stdlib `json.loads` of every chunk payload and nothing else, measured in the same run
on the same machine, so the ratios hold across machines while seconds do not. The streams are
OpenAI-shaped (the most common envelope) with arguments cut into 4-character fragments, the
finest granularity seen on the wire (DeepSeek), which maximises per-chunk overhead.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from functools import partial

import toolcall

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
    ("64 KB", 1, 64 * 1024),
    ("1 MB", 1, 1024 * 1024),
    ("8 x 32 KB (256 KB)", 8, 32 * 1024),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    backends = ["stdlib"]
    try:
        import orjson  # noqa: F401

        backends.append("orjson")
    except ImportError:
        print("orjson not installed: the fast backend is skipped")
    print(f"{'stream':<22}{'chunks':>9}{'floor ms':>10}" + "".join(f"{b:>10}" for b in backends))
    ratios: dict[tuple[str, str], float] = {}
    seconds: dict[tuple[str, str], float] = {}
    for label, calls, size in GRID:
        body, payloads = stream(calls, size)
        repeat = args.repeat if len(payloads) < 100_000 else max(2, args.repeat // 2)
        runs: dict[str, Callable[[], object]] = {"floor": partial(decode_all, payloads)}
        for name in backends:
            runs[name] = partial(toolcall.assemble, body, json_backend=name)
        best = interleaved_best(runs, repeat)
        row = f"{label:<22}{len(payloads):>9}{best['floor'] * 1000:>10.1f}"
        for name in backends:
            ratios[(label, name)] = best[name] / best["floor"]
            seconds[(label, name)] = best[name]
            row += f"{ratios[(label, name)]:>9.2f}x"
        print(row)
    for name in backends:
        growth = seconds[("1 MB", name)] / seconds[("64 KB", name)]
        print(f"time growth 64 KB -> 1 MB ({name}): {growth:.1f}x (16x is linear, target <= 17x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
