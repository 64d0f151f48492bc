"""Feeding realistic arguments to `PartialArguments` in four-character fragments, with and
without reading the view after each, beside pydantic-core parsing every prefix: the timings
behind docs/SPEED.md's partial-view notes. `python benchmarks/partial_reader.py [KB ...]`
prints them (64 and 1024 KB by default); tests/library/turn/test_partial.py checks that both
shapes read as `json.loads` reads them.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from pydantic_core import from_json

from toolcall import PartialArguments


def file_arguments(size: int) -> str:
    """A file written through a tool call: a few members and one long string with escapes
    (quotes, backslashes, newlines, tabs) and non-ASCII text, `size` characters in all."""
    line = '\tprint("naïve café \\\\ 日本語 ✓", end="\\n")  # ok\n'
    content = (line * (size // len(json.dumps(line)) + 1))[: size // 2]
    text = json.dumps(
        {"path": "src/app.py", "mode": "overwrite", "content": content}, ensure_ascii=False
    )
    while len(text) < size:
        content += line
        text = json.dumps(
            {"path": "src/app.py", "mode": "overwrite", "content": content}, ensure_ascii=False
        )
    return text


def record_arguments(size: int) -> str:
    """Many small objects in an array, `size` characters at least."""
    rows: list[dict[str, Any]] = []
    length = 0
    while length < size:
        row = {
            "id": len(rows),
            "name": f"item {len(rows)} ü",
            "price": 9.99 + len(rows),
            "tags": ["a", "b"],
            "ok": True,
        }
        rows.append(row)
        length += len(json.dumps(row, ensure_ascii=False)) + 2
    return json.dumps({"table": "items", "rows": rows}, ensure_ascii=False)


def timed(text: str, step: int, reader: str, sample: int = 1) -> float:
    """Seconds to read `text` in `step`-character fragments: `feed` (feeding only), `value`
    (feeding and `value()` after every fragment), `changes` (feeding and `changes()` after every
    fragment) or `pydantic` (pydantic-core parsing every prefix; with `sample`, only every
    `sample`-th prefix, and the time scaled up, for sizes where the real run takes many minutes).
    """
    start = time.perf_counter()
    if reader == "pydantic":
        for end in range(step, len(text) + step, step * sample):
            from_json(text[:end], allow_partial="trailing-strings")
        return (time.perf_counter() - start) * sample
    partial = PartialArguments(track_changes=reader == "changes")
    look = {"value": partial.value, "changes": partial.changes}.get(reader)
    for begin in range(0, len(text), step):
        partial.feed(text[begin : begin + step])
        if look is not None:
            look()
    return time.perf_counter() - start


def main() -> None:
    """Print the timings for the sizes given in KB (64 and 1024 by default): ours best of
    three; pydantic-core's from a sample of one prefix in 64 past 256 KB."""
    sizes = [int(arg) * 1024 for arg in sys.argv[1:]] or [64 * 1024, 1024 * 1024]
    for shape in (file_arguments, record_arguments):
        texts = [shape(size) for size in sizes]
        for reader in ("feed", "changes", "value", "pydantic"):
            times = []
            for text in texts:
                if reader == "pydantic":
                    times.append(timed(text, 4, reader, 64 if len(text) > 256 * 1024 else 1))
                else:
                    times.append(min(timed(text, 4, reader) for _ in range(3)))
            cells = "  ".join(
                f"{len(text) // 1024:>5} KB {seconds:9.3f} s"
                for text, seconds in zip(texts, times, strict=True)
            )
            print(
                f"{shape.__name__:16} {reader:8} {cells}  x{times[-1] / times[0]:.1f}", flush=True
            )


if __name__ == "__main__":
    main()
