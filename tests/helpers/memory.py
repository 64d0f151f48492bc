"""Peak memory of a builder fed slices, by tracemalloc: what the memory tests measure (never a
clock). The slices are made before, so only what the builder holds is counted."""

from __future__ import annotations

import tracemalloc
from typing import Any

from toolcall import TurnBuilder


def fed_peak(slices: list[bytes], **options: Any) -> int:
    """Bytes allocated at most while a `TurnBuilder(**options)` reads `slices` and finishes."""
    tracemalloc.start()
    try:
        builder = TurnBuilder(**options)
        for piece in slices:
            builder.feed(piece)
        builder.finish()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
